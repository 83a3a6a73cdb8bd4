#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Runs a command and prints its wall time and CPU time on one line after
# it, so a CI log shows where the run's minutes go ("time: CMD took N s,
# CPU M s"). The CPU time (user and system, of every process it waited
# for) is what the suite costs whatever else the machine is doing: on a
# busy machine the wall time grows, the CPU time does not.
# Usage: sh tests/timed.sh CMD [ARG]...
t0=$(date +%s)
"$@"
rc=$?
# `times` prints the shell's own times, then its children's ("1m2.5s
# 0m3.1s"); into a file, since in a pipe or $(...) it would run in a
# subshell that has no children
tf=$(mktemp) && times >"$tf" && cpu=$(awk 'NR == 2 {
    n = split($0, f, /[ms ]+/); s = 0
    for (i = 1; i + 1 <= n; i += 2) if (f[i] != "") s += f[i] * 60 + f[i + 1]
    printf "%.0f", s }' "$tf")
rm -f "$tf"
echo "time: $* took $(( $(date +%s) - t0 )) s, CPU ${cpu:-?} s (exit $rc)"
exit $rc
