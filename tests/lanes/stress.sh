#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/lanes/stress.sh - the signal, pipe and full-disk checks with both cores
# busy (make test-stress; issue #51): two CPU burners run beside them, so
# that a window a signal can fall into, or a test that waits too little,
# shows up here before it does on a loaded CI runner or a user's machine.
# Each suite runs RUNS times; the burners end with this script, however
# it ends (a trap).
# Usage: sh tests/lanes/stress.sh RUNS ./hprof-strip SUITE...
set -u
RUNS=$1
BIN=$2
shift 2

# the burners, and the suite running (started in the background and
# waited for, so that a signal here is taken at once, not when it ends)
BURNERS=
SUITE=
stop_burners() {
    for b in $BURNERS $SUITE; do kill "$b" 2>/dev/null; done
    BURNERS=
    SUITE=
}
trap stop_burners EXIT
trap 'stop_burners; exit 130' INT
trap 'stop_burners; exit 143' TERM
for _ in 1 2; do
    sh -c 'while :; do :; done' &
    BURNERS="$BURNERS $!"
done

failed=0
run=1
start=$(date +%s)
while [ $run -le "$RUNS" ]; do
    for s in "$@"; do
        echo "stress: run $run of $RUNS: $s"
        sh "tests/cli/$s.sh" "$BIN" &
        SUITE=$!
        wait $SUITE || failed=$((failed + 1))
        SUITE=
    done
    run=$((run + 1))
done
echo "stress: $RUNS runs of $*, two CPU burners beside them: $failed failed," \
    "$(($(date +%s) - start)) s"
[ "$failed" -eq 0 ]
