#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/lanes/python.sh - the Python package (python/, ctypes over
# libhprofstrip.so): its pytest suite, run by Debian's /usr/bin/python3
# with PYTHONPATH=python against the library built here (make lib), and
# the CLI given for the byte-for-byte comparisons. Needs python3-pytest:
# without it the suite is skipped, visibly (a failure under CI=true).
# Usage: sh tests/lanes/python.sh ./hprof-strip   (from the top of the tree)
set -u
BIN=${1:-./hprof-strip}
NAME=python
. "$(dirname "$0")/../lib.sh"
cd "$TESTS/.."
PY=${PYTHON:-/usr/bin/python3}
LIBSO=${HPROFSTRIP_LIBRARY:-build/libhprofstrip.so}

if ! "$PY" -c 'import pytest' 2>/dev/null; then
    if [ "${CI:-}" = true ]; then
        bad "$PY has no pytest (python3-pytest), which CI must have"
    else
        skip=$((skip + 1))
        echo "skipped: the Python package's tests (needs python3-pytest for $PY)"
    fi
    finish
    exit
fi
[ -x "$BIN" ] && ok || bad "$BIN is not built"
[ -e "$LIBSO" ] && ok || bad "$LIBSO is not built (make lib)"

HPROFSTRIP_LIBRARY=$(cd "$(dirname "$LIBSO")" && pwd)/$(basename "$LIBSO") \
HPROFSTRIP_CLI=$BIN PYTHONPATH=python PYTHONDONTWRITEBYTECODE=1 \
    "$PY" -m pytest -q -rsfE -p no:cacheprovider --basetemp="$T/pytest" python/tests \
    >"$T/log" 2>&1
rc=$?
# pytest's last line: "== 48 passed, 1 skipped in 9.12s =="
summary=$(tail -n 1 "$T/log")
n() { echo "$summary" | grep -o "[0-9]* $1" | cut -d' ' -f1; }
p=$(n passed); f=$(n failed); e=$(n error); s=$(n skipped)
pass=$((pass + ${p:-0}))
fail=$((fail + ${f:-0} + ${e:-0}))
skip=$((skip + ${s:-0}))
if [ "$rc" -ne 0 ]; then
    cat "$T/log" >&2
    [ "${f:-0}${e:-0}" != 00 ] || bad "pytest exited $rc: $summary"
fi
if [ "${s:-0}" -gt 0 ]; then
    grep -i '^SKIPPED' "$T/log" || true
fi
finish
