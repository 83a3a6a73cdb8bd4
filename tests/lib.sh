# SPDX-License-Identifier: Apache-2.0
# tests/lib.sh - the preamble every shell suite shares: a private temporary
# directory removed on exit, the pass/fail/skip counters and their checks,
# the rule for checks that need ../shared, and the closing summary line.
#
# Use:   . "$(dirname "$0")/../lib.sh"  (after `set -u`, with NAME set; the
#                                        suites are one folder down: cli/,
#                                        ext/, lanes/)
#        ... ok / bad / expect_rc ...
#        finish                          (prints "NAME: N passed, N failed")
#
# T is the temporary directory; TESTS is this folder (tests/, the parent of
# the suite's own), absolute.
TESTS=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/${NAME:-hs-test}.XXXXXX")
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
pass=0
fail=0
skip=0

# Debian's python3 (/usr/bin/python3, with the python3-* packages) for the
# suite and everything it runs, when the machine has it: the python3 first
# on PATH may be a version manager's shim, which lacks those packages and
# costs half a second of CPU at every start (a suite starting Python a
# hundred times spent most of its time in the shim). A private directory
# first on PATH, so `python3`, `#!/usr/bin/env python3` and the tools all
# find it; PY names it for suites that spell it out.
if [ -x /usr/bin/python3 ] && mkdir "$T/.python" 2>/dev/null &&
    ln -s /usr/bin/python3 "$T/.python/python3"; then
    PATH=$T/.python:$PATH
    export PATH
fi
PY=python3

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
# skipped WHY: a check that could not run here, said where it is seen
skipped() { skip=$((skip + 1)); echo "skip: $*" >&2; }
# expect_rc WANT DESCRIPTION: the last command's status was saved in $rc
expect_rc() { if [ "$rc" -eq "$1" ]; then ok; else bad "$2: exit $rc, expected $1"; fi; }
expect_grep() { if grep -q -- "$1" "$2"; then ok; else bad "$3: '$1' not in $(cat "$2")"; fi; }
expect_no_grep() { if grep -q -- "$1" "$2"; then bad "$3: '$1' in $(cat "$2")"; else ok; fi; }
expect_empty() { if [ ! -s "$1" ]; then ok; else bad "$2: not empty: $(head -c 300 "$1")"; fi; }
# no_temp DIR WHAT: no temporary output (NAME.tmp-XXXXXX) left in DIR
no_temp() { if ls "$1" | grep -q '\.tmp-'; then bad "$2: temporary file left: $(ls "$1")"; else ok; fi; }

# have_shared PATH WHAT: true when PATH (under ../shared, beside the
# repository) exists. Otherwise prints one visible line,
#   skipped: WHAT (needs PATH)
# and returns false; under CI (CI=true), where ../shared is always there,
# a missing one is a failure, never a skip.
have_shared() {
    [ -e "$1" ] && return 0
    if [ "${CI:-}" = true ]; then
        bad "$2 needs $1, which CI must have"
    else
        skip=$((skip + 1))
        echo "skipped: $2 (needs $1)"
    fi
    return 1
}

# sample_dumps FILE...: prints the files, or, with HS_TEST_DUMPS=K, K of
# them: K consecutive ones from a start picked by the suite's NAME (so each
# dump is in as many suites' samples as any other), said on stderr, as the
# Criterion suites sample (tests/unit/helpers.c); HS_TEST_SEED, when set, moves
# every window, as there. make test and CI set them (the Makefile, .ci/run).
# `sample_dumps --skip PATTERN [--skip PATTERN]... FILE...` leaves out the
# files a shell pattern matches before it picks, for a suite with nothing
# to check on them (the corpus's corrupt bad-* dumps, say): else a sample
# of one can be a dump the suite skips, and the suite checks nothing.
sample_dumps() {
    _skip=
    while [ "${1:-}" = --skip ]; do
        _skip="$_skip $2"
        shift 2
    done
    if [ -n "$_skip" ]; then
        _kept=
        set -f # the patterns are words here, not globs to expand
        for _f in "$@"; do
            _keep=1
            for _p in $_skip; do
                # shellcheck disable=SC2254 # the pattern is the caller's
                case $_f in $_p) _keep=0 ;; esac
            done
            [ $_keep = 0 ] || _kept="$_kept $_f"
        done
        # shellcheck disable=SC2086 # the list is split on purpose
        set -- $_kept
        set +f
    fi
    _k=${HS_TEST_DUMPS:-0}
    if [ "$_k" -le 0 ] || [ "$_k" -ge $# ]; then
        echo "$*"
        return 0
    fi
    _n=$#
    _s=$(($(printf '%s%s' "${HS_TEST_SEED:-}" "$NAME" | cksum | cut -d' ' -f1) % _n))
    _i=0; _out=
    for _f in "$@" "$@"; do # twice: the window wraps round the end
        [ $_i -ge $_s ] && [ $_i -lt $((_s + _k)) ] && _out="$_out $_f"
        _i=$((_i + 1))
    done
    echo "$NAME: HS_TEST_DUMPS=$_k: $_k of $_n dumps:$_out" >&2
    echo "$_out"
}

# artdump: the project's HotSpot -> ART-style converter (tools/artdump.c),
# built by make when missing; ARTDUMP names another build of it.
ARTDUMP=${ARTDUMP:-build/artdump}
have_artdump() {
    [ -x "$ARTDUMP" ] || make -s "$ARTDUMP" >"$T/make-artdump.log" 2>&1 || {
        bad "could not build $ARTDUMP: $(tail -3 "$T/make-artdump.log")"
        return 1
    }
}

# finish: the closing summary line, and the suite's status
finish() {
    if [ "$skip" -gt 0 ]; then
        echo "${NAME:-test}: $pass passed, $fail failed, $skip skipped"
    else
        echo "${NAME:-test}: $pass passed, $fail failed"
    fi
    [ "$fail" -eq 0 ]
}
