#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# bench/ab.sh - two hprof-strip binaries on one input, in alternating runs.
#
#   sh bench/ab.sh [-n ROUNDS] INPUT "ARGS" BIN_A BIN_B
#
# Runs `BIN ARGS < INPUT > /dev/null` for A, then B, ROUNDS times (default
# 11), and prints each binary's median wall time (a nanosecond clock, so
# runs of a few ms still compare) and median CPU time (user + system over
# every thread, GNU time: 10 ms steps). Alternating is what makes a small
# difference worth reading on a shared machine: drift hits both alike,
# where two runs one after the other can differ by 20 %. The last line
# takes run i of each as a pair and gives the median of the pairs' ratios
# B / A with a one-sided 95 % bound each way (bench/paired.awk): "within
# noise" when they straddle 1; under 5 rounds there are no bounds. The
# bench's "base:" rows do the same over every mode; this is for one row.
set -eu

rounds=11
if [ "${1:-}" = -n ]; then
    rounds=$2
    shift 2
fi
if [ $# -ne 4 ]; then
    echo "usage: sh bench/ab.sh [-n ROUNDS] INPUT \"ARGS\" BIN_A BIN_B" >&2
    exit 2
fi
input=$1 args=$2
case $rounds in ''|*[!0-9]*|0) echo "ab.sh: ROUNDS must be a positive whole number" >&2; exit 2 ;; esac
[ -r "$input" ] || { echo "ab.sh: cannot read $input" >&2; exit 2; }
for bin in "$3" "$4"; do
    [ -x "$bin" ] || { echo "ab.sh: $bin is not an executable" >&2; exit 2; }
done
cpu=$(mktemp)
runs=$(mktemp)
trap 'rm -f "$cpu" "$runs"' EXIT

r=0
while [ "$r" -lt "$rounds" ]; do
    for which in A B; do
        if [ $which = A ]; then bin=$3; else bin=$4; fi
        t0=$(date +%s%N)
        # shellcheck disable=SC2086 # ARGS is a word list
        /usr/bin/time -f '%U %S' -o "$cpu" "$bin" $args < "$input" > /dev/null ||
            { echo "ab.sh: $bin $args failed" >&2; exit 1; }
        t1=$(date +%s%N)
        echo "$which $((t1 - t0)) $(tail -n 1 "$cpu")" >> "$runs"
    done
    r=$((r + 1))
done
awk -v a="$3" -v b="$4" "$(cat "$(dirname "$0")/median.awk" "$(dirname "$0")/paired.awk")"'
    { wall[$1] = wall[$1] " " $2 / 1e6; cpu[$1] = cpu[$1] " " ($3 + $4); n[$1]++ }
    END {
        wa = median(wall["A"]); wb = median(wall["B"])
        printf "A %s: median %.2f ms wall, %.2f s CPU (%d runs)\n", a, wa, median(cpu["A"]), n["A"]
        printf "B %s: median %.2f ms wall, %.2f s CPU (%d runs)\n", b, wb, median(cpu["B"]), n["B"]
        if (wa > 0) printf "B / A: %.3f\n", wb / wa
        # the same pairs as bench.sh'"'"'s slowest-row target, both ways
        if (paired(wall["B"], wall["A"]) && pr_low) {
            lo = pr_low; med = pr_med; hi = pr_high
            verdict = lo > 1 ? "B slower" : hi < 1 ? "B faster" : "within noise"
            printf "B / A over the pairs: median %.3f, bounds %.3f to %.3f (one-sided 95 %% each): %s\n", med, lo, hi, verdict
        }
    }' "$runs"
