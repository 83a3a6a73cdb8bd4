#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The bench's yardstick (bench/walkfloor.c, its "walk alone" rows): it must
# walk every sub-record hprof-strip reads, on one thread (its pages mapped
# ahead by another, or not) and split over two, or issue #38's floor rows
# would compare against less work than a filter does; and it must refuse
# what it cannot walk rather than time it.
# Usage: tests/lanes/bench_floor.sh HPROF-STRIP
set -u
NAME=bench_floor
. "$(dirname "$0")/../lib.sh"
BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
cd "$TESTS/.." || exit 2

if ! ${CC:-cc} -std=c11 -O2 -Wall -Wextra -Werror -pthread -o "$T/walkfloor" bench/walkfloor.c 2>"$T/cc.err"; then
    bad "bench/walkfloor.c does not build: $(head -n 3 "$T/cc.err")"
    finish
    exit 1
fi

# the ART fixture, and the ART-style one made from the JVM fixture (short
# roots, segments of 128 items, heap switches), beside the JVM ones
inputs="fixtures/jvm17-64bit.hprof fixtures/jvm7-hprof-agent.hprof fixtures/android-art2025-ahat-test-dump.hprof"
if have_artdump; then
    "$ARTDUMP" fixtures/jvm17-64bit.hprof "$T/art.hprof" >/dev/null 2>&1 && inputs="$inputs $T/art.hprof" ||
        bad "artdump could not convert fixtures/jvm17-64bit.hprof"
fi
gzip -dc fixtures/jvm17-jcmd-gz1.hprof.gz > "$T/jcmd.hprof" && inputs="$inputs $T/jcmd.hprof"
for f in $inputs; do
    want=$("$BIN" -p none --stats=json < "$f" 2>&1 >/dev/null |
           sed -n 's/.*"subrecords_in": *\([0-9]*\).*/\1/p')
    [ -n "$want" ] && [ "$want" -gt 0 ] || { bad "$f: no subrecords_in from hprof-strip"; continue; }
    for t in "" "-p" "-t 2"; do
        # shellcheck disable=SC2086 # the option is a word list
        got=$("$T/walkfloor" $t "$f")
        if [ "$got" = "$want sub-records" ]; then ok; else bad "$f ${t:-one thread}: walked '$got', hprof-strip read $want"; fi
    done
done

# an unknown sub-tag, and no dump at all: refused, not timed
dump=fixtures/jvm17-64bit.hprof
printf 'JAVA PROFILE 1.0.2\0\0\0\0\10\0\0\0\0\0\0\0\0\34\0\0\0\0\0\0\0\2\7\7' > "$T/badtag.hprof"
printf 'not a heap dump at all, but long enough\n' > "$T/text"
for f in "$T/badtag.hprof" "$T/text"; do
    for t in "" "-p" "-t 2"; do
        rc=0
        # shellcheck disable=SC2086
        "$T/walkfloor" $t "$f" >/dev/null 2>"$T/err" || rc=$?
        expect_rc 1 "$(basename "$f") ${t:-one thread}"
    done
done
# a record cut short ends the walk before it: fewer sub-records than the
# whole dump, and no read past the mapping
head -c $(($(wc -c < "$dump") / 2)) "$dump" > "$T/cut.hprof"
whole=$("$T/walkfloor" "$dump" | cut -d ' ' -f 1)
half=$("$T/walkfloor" "$T/cut.hprof" | cut -d ' ' -f 1)
if [ -n "$half" ] && [ "$half" -lt "$whole" ]; then ok; else bad "cut dump: walked '$half' of $whole"; fi
for bad_args in "-t 3 $dump" "-p" "-p -t 2 $dump" "$dump $dump"; do
    rc=0
    # shellcheck disable=SC2086
    "$T/walkfloor" $bad_args >/dev/null 2>&1 || rc=$?
    expect_rc 2 "walkfloor $bad_args is a usage error"
done

finish
