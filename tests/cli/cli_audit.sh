#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/cli/cli_audit.sh - issue #50: --audit is the verifier's (verify.c), not
# the filter's counters. Its verdict on a two-step pipeline's output equals
# a byte scan of the decompressed dump for STRING records nothing uses (the
# filter flushed them, and the old audit counted them used); the
# certificate (file, digests, verifier, verdict, what is kept); the
# container's findings; --audit FILE... (exit 0 all clean, 7 one dirty,
# the worst status when one fails; one JSON line per file).
# Usage: sh tests/cli/cli_audit.sh ./hprof-strip
set -u
BIN=${1:-./hprof-strip}
FIX=fixtures/jvm17-64bit.hprof
NAME=cli_audit
. "$(dirname "$0")/../lib.sh"

# unused STRINGs with a non-zero text, scanned in a plain dump (python: not
# the library's walk)
unused() {
    python3 - "$1" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
ids = struct.unpack(">I", d[19:23])[0]
fmt = ">I" if ids == 4 else ">Q"
def rid(p): return struct.unpack(fmt, d[p:p + ids])[0]
strings, used, p = {}, set(), 31
while p < len(d):
    tag, ln = d[p], struct.unpack(">I", d[p + 5:p + 9])[0]
    b = p + 9
    if tag == 1:
        strings.setdefault(rid(b), []).append(any(d[b + ids:b + ln]))
    elif tag == 2:
        used.add(rid(b + 8 + ids))
    elif tag == 4:
        used.update(rid(b + k * ids) for k in (1, 2, 3))
    elif tag == 0x0A:
        used.update(rid(b + 8 + k * ids) for k in (1, 2, 3))
    elif tag in (0x0C, 0x1C):
        q, end = b, b + ln
        sizes = {2: ids, 4: 1, 5: 2, 6: 4, 7: 8, 8: 1, 9: 2, 10: 4, 11: 8}
        roots = {0xFF: ids, 1: 2 * ids, 2: ids + 8, 3: ids + 8, 4: ids + 4, 5: ids, 6: ids + 4,
                 7: ids, 8: ids + 8, 0x89: ids, 0x8A: ids, 0x8B: ids, 0x8C: ids, 0x8D: ids,
                 0x8E: ids + 8, 0x90: ids}
        while q < end:
            t = d[q]; q += 1
            if t in roots: q += roots[t]
            elif t == 0xFE: used.add(rid(q + 4)); q += 4 + ids
            elif t == 0x21: q += 2 * ids + 8 + struct.unpack(">I", d[q + 2 * ids + 4:q + 2 * ids + 8])[0]
            elif t == 0x22: q += 2 * ids + 8 + ids * struct.unpack(">I", d[q + ids + 4:q + ids + 8])[0]
            elif t == 0x23: q += ids + 9 + sizes[d[q + ids + 8]] * struct.unpack(">I", d[q + ids + 4:q + ids + 8])[0]
            elif t == 0x20:
                q += 7 * ids + 8
                for part in range(3):
                    n = struct.unpack(">H", d[q:q + 2])[0]; q += 2
                    for _ in range(n):
                        if part == 0: q += 2; t2 = d[q]; q += 1 + sizes[t2]
                        else:
                            used.add(rid(q)); t2 = d[q + ids]; q += ids + 1
                            if part == 1: q += sizes[t2]
            else: raise SystemExit("sub-record 0x%02x" % t)
    p = b + ln
print(sum(1 for i, texts in strings.items() for k, nz in enumerate(texts) if nz and (k or i not in used)))
PY
}

# 1. the issue's pipeline: deobfuscate with -p none, then -p privacy, then
#    --audit: its verdict is the scan's (not clean while the filter writes
#    unused STRINGs; clean once it does not)
printf 'com.example.Real -> com.intellij.rt.execution.application.AppMainV2:\n' >"$T/m.txt"
"$BIN" -q -p none --mapping "$T/m.txt" "$FIX" -o "$T/named.hprof"; rc=$?
expect_rc 0 "-p none --mapping"
"$BIN" -q -p privacy "$T/named.hprof" -o "$T/s.hprof.zst"; rc=$?
expect_rc 0 "-p privacy of the named dump"
zstd -qdc "$T/s.hprof.zst" >"$T/s.hprof"
n=$(unused "$T/s.hprof")
"$BIN" --audit "$T/s.hprof.zst" --stats-file "$T/s.json" >"$T/s.txt" 2>"$T/err"; rc=$?
if [ "$n" -gt 0 ]; then
    expect_rc 7 "--audit of a dump holding $n unused STRINGs"
    expect_grep "STRING records nothing uses:    $n " "$T/s.txt" "the certificate's count"
else
    expect_rc 0 "--audit of a dump holding no unused STRING"
fi
python3 -c "import json,sys; a=json.load(open(sys.argv[1]))['audit']; sys.exit(a['unused_strings'] != int(sys.argv[2]))" \
    "$T/s.json" "$n" && ok || bad "the JSON's unused_strings is not the scan's $n"

# 2. the certificate: name, the two digests (sha256sum's), the verifier,
#    the verdict, what is kept and where to read why
"$BIN" -q -p privacy "$FIX" -o "$T/clean.hprof"
zstd -q "$T/clean.hprof" -o "$T/clean.hprof.zst"
"$BIN" --audit "$T/clean.hprof.zst" >"$T/cert" 2>"$T/err"; rc=$?
expect_rc 0 "--audit of -p privacy's output"; expect_empty "$T/err" "--audit stderr"
expect_grep "^$T/clean.hprof.zst: clean$" "$T/cert" "verdict line"
expect_grep "$(sha256sum <"$T/clean.hprof.zst" | cut -c1-64) (file)" "$T/cert" "file digest"
expect_grep "$(sha256sum <"$T/clean.hprof" | cut -c1-64) (HPROF" "$T/cert" "HPROF digest"
expect_grep "verifier: hprof-strip $("$BIN" --version | head -1 | awk '{print $NF}')" "$T/cert" "version"
expect_grep "kept on purpose: names" "$T/cert" "kept line"
expect_grep "hprof-strip-report(5), AUDIT" "$T/cert" "pointer to the table"

# 3. the container: a gzip file name, a zstd skippable frame, trailing bytes
cp "$T/clean.hprof" "$T/named-in-gz.hprof"
gzip -k "$T/named-in-gz.hprof"
"$BIN" --audit "$T/named-in-gz.hprof.gz" >"$T/gz.txt" 2>&1; rc=$?
expect_rc 7 "--audit of a .gz holding its file name"
expect_grep "gzip FNAME: 17 bytes at file byte 10" "$T/gz.txt" "FNAME named"
gzip -nc "$T/clean.hprof" >"$T/noname.hprof.gz"
"$BIN" -q --audit "$T/noname.hprof.gz"; rc=$?
expect_rc 0 "--audit of gzip -n"
{ printf '\120\052\115\030\004\000\000\000ABCD'; cat "$T/clean.hprof.zst"; } >"$T/skip.zst"
"$BIN" --audit "$T/skip.zst" >"$T/skip.txt" 2>&1; rc=$?
expect_rc 7 "--audit of a .zst with a skippable frame"
expect_grep "zstd skippable frame: 4 bytes at file byte 0" "$T/skip.txt" "skippable named"
{ cat "$T/clean.hprof.zst"; printf 'card=4111'; } >"$T/tail.zst"
"$BIN" -q --audit "$T/tail.zst"; rc=$?
expect_rc 7 "--audit of a .zst with bytes after its frame"
head -c 100000 "$T/clean.hprof.zst" >"$T/cut.zst"
"$BIN" --audit "$T/cut.zst" >"$T/out" 2>"$T/err"; rc=$?
expect_rc 3 "--audit of a cut .zst"; expect_grep "zstd byte 100000" "$T/err" "cut named"
"$BIN" -q --audit --max-held 64K "$FIX" 2>"$T/err"; rc=$?
expect_rc 5 "--audit past --max-held"

# 4. --audit FILE...: one certificate each, in order; 0 all clean, 7 one
#    dirty, a failure's status the worst; one JSON line per file
"$BIN" --audit "$T/clean.hprof" "$T/clean.hprof.zst" --stats-file "$T/two.jsonl" >"$T/two" 2>"$T/err"; rc=$?
expect_rc 0 "--audit of two clean files"
[ "$(grep -c ': clean$' "$T/two")" = 2 ] && ok || bad "two certificates: $(cat "$T/two")"
[ "$(wc -l <"$T/two.jsonl")" = 2 ] && ok || bad "two JSON lines: $(cat "$T/two.jsonl")"
python3 - "$T/two.jsonl" <<'PY' && ok || bad "the JSON lines: $(head -c 400 "$T/two.jsonl")"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert [r["mode"] for r in rows] == ["audit", "audit"]
assert all(r["audit"]["clean"] and r["exit_status"] == 0 for r in rows)
assert rows[0]["input"]["name"].endswith("clean.hprof")
assert rows[1]["input"]["name"].endswith("clean.hprof.zst")
PY
"$BIN" -q --audit "$T/clean.hprof" "$FIX" "$T/clean.hprof.zst"; rc=$?
expect_rc 7 "--audit of three files, one dirty"
"$BIN" -q --audit "$T/clean.hprof" "$T/cut.zst" "$FIX" 2>/dev/null; rc=$?
expect_rc 3 "--audit of three files, one cut: the worst status"
"$BIN" -q --audit -o "$T" "$T/clean.hprof" "$FIX" 2>"$T/err"; rc=$?
expect_rc 2 "--audit FILE... -o DIR"
finish
