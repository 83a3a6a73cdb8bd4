#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/cli/cli_salvage_art.sh - a salvaged ART dump loads where the whole one
# does. ART writes each CLASS_DUMP after objects of its class, and those of
# the primitive array classes late (63 % into the fixture): cut before
# them, the salvaged output held objects of classes no CLASS_DUMP declared,
# and VisualVM's parser ("Invalid type 8") and ahat (a NullPointerException)
# refused it. Each ART dump is cut at several places, salvaged plain and
# with --to-jvm, and loaded: VisualVM's parser after --to-jvm (before, it
# refuses some whole ART dumps too), ahat, and jhat after --to-jvm (it reads
# no 1.0.3). Needs Java and VisualVM's jar (tools/vvm-histogram.sh); ahat
# and jhat from ../shared/tools. Usage: sh tests/cli/cli_salvage_art.sh BIN
set -u
NAME=cli_salvage_art
. "$(dirname "$0")/../lib.sh"
BIN=${1:-./hprof-strip}
TOOLS=$TESTS/../../shared/tools

vvm() { sh "$TESTS/../tools/vvm-histogram.sh" --summary "$1" >"$T/vvm" 2>&1; }
have_vvm=1
vvm fixtures/jvm17-64bit.hprof || { have_vvm=0; skipped "VisualVM's parser: $(tail -1 "$T/vvm")"; }
have_ahat=0
have_shared "$TOOLS/ahatsum/ahatsum" "ahat and jhat on salvaged ART dumps" && have_ahat=1

# loads WHAT FILE JVM: FILE loads in every analyzer that applies (JVM: it
# is the --to-jvm output)
loads() {
    if [ "$3" = 1 ] && [ $have_vvm = 1 ]; then
        vvm "$2" && ok || bad "$1: VisualVM: $(tail -1 "$T/vvm")"
    fi
    if [ $have_ahat = 1 ]; then
        "$TOOLS/ahatsum/ahatsum" "$2" >"$T/ahat" 2>&1 && ok || bad "$1: ahat: $(grep -m1 -i 'error\|exception' "$T/ahat")"
        if [ "$3" = 1 ]; then
            "$TOOLS/jhatsum/jhatsum" "$2" >"$T/jhat" 2>&1 && ok || bad "$1: jhat: $(grep -m1 -i 'error\|exception' "$T/jhat")"
        fi
    fi
}

# cuts DUMP PERCENT...: each cut salvaged with -p none and with --to-jvm
# (and with a preset that drops heaps and holds roots), loaded
cuts() {
    d=$1; shift
    size=$(wc -c <"$d")
    for pct in "$@"; do
        head -c $((size * pct / 100)) "$d" >"$T/cut.hprof"
        for args in "-p none" "--to-jvm" "-p android-app --to-jvm"; do
            what="$(basename "$d") cut at $pct %, $args"
            # shellcheck disable=SC2086
            "$BIN" --salvage $args -o "$T/s.hprof" -f "$T/cut.hprof" 2>"$T/err"; rc=$?
            expect_rc 6 "$what"
            case $args in *to-jvm*) jvm=1 ;; *) jvm=0 ;; esac
            loads "$what" "$T/s.hprof" $jvm
            cp "$T/err" "$T/err-$pct"
        done
    done
}

# The fixture: its primitive array classes' CLASS_DUMPs start at byte
# 1689769 of 2695590 (62.7 %); java.lang.Object's comes before 20 %.
FIX=fixtures/android-art2025-ahat-test-dump.hprof
"$BIN" -p none --to-jvm "$FIX" -o "$T/whole.hprof" -f
loads "the whole fixture, --to-jvm" "$T/whole.hprof" 1
loads "the whole fixture" "$FIX" 0
cuts "$FIX" 20 45 62 64
# cut before them: the classes it had still to declare are said, with the
# primitive array classes by name; after them, those are not among them
for t in boolean char float double byte short int long; do
    expect_grep "cut before [0-9]* CLASS_DUMPs (.*$t\[\]" "$T/err-45" "the fixture cut at 45 %: $t[] named"
done
expect_grep "written as classes with no fields or statics, superclass java.lang.Object" "$T/err-45" "the fixture cut at 45 %: warning"
expect_grep "cut before 10 CLASS_DUMPs (" "$T/err-62" "the fixture cut at 62 %, just before them: warning"
expect_no_grep "CLASS_DUMPs" "$T/err-64" "the fixture cut at 64 %: every class had come"
# -q hides the warning, not the salvage
head -c 1200000 "$FIX" >"$T/cut.hprof"
"$BIN" -q --salvage -p none "$T/cut.hprof" -o "$T/s.hprof" -f 2>"$T/err"; rc=$?
expect_rc 6 "-q --salvage"
expect_no_grep "CLASS_DUMPs of" "$T/err" "-q --salvage: no warning"
# the CLASS_DUMPs written are valid HPROF, and a second salvage (of a
# whole file now) writes none
"$BIN" -p none "$T/s.hprof" -o "$T/again.hprof" -f 2>"$T/err"; rc=$?
expect_rc 0 "the salvaged output read again"
"$BIN" --salvage -p none "$T/s.hprof" 2>"$T/err" | cmp -s - "$T/s.hprof" && ok || bad "a salvaged output salvaged again changed: $(cat "$T/err")"
# a HotSpot dump cut in its objects (its class dumps all came first):
# nothing to write
head -c 3600000 fixtures/jvm17-64bit.hprof >"$T/cut.hprof"
"$BIN" --salvage -p none "$T/cut.hprof" -o "$T/s.hprof" -f 2>"$T/err"; rc=$?
expect_rc 6 "HotSpot dump cut in its objects"
expect_no_grep "CLASS_DUMPs of" "$T/err" "HotSpot dump cut in its objects: no class written"

# ART dumps of the corpus, and the test suite's simulated one (its class
# dumps come first: the cuts must change nothing for it)
for d in ../shared/corpus/android-*.hprof; do
    have_shared "$d" "salvaged corpus ART dumps" || continue
    cuts "$d" 35 75
done
[ -e build/fresh/jvm-30mb-art.hprof ] && cuts build/fresh/jvm-30mb-art.hprof 40

finish
