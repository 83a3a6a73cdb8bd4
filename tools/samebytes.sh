#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Same bytes out: runs a reference build and a new one over the fixtures
# (and ../shared/corpus when it is there) in every mode the command has,
# and reports any difference in output bytes, exit status, JSON report
# (timings removed) or, for failing runs, the message.  A redesign that
# promises "outputs identical to today's" is checked with it:
#
#   sh tools/samebytes.sh REF_BINARY NEW_BINARY      (QUICK=1: fixtures only)
#
# Exit 0 when every case matches, 1 otherwise.
set -u
REF=${1:?usage: samebytes.sh REF_BINARY NEW_BINARY}
NEW=${2:?usage: samebytes.sh REF_BINARY NEW_BINARY}
here=$(cd "$(dirname "$0")/.." && pwd)
W=$(mktemp -d "${TMPDIR:-/tmp}/samebytes.XXXXXX")
trap 'rm -rf "$W"' EXIT INT TERM

inputs=$(ls "$here"/fixtures/*.hprof "$here"/fixtures/*.hprof.gz 2>/dev/null)
if [ -z "${QUICK:-}" ] && [ -d "$here/../shared/corpus" ]; then
    inputs="$inputs $(ls "$here"/../shared/corpus/*.hprof "$here"/../shared/corpus/*.hprof.gz)"
fi
# one zstd input, made here
if command -v zstd >/dev/null; then
    zstd -q -3 -c "$here/fixtures/jvm17-64bit.hprof" > "$W/jvm17.hprof.zst"
    inputs="$inputs $W/jvm17.hprof.zst"
fi

# The report without what differs from run to run (times, resources).
norm() {
    /usr/bin/python3 - "$1" <<'EOF'
import json, sys
# the version the report names (tool.version, audit.verifier) is the
# build's own: two builds differ there by design
def clean(v):
    if isinstance(v, dict):
        return {k: clean(x) for k, x in v.items()
                if k not in ("time", "resources", "rusage", "version", "verifier")
                and "seconds" not in k and "rss" not in k}
    if isinstance(v, list):
        return [clean(x) for x in v]
    return v
try:
    lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
except Exception as e:
    print("unreadable report:", e); sys.exit(0)
for d in lines:
    print(json.dumps(clean(d), sort_keys=True))
EOF
}

pass=0 fail=0
# run NAME ARGS... : both binaries with ARGS (the word @OUT@ is the output
# file, @REP@ the report file); compares everything
run() {
    name=$1; shift
    for side in ref new; do
        bin=$REF; [ $side = new ] && bin=$NEW
        d="$W/$side"; rm -rf "$d"; mkdir -p "$d"
        args=""
        for a in "$@"; do
            case $a in
            @OUT@*) a="$d/out${a#@OUT@}" ;;
            @REP@) a="$d/rep.json" ;;
            @DIR@) a="$d/dir"; mkdir -p "$a" ;;
            esac
            args="$args '$(printf %s "$a" | sed "s/'/'\\\\''/g")'"
        done
        eval "\"$bin\" $args" > "$d/stdout" 2> "$d/stderr" < /dev/null
        echo $? > "$d/rc"
    done
    why=""
    cmp -s "$W/ref/rc" "$W/new/rc" || why="$why exit($(cat "$W/ref/rc")->$(cat "$W/new/rc"))"
    for f in $(cd "$W/ref" && find . -type f ! -name 'std*' ! -name rc ! -name 'rep.json' | sort); do
        cmp -s "$W/ref/$f" "$W/new/$f" || why="$why $f"
    done
    [ "$(cd "$W/ref" && find . -type f | sort)" = "$(cd "$W/new" && find . -type f | sort)" ] \
        || why="$why file-set"
    cmp -s "$W/ref/stdout" "$W/new/stdout" || why="$why stdout"
    if [ -f "$W/ref/rep.json" ]; then
        # the runs' own directories differ by name only
        sed "s|$W/ref|D|g" "$W/ref/rep.json" > "$W/ref.j"
        sed "s|$W/new|D|g" "$W/new/rep.json" > "$W/new.j"
        norm "$W/ref.j" > "$W/ref.n"; norm "$W/new.j" > "$W/new.n"
        cmp -s "$W/ref.n" "$W/new.n" || why="$why report"
    fi
    if [ "$(cat "$W/ref/rc")" != 0 ]; then
        # a failing run's message names the byte: it must stay the same
        grep -v '^\s*$' "$W/ref/stderr" | sed "s|$W/ref|D|g" > "$W/ref.e"
        grep -v '^\s*$' "$W/new/stderr" | sed "s|$W/new|D|g" > "$W/new.e"
        cmp -s "$W/ref.e" "$W/new.e" || why="$why stderr"
    fi
    if [ -n "$why" ]; then
        fail=$((fail + 1)); echo "DIFF $name:$why"
    else
        pass=$((pass + 1))
    fi
}

for in in $inputs; do
    b=$(basename "$in")
    for p in default privacy android-app; do
        run "$b -p $p" -p $p --histogram --stats-file @REP@ -o @OUT@.hprof "$in"
    done
    run "$b none" -p none --stats-file @REP@ "$in" -o @OUT@.hprof
    run "$b repack" --repack --stats-file @REP@ "$in" -o @OUT@.hprof
    run "$b to-jvm" --to-jvm --stats-file @REP@ "$in" -o @OUT@.hprof
    run "$b to-jvm privacy" --to-jvm -p privacy "$in" -o @OUT@.hprof
    run "$b zstd" -p privacy -z -T 2 "$in" -o @OUT@.hprof.zst
    run "$b gzip" -p default --gzip -T 2 "$in" -o @OUT@.hprof.gz
    run "$b stdout" -p default "$in"
    run "$b audit" --audit --stats-file @REP@ "$in"
    # a cut dump: the error, and what --salvage keeps
    case $b in *.gz|*.zst) ;; *)
        sz=$(wc -c < "$in")
        head -c $((sz * 3 / 5)) "$in" > "$W/cut.hprof"
        run "$b cut" -p default "$W/cut.hprof" -o @OUT@.hprof
        run "$b salvage" -p privacy --salvage --stats-file @REP@ "$W/cut.hprof" -o @OUT@.hprof
    esac
done
fx=$here/fixtures
for m in "$here"/tests/data/deobf/jvm17-r8.map; do
    [ -f "$m" ] && run "jvm17 mapping" --mapping "$m" --stats-file @REP@ "$fx/jvm17-64bit.hprof" -o @OUT@.hprof
done
m=$here/tests/data/deobf/art-r8.map
[ -f "$m" ] && run "art mapping to-jvm" --mapping "$m" --to-jvm -p privacy \
    "$fx/android-art2025-ahat-test-dump.hprof" -o @OUT@.hprof
# the audit of stripped outputs (clean) and of a dump kept as it was (data)
"$REF" -p privacy "$fx/jvm17-64bit.hprof" -o "$W/priv.hprof" 2>/dev/null
"$REF" -p privacy --gzip "$fx/jvm17-64bit.hprof" -o "$W/priv.hprof.gz" 2>/dev/null
run "audit clean" --audit "$W/priv.hprof"
run "audit clean gz" --audit "$W/priv.hprof.gz"
run "audit many" --audit "$W/priv.hprof" "$fx/jvm7-hprof-agent.hprof" "$W/priv.hprof.gz"
# batch: every file into a directory, two at a time
run "batch" -p privacy -j 2 -o @DIR@ $(ls "$fx"/*.hprof)
# usage errors keep their status and message
run "usage bad preset" -p nosuch "$fx/jvm17-64bit.hprof"
run "usage bad option" --nosuch
run "missing input" -p default "$W/no-such-file.hprof"
echo "samebytes: $pass same, $fail different"
[ "$fail" = 0 ]
