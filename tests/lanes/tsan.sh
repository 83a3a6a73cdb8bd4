#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# -z and --gzip output (several compression threads), a report's hasher
# thread, the input's pager
# thread (for plain and compressed files), and gzip input's reader thread
# (one member, and HotSpot's -gz members two at a time, on a second
# thread), under ThreadSanitizer:
# each compressed output must decompress to the single-threaded plain output,
# and TSan halts (exit 66) on any report. Usage: sh tests/lanes/tsan.sh BIN [DUMP...]
set -u
bin=$1; shift
[ $# -gt 0 ] || set -- fixtures/*.hprof
NAME=tsan
. "$(dirname "$0")/../lib.sh"
tmp=$T
export TSAN_OPTIONS="halt_on_error=1 exitcode=66 ${TSAN_OPTIONS:-}"
for d in "$@"; do
    n=$(basename "$d")
    "$bin" -T1 "$d" -o "$tmp/plain" -f || { bad "$n plain"; continue; }
    for t in 2 4; do
        # plain output: the pager thread alone beside the filter
        if "$bin" -T$t "$d" -o "$tmp/two" -f && cmp -s "$tmp/two" "$tmp/plain"
        then ok "$n -T$t"; else bad "$n -T$t"; fi
        if "$bin" -z -T$t "$d" -o "$tmp/z.zst" -f && zstd -dqc "$tmp/z.zst" | cmp -s - "$tmp/plain"
        then ok "$n -z -T$t"; else bad "$n -z -T$t"; fi
        if "$bin" --gzip -T$t "$d" -o "$tmp/g.gz" -f && gzip -dc "$tmp/g.gz" | cmp -s - "$tmp/plain"
        then ok "$n --gzip -T$t"; else bad "$n --gzip -T$t"; fi
    done
    # gzip input: one member, and 256 KiB members as HotSpot's -gz writes them
    gzip -1 -c "$d" >"$tmp/one.gz"
    sh tools/hotspot-gz.sh --every --block 262144 "$d" >"$tmp/hs.gz"
    # (a file is mapped, with the pager thread; a pipe is read(2))
    for g in one hs; do
        if "$bin" -T2 "$tmp/$g.gz" -o "$tmp/in" -f && cmp -s "$tmp/in" "$tmp/plain"
        then ok "$n $g.gz -T2"; else bad "$n $g.gz -T2"; fi
        # a report: the hasher thread takes the reader thread's and the
        # filter's bytes, and the compressor's
        if "$bin" -z -T2 "$tmp/$g.gz" -o "$tmp/in.zst" -f --stats-file "$tmp/r.json" &&
            zstd -dqc "$tmp/in.zst" | cmp -s - "$tmp/plain" &&
            grep -q "\"file\":\"$(sha256sum <"$tmp/$g.gz" | cut -d' ' -f1)\"" "$tmp/r.json"
        then ok "$n $g.gz -z -T2 with digests"; else bad "$n $g.gz -z -T2 with digests"; fi
        if cat "$tmp/$g.gz" | "$bin" -T2 -o "$tmp/in" -f && cmp -s "$tmp/in" "$tmp/plain"
        then ok "$n $g.gz piped -T2"; else bad "$n $g.gz piped -T2"; fi
    done
    # zstd input: decoded on the filter's thread, the pager beside it
    zstd -q -1 -c "$d" >"$tmp/one.zst"
    if "$bin" -T2 "$tmp/one.zst" -o "$tmp/in" -f && cmp -s "$tmp/in" "$tmp/plain"
    then ok "$n one.zst -T2"; else bad "$n one.zst -T2"; fi
done
# HotSpot members past the reader's 4 MiB buffer of compressed bytes (piped
# in: a file is mapped whole), so refilled as the two threads go: the first
# dump and a record of an unknown tag (passed through) holding 6 MiB of
# noise
head -c 6291456 /dev/urandom >"$tmp/noise"
{ cat "$1"; sh tools/unknown-record.sh "$tmp/noise"; } >"$tmp/big.hprof"
sh tools/hotspot-gz.sh --block 262144 "$tmp/big.hprof" >"$tmp/big.gz"
if cat "$tmp/big.gz" | "$bin" -T2 -p none -o "$tmp/in" -f && cmp -s "$tmp/in" "$tmp/big.hprof"
then ok "members past the buffer -T2"; else bad "members past the buffer -T2"; fi
if "$bin" -T2 -p none "$tmp/big.gz" -o "$tmp/in" -f && cmp -s "$tmp/in" "$tmp/big.hprof"
then ok "members of a mapped file -T2"; else bad "members of a mapped file -T2"; fi
finish
