#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# No unused STRING in an output whose rules drop them, whatever order the
# input's records come in, read by a scanner of the tests' own
# (tests/cli/strings_used.py), never by the filter's counters:
#  - the two-step pipeline: deobfuscate keeping values (-p none --mapping),
#    then share (-p privacy, -p default): the first output has a STRING
#    after its LOAD_CLASSes, which made the second keep HotSpot's whole
#    symbol table (issue #50);
#  - ART dumps, as they are and --to-jvm (the heap names --to-jvm drops);
#  - past --max-held the run fails (exit 5) rather than write what it holds
#    (tests/unit/test_strings_order.c reads what a failed run wrote).
# Every STRING comes before its first user, and none stands between two
# heap segments (VisualVM reads them as one run).
# Usage: sh tests/cli/cli_strings.sh BIN
set -u
bin=$1
NAME=cli_strings
. "$(dirname "$0")/../lib.sh"
scan() { python3 "$TESTS/cli/strings_used.py" "$1"; }

# expect_clean FILE WHAT: no unused STRING, none late, none between segments
expect_clean() {
    s=$(scan "$1") || { bad "$2: unreadable output"; return; }
    case $s in
        *" unused=0 late=0 between=0") ok ;;
        *) bad "$2: $s" ;;
    esac
}

# a class of the fixture renamed, so that deobfuscating writes a STRING
# after the LOAD_CLASSes
printf 'x.Renamed -> com.intellij.rt.execution.application.AppMainV2:\n' >"$T/m.txt"
"$bin" -p none --mapping "$T/m.txt" fixtures/jvm17-64bit.hprof -o "$T/named.hprof" 2>"$T/err"
rc=$?; expect_rc 0 "-p none --mapping"
case $(scan "$T/named.hprof") in
    *" unused=0 "*) bad "the input keeps no unused STRING: the pipeline tests nothing" ;;
    *) ok ;;
esac
for p in privacy default; do
    "$bin" -p $p "$T/named.hprof" -o "$T/shared.hprof" -f 2>"$T/err"
    rc=$?; expect_rc 0 "-p $p on --mapping's output"
    expect_clean "$T/shared.hprof" "-p $p on --mapping's output"
    "$bin" -p $p fixtures/jvm17-64bit.hprof -o "$T/direct.hprof" -f 2>"$T/err"
    if [ "$(scan "$T/shared.hprof" | cut -d' ' -f1)" = "$(scan "$T/direct.hprof" | cut -d' ' -f1)" ]
    then ok; else bad "-p $p: the two-step pipeline keeps other STRINGs than one run"; fi
done

for d in fixtures/android-art2025-ahat-test-dump.hprof build/fresh/jvm-30mb-art.hprof; do
    [ -f "$d" ] || { skipped "$d (make check writes it)"; continue; }
    for a in "-p default" "-p privacy" "-p android-app" "-p privacy --to-jvm" "-p android-app --to-jvm"; do
        # shellcheck disable=SC2086
        "$bin" $a "$d" -o "$T/o.hprof" -f 2>"$T/err"
        rc=$?; expect_rc 0 "$a $d"
        expect_clean "$T/o.hprof" "$a $d"
    done
done

# the cap: the unused STRINGs of the mapping's output held past it
"$bin" -p privacy --max-held 1M "$T/named.hprof" -o "$T/capped.hprof" 2>"$T/err"
rc=$?; expect_rc 5 "--max-held 1M with 2 MiB of STRINGs held"
expect_grep "STRING" "$T/err" "the limit error names the STRINGs held"
if [ -e "$T/capped.hprof" ]; then bad "a failed run left its output"; else ok; fi
finish
