#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/cli/cli_args.sh - a command line without surprises (issue #14): options
# that look like something else, conflicting options, -q, the progress
# display, rule-file and preset messages, the size hint for a plain
# output, --timeout's argument and its bound on a report FIFO's open,
# --obfuscate-names -, and every exit status documented.
# Usage: sh tests/cli/cli_args.sh ./hprof-strip
set -u
BIN=$(cd "$(dirname "${1:-./hprof-strip}")" && pwd)/$(basename "${1:-./hprof-strip}")
JVM=$(pwd)/fixtures/jvm17-64bit.hprof       # 1.0.2; default output about half its size
ART=$(pwd)/fixtures/android-art2025-ahat-test-dump.hprof   # 1.0.3; default keeps ~100%
NAME=cli_args
. "$(dirname "$0")/../lib.sh"
cd "$T" || exit 1
# FILE holds nothing but the note an Android (1.0.3) output gets (issue #55)
expect_only_android_note() {
    grep -v 'an Android dump (JAVA PROFILE 1.0.3): Android Studio, ahat and shark open it' "$1" >"$1.rest"
    expect_empty "$1.rest" "$2"
}

# 1. --to-jvm alone converts and changes nothing else (preset none)
"$BIN" -p none --to-jvm "$ART" >none-jvm.hprof 2>err; rc=$?
expect_rc 0 "-p none --to-jvm"
"$BIN" --to-jvm "$ART" >jvm.hprof 2>err; rc=$?
expect_rc 0 "--to-jvm"; cmp -s jvm.hprof none-jvm.hprof && ok || bad "--to-jvm alone is not -p none --to-jvm"
"$BIN" -p default --to-jvm "$ART" >def-jvm.hprof 2>/dev/null
cmp -s jvm.hprof def-jvm.hprof && bad "--to-jvm alone zeroed the arrays" || ok
expect_no_grep "JVM dump" err "--to-jvm on an Android dump warns"
# wherever --to-jvm stands: on top of none
"$BIN" "$ART" --to-jvm 2>/dev/null | cmp -s - none-jvm.hprof && ok || bad "--to-jvm last: not on top of none"
# a rule file means the same with and without --to-jvm (issue #35): on top
# of default either way, so `fields zero` alone zeroes the arrays too
printf 'fields zero\n' >f.rules
"$BIN" -r f.rules --to-jvm "$ART" >f-jvm.hprof 2>/dev/null
"$BIN" -p default -r f.rules --to-jvm "$ART" 2>/dev/null | cmp -s - f-jvm.hprof && ok || bad "-r f.rules --to-jvm: not on top of default"
"$BIN" --to-jvm -r f.rules "$ART" 2>/dev/null | cmp -s - f-jvm.hprof && ok || bad "--to-jvm -r f.rules: not as -r f.rules --to-jvm"
"$BIN" -p none -r f.rules --to-jvm "$ART" 2>/dev/null | cmp -s - f-jvm.hprof && bad "-r f.rules --to-jvm kept the arrays" || ok
zeroed() { sed -n 's/.*"payload_bytes_zeroed":\([0-9]*\).*/\1/p' "$1"; }
"$BIN" -r f.rules "$ART" --stats-file plain.json >/dev/null 2>&1
"$BIN" -r f.rules --to-jvm "$ART" --stats-file jvm.json >/dev/null 2>&1
[ -n "$(zeroed plain.json)" ] && [ "$(zeroed plain.json)" -gt 0 ] && [ "$(zeroed plain.json)" = "$(zeroed jvm.json)" ] && ok ||
    bad "fields zero: -r zeroes $(zeroed plain.json) array bytes, --to-jvm -r $(zeroed jvm.json)"
# on a JVM dump there is nothing to convert: a warning, exit 0, -q silences it
"$BIN" --to-jvm "$JVM" >/dev/null 2>err; rc=$?
expect_rc 0 "--to-jvm on a JVM dump"; expect_grep "nothing to convert" err "--to-jvm on a JVM dump"
"$BIN" -p android-app "$JVM" >/dev/null 2>err; rc=$?
expect_rc 0 "-p android-app on a JVM dump"; expect_grep "android-app: .* is a JVM dump" err "-p android-app on a JVM dump"
"$BIN" -p android-app "$ART" >/dev/null 2>err
expect_only_android_note err "-p android-app on an Android dump"
gzip -1c "$JVM" | "$BIN" -q --to-jvm -p android-app >/dev/null 2>err; rc=$?
expect_rc 0 "-q on a JVM dump"; expect_empty err "-q --to-jvm -p android-app"
gzip -1c "$JVM" | "$BIN" --to-jvm >/dev/null 2>err
expect_grep "stdin is a JVM dump already" err "--to-jvm on a gzip'd JVM dump from a pipe"

# 2. a level as a separate word is a file name to getopt: say what was meant
"$BIN" -z 19 <"$JVM" >out 2>err; rc=$?
expect_rc 2 "-z 19"; expect_grep "did you mean -z19?" err "-z 19"; expect_empty out "-z 19 stdout"
"$BIN" --zstd 5 "$JVM" >out 2>err; rc=$?
expect_rc 2 "--zstd 5"; expect_grep "did you mean --zstd=5?" err "--zstd 5"
"$BIN" --gzip 9 <"$JVM" >out 2>err; rc=$?
expect_rc 2 "--gzip 9"; expect_grep "did you mean --gzip=9?" err "--gzip 9"
"$BIN" "$JVM" -z 19 2>err; rc=$?
expect_rc 2 "-z 19 after the input"; expect_grep "did you mean -z19? (./19 names a file)" err "-z 19 as output"
[ -e 19 ] && bad "-z 19 after the input wrote a file named 19" || ok
"$BIN" "$JVM" -z ./19 2>err; rc=$?
expect_rc 0 "-z ./19"; rm -f 19
cp "$JVM" 19   # a file that is named 19 is a file
"$BIN" -z 19 >out 2>err; rc=$?
expect_rc 0 "-z with an input named 19"
"$BIN" -z -o x.gz "$JVM" 2>err; rc=$?
expect_rc 2 "-z -o x.gz"; expect_grep "writes zstd, but the name 'x.gz' says gzip" err "-z -o x.gz"
[ -e x.gz ] && bad "-z -o x.gz wrote x.gz" || ok
"$BIN" --gzip "$JVM" x.zst 2>err; rc=$?
expect_rc 2 "--gzip into x.zst"; expect_grep "says zstd" err "--gzip into x.zst"
"$BIN" --no-compress -o plain.gz "$JVM" 2>err; rc=$?
expect_rc 0 "--no-compress -o plain.gz (documented: plain whatever the name)"
"$BIN" -z -o ok.zst "$JVM" 2>err; rc=$?
expect_rc 0 "-z -o ok.zst"
"$BIN" -o a.hprof -o b.hprof "$JVM" 2>err; rc=$?
expect_rc 2 "-o twice"; expect_grep "-o given twice" err "-o twice"
[ -e a.hprof ] || [ -e b.hprof ] && bad "-o twice wrote a file" || ok
"$BIN" -z --gzip "$JVM" >out 2>err; rc=$?
expect_rc 2 "-z --gzip"; expect_grep "choose one of -z and --gzip" err "-z --gzip"
"$BIN" --gzip=3 --zstd "$JVM" >out 2>err; rc=$?
expect_rc 2 "--gzip --zstd"; expect_grep "choose one of --gzip and -z" err "--gzip --zstd"
"$BIN" -z3 -z5 "$JVM" >out 2>err; rc=$?
expect_rc 0 "-z twice (the last level)"

# 3. -q: only errors reach stderr; --audit's status still tells
"$BIN" --audit -q "$JVM" >out 2>err; rc=$?
expect_rc 7 "--audit -q on data"; expect_empty out "--audit -q stdout"; expect_empty err "--audit -q stderr"
"$BIN" -p privacy "$JVM" | "$BIN" --audit -q >out 2>err; rc=$?
expect_rc 0 "--audit -q on a clean dump"; expect_empty out "--audit -q clean stdout"
head -c 2000000 "$JVM" | "$BIN" --salvage -q >out 2>err; rc=$?
expect_rc 6 "--salvage -q"; expect_empty err "--salvage -q stderr"
head -c 2000000 "$JVM" | "$BIN" --salvage >out 2>err
expect_grep "salvaged" err "--salvage without -q says so"
head -c 2000000 "$JVM" | "$BIN" -q >out 2>err; rc=$?
expect_rc 3 "-q on a truncated input"; expect_grep "input ends inside" err "-q keeps errors"

# 4. progress: plain lines when not on a terminal, one every few seconds
"$BIN" --progress "$JVM" >/dev/null 2>log
if grep -q "$(printf '\r')" log || grep -q "$(printf '\033')" log; then bad "--progress 2>log has \\r or escapes: $(od -c log | head -3)"; else ok; fi
expect_grep "(100%).* in [0-9.]* s, [0-9.]* MB written ([0-9.]*%)$" log "--progress 2>log final line"
{ head -c 1000000 "$JVM"; sleep 6; tail -c +1000001 "$JVM"; } |
    "$BIN" --progress --size 3737979 >/dev/null 2>log
[ "$(grep -c 'MB/s' log)" -eq 2 ] && ok || bad "--progress 2>log: want one line during the 6 s wait, one at the end: $(cat log)"
# on a terminal (script(1) makes one, 40 columns): lines fit, and an error
# starts on a clean line with no final figures after it
if command -v script >/dev/null 2>&1; then
    cat >slow.sh <<EOS
stty cols 40 2>/dev/null
{ head -c 1000000 "$JVM"; sleep 1; tail -c +1000001 "$JVM"; } | "$BIN" --size 3737979 >/dev/null
{ head -c 1000000 "$JVM"; sleep 1; } | "$BIN" >/dev/null
exit 0
EOS
    script -qec "sh slow.sh" /dev/null >tty 2>&1
    tr '\r' '\n' <tty | sed 's/\x1b\[K//g' >tty.lines
    expect_grep "MB/s" tty.lines "progress on a terminal"
    grep -v "stdin:" tty.lines | awk 'length($0) > 39 { print; n++ } END { exit n > 0 }' >wide &&
        ok || bad "progress wider than 39 columns: $(cat wide)"
    expect_grep "^hprof-strip: stdin: input byte 1000000" tty.lines "error on a line of its own"
    awk '/stdin: input byte/ { e = 1; next } e && /MB/ { n++ } END { exit n > 0 }' tty.lines &&
        ok || bad "a progress line after the error: $(cat tty.lines)"
fi

# 5. rule files and presets: messages that say what is right
mkdir rdir
"$BIN" -r rdir "$JVM" >out 2>err; rc=$?
expect_rc 2 "-r DIR"; expect_grep "rdir: Is a directory" err "-r DIR"
printf '\357\273\277# from a Windows editor\narrays char,  byte zero\nroots debuger drop\n' >bom.rules
"$BIN" -r bom.rules "$JVM" >out 2>err; rc=$?
expect_rc 2 "bad root kind"; expect_grep "bom.rules:3:7: unknown root kind 'debuger' (all, or a list of: .*debugger" err "root kinds listed"
printf '\357\273\277arrays char,  byte zero\n' >ok.rules
"$BIN" -r ok.rules "$JVM" >out 2>err; rc=$?
expect_rc 0 "BOM and spaced list"
printf 'arrays all prefix 4294967296\n' >big.rules
"$BIN" -r big.rules "$JVM" >out 2>err; rc=$?
expect_rc 2 "prefix beyond u4"; expect_grep "prefix takes" err "prefix beyond u4"
"$BIN" --print-rules >out 2>err; rc=$?
expect_rc 0 "--print-rules alone"; expect_grep "^privacy .*primitive field" out "--print-rules lists presets"
expect_grep "^android-app " out "--print-rules lists android-app"
"$BIN" --print-rules nosuch >out 2>err; rc=$?
expect_rc 2 "--print-rules nosuch"
expect_grep "unknown preset 'nosuch'; presets: none, default, privacy, android-app" err "--print-rules nosuch"
expect_no_grep "preset:1:1" err "--print-rules nosuch: no rule-text position"
"$BIN" -p nosuch "$JVM" >out 2>err; rc=$?
expect_rc 2 "-p nosuch"; expect_grep "unknown preset 'nosuch'; presets:" err "-p nosuch"

# 6. a plain output file as big as its input: say how to get it small, once
"$BIN" "$ART" >big.hprof 2>err; rc=$?
expect_rc 0 "default on an Android dump"; expect_grep "compress it: -z" err "size hint"
[ "$(grep -c 'compress it' err)" -eq 1 ] && ok || bad "size hint more than once: $(cat err)"
"$BIN" "$ART" -o big2.hprof 2>err
expect_grep "compress it" err "size hint with -o"
"$BIN" -q "$ART" >big3.hprof 2>err; expect_empty err "size hint with -q"
"$BIN" "$ART" 2>err | cat >/dev/null; expect_only_android_note err "size hint to a pipe"
"$BIN" -o small.hprof.zst "$ART" 2>err; expect_only_android_note err "size hint with compression"
"$BIN" -p none "$ART" >same.hprof 2>err; expect_only_android_note err "size hint with -p none"
"$BIN" "$JVM" >half.hprof 2>err; expect_empty err "size hint for a half-size output"
"$BIN" --stats=json "$ART" >big4.hprof 2>err
[ "$(wc -l <err)" -eq 1 ] && ok || bad "--stats=json: more than the JSON: $(cat err)"

# 7. keep-field rules that keep nothing are told at the end (not those of a
# preset: privacy's String.coder is not in every dump), and counted
printf 'preset privacy\nkeep-field java.lang.Nope.x\nkeep-field java.lang.Thread.name\nkeep-field java.lang.Thread.priority\n' >kf.rules
"$BIN" -r kf.rules "$JVM" --stats-file kf.json >kf.hprof 2>err; rc=$?
expect_rc 0 "keep-field warnings"
expect_grep "warning: keep-field java.lang.Nope.x: no class of the dump declares that field" err "unmatched keep-field"
expect_grep "warning: keep-field java.lang.Thread.name: a reference field" err "reference keep-field"
expect_no_grep "Thread.priority" err "a keep-field that kept something"
expect_grep '"keep_fields_unmatched":1,"keep_fields_reference":1' kf.json "keep-field counters"
expect_grep '"warnings":\["keep-field java.lang.Nope.x' kf.json "keep-field warnings in the JSON"
"$BIN" -q -r kf.rules "$JVM" >kf.hprof 2>err; expect_empty err "keep-field warnings with -q"
"$BIN" -p privacy "$ART" >kf.hprof 2>err; expect_no_grep "keep-field" err "a preset's keep-field"
printf 'keep-field java.lang.Thread.priority\n' >kf2.rules
"$BIN" -r kf2.rules "$JVM" >kf.hprof 2>err
expect_grep "keep-field java.lang.Thread.priority: fields are not zeroed" err "keep-field without fields zero"
"$BIN" -p privacy "$JVM" --stats-file kf.json >kf.hprof 2>err
expect_grep '"keep_fields_unmatched":0,"keep_fields_reference":0' kf.json "no keep-field counted"
expect_grep '"warnings":\[\]' kf.json "no warning in the JSON"

# 8. a dump that holds no heap dump is valid (exit 0) but always told, also
# in the JSON report; -q keeps stderr empty, not the report. (One with no
# record a profiler writes was cut before its heap dump: exit 3, below.)
printf 'JAVA PROFILE 1.0.2\000\000\000\000\010\000\000\000\000\000\000\000\000' >cutheap.hprof
printf '\016\000\000\000\000\000\000\000\006\000\000\000\002\000\004' | cat cutheap.hprof - >noheap.hprof
"$BIN" noheap.hprof --stats-file nh.json >nh.hprof 2>err; rc=$?
expect_rc 0 "a dump without a heap dump"
expect_grep "warning: noheap.hprof holds no heap dump" err "no heap dump warned"
expect_grep '"warnings":\["noheap.hprof holds no heap dump' nh.json "no heap dump in the JSON"
"$BIN" -q noheap.hprof --stats-file nh.json >nh.hprof 2>err; rc=$?
expect_rc 0 "no heap dump, -q"; expect_empty err "no heap dump with -q"
expect_grep '"warnings":\["noheap.hprof holds no heap dump' nh.json "no heap dump in the JSON with -q"
"$BIN" "$JVM" --stats-file nh.json >nh.hprof 2>err
expect_no_grep "holds no heap dump" err "a dump with a heap dump"
# a heap dump cut before its first heap record (a header alone here; the
# fixture cut there in cli_report.sh) is a cut, told by the exit status
# even with -q, and --salvage completes it (exit 0 and a warning before)
"$BIN" -q cutheap.hprof >nh.hprof 2>err; rc=$?
expect_rc 3 "a dump cut before its heap dump"
expect_grep "cut before its heap dump (--salvage writes" err "cut before the heap dump: said, --salvage named"
"$BIN" -q --salvage cutheap.hprof >nh.hprof 2>err; rc=$?
expect_rc 6 "a dump cut before its heap dump, --salvage"

# 9. --timeout SECONDS: a decimal number, nothing else (strtod took hex,
# a leading space, and turned 1e-400 into 0: no deadline); 0 is no
# deadline; a nanosecond to a week. Checked before --help is reached.
zeros=$(printf '%0400d' 0)
for a in 0x10 " 5" "5 " 1e-400 1e3 inf -1 +5 . "" 5s 604801 604800.5 0.0000000001 "0.${zeros}1"; do
    "$BIN" --timeout "$a" --help >out 2>err; rc=$?
    expect_rc 2 "--timeout '$a'"
    [ ${#a} -lt 40 ] && expect_grep "'$a'" err "--timeout '$a' named"
    expect_empty out "--timeout '$a': help printed"
done
for a in 30 0.5 .5 5. 0 0.0 000 604800 0.000000001; do
    "$BIN" --timeout "$a" --help >out 2>err; rc=$?
    expect_rc 0 "--timeout '$a'"
done
expect_grep "up to 604800, a week" out "--help gives --timeout's cap"
"$BIN" -q --timeout 0 "$JVM" -o /dev/null 2>err; rc=$?
expect_rc 0 "--timeout 0 is no deadline"
"$BIN" -q --timeout 0.000000001 --stats-file tiny.json "$JVM" -o tiny.hprof 2>err; rc=$?
expect_rc 124 "--timeout of a nanosecond"
expect_grep '"status":"timeout"' tiny.json "--timeout of a nanosecond: the report"

# 10. --timeout bounds the open of a --stats-file FIFO nobody reads (the
# open waited for a reader, the deadline not yet running)
mkfifo report.fifo
t0=$(date +%s)
timeout -s KILL 60 "$BIN" -q --timeout 1 --stats-file report.fifo "$JVM" -o fifo.hprof 2>err; rc=$?
t1=$(date +%s)
expect_rc 124 "--timeout 1, --stats-file a FIFO nobody reads"
[ $((t1 - t0)) -le 30 ] && ok || bad "--timeout 1, a FIFO nobody reads: ended after $((t1 - t0)) s"
expect_grep "stopped by --timeout 1" err "--timeout 1, a FIFO nobody reads: said"
[ ! -e fifo.hprof ] && ok || bad "--timeout 1, a FIFO nobody reads: output written"

# 11. --obfuscate-names -: the mapping to standard output, when the dump is
# not going there (a file named '-' is what nobody means)
"$BIN" -q --obfuscate-names - "$JVM" >ob.out 2>err; rc=$?
expect_rc 2 "--obfuscate-names - with the dump on standard output"
expect_grep "takes the dump" err "--obfuscate-names -: why"
[ ! -e ./- ] && ok || bad "--obfuscate-names - wrote a file named -"
"$BIN" -q --obfuscate-names - "$JVM" -o ob.hprof >ob.map 2>err; rc=$?
expect_rc 0 "--obfuscate-names - -o FILE"
[ ! -e ./- ] && ok || bad "--obfuscate-names - -o FILE wrote a file named -"
"$BIN" -q --obfuscate-names file.map "$JVM" -o ob2.hprof 2>err
cmp -s ob.map file.map && ok || bad "--obfuscate-names -: not the mapping a file gets"
cmp -s ob.hprof ob2.hprof && ok || bad "--obfuscate-names -: not the dump a file's run writes"
"$BIN" -q --mapping ob.map ob.hprof -o back.hprof 2>err; rc=$?
expect_rc 0 "--mapping of --obfuscate-names -'s output"
"$BIN" -q --obfuscate-names - --stats-file - "$JVM" -o ob3.hprof >ob3.out 2>err; rc=$?
expect_rc 2 "--obfuscate-names - --stats-file -"
[ ! -e ob3.hprof ] && ok || bad "--obfuscate-names - --stats-file -: the dump written"

# 12. every exit status of the library's table (HS_EXIT_*) is in the man
# page's EXIT STATUS and in --help (8 was in the batch order alone)
codes=$(sed -n 's/^ *HS_EXIT_[A-Z_]* = \([0-9]*\).*/\1/p' "$TESTS/../src/lib/hprof_strip.h")
[ "$(echo $codes | wc -w)" -ge 9 ] && ok || bad "HS_EXIT_* codes read: '$codes'"
sed -n '/^\.SH EXIT STATUS/,/^\.SH [A-Z]/p' "$TESTS/../man/hprof-strip.1" >exit.man
"$BIN" --help | sed -n '/^Exit status:/,$p' | tr '\n' ' ' >exit.help
for c in $codes; do
    expect_grep "^\.B $c\$" exit.man "man page EXIT STATUS, $c"
    expect_grep "[:,] $c [a-z-]" exit.help "--help's exit status, $c"
done

finish
