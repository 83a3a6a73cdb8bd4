#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Runs a command and prints its wall time on one line after it, so a CI
# log shows where the run's minutes go ("time: CMD took N s").
# Usage: sh tests/timed.sh CMD [ARG]...
t0=$(date +%s)
"$@"
rc=$?
echo "time: $* took $(( $(date +%s) - t0 )) s (exit $rc)"
exit $rc
