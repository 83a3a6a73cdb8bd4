#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The binary interface grows without breaking (issue #36): a program built
# against the 0.1 header ALONE (tests/lanes/abi/hprof_strip-0.1.h, frozen) and
# linked to the library as built now must keep working, unchanged: the
# library exports every 0.1 function, and the program's output bytes and
# hs_stats counters equal the CLI's (its --stats-file report) on every
# fixture and preset, while the guards after its hs_options and hs_stats
# stay untouched (tests/lanes/abi/prog01.c). And the same for a program of the
# first hs_job (tests/lanes/abi/hprof_strip-0.2-job1.h, tests/lanes/abi/progjob1.c).
# Usage: tests/lanes/abi.sh ./hprof-strip BUILD_DIR   (CC, CFLAGS, LDFLAGS from
# the environment: the Makefile passes its own, sanitizers included)
set -u
bin=$1
build=${2:-build}
NAME=abi
. "$(dirname "$0")/../lib.sh"
CC=${CC:-cc}
so=$build/libhprofstrip.so

[ -e "$so" ] && ok || { bad "no $so (make lib)"; finish; exit 1; }

# the 0.1 header, and nothing else of ours, on the include path
mkdir -p "$T/inc"
cp tests/lanes/abi/hprof_strip-0.1.h "$T/inc/hprof_strip.h"
grep -q '^#define HS_VERSION_STRING "0.1.0"' "$T/inc/hprof_strip.h" && ok ||
    bad "tests/lanes/abi/hprof_strip-0.1.h is not the 0.1 header"
# shellcheck disable=SC2086
$CC -std=c11 -Wall -Wextra -Werror ${CFLAGS:-} -I"$T/inc" tests/lanes/abi/prog01.c -o "$T/prog01" \
    ${LDFLAGS:-} -L"$build" -lhprofstrip 2>"$T/err"; rc=$?
expect_rc 0 "prog01 against the 0.1 header"
[ "$rc" -eq 0 ] || { cat "$T/err" >&2; finish; exit 1; }
LD_LIBRARY_PATH=$build
export LD_LIBRARY_PATH
ldd "$T/prog01" | grep -q "libhprofstrip.so.0 => $build/libhprofstrip.so.0 " && ok ||
    bad "prog01 does not load $build/libhprofstrip.so.0: $(ldd "$T/prog01" | grep hprof)"

# every function the 0.1 header declares is still exported
sed -n '/^[A-Za-z]/{/^typedef/d; s/^.*[ *]\(hs_[a-z0-9_]*\)(.*/\1/p;}' "$T/inc/hprof_strip.h" |
    sort >"$T/declared01"
[ "$(wc -l <"$T/declared01")" -ge 15 ] && ok || bad "too few 0.1 functions found"
nm -D --defined-only "$so" | awk '{print $3}' | sort >"$T/exported"
comm -23 "$T/declared01" "$T/exported" >"$T/missing"
[ -s "$T/missing" ] && bad "0.1 functions no longer exported: $(cat "$T/missing")" || ok

# the counters of the CLI's report as "name value" lines (null offsets: 0)
counters() {
    python3 -c '
import json, sys
for k, v in json.load(open(sys.argv[1]))["counters"].items():
    print(k, v if v is not None else 0)' "$1"
}

n=0
for f in fixtures/*.hprof; do
    for p in default privacy android-app none; do
        "$bin" -q -p "$p" "$f" -o "$T/cli.hprof" -f --stats-file "$T/cli.json" 2>"$T/err"
        rc=$?
        expect_rc 0 "CLI -p $p $f"
        "$T/prog01" "$f" "$T/lib.hprof" "$p" "$T/lib.stats" 2>"$T/err"; rc=$?
        expect_rc 0 "prog01 $f $p: $(cat "$T/err")"
        cmp -s "$T/cli.hprof" "$T/lib.hprof" && ok || bad "prog01 $f -p $p: output differs"
        counters "$T/cli.json" >"$T/cli.stats"
        # the 0.1 counters, each of them in the report with the same value
        sort "$T/lib.stats" >"$T/a"
        grep -F -x -f "$T/a" "$T/cli.stats" | sort >"$T/b"
        if cmp -s "$T/a" "$T/b"; then ok; else
            bad "prog01 $f -p $p: counters differ: $(diff "$T/a" "$T/b" | head -5 | tr '\n' ' ')"
        fi
        n=$((n + 1))
    done
done
[ "$n" -ge 12 ] && ok || bad "only $n runs"
[ "$(wc -l <"$T/lib.stats")" -eq 46 ] && ok || bad "the 0.1 hs_stats has 46 counters"

# a failure through the 0.1 calls: a cut dump, its status and message
head -c 100000 fixtures/jvm17-64bit.hprof >"$T/cut.hprof"
"$T/prog01" "$T/cut.hprof" "$T/lib.hprof" default "$T/lib.stats" 2>"$T/err"; rc=$?
expect_rc 1 "prog01, cut dump"
expect_grep "truncated input: input byte" "$T/err" "prog01, cut dump"
"$T/prog01" "$T/cut.hprof" "$T/lib.hprof" nosuch "$T/lib.stats" 2>"$T/err"; rc=$?
expect_rc 2 "prog01, unknown preset"
expect_grep "unknown preset 'nosuch'" "$T/err" "prog01, unknown preset"
expect_no_grep "--" "$T/err" "prog01, unknown preset: no CLI option named"

# ---- the first hs_job -------------------------------------------------------
# A program built against the header whose hs_job ended at `salvage`
# (tests/lanes/abi/hprof_strip-0.2-job1.h, before progress and the names), its
# job followed by bytes that would crash a library reading past its size
# (tests/lanes/abi/progjob1.c): the CLI's bytes and counters, names null.
mkdir -p "$T/inc1"
cp tests/lanes/abi/hprof_strip-0.2-job1.h "$T/inc1/hprof_strip.h"
# shellcheck disable=SC2086
$CC -std=c11 -Wall -Wextra -Werror ${CFLAGS:-} -I"$T/inc1" tests/lanes/abi/progjob1.c \
    -o "$T/progjob1" ${LDFLAGS:-} -L"$build" -lhprofstrip 2>"$T/err"; rc=$?
expect_rc 0 "progjob1 against the first hs_job's header"
[ "$rc" -eq 0 ] || { cat "$T/err" >&2; finish; exit 1; }
for run in "fixtures/jvm17-jcmd-gz1.hprof.gz privacy zstd -z" \
    "fixtures/jvm17-64bit.hprof default none" \
    "fixtures/android-art2025-ahat-test-dump.hprof android-app gzip --gzip"; do
    # shellcheck disable=SC2086
    set -- $run
    "$bin" -q -T 2 -p "$2" ${4:-} "$1" -o "$T/cli.out" -f --stats-file "$T/cli.json" 2>"$T/err"
    rc=$?
    expect_rc 0 "CLI -p $2 ${4:-} $1"
    "$T/progjob1" "$1" "$T/lib.out" "$2" "$3" "$T/lib.json" 2>"$T/err"; rc=$?
    expect_rc 0 "progjob1 $1 $2 $3: $(cat "$T/err")"
    cmp -s "$T/cli.out" "$T/lib.out" && ok || bad "progjob1 $1 -p $2 $3: output differs"
    counters "$T/cli.json" >"$T/a"
    counters "$T/lib.json" >"$T/b"
    cmp -s "$T/a" "$T/b" && ok ||
        bad "progjob1 $1 -p $2: counters differ: $(diff "$T/a" "$T/b" | head -5 | tr '\n' ' ')"
    expect_grep '"input":{"name":null,' "$T/lib.json" "progjob1 $1: the input unnamed"
    expect_grep '"output":{"name":null,' "$T/lib.json" "progjob1 $1: the output unnamed"
done
head -c 500000 fixtures/jvm17-jcmd-gz1.hprof.gz >"$T/cut.hprof.gz"
"$T/progjob1" "$T/cut.hprof.gz" "$T/lib.out" default none "$T/lib.json" 2>"$T/err"; rc=$?
expect_rc 3 "progjob1, a cut .gz"
expect_grep '"message":"input: ' "$T/lib.json" "progjob1, a cut .gz: the input is \"input\""
finish
