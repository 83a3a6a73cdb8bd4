#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/cli/cli_cuts.sh - every dump of ../shared/corpus (of fixtures/ without
# it) gzip'd and zstd'd, each cut at 20 places (issue #12), run with and
# without --salvage.
# Usage: sh tests/cli/cli_cuts.sh ./hprof-strip build/cutcheck
#
# The compressed forms are made here (gzip -c, zstd -c; a .hprof.gz of the
# corpus is its own gzip form, and is decompressed for zstd). Cut i of n
# (CLI_CUTS_N, 20) falls at i * size / (n + 1), i = 1..n, so always inside
# the compressed stream. What the filter may use of a cut is what gzip(1) or
# zstd(1) get out of it: that prefix goes to build/cutcheck (the tests'
# decoder, tests/unit/cutcheck.c), which says whether its file header is whole
# and which objects are complete in it.
#
# - Without --salvage: exit 3, always. Even where the decompressed bytes end
#   between records with no heap dump open (a legal end for a plain file),
#   the compression layer shows the dump was cut, so it is never passed as
#   whole (exit 0); -o leaves no file.
# - With --salvage: exit 6 when the prefix holds a whole file header (the
#   legal end included: something was lost after it, and the message says
#   the dump "ends between two records" exactly then), 3 when it does not
#   (nothing to salvage); the message names both layers and the byte where
#   the decompressed dump ends, the prefix's length; the output walks,
#   ends with its heap dump closed, and holds by id every instance, array
#   and class dump complete in the prefix.
# - The uncut compressed file: exit 0 with and without --salvage.
# - The corpus's bad-* dumps are corrupt at decompressed byte D (the uncut
#   file: exit 1, with --salvage 1 too, "every record before byte D was kept":
#   corrupt is no cut, whatever was salvaged; the output is written).
#   A cut whose prefix ends at or before D is any other cut; one ending well
#   past D (64 bytes: the bad record's header and its neighbour's) meets the
#   damage first: exit 1, and with --salvage 1 keeping everything before D.
# - One refusal is accepted, and counted: with -p none the bytes of an array
#   too big to hold back have left with its length, so --salvage must write
#   its missing bytes as zeros, and believes at most 64 MiB or four times
#   what arrived (encoder.c, MAX_SALVAGE_PAD): past that it exits 3 "too
#   many to fill in: not salvaged" (the 500 MB byte[] of the oom dump).
#
# Cuts rotate over -p default and -p none, a named file and standard input,
# and -T 1 and 2 (the inline inflater and the reader thread).
set -u
BIN=${1:-./hprof-strip}
CHECK=${2:-build/cutcheck}
N=${CLI_CUTS_N:-20}
NAME=cli_cuts
. "$(dirname "$0")/../lib.sh"
runs=0

[ -x "$CHECK" ] || { echo "cli_cuts.sh: no decoder $CHECK (make $CHECK)" >&2; exit 1; }
# the shared corpus (its bad-* dumps too); without it, the fixtures
CORPUS=../shared/corpus
have_shared "$CORPUS" "cli_cuts: the shared corpus (the fixtures are cut instead)" || CORPUS=fixtures

# unzip FMT FILE: the bytes gzip(1)/zstd(1) decompress from FILE, cut or not
unzip() {
    if [ "$1" = gz ]; then gzip -dc "$2" 2>/dev/null; else zstd -q -dc "$2" 2>/dev/null; fi
}

# One cut: $1 format, $2 the cut file, $3 what (for messages), $4 cut index.
one_cut() {
    fmt=$1 cut=$2 what=$3 i=$4
    case $((i % 2)) in 0) preset=default ;; *) preset=none ;; esac
    threads=$((i / 2 % 2 + 1))
    case $fmt in gz) layer=gzip ;; *) layer=zstd ;; esac
    what="$what (-p $preset -T $threads)"
    rm -f "$T/out" "$T/out.s"
    if [ $((i % 3)) = 0 ]; then
        "$BIN" -p $preset -T $threads -o "$T/out" <"$cut" 2>"$T/err"; rc=$?
        "$BIN" -p $preset -T $threads --salvage -o "$T/out.s" <"$cut" 2>"$T/err.s"; rc_s=$?
    else
        "$BIN" -p $preset -T $threads -o "$T/out" "$cut" 2>"$T/err"; rc=$?
        "$BIN" -p $preset -T $threads --salvage -o "$T/out.s" "$cut" 2>"$T/err.s"; rc_s=$?
    fi
    runs=$((runs + 2))
    [ ! -e "$T/out" ] && ok || bad "$what: -o output left behind after exit $rc"
    salvaged=0
    [ "$rc_s" = 6 ] || { [ "$rc_s" = 1 ] && grep -q "was kept" "$T/err.s"; } && salvaged=1
    [ $salvaged = 1 ] || [ ! -e "$T/out.s" ] && ok || bad "$what: --salvage -o output left behind after exit $rc_s"
    # the output is checked only when --salvage says it wrote one, against
    # the objects complete in what both the filter and gzip(1) got
    if [ $salvaged = 1 ]; then set -- "$T/out.s"; else set --; fi
    got=$(sed -n 's/.*the decompressed dump ends there, at byte \([0-9]*\).*/\1/p' "$T/err")
    info=$(unzip "$fmt" "$cut" | "$CHECK" -n "${got:-999999999999}" - "$@" 2>"$T/check")
    crc=$?
    case $info in
    header=1*) want=6 ;;
    header=0*) want=3 ;;
    *) bad "$what: the decoder says '$info': $(cat "$T/check")"; return ;;
    esac
    m=${info##*bytes=}
    if [ -n "$damage" ] && [ "$m" -gt $((damage + 64)) ]; then
        [ $rc = 1 ] && ok || bad "$what: exit $rc without --salvage past the damage at $damage, expected 1: $(cat "$T/err")"
        [ $rc_s = 1 ] && grep -q "every record before byte $damage was kept" "$T/err.s" &&
            ok || bad "$what: exit $rc_s with --salvage past the damage at $damage: $(cat "$T/err.s")"
    elif [ -n "$damage" ] && [ "$m" -gt "$damage" ]; then
        # in the bad record's header: cut or corrupt, as the bytes fall
        # (a cut is salvaged: 6; corrupt stays invalid input: 1)
        { { [ $rc = 3 ] && [ $rc_s = 6 ]; } || { [ $rc = 1 ] && [ $rc_s = 1 ]; }; } && ok ||
            bad "$what: exits $rc and $rc_s (--salvage) just past the damage at $damage"
    else
        [ $rc = 3 ] && ok || bad "$what: exit $rc without --salvage, expected 3: $(cat "$T/err")"
        if [ $rc_s = 3 ] && [ $preset = none ] && grep -q "too many to fill in: not salvaged" "$T/err.s"; then
            refused=$((refused + 1))
        else
            [ $rc_s = $want ] && ok || bad "$what: exit $rc_s with --salvage, expected $want ($info): $(cat "$T/err.s")"
        fi
        grep -q "$layer data is truncated" "$T/err.s" && grep -q "the decompressed dump ends there" "$T/err.s" &&
            ok || bad "$what: the message does not name both layers: $(cat "$T/err.s")"
        # the filter and the decoder agree on whether the prefix ends where
        # a dump may end (then only the compression layer was cut)
        case $info in *legal=1*) legal=1 ;; *) legal=0 ;; esac
        grep -q "it ends between two records" "$T/err.s"; [ $? = $((1 - legal)) ] &&
            ok || bad "$what: the decoder says legal=$legal, the filter: $(cat "$T/err.s")"
        # the filter got as far into the cut as gzip(1)/zstd(1) do, give
        # or take the last deflate symbol (up to 258 bytes): at a cut, ISA-L
        # and zlib each sometimes leave out a last byte the other decodes
        if [ $fmt = gz ]; then slack=258; else slack=0; fi
        [ -n "$got" ] && [ "$got" -le $((m + slack)) ] && [ "$got" -ge $((m - slack)) ] &&
            ok || bad "$what: the dump ends at byte '$got', $layer(1) decompresses $m"
        [ "$got" = "$m" ] || off_by=$((off_by + 1))
    fi
    [ $crc = 0 ] && ok || bad "$what: salvaged output ($info): $(cat "$T/check")"
}

# All cuts of one compressed file: $1 format, $2 the file, $3 its dump's name.
cuts_of() {
    fmt=$1 z=$2 name=$3
    size=$(wc -c <"$z")
    "$BIN" -p none -o /dev/null "$z" 2>"$T/err"; rc=$?
    "$BIN" -p none --salvage -o /dev/null "$z" 2>"$T/err.s"; rc_s=$?
    damage=
    case $name in
    bad-*)
        damage=$(sed -n 's/.*decompressed byte \([0-9]*\): corrupt data.*/\1/p' "$T/err")
        [ $rc = 1 ] && [ -n "$damage" ] && ok || bad "$name.$fmt uncut: exit $rc, expected 1 naming the damage: $(cat "$T/err")"
        [ $rc_s = 1 ] && grep -q "every record before byte $damage was kept" "$T/err.s" &&
            ok || bad "$name.$fmt uncut --salvage: exit $rc_s: $(cat "$T/err.s")"
        ;;
    *)
        [ $rc = 0 ] && ok || bad "$name.$fmt uncut: exit $rc: $(cat "$T/err")"
        [ $rc_s = 0 ] && ok || bad "$name.$fmt uncut --salvage: exit $rc_s: $(cat "$T/err.s")"
        ;;
    esac
    i=1
    while [ $i -le "$N" ]; do
        at=$((i * size / (N + 1)))
        head -c "$at" "$z" >"$T/cut.$fmt"
        one_cut "$fmt" "$T/cut.$fmt" "$name.$fmt cut $i of $N at compressed byte $at" "$i"
        i=$((i + 1))
    done
}

# The decoder itself must be able to say no: a cut's output lacks objects
# the whole dump has.
FIX=fixtures/jvm17-64bit.hprof
head -c 2000000 "$FIX" | "$BIN" --salvage -o "$T/half" 2>/dev/null
"$CHECK" "$FIX" "$T/half" >/dev/null 2>&1; [ $? = 1 ] && ok || bad "cutcheck passes a salvaged half as the whole dump"
"$CHECK" "$FIX" "$FIX" >/dev/null 2>&1 && ok || bad "cutcheck fails the whole dump against itself"

dumps=0
refused=0
off_by=0
for f in "$CORPUS"/*.hprof "$CORPUS"/*.hprof.gz; do
    [ -f "$f" ] || continue
    name=$(basename "$f" .gz)
    case $f in
    *.gz) cp "$f" "$T/d.gz"; gzip -dc "$f" | zstd -q -c >"$T/d.zst" ;;
    *) gzip -c "$f" >"$T/d.gz"; zstd -q -c "$f" >"$T/d.zst" ;;
    esac
    cuts_of gz "$T/d.gz" "$name"
    cuts_of zst "$T/d.zst" "$name"
    dumps=$((dumps + 1))
done

echo "cli_cuts: $dumps dumps from $CORPUS, gzip and zstd, $N cuts each, $runs runs" \
    "($refused salvages refused as too many zeros to fill in; $off_by cuts where the filter" \
    "and gzip(1) decompress a different number of bytes)"
finish
