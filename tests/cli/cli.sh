#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/cli/cli.sh - the command line as users meet it: options, files, exit
# codes, messages on stderr only. Usage: sh tests/cli/cli.sh ./hprof-strip
set -u
BIN=${1:-./hprof-strip}
FIX=fixtures/jvm17-64bit.hprof
NAME=cli
. "$(dirname "$0")/../lib.sh"

# --help and --version go to stdout and succeed
"$BIN" --help >"$T/out" 2>"$T/err"; rc=$?
expect_rc 0 "--help"; expect_grep "Usage:" "$T/out" "--help"; expect_empty "$T/err" "--help stderr"
"$BIN" --version >"$T/out" 2>"$T/err"; rc=$?
expect_rc 0 "--version"; expect_grep "hprof-strip [0-9]" "$T/out" "--version"

# usage errors: exit 2, message on stderr, nothing on stdout
"$BIN" --no-such-option <"$FIX" >"$T/out" 2>"$T/err"; rc=$?
expect_rc 2 "unknown option"; expect_grep "unknown option" "$T/err" "unknown option"
expect_empty "$T/out" "unknown option stdout"
"$BIN" -p nonesuch <"$FIX" >"$T/out" 2>"$T/err"; rc=$?
expect_rc 2 "unknown preset"; expect_grep "nonesuch" "$T/err" "unknown preset"
"$BIN" a b c >"$T/out" 2>"$T/err"; rc=$?
expect_rc 2 "extra argument"

# identity through stdin/stdout, and through named files, with nothing on stderr
"$BIN" -p none <"$FIX" >"$T/out" 2>"$T/err"; rc=$?
expect_rc 0 "identity"; cmp -s "$FIX" "$T/out" && ok || bad "identity differs"
expect_empty "$T/err" "identity stderr"
"$BIN" -p none "$FIX" "$T/named.hprof" 2>"$T/err"; rc=$?
expect_rc 0 "named files"; cmp -s "$FIX" "$T/named.hprof" && ok || bad "named output differs"
"$BIN" -p none - - <"$FIX" >"$T/out"; rc=$?
expect_rc 0 "dash names"; cmp -s "$FIX" "$T/out" && ok || bad "dash output differs"

# -o: existing file refused without -f, replaced with it
"$BIN" -p none -o "$T/named.hprof" <"$FIX" 2>"$T/err"; rc=$?
expect_rc 2 "-o over an existing file"; expect_grep "already exists" "$T/err" "-o existing"
"$BIN" -f -o "$T/named.hprof" <"$FIX" 2>"$T/err"; rc=$?
expect_rc 0 "-o -f"; cmp -s "$FIX" "$T/named.hprof" && bad "-f did not replace" || ok

# bad input: exit 1, offset in the message, no output file left with -o
printf 'this is not a heap dump\n' >"$T/text"
"$BIN" -o "$T/never.hprof" "$T/text" 2>"$T/err"; rc=$?
expect_rc 1 "text input"; expect_grep "text, not an HPROF" "$T/err" "text input"
[ -e "$T/never.hprof" ] && bad "output left behind" || ok
[ "$(ls "$T" | grep -c tmp)" -eq 0 ] && ok || bad "temporary file left behind: $(ls "$T")"
if have_shared ../shared/corpus/bad-corrupt-length-1.hprof "cli: a corrupt corpus dump"; then
    "$BIN" <../shared/corpus/bad-corrupt-length-1.hprof >/dev/null 2>"$T/err"; rc=$?
    expect_rc 1 "corrupt corpus file"; expect_grep "input byte 304367" "$T/err" "corrupt offset"
fi

# truncated input: exit 3 with the offset where the data ends
head -c 1000000 "$FIX" >"$T/cut.hprof"
"$BIN" <"$T/cut.hprof" >/dev/null 2>"$T/err"; rc=$?
expect_rc 3 "truncated"; expect_grep "input byte 1000000: input ends inside" "$T/err" "truncated"

# compression: zstd and gzip out, round trips back through hprof-strip
"$BIN" "$FIX" >"$T/plain.hprof"
"$BIN" -z "$FIX" >"$T/z.zst"; rc=$?
expect_rc 0 "-z"; [ "$(head -c 4 "$T/z.zst" | od -An -tx1 | tr -d ' ')" = 28b52ffd ] && ok || bad "-z output is not zstd"
"$BIN" -p none "$T/z.zst" | cmp -s - "$T/plain.hprof" && ok || bad "zstd round trip differs"
zstd -dc "$T/z.zst" | cmp -s - "$T/plain.hprof" && ok || bad "zstd(1) cannot read -z output"
"$BIN" --gzip=6 -T 2 "$FIX" >"$T/g.gz"; rc=$?
expect_rc 0 "--gzip"
"$BIN" -p none "$T/g.gz" | cmp -s - "$T/plain.hprof" && ok || bad "gzip round trip differs"
gzip -dc "$T/g.gz" | cmp -s - "$T/plain.hprof" && ok || bad "gzip(1) cannot read --gzip output"
# gzip input of many members (as HotSpot -gz writes), and zstd input
head -c 1000000 "$FIX" | gzip -1 >"$T/multi.gz"; tail -c +1000001 "$FIX" | gzip -1 >>"$T/multi.gz"
"$BIN" -p none "$T/multi.gz" | cmp -s - "$FIX" && ok || bad "multi-member gzip input differs"
zstd -q -c "$FIX" | "$BIN" -p none | cmp -s - "$FIX" && ok || bad "zstd input from a pipe differs"
if have_shared ../shared/corpus/jvm11-64bit.hprof.gz "cli: a corpus .gz input"; then
    "$BIN" -p none ../shared/corpus/jvm11-64bit.hprof.gz | cmp -s - "$(gzip -dc ../shared/corpus/jvm11-64bit.hprof.gz >"$T/j11" && echo "$T/j11")" && ok || bad "corpus .gz input"
fi
# -o picks the compression from the name unless told otherwise
"$BIN" -o "$T/named.zst" "$FIX"; zstd -t -q "$T/named.zst" && ok || bad "-o .zst is not zstd"
"$BIN" -o "$T/named.gz" "$FIX"; gzip -t "$T/named.gz" && ok || bad "-o .gz is not gzip"
"$BIN" --no-compress -o "$T/plain.gz" "$FIX"; cmp -s "$T/plain.gz" "$T/plain.hprof" && ok || bad "--no-compress"
# a broken compressed layer is named, exit 4, and no output file is left
head -c 200000 "$T/g.gz" >"$T/cut.gz"
"$BIN" -o "$T/from-cut.hprof" "$T/cut.gz" 2>"$T/err"; rc=$?
expect_rc 3 "truncated gzip"; expect_grep "gzip data is truncated" "$T/err" "truncated gzip"
[ -e "$T/from-cut.hprof" ] && bad "output left after a gzip error" || ok
{ head -c 100 "$T/z.zst"; head -c 5000 /dev/zero; tail -c +5101 "$T/z.zst"; } >"$T/bad.zst"
"$BIN" "$T/bad.zst" >/dev/null 2>"$T/err"; rc=$?
expect_rc 1 "corrupt zstd"; expect_grep "zstd data is corrupt" "$T/err" "corrupt zstd"
head -c 100000 "$T/z.zst" | "$BIN" >/dev/null 2>"$T/err"; rc=$?
expect_rc 3 "truncated zstd"; expect_grep "zstd data is truncated" "$T/err" "truncated zstd"
"$BIN" -z1 "$FIX" | zstd -dc | cmp -s - "$T/plain.hprof" && ok || bad "-z1"
"$BIN" --zstd=99 "$FIX" >/dev/null 2>"$T/err"; rc=$?
expect_rc 2 "bad zstd level"; expect_grep "zstd levels" "$T/err" "bad zstd level"
# -z without a level: 1 for a dump with 8-byte ids, 3 for one with 4-byte
# ids (output.c says why). zstd's output is the same bytes for the same
# level and job size, so the level shows in the bytes.
same_z() { "$BIN" $2 "$1" | cmp -s - "$3"; }
for f in "$FIX" fixtures/jvm7-hprof-agent.hprof fixtures/android-art2025-ahat-test-dump.hprof; do
    "$BIN" -z1 "$f" >"$T/l1.zst"; "$BIN" -z3 "$f" >"$T/l3.zst"
    cmp -s "$T/l1.zst" "$T/l3.zst" && bad "$f: levels 1 and 3 give the same bytes, the test cannot tell"
    if [ "$f" = "$FIX" ]; then want=l1 other=l3; else want=l3 other=l1; fi
    same_z "$f" -z "$T/$want.zst" && ok || bad "$f: -z is not the $want output"
    same_z "$f" -z "$T/$other.zst" && bad "$f: -z is the $other output" || ok
    same_z "$f" "-T 1 -z" "$T/$want.zst" && ok || bad "$f: -T 1 -z is not the $want output"
done
"$BIN" -o "$T/auto.zst" "$FIX"; cmp -s "$T/auto.zst" "$T/z.zst" && ok || bad "-o .zst takes another level than -z"
"$BIN" -z "$FIX" | cmp -s - "$T/z.zst" && ok || bad "-z gives other bytes on a second run"
cat "$FIX" | "$BIN" -z | cmp -s - "$T/z.zst" && ok || bad "-z from a pipe"
# a negative level is a level, not "none given" (it once read as 3)
"$BIN" --zstd=-5 "$FIX" >"$T/m5.zst"
"$BIN" -z3 "$FIX" | cmp -s - "$T/m5.zst" && bad "--zstd=-5 gave level 3" || ok
[ "$(wc -c <"$T/m5.zst")" -gt "$(wc -c <"$T/z.zst")" ] && ok || bad "--zstd=-5 is no larger than -z"
zstd -dc "$T/m5.zst" | cmp -s - "$T/plain.hprof" && ok || bad "--zstd=-5 round trip"

# --to-jvm: an Android dump as 1.0.2
"$BIN" -p none --to-jvm fixtures/android-art2025-ahat-test-dump.hprof >"$T/jvm.hprof"; rc=$?
expect_rc 0 "--to-jvm"; [ "$(head -c 18 "$T/jvm.hprof")" = "JAVA PROFILE 1.0.2" ] && ok || bad "--to-jvm header"

# progress: only when asked (stderr is not a terminal here), on one line
"$BIN" "$FIX" >/dev/null 2>"$T/err"; expect_empty "$T/err" "no progress unless asked"
"$BIN" --progress "$FIX" >/dev/null 2>"$T/err"; expect_grep "MB/s" "$T/err" "--progress"
cat "$FIX" | "$BIN" --progress --size 3737979 >/dev/null 2>"$T/err"; expect_grep "(100%)" "$T/err" "--progress --size"
"$BIN" --progress "$FIX" >/dev/null 2>"$T/err"; expect_grep "(100%)" "$T/err" "--progress on a file read in place"

# privacy: --audit fails the input (exit 7) and passes the output; held
# instances spill to a temporary file and the output stays the same
"$BIN" --audit "$FIX" >"$T/audit" 2>&1; rc=$?
expect_rc 7 "--audit on an unscrubbed dump"; expect_grep "NOT clean" "$T/audit" "--audit report"
"$BIN" -p privacy "$FIX" | "$BIN" --audit >"$T/audit" 2>&1; rc=$?
expect_rc 0 "--audit on a scrubbed dump"; expect_grep "clean" "$T/audit" "--audit report"
"$BIN" --audit -o "$T/x.hprof" "$FIX" >/dev/null 2>&1; rc=$?
expect_rc 2 "--audit with an output"
A=fixtures/android-art2025-ahat-test-dump.hprof
"$BIN" -p privacy "$A" >"$T/p0"
"$BIN" -p privacy --spill-after 1 "$A" >"$T/p1"
cmp -s "$T/p0" "$T/p1" && ok || bad "--spill-after changed the output"

# --salvage: exit 6, a valid output file, and what was lost on stderr
"$BIN" --salvage -o "$T/salvaged.hprof" "$T/cut.hprof" 2>"$T/err"; rc=$?
expect_rc 6 "--salvage"; expect_grep "salvaged" "$T/err" "--salvage message"
[ -s "$T/salvaged.hprof" ] && ok || bad "--salvage left no output"
"$BIN" -p none "$T/salvaged.hprof" >/dev/null 2>"$T/err"; rc=$?
expect_rc 0 "salvaged output reads back"

# I/O errors: exit 4 with a message
"$BIN" "$T/does-not-exist" >/dev/null 2>"$T/err"; rc=$?
expect_rc 4 "missing input"; expect_grep "does-not-exist" "$T/err" "missing input"
if [ -w /dev/full ]; then
    "$BIN" -p none <"$FIX" >/dev/full 2>"$T/err"; rc=$?
    expect_rc 4 "full disk"; expect_grep "No space left" "$T/err" "full disk"
fi
# A regular file is mapped and read in place. Standard input may come
# positioned past its start (here after a line read by the shell).
{ printf 'one line\n'; cat "$FIX"; } >"$T/prefixed"
{ read -r _line; "$BIN" -p none >"$T/out" 2>"$T/err"; echo $? >"$T/rc"; cat >"$T/rest"; } <"$T/prefixed"
rc=$(cat "$T/rc")
expect_rc 0 "stdin at an offset"; cmp -s "$FIX" "$T/out" && ok || bad "stdin at an offset: output differs"
expect_empty "$T/rest" "stdin left at its end, as reading it would"
# (A mapped file that shrinks while being read: tests/cli/cli_safety.sh.)
BIG=build/fresh/jvm-30mb.hprof
# Memory stays flat with a mapped input: the pages behind are given back.
if [ -s "$BIG" ] && [ -x /usr/bin/time ]; then
    # (AddressSanitizer's shadow memory and quarantine add some: a binary
    # built with it gets twice the bound)
    rss_max=32768
    nm "$BIN" 2>/dev/null | grep -q __asan_init && rss_max=65536
    # (the POSIX fallbacks' build, make test-posix, gives no page back:
    # POSIX_MADV_DONTNEED is a hint glibc ignores, so the mapped input may
    # stay resident whole, as src/lib/port.c says)
    [ "${HS_PORT_POSIX:-}" = 1 ] && rss_max=49152
    /usr/bin/time -f %M -o "$T/rss" "$BIN" -p android-app "$BIG" >/dev/null 2>&1
    [ "$(cat "$T/rss")" -lt "$rss_max" ] && ok ||
        bad "peak RSS $(cat "$T/rss") KB for a 30 MB input (bound $rss_max KB)"
fi
# The pager thread (-T above 1, a mapped file) changes page tables only:
# the output is the one-thread output, byte for byte.
if [ -s "$BIG" ]; then
    for p in none default android-app privacy; do
        "$BIN" -T 1 -p $p "$BIG" >"$T/one.hprof" 2>/dev/null
        "$BIN" -T 2 -p $p "$BIG" >"$T/two.hprof" 2>/dev/null
        cmp -s "$T/one.hprof" "$T/two.hprof" && ok || bad "-T 2 -p $p differs from -T 1"
    done
fi

# a file-size limit (as a full disk): exit 4, and no file left with -o
(ulimit -f 100; "$BIN" -p none -o "$T/limited.hprof" "$FIX" 2>"$T/err"; echo $? >"$T/rc")
rc=$(cat "$T/rc")
expect_rc 4 "file-size limit"; expect_grep "File too large" "$T/err" "file-size limit"
[ -e "$T/limited.hprof" ] && bad "output left after a write error" || ok
# a reader that goes away: never a silent success, but no message either:
# the process ends by SIGPIPE as gzip and zstd do (128 + 13 in sh)
("$BIN" -p none <"$FIX"; echo $? >"$T/rc") 2>"$T/err" | head -c 100 >/dev/null
rc=$(cat "$T/rc")
expect_rc 141 "closed pipe"; expect_empty "$T/err" "closed pipe stderr"

# rules: files, presets, printing, errors with FILE:LINE:COL
"$BIN" --print-rules android-app >"$T/aa.rules" 2>"$T/err"; rc=$?
expect_rc 0 "--print-rules"; expect_grep "heap zygote drop" "$T/aa.rules" "--print-rules"
"$BIN" -p none -r "$T/aa.rules" "$FIX" "$T/aa.hprof" 2>"$T/err"; rc=$?
expect_rc 0 "-r with a printed preset"
"$BIN" -p android-app "$FIX" "$T/aa2.hprof" 2>"$T/err"; rc=$?
cmp -s "$T/aa.hprof" "$T/aa2.hprof" && ok || bad "printed preset and preset differ"
printf 'arrays all zero\nheap zygot drop\n' >"$T/bad.rules"
"$BIN" -r "$T/bad.rules" <"$FIX" >"$T/out" 2>"$T/err"; rc=$?
expect_rc 2 "bad rule file"; expect_grep "bad.rules:2:6: unknown heap 'zygot'" "$T/err" "rule error"
expect_empty "$T/out" "bad rule file stdout"
"$BIN" -r "$T/no-such.rules" <"$FIX" >/dev/null 2>"$T/err"; rc=$?
expect_rc 2 "missing rule file"
"$BIN" --stats=json <"$FIX" >/dev/null 2>"$T/err"; rc=$?
expect_rc 0 "--stats=json"; expect_grep '^{"schema":1,.*"bytes_in":3737979,' "$T/err" "--stats=json"
"$BIN" --stats <"$FIX" >/dev/null 2>"$T/err"; rc=$?
expect_grep "strings_dropped .* dropped as unused" "$T/err" "--stats"
"$BIN" --max-held 10K <"$FIX" >/dev/null 2>"$T/err"; rc=$?
expect_rc 5 "--max-held too small"; expect_grep "max-held" "$T/err" "--max-held"

# a terminal on stdout is refused unless forced (script(1) provides one)
if command -v script >/dev/null 2>&1; then
    script -qec "$BIN < $FIX" /dev/null >"$T/tty" 2>&1; rc=$?
    expect_rc 2 "binary to a terminal"; expect_grep "refusing" "$T/tty" "tty refusal"
fi

finish
