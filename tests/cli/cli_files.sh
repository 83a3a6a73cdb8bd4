#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/cli/cli_files.sh - the file rule (hprof-strip(1), FILES), one check for
# each way it was broken: a report written over the input, a second file
# name replacing a dump, a file created during the run replaced at its end,
# modes wider than the file replaced, -z output under a plain name, a
# directory as INPUT (a usage error, not a read one).
# Usage: sh tests/cli/cli_files.sh ./hprof-strip
set -u
NAME=cli_files
. "$(dirname "$0")/../lib.sh"
BIN=${1:-./hprof-strip}
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
FIX=$(pwd)/fixtures/jvm17-64bit.hprof
MAP=$(pwd)/tests/data/deobf/jvm17-r8.map
cd "$T" || exit 1

sum() { cksum <"$1" 2>/dev/null; }
same() { # same FILE SUM WHAT: FILE still holds what it held
    if [ "$(sum "$1")" = "$2" ]; then ok; else bad "$3: $1 changed"; fi
}
no_temp() {
    if ls -a | grep -q '\.tmp-'; then bad "$1: temporary file left: $(ls -a | grep '\.tmp-')"; else ok; fi
}
# each part starts from a whole input, so that one failing does not fail the rest
fresh_input() { cmp -s "$FIX" d.hprof || { bad "d.hprof was damaged before: $1"; cp "$FIX" d.hprof; }; }
is_json() { python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$1" 2>/dev/null; }

cp "$FIX" d.hprof
D=$(sum d.hprof)
cp "$MAP" m.map
M=$(sum m.map)
printf 'strings drop-unused\narrays all zero\n' >my.rules
R=$(sum my.rules)

# ---- 1. --stats-file never names an input, the output, or a dump ---------
"$BIN" --stats-file d.hprof d.hprof -o o.hprof 2>err; rc=$?
expect_rc 2 "--stats-file INPUT"; same d.hprof "$D" "--stats-file INPUT"
expect_grep "is INPUT d.hprof (the same file)" err "--stats-file INPUT message"
[ ! -e o.hprof ] && ok || bad "--stats-file INPUT: the run went on"
ln -s d.hprof link.json
"$BIN" -f --stats-file link.json d.hprof -o o.hprof 2>err; rc=$?
expect_rc 2 "--stats-file through a link to INPUT"; same d.hprof "$D" "--stats-file link"
[ -L link.json ] && ok || bad "--stats-file replaced the link"
"$BIN" --stats-file d.hprof <d.hprof >o.hprof 2>err; rc=$?
expect_rc 2 "--stats-file = standard input's file"; same d.hprof "$D" "--stats-file stdin"
rm -f o.hprof
"$BIN" --mapping m.map --stats-file m.map d.hprof -o o.hprof 2>err; rc=$?
expect_rc 2 "--stats-file = --mapping"; same m.map "$M" "--stats-file mapping"
"$BIN" -r my.rules --stats-file my.rules d.hprof -o o.hprof 2>err; rc=$?
expect_rc 2 "--stats-file = -r"; same my.rules "$R" "--stats-file rules"
"$BIN" --stats-file o.hprof d.hprof -o o.hprof 2>err; rc=$?
expect_rc 2 "--stats-file = -o"; expect_grep "name the same file" err "--stats-file = -o message"
[ ! -e o.hprof ] && ok || bad "--stats-file = -o: something written"
ln -s o.hprof olink
"$BIN" -f --stats-file olink d.hprof -o o.hprof 2>err; rc=$?
expect_rc 2 "--stats-file = a link to -o (new)"
[ ! -e o.hprof ] && ok || bad "--stats-file = link to -o: something written"
# the slip the option invites: `--stats-file big.hprof -o small.hprof`, the
# dump on standard input; a dump is never replaced by a report, -f or not
cp d.hprof big.hprof
for f in "" -f; do
    "$BIN" $f --stats-file big.hprof -o small.hprof <d.hprof 2>err; rc=$?
    expect_rc 2 "--stats-file over a dump $f"; same big.hprof "$D" "--stats-file over a dump $f"
    expect_grep "holds a heap dump" err "--stats-file over a dump $f: message"
done
# an earlier report is replaced, as pipelines expect; other files need -f
echo '{"old": 1}' >r.json
"$BIN" --stats-file r.json d.hprof -o o1.hprof 2>err; rc=$?
expect_rc 0 "--stats-file over a report"; is_json r.json && grep -q exit_status r.json && ok ||
    bad "--stats-file over a report: not the new report"
: >empty.json
"$BIN" --stats-file empty.json d.hprof -o o2.hprof 2>err; rc=$?
expect_rc 0 "--stats-file over an empty file"
echo "my notes" >notes.txt
"$BIN" --stats-file notes.txt d.hprof -o o3.hprof 2>err; rc=$?
expect_rc 2 "--stats-file over a text file"; expect_grep "not a JSON report; use -f" err "text msg"
grep -q "my notes" notes.txt && ok || bad "--stats-file over a text file replaced it"
"$BIN" -f --stats-file notes.txt d.hprof -o o3.hprof 2>err; rc=$?
expect_rc 0 "-f --stats-file over a text file"; is_json notes.txt && ok || bad "-f notes.txt"
rm -f o*.hprof olink

# ---- standard output that is an input ------------------------------------
fresh_input "standard output"
cp d.hprof e.hprof
"$BIN" -p none e.hprof >>e.hprof 2>err; rc=$?
expect_rc 2 "INPUT >>INPUT"; same e.hprof "$D" "INPUT >>INPUT"
expect_grep "standard output is INPUT e.hprof" err "INPUT >>INPUT message"

# ---- -o and OUTPUT: never an input ---------------------------------------
fresh_input "-o and OUTPUT"
for o in d.hprof link.json; do
    "$BIN" -f d.hprof -o $o 2>err; rc=$?
    expect_rc 2 "-f -o $o (the input)"; same d.hprof "$D" "-f -o $o"
done
ln d.hprof hard.hprof # another name of the same file: the same file
"$BIN" -f d.hprof -o hard.hprof 2>err; rc=$?
expect_rc 2 "-f -o a hard link to the input"; same d.hprof "$D" "-f -o hard link"
rm -f hard.hprof
"$BIN" -f --mapping m.map d.hprof -o m.map 2>err; rc=$?
expect_rc 2 "-f -o the mapping"; same m.map "$M" "-f -o the mapping"
"$BIN" -f -r my.rules d.hprof my.rules 2>err; rc=$?
expect_rc 2 "-f OUTPUT the rule file"; same my.rules "$R" "-f OUTPUT rules"
no_temp "outputs that are inputs"

# ---- 2. a second file name never replaces a dump -------------------------
fresh_input "item 2"
cp d.hprof a.hprof; cp "$(dirname "$FIX")/jvm7-hprof-agent.hprof" b.hprof
B=$(sum b.hprof)
"$BIN" -f a.hprof b.hprof 2>err; rc=$?       # what -f *.hprof expands to
expect_rc 2 "-f a.hprof b.hprof"; same b.hprof "$B" "-f a.hprof b.hprof"
expect_grep "named as OUTPUT" err "-f a b: message"
"$BIN" a.hprof b.hprof 2>err; rc=$?
expect_rc 2 "a.hprof b.hprof"; same b.hprof "$B" "a.hprof b.hprof"
expect_no_grep "use -f to overwrite" err "the refusal of a dump named as OUTPUT suggests -f"
gzip -c b.hprof >b.hprof.gz; G=$(sum b.hprof.gz)
"$BIN" -f a.hprof b.hprof.gz 2>err; rc=$?
expect_rc 2 "-f a.hprof b.hprof.gz"; same b.hprof.gz "$G" "-f a.hprof b.hprof.gz"
# said with -o, it is what was asked for
"$BIN" -p none -f a.hprof -o b.hprof 2>err; rc=$?
expect_rc 0 "-f a.hprof -o b.hprof"; cmp -s a.hprof b.hprof && ok || bad "-f -o b.hprof: not replaced"
# an OUTPUT that holds no dump is replaced with -f, as before
echo "not a dump" >c.out
"$BIN" -p none -f a.hprof c.out 2>err; rc=$?
expect_rc 0 "-f a.hprof c.out (no dump)"; cmp -s a.hprof c.out && ok || bad "-f OUTPUT text"

# ---- 3. a file created while the run goes on stays -----------------------
fresh_input "item 3"
# slow_run OUT ARGS...: the run reads d.hprof through a FIFO fed in two
# parts; OUT is created between them (by `set -C`, so never over the run's)
slow_run() {
    out=$1; shift
    rm -f fifo; mkfifo fifo
    { head -c 1000000 d.hprof; sleep 1; tail -c +1000001 d.hprof; } >fifo &
    feeder=$!
    "$BIN" -p none "$@" fifo 2>err &
    run=$!
    sleep 0.4
    (set -C; echo precious >"$out") 2>/dev/null
    wait $run; rc=$?
    # a run that died before opening the FIFO leaves the feeder blocked in
    # its open(): stop it rather than hang
    kill $feeder 2>/dev/null
    wait $feeder 2>/dev/null
}
slow_run late.hprof -o late.hprof
expect_rc 4 "-o created during the run"; expect_grep "was created while this run went on" err "late msg"
[ "$(cat late.hprof)" = precious ] && ok || bad "a file created during the run was replaced"
no_temp "-o created during the run"
rm -f late.hprof
slow_run late.hprof -f -o late.hprof
expect_rc 0 "-f -o created during the run"; cmp -s d.hprof late.hprof && ok || bad "-f: not replaced"
rm -f late.hprof
# two runs at once, one name, no -f: one wins, the other says so
rm -f f1 f2; mkfifo f1 f2
{ head -c 1000000 d.hprof; sleep 1; tail -c +1000001 d.hprof; } >f1 &
{ head -c 1000000 d.hprof; sleep 1; tail -c +1000001 d.hprof; } >f2 &
"$BIN" -p none f1 -o both.hprof 2>err1 & r1=$!
"$BIN" -p none f2 -o both.hprof 2>err2 & r2=$!
wait $r1; rc1=$?; wait $r2; rc2=$?; wait
[ $((rc1 + rc2)) -eq 4 ] && [ $((rc1 * rc2)) -eq 0 ] && ok ||
    bad "two runs -o both.hprof: exits $rc1 and $rc2, expected 0 and 4"
cmp -s d.hprof both.hprof && ok || bad "two runs: the winner's output is not whole"
no_temp "two runs at once"
# where renameat2 is refused (EINVAL: the file system lacks it), a hard link
# does the same; where links are refused too, a last look before rename
if cc -shared -fPIC -o shim.so -x c - -ldl 2>/dev/null <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
int renameat2(int a, const char *b, int c, const char *d, unsigned e)
{
    (void)a; (void)b; (void)c; (void)d; (void)e;
    errno = EINVAL;
    return -1;
}
int link(const char *from, const char *to)
{
    int (*real)(const char *, const char *) =
        (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "link");
    if (getenv("SHIM_NO_LINK")) {
        errno = EPERM;
        return -1;
    }
    return real(from, to);
}
EOF
then
    # (AddressSanitizer refuses to run with a library preloaded before its
    # runtime unless told not to check the order: make test-asan)
    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0
    export ASAN_OPTIONS
    for nolink in "" 1; do
        what="without renameat2${nolink:+ or link}"
        SHIM_NO_LINK=$nolink LD_PRELOAD=$T/shim.so "$BIN" -p none d.hprof -o fb.hprof 2>err; rc=$?
        expect_rc 0 "$what: a new output"; cmp -s d.hprof fb.hprof && ok || bad "$what: output"
        no_temp "$what"
        rm -f fb.hprof
        export SHIM_NO_LINK=$nolink LD_PRELOAD=$T/shim.so
        slow_run late.hprof -o late.hprof
        unset SHIM_NO_LINK LD_PRELOAD
        expect_rc 4 "$what: -o created during the run"
        [ "$(cat late.hprof)" = precious ] && ok || bad "$what: the file created was replaced"
        no_temp "$what: created during the run"
        rm -f late.hprof
    done
else
    skipped "no C compiler: the fallbacks without renameat2 and link"
fi

# ---- 5. modes: 0666 less the umask, never wider than input or replaced ---
fresh_input "item 5"
mode_of() { stat -c %a "$1"; }
expect_mode() { # expect_mode FILE WANT WHAT
    if [ "$(mode_of "$1")" = "$2" ]; then ok; else bad "$3: mode $(mode_of "$1"), expected $2"; fi
}
echo old >p600.hprof; chmod 600 p600.hprof
(umask 022; "$BIN" -p none -f d.hprof -o p600.hprof)
expect_mode p600.hprof 600 "-f over a 0600 file from a 0644 input"
cp d.hprof x777.hprof; chmod 777 x777.hprof
(umask 022; "$BIN" -p none x777.hprof -o from777.hprof)
expect_mode from777.hprof 644 "0777 input, umask 022"
(umask 022; "$BIN" -p none -z x777.hprof -o from777.hprof.zst)
expect_mode from777.hprof.zst 644 "0777 input, umask 022, -z"
(umask 077; "$BIN" -p none d.hprof -o um077.hprof)
expect_mode um077.hprof 600 "0644 input, umask 077"
(umask 027; "$BIN" -p none d.hprof -o um027.hprof)
expect_mode um027.hprof 640 "0644 input, umask 027"
chmod 4755 x777.hprof
(umask 0; "$BIN" -p none x777.hprof -o setid.hprof)
expect_mode setid.hprof 644 "set-id input, umask 0: no set-id, no x"
# files that hold names or keys (issue #50): 0600 whatever the umask, and
# never wider than the input
(umask 022; "$BIN" -q --obfuscate-names key.map --stats-file rep.json d.hprof -o obf.hprof)
expect_mode key.map 600 "--obfuscate-names key, umask 022"
expect_mode rep.json 600 "--stats-file report, umask 022"
(umask 022; "$BIN" -q --audit --stats-file audit.json d.hprof >/dev/null)
expect_mode audit.json 600 "--audit --stats-file report, umask 022"
mkdir -p many.out
(umask 022; "$BIN" -q --stats-file many.jsonl d.hprof x777.hprof -o many.out)
expect_mode many.jsonl 600 "--stats-file of many inputs, umask 022"
cp d.hprof p400.hprof; chmod 400 p400.hprof
(umask 022; "$BIN" -q --obfuscate-names key400.map --stats-file rep400.json p400.hprof -o obf400.hprof)
expect_mode key400.map 400 "--obfuscate-names key of a 0400 input"
expect_mode rep400.json 400 "--stats-file report of a 0400 input"

# ---- 12. -z (or --gzip) into a plain .hprof name -------------------------
fresh_input "item 12"
"$BIN" -z d.hprof zplain.hprof 2>err; rc=$?
expect_rc 2 "-z INPUT out.hprof"; expect_grep "says plain HPROF" err "-z out.hprof message"
[ ! -e zplain.hprof ] && ok || bad "-z out.hprof wrote it"
"$BIN" --gzip -o gplain.hprof d.hprof 2>err; rc=$?
expect_rc 2 "--gzip -o out.hprof"; [ ! -e gplain.hprof ] && ok || bad "--gzip -o out.hprof wrote it"
"$BIN" -z d.hprof zok.hprof.zst 2>err; rc=$?
expect_rc 0 "-z INPUT out.hprof.zst"
"$BIN" -z d.hprof zbare 2>err; rc=$?
expect_rc 0 "-z INPUT name-without-suffix"
"$BIN" -p none --no-compress d.hprof plain.hprof 2>err; rc=$?
expect_rc 0 "--no-compress out.hprof"

# ---- 13. a directory as INPUT is the command line's mistake -------------
# (exit 2 "usage", not 4 "read", retryable: no retry makes it a dump)
fresh_input "item 13"
mkdir dirin
"$BIN" --stats-file dir.json dirin -o fromdir.hprof 2>err; rc=$?
expect_rc 2 "a directory as INPUT"
expect_grep "dirin is a directory" err "a directory as INPUT: named"
python3 -c 'import json, sys
e = json.load(open(sys.argv[1]))["error"]
sys.exit(e["status"] != "usage" or e["retryable"] is not False)' dir.json && ok ||
    bad "a directory as INPUT: report error $(cat dir.json)"
[ ! -e fromdir.hprof ] && ok || bad "a directory as INPUT: output written"
"$BIN" -q --audit dirin 2>err; rc=$?
expect_rc 2 "--audit of a directory"
# among FILEs: that one fails as a usage error, the others are stripped
mkdir outdir
"$BIN" -q d.hprof dirin -o outdir 2>err; rc=$?
expect_rc 2 "a directory among FILEs"
expect_grep "dirin is a directory" err "a directory among FILEs: named"
[ -s outdir/d.hprof ] && ok || bad "a directory among FILEs: d.hprof not stripped"
no_temp "a directory among FILEs"

same d.hprof "$D" "the input at the end"
finish
