#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/cli/privacy.sh - the privacy preset on a dump full of known secrets:
# after `-p privacy` no secret is left in the output bytes (Latin-1 and
# UTF-16 forms, numbers big-endian as HPROF writes them), --audit passes on
# the output and fails on the input, naming each Account field with its
# objects and bytes; nor from the same dump with secrets planted in records
# of unknown tag and long STRINGs (privacy/plant.py, plain and gzip input),
# which the audit names too; and VisualVM's parser sees the same
# class histogram (objects and sizes) in both. The same on an Android-style
# copy made by tools/artdump.c (build/artdump).
# Usage: sh tests/cli/privacy.sh ./hprof-strip
set -u
BIN=${1:-./hprof-strip}
NAME=privacy
. "$(dirname "$0")/../lib.sh"

if ! java tests/cli/privacy/Secrets.java "$T/secrets.hprof" >"$T/java.log" 2>&1; then
    bad "could not make the secrets dump: $(tail -3 "$T/java.log")"
    finish
    exit
fi
inputs="$T/secrets.hprof"
PLANT="$PY $TESTS/cli/privacy/plant.py"
if have_artdump && "$ARTDUMP" "$T/secrets.hprof" "$T/secrets-art.hprof" >"$T/artdump.log" 2>&1; then
    inputs="$inputs $T/secrets-art.hprof"
else
    bad "artdump could not make an Android-style copy: $(tail -3 "$T/artdump.log" 2>/dev/null)"
fi

# Every secret as bytes: text in Latin-1, UTF-16BE (char[]) and UTF-16LE
# (compact-string byte[] with coder UTF16), numbers big-endian; looked for
# in the raw bytes at every offset, in one pass of Python over the file
# (a hex dump grepped once per form cost this suite a minute)
texts="SECRET-STATIC-STRING-4f2a SECRET-OWNER-7-7c1e SECRETPIN7 SECRET-TOKEN-BYTES-7 SECRET-KEY-3-91d3 SECRET-VALUE-3-2b8e SECRET-BUILDER-8a6c"
numbers="5ec2e7a15ec2e7a1 5ec2e7a2 5ec2e7a3 5ec2e7a45ec2e7a4 5ec2e7a55ec2e7a5"
# secrets_in FILE TEXTS NUMBERS: a line per form, "found|absent HOW SECRET"
secrets_in() {
    "$PY" - "$@" <<'PYEOF'
import sys
data = open(sys.argv[1], "rb").read()
texts, numbers = sys.argv[2].split(), sys.argv[3].split()
wide = "SECRET-\u00e9\u4e2d\u6587-UTF16-5d7f"  # not Latin-1: Secrets.java's UTF-16 string
forms = [(t, "latin-1", t.encode("latin-1")) for t in texts]
forms += [(t, enc, t.encode(enc)) for t in texts + [wide] for enc in ("utf-16-be", "utf-16-le")]
forms += [(n, "big-endian", bytes.fromhex(n)) for n in numbers]
for name, how, b in forms:
    print("%s %s %s" % ("found" if b in data else "absent", how, name.encode("unicode_escape").decode()))
PYEOF
}
check_clean() { # FILE LABEL: no secret in any form
    secrets_in "$1" "$texts" "$numbers" >"$T/forms" || { bad "$2: cannot scan"; return; }
    [ "$(wc -l <"$T/forms")" -eq $((3 * 7 + 2 + 5)) ] && ok || bad "$2: scanned $(wc -l <"$T/forms") forms"
    while read -r verdict how s; do
        [ "$verdict" = absent ] && ok || bad "$2: '$s' ($how) found"
    done <"$T/forms"
}
# has_secret FILE PATTERN: the input holds this form (else the test proves nothing)
has_secret() {
    secrets_in "$1" "$texts" "$numbers" >"$T/forms.in" && grep -q "^found $2\$" "$T/forms.in"
}

for f in $inputs; do
    name=$(basename "$f")
    # the input does hold the secrets (else this test proves nothing)
    has_secret "$f" "latin-1 SECRET-OWNER-7-7c1e" && ok || bad "$name: input lacks its secrets"
    has_secret "$f" "big-endian 5ec2e7a45ec2e7a4" && ok || bad "$name: input lacks its numbers"
    has_secret "$f" 'utf-16-le SECRET-\\xe9\\u4e2d\\u6587-UTF16-5d7f' && ok || bad "$name: input lacks its UTF-16 string"
    "$BIN" --audit "$f" >"$T/audit.in" 2>&1; rc=$?
    [ $rc = 7 ] && ok || bad "$name: --audit passed an unscrubbed dump (exit $rc)"
    grep -q "non-zero primitive field bytes: [1-9]" "$T/audit.in" && ok || bad "$name: audit report: $(cat "$T/audit.in")"
    for mode in "-p privacy" "-p privacy -z" "-p privacy --gzip"; do
        "$BIN" $mode "$f" >"$T/out" 2>"$T/err" || { bad "$name $mode: $(cat "$T/err")"; continue; }
        case $mode in
            *-z) zstd -dcq "$T/out" >"$T/out.hprof" ;;
            *--gzip) gzip -dc "$T/out" >"$T/out.hprof" ;;
            *) mv "$T/out" "$T/out.hprof" ;;
        esac
        check_clean "$T/out.hprof" "$name $mode"
        "$BIN" --audit "$T/out.hprof" >"$T/audit.out" 2>&1; rc=$?
        [ $rc = 0 ] && ok || bad "$name $mode: --audit fails on the output: $(cat "$T/audit.out")"
    done
    "$BIN" -p none "$T/out.hprof" >/dev/null 2>"$T/err" && ok || bad "$name: privacy output does not read back: $(cat "$T/err")"
    # the audit says where (issue #35): each Account field by name, with
    # its 50 objects and their bytes, exactly
    "$BIN" --audit --stats-file "$T/audit.json" "$f" >/dev/null 2>&1
    "$PY" - "$T/audit.json" >"$T/where" 2>&1 <<'EOF' && ok || bad "$name: the audit's findings: $(cat "$T/where")"
import json, sys
rows = json.load(open(sys.argv[1]))["audit"]["findings"]
want = {("field", "Secrets$Account.card"): (50, 400),
        ("field", "Secrets$Account.balance"): (50, 200),
        ("field", "Secrets$Account.rate"): (50, 400),
        ("static", "Secrets.staticInt"): (1, 4)}
got = {(r["kind"], r["name"]): (r["count"], r["bytes"]) for r in rows}
bad = ["%s %s: %s, expected %s" % (k + (got.get(k), v)) for k, v in want.items() if got.get(k) != v]
print("\n".join(bad))
sys.exit(1 if bad else 0)
EOF
    # secrets where no analyzer looks: records of unknown tag, long STRINGs
    $PLANT "$f" "$T/planted.hprof" >"$T/places"
    gzip -1c "$T/planted.hprof" >"$T/planted.hprof.gz"
    for in in "$T/planted.hprof" "$T/planted.hprof.gz"; do
        "$BIN" -p privacy "$in" >"$T/out.hprof" 2>"$T/err" || bad "$name planted: $(cat "$T/err")"
        $PLANT --find "$T/out.hprof" >"$T/found" && ok || bad "$name planted $(basename "$in"): $(cat "$T/found")"
        check_clean "$T/out.hprof" "$name planted $(basename "$in")"
    done
    "$BIN" --audit "$T/planted.hprof" >"$T/audit.p" 2>&1; rc=$?
    [ $rc = 7 ] && ok || bad "$name: --audit passed a planted dump (exit $rc)"
    grep -q "record tag 0x7f" "$T/audit.p" && ok || bad "$name: the audit does not name the record: $(cat "$T/audit.p")"
    # VisualVM cannot read ART's JNI-monitor roots (artdump adds three): compare JVM dumps only
    case $name in *-art.hprof) continue ;; esac
    if sh tools/vvm-histogram.sh "$f" >"$T/h.in" 2>"$T/h.err" &&
        sh tools/vvm-histogram.sh "$T/out.hprof" >"$T/h.out" 2>>"$T/h.err"; then
        cmp -s "$T/h.in" "$T/h.out" && ok || bad "$name: class histogram differs: $(diff "$T/h.in" "$T/h.out" | head -4)"
        grep -q "^Secrets\$Account	50	" "$T/h.out" && ok || bad "$name: the 50 accounts are not all there"
    else
        bad "$name: VisualVM: $(cat "$T/h.err")"
    fi
done
finish
