#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/ext/artdump.sh - the project's HotSpot -> ART-style converter
# (tools/artdump.c, build/artdump) on the JVM fixtures and the fresh dump of
# make check: the output is JAVA PROFILE 1.0.3 with 4-byte ids, holds the
# same instances per class as the input, puts the shares of system objects
# asked for in the zygote and image heaps (counted by hprof-strip's
# histogram, which counts by heap on Android dumps), is the same bytes for
# the same seed, loads in hprof-conv, comes back byte for byte through
# `hprof-strip -p none`, and `-p android-app --to-jvm` of it loads in
# VisualVM's parser. With ../shared: ahat's parser finds the input's
# per-class counts in it, and jhat's finds the input's totals in its
# --to-jvm form. Also its usage errors and refusals.
# Usage: sh tests/ext/artdump.sh ./hprof-strip
set -u
BIN=${1:-./hprof-strip}
NAME=artdump
. "$(dirname "$0")/../lib.sh"
CONV=/usr/lib/android-sdk/platform-tools/hprof-conv
AHAT=../shared/tools/ahatsum/ahatsum
JHAT=../shared/tools/jhatsum/jhatsum
ahat=0; jhat=0
have_shared $AHAT "artdump: ahat's parser on its outputs" && ahat=1
have_shared $JHAT "artdump: jhat's parser on their --to-jvm forms" && jhat=1
have_artdump || { finish; exit; }

# ---- usage and refusals --------------------------------------------------
"$ARTDUMP" --help >"$T/help" 2>&1; rc=$?
expect_rc 0 "--help"
expect_grep "--zygote-frac" "$T/help" "--help"
for args in "" "one.hprof" "--seed" "--seed x a b" "--seed -1 a b" "--zygote-frac 1.5 a b" \
            "--image-frac -0.1 a b" "--zygote-frac 0.6 --image-frac 0.6 a b" "--bogus a b" "a b c"; do
    # shellcheck disable=SC2086
    "$ARTDUMP" $args >"$T/err" 2>&1; rc=$?
    expect_rc 2 "artdump $args"
done
refuse() { # WHY FILE GREP: exit 1, the reason said, no OUT left
    "$ARTDUMP" "$2" "$T/refused.hprof" >"$T/err" 2>&1; rc=$?
    expect_rc 1 "$1"
    expect_grep "$3" "$T/err" "$1"
    if [ -e "$T/refused.hprof" ]; then bad "$1: output left behind"; rm -f "$T/refused.hprof"; else ok; fi
}
refuse "an Android dump" fixtures/android-art2025-ahat-test-dump.hprof "1.0.3"
refuse "a gzip dump" fixtures/jvm17-jcmd-gz1.hprof.gz "compressed"
head -c 1000000 fixtures/jvm17-64bit.hprof >"$T/cut.hprof"
refuse "a cut dump" "$T/cut.hprof" "past the end"
printf 'not a dump at all, just text of some length\n' >"$T/text.hprof"
refuse "not a dump" "$T/text.hprof" "not a HotSpot heap dump"
refuse "a missing file" "$T/missing.hprof" "No such file"
cp fixtures/jvm17-64bit.hprof "$T/same.hprof"
"$ARTDUMP" "$T/same.hprof" "$T/same.hprof" >"$T/err" 2>&1; rc=$?
expect_rc 2 "OUT is IN"
cmp -s fixtures/jvm17-64bit.hprof "$T/same.hprof" && ok || bad "OUT is IN: the input was changed"
if [ -w /dev/full ]; then
    "$ARTDUMP" fixtures/jvm17-64bit.hprof /dev/full >"$T/err" 2>&1; rc=$?
    expect_rc 1 "a full disk"
    expect_grep "write error" "$T/err" "a full disk"
fi

# ---- conversions -----------------------------------------------------------
# per-class instance counts of hprof-strip's histogram JSON (every heap
# together), sorted: "class<TAB>instances"
counts() {
    python3 - "$1" <<'EOF'
import json, sys
c = {}
for e in json.load(open(sys.argv[1]))["histogram"]["input"]:
    c[e["class"]] = c.get(e["class"], 0) + e["instances"]
for k in sorted(c):
    print("%s\t%d" % (k, c[k]))
EOF
}
# shares of the system objects (artdump --help says which) per heap: "zygote image"
shares() {
    python3 - "$1" <<'EOF'
import json, re, sys
system = re.compile(r"^((java|javax|sun|jdk)\.|com\.sun\.|(boolean|char|float|double|byte|short|int|long)(\[\])+$)")
c = {"app": 0, "zygote": 0, "image": 0}
for e in json.load(open(sys.argv[1]))["histogram"]["input"]:
    if system.match(e["class"]):
        c[e.get("heap", "app")] = c.get(e.get("heap", "app"), 0) + e["instances"]
n = sum(c.values()) or 1
print("%.4f %.4f" % (c["zygote"] / n, c["image"] / n))
EOF
}
# near A B: |A - B| <= 0.05
near() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 0.05) }'; }
histogram() { "$BIN" --histogram --stats-file "$2" "$1" -o /dev/null -f >/dev/null 2>&1; }
ahat_classes() { "$AHAT" "$1" >"$2.full" 2>&1 && awk '$1 == "class" { print $2, $3 }' "$2.full" | sort >"$2"; }
jhat_totals() { "$JHAT" "$1" >"$2.full" 2>&1 && grep -E '^(objects|classes|instances) ' "$2.full" >"$2"; }

gzip -dc fixtures/jvm17-jcmd-gz1.hprof.gz >"$T/jvm17-jcmd-gz1.hprof"
inputs="fixtures/jvm17-64bit.hprof $T/jvm17-jcmd-gz1.hprof fixtures/jvm7-hprof-agent.hprof"
if [ -e build/fresh/jvm-30mb.hprof ]; then
    inputs="$inputs build/fresh/jvm-30mb.hprof"
else
    bad "no fresh JVM dump in build/fresh (make check makes it)"
fi

for f in $inputs; do
    name=$(basename "$f" .hprof)
    a=$T/$name-art.hprof
    if ! "$ARTDUMP" "$f" "$a" 2>"$T/log"; then
        bad "$name: artdump fails: $(cat "$T/log")"
        continue
    fi
    ok
    [ "$(head -c 19 "$a" | tr -d '\0')" = "JAVA PROFILE 1.0.3" ] && ok || bad "$name: header $(head -c 18 "$a")"
    [ "$(od -An -tu1 -j19 -N4 "$a" | tr -s ' ')" = " 0 0 0 4" ] && ok || bad "$name: id size is not 4"

    # the same instances per class (the agent's second heap dump is left out,
    # as the summary says)
    histogram "$a" "$T/out.json" && ok || bad "$name: hprof-strip --histogram fails on the output"
    case $name in
        jvm7-hprof-agent) grep -q "only the first is converted" "$T/log" && ok || bad "$name: no word on the second heap dump" ;;
        *)
            histogram "$f" "$T/in.json" && ok || bad "$name: hprof-strip --histogram fails on the input"
            counts "$T/in.json" >"$T/in.counts"
            counts "$T/out.json" >"$T/out.counts"
            [ -s "$T/in.counts" ] && cmp -s "$T/in.counts" "$T/out.counts" && ok ||
                bad "$name: instances per class differ: $(diff "$T/in.counts" "$T/out.counts" | head -5)" ;;
    esac

    # the same bytes for the same seed
    "$ARTDUMP" "$f" "$T/again.hprof" 2>/dev/null && cmp -s "$a" "$T/again.hprof" && ok ||
        bad "$name: a second run gives other bytes"

    if [ -x "$CONV" ]; then
        "$CONV" "$a" "$T/conv.hprof" >"$T/conv.err" 2>&1 && ok || bad "$name: hprof-conv rejects it: $(cat "$T/conv.err")"
    else
        bad "no hprof-conv at $CONV (sh tools/install-deps.sh --test installs it)"
    fi
    "$BIN" -p none "$a" -o "$T/none.hprof" -f 2>"$T/err" && cmp -s "$a" "$T/none.hprof" && ok ||
        bad "$name: -p none does not give it back byte for byte: $(cat "$T/err")"
    if "$BIN" -p android-app --to-jvm "$a" -o "$T/app.hprof" -f 2>"$T/err"; then
        sh tools/vvm-histogram.sh "$T/app.hprof" >"$T/vvm" 2>&1 && ok ||
            bad "$name: VisualVM's parser rejects -p android-app --to-jvm of it: $(head -c 300 "$T/vvm")"
    else
        bad "$name: -p android-app --to-jvm fails: $(cat "$T/err")"
    fi

    if [ $ahat = 1 ]; then
        if ahat_classes "$a" "$T/ahat.out"; then
            ok
            if [ "$name" != jvm7-hprof-agent ]; then
                ahat_classes "$f" "$T/ahat.in" && [ -s "$T/ahat.in" ] && cmp -s "$T/ahat.in" "$T/ahat.out" && ok ||
                    bad "$name: ahat's per-class counts differ: $(diff "$T/ahat.in" "$T/ahat.out" | head -5)"
            fi
        else
            bad "$name: ahat's parser rejects it: $(head -c 300 "$T/ahat.out.full")"
        fi
    fi
    if [ $jhat = 1 ]; then
        if "$BIN" -p none --to-jvm "$a" -o "$T/jvm.hprof" -f 2>"$T/err" && jhat_totals "$T/jvm.hprof" "$T/jhat.out"; then
            ok
            jhat_totals "$f" "$T/jhat.in" && [ -s "$T/jhat.in" ] && cmp -s "$T/jhat.in" "$T/jhat.out" && ok ||
                bad "$name: jhat's totals differ: $(diff "$T/jhat.in" "$T/jhat.out" | head -5)"
        else
            bad "$name: jhat's parser rejects --to-jvm of it: $(cat "$T/err"; head -c 300 "$T/jhat.out.full")"
        fi
    fi
done

# ---- heaps: the shares asked for, on the fresh dump -------------------------
f=build/fresh/jvm-30mb.hprof
if [ -e $f ]; then
    for fr in "0.2 0.3 1" "0.1 0.45 7" "0.4 0.4 2" "0 0 3" "1 0 4"; do
        set -- $fr
        if "$ARTDUMP" --seed "$3" --zygote-frac "$1" --image-frac "$2" $f "$T/f.hprof" 2>"$T/err" &&
            histogram "$T/f.hprof" "$T/f.json"; then
            set -- "$1" "$2" $(shares "$T/f.json")
            near "$1" "$3" && near "$2" "$4" && ok ||
                bad "--zygote-frac $1 --image-frac $2: system objects zygote $3, image $4"
        else
            bad "--zygote-frac $1 --image-frac $2: $(cat "$T/err")"
        fi
    done
    # every heap named, by HEAP_DUMP_INFO, at the default fractions
    histogram "$T/jvm-30mb-art.hprof" "$T/f.json"
    for h in app zygote image; do
        grep -q "\"heap\":\"$h\"\|\"heap\": \"$h\"" "$T/f.json" && ok || bad "no object in the $h heap"
    done
    # another seed, other bytes (and the same objects)
    "$ARTDUMP" --seed 2 $f "$T/s2.hprof" 2>/dev/null
    cmp -s "$T/s2.hprof" "$T/jvm-30mb-art.hprof" && bad "--seed 2 gives the bytes of seed 1" || ok
    histogram "$T/s2.hprof" "$T/s2.json" && counts "$T/s2.json" | cmp -s - "$T/out.counts" && ok ||
        bad "--seed 2: other instances per class"
fi
finish
