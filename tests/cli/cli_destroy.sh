#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/cli/cli_destroy.sh - the destruction suite: every option that names a
# file (-o, OUTPUT, --stats-file, --mapping, -r, INPUT) pointed at the
# input, at an earlier output, at a link to either, at a FIFO, a directory,
# /dev/full and a file created while the run goes on, with and without -f.
# After each run every file that was there is as it was (type, contents,
# link target), unless it was the one named output and -f allowed it (then
# it holds a valid dump); nothing else appears but the run's own outputs;
# no temporary file is left; no run hangs. The rule is hprof-strip(1)'s
# FILES. Usage: sh tests/cli/cli_destroy.sh ./hprof-strip
#
# DESTROY_CASES=even or odd runs half of the 96 cases (a case is even or
# odd by its place in the loops; each option meets each target in both
# halves, once with -f and once without): make test runs the even ones,
# make test-long all of them, CI's test-long the odd ones, so a CI run
# still runs every case once (the Makefile, .ci/run).
set -u
NAME=cli_destroy
. "$(dirname "$0")/../lib.sh"
BIN=${1:-./hprof-strip}
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
FIX=$(pwd)/fixtures/jvm7-hprof-agent.hprof
MAP=$(pwd)/tests/data/deobf/jvm17-r8.map

OPTIONS="-o OUTPUT --stats-file --mapping -r INPUT"
TARGETS="input output link-in link-out fifo dir devfull mid-run"
# the files each case starts with, checked after it
FILES="in.hprof map.txt my.rules out.hprof report.json link-in link-out fifo dir dir/keep"
nfiles=$(echo $FILES late.x | wc -w)
noptions=$(echo $OPTIONS | wc -w)
ntargets=$(echo $TARGETS | wc -w)
cases=0
compared=0

# one earlier output of the input, to stand as "the output" already there
"$BIN" -q "$FIX" >"$T/earlier.hprof" || { echo "cannot run $BIN" >&2; exit 1; }
printf 'strings drop-unused\narrays all zero\n' >"$T/my.rules"

setup() {
    rm -rf "$T/c"
    mkdir "$T/c" "$T/c/dir"
    cp "$FIX" "$T/c/in.hprof"
    cp "$MAP" "$T/c/map.txt"
    cp "$T/my.rules" "$T/c/my.rules"
    cp "$T/earlier.hprof" "$T/c/out.hprof"
    echo '{"earlier": "report"}' >"$T/c/report.json"
    echo keep >"$T/c/dir/keep"
    ln -s in.hprof "$T/c/link-in"
    ln -s out.hprof "$T/c/link-out"
    mkfifo "$T/c/fifo"
}

# state: one line per file: its type and contents, or where it links
state() {
    for f in $FILES late.x; do
        if [ -L "$f" ]; then echo "$f link $(readlink "$f")"
        elif [ -p "$f" ]; then echo "$f fifo"
        elif [ -d "$f" ]; then echo "$f dir"
        elif [ -f "$f" ]; then echo "$f file $(cksum <"$f")"
        else echo "$f none"; fi
    done
}

# feed FIFO FILE: writes FILE into the FIFO in the background, in two
# parts with a pause between (a slow input); $feeder is its pid
feed() {
    { head -c 200000 "$2"; sleep 0.6; tail -c +200001 "$2"; } >"$1" 2>/dev/null &
    feeder=$!
}

# one_case OPTION TARGET FORCE
one_case() {
    opt=$1 target=$2 force=$3
    setup
    cd "$T/c" || exit 1
    # the path the option gets
    case $target in
        input) path=in.hprof ;;
        output) path=out.hprof ;;
        link-in) path=link-in ;;
        link-out) path=link-out ;;
        fifo) path=fifo ;;
        dir) path=dir ;;
        devfull) path=/dev/full ;;
        mid-run) path=late.x ;;
    esac
    # the run's other files: the input, the output (out.hprof when the
    # target is "the output", so that it is this run's), the report, the
    # mapping, the rules
    in=in.hprof out=new.hprof rep=new.json map=map.txt rules=my.rules
    case $target in output | link-out) out=out.hprof ;; esac
    outopt=-o
    case $opt in
        -o) out=$path ;;
        OUTPUT) out=$path outopt= ;;
        --stats-file) rep=$path ;;
        --mapping) map=$path ;;
        -r) rules=$path ;;
        INPUT) in=$path ;;
    esac
    # the slow input for a file made during the run; what a FIFO target
    # is fed (or drained by)
    feeder= reader=
    if [ "$target" = mid-run ] && [ "$opt" != INPUT ]; then
        mkfifo slow
        in=slow
        feed slow in.hprof
    fi
    if [ "$target" = fifo ]; then
        case $opt in
            INPUT) feed fifo in.hprof ;;
            --mapping) feed fifo map.txt ;;
            -r) feed fifo my.rules ;;
            *) cat fifo >"$T/fifo.got" & reader=$! ;;
        esac
    fi
    before=$(state)
    (
        ulimit -v 2000000 # --mapping /dev/full reads zeros for ever
        exec timeout 30 "$BIN" -q $force -r "$rules" --mapping "$map" --stats-file "$rep" \
            "$in" $outopt "$out"
    ) 2>"$T/err" &
    run=$!
    made=
    if [ "$target" = mid-run ]; then
        sleep 0.3
        # never over a file the run made itself (a report opened at once)
        (set -C; echo "made during the run" >late.x) 2>/dev/null && made=1
        before=$(state)
    fi
    wait $run; rc=$?
    [ -n "$feeder" ] && { kill $feeder 2>/dev/null; wait $feeder 2>/dev/null; }
    [ -n "$reader" ] && { kill $reader 2>/dev/null; wait $reader 2>/dev/null; }
    rm -f slow
    after=$(state)
    what="$opt $target${force:+ $force} (exit $rc)"
    cases=$((cases + 1))
    [ "$rc" -eq 124 ] && bad "$what: hung (killed after 30 s)"

    # the files the run may change: the one named output, with -f (the
    # report never replaces what is there but a report, and none is)
    allowed=
    if [ -n "$force" ]; then
        case $opt/$target in
            -o/output | -o/link-out | --stats-file/output | --stats-file/link-out) allowed=out.hprof ;;
            -o/mid-run | OUTPUT/mid-run | --stats-file/mid-run) allowed=late.x ;;
        esac
    fi
    echo "$before" >"$T/before"
    echo "$after" >"$T/after"
    while read -r f rest; do
        compared=$((compared + 1))
        now=$(grep "^$f " "$T/after")
        if [ "$now" = "$f $rest" ]; then
            ok
        elif [ "$f" = "$allowed" ] && [ -f "$f" ] && [ ! -L "$f" ]; then
            # replaced as asked: by a whole dump, or by the report it named
            if [ "$opt/$target" = --stats-file/mid-run ]; then
                python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$f" 2>/dev/null
            else
                "$BIN" -q -p none "$f" >/dev/null 2>&1
            fi && ok || bad "$what: $f replaced by what was not asked for"
        elif [ "$f" = late.x ] && [ -z "$made" ]; then
            ok # the run's own output under that name, made before the test could
        else
            bad "$what: $f was '$rest', now '${now#"$f" }': $(head -c 300 "$T/err")"
        fi
    done <"$T/before"
    # a file named as an input is never an output
    case $opt/$target in
        -o/input | -o/link-in | OUTPUT/input | OUTPUT/link-in | --stats-file/input | --stats-file/link-in)
            expect_rc 2 "$what: an output naming the input" ;;
    esac
    # nothing else appears but the run's outputs, whole
    for f in $(ls -A); do
        case " $FILES late.x " in *" $f "*) continue ;; esac
        case $f in
            new.hprof) "$BIN" -q -p none new.hprof >/dev/null 2>&1 && ok || bad "$what: new.hprof is no dump" ;;
            new.json) python3 -c 'import json,sys; json.load(open(sys.argv[1]))' new.json 2>/dev/null && ok ||
                bad "$what: new.json is no JSON report" ;;
            *) bad "$what: $f appeared" ;;
        esac
    done
    cd "$T" || exit 1
}

# the run every case varies works as it stands (else every case would be
# refused for the same unrelated reason, and prove nothing)
setup
(cd "$T/c" && "$BIN" -q -r my.rules --mapping map.txt --stats-file new.json in.hprof -o new.hprof) \
    2>"$T/err"; rc=$?
expect_rc 0 "the run all cases vary: $(cat "$T/err")"

PART=${DESTROY_CASES:-all}
case $PART in all | even | odd) ;; *) echo "DESTROY_CASES must be all, even or odd" >&2; exit 2 ;; esac
index=0
for force in "" -f; do
    for opt in $OPTIONS; do
        for target in $TARGETS; do
            # even/odd by option and target, flipped by -f: each pair once a half
            f=0
            [ -n "$force" ] && f=1
            parity=$(( (index + f) % 2 ))
            index=$((index + 1))
            case $PART/$parity in even/1 | odd/0) continue ;; esac
            one_case "$opt" "$target" "$force"
        done
    done
done

echo "cli_destroy: $nfiles files x $noptions options x $ntargets targets x 2 (with and without -f):" \
    "$cases runs ($PART cases), $compared file comparisons"
want=$((noptions * ntargets * 2))
[ "$PART" = all ] || want=$((want / 2))
[ "$cases" -eq "$want" ] && ok || bad "ran $cases cases of the $want this part holds"
finish
