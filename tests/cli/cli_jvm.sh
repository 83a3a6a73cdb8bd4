#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/cli/cli_jvm.sh - --jvm PID (issue #37 item 2): a JVM started here with
# a known heap (12345 Marker, 777 int[100], 5000 unreachable Garbage) is
# stripped through the FIFO, and its classes and counts are those of
# `jcmd PID GC.heap_dump FILE` stripped from FILE; --jvm-all keeps the
# unreachable objects, the default (live) does not. jcmd's failures: no
# such process, a process that is no JVM (sleep), jcmd missing, the JVM
# refusing, a dump broken off; SIGTERM while waiting for the JVM and while
# stripping. After every run the private directory and FIFO are gone: each
# run has TMPDIR set to a directory of its own, checked empty after.
# A fake jcmd (JAVA_HOME=$T/fake, bin/jcmd a shell script) plays the JVM's
# failures and its slow writes. Every JVM started here is killed (trap).
# Needs java, javac, jcmd (tools/install-deps.sh --test); skipped with one
# line without them, never under CI=true.
# Usage: sh tests/cli/cli_jvm.sh ./hprof-strip
set -u
BIN=${1:-./hprof-strip}
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
NAME=cli_jvm
. "$(dirname "$0")/../lib.sh"

if ! command -v java >/dev/null 2>&1 || ! command -v javac >/dev/null 2>&1 ||
    ! command -v jcmd >/dev/null 2>&1; then
    if [ "${CI:-}" = true ]; then
        bad "java, javac and jcmd are missing, which CI must have (tools/install-deps.sh --test)"
    else
        skipped "cli_jvm: java, javac or jcmd not installed (tools/install-deps.sh --test)"
    fi
    finish
    exit $?
fi

JVMS=
trap 'for p in $JVMS; do kill -9 $p 2>/dev/null; done; rm -rf "$T"' EXIT

# schema REPORT KEY=VALUE...: the whole report against the man page's schema
schema() {
    if out=$(python3 "$TESTS/cli/report_schema.py" "$TESTS/../src/lib/hprof_strip.h" "$@" 2>&1); then ok
    else bad "report $1: $out"; fi
}
# count REPORT CLASS: instances of CLASS in the report's input histogram
count() {
    python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))
print(sum(h['instances'] for h in r['histogram']['input'] if h['class'] == sys.argv[2]))" "$1" "$2"
}
# empty_tmp DIR WHAT: the private TMPDIR holds nothing after the run
empty_tmp() {
    if [ -z "$(ls -A "$1")" ]; then ok; else bad "$2: left in TMPDIR: $(ls -A "$1")"; fi
}
# newtmp: a fresh private TMPDIR for one run, in $TD
n=0
newtmp() { n=$((n + 1)); TD=$T/tmp$n; mkdir "$TD"; }

mkdir "$T/cls"
cat >"$T/Hold.java" <<'EOF'
// SPDX-License-Identifier: Apache-2.0
public class Hold {
    static class Marker { int v; Marker(int v) { this.v = v; } }
    static class Garbage { long a, b; }
    static Object[] keep;
    public static void main(String[] args) throws Exception {
        Marker[] m = new Marker[12345];
        for (int i = 0; i < m.length; i++) m[i] = new Marker(i);
        int[][] arr = new int[777][];
        for (int i = 0; i < arr.length; i++) arr[i] = new int[100];
        keep = new Object[] {m, arr};
        for (int i = 0; i < 5000; i++) new Garbage(); // unreachable from here on
        System.out.println("ready");
        Thread.sleep(3600 * 1000);
    }
}
EOF
if ! javac -d "$T/cls" "$T/Hold.java" 2>"$T/javac.err"; then
    bad "javac: $(cat "$T/javac.err")"
    finish
    exit 1
fi
# A young generation big enough that no GC runs before the dumps: the
# Garbage objects stay for --jvm-all to find.
java -Xmx256m -Xmn64m -XX:+UseSerialGC -cp "$T/cls" Hold >"$T/hold.out" 2>&1 &
JVM=$!
JVMS="$JVMS $JVM"
i=0
while ! grep -q ready "$T/hold.out" 2>/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
grep -q ready "$T/hold.out" || bad "the test JVM did not start: $(cat "$T/hold.out")"

# --jvm-all first: the live dumps' full GC would collect the garbage
newtmp
TMPDIR=$TD "$BIN" --jvm "$JVM" --jvm-all --histogram --stats-file "$T/all.json" -o "$T/all.hprof" \
    2>"$T/all.err"
rc=$?
expect_rc 0 "--jvm-all"
empty_tmp "$TD" "--jvm-all"
[ "$(count "$T/all.json" 'Hold$Garbage')" = 5000 ] && ok ||
    bad "--jvm-all: Hold\$Garbage $(count "$T/all.json" 'Hold$Garbage'), expected 5000"
[ "$(count "$T/all.json" 'Hold$Marker')" = 12345 ] && ok ||
    bad "--jvm-all: Hold\$Marker $(count "$T/all.json" 'Hold$Marker'), expected 12345"
"$BIN" --histogram --stats-file "$T/all2.json" "$T/all.hprof" -o /dev/null 2>/dev/null
[ "$(count "$T/all2.json" 'Hold$Marker')" = 12345 ] && ok ||
    bad "--jvm-all's output: Hold\$Marker $(count "$T/all2.json" 'Hold$Marker'), expected 12345"

# the default: live objects (no Garbage), the classes and counts of jcmd
# into a file stripped from it
newtmp
TMPDIR=$TD "$BIN" --jvm "$JVM" --histogram --stats-file "$T/live.json" -o "$T/live.hprof" \
    2>"$T/live.err"
rc=$?
expect_rc 0 "--jvm (live)"
empty_tmp "$TD" "--jvm (live)"
[ -s "$T/live.hprof" ] && ok || bad "--jvm wrote no output"
schema "$T/live.json" exit_status=0 error=null input.name="\"jvm:$JVM\""
jcmd "$JVM" GC.heap_dump "$T/file.hprof" >"$T/jcmd.out" 2>&1
grep -q "Heap dump file created" "$T/jcmd.out" || bad "jcmd into a file: $(cat "$T/jcmd.out")"
"$BIN" --histogram --stats-file "$T/file.json" "$T/file.hprof" -o "$T/file.stripped.hprof" \
    2>/dev/null
for c in 'Hold$Marker' 'Hold$Marker[]' 'int[][]' 'Hold$Garbage' 'java.lang.Thread'; do
    a=$(count "$T/live.json" "$c")
    b=$(count "$T/file.json" "$c")
    [ "$a" = "$b" ] && ok || bad "--jvm against jcmd to a file: $c: $a, the file's $b"
done
[ "$(count "$T/live.json" 'Hold$Marker')" = 12345 ] && ok || bad "--jvm: Hold\$Marker count"
[ "$(count "$T/live.json" 'Hold$Garbage')" = 0 ] && ok || bad "--jvm (live): Garbage kept"
a=$(count "$T/live.json" 'int[]')
b=$(count "$T/file.json" 'int[]')
# the JVM allocates between the two dumps (the attach listener): close,
# and never fewer than the test's 777
[ "$a" -ge 777 ] && [ "$b" -ge 777 ] && [ $((a - b)) -le 20 ] && [ $((b - a)) -le 20 ] && ok ||
    bad "--jvm against jcmd to a file: int[]: $a, the file's $b"
# the output reads as a dump: stripped again, the same classes
"$BIN" --histogram --stats-file "$T/live2.json" "$T/live.hprof" -o /dev/null 2>/dev/null
rc=$?
expect_rc 0 "--jvm's output stripped again"
[ "$(count "$T/live2.json" 'Hold$Marker')" = 12345 ] && ok || bad "--jvm's output: Marker count"

# to standard output, a pipe
newtmp
TMPDIR=$TD "$BIN" --jvm "$JVM" 2>"$T/pipe.err" | "$BIN" --histogram --stats-file "$T/pipe.json" \
    -o /dev/null 2>/dev/null
[ "$(count "$T/pipe.json" 'Hold$Marker')" = 12345 ] && ok || bad "--jvm | : Marker count"
empty_tmp "$TD" "--jvm to standard output"

# the strip failing early (a full output): its own exit status at once,
# the JVM's dump ended by EPIPE, the JVM unharmed
newtmp
TMPDIR=$TD timeout 60 "$BIN" --jvm "$JVM" -f -o /dev/full 2>"$T/err"
rc=$?
expect_rc 4 "--jvm into /dev/full"
expect_grep "No space left" "$T/err" "--jvm into /dev/full"
empty_tmp "$TD" "--jvm into /dev/full"
jcmd "$JVM" VM.uptime >"$T/up" 2>&1 && ok || bad "the JVM after --jvm into /dev/full: $(cat "$T/up")"

# usage: an input operand, --jvm-all alone, a bad PID
"$BIN" --jvm "$JVM" "$T/file.hprof" -o "$T/x.hprof" 2>"$T/err"
rc=$?
expect_rc 2 "--jvm with INPUT"
expect_grep "not '.*file.hprof'" "$T/err" "--jvm with INPUT"
mkdir -p "$T/outdir"
"$BIN" --jvm "$JVM" "$T/file.hprof" -o "$T/outdir" 2>"$T/err"
rc=$?
expect_rc 2 "--jvm with FILE -o DIR"
expect_grep "not a FILE too" "$T/err" "--jvm with FILE -o DIR"
[ -z "$(ls -A "$T/outdir")" ] && ok || bad "--jvm with FILE -o DIR wrote $(ls "$T/outdir")"
"$BIN" --jvm-all -o "$T/x.hprof" 2>"$T/err"
rc=$?
expect_rc 2 "--jvm-all without --jvm"
"$BIN" --jvm 12ab -o "$T/x.hprof" 2>"$T/err"
rc=$?
expect_rc 2 "--jvm 12ab"
# an output that exists, refused before the JVM is touched (no jcmd runs:
# a fake one that would leave a mark)
mkdir -p "$T/mark/bin"
printf '#!/bin/sh\necho ran >"%s/mark/ran"\n' "$T" >"$T/mark/bin/jcmd"
chmod +x "$T/mark/bin/jcmd"
: >"$T/exists.hprof"
JAVA_HOME=$T/mark "$BIN" --jvm "$JVM" -o "$T/exists.hprof" 2>"$T/err"
rc=$?
expect_rc 2 "--jvm into an existing file"
[ ! -e "$T/mark/ran" ] && ok || bad "--jvm into an existing file: jcmd ran"

# no such process: exit 9, said so, no jcmd
sleep 0.1 &
gone=$!
wait $gone
newtmp
TMPDIR=$TD "$BIN" --jvm "$gone" -o "$T/x.hprof" --stats-file "$T/gone.json" 2>"$T/err"
rc=$?
expect_rc 9 "--jvm of no process"
expect_grep "no such process" "$T/err" "--jvm of no process"
schema "$T/gone.json" exit_status=9 error.status='"jvm-target"' error.retryable=false \
    input.name="\"jvm:$gone\""
[ ! -e "$T/x.hprof" ] && ok || bad "--jvm of no process: output written"
empty_tmp "$TD" "--jvm of no process"

# a process that is not a JVM: exit 9 at once, and it is not sent SIGQUIT
sleep 60 &
sl=$!
JVMS="$JVMS $sl"
newtmp
TMPDIR=$TD "$BIN" --jvm "$sl" -o "$T/x.hprof" 2>"$T/err"
rc=$?
expect_rc 9 "--jvm of sleep"
expect_grep "not a JVM" "$T/err" "--jvm of sleep"
kill -0 "$sl" 2>/dev/null && ok || bad "--jvm of sleep: the sleep died"
kill "$sl" 2>/dev/null
empty_tmp "$TD" "--jvm of sleep"

# jcmd missing: exit 10
newtmp
env -u JAVA_HOME PATH="$T/nowhere" TMPDIR="$TD" "$BIN" --jvm "$JVM" -o "$T/x.hprof" 2>"$T/err"
rc=$?
expect_rc 10 "--jvm without jcmd"
expect_grep "cannot run jcmd" "$T/err" "--jvm without jcmd"
empty_tmp "$TD" "--jvm without jcmd"

# fake jcmds: $1 PID, then the command's words, which jcmd joins with
# spaces and the JVM splits again (dcmd.py: at spaces, a quoted word
# whole, a word with '=' an option's value); $fifo the name the JVM
# reads, opened from the JVM's own directory (here /), as the JVM does
cat >"$T/dcmd.py" <<'EOF'
# SPDX-License-Identifier: Apache-2.0
import sys
line, words, i = " ".join(sys.argv[2:]), [], 0
while i < len(line):
    if line[i] == " ":
        i += 1
        continue
    w, opt = "", False
    while i < len(line) and line[i] != " ":
        if line[i] in "\"'":
            j = line.find(line[i], i + 1)
            j = len(line) if j < 0 else j
            w, i = w + line[i + 1:j], j + 1
        else:
            opt = opt or line[i] == "="
            w, i = w + line[i], i + 1
    words.append((w, opt))
files = [w for w, opt in words[1:] if not w.startswith("-") and not opt]
bad = [w for w, opt in words[1:] if opt]
if words[:1] != [("GC.heap_dump", False)] or len(files) != 1 or bad:
    sys.stderr.write("java.lang.IllegalArgumentException: Unknown argument '%s' in diagnostic "
                     "command.\n" % (bad or files[1:] or ["?"])[0])
    sys.exit(1)
print(files[0])
EOF
fake() {
    mkdir -p "$T/$1/bin"
    {
        echo '#!/bin/sh'
        # (the dump's jcmd only: --jvm first asks `jcmd PID help GC.heap_dump`)
        echo "[ \"\$2\" = help ] || echo \$\$ >'$T/$1.pid'"
        echo "fifo=\$(python3 '$T/dcmd.py' \"\$@\") || exit 1"
        echo 'cd / || exit 1'
        cat
    } >"$T/$1/bin/jcmd"
    chmod +x "$T/$1/bin/jcmd"
}
# the JVM refuses: it says so on jcmd's output, jcmd exits 0 (as jcmd does)
fake refuse <<'EOF'
echo "$1:"
echo "Unable to create $fifo: Permission denied"
EOF
newtmp
JAVA_HOME=$T/refuse TMPDIR=$TD "$BIN" --jvm "$JVM" -o "$T/x.hprof" --stats-file "$T/ref.json" \
    2>"$T/err"
rc=$?
expect_rc 10 "--jvm, the JVM refusing"
expect_grep "Unable to create" "$T/err" "--jvm, the JVM refusing"
schema "$T/ref.json" exit_status=10 error.status='"jvm-dump"' error.retryable=true \
    output.kept=false input.name="\"jvm:$JVM\""
[ ! -e "$T/x.hprof" ] && ok || bad "--jvm, the JVM refusing: output written"
empty_tmp "$TD" "--jvm, the JVM refusing"
# jcmd exits without a word and without opening the FIFO: no hang
fake silent <<'EOF'
exit 1
EOF
newtmp
JAVA_HOME=$T/silent TMPDIR=$TD timeout 60 "$BIN" --jvm "$JVM" -o "$T/x.hprof" 2>"$T/err"
rc=$?
expect_rc 10 "--jvm, jcmd ending at once"
empty_tmp "$TD" "--jvm, jcmd ending at once"

# a dump broken off half way (the JVM stopped writing): exit 10, no output
head -c 300000 "$T/file.hprof" >"$T/half.hprof"
fake half <<EOF
echo "\$1:"
cat '$T/half.hprof' >"\$fifo"
echo "Dump file is incomplete: No space left on device"
EOF
newtmp
JAVA_HOME=$T/half TMPDIR=$TD "$BIN" --jvm "$JVM" -o "$T/x.hprof" --stats-file "$T/half.json" \
    2>"$T/err"
rc=$?
expect_rc 10 "--jvm, a dump broken off"
expect_grep "incomplete" "$T/err" "--jvm, a dump broken off"
schema "$T/half.json" exit_status=10 error.status='"jvm-dump"' output.kept=false
[ ! -e "$T/x.hprof" ] && ok || bad "--jvm, a dump broken off: output kept"
no_temp "$T" "--jvm, a dump broken off"
empty_tmp "$TD" "--jvm, a dump broken off"

# a TMPDIR with a space, or '=', or relative (issue #51 item 12): the
# FIFO's name reaches the JVM whole (quoted) and absolute; through the
# fake jcmd, then the real JVM (started in another directory than the
# relative TMPDIR's)
fake whole <<EOF
echo "\$1:"
cat '$T/file.hprof' >"\$fifo" || exit 0
echo "Heap dump file created [1 bytes in 0.001 secs]"
EOF
mkdir "$T/in dir"
for how in fake real; do
    [ $how = fake ] && jh=$T/whole || jh=${JAVA_HOME:-}
    for dir in "$T/sp ace$how" "$T/k=v$how" "rel$how"; do
        case $dir in /*) td=$dir ;; *) td="$T/in dir/$dir" ;; esac
        mkdir "$td"
        rm -f "$T/x.hprof"
        (cd "$T/in dir" && JAVA_HOME=$jh TMPDIR=$dir "$BIN" --jvm "$JVM" -o "$T/x.hprof" \
            2>"$T/err")
        rc=$?
        expect_rc 0 "--jvm, $how jcmd, TMPDIR '$dir'"
        [ -s "$T/x.hprof" ] && ok || bad "--jvm, $how jcmd, TMPDIR '$dir': no output"
        empty_tmp "$td" "--jvm, $how jcmd, TMPDIR '$dir'"
    done
done
rm -f "$T/x.hprof"

# JDK 21 and later (issue #52): GC.heap_dump takes -parallel, and without
# -parallel=1 the dumper writes its parts beside the target (<target>.p0,
# .p1 ...) and merges them afterwards: the dump on a disk. A fake of such a
# jcmd (only JDK 17 is on these machines): it lists -parallel in its help,
# writes parts beside the target unless asked for a serial dump, then the
# dump into the target. --jvm must ask for -parallel=1, and a JVM that
# writes parts anyway (its help not listing the option) must be refused
# with the parts removed, never a dump left on the disk.
jdk21() { # DIR LISTS-PARALLEL(yes|no)
    mkdir -p "$T/$1/bin"
    cat >"$T/$1/bin/jcmd" <<EOF
#!/bin/sh
echo "\$*" >>'$T/$1.args'
if [ "\$2" = help ]; then
    echo "\$1:"
    echo "GC.heap_dump"
    [ $2 = yes ] && echo "	-parallel : (Optional) Number of parallel threads to use for heap dump."
    exit 0
fi
serial=no
for w; do [ "\$w" = -parallel=1 ] && serial=yes; target=\$w; done
echo "\$1:"
if [ \$serial = no ]; then
    head -c 4096 '$T/file.hprof' >"\$target.p0" || exit 0
    head -c 4096 '$T/file.hprof' >"\$target.p1" || exit 0
    sleep 1
fi
cat '$T/file.hprof' >"\$target" || exit 0
rm -f "\$target.p0" "\$target.p1"
echo "Heap dump file created [1 bytes in 0.001 secs]"
EOF
    chmod +x "$T/$1/bin/jcmd"
}
jdk21 jdk21 yes
newtmp
JAVA_HOME=$T/jdk21 TMPDIR=$TD "$BIN" --jvm "$JVM" -o "$T/x.hprof" 2>"$T/err"
rc=$?
expect_rc 0 "--jvm, a JDK 21 jcmd: $(cat "$T/err")"
expect_grep "GC.heap_dump.*-parallel=1" "$T/jdk21.args" "--jvm asks JDK 21 for a serial dump"
[ -s "$T/x.hprof" ] && ok || bad "--jvm, a JDK 21 jcmd: no output"
empty_tmp "$TD" "--jvm, a JDK 21 jcmd"
jdk21 parts no
newtmp
rm -f "$T/x.hprof"
JAVA_HOME=$T/parts TMPDIR=$TD "$BIN" --jvm "$JVM" -o "$T/x.hprof" --stats-file "$T/parts.json" \
    2>"$T/err"
rc=$?
expect_rc 10 "--jvm, a JVM writing parts beside the target"
expect_grep "heap.hprof.p[01] beside the FIFO" "$T/err" "--jvm, parts: the message says why"
schema "$T/parts.json" exit_status=10 error.status='"jvm-dump"' output.kept=false
[ ! -e "$T/x.hprof" ] && ok || bad "--jvm, parts: output written"
expect_no_grep "parallel=1" "$T/parts.args" "--jvm asked a JVM whose help has no -parallel for it"
empty_tmp "$TD" "--jvm, parts (no part file left)"
rm -f "$T/x.hprof"

# a process that maps a file named libjvm.so (executable, as a JVM maps
# its code) but is no JVM (issue #51 item 15): it does not catch
# SIGQUIT, so it is not signalled (a fake jcmd sends SIGQUIT as the real
# one does), it lives on, and the message says it is not a JVM
cp "$BIN" "$T/libjvm.so"
fake quit <<'EOF'
kill -QUIT "$1"
echo "$1: com.sun.tools.attach.AttachNotSupportedException: Unable to open socket file"
EOF
# (SIGQUIT at its default: a command started with & has it ignored)
python3 -c 'import mmap, signal, sys, time
signal.signal(signal.SIGQUIT, signal.SIG_DFL)
f = open(sys.argv[1], "rb")
m = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ | mmap.PROT_EXEC)
print("ready", flush=True)
time.sleep(120)' "$T/libjvm.so" >"$T/mapper.out" &
mp=$!
JVMS="$JVMS $mp"
i=0
while ! grep -q ready "$T/mapper.out" && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
grep -q ' r-x. .*/libjvm.so$' "/proc/$mp/maps" && ok || bad "the mapper maps no libjvm.so"
newtmp
JAVA_HOME=$T/quit TMPDIR=$TD "$BIN" --jvm "$mp" -o "$T/x.hprof" 2>"$T/err"
rc=$?
expect_rc 9 "--jvm of a process mapping libjvm.so"
expect_grep "not a JVM" "$T/err" "--jvm of a process mapping libjvm.so"
sleep 0.5
# alive, not a zombie (this shell reaps it only at wait)
grep -q '^[0-9]* ([^)]*) [^Z]' "/proc/$mp/stat" 2>/dev/null && ok ||
    bad "--jvm of a process mapping libjvm.so: it died"
[ ! -e "$T/quit.pid" ] && ok || bad "--jvm of a process mapping libjvm.so: jcmd ran"
kill "$mp" 2>/dev/null
empty_tmp "$TD" "--jvm of a process mapping libjvm.so"

# SIGTERM while waiting for the JVM (the FIFO is there): 143, the FIFO, its
# directory and the output gone, jcmd told to end
fake hang <<'EOF'
exec sleep 60
EOF
newtmp
JAVA_HOME=$T/hang TMPDIR=$TD "$BIN" --jvm "$JVM" -o "$T/x.hprof" 2>"$T/err" &
hs=$!
i=0
while [ ! -s "$T/hang.pid" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
ls "$TD"/hprof-strip-jvm.*/heap.hprof >/dev/null 2>&1 && ok ||
    bad "--jvm waiting: no FIFO in TMPDIR: $(ls -AR "$TD")"
kill -TERM $hs
{ wait $hs; rc=$?; } 2>/dev/null # (no "Terminated" from the shell)
expect_rc 143 "--jvm waiting, SIGTERM"
empty_tmp "$TD" "--jvm waiting, SIGTERM"
sleep 0.2
# gone, or a zombie that no one here reaps (its parent is gone)
jp=$(cat "$T/hang.pid")
if kill -0 "$jp" 2>/dev/null && ! grep -q '^[0-9]* ([^)]*) Z' "/proc/$jp/stat" 2>/dev/null; then
    bad "--jvm waiting, SIGTERM: jcmd left running"
    kill "$jp"
else
    ok
fi

# SIGTERM (and SIGINT) while stripping: the JVM has written part and waits
# (the fake holds the FIFO open before a byte is written, so the strip
# cannot see its end between the writer's close and the holder's open)
for sig in TERM INT; do
    rm -f "$T/slow.pid" "$T/slowcat.pid"
    fake slow <<EOF
exec 3>"\$fifo"
head -c 200000 '$T/file.hprof' >&3 &
echo \$! >'$T/slowcat.pid'
exec sleep 60
EOF
    newtmp
    # (a command started with & has SIGINT ignored, and keeps it so:
    # started through python3, with SIGINT's default)
    JAVA_HOME=$T/slow TMPDIR=$TD python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execv(sys.argv[1], sys.argv[1:])' "$BIN" --jvm "$JVM" -o "$T/x.hprof" 2>"$T/err" &
    hs=$!
    i=0
    # mid-dump: the writer has handed over its 200000 bytes (more than a
    # pipe holds, so the strip has read most of them) and the FIFO stays open
    # (head ends a zombie: its parent became sleep, which reaps no one)
    while { [ ! -s "$T/slowcat.pid" ] ||
        grep -q '^[0-9]* ([^)]*) [^Z]' "/proc/$(cat "$T/slowcat.pid")/stat" 2>/dev/null; } &&
        [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
    sleep 0.2
    kill -0 $hs 2>/dev/null && ok || bad "--jvm stripping, SIG$sig: the strip ended before the signal"
    kill -$sig $hs
    { wait $hs; rc=$?; } 2>/dev/null
    [ $sig = TERM ] && want=143 || want=130
    expect_rc $want "--jvm stripping, SIG$sig"
    empty_tmp "$TD" "--jvm stripping, SIG$sig"
    [ ! -e "$T/x.hprof" ] && ok || bad "--jvm stripping, SIG$sig: output there"
    no_temp "$T" "--jvm stripping, SIG$sig"
    kill "$(cat "$T/slow.pid")" 2>/dev/null
done

# the test JVM still answers (nothing above broke it)
jcmd "$JVM" VM.uptime >"$T/up" 2>&1 && ok || bad "the test JVM: $(cat "$T/up")"
finish
