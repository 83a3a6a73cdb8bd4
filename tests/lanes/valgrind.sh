#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/lanes/valgrind.sh - the command-line tool under Valgrind (memcheck) over
# the real dumps in fixtures/: every run must be free of memory errors and
# of definite leaks, exit as it does without Valgrind, and write the same
# bytes.
#
#   sh tests/lanes/valgrind.sh ./hprof-strip        (from the repository root)
#
# For each fixtures/*.hprof (HS_TEST_DUMPS=K: K of them, tests/lib.sh
# sample_dumps): -p default (file to file, --stats=json),
# -p android-app (stdin to stdout), --repack -p none, and --salvage on a
# copy cut at 60% of its length (exit status 6); when the tool has them,
# also -p privacy, zstd output (-z -T 2, to stdout) and a gzip input.
# VALGRIND_FLAGS adds options to valgrind. Ends with "valgrind: N passed,
# N failed"; exit status 0 when nothing failed, 1 otherwise, 2 when it
# cannot run.

set -u

BIN=${1:-./hprof-strip}
FIXTURES=${FIXTURES:-fixtures}
VALGRIND=${VALGRIND:-valgrind}
VG_OPTS="--error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite ${VALGRIND_FLAGS:-}"

if ! command -v "$VALGRIND" >/dev/null 2>&1; then
    echo "valgrind: $VALGRIND not found" >&2
    exit 2
fi
if [ ! -x "$BIN" ]; then
    echo "valgrind: $BIN is not an executable (run make first)" >&2
    exit 2
fi
case $BIN in
/*) ;;
*) BIN=$PWD/$BIN ;;
esac

NAME=valgrind
. "$(dirname "$0")/../lib.sh"
TMP=$T

# run NAME EXPECTED_STATUS IN_MODE INPUT ARGS...
#   IN_MODE file: hprof-strip ARGS INPUT -o OUT
#   IN_MODE pipe: hprof-strip ARGS < INPUT > OUT
# Runs once plainly (the reference: exit status and output), then under
# Valgrind; passes when Valgrind reports nothing, both exit with
# EXPECTED_STATUS and the outputs are the same bytes.
run() {
    name=$1 want=$2 mode=$3 input=$4
    shift 4
    ref=$TMP/ref.hprof out=$TMP/out.hprof log=$TMP/vg.log
    rm -f "$ref" "$out" "$log"

    if [ "$mode" = file ]; then
        "$BIN" -q "$@" "$input" -o "$ref" 2>"$TMP/ref.err"
    else
        "$BIN" -q "$@" <"$input" >"$ref" 2>"$TMP/ref.err"
    fi
    ref_status=$?

    if [ "$mode" = file ]; then
        # shellcheck disable=SC2086
        $VALGRIND $VG_OPTS --log-file="$log" "$BIN" -q "$@" "$input" -o "$out" \
            2>"$TMP/vg.err"
    else
        # shellcheck disable=SC2086
        $VALGRIND $VG_OPTS --log-file="$log" "$BIN" -q "$@" <"$input" >"$out" \
            2>"$TMP/vg.err"
    fi
    status=$?

    why=
    if [ "$status" -eq 99 ]; then
        why="valgrind found errors"
    elif [ "$status" -ne "$want" ]; then
        why="exit status $status under valgrind, expected $want"
    elif [ "$ref_status" -ne "$want" ]; then
        why="exit status $ref_status without valgrind, expected $want"
    elif [ ! -s "$out" ]; then
        why="no output"
    elif ! cmp -s "$ref" "$out"; then
        why="output differs from the run without valgrind"
    elif grep -q "Invalid\|uninitialised\|definitely lost: [1-9]" "$log"; then
        why="valgrind log reports a problem"
    fi
    if [ -z "$why" ]; then
        ok
        echo "ok    $name"
    else
        bad "$name: $why"
        sed 's/^/      /' "$TMP/vg.err" | head -n 5
        grep -v "^==[0-9]*== *$" "$log" | sed 's/^/      /' | head -n 40
    fi
}

# what this build of the tool can do beyond the four runs above
privacy=no zstd=no gzin=no
"$BIN" --print-rules privacy >/dev/null 2>&1 && privacy=yes
help=$("$BIN" --help 2>&1)
case $help in *--zstd*) zstd=yes ;; esac
case $help in *gzip-*compressed*) command -v gzip >/dev/null 2>&1 && gzin=yes ;; esac

n=0
for f in $(sample_dumps "$FIXTURES"/*.hprof); do
    [ -f "$f" ] || continue
    n=$((n + 1))
    base=$(basename "$f" .hprof)
    run "$base -p default --stats=json" 0 file "$f" -p default --stats=json
    run "$base -p android-app (stdin to stdout)" 0 pipe "$f" -p android-app
    run "$base --repack -p none" 0 file "$f" --repack -p none
    size=$(wc -c <"$f")
    cut=$((size * 6 / 10))
    head -c "$cut" "$f" >"$TMP/cut.hprof"
    run "$base cut at $cut of $size bytes, --salvage" 6 file "$TMP/cut.hprof" --salvage
    if [ "$privacy" = yes ]; then
        run "$base -p privacy" 0 file "$f" -p privacy
    fi
    if [ "$zstd" = yes ]; then
        run "$base -p default -z -T 2 (zstd to stdout)" 0 pipe "$f" -p default -z -T 2
    fi
    if [ "$gzin" = yes ]; then
        gzip -c "$f" >"$TMP/in.hprof.gz"
        run "$base.gz -p default (gzip input)" 0 file "$TMP/in.hprof.gz" -p default
    fi
done

[ "$n" -gt 0 ] || bad "no dump in $FIXTURES/"
finish
