#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/cli/cli_limits.sh - every limit holds from the first byte read.
# --mapping (and a rule file's `mapping` line) is parsed as it streams,
# under --max-held: /dev/zero, /dev/urandom, a gzip bomb and a bomb of
# valid mapping text stop at once, far under twice the cap. And the memory
# cap stops a run before what it holds passes the cap (the roots bomb:
# millions of sticky-class roots under -p android-app, tests/cli/rootsbomb.py),
# within the margin the man page states (--max-held).
# Usage: sh tests/cli/cli_limits.sh ./hprof-strip
set -u
NAME=cli_limits
. "$(dirname "$0")/../lib.sh"
BIN=${1:-./hprof-strip}
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
AND=$TESTS/../fixtures/android-art2025-ahat-test-dump.hprof
MAP=$TESTS/data/mapping/r8.txt

# peak RSS in KiB of the last `run`, when /usr/bin/time can tell it
TIME=
if /usr/bin/time -f %M true >/dev/null 2>&1; then
    TIME=/usr/bin/time
else
    skipped "peak RSS checks (no /usr/bin/time with -f)"
fi

# run NAME ARGS...: the tool, at most 10 s; rc, $T/NAME.err, $T/NAME.rss
run() {
    n=$1
    shift
    if [ -n "$TIME" ]; then
        timeout 10 "$TIME" -f %M -o "$T/$n.rss" "$BIN" "$@" 2>"$T/$n.err"
        rc=$?
    else
        timeout 10 "$BIN" "$@" 2>"$T/$n.err"
        rc=$?
        echo 0 >"$T/$n.rss"
    fi
    [ "$rc" -eq 124 ] && bad "$n: still running after 10 s"
}

# A binary built with AddressSanitizer (make test-asan) carries its shadow
# memory and quarantine: a fixed allowance on every bound (the input still
# moves nothing: a bomb stays as flat as a small file)
ASAN_KIB=0
nm "$BIN" 2>/dev/null | grep -q __asan_init && ASAN_KIB=32768

# expect_rss NAME MAX_KIB WHAT
expect_rss() {
    [ -n "$TIME" ] || return 0
    kib=$(tail -1 "$T/$1.rss" | grep -o '^[0-9]*$')
    kib=${kib:-999999999} # no figure: killed before it exited
    max=$(($2 + ASAN_KIB))
    if [ "$kib" -le "$max" ]; then ok; else bad "$3: peak RSS $kib KiB, more than $max KiB"; fi
}

# ---- --mapping from its first byte ------------------------------------------------

# 10M cap: twice it is 20 MiB, and the process itself takes some 8 of them
CAP=10M
TWICE=20480

run zero --mapping /dev/zero --max-held $CAP -f -o "$T/o.hprof" "$AND"
expect_rc 2 "--mapping /dev/zero"
expect_grep "/dev/zero:1:1: a NUL byte in the text" "$T/zero.err" "--mapping /dev/zero"
expect_rss zero $TWICE "--mapping /dev/zero"

run urandom --mapping /dev/urandom --max-held $CAP -f -o "$T/o.hprof" "$AND"
expect_rc 2 "--mapping /dev/urandom"
# the first line that is neither empty nor a comment fails: line 1, unless
# the random bytes begin with a newline or a '#' (1 run in 128 does)
expect_grep "/dev/urandom:[1-9][0-9]\{0,1\}:" "$T/urandom.err" "--mapping /dev/urandom"
expect_rss urandom $TWICE "--mapping /dev/urandom"

# a gzip bomb: 200 MB of zeros in 200 KB
head -c 200000000 /dev/zero | gzip -1 >"$T/zeros.gz"
run bomb --mapping "$T/zeros.gz" --max-held $CAP -f -o "$T/o.hprof" "$AND"
expect_rc 2 "--mapping a gzip bomb"
expect_grep "a NUL byte in the text" "$T/bomb.err" "--mapping a gzip bomb"
expect_rss bomb $TWICE "--mapping a gzip bomb"

# one endless line: no NUL, no newline
head -c 200000000 /dev/zero | tr '\0' a | gzip -1 >"$T/line.gz"
run line --mapping "$T/line.gz" --max-held $CAP -f -o "$T/o.hprof" "$AND"
expect_rc 2 "--mapping one endless line"
expect_grep "line.gz:1:1048577: a line longer than 1048576 bytes" "$T/line.err" \
    "--mapping one endless line"
expect_rss line $TWICE "--mapping one endless line"

# valid text that inflates past the cap: a member of 20 MB of field lines,
# ten times over (a .gz may hold members one after the other): 200 MB
python3 -c '
import gzip, sys
sys.stdout.buffer.write(gzip.compress(b"    int field -> g\n" * 1000000, 1))
' >"$T/m1.gz"
{
    printf 'a -> b:\n' | gzip
    for i in 1 2 3 4 5 6 7 8 9 10; do cat "$T/m1.gz"; done
} >"$T/fields.gz"
run fields --mapping "$T/fields.gz" --max-held $CAP -f -o "$T/o.hprof" "$AND"
expect_rc 5 "--mapping valid text past the cap"
expect_grep "the mapping would hold more than the limit of 10485760 bytes" "$T/fields.err" \
    "--mapping valid text past the cap"
expect_grep "max-held" "$T/fields.err" "--mapping valid text past the cap"
expect_rss fields $TWICE "--mapping valid text past the cap"
[ -e "$T/o.hprof" ] && bad "--mapping past the cap: an output was written"

# a rule file's `mapping` line is read the same way
printf 'preset default\nmapping fields.gz\n' >"$T/r.rules"
run rulefile -r "$T/r.rules" --max-held $CAP -f -o "$T/o.hprof" "$AND"
expect_rc 5 "a rule file's mapping line past the cap"
expect_rss rulefile $TWICE "a rule file's mapping line past the cap"

# a real mapping still loads, compressed or not, and is held under the cap
gzip -c "$MAP" >"$T/r8.txt.gz"
run real --mapping "$T/r8.txt.gz" --max-held 1M -f -o "$T/o.hprof" "$AND"
expect_rc 0 "--mapping r8.txt.gz"
run tiny --mapping "$MAP" --max-held 1K -f -o "$T/o2.hprof" "$AND"
expect_rc 5 "--mapping under a 1K cap"
expect_grep "r8.txt:[0-9]*: the mapping would hold more than the limit of 1024 bytes" \
    "$T/tiny.err" "--mapping under a 1K cap"

# ---- the cap's margin: the roots bomb ----------------------------------------------

python3 "$TESTS/cli/rootsbomb.py" 4000000 "$T/roots.hprof"
for cap in 8 32; do
    run "roots$cap" -p android-app --max-held ${cap}M --stats=json -f -o "$T/o.hprof" \
        "$T/roots.hprof"
    expect_rc 5 "roots bomb at --max-held ${cap}M"
    expect_grep "GC roots waiting for their object" "$T/roots$cap.err" "roots bomb ${cap}M"
    held=$(grep -o '"held_bytes_peak": *[0-9]*' "$T/roots$cap.err" | grep -o '[0-9]*$')
    if [ -n "$held" ] && [ "$held" -le $((cap * 1048576)) ]; then
        ok
    else
        bad "roots bomb at --max-held ${cap}M: held ${held:-?} bytes, past the cap"
    fi
    # the man page's margin: the cap, and about 8 MiB of fixed buffers
    expect_rss "roots$cap" $(((cap + 8) * 1024)) "roots bomb at --max-held ${cap}M"
done

# ---- a report's duplicate table ------------------------------------------------------
# (--stats, --stats-file: find_duplicates) A key per distinct array used to
# grow with the dump, and failed the run past --max-held for asking for a
# report. Now it stops at 36 MiB (or a quarter of --max-held) and says how
# far its counts are exact.

JVM=$TESTS/../fixtures/jvm17-64bit.hprof
# dup_arrays_unchecked, dup_min_bytes, the arrays counted, and the top rows
# from dup_min_bytes up (or from $2 bytes up), of the JSON report $1
dups_of() {
    python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
c = r["counters"]
m = c.get("dup_min_bytes", -1)
least = int(sys.argv[2]) if len(sys.argv) > 2 else m
top = [t for t in r["duplicates_top"] if t["length_bytes"] >= least]
print(c.get("dup_arrays_unchecked", -1), m,
      sum(v["arrays"] for v in r["duplicates"].values()), json.dumps(top))' "$@"
}
run dupsall -q -p none --stats-file "$T/all.json" -f -o "$T/o.hprof" "$JVM"
expect_rc 0 "--stats-file, the whole table"
set -- $(dups_of "$T/all.json")
[ "$1" = 0 ] && [ "$2" = 8 ] && [ "$3" -gt 100 ] && ok ||
    bad "the whole table: unchecked $1, from $2 bytes, $3 arrays: want 0, 8, over 100"
all_count=$3
run dupscap -q -p none --max-held 128K --stats-file "$T/cap.json" -f -o "$T/o.hprof" "$JVM"
expect_rc 0 "--stats-file under --max-held 128K (the table at 32 KiB: exit 5 before)"
set -- $(dups_of "$T/cap.json")
[ "$1" -gt 0 ] && [ "$2" -gt 8 ] && [ "$3" -le "$all_count" ] && ok ||
    bad "a full table: unchecked $1, from $2 bytes, $3 arrays: want more than 0, more than 8, at most $all_count"
# from dup_min_bytes up the counts are exact: the same rows as the whole table's
min=$2
cap_top=$(dups_of "$T/cap.json" | cut -d' ' -f4-)
all_top=$(dups_of "$T/all.json" "$min" | cut -d' ' -f4-)
[ "$cap_top" = "$all_top" ] && [ "$cap_top" != "[]" ] && ok ||
    bad "a full table, rows of $min bytes or more: $cap_top, the whole table's $all_top"

# 4 M distinct 8-byte arrays: a table of 2^23 slots (142 MiB) before, and
# another half while it doubled; then 36 MiB at most, 54 while it doubled
# (a peak of 60.6 MiB in all); now it doubles in place, 36 MiB at most
# (43.7 MiB in all), so 50 MiB fails the copy's peak. ASan's realloc is a
# copy, and its quarantine keeps the old block: the copy's peak there.
python3 -c '
import struct, sys
n = 4000000
one = struct.Struct(">BQIIBQ")
body = b"".join(one.pack(0x23, 0x10000 + 16 * k, 1, 1, 11, k) for k in range(n))
sys.stdout.buffer.write(b"JAVA PROFILE 1.0.2\0" + struct.pack(">IQ", 8, 0)
    + struct.pack(">BII", 0x1C, 0, len(body)) + body + struct.pack(">BII", 0x2C, 0, 0))
' >"$T/arrays.hprof"
run dupsbomb -q -p none --stats-file "$T/bomb.json" -f -o "$T/o.hprof" "$T/arrays.hprof"
expect_rc 0 "4 M distinct arrays with --stats-file"
set -- $(dups_of "$T/bomb.json")
[ "$1" -gt 0 ] && [ "$2" -gt 8 ] && ok ||
    bad "4 M distinct arrays: unchecked $1, from $2 bytes: the table did not fill"
if [ "$ASAN_KIB" = 0 ]; then
    expect_rss dupsbomb $(((36 + 14) * 1024)) "4 M distinct arrays with --stats-file"
else
    # ASan's copy and quarantine on top: 97.3 MiB read at 0.6, 120.2 MiB at
    # 0.7.0 (the normal build's peak did not move: 47.8 -> 45.8 MiB, which
    # the bound above holds to)
    expect_rss dupsbomb $(((54 + 44) * 1024)) "4 M distinct arrays with --stats-file"
fi

# A .gz input stopped by the cap, with a JSON report: the reader thread,
# still reading ahead, hashed into the report's hasher after its digests
# were taken (an assertion failure, exit 134 and no report, 1 run in 20).
# 25 runs from the file, 25 through a pipe: each exit 5 with its report.
GZ=$TESTS/../fixtures/jvm17-jcmd-gz1.hprof.gz
k=0
bad_runs=""
while [ $k -lt 25 ]; do
    for how in file pipe; do
        rm -f "$T/gz.json"
        if [ $how = file ]; then
            "$BIN" -q -p default --max-held 2M --stats-file "$T/gz.json" -f -o "$T/o.hprof" \
                "$GZ" 2>"$T/gz.err"
        else
            "$BIN" -q -p default --max-held 2M --stats-file "$T/gz.json" -f -o "$T/o.hprof" \
                <"$GZ" 2>"$T/gz.err"
        fi
        rc=$?
        st=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["exit_status"])' \
            "$T/gz.json" 2>/dev/null)
        [ "$rc" = 5 ] && [ "$st" = 5 ] || bad_runs="$bad_runs $how:$rc/${st:-none}"
    done
    k=$((k + 1))
done
[ -z "$bad_runs" ] && ok ||
    bad ".gz past --max-held with --stats-file, 50 runs: want exit 5 and a report of 5 each; got$bad_runs ($(head -c 300 "$T/gz.err"))"

finish
