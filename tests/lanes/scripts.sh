#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Runs make check's CLI suites (tests/cli/NAME.sh) on LANES lanes at once:
# each lane takes the next suite not yet taken, so one long suite does not
# hold up the rest behind it. Used by test-asan, whose suites each run one
# process at a time, slowed several times by the sanitizers: two lanes
# keep both cores busy (CI's budget, .ci/run). The suites are written to
# hold on a busy machine (make test-stress runs the touchiest beside two CPU
# burners) and each works in a directory of its own (tests/lib.sh), so
# running two at once tests nothing less. Each suite's output is kept and
# printed whole, in the order given, once all have run; the exit status is
# the first failed suite's, or 0.
# Usage: sh tests/lanes/scripts.sh LANES BIN CUTCHECK NAME...
set -u
lanes=$1 bin=$2 cutcheck=$3
shift 3
Q=$(mktemp -d "${TMPDIR:-/tmp}/hs-scripts.XXXXXX")
trap 'rm -rf "$Q"' EXIT
n=0
for s in "$@"; do
    n=$((n + 1))
    echo "$s" >"$Q/name.$n"
done

run_one() { # $1: the suite's index
    s=$(cat "$Q/name.$1")
    if [ "$s" = cli_cuts ]; then
        sh tests/timed.sh sh "tests/cli/$s.sh" "$bin" "$cutcheck"
    else
        sh tests/timed.sh sh "tests/cli/$s.sh" "$bin"
    fi >"$Q/log.$1" 2>&1
    echo $? >"$Q/rc.$1"
}

lane() { # takes suites in order; mkdir is the claim (atomic)
    i=1
    while [ "$i" -le "$n" ]; do
        if mkdir "$Q/claim.$i" 2>/dev/null; then
            run_one "$i"
        fi
        i=$((i + 1))
    done
}

l=1
while [ "$l" -le "$lanes" ]; do
    lane &
    l=$((l + 1))
done
wait

rc=0
i=1
while [ "$i" -le "$n" ]; do
    cat "$Q/log.$i"
    r=$(cat "$Q/rc.$i" 2>/dev/null || echo 127)
    if [ "$r" -ne 0 ] && [ "$rc" -eq 0 ]; then
        echo "scripts: tests/cli/$(cat "$Q/name.$i").sh failed (exit $r)" >&2
        rc=$r
    fi
    i=$((i + 1))
done
exit $rc
