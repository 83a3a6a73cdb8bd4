# SPDX-License-Identifier: Apache-2.0
# tests/cli/examples.sh - every example command of the README's sh blocks and of
# hprof-strip(1)'s EXAMPLES section runs as written (#55): each line that
# calls hprof-strip is run in one directory, in the order written (an
# --audit reads what the example before it wrote), and must exit as
# expected; a .zst or .gz it writes must be zstd or gzip (`zstd -t`,
# `gzip -t`).
#
# Use:   sh tests/cli/examples.sh ./hprof-strip
#
# Only file names and placeholders are substituted (the table below):
#   big.hprof, dump.hprof          a JVM fixture      app.hprof  the Android fixture
#   big.hprof.gz                   jcmd's -gz fixture oom-cut.hprof  a JVM fixture cut in half
#   uploads/                       two fixtures       upload X   a function: X is not empty
#   PID, 4242, $(pgrep -f MyServer)  a small JVM started here (java, jcmd);
#                                  without them the --jvm examples run against a
#                                  process that is not a JVM (exit 9: parsed only)
#   ssh HOST 'cmd'                 sh -c 'cmd'
# Lines that are not hprof-strip commands (make, cc, pip, dask, python3) are
# listed as not run: the Makefile's tests build and run those
# (tests/lanes/install.sh, tests/lanes/python.sh, tests/lanes/dask.sh).
set -u
NAME=examples
. "$(dirname "$0")/../lib.sh"
BIN=$(cd "$(dirname "${1:-./hprof-strip}")" && pwd)/$(basename "${1:-./hprof-strip}")
ROOT=$TESTS/..
FIX=$ROOT/fixtures

# the examples, one per line: "SOURCE<TAB>COMMAND"
{
    awk '/^```sh/ { on = 1; next } /^```/ { on = 0 } on { print "README.md\t" $0 }' "$ROOT/README.md"
    sed -n '/^\.SH EXAMPLES/,/^\.SH [A-Z]/p' "$ROOT/man/hprof-strip.1" |
        sed -n 's/^\.B \(hprof-strip .*\)/\1/p' | sed 's/\\-/-/g; s/^/hprof-strip.1\t/'
} >"$T/all"
[ "$(grep -c 'hprof-strip' "$T/all")" -ge 15 ] && ok || bad "examples extracted: $(cat "$T/all")"

# the work directory: fixtures under the examples' names
W=$T/w
mkdir -p "$W/uploads"
cp "$FIX/jvm17-64bit.hprof" "$W/big.hprof"
cp "$FIX/jvm7-hprof-agent.hprof" "$W/dump.hprof"
cp "$FIX/jvm17-jcmd-gz1.hprof.gz" "$W/big.hprof.gz"
cp "$FIX/android-art2025-ahat-test-dump.hprof" "$W/app.hprof"
head -c $(($(wc -c <"$FIX/jvm17-64bit.hprof") / 2)) "$FIX/jvm17-64bit.hprof" >"$W/oom-cut.hprof"
cp "$FIX/jvm7-hprof-agent.hprof" "$W/uploads/a.hprof"
cp "$FIX/jvm17-jcmd-gz1.hprof.gz" "$W/uploads/b.hprof.gz"
mkdir "$T/bin"
ln -s "$BIN" "$T/bin/hprof-strip"

# a JVM for --jvm, when java and jcmd are here and it starts in time
JPID=
if command -v java >/dev/null && command -v jcmd >/dev/null; then
    mkdir "$T/java"
    cat >"$T/java/Hold.java" <<'EOF'
public class Hold {
    static byte[] data = new byte[1 << 20];
    public static void main(String[] a) throws Exception {
        System.out.println("up");
        Thread.sleep(600000);
    }
}
EOF
    (cd "$T/java" && exec java -Xmx64m Hold.java >"$T/java/out" 2>&1) &
    JPID=$!
    i=0
    while [ $i -lt 120 ] && ! grep -q up "$T/java/out" 2>/dev/null; do sleep 1; i=$((i + 1)); done
    if ! grep -q up "$T/java/out"; then kill "$JPID" 2>/dev/null; wait "$JPID" 2>/dev/null; JPID=; fi
fi
if [ -n "$JPID" ]; then
    PID=$JPID
    echo "examples: --jvm examples run against a small JVM started here (pid $PID)"
else
    sleep 600 &
    PID=$!
    echo "examples: no JVM here (java, jcmd): --jvm examples run against a process" \
        "that is not a JVM and must exit 9 (their options parsed only)"
fi
trap 'kill $PID 2>/dev/null; rm -rf "$T"' EXIT

run=0
notrun=0
tab=$(printf '\t')
while IFS="$tab" read -r src line; do
    cmd=$(printf '%s\n' "$line" | sed 's/[[:space:]][[:space:]]*#.*$//; s/^[[:space:]]*//')
    case "$cmd" in
    '' | '#'*) continue ;;
    hprof-strip* | HPROF_STRIP_THREADS=*) ;;
    *) notrun=$((notrun + 1)); echo "examples: not run ($src): $cmd"; continue ;;
    esac
    # placeholders: the JVM, the remote host
    cmd=$(printf '%s\n' "$cmd" | sed "s/\\\$(pgrep -f MyServer)/$PID/g; s/--jvm 4242/--jvm $PID/g;
        s/ssh [A-Za-z0-9_.-]* '/sh -c '/g")
    want=0
    case "$cmd" in *--salvage*) want=6 ;; esac
    case "$cmd" in *--jvm*) [ -z "$JPID" ] && want=9 ;; esac
    # the outputs it names: -o FILE or DIR, > FILE, cat > FILE, OUTPUT after INPUT
    outs=$(printf '%s\n' "$cmd" | tr -d "'" | awk '{
        for (i = 1; i <= NF; i++) {
            if (($i == "-o" || $i == ">") && i < NF) print $(i + 1)
        }
        if ($1 == "hprof-strip" && NF == 5 && $2 == "-p" && $4 !~ /^-/) print $5
    }')
    for o in $outs; do
        case "$o" in /dev/*) ;; */) rm -rf "${W:?}/$o" ;; *) rm -f "${W:?}/$o" ;; esac
    done
    run=$((run + 1))
    (cd "$W" && PATH="$T/bin:$PATH" sh -c "upload() { test -s \"\$1\"; }; $cmd") \
        >"$T/out" 2>"$T/err" </dev/null
    rc=$?
    expect_rc "$want" "$src: $cmd ($(head -c 300 "$T/err"))"
    [ "$rc" -eq "$want" ] && [ "$want" -eq 0 ] || continue
    for o in $outs; do
        case "$o" in /dev/*) continue ;; esac
        if [ -f "$W/$o" ]; then
            case "$o" in
            *.zst) zstd -q -t "$W/$o" && ok || bad "$src: $cmd: $o is not zstd" ;;
            *.gz) gzip -t "$W/$o" && ok || bad "$src: $cmd: $o is not gzip" ;;
            esac
        fi
        if [ -d "$W/$o" ]; then
            for f in "$W/$o"*; do
                case "$f" in
                *.zst) zstd -q -t "$f" && ok || bad "$src: $cmd: $f is not zstd" ;;
                *.gz) gzip -t "$f" && ok || bad "$src: $cmd: $f is not gzip" ;;
                esac
            done
        fi
    done
done <"$T/all"
echo "examples: $run hprof-strip commands run, $notrun other lines not run"
[ "$run" -ge 15 ] && ok || bad "only $run examples run"
finish
