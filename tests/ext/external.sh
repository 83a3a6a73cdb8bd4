#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/ext/external.sh - outputs checked by parsers nobody here wrote:
#   - Android's hprof-conv (Debian package hprof-conv) must accept every
#     1.0.3 output;
#   - VisualVM's heap parser (Debian package visualvm, through
#     tools/vvm-histogram.sh) must load every output with the same class
#     histogram (instances and bytes per class) as the input, except where a
#     rule removes objects (then it must still load, with every class).
# Inputs: every dump of ../shared/corpus (gzip ones decompressed) when it is
# there, the fixtures, and a fresh JVM dump made with tools/makedump.sh.
# Usage: sh tests/ext/external.sh ./hprof-strip
set -u
BIN=${1:-./hprof-strip}
CONV=/usr/lib/android-sdk/platform-tools/hprof-conv
NAME=external
. "$(dirname "$0")/../lib.sh"

histo() { sh tools/vvm-histogram.sh "$1" >"$2" 2>"$2.err"; }

inputs=""
corpus=
have_shared ../shared/corpus "external: the shared corpus's dumps" && corpus="../shared/corpus/*.hprof ../shared/corpus/*.hprof.gz"
for f in $(sample_dumps --skip '*/bad-*' $corpus fixtures/*.hprof); do
    [ -e "$f" ] || continue
    b=$(basename "$f" .gz)
    case $f in
        *.gz) gzip -dc "$f" >"$T/$b"; f=$T/$b ;;
    esac
    # the 500 MB one is left to make bench: VisualVM needs minutes for it
    [ "$(stat -c %s "$f")" -gt 100000000 ] && continue
    inputs="$inputs $f"
done
if [ -e build/fresh/jvm-30mb.hprof ]; then
    inputs="$inputs build/fresh/jvm-30mb.hprof"
else
    bad "no fresh JVM dump in build/fresh (make check makes it)"
fi

for f in $inputs; do
    name=$(basename "$f")
    android=0
    head -c 18 "$f" | grep -q "1.0.3" && android=1
    if ! histo "$f" "$T/in.h"; then
        bad "$name: VisualVM cannot read the input itself: $(cat "$T/in.h.err")"
        continue
    fi
    if $BIN -p none "$f" | cmp -s - "$f"; then ok
    else bad "$name: -p none does not give the input back byte for byte"; fi
    modes="-p default|-p privacy|-p android-app|--repack -p none"
    [ $android = 1 ] && modes="$modes|-p none --to-jvm|-p default --to-jvm"
    IFS='|'
    for mode in $modes; do
        unset IFS
        if ! $BIN $mode "$f" >"$T/out.hprof" 2>"$T/err"; then
            bad "$name $mode: hprof-strip failed: $(cat "$T/err")"
            continue
        fi
        if [ $android = 1 ] && [ "${mode#*--to-jvm}" = "$mode" ]; then
            if $CONV "$T/out.hprof" "$T/conv.hprof" >"$T/conv.err" 2>&1; then ok
            else bad "$name $mode: hprof-conv rejects the output: $(cat "$T/conv.err")"; fi
        fi
        if ! histo "$T/out.hprof" "$T/out.h"; then
            bad "$name $mode: VisualVM cannot read the output: $(cat "$T/out.h.err")"
            continue
        fi
        if [ "${mode#*--to-jvm}" != "$mode" ]; then
            if head -c 18 "$T/out.hprof" | grep -q "1.0.2"; then ok
            else bad "$name $mode: not a 1.0.2 header"; fi
        fi
        if [ "$mode" = "-p android-app" ] && [ $android = 1 ]; then
            # objects of two heaps are gone; every class is still there
            if [ "$(cut -f1 "$T/in.h" | sort)" = "$(cut -f1 "$T/out.h" | sort)" ]; then ok
            else bad "$name $mode: classes differ"; fi
        elif cmp -s "$T/in.h" "$T/out.h"; then ok
        else bad "$name $mode: class histogram differs: $(diff "$T/in.h" "$T/out.h" | head -5)"; fi
    done
done
# --salvage: dumps cut at three places come out valid for both parsers
for f in $inputs; do
    name=$(basename "$f")
    size=$(stat -c %s "$f")
    android=0
    head -c 18 "$f" | grep -q "1.0.3" && android=1
    for frac in 50 75 90; do
        head -c $((size * frac / 100)) "$f" >"$T/cut.hprof"
        $BIN --salvage "$T/cut.hprof" >"$T/salv.hprof" 2>"$T/err"; rc=$?
        if [ $rc != 6 ] && [ $rc != 0 ]; then
            bad "$name cut at $frac%: --salvage exit $rc: $(cat "$T/err")"
            continue
        fi
        # VisualVM wants a heap dump (a cut in the leading STRINGs leaves
        # none), and the class of every instance (a cut ART dump may lack
        # some: ART writes class dumps after their instances): JVM dumps
        # with a heap dump only
        heap=$($BIN -p none --repack --stats=json "$T/salv.hprof" 2>&1 >/dev/null |
            sed -n 's/.*"segments_out":\([0-9]*\).*/\1/p')
        if [ $android = 0 ] && [ "${heap:-0}" -gt 0 ]; then
            if sh tools/vvm-histogram.sh --counts "$T/salv.hprof" >"$T/salv.h" 2>"$T/salv.err"; then ok
            else bad "$name cut at $frac%: VisualVM cannot read the salvaged dump: $(cat "$T/salv.err")"; fi
        fi
        if [ $android = 1 ]; then
            if $CONV "$T/salv.hprof" "$T/conv.hprof" >"$T/conv.err" 2>&1; then ok
            else bad "$name cut at $frac%: hprof-conv rejects the salvaged dump: $(cat "$T/conv.err")"; fi
        fi
    done
done
[ "$pass" -gt 0 ] || bad "no dump checked (a sample of only skipped dumps?)"
finish
