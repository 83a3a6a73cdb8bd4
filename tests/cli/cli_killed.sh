#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/cli/cli_killed.sh - runs stopped by a signal (issue #33 item 6): each
# signal hprof-strip catches, sent at a pseudo-random moment (the seed is
# printed; HS_KILL_SEED=N repeats a run) while it reads a slow pipe, while
# it compresses with -z, while it writes its dump into a pipe nobody reads,
# and while it writes its report into one; SIGPIPE from `| head -c 100`;
# and signals before the report exists (while it is opened).
# After each: exit status 128+N, no NAME.tmp-XXXXXX left, no output under
# its final name, and a report that parses (tests/cli/report_schema.py: the
# whole schema) and names the signal.
# Usage: sh tests/cli/cli_killed.sh ./hprof-strip
set -u
BIN=${1:-./hprof-strip}
FIX=fixtures/jvm17-64bit.hprof
NAME=cli_killed
. "$(dirname "$0")/../lib.sh"

SEED=${HS_KILL_SEED:-$(date +%s)}
echo "cli_killed: seed $SEED (HS_KILL_SEED=$SEED repeats these delays)"
# rand N: R = a number in [0, N), from a 31-bit LCG on SEED
rand() {
    SEED=$(((SEED * 1103515245 + 12345) % 2147483648))
    R=$((SEED / 65536 % $1))
}
# delay MIN MAX: sleeps a random number of milliseconds in [MIN, MAX)
delay() {
    rand $(($2 - $1))
    ms=$(($1 + R))
    sleep "$((ms / 1000)).$(printf %03d $((ms % 1000)))"
}
# A background job of sh ignores SIGINT and SIGQUIT, a run under nohup
# (or a CI runner started so) SIGHUP, and a program keeps a signal ignored
# from its start (as nohup wants): start it with every signal reset.
RESET=
env --default-signal true 2>/dev/null && RESET="env --default-signal"
run_reset() {
    if [ -n "$RESET" ]; then
        exec $RESET "$@"
    fi
    exec python3 -c 'import os, signal, sys
for s in signal.valid_signals():
    try:
        signal.signal(s, signal.SIG_DFL)
    except (OSError, ValueError):
        pass  # SIGKILL, SIGSTOP
os.execvp(sys.argv[1], sys.argv[1:])' "$@"
}
ulimit -c 0 2>/dev/null # SIGQUIT dumps core by default
# the system's Python: a version manager's shim takes a second to start
# signum NAME: the number of SIGNAME (dash's kill -l maps numbers to names)
signum() {
    i=1
    while [ $i -lt 65 ]; do
        [ "$(kill -l $i 2>/dev/null)" = "$1" ] && { echo $i; return; }
        i=$((i + 1))
    done
    echo 0
}

# running PID SIG: waits (up to 5 s) until the job PID is hprof-strip
# itself, not yet the shell or env that starts it, and catches SIG (its
# SigCgt bit): a signal sent before that tests nothing, for it kills a
# program that has not begun (an AddressSanitizer build takes tens of
# milliseconds to reach main), as it would any program
running() {
    n=$(signum "$2")
    i=0
    while kill -0 $1 2>/dev/null && [ $i -lt 500 ]; do
        if [ "$(cat /proc/$1/comm 2>/dev/null)" = hprof-strip ]; then
            cgt=$(sed -n 's/^SigCgt:[[:space:]]*//p' /proc/$1/status 2>/dev/null)
            [ -n "$cgt" ] && [ $(((0x$cgt >> (n - 1)) & 1)) = 1 ] && return
        fi
        sleep 0.01
        i=$((i + 1))
    done
}

SIGS="HUP INT QUIT ALRM TERM USR1 USR2 XCPU VTALRM PROF"
D=$T/out
mkdir "$D"

# stopped WHAT SIG RC REPORT [OUTPUT]: the checks after a run stopped by SIG
stopped() {
    n=$(signum "$2")
    [ "$3" = $((128 + n)) ] && ok || bad "$1: exit $3, expected $((128 + n)) (SIG$2)"
    no_temp "$D" "$1"
    if [ -n "${5:-}" ]; then
        [ ! -e "$5" ] && ok || bad "$1: $(basename "$5") left under its final name"
    fi
    if $PY tests/cli/report_schema.py src/lib/hprof_strip.h "$4" exit_status=$((128 + n)) \
        error.status='"signal"' error.signal="\"SIG$2\"" error.code=null \
        output.kept=false >"$T/schema.out" 2>&1; then ok
    else bad "$1: the report: $(cat "$T/schema.out")"; fi
}

runs=0
for sig in $SIGS; do
    # 1. reading a slow pipe: half the dump, a pause, more, then nothing
    rm -f "$D"/* "$T/in.fifo"
    mkfifo "$T/in.fifo"
    { head -c 1500000 "$FIX"; sleep 0.2; tail -c +1500001 "$FIX" | head -c 1000000; exec sleep 30; } \
        >"$T/in.fifo" &
    feeder=$!
    (run_reset "$BIN" -q --stats-file "$D/r.json" -o "$D/out.hprof" "$T/in.fifo") &
    pid=$!
    running $pid $sig
    delay 50 600
    kill -s "$sig" $pid; wait $pid 2>/dev/null; rc=$?
    kill $feeder 2>/dev/null; wait $feeder 2>/dev/null
    stopped "SIG$sig while reading a slow pipe" "$sig" $rc "$D/r.json" "$D/out.hprof"
    runs=$((runs + 1))

    # 2. compressing: zstd level 19 on two threads (the signal may land on
    # a compressor's thread)
    rm -f "$D"/*
    (run_reset "$BIN" -q --zstd=19 -T 2 --stats=json --stats-file "$D/r.json" -o "$D/out.hprof.zst" \
        "$FIX" 2>"$T/err") &
    pid=$!
    running $pid $sig
    delay 30 400
    kill -s "$sig" $pid; wait $pid 2>/dev/null; rc=$?
    stopped "SIG$sig while compressing" "$sig" $rc "$D/r.json" "$D/out.hprof.zst"
    # --stats=json: the same document, the last line of stderr
    tail -n 1 "$T/err" >"$T/err.json"
    $PY -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["error"]["signal"] == sys.argv[2], d["error"]' \
        "$T/err.json" "SIG$sig" 2>"$T/py.out" && ok || bad "SIG$sig while compressing: --stats=json: $(cat "$T/py.out")"
    runs=$((runs + 1))

    # 3. writing the dump into a pipe nobody reads (it fills: the run waits)
    rm -f "$D"/* "$T/out.fifo"
    mkfifo "$T/out.fifo"
    exec 3<>"$T/out.fifo" # a reader that never reads, so opening does not wait
    (run_reset "$BIN" -q -p none --stats-file "$D/r.json" "$FIX" >"$T/out.fifo") &
    pid=$!
    running $pid $sig
    delay 50 500
    kill -s "$sig" $pid; wait $pid 2>/dev/null; rc=$?
    exec 3<&-
    stopped "SIG$sig while writing into a full pipe" "$sig" $rc "$D/r.json"
    runs=$((runs + 1))
done

# 4. writing the report into a pipe of 4 KiB nobody reads yet (--histogram
# makes it 40 KiB): stopped before the run's end, the report names the
# signal; at its end, the reader gets the run's own report whole, the rest
# written by the handler (stop.c): either way one document. The reader
# reads once the signal is sent (not after a time: on a busy machine it
# drained the pipe first, and the run ended before it was signalled)
at_end=0
for sig in TERM INT HUP; do
    rm -f "$D"/* "$T/rep.fifo" "$T/got.json" "$T/sent"
    mkfifo "$T/rep.fifo"
    $PY -c 'import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK)  # no writer yet
fcntl.fcntl(fd, 1031, 4096)  # F_SETPIPE_SZ
fcntl.fcntl(fd, fcntl.F_SETFL, 0)
for _ in range(600):  # (up to 60 s) until the signal is sent
    if os.path.exists(sys.argv[3]):
        break
    time.sleep(0.1)
data = b""
while True:
    b = os.read(fd, 65536)
    if not b:
        break
    data += b
open(sys.argv[2], "wb").write(data)' "$T/rep.fifo" "$T/got.json" "$T/sent" &
    reader=$!
    (run_reset "$BIN" -q --histogram --stats-file - -o "$D/out.hprof" "$FIX" >"$T/rep.fifo") &
    pid=$!
    running $pid $sig
    delay 100 1000
    kill -s "$sig" $pid
    touch "$T/sent"
    wait $pid 2>/dev/null
    rc=$?
    wait $reader
    n=$(signum $sig)
    [ $rc = $((128 + n)) ] && ok || bad "SIG$sig while writing the report into a pipe: exit $rc"
    no_temp "$D" "SIG$sig while writing the report into a pipe"
    if $PY tests/cli/report_schema.py src/lib/hprof_strip.h "$T/got.json" >"$T/schema.out" 2>&1; then ok
    else bad "SIG$sig while writing the report into a pipe: $(cat "$T/schema.out")"; fi
    $PY -c 'import json, sys
d = json.load(open(sys.argv[1]))
e = d["error"]
# stopped during the run: named; after it, the run own report, output kept
assert (e and e["signal"] == sys.argv[2] and not d["output"]["kept"]) or \
    (d["exit_status"] == 0 and d["output"]["kept"]), (d["exit_status"], e)' "$T/got.json" "SIG$sig" \
        2>"$T/py.out" && ok || bad "SIG$sig while writing the report into a pipe: $(cat "$T/py.out")"
    # the output is whole when the report says it was kept
    if grep -q '"kept":true' "$T/got.json"; then
        at_end=$((at_end + 1))
        "$BIN" -q -p none "$D/out.hprof" >/dev/null && ok || bad "SIG$sig: the output kept is not whole"
    else
        [ ! -e "$D/out.hprof" ] && ok || bad "SIG$sig: output left though not kept"
    fi
    runs=$((runs + 1))
done

# 5. SIGPIPE: the dump's reader goes away (`| head -c 100`); the report
# says so, and the run dies of it, as gzip and zstd do
rm -f "$D"/*
{ "$BIN" -q -p none --stats-file "$D/r.json" "$FIX"; echo $? >"$T/rc"; } | head -c 100 >/dev/null
stopped "SIGPIPE from | head -c 100" PIPE "$(cat "$T/rc")" "$D/r.json"
runs=$((runs + 1))

# 6. a signal before the run reads a byte (a FIFO input nobody writes yet)
rm -f "$D"/* "$T/in.fifo"
mkfifo "$T/in.fifo"
exec 4<>"$T/in.fifo"
(run_reset "$BIN" -q --stats-file "$D/r.json" -o "$D/out.hprof" "$T/in.fifo") &
pid=$!
running $pid TERM
sleep 0.2
kill -s TERM $pid; wait $pid 2>/dev/null; rc=$?
exec 4<&-
stopped "SIGTERM before the first byte" TERM $rc "$D/r.json" "$D/out.hprof"
runs=$((runs + 1))

# 7. a signal while the report is being opened (after the handlers, before
# there is a report to write): it waits for the report, which then names
# it. A preloaded fchmod that sleeps until the signal comes (30 s at most:
# a second was too short on a busy machine, the run went on and ended
# before the signal) holds the run there (io.c gives the report's
# temporary file its mode first; the dump's comes later)
if cc -shared -fPIC -o "$T/slow.so" -x c - -ldl 2>/dev/null <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sys/stat.h>
#include <time.h>
int fchmod(int fd, mode_t mode)
{
    static int calls;
    struct timespec s = {30, 0};
    if (calls++ == 0)
        nanosleep(&s, NULL); /* a signal's handler ends it early */
    return ((int (*)(int, mode_t))dlsym(RTLD_NEXT, "fchmod"))(fd, mode);
}
EOF
then
    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0
    export ASAN_OPTIONS
    for sig in TERM USR1; do
        rm -f "$D"/*
        (LD_PRELOAD=$T/slow.so run_reset "$BIN" -q --stats-file "$D/r.json" -o "$D/out.hprof" \
            "$FIX") &
        pid=$!
        running $pid $sig
        sleep 0.3
        kill -s $sig $pid; wait $pid 2>/dev/null; rc=$?
        stopped "SIG$sig while the report is opened" $sig $rc "$D/r.json" "$D/out.hprof"
        runs=$((runs + 1))
    done
else
    skipped "no C compiler: a signal while the report is opened"
fi

# 8. a report into a FIFO nobody opens: the open waits, a signal cuts it;
# the run dies of the signal (no report can go anywhere) and says nothing
# of an interrupted call
rm -f "$D"/* "$T/rep.fifo"
mkfifo "$T/rep.fifo"
(run_reset "$BIN" -q --stats-file "$T/rep.fifo" -o "$D/out.hprof" "$FIX" 2>"$T/err") &
pid=$!
running $pid TERM
sleep 0.2
kill -s TERM $pid; wait $pid 2>/dev/null; rc=$?
[ $rc = $((128 + $(signum TERM))) ] && ok || bad "SIGTERM opening a FIFO report: exit $rc"
expect_no_grep "nterrupted" "$T/err" "SIGTERM opening a FIFO report"
no_temp "$D" "SIGTERM opening a FIFO report"
[ ! -e "$D/out.hprof" ] && ok || bad "SIGTERM opening a FIFO report: output left"
runs=$((runs + 1))

echo "cli_killed: $runs runs stopped by a signal ($at_end of 3 while the finished run's report" \
    "was going into a pipe)"
finish
