#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# run.sh - the end-to-end material for mapping files: a small Java program
# compiled plain and obfuscated by ProGuard, each run to dump its own heap.
#
#   tests/ext/proguard/run.sh [OUTDIR]      (default build/proguard)
#
# Writes to OUTDIR: plain.jar, obf.jar, mapping.txt (ProGuard's), and the
# two dumps plain.hprof and obf.hprof (HotSpot, taken while a thread is
# parked 40+ frames deep in Warehouse.descend / Warehouse$Picker.pick).
# Needs javac and java (17 is fine: the code is compiled --release 8) and
# Debian's proguard-cli (ProGuard 6.2; `apt-get install proguard-cli`).
# Environment: JAVA, JAVAC, PROGUARD.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
out=${1:-build/proguard}
JAVA=${JAVA:-java}
JAVAC=${JAVAC:-javac}
PROGUARD=${PROGUARD:-proguard}

die() { echo "proguard/run.sh: $*" >&2; exit 2; }
command -v "$JAVAC" >/dev/null || die "no $JAVAC"
command -v "$PROGUARD" >/dev/null || die "no $PROGUARD (apt-get install proguard-cli)"

mkdir -p "$out/classes"
out=$(cd "$out" && pwd)
rm -rf "$out/classes"/* "$out/plain.hprof" "$out/obf.hprof"
# --release 8 keeps the class files readable by ProGuard 6.2; the warning
# about it (and about com.sun.management being internal) is expected
"$JAVAC" --release 8 -nowarn -d "$out/classes" $(find "$here/src" -name '*.java') 2>"$out/javac.log" ||
    { cat "$out/javac.log" >&2; die "javac failed"; }
(cd "$out/classes" && jar cf "$out/plain.jar" .)
"$PROGUARD" -injars "$out/plain.jar" -outjars "$out/obf.jar" \
    -printmapping "$out/mapping.txt" @"$here/proguard.pro" >"$out/proguard.log" 2>&1 ||
    { cat "$out/proguard.log" >&2; die "proguard failed"; }
"$JAVA" -cp "$out/plain.jar" com.example.shop.Main "$out/plain.hprof" >"$out/plain.log"
"$JAVA" -cp "$out/obf.jar" com.example.shop.Main "$out/obf.hprof" >"$out/obf.log"
cmp -s "$out/plain.log" "$out/obf.log" ||
    die "the obfuscated program printed something else: $(cat "$out/obf.log")"
echo "proguard/run.sh: $out/plain.hprof, $out/obf.hprof, $out/mapping.txt"
