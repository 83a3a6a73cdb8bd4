#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# --histogram against two analyzers' own parsers: for every corpus dump and
# fixture, the per-class instance counts of the input (and of the output, for
# each preset) equal ahat's (../shared/tools/ahatsum) and, on JVM dumps,
# VisualVM's (tools/vvm-histogram.sh). ahat also counts each class dump as an
# instance of java.lang.Class, which the dump holds no INSTANCE_DUMP for:
# that one row is left out of the ahat comparison. A file with more than one
# heap dump (the JVMTI agent's jvm7-hprof-agent) is counted whole by
# hprof-strip, but by the analyzers only in part: it is skipped, left out
# of the sample (as the corrupt bad-* dumps are) so that a sample of one
# always has something to check.
# Without ../shared, the fixtures only, against VisualVM only.
# Usage: tests/ext/histogram.sh ./hprof-strip
set -u
BIN=${1:-./hprof-strip}
NAME=histogram
. "$(dirname "$0")/../lib.sh"
AHAT=../shared/tools/ahatsum/ahatsum
have_shared "$AHAT" "histogram: ahat's counts" || AHAT=
corpus=
have_shared ../shared/corpus "histogram: the shared corpus's dumps" && corpus="../shared/corpus/*.hprof ../shared/corpus/*.hprof.gz"

# "NAME COUNT" lines of one side of the JSON histogram, heaps added up
side() {
    python3 - "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c = {}
for row in d["histogram"][sys.argv[2]]:
    c[row["class"]] = c.get(row["class"], 0) + row["instances"]
for k in sorted(c):
    print(k, c[k])
PY
}
ahat() { [ -n "$AHAT" ] || return 0; "$AHAT" "$1" | awk '$1 == "class" && $2 != "java.lang.Class" && $3 > 0 {print $2, $3}' | sort; }
vvm() { sh tools/vvm-histogram.sh "$1" 2>/dev/null | awk -F'\t' '$2 > 0 && $1 != "TOTAL" {print $1, $2}' | sort; }

# shellcheck disable=SC2086 # the list is split on purpose
sample=$(sample_dumps --skip '*bad-*' --skip '*hprof-agent*' $corpus fixtures/*.hprof)
for f in $sample; do
    [ -e "$f" ] || continue
    b=$(basename "$f" .gz)
    in=$f
    case $f in *.gz) gzip -dc "$f" >"$T/$b"; in=$T/$b ;; esac
    for p in none android-app; do
        "$BIN" -q --histogram -p $p "$in" -o "$T/out.hprof" -f --stats-file "$T/s.json" 2>"$T/err" ||
            { bad "$b -p $p: exit $?: $(head -c 300 "$T/err")"; continue; }
        dumps=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["counters"]["heap_dumps"])' "$T/s.json")
        [ "$dumps" -le 1 ] || continue
        side "$T/s.json" input | grep -v "^java.lang.Class " >"$T/in.txt"
        side "$T/s.json" output | grep -v "^java.lang.Class " >"$T/out.txt"
        if [ $p = none ]; then
            ahat "$in" >"$T/ahat-in.txt" 2>/dev/null
            if [ -s "$T/ahat-in.txt" ]; then
                cmp -s "$T/in.txt" "$T/ahat-in.txt" && ok ||
                    bad "$b input: differs from ahat: $(diff "$T/in.txt" "$T/ahat-in.txt" | head -4 | tr '\n' ' ')"
            fi
            if head -c 18 "$in" | grep -q "1.0.[12]"; then
                side "$T/s.json" input >"$T/in-all.txt"
                vvm "$in" >"$T/vvm.txt"
                cmp -s "$T/in-all.txt" "$T/vvm.txt" && ok ||
                    bad "$b input: differs from VisualVM: $(diff "$T/in-all.txt" "$T/vvm.txt" | head -4 | tr '\n' ' ')"
            fi
        fi
        ahat "$T/out.hprof" >"$T/ahat-out.txt" 2>/dev/null
        if [ -s "$T/ahat-out.txt" ]; then
            cmp -s "$T/out.txt" "$T/ahat-out.txt" && ok ||
                bad "$b -p $p output: differs from ahat: $(diff "$T/out.txt" "$T/ahat-out.txt" | head -4 | tr '\n' ' ')"
        fi
    done
done
# ahat checks every dump the loop reads: with it, a run that checked
# nothing read nothing (a sample of only skipped dumps, say)
[ -z "$AHAT" ] || [ "$pass" -gt 0 ] || bad "no dump checked (sample:$sample)"
finish
