#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/cli/cli_first_hour.sh - what a new user meets first (issue #55): an
# Android output named for the analyzers that open it, sizes that describe
# the file written, messages never cut, output names saying a compression
# this command does not write refused, --to-jvm leaving a JVM's dump as it
# is, and a batch that makes its directory, shows one progress line and
# ends on a summary.
# Usage: sh tests/cli/cli_first_hour.sh ./hprof-strip
set -u
BIN=$(cd "$(dirname "${1:-./hprof-strip}")" && pwd)/$(basename "${1:-./hprof-strip}")
JVM=$(pwd)/fixtures/jvm17-64bit.hprof       # 1.0.2
OLD=$(pwd)/fixtures/jvm7-hprof-agent.hprof  # 1.0.1
ART=$(pwd)/fixtures/android-art2025-ahat-test-dump.hprof   # 1.0.3
NAME=cli_first_hour
. "$(dirname "$0")/../lib.sh"
cd "$T" || exit 1
size() { wc -c <"$1" | tr -d ' '; }

# 1. an Android output says who opens it; --to-jvm, a JVM dump and -q do not
"$BIN" -p default "$ART" -o art.hprof.zst 2>err; rc=$?
expect_rc 0 "Android dump"
expect_grep "Android dump (JAVA PROFILE 1.0.3): Android Studio, ahat and shark open it; MAT and VisualVM need --to-jvm" err "1.0.3 output"
[ "$(grep -c . err)" = 1 ] && ok || bad "the 1.0.3 note is not one line: $(cat err)"
"$BIN" -p default --to-jvm "$ART" -o jvm.hprof.zst 2>err
expect_no_grep "1.0.3" err "--to-jvm output"
"$BIN" -p default "$JVM" -o j.hprof.zst 2>err
expect_no_grep "1.0.3" err "JVM output"
"$BIN" -q -p default "$ART" -o art2.hprof.zst 2>err
expect_empty err "-q on an Android dump"

# 2. sizes as written: --stats' first line and the last progress line
"$BIN" -p default --stats --progress "$JVM" -o s.hprof.zst 2>err; rc=$?
expect_rc 0 "--stats -z"
written=$(size s.hprof.zst); input=$(size "$JVM")
expect_grep "^hprof-strip: $input ([0-9.]* MiB) bytes in, $written ([0-9.]* KiB) written: " err "--stats names the .zst's size"
pct=$(awk -v w="$written" -v i="$input" 'BEGIN { printf "%.1f%%", 100 * w / i }')
expect_grep "written: $pct of the input" err "--stats' ratio is the file's ($pct)"
mb=$(awk -v w="$written" 'BEGIN { printf "%.1f MB written", w / 1e6 }')
expect_grep "in [0-9.]* s, $mb" err "the last progress line names the .zst's size"
expect_no_grep "1909788 ([0-9.]* MiB) out: " err "--stats gave the HPROF size as the output's"
# a plain output: as before
"$BIN" -p default --stats "$JVM" -o p.hprof 2>err
expect_grep "^hprof-strip: $input ([0-9.]* MiB) bytes in, $(size p.hprof) ([0-9.]* MiB) out: " err "--stats, plain"
# an audit writes nothing and says so
"$BIN" --audit --stats "$JVM" >cert 2>err
expect_grep "bytes read, nothing written (an audit)" err "--audit --stats"
expect_no_grep "% of the input" err "--audit --stats gave a ratio"

# 3. a message longer than 320 bytes is whole, in stderr and in the JSON
long=$(printf 'd%.0s' $(seq 1 200))/$(printf 'e%.0s' $(seq 1 200))
mkdir -p "$long"
head -c 2000000 "$JVM" >"$long/cut.hprof"
"$BIN" -p default --stats-file rep.json "$long/cut.hprof" -o cut.hprof 2>err; rc=$?
expect_rc 3 "a cut dump"
expect_grep "bytes are missing) (--salvage writes the complete records before the cut)\$" err "a long message, stderr"
grep -q '"message":"[^"]*(--salvage writes the complete records before the cut)"' rep.json && ok ||
    bad "a long message in the JSON report is cut: $(cat rep.json)"
# ... nor a rule file's, a mapping's or a warning's naming a long path: the
# library's hs_error holds 320 bytes (hs_rules_message has the whole), a
# warning was cut at 240
"$BIN" -p default -r "$long/missing.rules" "$JVM" -o r.hprof 2>err; rc=$?
expect_rc 2 "a missing rule file"
expect_grep "$long/missing.rules: No such file or directory\$" err "a missing rule file, whole"
printf 'bogus rule\n' >"$long/bad.rules"
"$BIN" -p default -r "$long/bad.rules" "$JVM" -o r.hprof 2>err; rc=$?
expect_rc 2 "a bad rule file"
expect_grep "$long/bad.rules:1:1: unknown directive 'bogus' (.*preset)\$" err "a bad rule file, whole"
"$BIN" -p default --mapping "$long/missing.txt" "$JVM" -o m.hprof 2>err; rc=$?
expect_rc 2 "a missing mapping"
expect_grep "mapping $long/missing.txt: No such file or directory\$" err "a missing mapping, whole"
printf 'a -> b:\n    junk\n' >"$long/bad.txt"
"$BIN" -p default --mapping "$long/bad.txt" --stats-file m.json "$JVM" -o m.hprof 2>err; rc=$?
expect_rc 2 "a bad mapping"
expect_grep "$long/bad.txt:2:9: expected a member name after the type\$" err "a bad mapping, whole"
grep -q "\"message\":\"[^\"]*$long/bad.txt:2:9: expected a member name after the type\"" m.json && ok ||
    bad "a bad mapping's message in the JSON report is cut: $(cat m.json)"
printf 'JAVA PROFILE 1.0.2\000\000\000\000\010\000\000\000\000\000\000\000\000' >"$long/noheap.hprof"
printf '\016\000\000\000\000\000\000\000\006\000\000\000\002\000\004' >>"$long/noheap.hprof"
"$BIN" "$long/noheap.hprof" >nh.hprof 2>err; rc=$?
expect_rc 0 "no heap dump, under a long path"
expect_grep "warning: $long/noheap.hprof holds no heap dump (valid HPROF, but no object in it: nothing was stripped)\$" err "a long warning, whole"
"$BIN" --stats-file nh.json "$long/noheap.hprof" >nh.hprof 2>/dev/null
grep -q "\"warnings\":\[\"$long/noheap.hprof holds no heap dump (valid HPROF, but no object in it: nothing was stripped)\"\]" nh.json && ok ||
    bad "a long warning in the JSON report is cut: $(cat nh.json)"
# a mapping renaming a JDK class where values are removed, one that is xz
# data, an input that is xz data or a directory: whole, stderr and JSON
printf 'java.lang.String -> com.company.MyTask:\n    byte coder -> x\n' >"$long/evil.txt"
refused="$long/evil.txt:1: renames java.lang.String, a class of the JDK's or Android's own packages: refused where values are removed, since a mapping may not name the fields kept on purpose (issue #50)"
"$BIN" -p privacy --mapping "$long/evil.txt" --stats-file ev.json "$JVM" -o ev.hprof 2>err; rc=$?
expect_rc 2 "a mapping into java.lang under -p privacy"
expect_grep "$refused\$" err "a refused mapping, whole"
grep -qF "\"message\":\"$refused\"" ev.json && ok || bad "a refused mapping in the JSON report is cut: $(cat ev.json)"
printf '\3757zXZ\000 and more' >"$long/map.xz"
"$BIN" -p default --mapping "$long/map.xz" "$JVM" -o mx.hprof 2>err; rc=$?
expect_rc 2 "a mapping that is xz data"
expect_grep "mapping $long/map.xz: this is xz data, not a heap dump; decompress it first: xz -dc FILE | hprof-strip\$" err "an xz mapping, whole"
cp "$long/map.xz" "$long/in.hprof.xz"
for input in "$long/in.hprof.xz" "$long"; do
    "$BIN" -p default --stats=json "$input" -o in.hprof 2>err; rc=$?
    [ "$input" = "$long" ] && why="$long is a directory; give a heap dump file as INPUT" ||
        why="$input: this is xz data, not a heap dump; decompress it first: xz -dc FILE | hprof-strip"
    [ "$(head -n 1 err)" = "hprof-strip: $why" ] && ok || bad "an input under a long path, stderr: $(head -n 1 err)"
    grep -qF "\"message\":\"$why\"" err && ok || bad "an input under a long path, JSON: $(tail -n 1 err)"
done

# 4. a name saying a compression not written here is a usage error
for ext in bz2 xz lz4 zip; do
    "$BIN" -p default "$JVM" -o "x.hprof.$ext" 2>err; rc=$?
    expect_rc 2 "-o x.hprof.$ext"
    expect_grep "\*.hprof.zst (zstd) or \*.hprof.gz (gzip)" err "-o x.hprof.$ext lists what is written"
    [ -e "x.hprof.$ext" ] && bad "-o x.hprof.$ext wrote a file" || ok
done
"$BIN" -p default --no-compress "$JVM" -o x.hprof.bz2 2>/dev/null; rc=$?
expect_rc 2 "--no-compress -o x.hprof.bz2"

# 5. --to-jvm on a JVM's dump (1.0.2, 1.0.1) leaves it as it is
for d in "$JVM" "$OLD"; do
    "$BIN" --to-jvm "$d" >same.hprof 2>err; rc=$?
    expect_rc 0 "--to-jvm on $(basename "$d")"
    cmp -s same.hprof "$d" && ok || bad "--to-jvm rewrote $(basename "$d") ($(size same.hprof) of $(size "$d") bytes)"
    expect_grep "nothing to convert" err "--to-jvm on $(basename "$d") says so"
    "$BIN" -p default "$d" >def.hprof 2>/dev/null
    "$BIN" -p default --to-jvm "$d" 2>/dev/null | cmp -s - def.hprof && ok ||
        bad "-p default --to-jvm on $(basename "$d") is not -p default"
done
# and still converts an Android one
"$BIN" --to-jvm "$ART" 2>/dev/null | head -c 18 | grep -q "JAVA PROFILE 1.0.2" && ok || bad "--to-jvm on 1.0.3"

# 6. a batch: -o DIR made (0700 for private inputs), one line, a summary
mkdir in; cp "$JVM" "$ART" in/; printf 'JAVA PROFILE 1.0.2\0' >in/bad.hprof
"$BIN" -p default -o out/a/b in/*.hprof 2>err; rc=$?
expect_rc 3 "a batch with a cut input"
[ -d out/a/b ] && ok || bad "-o out/a/b was not made"
[ -s out/a/b/jvm17-64bit.hprof ] && ok || bad "the batch wrote nothing into the new directory"
expect_grep "^hprof-strip: 3 files: 2 done, 1 failed; [0-9.]* MB read, [0-9.]* MB written" err "the batch's summary"
[ "$(grep -c ' files: ' err)" = 1 ] && ok || bad "not one summary line: $(cat err)"
chmod 600 in/*.hprof
"$BIN" -q -p default -o priv in/jvm17-64bit.hprof in/android-art2025-ahat-test-dump.hprof 2>err; rc=$?
expect_rc 0 "a batch of private inputs"
[ "$(stat -c %a priv)" = 700 ] && ok || bad "-o DIR for private inputs made $(stat -c %a priv), not 700"
expect_empty err "-q: no summary"
chmod 644 in/*.hprof
"$BIN" -p default -o pub in/jvm17-64bit.hprof in/android-art2025-ahat-test-dump.hprof 2>/dev/null
[ "$(stat -c %a pub)" != 700 ] && ok || bad "-o DIR for readable inputs made 700"
# --progress -j 2: the batch's lines only, none of a job's own
"$BIN" -p default --progress -j 2 -o prog in/jvm17-64bit.hprof in/android-art2025-ahat-test-dump.hprof 2>err
grep -q "MB/s" err && bad "a job's own progress line in a batch: $(cat err)" || ok
expect_grep "^hprof-strip: 2 of 2 files done, [0-9.]* of [0-9.]* MB" err "the batch's progress line"
expect_grep "running .*jvm17-64bit.hprof" err "the progress line names a running file"
# a --stats=json batch keeps standard error JSON Lines: no summary there
"$BIN" -p default --stats=json -o js in/jvm17-64bit.hprof in/android-art2025-ahat-test-dump.hprof 2>err
expect_no_grep " files: " err "--stats=json: no summary line"
# -o naming a dump, compressed as this command writes or not: refused, made not
for name in x.hprof x.hprof.zst x.hprof.7z out.xz; do
    "$BIN" -q -p default -o "$name" in/jvm17-64bit.hprof in/android-art2025-ahat-test-dump.hprof 2>err; rc=$?
    expect_rc 2 "a batch's -o $name"
    [ -e "$name" ] && bad "a batch's -o $name was made" || ok
done
# a directory that cannot be made: said, exit 4
touch afile
"$BIN" -p default -o afile/sub in/jvm17-64bit.hprof in/android-art2025-ahat-test-dump.hprof 2>err; rc=$?
[ "$rc" = 2 ] || [ "$rc" = 4 ] && ok || bad "-o under a file: exit $rc"
finish
