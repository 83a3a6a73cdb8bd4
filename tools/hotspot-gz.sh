#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# hotspot-gz.sh - write FILE gzip-compressed the way HotSpot's
# `jcmd PID GC.heap_dump -gz=N` does, to stdout.
#
#   tools/hotspot-gz.sh [--block BYTES] [--says BYTES] [--every] FILE
#
# HotSpot compresses the dump in blocks (1 MiB), each an independent gzip
# member, and writes the comment "HPROF BLOCKSIZE=<bytes>" in the first
# member's header: that is what lets a reader inflate members in parallel
# (src/lib/input.c). This makes the same shape with gzip -1, for inputs bigger
# or stranger than fixtures/jvm17-jcmd-gz1.hprof.gz, the real thing.
#   --block BYTES  bytes of FILE per member (default 1048576)
#   --says BYTES   the BLOCKSIZE the comment gives (default: --block); a
#                  smaller one makes members bigger than they say
#   --every        the comment in every member, not the first only
# FILE may be /dev/stdin.
set -eu

block=1048576 says="" every=0
while [ $# -gt 1 ]; do
    case $1 in
        --block) block=$2; shift 2 ;;
        --says) says=$2; shift 2 ;;
        --every) every=1; shift ;;
        *) break ;;
    esac
done
[ $# -eq 1 ] || { echo "usage: hotspot-gz.sh [--block BYTES] [--says BYTES] [--every] FILE" >&2; exit 2; }
says=${says:-$block}

# gzip -1's header (10 bytes: no flags, XFL 4, OS 3) replaced by one with
# FLG.FCOMMENT and the comment
commented="{ printf '\\037\\213\\010\\020\\000\\000\\000\\000\\004\\003HPROF BLOCKSIZE=%s\\000' $says; gzip -1 -c | tail -c +11; }"
if [ $every = 1 ]; then
    split -b "$block" --filter="$commented" "$1"
else
    # split cannot tell its first piece from the others: the first block
    # is cut off here and the rest split after it
    { head -c "$block" | sh -c "$commented"
      split -b "$block" --filter='gzip -1'; } <"$1"
fi
