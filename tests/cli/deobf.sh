#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# deobf.sh - --mapping end to end (make test).
#
#   tests/cli/deobf.sh [BINARY]
#
# 1. Hand-written R8-style mappings (tests/data/deobf: '#' metadata, an
#    inline chain, line ranges, a sourceFile) applied to two real dumps,
#    HotSpot 8-byte ids and ART 4-byte ids: the classes, fields and frames
#    they name come out renamed, everything else as it was; read back by an
#    independent reader (tests/cli/deobf_names.py, which also fails on a name
#    used before its STRING) and, when java is here, by ahat and VisualVM.
# 2. The CLI around it: compressed mappings, the rule-file directive and its
#    relative path, parse errors (FILE:LINE:COL, exit 2), the warning for a
#    mapping that renames nothing, --max-held counting the mapping.
# 3. tests/ext/proguard (javac, java, proguard-cli): the obfuscated program's
#    dump, deobfuscated, has the plain program's class histogram (VisualVM,
#    ahat), field names and stack frames; also with -p privacy.
# Prints "skip:" for what cannot run here (a missing tool; "skipped:" for
# ahat's and jhat's parsers, from ../shared), FAIL for a check that failed;
# exit 1 when one did.
set -u
NAME=deobf
. "$(dirname "$0")/../lib.sh"
root=$(cd "$TESTS/.." && pwd)
bin=${1:-$root/hprof-strip}
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
cd "$root" || exit 2
data=$root/tests/data/deobf
names="python3 $root/tests/cli/deobf_names.py"
ahat=$root/../shared/tools/ahatsum/ahatsum
jhat=$root/../shared/tools/jhatsum/jhatsum
vvm=$root/tools/vvm-histogram.sh
jvm=$root/fixtures/jvm17-64bit.hprof
art=$root/fixtures/android-art2025-ahat-test-dump.hprof
tmp=$T

have_java() { command -v java >/dev/null 2>&1 && command -v javac >/dev/null 2>&1; }

# same FILE1 FILE2 WHAT: the two files are equal, else the diff and a FAIL
same() {
    if diff -u "$1" "$2" >"$tmp/diff"; then ok "$3"; else head -20 "$tmp/diff" >&2; bad "$3"; fi
}

# ---- 1. hand-written R8 mappings on real dumps -------------------------------

# what jvm17-r8.map must do to the input's names and frames
jvm_expect_names() {
    sed -e 's/^java\.util\.ArrayList \(.*\) fields=size,elementData$/com.shop.Holder \1 fields=count,data/' \
        -e 's/^java\.util\.concurrent\.ThreadPoolExecutor \(.*\),workQueue,ctl$/com.shop.RealPool \1,jobs,state/' \
        -e 's/^com\.company\.MyTask /com.shop.RealTask /' | LC_ALL=C sort
}
jvm_expect_frames() {
    sed -e 's/^com\.company\.MyTask run MyTask\.java 8$/com.shop.RealTask doWork RealTask.kt 12/' \
        -e 's/^java\.util\.concurrent\.ThreadPoolExecutor runWorker ThreadPoolExecutor\.java 1136$/com.shop.RealPool runAll ThreadPoolExecutor.java 236/'
}
# class histogram lines ("NAME<TAB>..." or "class NAME ..."), names renamed
rename_classes() {
    awk -v sep="$1" -v art="${2:-}" 'BEGIN {
        if (art) { m["DumpedStuff"] = "com.example.Stuff"; m["a.a"] = "com.example.inner.Leaf" }
        else { m["java.util.ArrayList"] = "com.shop.Holder"; m["java.util.concurrent.ThreadPoolExecutor"] = "com.shop.RealPool"
               m["com.company.MyTask"] = "com.shop.RealTask" } }
    { n = split($0, f, sep); k = (f[1] == "class" || f[1] == "heapclass") ? (f[1] == "class" ? 2 : 3) : 1
      base = f[k]; dims = ""; while (base ~ /\[\]$/) { base = substr(base, 1, length(base) - 2); dims = dims "[]" }
      if (base in m) f[k] = m[base] dims
      line = f[1]; for (i = 2; i <= n; i++) line = line sep f[i]; print line }' | LC_ALL=C sort
}

$names "$jvm" | jvm_expect_names >"$tmp/jvm.names.want"
$names --frames "$jvm" | jvm_expect_frames >"$tmp/jvm.frames.want"
cmp -s "$tmp/jvm.frames.want" "$tmp/jvm.frames.in" 2>/dev/null && bad "the expected frames are the input's"
for preset in default privacy none; do
    out=$tmp/jvm-$preset.hprof
    if ! "$bin" -q -f -p $preset --mapping "$data/jvm17-r8.map" "$jvm" -o "$out"; then
        bad "jvm17 -p $preset --mapping: exit status $?"
        continue
    fi
    $names "$out" | LC_ALL=C sort >"$tmp/jvm.names" || bad "jvm17 -p $preset: names unreadable"
    same "$tmp/jvm.names.want" "$tmp/jvm.names" "jvm17 -p $preset: the mapped classes and fields renamed, no other"
    $names --frames "$out" >"$tmp/jvm.frames"
    same "$tmp/jvm.frames.want" "$tmp/jvm.frames" "jvm17 -p $preset: the mapped frames renamed (outermost of the inline chain, R8 line)"
done
$names "$art" | sed -e 's/^DumpedStuff \(.*\) fields=A,\(.*\),W,d,/com.example.Stuff \1 fields=realA,\2,W,realD,/' \
    -e 's/^a\.a \(.*\) fields=a$/com.example.inner.Leaf \1 fields=payload/' | LC_ALL=C sort >"$tmp/art.names.want"
if "$bin" -q -f --mapping "$data/art-r8.map" "$art" -o "$tmp/art.hprof"; then
    $names "$art" | LC_ALL=C sort | cmp -s - "$tmp/art.names.want" && bad "ART: the expected names are the input's"
    $names "$tmp/art.hprof" | LC_ALL=C sort >"$tmp/art.names"
    same "$tmp/art.names.want" "$tmp/art.names" "ART (1.0.3, 4-byte ids): dotted class names and fields renamed"
else
    bad "ART --mapping: exit status $?"
fi

if ! have_java; then
    skipped "deobf: ahat checks (no java or javac)"
elif have_shared ../shared/tools/ahatsum/ahatsum "deobf: ahat's histograms"; then
    "$ahat" "$jvm" | grep '^class ' | rename_classes ' ' >"$tmp/ahat.want"
    "$ahat" "$tmp/jvm-privacy.hprof" | grep '^class ' | LC_ALL=C sort >"$tmp/ahat.got"
    same "$tmp/ahat.want" "$tmp/ahat.got" "jvm17 -p privacy --mapping: ahat's histogram is the input's, renamed"
    "$ahat" "$art" | grep '^class \|^heapclass ' | rename_classes ' ' art >"$tmp/ahat.want"
    "$ahat" "$tmp/art.hprof" | grep '^class \|^heapclass ' | LC_ALL=C sort >"$tmp/ahat.got"
    same "$tmp/ahat.want" "$tmp/ahat.got" "ART --mapping: ahat's histogram by heap is the input's, renamed"
fi
if ! have_java; then
    skipped "deobf: jhat check (no java or javac)"
elif have_shared ../shared/tools/jhatsum/jhatsum "deobf: jhat's histogram"; then
    # ART to 1.0.2 for MAT and jhat, deobfuscated on the way
    "$bin" -q -f --to-jvm -p android-app "$art" -o "$tmp/tj0.hprof"
    "$bin" -q -f --to-jvm -p android-app --mapping "$data/art-r8.map" "$art" -o "$tmp/tj1.hprof"
    "$jhat" "$tmp/tj0.hprof" | grep '^class ' | rename_classes ' ' art >"$tmp/jhat.want"
    "$jhat" "$tmp/tj1.hprof" | grep '^class ' | LC_ALL=C sort >"$tmp/jhat.got"
    grep -q '^class com.example.Stuff ' "$tmp/jhat.got" &&
        same "$tmp/jhat.want" "$tmp/jhat.got" "ART --to-jvm -p android-app --mapping: jhat's histogram is the converted one's, renamed" ||
        bad "ART --to-jvm --mapping: jhat sees no com.example.Stuff"
fi
if have_java && sh "$vvm" "$jvm" >"$tmp/vvm.in" 2>/dev/null; then
    rename_classes '	' <"$tmp/vvm.in" >"$tmp/vvm.want"
    sh "$vvm" "$tmp/jvm-default.hprof" | LC_ALL=C sort >"$tmp/vvm.got"
    same "$tmp/vvm.want" "$tmp/vvm.got" "jvm17 --mapping: VisualVM's histogram is the input's, renamed"
else
    skipped "deobf: VisualVM check (no java or VisualVM's parser)"
fi

# ---- 2. the CLI around it ----------------------------------------------------

# A mapped input file is patched in place, privately (copy on write, issue
# #38): the same bytes as through a pipe (read by copy) and as a hashed run
# (--stats-file: hashed as read, so left read-only and copied), the file as
# it was, and the report's input SHA-256 the file's.
for pair in "$jvm:$data/jvm17-r8.map" "$art:$data/art-r8.map"; do
    d=${pair%%:*} m=${pair#*:}
    sum=$(sha256sum "$d" | cut -c1-64)
    for args in "-p default" "-p privacy --histogram" "-p android-app"; do
        # shellcheck disable=SC2086 # ARGS is a word list
        "$bin" -q -f $args --mapping "$m" "$d" -o "$tmp/inplace.hprof" 2>/dev/null &&
            cat "$d" | "$bin" -q $args --mapping "$m" >"$tmp/piped.hprof" 2>/dev/null &&
            "$bin" -q -f $args --mapping "$m" --stats-file "$tmp/h.json" "$d" -o "$tmp/hashed.hprof" 2>/dev/null ||
            { bad "${d##*/} $args --mapping: exit status"; continue; }
        cmp -s "$tmp/inplace.hprof" "$tmp/piped.hprof" && cmp -s "$tmp/inplace.hprof" "$tmp/hashed.hprof" &&
            ok "${d##*/} $args --mapping: a mapped file gives the bytes a pipe and a hashed run give" ||
            bad "${d##*/} $args --mapping: the mapped file's output differs"
        [ "$(sha256sum "$d" | cut -c1-64)" = "$sum" ] && grep -q "\"file\":\"$sum\"" "$tmp/h.json" &&
            ok "${d##*/} $args --mapping: the input file unchanged, its SHA-256 in the report" ||
            bad "${d##*/} $args --mapping: the input file or its reported SHA-256 changed"
    done
done

gzip -c "$data/jvm17-r8.map" >"$tmp/m.map.gz"
zstd -q -c "$data/jvm17-r8.map" >"$tmp/m.map.zst" 2>/dev/null || rm -f "$tmp/m.map.zst"
for m in "$tmp/m.map.gz" "$tmp/m.map.zst"; do
    [ -f "$m" ] || { skipped "deobf: a zstd-compressed mapping (no zstd)"; continue; }
    "$bin" -q -f --mapping "$m" "$jvm" -o "$tmp/c.hprof" && cmp -s "$tmp/c.hprof" "$tmp/jvm-default.hprof" &&
        ok "a ${m##*.}-compressed mapping works as the plain one" || bad "--mapping ${m##*.}"
done

mkdir -p "$tmp/rules" "$tmp/elsewhere"
cp "$data/jvm17-r8.map" "$tmp/rules/app map.txt"
printf 'preset default\nmapping app map.txt   # relative to this file\n' >"$tmp/rules/r.rules"
(cd "$tmp/elsewhere" && "$bin" -q -f -p none -r ../rules/r.rules "$jvm" -o "$tmp/r.hprof") &&
    cmp -s "$tmp/r.hprof" "$tmp/jvm-default.hprof" &&
    ok "rule file: mapping FILE, relative to the rule file, blanks in the name" ||
    bad "rule-file mapping directive"
"$bin" -f -r "$tmp/rules/r.rules" --mapping "$data/art-r8.map" "$jvm" -o "$tmp/w.hprof" 2>"$tmp/err"
grep -q 'renamed nothing' "$tmp/err" && ok "--mapping overrides the rule file's mapping" ||
    bad "--mapping did not override the rule file's mapping"

printf 'com.example.Foo -> a:\n    int count => b\n' >"$tmp/bad.map"
"$bin" -q -f --mapping "$tmp/bad.map" "$jvm" -o "$tmp/x.hprof" 2>"$tmp/err"
rc=$?
[ $rc = 2 ] && grep -q "bad.map:2:15: expected ' -> '" "$tmp/err" && [ ! -e "$tmp/x.hprof" ] &&
    ok "a malformed mapping: FILE:LINE:COL, exit 2, no output" ||
    { cat "$tmp/err" >&2; bad "malformed mapping: exit $rc"; }
"$bin" -q -f --mapping "$tmp/none.map" "$jvm" -o "$tmp/x.hprof" 2>"$tmp/err"
rc=$?
[ $rc = 2 ] && grep -q "none.map" "$tmp/err" && ok "a missing mapping: exit 2" || bad "missing mapping: exit $rc"

# issue #50: where values are removed, a mapping may not rename into the
# JDK's packages (it could make an app's field pass for String.coder)
printf '# evil\njava.lang.String -> com.company.MyTask:\n    byte coder -> x\n' >"$tmp/evil.map"
"$bin" -q -f -p privacy --mapping "$tmp/evil.map" "$jvm" -o "$tmp/x.hprof" 2>"$tmp/err"
rc=$?
[ $rc = 2 ] && grep -q "evil.map:2: renames java.lang.String" "$tmp/err" && [ ! -e "$tmp/x.hprof" ] &&
    ok "-p privacy with a mapping into java.lang: FILE:LINE, exit 2, no output" ||
    { cat "$tmp/err" >&2; bad "a mapping into java.lang under -p privacy: exit $rc"; }
"$bin" -q -f -p default --mapping "$tmp/evil.map" "$jvm" -o "$tmp/x.hprof" 2>"$tmp/err"
rc=$?
[ $rc = 2 ] && ok "-p default with a mapping into java.lang: exit 2" ||
    bad "a mapping into java.lang under -p default: exit $rc"
"$bin" -q -f -p none --mapping "$tmp/evil.map" "$jvm" -o "$tmp/x.hprof" 2>"$tmp/err"
rc=$?
[ $rc = 0 ] && ok "-p none with a mapping into java.lang: taken (no value is removed)" ||
    { cat "$tmp/err" >&2; bad "a mapping into java.lang under -p none: exit $rc"; }

printf 'com.other.Thing -> zz.y:\n    int f -> a\n' >"$tmp/other.map"
"$bin" -f --mapping "$tmp/other.map" --stats-file "$tmp/r.json" "$jvm" -o "$tmp/o.hprof" 2>"$tmp/err"
rc=$?
[ $rc = 0 ] && grep -q "warning: the mapping renamed nothing" "$tmp/err" &&
    grep -q '"mapping_classes_renamed":0,' "$tmp/r.json" &&
    ok "a mapping that matches nothing: a warning, exit 0, counters 0" ||
    { cat "$tmp/err" >&2; bad "no-match warning (exit $rc)"; }
"$bin" -f --mapping "$data/jvm17-r8.map" "$jvm" -o "$tmp/o.hprof" 2>"$tmp/err"
grep -q "renamed nothing" "$tmp/err" && bad "a warning for a mapping that did match"

"$bin" -q -f -p none --max-held 4K "$jvm" -o "$tmp/o.hprof" || bad "-p none --max-held 4K without a mapping"
"$bin" -q -f -p none --max-held 4K --mapping "$data/jvm17-r8.map" "$jvm" -o "$tmp/o.hprof" 2>"$tmp/err"
rc=$?
[ $rc = 5 ] && grep -q "the mapping would hold more than the limit" "$tmp/err" &&
    ok "--max-held counts the mapping (exit 5, named)" || { cat "$tmp/err" >&2; bad "--max-held with a mapping: exit $rc"; }

"$bin" -q -f --histogram --stats-file "$tmp/h.json" --mapping "$data/jvm17-r8.map" "$jvm" -o "$tmp/o.hprof" 2>/dev/null
grep -q '"class":"com.shop.Holder"' "$tmp/h.json" && ! grep -q '"class":"java.util.ArrayList"' "$tmp/h.json" &&
    ok "--histogram names the original classes" || bad "--histogram with a mapping"

# ---- 3. tests/ext/proguard: a real ProGuard build --------------------------------

pg=$root/build/proguard
if ! have_java || ! command -v proguard >/dev/null 2>&1; then
    skipped "deobf: tests/ext/proguard end to end (needs javac, java and proguard-cli)"
elif ! sh "$root/tests/ext/proguard/run.sh" "$pg" >/dev/null; then
    bad "tests/ext/proguard/run.sh"
else
    cc -std=c11 -O2 -I"$root/src/lib" -o "$tmp/frames" "$root/tests/ext/proguard/frames.c" \
        "$root/build/libhprofstrip.a" -lxxhash -lzstd -lisal -ldeflate -lpthread ||
        bad "building frames"
    strip_lambda() { sed 's/\$\$Lambda\$\([0-9]*\)[+/]0x[0-9a-f]*/$$Lambda$\1/'; }
    $names "$pg/plain.hprof" com.example | strip_lambda >"$tmp/pg.plain"
    $names "$pg/obf.hprof" com.example | strip_lambda >"$tmp/pg.obf"
    FRAMES_OUTER=1 "$tmp/frames" "$pg/obf.hprof" "$pg/mapping.txt" >"$tmp/pg.frames.want"
    "$tmp/frames" "$pg/plain.hprof" >"$tmp/pg.frames.plain"
    for preset in default privacy; do
        out=$tmp/pg-$preset.hprof
        "$bin" -q -f -p $preset --mapping "$pg/mapping.txt" "$pg/obf.hprof" -o "$out" ||
            { bad "proguard -p $preset: exit $?"; continue; }
        $names "$out" com.example | strip_lambda >"$tmp/pg.got"
        # ProGuard merged Warehouse$Picker away: every class left is the plain one
        if [ "$(wc -l <"$tmp/pg.got")" = "$(wc -l <"$tmp/pg.obf")" ] && ! cmp -s "$tmp/pg.got" "$tmp/pg.obf" &&
            [ -z "$(LC_ALL=C comm -23 "$tmp/pg.got" "$tmp/pg.plain")" ]; then
            ok "proguard -p $preset: every class's name and field names are the plain program's"
        else
            diff "$tmp/pg.plain" "$tmp/pg.got" >&2; bad "proguard -p $preset: class and field names"
        fi
        "$tmp/frames" "$out" >"$tmp/pg.frames"
        [ "$(grep -c '^com.example.shop.Warehouse descend' "$tmp/pg.frames")" -ge 40 ] ||
            bad "proguard: no deobfuscated parked stack"
        same "$tmp/pg.frames.want" "$tmp/pg.frames" "proguard -p $preset: stack frames name the original methods"
        [ -z "$(sort -u "$tmp/pg.frames" | LC_ALL=C comm -23 - "$(sort -u "$tmp/pg.frames.plain" >"$tmp/s"; echo "$tmp/s")")" ] ||
            bad "proguard -p $preset: a frame the plain program does not have"
        if [ -x "$ahat" ]; then
            "$ahat" "$pg/plain.hprof" | grep '^class com.example' | grep -v 'Warehouse\$Picker' | strip_lambda >"$tmp/a.want"
            "$ahat" "$out" | grep '^class com.example' | strip_lambda >"$tmp/a.got"
            same "$tmp/a.want" "$tmp/a.got" "proguard -p $preset: ahat's histogram of the program's classes is the plain one"
        fi
        if sh "$vvm" "$pg/plain.hprof" >"$tmp/v.plain" 2>/dev/null; then
            grep '^com.example' "$tmp/v.plain" | grep -v 'Warehouse\$Picker' | strip_lambda >"$tmp/v.want"
            sh "$vvm" "$out" | grep '^com.example' | strip_lambda >"$tmp/v.got"
            same "$tmp/v.want" "$tmp/v.got" "proguard -p $preset: VisualVM's histogram of the program's classes is the plain one"
        fi
    done
fi

finish
