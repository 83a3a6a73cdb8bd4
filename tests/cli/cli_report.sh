#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/cli/cli_report.sh - the JSON report (--stats-file, --stats=json, --audit)
# checked field by field against schema 1 (tests/cli/report_schema.py, which
# reads the counter list from src/lib/hprof_strip.h), on real runs that succeed,
# fail, are salvaged and audit; and the --stats table.
# Usage: sh tests/cli/cli_report.sh ./hprof-strip
set -u
BIN=${1:-./hprof-strip}
FIX=fixtures/jvm17-64bit.hprof
SIZE=3737979
NAME=cli_report
. "$(dirname "$0")/../lib.sh"
# schema DESCRIPTION FILE [KEY=JSON...]: the report fits schema 1 and holds these values
schema() {
    what=$1; shift
    if python3 tests/cli/report_schema.py src/lib/hprof_strip.h "$@" >"$T/schema.out"; then ok
    else bad "$what: $(cat "$T/schema.out")"; fi
}

# a corrupt dump: an unknown sub-record tag first thing in the heap dump
# (input byte 1999667, in the HEAP_DUMP_SEGMENT at 1999658), and a cut one
python3 - "$FIX" "$T" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
open(sys.argv[2] + "/cut.hprof", "wb").write(d[:2000000])
p = 31
while d[p] not in (0x0C, 0x1C):
    p += 9 + struct.unpack(">I", d[p + 5:p + 9])[0]
d[p + 9] = 0x77
open(sys.argv[2] + "/corrupt.hprof", "wb").write(d)
PY
printf 'arrays all zero\n' >"$T/my.rules"

# ok: gzip in, zstd out, a preset and a rule file; nothing on stderr
gzip -c "$FIX" >"$T/in.gz"
"$BIN" -p privacy -r "$T/my.rules" --stats-file "$T/ok.json" -o "$T/out.zst" "$T/in.gz" \
    2>"$T/err"; rc=$?
expect_rc 0 "ok run"; expect_empty "$T/err" "ok run stderr"
schema "ok run" "$T/ok.json" exit_status=0 error=null mode='"filter"' \
    input.name="\"$T/in.gz\"" input.compression='"gzip"' \
    input.compressed_bytes="$(wc -c <"$T/in.gz")" input.hprof_bytes=$SIZE \
    output.name="\"$T/out.zst\"" output.compression='"zstd"' \
    output.compressed_bytes="$(wc -c <"$T/out.zst")" \
    output.hprof_bytes="$(zstd -dc "$T/out.zst" | wc -c)" \
    presets='["privacy"]' rule_files="[\"$T/my.rules\"]" \
    counters.bytes_in=$SIZE counters.first_nonzero_field=2000689 counters.salvaged_bytes=0 \
    audit=null tool.name='"hprof-strip"'

# stdin to stdout, the default preset: offsets that do not exist are null
"$BIN" --stats-file "$T/def.json" <"$FIX" >"$T/out" 2>"$T/err"; rc=$?
expect_rc 0 "default run"; expect_empty "$T/err" "default run stderr"
schema "default run" "$T/def.json" input.name=null output.name=null input.compression=null \
    input.compressed_bytes=null output.compressed_bytes=null presets='["default"]' \
    rule_files='[]' counters.nonzero_field_bytes=0 counters.first_nonzero_field=null \
    output.hprof_bytes="$(wc -c <"$T/out")"

# a corrupt dump: exit 1, the report says where, the -o file is not made
"$BIN" --stats-file "$T/bad.json" -o "$T/bad.hprof" "$T/corrupt.hprof" 2>"$T/err"; rc=$?
expect_rc 1 "corrupt run"; expect_grep "unknown heap sub-record tag 0x77" "$T/err" "corrupt msg"
[ ! -e "$T/bad.hprof" ] && ok || bad "corrupt run left its output"
schema "corrupt run" "$T/bad.json" exit_status=1 error.status='"malformed"' error.code=-1 \
    error.offset=1999667 error.record_offset=1999658 error.tag=28 error.subtag=null

# cut short: exit 3; salvaged: exit 6, with the cut described
"$BIN" --stats-file "$T/cut.json" "$T/cut.hprof" >/dev/null 2>"$T/err.cut"; rc=$?
expect_rc 3 "truncated run"
schema "truncated run" "$T/cut.json" exit_status=3 error.status='"truncated"' \
    error.offset=2000000 error.record_offset=1999658
"$BIN" --salvage --stats-file "$T/salv.json" "$T/cut.hprof" >"$T/out" 2>"$T/err"; rc=$?
expect_rc 6 "salvaged run"
schema "salvaged run" "$T/salv.json" exit_status=6 error.status='"truncated"' \
    counters.bytes_out="$(wc -c <"$T/out")"
grep -q '"salvaged_bytes":' "$T/salv.json" && ok || bad "salvaged_bytes not reported"

# a failure before any byte is read: no place in the input
"$BIN" --stats-file "$T/nofile.json" "$T/no-such.hprof" >/dev/null 2>"$T/err"; rc=$?
expect_rc 4 "missing input"
schema "missing input" "$T/nofile.json" exit_status=4 error.status='"read"' error.offset=null \
    error.record_offset=null error.tag=null counters.bytes_in=0
# a report that cannot be written stops the run before it starts
"$BIN" --stats-file "$T/no-dir/x.json" <"$FIX" >"$T/out" 2>"$T/err"; rc=$?
expect_rc 4 "unwritable --stats-file"; expect_grep "no-dir/x.json" "$T/err" "--stats-file msg"
expect_empty "$T/out" "unwritable --stats-file stdout"

# --audit: the same document, the verdict in "audit", no output
"$BIN" --audit --stats-file "$T/audit.json" "$FIX" >"$T/out" 2>"$T/err"; rc=$?
expect_rc 7 "audit run"; expect_empty "$T/err" "audit stderr"
schema "audit run" "$T/audit.json" exit_status=7 error=null mode='"audit"' output=null \
    presets='["privacy"]' audit.clean=false audit.nonzero_array_bytes=206381 \
    audit.first_nonzero_array=2170066 audit.unused_strings=37901
"$BIN" -p privacy "$FIX" "$T/priv.hprof" 2>/dev/null
"$BIN" --audit --stats=json "$T/priv.hprof" >"$T/out" 2>"$T/audit.err"; rc=$?
expect_rc 0 "audit of a scrubbed dump"
schema "audit --stats=json" "$T/audit.err" exit_status=0 audit.clean=true \
    audit.first_nonzero_array=null audit.first_nonzero_field=null

# --stats=json: the same document, the last line of stderr
"$BIN" --stats=json <"$FIX" >/dev/null 2>"$T/json.err"; rc=$?
expect_rc 0 "--stats=json"; schema "--stats=json" "$T/json.err" counters.bytes_in=$SIZE

# ---- issue #33 item 6: a report to trust ---------------------------------
# (each check below fails on the old main, except where said)

# an output like every other: written beside, renamed into place, so a
# second link to the old report keeps the old one (fopen "w" truncated it)
echo '{"earlier": "report"}' >"$T/old.json"
ln "$T/old.json" "$T/old-link.json"
"$BIN" --stats-file "$T/old.json" "$FIX" -o "$T/o1.hprof" 2>"$T/err"; rc=$?
expect_rc 0 "report over an earlier one"
expect_grep '"earlier": "report"' "$T/old-link.json" "the earlier report's other link untouched"
schema "report over an earlier one" "$T/old.json" exit_status=0 output.kept=true
no_temp "$T" "report over an earlier one"
# ... and never over a file that appeared while the run went on (without
# -f): the run's report is dropped, exit 4, the newcomer stays as it was
rm -f "$T/in.fifo" "$T/late.json"
mkfifo "$T/in.fifo"
"$BIN" --stats-file "$T/late.json" -o "$T/o2.hprof" "$T/in.fifo" 2>"$T/err" &
pid=$!
exec 5>"$T/in.fifo"
echo '{"someone": "else"}' >"$T/late.json"
cat "$FIX" >&5
exec 5>&-
wait $pid; rc=$?
expect_rc 4 "a report file that appeared mid-run"
expect_grep '"someone": "else"' "$T/late.json" "the file that appeared mid-run kept"
expect_grep "late.json: writing the report failed: a file appeared under its name" "$T/err" \
    "a file that appeared mid-run: said"
no_temp "$T" "a report file that appeared mid-run"

# --stats-file -: standard output (the old main made a file named '-')
ABIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
(cd "$T" && "$ABIN" --stats-file - "$OLDPWD/$FIX" -o o3.hprof >rep.out 2>err); rc=$?
expect_rc 0 "--stats-file -"
[ ! -e "$T/-" ] && ok || bad "--stats-file - made a file named '-'"
schema "--stats-file -" "$T/rep.out" exit_status=0 output.name='"o3.hprof"' output.kept=true
# ... refused when standard output takes the dump (or --audit's text)
(cd "$T" && "$ABIN" --stats-file - "$OLDPWD/$FIX" >rep2.out 2>err); rc=$?
expect_rc 2 "--stats-file - with the dump on stdout"
expect_grep "standard output, which takes the dump already" "$T/err" "--stats-file - refusal said"
[ ! -e "$T/-" ] && ok || bad "--stats-file - refused made a file named '-'"
"$BIN" --audit --stats-file - "$FIX" >"$T/rep3.out" 2>"$T/err"; rc=$?
expect_rc 2 "--audit --stats-file - without -q"
"$BIN" --audit -q --stats-file - "$FIX" >"$T/rep4.out" 2>"$T/err"; rc=$?
expect_rc 7 "--audit -q --stats-file -"; schema "--audit -q --stats-file -" "$T/rep4.out" mode='"audit"'

# usage errors are reported: a bad preset, a rule file that names one, an
# option after --stats-file, a bad number before it
printf 'preset bogus\n' >"$T/bad.rules"
for args in "-p bogus" "-r $T/bad.rules" "--stats-file $T/u.json --bogus" "--threads 0"; do
    rm -f "$T/u.json"
    # shellcheck disable=SC2086
    "$BIN" $args --stats-file "$T/u.json" "$FIX" -o "$T/u.hprof" 2>"$T/err"; rc=$?
    expect_rc 2 "usage error ($args)"
    schema "usage error ($args)" "$T/u.json" exit_status=2 error.status='"usage"' \
        error.retryable=false output.kept=false
    [ ! -e "$T/u.hprof" ] && ok || bad "usage error ($args) wrote a dump"
done
expect_grep '"message":"--threads takes a number' "$T/u.json" "usage error message in the report"
# ... but never over a file the failed command line names (its operands
# were not read: every file it names is kept), even with -f
echo 'my notes' >"$T/notes.txt"
"$BIN" -f -p bogus --stats-file "$T/notes.txt" "$T/notes.txt" >/dev/null 2>"$T/err"; rc=$?
expect_rc 2 "usage error, the report named as the input"
expect_grep "my notes" "$T/notes.txt" "usage error: the input kept from the report"

# archives and other compressors: exit 1, "unsupported", not retryable
# (the old main: exit 1 with "read", which a retry policy retries forever)
zip -q -j "$T/d.zip" "$FIX"
xz -c "$FIX" >"$T/d.xz"; bzip2 -c "$FIX" >"$T/d.bz2"; lz4 -q -c "$FIX" >"$T/d.lz4" 2>/dev/null
for f in d.zip d.xz d.bz2 d.lz4; do
    [ -s "$T/$f" ] || { skipped "$f: no compressor"; continue; }
    "$BIN" --stats-file "$T/z.json" "$T/$f" -o "$T/z.hprof" 2>"$T/err"; rc=$?
    expect_rc 1 "$f input"
    schema "$f input" "$T/z.json" exit_status=1 error.status='"unsupported"' error.code=-3 \
        error.retryable=false output.kept=false
done
# statuses that a retry may cure say so
schema "missing input: retryable" "$T/nofile.json" error.retryable=true
schema "corrupt input: not retryable" "$T/bad.json" error.retryable=false

# a report that cannot be written fails the run (exit 4): --stats=json on a
# full stderr (exit 0 on the old main), --stats-file on a full device
"$BIN" --stats=json "$FIX" -o "$T/o4.hprof" 2>/dev/full; rc=$?
expect_rc 4 "--stats=json with stderr on /dev/full"
"$BIN" --stats-file /dev/full "$FIX" -o "$T/o5.hprof" 2>"$T/err"; rc=$?
expect_rc 4 "--stats-file /dev/full"
expect_grep "/dev/full: writing the report failed" "$T/err" "--stats-file /dev/full said"

# a failed run's report says its output was not kept (the name it was
# asked for stays: the file is not there)
schema "corrupt run: output not kept" "$T/bad.json" output.kept=false \
    output.name="\"$T/bad.hprof\""
schema "ok run: output kept" "$T/ok.json" output.kept=true

# --salvage on a corrupt (not cut) dump: exit 1, invalid input, the
# records before the damage written and kept (exit 6 on the old main)
"$BIN" --salvage --stats-file "$T/cs.json" -o "$T/cs.hprof" "$T/corrupt.hprof" 2>"$T/err"; rc=$?
expect_rc 1 "--salvage on a corrupt dump"
schema "--salvage on a corrupt dump" "$T/cs.json" exit_status=1 error.status='"malformed"' \
    output.kept=true
"$BIN" -q -p none "$T/cs.hprof" >/dev/null && ok || bad "--salvage on a corrupt dump: output not valid"

# cut just before its first heap record: exit 3 (0 and a warning -q hid on
# the old main), the message naming --salvage; salvaged: 6
python3 - "$FIX" "$T" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
p = 31
while d[p] not in (0x0C, 0x1C):
    p += 9 + struct.unpack(">I", d[p + 5:p + 9])[0]
open(sys.argv[2] + "/preheap.hprof", "wb").write(d[:p])
PY
"$BIN" -q --stats-file "$T/ph.json" "$T/preheap.hprof" >/dev/null 2>"$T/err"; rc=$?
expect_rc 3 "cut before the first heap record"
expect_grep "cut before its heap dump (--salvage writes" "$T/err" "cut before the heap: --salvage named"
schema "cut before the first heap record" "$T/ph.json" error.status='"truncated"' error.offset=1999658
"$BIN" -q --salvage "$T/preheap.hprof" >"$T/ph.hprof" 2>"$T/err"; rc=$?
expect_rc 6 "cut before the first heap record, --salvage"
# any cut's message names --salvage
expect_grep "(--salvage writes the complete records before the cut)" "$T/err.cut" "cut message names --salvage"

# the checker catches a counter the JSON lacks, and a wrong type
sed 's/"salvaged_bytes":[0-9]*,//' "$T/ok.json" >"$T/less.json"
python3 tests/cli/report_schema.py src/lib/hprof_strip.h "$T/less.json" >"$T/schema.out" &&
    bad "a missing counter passed the schema" || ok
expect_grep "salvaged_bytes: missing" "$T/schema.out" "checker names the missing counter"
sed 's/"exit_status":0/"exit_status":"0"/' "$T/ok.json" >"$T/str.json"
python3 tests/cli/report_schema.py src/lib/hprof_strip.h "$T/str.json" >/dev/null &&
    bad "a string exit_status passed the schema" || ok

# issue #51, 7: standard error's report lost (2>/dev/full) after the
# file's: the file says what the process returns, exit 4 and the failure
if [ -w /dev/full ]; then
    "$BIN" --stats=json --stats-file "$T/full.json" -o "$T/full.hprof" "$FIX" 2>/dev/full; rc=$?
    expect_rc 4 "--stats=json into a full standard error"
    schema "standard error's report lost" "$T/full.json" exit_status=4 error.status='"write"' \
        error.message='"standard error: writing the report failed: No space left on device"' \
        output.kept=true
    no_temp "$T" "the report file put in place twice"
else
    skipped "no /dev/full"
fi

# issue #51, 11: a mapping that is not there is a usage error, not
# retryable, the file named in the report (the library's says the same)
"$BIN" --mapping "$T/missing.txt" --stats-file "$T/nomap.json" -o "$T/nomap.hprof" "$FIX" \
    2>"$T/err"; rc=$?
expect_rc 2 "a missing mapping"
schema "a missing mapping" "$T/nomap.json" exit_status=2 error.status='"usage"' \
    error.message="\"mapping $T/missing.txt: No such file or directory\""
expect_grep "^hprof-strip: mapping $T/missing.txt: No such file or directory\$" "$T/err" \
    "a missing mapping said once"

# issue #51, 8: a file name that is not UTF-8, and a class name in the
# dump that is not (java/lang/Str\377ng): the reports are JSON all the same,
# the bytes replaced by U+FFFD, the names flagged
python3 - "$FIX" "$T" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
ids = struct.unpack(">I", d[19:23])[0]
p = 31
while p < len(d):
    n = struct.unpack(">I", d[p + 5:p + 9])[0]
    if d[p] == 0x01 and d[p + 9 + ids:p + 9 + n] == b"java/lang/String":
        d[p + 9 + ids + 13] = 0xFF
        break
    p += 9 + n
open(sys.argv[2].encode() + b"/bad\xff.hprof", "wb").write(d)
PY
bad_in=$(printf '%s/bad\377.hprof' "$T")
bad_out=$(printf '%s/out\376.hprof' "$T")
"$BIN" --stats=json --histogram --stats-file "$T/utf.json" -o "$bad_out" "$bad_in" \
    2>"$T/utf.err"; rc=$?
expect_rc 0 "names that are not UTF-8"
schema "a file name that is not UTF-8" "$T/utf.json" input.name="\"$T/bad\\ufffd.hprof\"" \
    input.name_invalid_utf8=true output.name="\"$T/out\\ufffd.hprof\"" \
    output.name_invalid_utf8=true
schema "... on standard error too" "$T/utf.err" input.name_invalid_utf8=true
if python3 -c '
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
rows = [r for r in d["histogram"]["input"] if r.get("class_invalid_utf8")]
assert [r["class"] for r in rows] == ["java.lang.Str\ufffdng"], rows
assert all("class_invalid_utf8" not in r for r in d["histogram"]["input"] if r not in rows)
' "$T/utf.json" 2>"$T/py.err"; then ok; else bad "a class name that is not UTF-8: $(cat "$T/py.err")"; fi

# the table: every counter, sizes in binary units, what nonzero_* means
"$BIN" --stats <"$FIX" >/dev/null 2>"$T/err"; rc=$?
expect_rc 0 "--stats"
for c in $(sed -n 's/^ *X(\([a-z_]*\), HS_.*/\1/p' src/lib/hprof_strip.h); do
    expect_grep "^  $c " "$T/err" "--stats table"
done
expect_grep "bytes_in  *$SIZE (3.6 MiB)" "$T/err" "human units"
expect_grep "first_nonzero_field  *none" "$T/err" "no offset"
expect_grep "zeroed: it is not in the output" "$T/err" "nonzero explained"

# the man page gives --jvm's input.name one value, the one written
# (tests/cli/cli_jvm.sh checks "jvm:PID"): its --jvm entry said null too
awk '/^\.BI \\-\\-jvm " PID"$/ { buf = ""; on = 1 } on { buf = buf $0 "\n" }
    /^\.B \\-\\-jvm\\-live$/ { if (on) printf "%s", buf; on = 0 }' man/hprof-strip.1 |
    grep -v /dev/null >"$T/jvm.man"
expect_grep '^\.BI jvm: PID' "$T/jvm.man" "man page --jvm: input.name jvm:PID"
expect_no_grep 'null' "$T/jvm.man" "man page --jvm: input.name null"
expect_grep '^\.BI jvm: PID$' man/hprof-strip-report.5 "man page STATISTICS: input.name for --jvm"

# the man page lists every counter of the schema
for c in $(sed -n 's/^ *X(\([a-z_]*\), HS_.*/\1/p' src/lib/hprof_strip.h); do
    expect_grep "^\.B $c\$" man/hprof-strip-report.5 "man page STATISTICS"
done

finish
