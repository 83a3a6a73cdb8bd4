#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/cli/audit_corpus.sh - issue #50: on every real dump (fixtures/ and
# ../shared/corpus/), the verdict of `hprof-strip --audit` on the input and
# on the output of every preset equals the verdict of a second, independent
# reading of the file (tests/cli/hprofscan.py: an unused STRING, a record of
# unknown tag, any non-zero primitive value outside the typed keeps): clean
# (exit 0) exactly when the scan finds no data, 7 exactly when it does.
# Beside the presets, the two-step pipeline of the issue: names restored
# with values kept (-p none --mapping tests/data/deobf/jvm17-r8.map), then
# -p privacy on that. A corrupt dump the filter refuses may be refused by
# the audit too (exit 1 or 3), never passed.
# Outputs are written zstd-compressed (the audit and the scan decompress
# them). HS_TEST_DUMPS=K takes K of the dumps (tests/lib.sh sample_dumps),
# as CI does; each dump takes a few seconds (the scan is Python).
# Usage: sh tests/cli/audit_corpus.sh ./hprof-strip
set -u
BIN=${1:-./hprof-strip}
NAME=audit_corpus
. "$(dirname "$0")/../lib.sh"
SCAN="$PY $TESTS/cli/hprofscan.py"
MAP=$TESTS/data/deobf/jvm17-r8.map

dumps=$(ls fixtures/*.hprof fixtures/*.hprof.gz)
if have_shared ../shared/corpus "audit_corpus: the shared corpus's dumps"; then
    dumps="$dumps $(ls ../shared/corpus/*.hprof ../shared/corpus/*.hprof.gz)"
fi
# shellcheck disable=SC2086 # the list is split on purpose
dumps=$(sample_dumps $dumps)

for f in $dumps; do
    n=$(basename "$f")
    files=$f
    corrupt=
    for p in none default privacy android-app; do
        out=$T/$p.hprof.zst
        rm -f "$out"
        if "$BIN" -q -p "$p" "$f" -o "$out" >/dev/null 2>"$T/err"; then
            files="$files $out"
        else
            # a corrupt dump is refused: nothing to audit
            echo "$NAME: $n: -p $p refused it: $(head -c 200 "$T/err")" >&2
            corrupt=1
        fi
    done
    if "$BIN" -q -p none --mapping "$MAP" "$f" -o "$T/named.hprof.zst" >/dev/null 2>&1 &&
        "$BIN" -q -p privacy "$T/named.hprof.zst" -o "$T/twostep.hprof.zst" >/dev/null 2>&1; then
        files="$files $T/twostep.hprof.zst"
    fi
    # shellcheck disable=SC2086
    $SCAN $files >"$T/scan" 2>"$T/scan.err" || bad "$n: hprofscan.py failed: $(head -c 300 "$T/scan.err")"
    for g in $files; do
        "$BIN" -q --audit "$g" >/dev/null 2>&1; rc=$?
        scan=$(grep -F " $g" "$T/scan" | head -1)
        what="$n ($(basename "$g"))"
        case $scan in
        clean*) [ $rc -eq 0 ] && ok || bad "$what: the audit exits $rc, the scan finds no data" ;;
        data*)
            if [ $rc -eq 7 ]; then ok
            elif [ $rc -eq 0 ]; then bad "$what: FALSE-CLEAN: the audit says clean, the scan finds ${scan#* "$g": }"
            elif [ "$g" = "$f" ] && [ -n "$corrupt" ]; then ok
            else bad "$what: the audit exits $rc, the scan finds ${scan#* "$g": }"
            fi ;;
        malformed*)
            # a dump the scan cannot read is one the audit must not pass
            [ $rc -ne 0 ] && ok || bad "$what: the audit says clean on a file the scan reads as ${scan#* "$g": }" ;;
        *) bad "$what: no verdict from the scan" ;;
        esac
    done
    rm -f "$T"/*.hprof.zst
done
finish
