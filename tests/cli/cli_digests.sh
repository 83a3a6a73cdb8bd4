#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/cli/cli_digests.sh - the JSON report binds the bytes it describes: its
# input.sha256 and output.sha256 equal what sha256sum(1) prints for the
# files, and for the HPROF inside them (gzip -dc, zstd -dc), for every kind
# of input (plain, gzip, zstd, HotSpot's -gz members), read in place or
# from a pipe, on one thread or two, into every kind of output; --audit's,
# --stats=json's and a failed run's reports too.
# Usage: tests/cli/cli_digests.sh ./hprof-strip
set -u
NAME=cli_digests
. "$(dirname "$0")/../lib.sh"
BIN=$1
D=$TESTS/../fixtures

# field REPORT PATH: a value of the JSON report ("-" for null)
field() {
    /usr/bin/python3 - "$1" "$2" <<'EOF'
import json, sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."):
    v = None if v is None else v[k]
print("-" if v is None else v)
EOF
}
sum() { sha256sum | cut -d' ' -f1; }
unpack() { # the HPROF inside FILE
    case $(head -c 4 "$1" | od -An -tx1 | tr -d ' \n') in
        1f8b*) gzip -dc "$1" ;;
        28b52ffd) zstd -qdc "$1" ;;
        *) cat "$1" ;;
    esac
}
# same REPORT SIDE FILE WHAT: SIDE's digests and counts are FILE's
same() {
    want_file=$(sum <"$3") want_hprof=$(unpack "$3" | sum)
    n_file=$(wc -c <"$3") n_hprof=$(unpack "$3" | wc -c)
    got=$(field "$1" "$2.sha256.file") got_hprof=$(field "$1" "$2.sha256.hprof")
    got_n=$(field "$1" "$2.sha256.file_bytes") got_hn=$(field "$1" "$2.sha256.hprof_bytes")
    if [ "$got" = "$want_file" ] && [ "$got_hprof" = "$want_hprof" ] &&
        [ "$got_n" = "$n_file" ] && [ "$got_hn" = "$n_hprof" ]; then
        ok
    else
        bad "$4: $2 sha256 $got ($got_n bytes) hprof $got_hprof ($got_hn), expected $want_file ($n_file) hprof $want_hprof ($n_hprof)"
    fi
}

cp "$D/jvm17-64bit.hprof" "$T/p.hprof"
gzip -c "$T/p.hprof" >"$T/g.hprof.gz"
zstd -q "$T/p.hprof" -o "$T/z.hprof.zst"
cp "$D/jvm17-jcmd-gz1.hprof.gz" "$T/j.hprof.gz"

for in in p.hprof g.hprof.gz z.hprof.zst j.hprof.gz; do
    for out in o.hprof o.hprof.zst o.hprof.gz; do
        for t in 1 2; do
            what="$in -> $out -T $t"
            rm -f "$T/$out"
            "$BIN" -q -T $t "$T/$in" -o "$T/$out" --stats-file "$T/r.json"
            rc=$?
            expect_rc 0 "$what"
            same "$T/r.json" input "$T/$in" "$what (in place)"
            same "$T/r.json" output "$T/$out" "$what (in place)"
        done
    done
    # a pipe in, standard output out (-z there: zstd)
    what="$in piped, -z to standard output"
    "$BIN" -q -z --stats-file "$T/r.json" <"$T/$in" >"$T/o.zst"
    rc=$?
    expect_rc 0 "$what"
    same "$T/r.json" input "$T/$in" "$what"
    same "$T/r.json" output "$T/o.zst" "$what"
    [ "$(field "$T/r.json" output.name)" = - ] && ok || bad "$what: output named"
done

# --stats=json on standard error hashes as well
"$BIN" -q --stats=json "$T/g.hprof.gz" -o "$T/s.hprof" 2>"$T/err.json"
same "$T/err.json" input "$T/g.hprof.gz" "--stats=json"
same "$T/err.json" output "$T/s.hprof" "--stats=json"

# --audit: the input's digests, no output
"$BIN" -q -p privacy "$T/p.hprof" -o "$T/priv.hprof"
"$BIN" -q --audit "$T/priv.hprof" --stats-file "$T/a.json" >/dev/null
rc=$?
expect_rc 0 "--audit of a privacy output"
same "$T/a.json" input "$T/priv.hprof" "--audit"
[ "$(field "$T/a.json" output)" = - ] && ok || bad "--audit: an output side"

# a report binds its own bytes, not another file's: two different outputs
# give two digests (a digest of nothing, or of the input, would agree)
"$BIN" -q -p none "$T/p.hprof" -o "$T/n.hprof" --stats-file "$T/n.json"
if [ "$(field "$T/n.json" output.sha256.file)" = "$(field "$T/r.json" output.sha256.file)" ]; then
    bad "-p none and default outputs have one digest"
else
    ok
fi
# -p none reproduces its input: the two sides agree, and with sha256sum
[ "$(field "$T/n.json" output.sha256.file)" = "$(sum <"$T/p.hprof")" ] && ok ||
    bad "-p none: output digest is not the input's"

# a cut dump: the digests cover what was read, up to the cut
head -c 1000000 "$T/p.hprof" >"$T/cut.hprof"
"$BIN" -q "$T/cut.hprof" -o "$T/cut-out.hprof" --stats-file "$T/c.json"
rc=$?
expect_rc 3 "a cut dump"
n=$(field "$T/c.json" input.sha256.file_bytes)
[ "$n" -le 1000000 ] && [ "$n" -gt 0 ] && ok || bad "a cut dump: $n bytes hashed"
[ "$(field "$T/c.json" input.sha256.file)" = "$(head -c "$n" "$T/cut.hprof" | sum)" ] && ok ||
    bad "a cut dump: the digest is not of its first $n bytes"

# no report, no digest: -q alone writes nothing to say them
"$BIN" -q "$T/p.hprof" -o "$T/plain.hprof" 2>"$T/err"
expect_empty "$T/err" "a run without a report"

finish
