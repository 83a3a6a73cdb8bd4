#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tools/jvm-bench.sh - hprof-strip --jvm against jcmd into a file followed
# by a strip of it, on a JVM holding about MB megabytes (half in small
# objects, half in byte[8192] with data in them): the wall time of each,
# and the peak disk use in the work directory (TMPDIR and the output;
# `du` sampled every 50 ms) and the bytes the JVM wrote to storage
# (/proc/PID/io write_bytes) while it dumped.
# Usage: sh tools/jvm-bench.sh [./hprof-strip [MB [OPTION]...]]
#   (OPTIONs go to both strips; default -z)
set -u
BIN=${1:-./hprof-strip}
MB=${2:-400}
[ $# -ge 2 ] && shift 2 || shift $#
OPTS=${*:--z}
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
W=$(mktemp -d "${TMPDIR:-/tmp}/jvm-bench.XXXXXX")
JVM=
trap '[ -n "$JVM" ] && kill -9 $JVM 2>/dev/null; rm -rf "$W"' EXIT INT TERM

mkdir "$W/cls" "$W/run"
cat >"$W/Bench.java" <<'JAVA'
// SPDX-License-Identifier: Apache-2.0
public class Bench {
    static class Node { long a; int b; Node next; }
    static Object[] keep;
    public static void main(String[] args) throws Exception {
        long mb = Long.parseLong(args[0]);
        int nodes = (int) (mb * 1024 * 1024 / 2 / 32);
        Node head = null;
        for (int i = 0; i < nodes; i++) { Node n = new Node(); n.a = i; n.next = head; head = n; }
        byte[][] arrays = new byte[(int) (mb * 1024 * 1024 / 2 / 8192)][];
        java.util.Random r = new java.util.Random(1);
        for (int i = 0; i < arrays.length; i++) { arrays[i] = new byte[8192]; r.nextBytes(arrays[i]); }
        keep = new Object[] {head, arrays};
        System.out.println("ready");
        Thread.sleep(3600 * 1000);
    }
}
JAVA
javac -d "$W/cls" "$W/Bench.java" || exit 1
java -Xmx$((MB * 3))m -cp "$W/cls" Bench "$MB" >"$W/jvm.out" 2>&1 &
JVM=$!
while ! grep -q ready "$W/jvm.out"; do sleep 0.2; done

now() { date +%s.%N; }
jvm_written() { awk '/^write_bytes/ {print $2}' "/proc/$JVM/io"; }
# sample: the largest `du -sb` of $W/run while the command runs
measure() {
    label=$1
    shift
    : >"$W/du.max"
    ( max=0; while :; do
          s=$(du -sb "$W/run" 2>/dev/null | cut -f1)
          [ "${s:-0}" -gt "$max" ] && max=$s && echo "$max" >"$W/du.max"
          sleep 0.05
      done ) &
    sampler=$!
    w0=$(jvm_written)
    t0=$(now)
    "$@"
    t1=$(now)
    w1=$(jvm_written)
    kill $sampler
    wait $sampler 2>/dev/null
    out=$(du -sb "$W/run" | cut -f1)
    printf '%-28s wall %6.2f s   peak disk %11s bytes   JVM wrote %11s bytes   output %11s bytes\n' \
        "$label" "$(echo "$t1 - $t0" | bc)" "$(cat "$W/du.max")" "$((w1 - w0))" "$out"
    rm -rf "$W/run"/*
}
via_file() {
    jcmd "$JVM" GC.heap_dump "$W/run/full.hprof" >/dev/null &&
        "$BIN" $OPTS -q "$W/run/full.hprof" -o "$W/run/out.hprof.zst" && rm "$W/run/full.hprof"
}
via_jvm() {
    TMPDIR=$W/run "$BIN" $OPTS -q --jvm "$JVM" -o "$W/run/out.hprof.zst"
}
echo "jvm-bench: a JVM holding ${MB} MB, hprof-strip $OPTS; $(nproc) cores"
for i in 1 2; do
    measure "jcmd to a file, then strip" via_file
    measure "hprof-strip --jvm" via_jvm
done
