#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/cli/cli_privacy.sh - issue #35: secrets where no analyzer looks (records
# of unknown tag before and inside the heap dump region, STRINGs over 1 MiB
# used and unused; tests/cli/privacy/plant.py) in HotSpot dumps (1.0.2 and the
# old agent's 1.0.1), an Android one and the fresh dumps make check
# writes, plain and gzip: `-p privacy` leaves none of them (Latin-1,
# UTF-16LE, UTF-16BE), -p none still copies
# every byte, and --audit fails (7) on each one planted alone in a clean
# dump and names it (tag and offset, string id and offset) in the JSON
# report, while it passes the clean dump itself.
# Usage: sh tests/cli/cli_privacy.sh ./hprof-strip
set -u
BIN=${1:-./hprof-strip}
NAME=cli_privacy
. "$(dirname "$0")/../lib.sh"
# the interpreter itself: a version manager's shim costs a second a call
PLANT="$PY $TESTS/cli/privacy/plant.py"

# names PLACES JSON: the audit's JSON names each place plant.py printed
# (KIND OFFSET ID a line), once; prints those it does not
names() {
    "$PY" - "$@" <<'EOF'
import json, sys
rows = json.load(open(sys.argv[2]))["audit"]["findings"]
missing = 0
for line in open(sys.argv[1]):
    kind, off, ident = line.split()
    want = "record" if kind in ("top", "heap") else "long_string"
    hit = [r for r in rows if r["kind"] == want and r["id"] == int(ident) and
           r["first_offset"] == int(off)]
    if len(hit) != 1:
        print("%s at %s (id %s) named %d times" % (kind, off, ident, len(hit)))
        missing += 1
sys.exit(1 if missing else 0)
EOF
}

inputs="fixtures/jvm17-64bit.hprof fixtures/jvm7-hprof-agent.hprof fixtures/android-art2025-ahat-test-dump.hprof"
for f in build/fresh/jvm-30mb.hprof build/fresh/jvm-30mb-art.hprof; do
    if [ -f "$f" ]; then inputs="$inputs $f"; else skipped "$f is made by make check"; fi
done

for f in $inputs; do
    n=$(basename "$f" .hprof)
    $PLANT "$f" "$T/$n.hprof" >"$T/places" || { bad "$n: plant.py failed"; continue; }
    $PLANT --find "$T/$n.hprof" >/dev/null && bad "$n: nothing planted" || ok
    gzip -1c "$T/$n.hprof" >"$T/$n.hprof.gz"
    for in in "$T/$n.hprof" "$T/$n.hprof.gz"; do
        "$BIN" -p privacy "$in" -o "$T/out.hprof" -f 2>"$T/err"; rc=$?
        expect_rc 0 "$n: -p privacy $(basename "$in")"
        $PLANT --find "$T/out.hprof" >"$T/found" && ok || bad "$n: -p privacy $(basename "$in"): $(cat "$T/found")"
    done
    # the counters say what went
    "$BIN" -p privacy "$T/$n.hprof" --stats-file "$T/s.json" -o "$T/out.hprof" -f 2>/dev/null
    grep -q '"unknown_records_dropped":2,' "$T/s.json" && ok || bad "$n: unknown_records_dropped: $(cat "$T/s.json")"
    grep -q '"strings_unheld":2,' "$T/s.json" && ok || bad "$n: strings_unheld: $(cat "$T/s.json")"
    # rules that change no value copy every byte
    "$BIN" -p none "$T/$n.hprof" | cmp -s - "$T/$n.hprof" && ok || bad "$n: -p none is not the identity"
    # the audit: the whole planted dump fails, and names every place
    "$BIN" --audit "$T/$n.hprof.gz" --stats-file "$T/a.json" >"$T/audit" 2>&1; rc=$?
    expect_rc 7 "$n: --audit of the planted dump"
    names "$T/places" "$T/a.json" >"$T/missing" && ok || bad "$n: the audit does not name $(cat "$T/missing")"
    expect_grep "records of unknown tag:         2" "$T/audit" "$n: audit text"
    expect_grep "and [0-9]* more (all of them in the JSON report" "$T/audit" "$n: audit text, capped"
    # the JSON has all of it: the rows add up to the counts
    "$PY" - "$T/a.json" >"$T/sums" <<'EOF' && ok || bad "$n: the findings do not add up: $(cat "$T/sums")"
import json, sys
a = json.load(open(sys.argv[1]))["audit"]
rows = a["findings"]
def total(kinds, key="bytes"):
    return sum(r[key] for r in rows if r["kind"] in kinds)
got = (total(("field", "static", "constant", "class")), total(("array",)),
       sum(1 for r in rows if r["kind"] == "unused_string"),
       sum(1 for r in rows if r["kind"] == "record"), total(("long_string",)))
want = (a["nonzero_field_bytes"], a["nonzero_array_bytes"], a["unused_strings"],
        a["unknown_records"], a["nonzero_string_bytes"])
print(got, want)
sys.exit(0 if got == want else 1)
EOF
    expect_grep "record tag 0x7f: .* at input byte 31" "$T/audit" "$n: audit text names the record"
    # a clean dump passes; each carrier alone in it fails, named (in the
    # fixtures: the fresh dumps would take seconds each)
    "$BIN" -p privacy "$f" -o "$T/clean.hprof" -f 2>/dev/null
    "$BIN" --audit "$T/clean.hprof" >"$T/audit" 2>&1; rc=$?
    expect_rc 0 "$n: --audit of -p privacy's output (no false finding): $(head -c 600 "$T/audit")"
    case $f in fixtures/*) kinds="top heap used unused" ;; *) kinds= ;; esac
    for kind in $kinds; do
        $PLANT "$T/clean.hprof" "$T/one.hprof" "$kind" >"$T/place"
        "$BIN" --audit "$T/one.hprof" --stats-file "$T/a.json" >"$T/audit" 2>&1; rc=$?
        expect_rc 7 "$n: --audit of a clean dump with $kind planted"
        names "$T/place" "$T/a.json" >"$T/missing" && ok || bad "$n: --audit does not name $(cat "$T/missing"): $(cat "$T/audit")"
    done
done
finish
