#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/cli/cli_obfuscate.sh - --obfuscate-names MAPFILE end to end (#35):
#
#  1. a round trip on every dump here (fixtures, the fresh HotSpot dump and
#     its ART twin, ../shared's corpus): after --obfuscate-names m.txt no
#     application class, field, method or source file name is left in the
#     output (tests/cli/obf_check.py leaks), the class histogram is the input's
#     under the new names, and --mapping m.txt gives every name back: the
#     same classes with the same fields (tests/cli/deobf_names.py), the same
#     stack frames with the same signatures, the same histogram. Under
#     every preset, -z, gzip input, --to-jvm.
#  2. parsers nobody here wrote load the obfuscated dump with the input's
#     counts per class, renamed: VisualVM, and from ../shared ahat and jhat.
#  3. a ProGuard-built program (tests/ext/proguard) obfuscated and restored.
#  4. MAPFILE under the output file rule, the options it cannot go with,
#     stability within a run and between runs, --max-held.
#
#   sh tests/cli/cli_obfuscate.sh ./hprof-strip
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
NAME=cli_obfuscate
. "$(dirname "$0")/../lib.sh"
tmp=$T
root=$(cd "$TESTS/.." && pwd)
# /usr/bin/python3 when there is one: a version manager's shim costs a
# shell script per call, and this suite makes hundreds
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
chk="$py $TESTS/cli/obf_check.py"
names="$py $TESTS/cli/deobf_names.py"
vvm=$root/tools/vvm-histogram.sh
ahat=$root/../shared/tools/ahatsum/ahatsum
jhat=$root/../shared/tools/jhatsum/jhatsum
have_java() { command -v java >/dev/null 2>&1 && command -v javac >/dev/null 2>&1; }

# same FILE1 FILE2 WHAT: the two files are equal, else the diff and a FAIL
same() {
    if diff -u "$1" "$2" >"$tmp/diff"; then ok; else head -20 "$tmp/diff" >&2; bad "$3"; fi
}

# hist DUMP: "CLASS HEAP INSTANCES BYTES" per class of DUMP, by hprof-strip's
# --histogram (the input side, -p none: the dump as it is)
hist() {
    "$bin" -q -f -p none --histogram --stats-file "$tmp/h.json" "$1" -o /dev/null &&
        $py -c 'import json,sys
for r in json.load(open(sys.argv[1]))["histogram"]["input"]:
    print("%s\t%s\t%d\t%d" % (r["class"], r.get("heap", "-"), r["instances"], r["bytes"]))' "$tmp/h.json" |
        LC_ALL=C sort
}

# round DUMP LABEL ARGS...: obfuscate with ARGS, check, restore, compare
round() {
    d=$1; label=$2; shift 2
    rm -f "$tmp/m.txt" "$tmp/o.hprof"* "$tmp/r.hprof"
    out=$tmp/o.hprof
    case " $* " in *" -z "*) out=$tmp/o.hprof.zst ;; esac
    if ! "$bin" -q "$@" --obfuscate-names "$tmp/m.txt" "$d" -o "$out" 2>"$tmp/err"; then
        bad "$label: exit status $?: $(cat "$tmp/err")"; return
    fi
    [ "$out" = "$tmp/o.hprof" ] || zstd -q -d "$out" -o "$tmp/o.hprof" || bad "$label: -z output"
    grep -q ' -> o\.[a-z]*:$' "$tmp/m.txt" && ok || bad "$label: the mapping renames no class"
    # nothing of the keep list renamed
    grep -E '^((java|javax|jdk|sun|com\.sun|android|dalvik|libcore)\.|(boolean|byte|char|short|int|long|float|double|void)(\[\])* |\[)' \
        "$tmp/m.txt" >"$tmp/kept" && bad "$label: kept classes renamed: $(head -3 "$tmp/kept")" || ok
    $chk leaks "$tmp/o.hprof" "$tmp/m.txt" 2>"$tmp/err" && ok || bad "$label: $(head -c 600 "$tmp/err")"
    # the class histogram, renamed back through the mapping, is the input's
    hist "$tmp/o.hprof" >"$tmp/o.hist" || bad "$label: --histogram of the output"
    $chk rename "$tmp/m.txt" <"$tmp/o.hist" >"$tmp/o.hist.r"
    same "$want_hist" "$tmp/o.hist.r" "$label: the histogram, renamed back, is the input's"
    # restored: every name back, field for field, frame for frame
    if ! "$bin" -q -p none --mapping "$tmp/m.txt" "$tmp/o.hprof" -o "$tmp/r.hprof" 2>"$tmp/err"; then
        bad "$label: --mapping on the output: exit $?: $(cat "$tmp/err")"; return
    fi
    $names "$tmp/r.hprof" >"$tmp/r.names" || bad "$label: restored names unreadable"
    same "$want_names" "$tmp/r.names" "$label: --mapping gives every class and field name back"
    $chk frames "$tmp/r.hprof" >"$tmp/r.frames"
    same "$want_frames" "$tmp/r.frames" "$label: --mapping gives every frame back (method, signature, source)"
    hist "$tmp/r.hprof" >"$tmp/r.hist"
    same "$want_hist" "$tmp/r.hist" "$label: the restored histogram is the input's"
}

# wants DUMP: what every round trip of DUMP must give back
wants() {
    want_names=$tmp/want.names; want_frames=$tmp/want.frames; want_hist=$tmp/want.hist
    $names "$1" >"$want_names" && $chk frames "$1" >"$want_frames" && hist "$1" >"$want_hist" ||
        bad "$1: the input's names, frames or histogram unreadable"
}

# ---- 1. round trips ------------------------------------------------------------

dumps=
for d in "$root"/fixtures/*.hprof "$root"/fixtures/*.hprof.gz "$root"/build/fresh/jvm-30mb.hprof \
         "$root"/build/fresh/jvm-30mb-art.hprof; do
    [ -e "$d" ] && dumps="$dumps $d"
done
[ -e "$root/build/fresh/jvm-30mb.hprof" ] || skipped "the fresh dumps (make check makes them)"
if have_shared "$root/../shared/corpus" "cli_obfuscate: the shared corpus"; then
    for d in "$root"/../shared/corpus/*.hprof "$root"/../shared/corpus/*.hprof.gz; do
        case $d in *bad-*|*oom-500mb*) continue ;; esac # corrupt; 500 MB of one array
        [ -e "$d" ] && dumps="$dumps $d"
    done
fi
# HS_TEST_DUMPS=K: K of them (tests/lib.sh; make test samples, test-long not)
# shellcheck disable=SC2086
dumps=$(sample_dumps $dumps)
for d in $dumps; do
    name=$(basename "$d")
    plain=$d
    case $d in *.gz) gzip -dc "$d" >"$tmp/in.hprof"; plain=$tmp/in.hprof ;; esac
    wants "$plain"
    # gzip input read as such (the .gz itself)
    round "$d" "$name -p none" -p none
    # every preset on the fixtures; the corpus and the fresh dumps add
    # writers and sizes, not paths: one preset each
    case $d in "$root"/fixtures/*)
        round "$d" "$name -p default" -p default
        round "$d" "$name -p privacy -z" -p privacy -z ;;
    esac
    if head -c 18 "$plain" | grep -q '1\.0\.3'; then
        # the zygote and image heaps dropped: what must come back is the
        # preset's output without obfuscation
        "$bin" -q -f -p android-app "$d" -o "$tmp/aa.hprof" && wants "$tmp/aa.hprof" &&
            round "$d" "$name -p android-app" -p android-app
        # --to-jvm: the histogram is the converted dump's (no heaps)
        case $d in "$root"/fixtures/*)
            "$bin" -q -f --to-jvm "$plain" -o "$tmp/tj.hprof" && wants "$tmp/tj.hprof" &&
                round "$tmp/tj.hprof" "$name --to-jvm, then obfuscated" -p none
            rm -f "$tmp/tj2.hprof"
            "$bin" -q --to-jvm --obfuscate-names "$tmp/m2.txt" "$plain" -o "$tmp/tj2.hprof" -f &&
                $chk leaks "$tmp/tj2.hprof" "$tmp/m2.txt" 2>"$tmp/err" && ok ||
                bad "$name --to-jvm --obfuscate-names: $(head -c 300 "$tmp/err")"
            rm -f "$tmp/m2.txt" ;;
        esac
    fi
done

# the same names, run after run; only application names move
f=$root/fixtures/jvm17-64bit.hprof
"$bin" -q -f --obfuscate-names "$tmp/a.txt" "$f" -o "$tmp/a.hprof" &&
    "$bin" -q -f --obfuscate-names "$tmp/b.txt" "$f" -o "$tmp/b.hprof" &&
    cmp -s "$tmp/a.txt" "$tmp/b.txt" && cmp -s "$tmp/a.hprof" "$tmp/b.hprof" && ok ||
    bad "two runs give different names or dumps"
grep -q '^com\.company\.MyTask -> o\.[a-z]*:$' "$tmp/a.txt" && ok || bad "com.company.MyTask not renamed"
grep -q '^java\.\|^\[' "$tmp/a.txt" && bad "a kept class in the mapping: $(grep '^java\.\|^\[' "$tmp/a.txt" | head -3)" || ok
grep -q '^# {"id":"sourceFile","fileName":"MyTask.java"}$' "$tmp/a.txt" && ok || bad "MyTask's source file not in the mapping"
grep -q '^    void run() -> a$' "$tmp/a.txt" && ok || bad "MyTask.run not in the mapping: $(cat "$tmp/a.txt")"
$names "$tmp/a.hprof" >"$tmp/a.names" && grep -q '^java.lang.String static=.* fields=.*value' "$tmp/a.names" && ok ||
    bad "java.lang.String lost its field names"
grep -q '<resolved_references>' "$tmp/a.txt" && bad "a JVM field (<resolved_references>) renamed" || ok

# ---- 2. parsers nobody here wrote ---------------------------------------------

for d in "$root/fixtures/jvm17-64bit.hprof" "$root/build/fresh/jvm-30mb.hprof"; do
    [ -e "$d" ] || continue
    name=$(basename "$d")
    rm -f "$tmp/m.txt" "$tmp/o.hprof"
    "$bin" -q -p default --obfuscate-names "$tmp/m.txt" "$d" -o "$tmp/o.hprof" || { bad "$name: exit $?"; continue; }
    if have_java && sh "$vvm" "$d" >"$tmp/v.in" 2>/dev/null; then
        LC_ALL=C sort "$tmp/v.in" >"$tmp/v.want"
        sh "$vvm" "$tmp/o.hprof" >"$tmp/v.o" 2>"$tmp/err" || bad "$name: VisualVM does not load it: $(head -c 300 "$tmp/err")"
        $chk rename "$tmp/m.txt" <"$tmp/v.o" >"$tmp/v.got"
        same "$tmp/v.want" "$tmp/v.got" "$name: VisualVM's histogram is the input's, renamed"
    else
        skipped "$name: VisualVM's parser (needs java and VisualVM's jar)"
    fi
    if have_java && have_shared "$ahat" "cli_obfuscate: ahat's histogram"; then
        "$ahat" "$d" | grep '^class ' | LC_ALL=C sort >"$tmp/a.want"
        "$ahat" "$tmp/o.hprof" | grep '^class ' | $chk rename "$tmp/m.txt" ' ' >"$tmp/a.got"
        same "$tmp/a.want" "$tmp/a.got" "$name: ahat's histogram is the input's, renamed"
    fi
    if have_java && have_shared "$jhat" "cli_obfuscate: jhat's histogram"; then
        "$jhat" "$d" | grep '^class ' | LC_ALL=C sort >"$tmp/j.want"
        "$jhat" "$tmp/o.hprof" | grep '^class ' | $chk rename "$tmp/m.txt" ' ' >"$tmp/j.got"
        same "$tmp/j.want" "$tmp/j.got" "$name: jhat's histogram is the input's, renamed"
    fi
done
art=$root/fixtures/android-art2025-ahat-test-dump.hprof
if have_java && have_shared "$ahat" "cli_obfuscate: ahat on ART"; then
    rm -f "$tmp/m.txt" "$tmp/o.hprof"
    "$bin" -q -p none --obfuscate-names "$tmp/m.txt" "$art" -o "$tmp/o.hprof" || bad "ART: exit $?"
    "$ahat" "$art" | grep '^class \|^heapclass ' | LC_ALL=C sort >"$tmp/a.want"
    "$ahat" "$tmp/o.hprof" | grep '^class \|^heapclass ' | $chk rename "$tmp/m.txt" ' ' >"$tmp/a.got"
    same "$tmp/a.want" "$tmp/a.got" "ART: ahat's histogram by heap is the input's, renamed"
fi

# ---- 3. a ProGuard-built program -----------------------------------------------

pg=$root/build/proguard
if ! have_java || ! command -v proguard >/dev/null 2>&1; then
    skipped "cli_obfuscate: tests/ext/proguard (needs javac, java and proguard-cli)"
elif [ ! -e "$pg/obf.hprof" ] && ! sh "$root/tests/ext/proguard/run.sh" "$pg" >/dev/null; then
    bad "tests/ext/proguard/run.sh"
else
    for d in "$pg/plain.hprof" "$pg/obf.hprof"; do
        wants "$d"
        round "$d" "proguard $(basename "$d")" -p default
        grep -q '^com\.example\.shop\.' "$tmp/m.txt" && ok || bad "proguard: com.example.shop not renamed"
    done
fi

# ---- 4. the file rule, options, limits -------------------------------------------

cd "$tmp" || exit 1
cp "$f" in.hprof
rm -f m.txt o.hprof
"$bin" -q --obfuscate-names o.hprof in.hprof -o o.hprof 2>err; rc=$?
expect_rc 2 "MAPFILE = the output"
expect_grep "name the same file" err "MAPFILE = the output: the message"
[ ! -e o.hprof ] && ok || bad "MAPFILE = the output: something written"
"$bin" -q --obfuscate-names in.hprof in.hprof -o o.hprof 2>err; rc=$?
expect_rc 2 "MAPFILE = the input"
cmp -s in.hprof "$f" && [ ! -e o.hprof ] && ok || bad "MAPFILE = the input: a file changed"
"$bin" -q --obfuscate-names m.txt in.hprof >/dev/null 2>err && [ -s m.txt ] && ok || bad "MAPFILE with the dump on standard output"
echo old >m2.txt
"$bin" -q --obfuscate-names m2.txt in.hprof -o o2.hprof 2>err; rc=$?
expect_rc 2 "an existing MAPFILE without -f"
expect_grep "use -f" err "an existing MAPFILE: the message"
[ "$(cat m2.txt)" = old ] && [ ! -e o2.hprof ] && ok || bad "an existing MAPFILE was replaced, or a dump written"
"$bin" -q -f --obfuscate-names m2.txt in.hprof -o o2.hprof && grep -q ' -> o\.a:$' m2.txt && ok || bad "-f replaces MAPFILE"
cp "$f" dump2.hprof
"$bin" -q -f --obfuscate-names dump2.hprof in.hprof -o o3.hprof 2>err; rc=$?
expect_rc 2 "MAPFILE holding a heap dump, even with -f"
cmp -s dump2.hprof "$f" && ok || bad "a dump was overwritten by a mapping"
"$bin" -q --obfuscate-names m3.txt --mapping m.txt in.hprof -o o4.hprof 2>err; rc=$?
expect_rc 2 "--obfuscate-names with --mapping"
"$bin" -q --obfuscate-names m3.txt --audit in.hprof 2>err; rc=$?
expect_rc 2 "--obfuscate-names with --audit"
head -c 2000000 in.hprof >cut.hprof
"$bin" -q --obfuscate-names m4.txt cut.hprof -o o5.hprof 2>err; rc=$?
expect_rc 3 "a truncated input"
[ ! -e m4.txt ] && [ ! -e o5.hprof ] && ok || bad "a failed run left a mapping or a dump"
no_temp . "a failed run"
"$bin" -q --salvage --obfuscate-names m5.txt cut.hprof -o o6.hprof 2>err; rc=$?
expect_rc 6 "--salvage on a truncated input"
[ -s m5.txt ] && $chk leaks o6.hprof m5.txt 2>err && ok || bad "--salvage: no mapping, or names left: $(head -c 300 err)"
# the names held count under --max-held: what -p default alone takes in
# 500k does not fit with the names beside it
art=$root/fixtures/android-art2025-ahat-test-dump.hprof
"$bin" -q -p default --max-held 500k "$art" -o o7a.hprof 2>err && ok || bad "-p default in 500k: $(cat err)"
"$bin" -q -p default --max-held 500k --obfuscate-names m6.txt "$art" -o o7.hprof 2>err; rc=$?
expect_rc 5 "--max-held: the names count"
expect_grep "memory held would pass the limit" err "--max-held: the message"
[ ! -e m6.txt ] && [ ! -e o7.hprof ] && ok || bad "--max-held: a mapping or a dump written"
"$bin" -q -z --obfuscate-names m7.txt "$root/fixtures/jvm17-jcmd-gz1.hprof.gz" -o o8.hprof.zst &&
    zstd -q -d o8.hprof.zst -o o8.hprof && $chk leaks o8.hprof m7.txt 2>err && ok || bad "gzip in, zstd out: $(head -c 300 err)"
"$bin" --help | grep -q -- '--obfuscate-names MAPFILE' && ok || bad "--help lacks --obfuscate-names"
cd "$root" || exit 1

finish
