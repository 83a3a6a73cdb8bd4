#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/cli/cli_many.sh - many inputs in one invocation (issue #37 items 1 and
# 4): FILE... -o DIR's naming, -j 1 and -j 2 byte for byte the single
# runs, a failing file in the middle, the JSON Lines report, two inputs
# with one output name, an input already in DIR, SIGTERM during -j 2,
# --timeout on a slow input, HPROF_STRIP_THREADS.
# Usage: sh tests/cli/cli_many.sh ./hprof-strip
set -u
BIN=${1:-./hprof-strip}
NAME=cli_many
. "$(dirname "$0")/../lib.sh"

FIX=fixtures
IN=$T/in
mkdir "$IN"
cp $FIX/jvm17-64bit.hprof "$IN/a.hprof"
cp $FIX/jvm17-jcmd-gz1.hprof.gz "$IN/b.hprof.gz"
zstd -q -c $FIX/jvm7-hprof-agent.hprof >"$IN/c.zst"
cp $FIX/android-art2025-ahat-test-dump.hprof "$IN/d"
ALL="$IN/a.hprof $IN/b.hprof.gz $IN/c.zst $IN/d"

# names DIR: the file names in DIR, on one line
names() { (cd "$1" && ls | tr '\n' ' '); }
# same WHAT A B: the two files hold the same bytes
same() { if cmp -s "$2" "$3"; then ok; else bad "$1: $2 and $3 differ"; fi; }

# --- naming: .gz/.zst/.zstd dropped, .hprof kept or added, -z/--gzip's
for fmt in plain z gzip; do
    D=$T/name-$fmt
    mkdir "$D"
    case $fmt in
    plain) opt= ext= ;;
    z) opt=-z ext=.zst ;;
    gzip) opt=--gzip ext=.gz ;;
    esac
    rc=0
    "$BIN" -q $opt $ALL -o "$D" 2>"$T/err" || rc=$?
    expect_rc 0 "naming $fmt"
    got=$(names "$D")
    want="a.hprof$ext b.hprof$ext c.hprof$ext d.hprof$ext "
    [ "$got" = "$want" ] && ok || bad "naming $fmt: '$got', expected '$want'"
done
# the outputs are what they are named: zstd and gzip read them
zstd -q -t "$T/name-z/a.hprof.zst" && ok || bad "-z: a.hprof.zst is not zstd"
gzip -t "$T/name-gzip/b.hprof.gz" && ok || bad "--gzip: b.hprof.gz is not gzip"
# .zstd is dropped too, and one input with -j and -o DIR goes into it
cp "$IN/c.zst" "$T/e.hprof.zstd"
mkdir "$T/one"
rc=0
"$BIN" -q -j 1 "$T/e.hprof.zstd" -o "$T/one/" 2>"$T/err" || rc=$?
expect_rc 0 "one input, -j 1 -o DIR/"
[ "$(names "$T/one")" = "e.hprof " ] && ok || bad "one input: '$(names "$T/one")' in DIR"
# without -j the same (a directory named by -o is always DIR); the output
# there already is refused without -f, replaced with it
rc=0
"$BIN" -q "$T/e.hprof.zstd" -o "$T/one" 2>"$T/err" || rc=$?
expect_rc 2 "one input, -o DIR, output there, no -f"
rc=0
"$BIN" -q "$T/e.hprof.zstd" -o "$T/one" -f 2>"$T/err" || rc=$?
expect_rc 0 "one input, -o DIR -f"
[ "$(names "$T/one")" = "e.hprof " ] && ok || bad "one input without -j: '$(names "$T/one")'"
# standard input with -o DIR: no name to give the output, refused
rc=0
"$BIN" -q -o "$T/one" -f <"$T/e.hprof.zstd" 2>"$T/err" || rc=$?
expect_rc 2 "standard input, -o DIR"

# --- -j 1 and -j 2: byte for byte the single runs (plain and -z)
mkdir "$T/single" "$T/single-z"
for f in a.hprof b.hprof.gz c.zst d; do
    o=$(echo "$f" | sed 's/\.gz$//; s/\.zst$//; s/\.hprof$//').hprof
    "$BIN" -q "$IN/$f" -o "$T/single/$o" 2>/dev/null
    "$BIN" -q -z "$IN/$f" -o "$T/single-z/$o.zst" 2>/dev/null
done
for j in 1 2; do
    mkdir "$T/j$j" "$T/j$j-z"
    rc=0
    "$BIN" -q -j $j $ALL -o "$T/j$j" || rc=$?
    expect_rc 0 "-j $j"
    rc=0
    "$BIN" -q -z -j $j $ALL -o "$T/j$j-z" || rc=$?
    expect_rc 0 "-z -j $j"
    for o in a b c d; do
        same "-j $j" "$T/single/$o.hprof" "$T/j$j/$o.hprof"
        same "-z -j $j" "$T/single-z/$o.hprof.zst" "$T/j$j-z/$o.hprof.zst"
    done
done

# --- a failing file in the middle: the others done, the worst status
printf 'not a heap dump at all\n' >"$IN/bad.hprof"
head -c 2000000 "$IN/a.hprof" >"$IN/cut.hprof"
D=$T/fail
mkdir "$D"
rc=0
"$BIN" -q -j 1 "$IN/a.hprof" "$IN/bad.hprof" "$IN/d" -o "$D" 2>"$T/err" || rc=$?
expect_rc 1 "an invalid input in the middle"
expect_grep "bad.hprof" "$T/err" "the failure names its file"
[ -f "$D/a.hprof" ] && [ -f "$D/d.hprof" ] && ok || bad "the others not done: $(names "$D")"
[ ! -e "$D/bad.hprof" ] && ok || bad "the failed input has an output"
same "after a failure" "$T/single/d.hprof" "$D/d.hprof"
# truncated (3), invalid (1), missing (4): I/O is the worst of them
D=$T/fail2
mkdir "$D"
rc=0
"$BIN" -q -j 2 "$IN/cut.hprof" "$IN/nosuch.hprof" "$IN/bad.hprof" "$IN/a.hprof" -o "$D" \
    2>"$T/err" || rc=$?
expect_rc 4 "cut, missing, invalid: the worst"
expect_grep "nosuch.hprof" "$T/err" "the missing file is named"
[ "$(names "$D")" = "a.hprof " ] && ok || bad "fail2: '$(names "$D")'"
no_temp "$D" "failures"
# cut and invalid: invalid (1) is worse than cut (3), whatever the order
rc=0
"$BIN" -q -f "$IN/bad.hprof" "$IN/cut.hprof" -o "$D" 2>/dev/null || rc=$?
expect_rc 1 "invalid and cut"

# --- JSON Lines: one line per input, each its report, input order
D=$T/jsonl
mkdir "$D"
rc=0
"$BIN" -q -j 2 --stats-file "$T/r.jsonl" "$IN/a.hprof" "$IN/bad.hprof" "$IN/b.hprof.gz" \
    -o "$D" 2>/dev/null || rc=$?
expect_rc 1 "--stats-file with many"
[ "$(wc -l <"$T/r.jsonl")" -eq 3 ] && ok || bad "JSONL: $(wc -l <"$T/r.jsonl") lines, not 3"
$PY -c 'import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
want = [(sys.argv[2], 0), (sys.argv[3], 1), (sys.argv[4], 0)]
got = [(r["input"]["name"], r["exit_status"]) for r in rows]
assert got == want, got
assert rows[1]["error"]["status"] == "unsupported", rows[1]["error"]
assert rows[0]["output"]["kept"] and not rows[1]["output"]["kept"]' "$T/r.jsonl" \
    "$IN/a.hprof" "$IN/bad.hprof" "$IN/b.hprof.gz" 2>"$T/py" && ok ||
    bad "JSONL contents: $(cat "$T/py")"
# each line is a whole report under the schema
i=0
while IFS= read -r line; do
    i=$((i + 1))
    printf '%s\n' "$line" >"$T/line$i.json"
    $PY tests/cli/report_schema.py src/lib/hprof_strip.h "$T/line$i.json" >"$T/schema" 2>&1 &&
        ok || bad "JSONL line $i: $(cat "$T/schema")"
done <"$T/r.jsonl"
# to standard output too
rc=0
"$BIN" -q -f --stats-file - "$IN/a.hprof" "$IN/d" -o "$D" >"$T/r2.jsonl" 2>/dev/null || rc=$?
expect_rc 0 "--stats-file - with many"
[ "$(wc -l <"$T/r2.jsonl")" -eq 2 ] && ok || bad "JSONL on stdout: $(wc -l <"$T/r2.jsonl") lines"

# --- what a single run prints at its end, per input, never interleaved:
# each child's --stats=json line, --stats table and histogram go to a
# file of its own, copied to stderr whole by the parent (#37)
D=$T/ends
mkdir "$D"
rc=0
TMPDIR=$T/endtmp
mkdir "$TMPDIR"
TMPDIR=$TMPDIR "$BIN" -q -j 2 --stats=json "$IN/bad.hprof" $ALL -o "$D" -f 2>"$T/ends.err" ||
    rc=$?
expect_rc 1 "--stats=json with many"
$PY -c 'import json, sys
docs = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
got = sorted((d["input"]["name"], d["exit_status"]) for d in docs)
want = sorted([(n, 1 if n.endswith("bad.hprof") else 0) for n in sys.argv[2:]])
assert got == want, (got, want)' "$T/ends.err" "$IN/bad.hprof" $ALL 2>"$T/py" &&
    ok || bad "--stats=json with many: one whole line per input: $(cat "$T/py")"
[ -z "$(ls "$T/endtmp")" ] && ok || bad "--stats=json with many left $(ls "$T/endtmp")"
# the table: headed by its input's name, its lines together
"$BIN" -q --stats "$IN/a.hprof" -o /dev/null 2>"$T/one.err"
lines=$(grep -c '^  ' "$T/one.err")
[ "$lines" -gt 30 ] && ok || bad "--stats: a table of $lines lines"
rc=0
"$BIN" -j 2 --stats --histogram $ALL -o "$D" -f 2>"$T/ends.err" || rc=$?
expect_rc 0 "--stats --histogram with many"
for f in $ALL; do
    k=$(grep -n "^hprof-strip: $f: [0-9]* .*bytes in" "$T/ends.err" | cut -d: -f1)
    [ -n "$k" ] && ok || { bad "--stats with many: no table headed $f"; continue; }
    # the table's lines straight after its heading, none of another's
    sed -n "$((k + 1)),$((k + lines))p" "$T/ends.err" | grep -vc '^  ' >"$T/n" || true
    [ "$(cat "$T/n")" = 0 ] && ok || bad "--stats with many: $f's table is cut"
    expect_grep "^hprof-strip: $f: classes by input bytes" "$T/ends.err" \
        "--histogram with many: $f's heading"
done

# --- two inputs, one output name: the second fails, the first's stays
mkdir "$T/other" "$T/clash"
cp "$IN/d" "$T/other/a.hprof"
for f in "" -f; do
    rc=0
    "$BIN" -q $f --stats-file "$T/clash.jsonl" "$IN/a.hprof" "$T/other/a.hprof" -o "$T/clash" \
        2>"$T/err" || rc=$?
    expect_rc 2 "one output name for two inputs $f"
    expect_grep "other/a.hprof: its output name" "$T/err" "the clash is said $f"
    same "the first's output stays $f" "$T/single/a.hprof" "$T/clash/a.hprof"
    $PY -c 'import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
assert len(r) == 2 and r[1]["exit_status"] == 2 and r[1]["error"]["status"] == "usage", r[1]' \
        "$T/clash.jsonl" 2>"$T/py" && ok || bad "the clash's report $f: $(cat "$T/py")"
done
# the same file twice is a clash too
rc=0
"$BIN" -q "$IN/d" "$IN/d" -o "$T/clash" -f 2>"$T/err" || rc=$?
expect_rc 2 "the same input twice"

# --- an input in DIR already is never its own output (even with -f)
D=$T/indir
mkdir "$D"
cp "$IN/a.hprof" "$D/a.hprof"
for f in "" -f; do
    rc=0
    "$BIN" -q $f "$D/a.hprof" "$IN/d" -o "$D" 2>"$T/err" || rc=$?
    expect_rc 2 "an input in DIR $f"
    same "the input in DIR is untouched $f" "$IN/a.hprof" "$D/a.hprof"
    [ -f "$D/d.hprof" ] && ok || bad "the other input not done $f"
    rm -f "$D/d.hprof"
done

# the JSON Lines never go over a file the run reads: an input, the mapping
printf 'com.x.A -> a:\n' >"$T/map.txt"
cp "$T/map.txt" "$T/map.keep"
rc=0
"$BIN" -q -f --mapping "$T/map.txt" --stats-file "$T/map.txt" "$IN/a.hprof" "$IN/d" \
    -o "$T/indir" 2>"$T/err" || rc=$?
expect_rc 2 "--stats-file naming the mapping"
same "the mapping is kept" "$T/map.keep" "$T/map.txt"
rc=0
"$BIN" -q -f --stats-file "$IN/d" "$IN/a.hprof" "$IN/d" -o "$T/indir" 2>"$T/err" || rc=$?
expect_rc 2 "--stats-file naming an input"
same "the input is kept" "$FIX/android-art2025-ahat-test-dump.hprof" "$IN/d"

# --- usage: several FILEs need -o DIR to be a directory; no stdin
rc=0
"$BIN" -q "$IN/a.hprof" "$IN/d" -o "$T/notadir.hprof" 2>"$T/err" || rc=$?
expect_rc 2 "several FILEs, -o not a directory"
expect_grep "names a directory" "$T/err" "says -o must be a directory"
[ ! -e "$T/notadir.hprof" ] && ok || bad "-o file written with several FILEs"
rc=0
"$BIN" -q - "$IN/d" -o "$T/one" <"$IN/a.hprof" 2>"$T/err" || rc=$?
expect_rc 2 "- among FILEs"
for a in "-j 0" "-j x" "--jobs=257" "--timeout x" "--timeout -1"; do
    rc=0
    "$BIN" -q $a "$IN/a.hprof" -o "$T/one" 2>"$T/err" || rc=$?
    expect_rc 2 "usage: $a"
done
# IN OUT stays IN -> OUT (an OUTPUT operand is never a directory's name)
rc=0
"$BIN" -q "$IN/a.hprof" "$T/pos.hprof" || rc=$?
expect_rc 0 "IN OUT"
same "IN OUT" "$T/single/a.hprof" "$T/pos.hprof"

# slow INPUT FIFO SECONDS: a FIFO fed the first 100 kB of INPUT, then
# (after SECONDS) the rest, in the background
slow() {
    rm -f "$2"
    mkfifo "$2"
    (head -c 100000 "$1"; sleep "$3"; tail -c +100001 "$1") >"$2" 2>/dev/null &
    FEEDERS="$FEEDERS $!"
}
# done_feeding: the slow feeders of runs that ended are not waited for
FEEDERS=
done_feeding() {
    for q in $FEEDERS; do kill $q 2>/dev/null; done
    wait
    FEEDERS=
}
# has_read PID...: waits (up to 10 s: a busy machine) until each process
# PID has read the first 100 kB its slow FIFO sends (then its threads are
# all started, and it waits for the rest)
has_read() {
    for q in "$@"; do
        i=0
        while [ $i -lt 100 ] &&
            [ "$(sed -n 's/^rchar: //p' /proc/$q/io 2>/dev/null || echo 0)" -lt 100000 ] 2>/dev/null; do
            sleep 0.1
            i=$((i + 1))
        done
    done
}

# --- --timeout: a slow input stops with 124, its output removed
D=$T/to
mkdir "$D"
slow "$IN/a.hprof" "$T/slow.hprof" 12
rc=0
"$BIN" -q --timeout 0.5 --stats-file "$T/to.json" "$T/slow.hprof" -o "$D/x.hprof" \
    2>"$T/err" || rc=$?
expect_rc 124 "--timeout, one input"
expect_grep "stopped by --timeout" "$T/err" "--timeout is said even with -q"
[ "$(names "$D")" = "" ] && ok || bad "--timeout left '$(names "$D")'"
$PY tests/cli/report_schema.py src/lib/hprof_strip.h "$T/to.json" exit_status=124 \
    error.status='"timeout"' output.kept=false >"$T/schema" 2>&1 && ok ||
    bad "--timeout's report: $(cat "$T/schema")"
done_feeding
# with many: the slow one times out, the others are done; 124 is the worst
# (5 s: time enough for the others on a busy machine)
slow "$IN/a.hprof" "$T/slow.hprof" 12
rc=0
"$BIN" -q -j 2 --timeout 5 "$IN/d" "$T/slow.hprof" "$IN/b.hprof.gz" -o "$D" 2>"$T/err" || rc=$?
expect_rc 124 "--timeout, many"
[ "$(names "$D")" = "b.hprof d.hprof " ] && ok || bad "--timeout, many: '$(names "$D")'"
done_feeding
# a deadline not reached changes nothing
rc=0
"$BIN" -q --timeout 60 "$IN/a.hprof" -o "$D/a.hprof" || rc=$?
expect_rc 0 "--timeout not reached"
same "--timeout not reached" "$T/single/a.hprof" "$D/a.hprof"
# a SIGALRM from kill(1) is still a stop by signal (142), not a timeout
slow "$IN/a.hprof" "$T/slow.hprof" 12
rc=0
"$BIN" -q --timeout 30 "$T/slow.hprof" -o "$D/alrm.hprof" 2>"$T/err" &
pid=$!
sleep 0.5
kill -ALRM $pid
{ wait $pid || rc=$?; } 2>/dev/null # (the shell's "Alarm clock")
expect_rc 142 "kill -ALRM with --timeout"
done_feeding

# --- SIGTERM during -j 2: no temporary file, no output, 143
D=$T/term
mkdir "$D"
slow "$IN/a.hprof" "$T/s1.hprof" 12
slow "$IN/d" "$T/s2.hprof" 12
"$BIN" -q -j 2 --stats-file "$T/term.jsonl" "$T/s1.hprof" "$T/s2.hprof" "$IN/b.hprof.gz" \
    -o "$D" 2>"$T/err" &
pid=$!
# (up to 10 s) until both jobs are going, each with its temporary output
i=0
while [ $i -lt 100 ] && ! { ls "$D" | grep -q 's1.hprof.tmp-' && ls "$D" | grep -q 's2.hprof.tmp-'; }; do
    sleep 0.1
    i=$((i + 1))
done
has_read $(cat /proc/$pid/task/$pid/children 2>/dev/null)
# both children are running, each with its temporary output
ls "$D" | grep -q 's1.hprof.tmp-' && ls "$D" | grep -q 's2.hprof.tmp-' && ok ||
    bad "-j 2: two runs not going at once: '$(names "$D")'"
kill -TERM $pid
rc=0
{ wait $pid || rc=$?; } 2>/dev/null
expect_rc 143 "SIGTERM during -j 2"
no_temp "$D" "SIGTERM during -j 2"
[ "$(names "$D")" = "" ] && ok || bad "SIGTERM left '$(names "$D")'"
$PY -c 'import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
assert len(r) == 2, r
assert all(x["error"]["signal"] == "SIGTERM" and x["exit_status"] == 143 for x in r), r' \
    "$T/term.jsonl" 2>"$T/py" && ok || bad "SIGTERM's JSONL: $(cat "$T/py")"
done_feeding

# --- a child killed by SIGKILL writes no report: its JSON Lines line (and
# --stats=json's) is still a whole report under the schema, saying so
D=$T/kill
mkdir "$D"
slow "$IN/a.hprof" "$T/s1.hprof" 12
"$BIN" -q -j 2 --stats=json --stats-file "$T/kill.jsonl" "$T/s1.hprof" "$IN/d" -o "$D" \
    2>"$T/kill.err" &
pid=$!
i=0
while [ $i -lt 100 ] && ! ls "$D" | grep -q 's1.hprof.tmp-'; do
    sleep 0.1
    i=$((i + 1))
done
child=
for c in $(cat /proc/$pid/task/$pid/children 2>/dev/null); do
    # (forked, not exec'd: the children's command lines are the parent's)
    ls -l /proc/$c/fd 2>/dev/null | grep -q 's1\.hprof$' && child=$c
done
[ -n "$child" ] && ok || bad "SIGKILL: no child reading s1.hprof"
kill -KILL $child 2>/dev/null
rc=0
wait $pid || rc=$?
done_feeding
expect_rc 137 "a child killed by SIGKILL"
$PY -c 'import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert [r["input"]["name"] for r in rows] == sys.argv[2:4], rows
k = rows[0]
assert k["exit_status"] == 137 and k["error"]["status"] == "signal", k
assert "no report" in k["error"]["message"], k
assert k["output"]["kept"] is False, k
assert rows[1]["exit_status"] == 0, rows[1]
err = [json.loads(l) for l in open(sys.argv[4]) if l.startswith("{")]
assert sorted(r["input"]["name"] for r in err) == sorted(sys.argv[2:4]), err' \
    "$T/kill.jsonl" "$T/s1.hprof" "$IN/d" "$T/kill.err" 2>"$T/py" && ok ||
    bad "SIGKILL's JSONL: $(cat "$T/py")"
head -n 1 "$T/kill.jsonl" >"$T/kill1.json"
$PY tests/cli/report_schema.py src/lib/hprof_strip.h "$T/kill1.json" >"$T/schema" 2>&1 &&
    ok || bad "SIGKILL's line under the schema: $(cat "$T/schema")"

# --- HPROF_STRIP_THREADS: -T's default (seen as the threads a run has)
# threads_of VALUE [OPTION]: N = the threads of a --gzip run waiting on a
# slow input, HPROF_STRIP_THREADS=VALUE
threads_of() {
    slow "$IN/a.hprof" "$T/slow.hprof" 12
    HPROF_STRIP_THREADS=$1 "$BIN" -q --gzip ${2:-} "$T/slow.hprof" -o "$T/thr.hprof.gz" -f \
        2>"$T/thr.err" &
    p=$!
    has_read $p
    N=$(ls /proc/$p/task 2>/dev/null | wc -l)
    kill $p # (what it writes is not the point)
    { wait $p; } 2>/dev/null
    done_feeding
}
threads_of 1
one=$N
threads_of 2
two=$N
threads_of 4
four=$N
[ "$four" -ge $((one + 3)) ] && [ "$two" -gt "$one" ] && [ "$four" -gt "$two" ] && ok ||
    bad "HPROF_STRIP_THREADS: 1 gave $one threads, 2 gave $two, 4 gave $four"
threads_of 4 "-T 1"
[ "$N" -eq "$one" ] && ok || bad "-T 1 with HPROF_STRIP_THREADS=4: $N threads, not $one"
# -j 2 shares them: each of two jobs gets 4 / 2 = 2
slow "$IN/a.hprof" "$T/s1.hprof" 12
slow "$IN/d" "$T/s2.hprof" 12
rm -rf "$T/thr"
mkdir "$T/thr"
HPROF_STRIP_THREADS=4 "$BIN" -q --gzip -j 2 "$T/s1.hprof" "$T/s2.hprof" -o "$T/thr" &
p=$!
i=0
while [ $i -lt 100 ] && [ "$(cat /proc/$p/task/$p/children 2>/dev/null | wc -w)" -lt 2 ]; do
    sleep 0.1
    i=$((i + 1))
done
kids=$(cat /proc/$p/task/$p/children 2>/dev/null)
has_read $kids
n=0
for k in $kids; do
    c=$(ls /proc/$k/task 2>/dev/null | wc -l)
    [ "$c" -eq "$two" ] && n=$((n + 1)) || echo "job $k: $c threads, a -T 2 run $two" >&2
done
[ "$n" -eq 2 ] && ok || bad "-j 2 with HPROF_STRIP_THREADS=4: $n of '$kids' have a -T 2 run's threads"
kill $p
{ wait $p; } 2>/dev/null
done_feeding
# an invalid value: a warning (not with -q), the cores used, the run done
threads_of ""
dflt=$N
threads_of bogus
[ "$N" -eq "$dflt" ] && ok || bad "HPROF_STRIP_THREADS=bogus: $N threads, the default $dflt"
expect_empty "$T/thr.err" "-q: no warning for HPROF_STRIP_THREADS=bogus"
rc=0
HPROF_STRIP_THREADS=bogus "$BIN" "$IN/a.hprof" -o "$T/w.hprof" 2>"$T/err" || rc=$?
expect_rc 0 "HPROF_STRIP_THREADS=bogus"
expect_grep "warning: HPROF_STRIP_THREADS='bogus' is not a number from 1 to 256: ignored" \
    "$T/err" "an invalid HPROF_STRIP_THREADS is a warning"
rm -f "$T/w.hprof"
rc=0
HPROF_STRIP_THREADS=0 "$BIN" --stats-file "$T/w.json" "$IN/a.hprof" -o "$T/w.hprof" 2>"$T/err" ||
    rc=$?
expect_rc 0 "HPROF_STRIP_THREADS=0 is ignored, not fatal"
expect_grep "warning: HPROF_STRIP_THREADS='0'" "$T/err" "HPROF_STRIP_THREADS=0 warned"
expect_grep "HPROF_STRIP_THREADS" "$T/w.json" "the warning is in the report"
same "HPROF_STRIP_THREADS=0" "$T/single/a.hprof" "$T/w.hprof"

finish
