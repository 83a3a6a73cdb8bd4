#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/cli/cli_input.sh - compressed input as users meet it: .gz and .zst cut
# short or corrupt (with and without --salvage), archives and other
# compressors named with the way out, gzip of many members, and the reader
# thread (-T) against the inline path. Usage: sh tests/cli/cli_input.sh ./hprof-strip
set -u
BIN=${1:-./hprof-strip}
FIX=fixtures/jvm17-64bit.hprof
NAME=cli_input
. "$(dirname "$0")/../lib.sh"
# the decompressed length a damage message gives ("... at byte M: ...")
dump_end() { sed -n 's/.*the decompressed dump ends there, at byte \([0-9]*\).*/\1/p' "$1"; }

gzip -6 -c "$FIX" >"$T/f.gz"
zstd -q -3 -c "$FIX" >"$T/f.zst"

# A .gz/.zst cut at several places. --salvage: exit 6, a valid dump, the
# message naming both layers, and every byte decompressed before the cut
# used: as many as gzip(1)/zstd(1) get out of it, and the exit status the
# same cut of the plain dump gives. Without: exit 3 (a truncated dump), no
# -o file left.
for fmt in gz zst; do
    size=$(wc -c <"$T/f.$fmt")
    for cut in 100 5000 $((size / 3)) $((size / 2)) $((size - 20)); do
        what="$fmt cut at $cut"
        head -c "$cut" "$T/f.$fmt" >"$T/cut.$fmt"
        for threads in 1 2; do
            "$BIN" -T $threads --salvage -p none -o "$T/s.hprof" -f "$T/cut.$fmt" 2>"$T/err"; rc=$?
            case $fmt in gz) layer=gzip ;; *) layer=zstd ;; esac
            expect_grep "$layer data is truncated at compressed byte $cut" "$T/err" "$what message"
            m=$(dump_end "$T/err")
            # what gzip(1)/zstd(1) get out of the same cut, as a cross-check
            if [ $fmt = gz ]; then gzip -dc "$T/cut.$fmt" 2>/dev/null >"$T/prefix"
            else zstd -q -dc "$T/cut.$fmt" 2>/dev/null >"$T/prefix"; fi
            [ "$m" = "$(wc -c <"$T/prefix")" ] && ok || bad "$what: dump ends at '$m', $layer(1) decodes $(wc -c <"$T/prefix")"
            head -c "${m:-0}" "$FIX" >"$T/plain-cut.hprof"
            cat "$T/plain-cut.hprof" | "$BIN" --salvage -p none 2>/dev/null >"$T/plain-s.hprof"; want=$?
            # a cut between records is a whole dump when plain, salvaged here;
            # one inside the file header has nothing to salvage (3), nor
            # one before the first decompressed byte (empty when plain: 1)
            [ $want = 0 ] && want=6
            [ $want = 1 ] && [ "$m" = 0 ] && want=3
            expect_rc $want "$what, -T $threads, --salvage"
            if [ $rc = 6 ]; then
                "$BIN" -p none "$T/s.hprof" >/dev/null 2>&1 && ok || bad "$what: salvaged output is not valid"
                # the records before the cut are kept (how the record cut
                # short is salvaged may depend on how the reads fell)
                [ $(wc -c <"$T/s.hprof") -gt $((m / 2)) ] && ok || bad "$what: salvaged output too short"
                cp "$T/s.hprof" "$T/s-T$threads.hprof"
            fi
        done
        [ ! -e "$T/s-T1.hprof" ] || cmp -s "$T/s-T1.hprof" "$T/s-T2.hprof" && ok || bad "$what: -T 1 and -T 2 differ"
        rm -f "$T"/s-T?.hprof
        "$BIN" -p none -o "$T/n.hprof" -f "$T/cut.$fmt" 2>"$T/err"; rc=$?
        expect_rc 3 "$what, no --salvage"
        expect_grep "data is truncated at compressed byte $cut" "$T/err" "$what, no --salvage message"
        [ -e "$T/n.hprof" ] && bad "$what: output left" || ok
    done
done

# Offsets inside a compressed input are said to be decompressed ones.
head -c 300000 "$T/f.gz" >"$T/cut.gz"
"$BIN" -p none "$T/cut.gz" 2>"$T/err" >/dev/null
expect_grep "the decompressed dump ends there" "$T/err" "decompressed offset named"
if have_shared ../shared/corpus/bad-corrupt-length-1.hprof "cli_input: a corrupt corpus dump inside gzip"; then
    gzip -c ../shared/corpus/bad-corrupt-length-1.hprof >"$T/bad.gz"
    "$BIN" -p none ../shared/corpus/bad-corrupt-length-1.hprof 2>"$T/plain-err" >/dev/null; want=$?
    "$BIN" -p none "$T/bad.gz" 2>"$T/err" >/dev/null; rc=$?
    expect_rc $want "broken dump inside gzip"
    expect_grep "bad.gz: decompressed byte [0-9]" "$T/err" "broken dump inside gzip: decompressed byte"
fi

# Corrupt in the middle: everything decoded before the damage is salvaged,
# but the input is invalid, not cut: exit 1 (6 is for a cut), the salvaged
# output written all the same (issue #33 item 12: exit 6 before).
# gzip: the second of two members has an invalid block type (found at
# once); zstd: the second of two frames has a broken magic number.
head -c 2000000 "$FIX" | gzip -c >"$T/mid.gz"
tail -c +2000001 "$FIX" | gzip -c >"$T/second.gz"
{ head -c 10 "$T/second.gz"; printf '\007'; tail -c +12 "$T/second.gz"; } >>"$T/mid.gz"
head -c 2000000 "$FIX" | zstd -q -c >"$T/mid.zst"
{ printf 'X'; tail -c +2000001 "$FIX" | zstd -q -c | tail -c +2; } >>"$T/mid.zst"
head -c 2000000 "$FIX" >"$T/first.hprof"
cat "$T/first.hprof" | "$BIN" --salvage -p none >"$T/first-s.hprof" 2>/dev/null
for fmt in gz zst; do
    case $fmt in gz) layer=gzip ;; *) layer=zstd ;; esac
    for threads in 1 2; do
        "$BIN" -T $threads --salvage -p none "$T/mid.$fmt" >"$T/s.hprof" 2>"$T/err"; rc=$?
        expect_rc 1 "corrupt $fmt, -T $threads, --salvage"
        expect_grep "$layer data is corrupt at compressed byte" "$T/err" "corrupt $fmt message"
        [ "$(dump_end "$T/err")" = 2000000 ] && ok || bad "corrupt $fmt: not all 2000000 bytes before the damage: $(cat "$T/err")"
        "$BIN" -p none "$T/s.hprof" >/dev/null 2>&1 && ok || bad "corrupt $fmt: salvaged output is not valid"
        cmp -s "$T/s.hprof" "$T/first-s.hprof" && ok || bad "corrupt $fmt: salvaged output differs"
    done
    "$BIN" -p none -o "$T/n.hprof" "$T/mid.$fmt" 2>"$T/err"; rc=$?
    expect_rc 1 "corrupt $fmt, no --salvage"
    [ -e "$T/n.hprof" ] && bad "corrupt $fmt: output left" || ok
done

# The gzip trailer is checked: a wrong CRC-32 or length is corrupt data;
# bytes after the last member are not gzip. Both as before, exit 1 now.
cp "$T/f.gz" "$T/crc.gz"
printf '\001' | dd of="$T/crc.gz" bs=1 seek=$(($(wc -c <"$T/f.gz") - 6)) conv=notrunc 2>/dev/null
"$BIN" -p none "$T/crc.gz" >/dev/null 2>"$T/err"; rc=$?
expect_rc 1 "gzip CRC mismatch"; expect_grep "CRC or length check failed" "$T/err" "gzip CRC message"
cp "$T/f.gz" "$T/len.gz"
printf '\001' | dd of="$T/len.gz" bs=1 seek=$(($(wc -c <"$T/f.gz") - 2)) conv=notrunc 2>/dev/null
"$BIN" -p none "$T/len.gz" >/dev/null 2>"$T/err"; rc=$?
expect_rc 1 "gzip ISIZE mismatch"
{ cat "$T/f.gz"; printf 'trailing'; } >"$T/trail.gz"
"$BIN" -p none "$T/trail.gz" >/dev/null 2>"$T/err"; rc=$?
expect_rc 1 "bytes after the last member"
expect_grep "unexpected bytes after a gzip member" "$T/err" "trailing garbage message"

# A read that fails (stdin a directory: EISDIR) is an I/O error, named.
"$BIN" -p none <"$T" >/dev/null 2>"$T/err"; rc=$?
expect_rc 4 "stdin a directory"; expect_grep "stdin: reading failed: Is a directory" "$T/err" "read error message"

# Many members (HotSpot -gz: 1 MiB each; here also tiny and empty ones),
# through a pipe and from a file, on the reader thread and inline.
: >"$T/multi.gz"
off=1
for len in 1048576 1 4095 0 1048576 100000; do
    tail -c +$off "$FIX" | head -c $len | gzip -$((len % 9 + 1)) >>"$T/multi.gz"
    off=$((off + len))
done
tail -c +$off "$FIX" | gzip -1 >>"$T/multi.gz"
"$BIN" "$FIX" >"$T/default.hprof"
for threads in 1 2; do
    "$BIN" -T $threads -p none "$T/multi.gz" | cmp -s - "$FIX" && ok || bad "multi-member gzip, -T $threads"
    "$BIN" -T $threads -p none <"$T/multi.gz" | cmp -s - "$FIX" && ok || bad "multi-member gzip on stdin, -T $threads"
    "$BIN" -T $threads -p none "$T/f.zst" | cmp -s - "$FIX" && ok || bad "zstd, -T $threads"
    # the same filter output as the plain input gives, with rules at work
    "$BIN" -T $threads "$T/multi.gz" | cmp -s - "$T/default.hprof" && ok || bad "default preset through gzip, -T $threads"
done
if have_shared ../shared/corpus/jvm11-64bit.hprof.gz "cli_input: a corpus .gz, identity"; then
    gzip -dc ../shared/corpus/jvm11-64bit.hprof.gz >"$T/j11"
    "$BIN" -p none ../shared/corpus/jvm11-64bit.hprof.gz | cmp -s - "$T/j11" && ok || bad "corpus .gz identity"
fi

# HotSpot's -gz members (1 MiB blocks, each with the comment "HPROF
# BLOCKSIZE=1048576"), which the reader thread inflates two at a time:
# the same bytes as inline, also when a member header shows up inside the
# compressed data (a stored block of an unknown record: it must not be
# taken for a member), and the same salvage when a member is damaged.
hotspot_gz() { sh tools/hotspot-gz.sh --every "$@"; } # the comment in every member
hotspot_gz "$FIX" >"$T/hs.gz"
# as jcmd writes them: the comment in the first member only
sh tools/hotspot-gz.sh "$FIX" >"$T/hs1.gz"
gzip -t "$T/hs.gz" && ok || bad "the HotSpot-style test input is not gzip"
# 3 MiB of noise on either side of a planted header: the members are
# more than the reader's 4 MiB buffer of compressed bytes holds
head -c 3145728 /dev/urandom >"$T/noise"
{ cat "$T/noise"; printf '\037\213\010\020\000\000\000\000\004\000HPROF BLOCKSIZE=1048576\000'; cat "$T/noise"; } >"$T/body"
{ cat "$FIX"; sh tools/unknown-record.sh "$T/body"; tail -c +32 "$FIX"; } >"$T/decoy.hprof"
"$BIN" -p none "$T/decoy.hprof" 2>"$T/err" | cmp -s - "$T/decoy.hprof" && ok || bad "decoy dump is not valid: $(cat "$T/err")"
hotspot_gz "$T/decoy.hprof" >"$T/decoy.gz"
hotspot_gz --block 300000 "$T/decoy.hprof" >"$T/decoy-small.gz"
for threads in 1 2; do
    "$BIN" -T $threads -p none "$T/hs.gz" | cmp -s - "$FIX" && ok || bad "HotSpot members, -T $threads"
    "$BIN" -T $threads -p none "$T/hs1.gz" | cmp -s - "$FIX" && ok || bad "HotSpot members, plain headers after the first, -T $threads"
    "$BIN" -T $threads -p none <"$T/hs.gz" | cmp -s - "$FIX" && ok || bad "HotSpot members on stdin, -T $threads"
    "$BIN" -T $threads -p none "$T/decoy.gz" | cmp -s - "$T/decoy.hprof" && ok || bad "HotSpot members with a decoy header, -T $threads"
    "$BIN" -T $threads -p none "$T/decoy-small.gz" | cmp -s - "$T/decoy.hprof" && ok || bad "small HotSpot members with a decoy header, -T $threads"
    cat "$T/decoy.gz" | "$BIN" -T $threads -p none | cmp -s - "$T/decoy.hprof" && ok || bad "HotSpot members with a decoy header from a pipe, -T $threads"
done
# a block bigger than its header says: inflated by the streaming path
hotspot_gz --says 1000 "$FIX" >"$T/liar.gz"
"$BIN" -p none "$T/liar.gz" | cmp -s - "$FIX" && ok || bad "HotSpot members bigger than their BLOCKSIZE"
# damage in the third member, and cuts: salvaged up to the damage
hotspot_gz --block 500000 "$FIX" >"$T/hs5.gz"
third=$(head -c 1000000 "$FIX" | hotspot_gz --block 500000 /dev/stdin | wc -c)
{ head -c $((third + 35)) "$T/hs5.gz"; printf '\007'; tail -c +$((third + 37)) "$T/hs5.gz"; } >"$T/hs-bad.gz"
# (how the filter salvages a record cut short can depend on how the reads
# fell, so the outputs are compared between -T 1 and -T 2, not to the
# plain cut's)
for threads in 1 2; do
    "$BIN" -T $threads --salvage -p none "$T/hs-bad.gz" >"$T/s$threads.hprof" 2>"$T/err"; rc=$?
    expect_rc 1 "damaged HotSpot member, -T $threads (corrupt, not cut)"
    [ "$(dump_end "$T/err")" = 1000000 ] && ok || bad "damaged HotSpot member, -T $threads: $(cat "$T/err")"
    "$BIN" -p none "$T/s$threads.hprof" >/dev/null 2>&1 && ok || bad "damaged HotSpot member, -T $threads: not valid"
    for cut in 40 $((third + 20)) $((third + 9000)); do
        head -c $cut "$T/hs5.gz" >"$T/hs-cut.gz"
        "$BIN" -T $threads --salvage -p none "$T/hs-cut.gz" >/dev/null 2>"$T/err"
        gzip -dc "$T/hs-cut.gz" 2>/dev/null >"$T/prefix"
        [ "$(dump_end "$T/err")" = "$(wc -c <"$T/prefix")" ] && ok || bad "HotSpot members cut at $cut, -T $threads: $(cat "$T/err")"
    done
done
cmp -s "$T/s1.hprof" "$T/s2.hprof" && ok || bad "damaged HotSpot member: -T 1 and -T 2 differ"

# A real `jcmd GC.heap_dump -gz=1` file (JDK 17, fixtures/README.md), not
# the recipe above: the same dump out as through gzip -dc, plain and -z,
# whole and cut inside its second member.
JCMD=fixtures/jvm17-jcmd-gz1.hprof.gz
gzip -dc "$JCMD" >"$T/jcmd.hprof"
gzip -dc "$JCMD" | "$BIN" -p default >"$T/jcmd-default.hprof"
head -c 600000 "$JCMD" >"$T/jcmd-cut.gz"
for threads in 1 2; do
    "$BIN" -T $threads -p none "$JCMD" | cmp -s - "$T/jcmd.hprof" && ok || bad "jcmd -gz=1 dump, -T $threads"
    "$BIN" -T $threads -p default -z <"$JCMD" | zstd -dc | cmp -s - "$T/jcmd-default.hprof" && ok ||
        bad "jcmd -gz=1 dump, -p default -z, -T $threads"
    "$BIN" -T $threads --salvage -p none "$T/jcmd-cut.gz" >/dev/null 2>"$T/err"; rc=$?
    expect_rc 6 "jcmd -gz=1 dump cut, -T $threads"
    # the first member's 1048576 bytes and the 494708 that zlib inflates
    # of the second before the cut (gzip -dc holds back one more)
    [ "$(dump_end "$T/err")" = 1543284 ] && ok || bad "jcmd -gz=1 dump cut, -T $threads: $(cat "$T/err")"
done

# Archives and other compressors: exit 1, named, with the way out.
magic() { printf "$1" >"$T/m"; head -c 4000 "$FIX" >>"$T/m"; "$BIN" "$T/m" >/dev/null 2>"$T/err"; rc=$?; }
magic 'PK\003\004'; expect_rc 1 "zip"; expect_grep "zip archive.*unzip -p" "$T/err" "zip message"
magic '\3757zXZ\000'; expect_rc 1 "xz"; expect_grep "xz data.*xz -dc" "$T/err" "xz message"
magic 'BZh9'; expect_rc 1 "bzip2"; expect_grep "bzip2 data.*bzip2 -dc" "$T/err" "bzip2 message"
magic '\004\042\115\030'; expect_rc 1 "lz4"; expect_grep "lz4 data.*lz4 -dc" "$T/err" "lz4 message"
printf 'PK\003\004' | cat - "$FIX" | "$BIN" >/dev/null 2>"$T/err"; rc=$?
expect_rc 1 "zip on a pipe"; expect_grep "zip archive" "$T/err" "zip on a pipe message"

finish
