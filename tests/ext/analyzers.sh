#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Every output of every corpus dump and fixture, for every preset, loaded by
# three analyzers' own parsers: VisualVM's (tools/vvm-histogram.sh), ahat's and
# jhat's (../shared/tools). Where the rules keep every object (none, default,
# privacy) ahat's per-class counts and sizes must equal the input's.
# Cases in tests/ext/known-failures.txt ("DUMP|ARGS|ANALYZER") are run and
# reported XFAIL when they fail, XPASS (a failure of the run) when they pass,
# so the list is emptied when the fix lands. Without ../shared: the fixtures,
# through VisualVM's parser only.
# Usage: sh tests/ext/analyzers.sh BIN
set -u
bin=$1
NAME=analyzers
. "$(dirname "$0")/../lib.sh"
tmp=$T
known=$TESTS/ext/known-failures.txt
n_x=0
tools=../shared/tools
ahat=0; jhat=0; corpus=
have_shared $tools/ahatsum/ahatsum "analyzers: ahat's parser" && ahat=1
have_shared $tools/jhatsum/jhatsum "analyzers: jhat's parser" && jhat=1
have_shared ../shared/corpus "analyzers: the shared corpus's dumps" && corpus="../shared/corpus/*.hprof ../shared/corpus/*.hprof.gz"
is_known() { grep -qxF "$1" "$known" 2>/dev/null; }

# check CASE-ID COMMAND...: runs the command, applies the known-failure list.
check() {
    id=$1; shift
    if "$@" >"$tmp/out.log" 2>&1; then
        if is_known "$id"; then bad "XPASS $id (remove it from tests/ext/known-failures.txt)"
        else ok; fi
    elif is_known "$id"; then echo "XFAIL $id: $(head -c 200 "$tmp/out.log" | tr '\n' ' ')"; n_x=$((n_x + 1))
    else bad "$id: $(head -c 300 "$tmp/out.log" | tr '\n' ' ')"; fi
}

classes() { grep -E '^(class|instances|bytes) ' "$1"; }
same_classes() { "$tools/ahatsum/ahatsum" "$1" >"$tmp/a" && "$tools/ahatsum/ahatsum" "$2" >"$tmp/b" &&
                 classes "$tmp/a" >"$tmp/a.c" && classes "$tmp/b" >"$tmp/b.c" && diff "$tmp/a.c" "$tmp/b.c"; }
is_android() { head -c 18 "$1" | grep -q '1\.0\.3'; }

one_dump() {
    d=$1; name=$2
    presets="none default privacy android-app"
    is_android "$d" && presets="$presets to-jvm android-app+to-jvm"
    for p in $presets; do
        case $p in
            to-jvm) args="--to-jvm" ;;
            android-app+to-jvm) args="-p android-app --to-jvm" ;;
            *) args="-p $p" ;;
        esac
        o=$tmp/o.hprof
        # shellcheck disable=SC2086
        if ! "$bin" $args "$d" -o "$o" -f 2>"$tmp/strip.err"; then
            bad "$name|$args|hprof-strip: $(cat "$tmp/strip.err")"; continue
        fi
        check "$name|$args|visualvm" sh tools/vvm-histogram.sh "$o"
        [ $ahat = 1 ] && check "$name|$args|ahat" "$tools/ahatsum/ahatsum" "$o"
        [ $jhat = 1 ] && ! is_android "$o" && check "$name|$args|jhat" "$tools/jhatsum/jhatsum" "$o"
        case $p in none|default|privacy|to-jvm)
            [ $ahat = 1 ] && check "$name|$args|same-classes" same_classes "$d" "$o" ;;
        esac
    done
}

for d in $(sample_dumps $corpus fixtures/*.hprof); do
    [ -e "$d" ] || continue
    name=$(basename "$d")
    case $name in
        bad-*) if "$bin" -p none "$d" -o /dev/null 2>/dev/null; then bad "$name accepted"; else ok; fi
                continue ;;
        *.gz) gzip -dc "$d" >"$tmp/in.hprof"; d=$tmp/in.hprof ;;
    esac
    one_dump "$d" "$name"
done
echo "analyzers: $n_x known failures (tests/ext/known-failures.txt)"
finish
