#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# unknown-record.sh - write, to stdout, an HPROF top-level record of a tag
# no dumper uses (0x7f) holding the bytes of FILE: tag, time 0, length as a
# big-endian u4, then FILE. Appended to a dump, it makes test input of any
# size and content that every preset passes through unchanged.
#
#   tools/unknown-record.sh FILE
set -eu
[ $# -eq 1 ] || { echo "usage: unknown-record.sh FILE" >&2; exit 2; }
n=$(wc -c <"$1")
[ "$n" -le 4294967295 ] || { echo "unknown-record.sh: $1 is over 4 GiB" >&2; exit 2; }
printf '\177\000\000\000\000'
printf "$(printf '\\%03o\\%03o\\%03o\\%03o' $((n >> 24 & 255)) $((n >> 16 & 255)) $((n >> 8 & 255)) $((n & 255)))"
cat "$1"
