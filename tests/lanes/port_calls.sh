#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/lanes/port_calls.sh - which of the Linux-only calls (src/lib/hs_port.h,
# src/cli/cli_port.h) a build makes, seen by strace over runs that reach
# each of them: a pipe in (pipe buffer), an output put in place (the
# no-clobber rename), a mapped input of some MiB (pages dropped behind the
# filter), a gzip input (the scheduling class), many files at once with a
# report (memory files), and every job's CPU time (per thread).
# MODE linux: the normal build makes each call (the trace sees them, so the
# posix check below means something). MODE posix: the build made with
# make HS_PORT_POSIX=1 makes none of them, and its outputs are the normal
# build's bytes (cmp with ./hprof-strip when it is there).
# Usage: sh tests/lanes/port_calls.sh BIN linux|posix   (make test-posix)
set -u
BIN=$1
MODE=$2
NAME=port_calls
. "$(dirname "$0")/../lib.sh"

if ! command -v strace >/dev/null 2>&1; then
    if [ "${CI:-}" = true ]; then bad "strace is missing (tools/install-deps.sh --test)"; fi
    skipped "no strace here"
    finish
    exit $?
fi
HEAP=fixtures/jvm17-64bit.hprof # 3.6 MiB: the filter passes pages to drop
GZ=fixtures/jvm17-jcmd-gz1.hprof.gz

# run WHAT CMD...: CMD under strace, the calls that matter appended to
# $T/trace; a failed run fails the check
run() {
    _what=$1
    shift
    strace -f -qq -o "$T/one" \
        -e trace=mmap,renameat2,memfd_create,madvise,fcntl,getrusage,sched_setscheduler,sched_getaffinity \
        "$@" && ok || bad "$_what: exit $?"
    cat "$T/one" >>"$T/trace"
}

: >"$T/trace"
mkdir "$T/many"
run "pipe in, -o out" sh -c "cat $HEAP | \"$BIN\" -q -o \"$T/piped.hprof\""
run "a mapped input" "$BIN" -q "$HEAP" -o "$T/mapped.hprof"
# the input's pages dropped: MADV_DONTNEED inside its mapping (glibc drops
# the stacks of ended threads so too, in either build)
size=$(wc -c <"$HEAP")
base=$(sed -n "s/.*mmap(NULL, $size, PROT_READ, MAP_PRIVATE, [0-9]*, 0) = \(0x[0-9a-f]*\).*/\1/p" "$T/one")
[ -n "$base" ] && ok || bad "no mapping of $HEAP in the trace"
sed -n 's/.*madvise(\(0x[0-9a-f]*\), [0-9]*, MADV_DONTNEED).*/\1/p' "$T/one" >"$T/drops"
while read -r at; do
    [ $((at)) -ge $((base)) ] && [ $((at)) -lt $((base + size)) ] && echo "$at"
done <"$T/drops" >"$T/input-drops"
run "a gzip input" "$BIN" -q "$GZ" -o "$T/gz.hprof"
run "many files" "$BIN" -q --stats-file "$T/r.jsonl" "$HEAP" "$GZ" -o "$T/many"

# each Linux-only call as strace prints it
for call in renameat2 memfd_create F_SETPIPE_SZ input-drops RUSAGE_THREAD SCHED_BATCH \
    sched_getaffinity MADV_POPULATE_WRITE; do
    case $call in
    input-drops) n=$(wc -l <"$T/input-drops") ;;
    *) n=$(grep -c -- "$call" "$T/trace") ;;
    esac
    case $MODE:$call in
    linux:MADV_POPULATE_WRITE)
        ok ;; # only where a dump's roots fill a block, and on Linux 5.14 on
    linux:*)
        [ "$n" -gt 0 ] && ok || bad "the Linux build made no $call call: the trace misses it" ;;
    posix:*)
        [ "$n" -eq 0 ] && ok || bad "the POSIX build made $n $call calls: $(grep -m 2 -- "$call" "$T/trace")" ;;
    esac
done
# the fallbacks change no byte
if [ "$MODE" = posix ] && [ -x ./hprof-strip ]; then
    for f in piped mapped gz; do
        case $f in gz) in=$GZ ;; *) in=$HEAP ;; esac
        ./hprof-strip -q "$in" -o "$T/ref-$f.hprof" &&
            cmp -s "$T/ref-$f.hprof" "$T/$f.hprof" && ok || bad "$f: not the normal build's bytes"
    done
fi
[ "$(wc -l <"$T/r.jsonl")" -eq 2 ] && ok || bad "many files: $(wc -l <"$T/r.jsonl") report lines, not 2"
finish
