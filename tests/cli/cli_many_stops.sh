#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/cli/cli_many_stops.sh - many inputs in one invocation (FILE... -o DIR)
# under the single run's rules where they are hardest to keep (issue #51,
# items 1, 3, 4, 5, 6 and 16): a signal ignored at start (nohup) stays
# ignored in the jobs; standard error a closed pipe or a full disk; TMPDIR
# missing; --stats-file checked before any job; a report written whatever
# ends the run (a refused command line, a stop as soon as it starts).
# make test-stress runs it with both cores busy.
# Usage: sh tests/cli/cli_many_stops.sh ./hprof-strip
set -u
BIN=${1:-./hprof-strip}
NAME=cli_many_stops
. "$(dirname "$0")/../lib.sh"

FIX=fixtures
IN=$T/in
mkdir "$IN"
cp $FIX/jvm17-64bit.hprof "$IN/a.hprof"
cp $FIX/jvm17-jcmd-gz1.hprof.gz "$IN/b.hprof.gz"
cp $FIX/android-art2025-ahat-test-dump.hprof "$IN/c.hprof"
cp $FIX/jvm17-64bit.hprof "$IN/d.hprof"
ALL="$IN/a.hprof $IN/b.hprof.gz $IN/c.hprof $IN/d.hprof"

# names DIR: the file names in DIR, on one line
names() { (cd "$1" && ls | tr '\n' ' '); }
# fresh DIR: DIR, made empty
fresh() { rm -rf "$1" && mkdir "$1"; }
# rows JSONL CHECK...: the python expression CHECK holds for the list of
# documents `r` read from JSONL (argv[2:] as `a`)
rows() {
    f=$1
    shift
    $PY -c 'import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
a = sys.argv[3:]
assert eval(sys.argv[2]), r' "$f" "$@" >"$T/py" 2>&1
}

# slow INPUT FIFO SECONDS: a FIFO fed the first 100 kB of INPUT, then
# (after SECONDS) the rest, in the background
FEEDERS=
slow() {
    rm -f "$2"
    mkfifo "$2"
    (head -c 100000 "$1"; sleep "$3"; tail -c +100001 "$1") >"$2" 2>/dev/null &
    FEEDERS="$FEEDERS $!"
}
done_feeding() {
    for q in $FEEDERS; do kill $q 2>/dev/null; done
    { wait; } 2>/dev/null # (the shell's "Terminated")
    FEEDERS=
}
# temps DIR N [PATTERN]: waits (up to 20 s: a busy machine) until DIR
# holds N temporary files (named PATTERN.tmp-XXXXXX)
temps() {
    i=0
    while [ $i -lt 200 ] && [ "$(ls "$1" | grep -c "${3:-}"'\.tmp-')" -lt "$2" ]; do
        sleep 0.1
        i=$((i + 1))
    done
}

# --- 1. nohup: a signal ignored at start stays ignored in every job -----
D=$T/nohup
fresh "$D"
slow "$IN/a.hprof" "$T/s1.hprof" 3
slow "$IN/c.hprof" "$T/s2.hprof" 3
(
    trap '' HUP # what nohup does, then exec
    exec "$BIN" -q -j 2 --gzip=6 --stats-file "$T/nohup.jsonl" "$T/s1.hprof" "$T/s2.hprof" \
        -o "$D" 2>"$T/err"
) &
pid=$!
temps "$D" 2
kids=$(cat /proc/$pid/task/$pid/children 2>/dev/null)
[ -n "$kids" ] && ok || bad "nohup: no job running"
kill -HUP $pid $kids 2>/dev/null # the whole group's signal
rc=0
wait $pid || rc=$?
done_feeding
expect_rc 0 "SIGHUP under nohup"
[ "$(names "$D")" = "s1.hprof.gz s2.hprof.gz " ] && ok || bad "SIGHUP under nohup: '$(names "$D")'"
rows "$T/nohup.jsonl" 'len(r) == 2 and all(x["exit_status"] == 0 for x in r)' && ok ||
    bad "SIGHUP under nohup, the report: $(cat "$T/py")"

# --- 3. standard error a closed pipe: every job done and reaped, the
# JSON Lines written, nothing left in TMPDIR; the --stats=json lines lost
# make it exit 4, as a single run's report lost does
D=$T/pipe
fresh "$D"
mkdir "$T/tmp"
rm -f "$T/rc"
{
    TMPDIR=$T/tmp "$BIN" -j 1 --stats=json --stats-file "$T/pipe.jsonl" $ALL -o "$D" 2>&1 \
        >/dev/null
    echo $? >"$T/rc"
} | head -c 10 >/dev/null
rc=$(cat "$T/rc")
expect_rc 4 "stderr a closed pipe"
[ "$(names "$D")" = "a.hprof b.hprof c.hprof d.hprof " ] && ok ||
    bad "stderr a closed pipe: '$(names "$D")'"
rows "$T/pipe.jsonl" 'len(r) == 4 and all(x["exit_status"] == 0 for x in r)' && ok ||
    bad "stderr a closed pipe, the report: $(cat "$T/py")"
[ -z "$(ls "$T/tmp")" ] && ok || bad "stderr a closed pipe: TMPDIR holds $(ls "$T/tmp")"

# --- 4. TMPDIR missing: not needed; standard error full: exit 4 --------
D=$T/notmp
fresh "$D"
rc=0
TMPDIR=$T/missing "$BIN" -j 2 --stats "$IN/a.hprof" "$IN/c.hprof" -o "$D" 2>"$T/err" || rc=$?
expect_rc 0 "--stats, TMPDIR missing"
[ "$(grep -c 'bytes in, .* out' "$T/err")" -eq 2 ] && ok ||
    bad "--stats, TMPDIR missing: not two tables: $(head -c 300 "$T/err")"
fresh "$D"
rc=0
TMPDIR=$T/missing "$BIN" -q -j 2 --stats-file "$T/notmp.jsonl" "$IN/a.hprof" "$IN/c.hprof" \
    -o "$D" 2>"$T/err" || rc=$?
expect_rc 0 "--stats-file, TMPDIR missing"
rows "$T/notmp.jsonl" 'len(r) == 2 and all(x["exit_status"] == 0 and x["output"]["kept"] for x in r)' &&
    ok || bad "--stats-file, TMPDIR missing: $(cat "$T/py")"
for dir in "$T/missing" "$T/tmp"; do
    fresh "$D"
    rc=0
    TMPDIR=$dir "$BIN" -j 2 --stats=json "$IN/a.hprof" "$IN/c.hprof" -o "$D" 2>/dev/full || rc=$?
    expect_rc 4 "--stats=json 2>/dev/full (TMPDIR $dir)"
done

# --- 5. --stats-file checked before any job, as a single run checks it -
D=$T/upfront
fresh "$D"
slow "$IN/a.hprof" "$T/s1.hprof" 30
rc=0
"$BIN" -q --stats-file "$T/none/r.jsonl" "$T/s1.hprof" "$IN/c.hprof" -o "$D" 2>"$T/err" || rc=$?
expect_rc 4 "--stats-file in a missing directory"
expect_grep "none/r.jsonl" "$T/err" "--stats-file in a missing directory is named"
[ "$(names "$D")" = "" ] && ok || bad "--stats-file in a missing directory: ran '$(names "$D")'"
rc=0
"$BIN" -q --stats-file "$D/c.hprof" "$T/s1.hprof" "$IN/c.hprof" -o "$D" 2>"$T/err" || rc=$?
expect_rc 2 "--stats-file naming an output"
expect_grep "output" "$T/err" "--stats-file naming an output is said"
[ "$(names "$D")" = "" ] && ok || bad "--stats-file naming an output: ran '$(names "$D")'"
done_feeding

# --- 6. a command line refused: the report says so, never the last one's
D=$T/refused
fresh "$D"
"$BIN" -q --stats-file "$T/old.jsonl" "$IN/a.hprof" "$IN/c.hprof" -o "$D" 2>/dev/null
# (a -o DIR that is missing is made, as mkdir -p would; one under a file
# cannot be)
for args in "-o $IN/a.hprof/sub" "-o $IN/a.hprof" "- -o $D" "--audit -o $D" \
    "--obfuscate-names $T/names.txt -o $D"; do
    cp "$T/old.jsonl" "$T/r.jsonl"
    rc=0
    # shellcheck disable=SC2086 # (the words are the arguments)
    "$BIN" -q -f --stats=json --stats-file "$T/r.jsonl" "$IN/a.hprof" "$IN/c.hprof" $args \
        </dev/null 2>"$T/err" || rc=$?
    expect_rc 2 "refused: $args"
    n=$(echo "$args" | grep -c '^- ')
    rows "$T/r.jsonl" 'len(r) == 2 + int(a[0]) and all(x["exit_status"] == 2 and x["error"]["status"] == "usage" and not x["output"]["kept"] for x in r)' \
        "$n" && ok || bad "refused: $args: the report: $(cat "$T/py")"
    [ "$(grep -c '^{' "$T/err")" -eq $((2 + n)) ] && ok ||
        bad "refused: $args: --stats=json's lines: $(cat "$T/err")"
done
head -n 1 "$T/r.jsonl" >"$T/line.json"
$PY tests/cli/report_schema.py src/lib/hprof_strip.h "$T/line.json" >"$T/schema" 2>&1 && ok ||
    bad "a refusal's line under the schema: $(cat "$T/schema")"

# --- 16. the report is open from the start (a stop then leaves it, not
# only one once every job has run): signalled as soon as its temporary
# file is there, the run leaves the report, and no temporary file
D=$T/early
for k in 1 2 3; do
    fresh "$D"
    slow "$IN/a.hprof" "$T/s1.hprof" 30
    "$BIN" -q --stats-file "$D/early.jsonl" "$T/s1.hprof" "$IN/c.hprof" -o "$D" 2>/dev/null &
    pid=$!
    temps "$D" 1 early.jsonl
    ls "$D" | grep -q 'early.jsonl.tmp-' && ok || bad "the report not open as the run starts ($k)"
    kill -TERM $pid
    rc=0
    wait $pid || rc=$?
    done_feeding
    expect_rc 143 "SIGTERM as the run starts ($k)"
    [ -f "$D/early.jsonl" ] && ok || bad "SIGTERM as the run starts ($k): no report: '$(names "$D")'"
    no_temp "$D" "SIGTERM as the run starts ($k)"
done

finish
