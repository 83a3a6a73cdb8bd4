#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/cli/cli_formats.sh - the compressed layers as gzip(1) and zstd(1) know
# them: -z frames carry zstd's content checksum and a flipped bit is caught
# reading them back; --gzip members carry their CRC; input that gzip -d or
# zstd -d takes is taken here too (skippable zstd frames, as pzstd writes
# them, and zero padding after the last gzip member), on a file (mapped)
# and through a pipe, inline and on the reader thread.
# Usage: sh tests/cli/cli_formats.sh ./hprof-strip
set -u
NAME=cli_formats
. "$(dirname "$0")/../lib.sh"
BIN=${1:-./hprof-strip}
FIX=fixtures/jvm17-64bit.hprof

# flip FILE OFFSET: XORs one bit (0x10) of the byte at OFFSET, in place
flip() {
    b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
    printf "\\$(printf %03o $((b ^ 16)))" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}
# reads IN every way (mapped file and pipe, -T 1 and -T 2) and compares the
# output to WANT: same bytes, exit 0; stderr of the last way in $T/err
reads_as() {
    for threads in 1 2; do
        "$BIN" -T $threads -p none "$1" 2>"$T/err" | cmp -s - "$2" && ok ||
            bad "$3, file, -T $threads: $(cat "$T/err")"
        "$BIN" -T $threads -p none <"$1" 2>"$T/err" | cmp -s - "$2" && ok ||
            bad "$3, pipe, -T $threads: $(cat "$T/err")"
    done
}

# ---- -z: one frame with a content checksum -------------------------------
"$BIN" -p none -z "$FIX" >"$T/z.zst"
zstd -lv "$T/z.zst" 2>&1 | grep -q "Check: XXH64" && ok || bad "-z frame has no checksum: $(zstd -lv "$T/z.zst" 2>&1)"
"$BIN" -p none -z -T 1 "$FIX" >"$T/z1.zst"
zstd -lv "$T/z1.zst" 2>&1 | grep -q "Check: XXH64" && ok || bad "-z -T 1 frame has no checksum"
"$BIN" -p none --zstd=19 -T 2 "$FIX" >"$T/z19.zst"
zstd -lv "$T/z19.zst" 2>&1 | grep -q "Check: XXH64" && ok || bad "--zstd=19 frame has no checksum"
zstd -q -dc "$T/z.zst" | cmp -s - "$FIX" && ok || bad "-z output does not decompress to the dump"
# One bit flipped anywhere in the content (the frame header is the first
# 6 bytes, the checksum the last 4): zstd -t fails, and reading it back is
# an error naming the zstd layer, exit 1, never exit 0 with other bytes.
size=$(wc -c <"$T/z.zst")
for at in 20 $((size / 7)) $((size / 3)) $((size / 2)) $((size * 3 / 4)) $((size - 100)) $((size - 2)); do
    cp "$T/z.zst" "$T/flip.zst"
    flip "$T/flip.zst" $at
    zstd -q -t "$T/flip.zst" 2>/dev/null && bad "bit flipped at $at passes zstd -t" || ok
    for threads in 1 2; do
        "$BIN" -T $threads -p none "$T/flip.zst" >"$T/out" 2>"$T/err"; rc=$?
        expect_rc 1 "-z output with a bit flipped at $at, -T $threads"
        expect_grep "zstd data is corrupt at compressed byte" "$T/err" "bit flipped at $at"
    done
    "$BIN" -p none -o "$T/flip-out.hprof" <"$T/flip.zst" 2>/dev/null
    [ -e "$T/flip-out.hprof" ] && bad "bit flipped at $at: an output was left" || ok
done
# a frame zstd(1) wrote, checksum and all, is checked the same way
zstd -q -c --check "$FIX" >"$T/cli.zst"
flip "$T/cli.zst" $(($(wc -c <"$T/cli.zst") / 2))
"$BIN" -p none "$T/cli.zst" >/dev/null 2>"$T/err"; rc=$?
expect_rc 1 "zstd(1) frame with a bit flipped"
expect_grep "zstd data is corrupt" "$T/err" "zstd(1) frame with a bit flipped: message"

# ---- --gzip: every member carries its CRC-32, and it is checked ----------
"$BIN" -p none --gzip "$FIX" >"$T/g.gz"
gzip -t "$T/g.gz" && ok || bad "--gzip output fails gzip -t"
size=$(wc -c <"$T/g.gz")
cp "$T/g.gz" "$T/flip.gz"
flip "$T/flip.gz" $((size - 8)) # the last member's CRC-32
gzip -t "$T/flip.gz" 2>/dev/null && bad "--gzip output: CRC not checked by gzip -t" || ok
"$BIN" -p none "$T/flip.gz" >/dev/null 2>"$T/err"; rc=$?
expect_rc 1 "--gzip output with its CRC flipped"
expect_grep "CRC or length check failed" "$T/err" "--gzip CRC flipped: message"

# A dump found broken inside a member whose CRC then fails: the rest is
# read first, and the CRC names the compressed layer. Stored deflate
# blocks, so the flipped byte is the dump's id size (8 to 24: unsupported).
python3 -c 'import gzip, sys; sys.stdout.buffer.write(gzip.compress(open(sys.argv[1], "rb").read(), 0))' "$FIX" >"$T/stored.gz"
flip "$T/stored.gz" $((10 + 5 + 22))
for threads in 1 2; do
    "$BIN" -T $threads -p none "$T/stored.gz" >/dev/null 2>"$T/err"; rc=$?
    expect_rc 1 "broken dump in a gzip member with a bad CRC, -T $threads"
    expect_grep "and then gzip data is corrupt at compressed byte [0-9]* (CRC or length check failed)" "$T/err" "broken dump, bad CRC, -T $threads"
    "$BIN" -T $threads -p none <"$T/stored.gz" >/dev/null 2>"$T/err"; rc=$?
    expect_grep "and then gzip data is corrupt" "$T/err" "broken dump, bad CRC, pipe, -T $threads"
done

# ---- zstd skippable frames -----------------------------------------------
# pzstd (zstd's parallel CLI) puts a skippable frame before every frame
if command -v pzstd >/dev/null 2>&1; then
    pzstd -q -p 2 -c "$FIX" >"$T/p.zst"
    [ "$(od -An -tx1 -N4 "$T/p.zst" | tr -d ' ')" = 502a4d18 ] && ok || bad "pzstd output does not start with a skippable frame"
    reads_as "$T/p.zst" "$FIX" "pzstd output"
else
    skipped "pzstd output (no pzstd here; the hand-made skippable frames below still run)"
fi
# by hand: magic 0x184D2A5n, a little-endian length, that many bytes
skippable() { printf "\\$(printf %03o $((0x50 + $1)))\\052\\115\\030\\$(printf %03o $2)\\000\\000\\000"; head -c "$2" /dev/urandom; }
head -c 1000000 "$FIX" | zstd -q -c >"$T/a.zst"
tail -c +1000001 "$FIX" | zstd -q -c >"$T/b.zst"
{ skippable 0 9; cat "$T/a.zst"; skippable 15 0; skippable 7 200; cat "$T/b.zst"; skippable 1 4; } >"$T/skip.zst"
zstd -q -dc "$T/skip.zst" | cmp -s - "$FIX" && ok || bad "the hand-made skippable frames are not valid to zstd(1)"
reads_as "$T/skip.zst" "$FIX" "skippable frames first, between and last"
# cut inside a skippable frame: truncated, as a cut frame is
{ cat "$T/a.zst" "$T/b.zst"; skippable 3 200; } | head -c $(($(wc -c <"$T/a.zst" "$T/b.zst" | tail -1 | awk '{print $1}') + 100)) >"$T/skip-cut.zst"
"$BIN" -p none "$T/skip-cut.zst" >/dev/null 2>"$T/err"; rc=$?
expect_rc 3 "cut inside a skippable frame"
expect_grep "zstd data is truncated" "$T/err" "cut inside a skippable frame: message"
# nothing but a skippable frame: an empty dump, said so, not "not an HPROF"
skippable 0 16 >"$T/only.zst"
"$BIN" -p none "$T/only.zst" >/dev/null 2>"$T/err"; rc=$?
expect_rc 1 "only a skippable frame"
expect_no_grep "not an HPROF" "$T/err" "only a skippable frame: sniffed as zstd"

# ---- --gzip in HotSpot's -gz layout, which MAT reads in place --------------
# (the first member's comment names the block size, every member but the
# last holds exactly 1 MiB; walked by tests/cli/gz_members.py with zlib)
for threads in 1 2; do
    "$BIN" -f -p none --gzip -T $threads "$FIX" -o "$T/mat.hprof.gz" 2>"$T/err"
    /usr/bin/python3 tests/cli/gz_members.py "$T/mat.hprof.gz" >"$T/walk" 2>&1 && ok ||
        bad "--gzip -T $threads: not HotSpot's -gz layout: $(cat "$T/walk")"
    expect_grep "^4 members" "$T/walk" "--gzip -T $threads: members of the 3.7 MB fixture"
done
# the checker itself refuses what MAT would not read in place
gzip -c "$FIX" >"$T/plain.gz"
/usr/bin/python3 tests/cli/gz_members.py "$T/plain.gz" >/dev/null 2>&1 && bad "gz_members.py takes gzip(1)'s one member" || ok

# ---- gzip followed by zero bytes ------------------------------------------
gzip -c "$FIX" >"$T/f.gz"
{ cat "$T/f.gz"; head -c 10240 /dev/zero; } >"$T/pad.gz"
gzip -dc "$T/pad.gz" 2>/dev/null | cmp -s - "$FIX" && ok || bad "gzip -d does not take zero padding here"
reads_as "$T/pad.gz" "$FIX" "gzip with 10240 zero bytes after it"
expect_grep "10240 zero bytes after the last gzip member, from compressed byte $(wc -c <"$T/f.gz"), ignored" "$T/err" "zero padding warning"
"$BIN" -q -p none "$T/pad.gz" 2>"$T/err" >/dev/null; rc=$?
expect_rc 0 "zero padding, -q"
expect_empty "$T/err" "zero padding, -q"
# longer than every buffer of the reader (1 MiB) and of the member pairs (4 MiB)
{ cat "$T/f.gz"; head -c 5000000 /dev/zero; } >"$T/longpad.gz"
reads_as "$T/longpad.gz" "$FIX" "gzip with 5000000 zero bytes after it"
# HotSpot's -gz members (two at a time on the reader thread), then zeros
sh tools/hotspot-gz.sh --block 300000 "$FIX" >"$T/hs.gz"
{ cat "$T/hs.gz"; head -c 777 /dev/zero; } >"$T/hs-pad.gz"
reads_as "$T/hs-pad.gz" "$FIX" "HotSpot members with zero bytes after them"
# a single zero byte
{ cat "$T/f.gz"; printf '\000'; } >"$T/pad1.gz"
reads_as "$T/pad1.gz" "$FIX" "gzip with one zero byte after it"
# zeros, then anything else: not padding (neither is a member after zeros)
for tail in 'x' '\037\213'; do
    { cat "$T/f.gz"; head -c 100 /dev/zero; printf "$tail"; } >"$T/padx.gz"
    for threads in 1 2; do
        "$BIN" -T $threads -p none "$T/padx.gz" >/dev/null 2>"$T/err"; rc=$?
        expect_rc 1 "zero bytes then '$tail', -T $threads"
        expect_grep "unexpected bytes after a gzip member" "$T/err" "zero bytes then '$tail': message"
    done
done

finish
