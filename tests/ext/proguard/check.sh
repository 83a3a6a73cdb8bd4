#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# check.sh - end-to-end check of the mapping parser on real ProGuard output:
# the parked thread's stack in the obfuscated program's dump, mapped back
# through ProGuard's mapping.txt (tests/ext/proguard/frames.c, linked with the
# library), must be the plain program's stack, frame for frame, inlined
# frames included.
#
#   tests/ext/proguard/check.sh [OUTDIR]     (default build/proguard)
#
# Runs run.sh first (javac, proguard-cli, java); builds the library with
# make when build/libhprofstrip.a is missing. Exit status 0 when the stacks
# match, 1 when they differ, 2 when something could not run.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=${1:-build/proguard}
CC=${CC:-cc}

sh "$here/run.sh" "$out" >/dev/null || exit 2
[ -f "$root/build/libhprofstrip.a" ] || make -s -C "$root" build/libhprofstrip.a || exit 2
"$CC" -std=c11 -O2 -Wall -Wextra -I"$root/src" -o "$out/frames" "$here/frames.c" \
    "$root/build/libhprofstrip.a" || exit 2
"$out/frames" "$out/plain.hprof" >"$out/plain.frames" || exit 2
"$out/frames" "$out/obf.hprof" "$out/mapping.txt" >"$out/obf.frames" || exit 2
"$out/frames" "$out/obf.hprof" >"$out/obf-raw.frames" || exit 2
# the check must be able to fail: the raw obfuscated stack differs
if cmp -s "$out/plain.frames" "$out/obf-raw.frames"; then
    echo "proguard/check.sh: the obfuscated stack is the plain one: nothing was renamed" >&2
    exit 2
fi
grep -q 'Warehouse\$Picker pick' "$out/plain.frames" ||
    { echo "proguard/check.sh: no parked stack in the plain dump" >&2; exit 2; }
if ! diff -u "$out/plain.frames" "$out/obf.frames"; then
    echo "proguard/check.sh: FAIL: retraced frames differ (above: - plain, + mapped)" >&2
    exit 1
fi
echo "proguard/check.sh: ok: $(grep -vc '^trace' "$out/plain.frames") frames mapped back" \
    "($(grep -vc '^trace' "$out/obf-raw.frames") in the obfuscated dump)"
