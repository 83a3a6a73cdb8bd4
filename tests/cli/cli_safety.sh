#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/cli/cli_safety.sh - output that cannot hurt, and failures said as what
# they are: -o onto devices, FIFOs, links and directories, permissions,
# closed standard descriptors, write failures, signals, broken pipes.
# Everything happens in a private directory, with a mknod'd null device:
# never the real /dev/null. Usage: sh tests/cli/cli_safety.sh ./hprof-strip
set -u
BIN=${1:-./hprof-strip}
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
FIX=$(pwd)/fixtures/jvm17-64bit.hprof
AND=$(pwd)/fixtures/android-art2025-ahat-test-dump.hprof
BIG=$(pwd)/build/fresh/jvm-30mb.hprof
NAME=cli_safety
. "$(dirname "$0")/../lib.sh"
# a tmpfs mounted under $T (the disk-full tests) is unmounted before $T goes
MNT=
cleanup() {
    [ -n "$MNT" ] && umount "$MNT" 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT
mode_of() { stat -c %a "$1"; }

"$BIN" -p none "$FIX" >"$T/want" || { echo "cannot run $BIN" >&2; exit 1; }

# ---- 1. -o never replaces what is not a regular file --------------------
if mknod "$T/null" c 1 3 2>/dev/null; then
    "$BIN" -p none -o "$T/null" "$FIX" 2>"$T/err"; rc=$?
    expect_rc 0 "-o onto a character device needs no -f"; expect_empty "$T/err" "-o null stderr"
    [ -c "$T/null" ] && ok || bad "-o replaced the null device"
    "$BIN" -p none -f -o "$T/null" "$FIX" 2>"$T/err"; rc=$?
    expect_rc 0 "-f -o onto a character device"
    [ -c "$T/null" ] && ok || bad "-f -o replaced the null device"
    no_temp "$T" "-o onto a device"
else
    skipped "mknod (not root): device tests"
fi
mkfifo "$T/fifo"
cat "$T/fifo" >"$T/fifo.out" &
reader=$!
"$BIN" -p none -f -o "$T/fifo" "$FIX" 2>"$T/err"; rc=$?
expect_rc 0 "-f -o onto a FIFO"
[ -p "$T/fifo" ] && ok || bad "-f -o replaced the FIFO"
i=0
while kill -0 $reader 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
kill $reader 2>/dev/null && bad "the FIFO's reader saw no end"
wait $reader 2>/dev/null
cmp -s "$T/want" "$T/fifo.out" && ok || bad "what came out of the FIFO differs"
# a FIFO needs no -f: writing into it replaces nothing
cat "$T/fifo" >"$T/fifo.out" &
reader=$!
"$BIN" -p none -o "$T/fifo" "$FIX" 2>"$T/err"; rc=$?
expect_rc 0 "-o onto a FIFO without -f"
[ "$rc" -eq 0 ] || [ ! -p "$T/fifo" ] || : >"$T/fifo" # let the reader go
wait $reader
cmp -s "$T/want" "$T/fifo.out" && ok || bad "-o FIFO without -f: what came out differs"
# a symbolic link: its target is written (by rename, as any file), the link stays
mkdir "$T/d"
echo old >"$T/d/target.hprof"
ln -s d/target.hprof "$T/link"
"$BIN" -p none -o "$T/link" "$FIX" 2>"$T/err"; rc=$?
expect_rc 2 "-o onto a link without -f"
"$BIN" -p none -f -o "$T/link" "$FIX" 2>"$T/err"; rc=$?
expect_rc 0 "-f -o onto a link"
[ -L "$T/link" ] && ok || bad "-f -o replaced the link itself"
cmp -s "$T/want" "$T/d/target.hprof" && ok || bad "the link's target was not written"
no_temp "$T/d" "-o onto a link"
ln -s d/new.hprof "$T/dangling"
"$BIN" -p none -f -o "$T/dangling" "$FIX" 2>"$T/err"; rc=$?
expect_rc 0 "-f -o onto a dangling link"
[ -L "$T/dangling" ] && cmp -s "$T/want" "$T/d/new.hprof" && ok ||
    bad "a dangling link's target was not created"
if [ -c "$T/null" ]; then
    ln -s null "$T/nulllink"
    "$BIN" -p none -o "$T/nulllink" "$FIX" 2>"$T/err"; rc=$?
    expect_rc 0 "-o onto a link to a device"
    [ -L "$T/nulllink" ] && [ -c "$T/null" ] && ok || bad "-o through a link replaced the device"
fi

# /dev/stdout names a pipe here (a link through /proc): written into
"$BIN" -p none -o /dev/stdout "$FIX" 2>"$T/err" | cat >"$T/devstdout"; rc=$?
cmp -s "$T/want" "$T/devstdout" && ok || bad "-o /dev/stdout into a pipe: $(cat "$T/err")"

# ---- 7. -o DIR with standard input fails at once, before any input is
# read (there is no FILE to name the output after) -------------------------
for f in "" -f; do
    { sleep 2; cat "$FIX"; } | timeout 1 "$BIN" -p none $f -o "$T/d" 2>"$T/err"
    rc=$?
    expect_rc 2 "-o DIR $f"; expect_grep "$T/d is a directory" "$T/err" "-o DIR $f"
    no_temp "$T" "-o DIR $f"
done
# a FILE and -o DIR: the output goes into the directory, named after the
# FILE (FILE... -o DIR, as for several), the directory never replaced
"$BIN" -p none -f -o "$T/d/" "$FIX" 2>"$T/err"; rc=$?
expect_rc 0 "FILE -o DIR/"
[ -d "$T/d" ] && cmp -s "$T/want" "$T/d/jvm17-64bit.hprof" && ok ||
    bad "FILE -o DIR/: not DIR/jvm17-64bit.hprof: $(cat "$T/err")"
rm -f "$T/d/jvm17-64bit.hprof"

# ---- 2. permissions: the input's bits, never wider ----------------------
cp "$FIX" "$T/in600.hprof"; chmod 600 "$T/in600.hprof"
"$BIN" -p none "$T/in600.hprof" "$T/out600.hprof"; rc=$?
expect_rc 0 "input 0600"
[ "$(mode_of "$T/out600.hprof")" = 600 ] && ok || bad "0600 input gave $(mode_of "$T/out600.hprof")"
"$BIN" -p none -z "$T/in600.hprof" "$T/out600.hprof.zst"
[ "$(mode_of "$T/out600.hprof.zst")" = 600 ] && ok || bad "0600 input gave a wider .zst"
(umask 022; "$BIN" -p none -o "$T/piped.hprof" <"$T/want" 2>/dev/null) # stdin a file: its bits
(umask 027; cat "$FIX" | "$BIN" -p none -o "$T/piped2.hprof")
[ "$(mode_of "$T/piped2.hprof")" = 640 ] && ok || bad "pipe input, umask 027: $(mode_of "$T/piped2.hprof")"
echo old >"$T/ro.hprof"; chmod 444 "$T/ro.hprof"
cat "$FIX" | "$BIN" -p none -f -o "$T/ro.hprof"; rc=$?
expect_rc 0 "-f over 0444 from a pipe"
[ "$(mode_of "$T/ro.hprof")" = 444 ] && ok || bad "-f over 0444 from a pipe: $(mode_of "$T/ro.hprof")"
"$BIN" -p none -f "$T/in600.hprof" -o "$T/ro.hprof"; rc=$?
# never wider than the input (0600) nor than the file replaced (0444)
[ "$(mode_of "$T/ro.hprof")" = 400 ] && ok || bad "-f over 0444 from 0600: $(mode_of "$T/ro.hprof")"

# ---- 3. a closed stderr never gets the dump's descriptor ----------------
"$BIN" -p none --stats -o "$T/closed2.hprof" "$FIX" 2>&-; rc=$?
expect_rc 0 "stderr closed"
cmp -s "$T/want" "$T/closed2.hprof" && ok || bad "stderr closed: the dump differs (messages in it?)"
# input on stdin: the output file is the first thing opened, fd 2 if free
"$BIN" -p none --stats --progress -o "$T/closed2b.hprof" <"$FIX" 2>&-; rc=$?
expect_rc 0 "stderr closed, stdin input"
cmp -s "$T/want" "$T/closed2b.hprof" && ok || bad "stderr closed, stdin input: the dump differs"
"$BIN" -p none --stats=json -o "$T/closed2.hprof.gz" <"$FIX" 2>&- && ok || bad "stderr closed, gzip"
gzip -t "$T/closed2.hprof.gz" 2>/dev/null && gzip -dc "$T/closed2.hprof.gz" | cmp -s "$T/want" - &&
    ok || bad "stderr closed: the .gz differs"
"$BIN" -p none -o "$T/closed0.hprof" "$FIX" <&-; rc=$?
expect_rc 0 "stdin closed, input named"
cmp -s "$T/want" "$T/closed0.hprof" && ok || bad "stdin closed: the dump differs"

# ---- 4. failures said as what they are ----------------------------------
"$BIN" --audit "$FIX" >&- 2>"$T/err"; rc=$?
expect_rc 4 "--audit to a closed stdout"; expect_grep "standard output" "$T/err" "--audit closed"
if mknod "$T/full" c 1 7 2>/dev/null; then
    "$BIN" --audit "$FIX" >"$T/full" 2>"$T/err"; rc=$?
    expect_rc 4 "--audit to a full disk"; expect_grep "No space left" "$T/err" "--audit full"
    "$BIN" -p none -o "$T/full" "$FIX" 2>"$T/err"; rc=$?
    expect_rc 4 "-o onto a full device"
    expect_grep "$T/full: .*No space left on device" "$T/err" "full output named"
    "$BIN" -p none "$FIX" >"$T/full" 2>"$T/err"; rc=$?
    expect_rc 4 "stdout full"; expect_grep "standard output: .*No space left" "$T/err" "stdout full"
fi
"$BIN" -p none --stats=json "$FIX" >&- 2>"$T/err"; rc=$?
expect_rc 4 "stdout closed"
expect_grep '"bytes_out":0,' "$T/err" "stdout closed: bytes_out counts what was written"
"$BIN" -p none -z --stats=json "$FIX" >&- 2>"$T/err"; rc=$?
expect_rc 4 "stdout closed, zstd"
expect_grep '"bytes_out":0,' "$T/err" "stdout closed, zstd: bytes_out"
# held instances spill into $TMPDIR: a missing one is named
TMPDIR="$T/no-such-dir" "$BIN" -p privacy --spill-after 1 "$AND" >"$T/out" 2>"$T/err"; rc=$?
expect_rc 4 "spill into a missing \$TMPDIR"
expect_grep "$T/no-such-dir/hprof-strip-spill-.*No such file" "$T/err" "spill \$TMPDIR"
mkdir "$T/tmp"
TMPDIR="$T/tmp" "$BIN" -p privacy --spill-after 1 "$AND" >"$T/out" 2>"$T/err"; rc=$?
expect_rc 0 "spill into \$TMPDIR"; [ -z "$(ls "$T/tmp")" ] && ok || bad "spill file left"
mkdir "$T/small"
if mount -t tmpfs -o size=16k tmpfs "$T/small" 2>/dev/null; then
    MNT="$T/small"
    TMPDIR="$T/small" "$BIN" -p privacy --spill-after 1 "$AND" >"$T/out" 2>"$T/err"; rc=$?
    expect_rc 4 "spill onto a full disk"
    expect_grep "spill file failed: $T/small/hprof-strip-spill-.*: No space left on device" \
        "$T/err" "spill disk full"
    # and the output onto a full disk: named, no temporary file left
    "$BIN" -p none "$FIX" -o "$T/small/out.hprof" 2>"$T/err"; rc=$?
    expect_rc 4 "-o onto a full disk"
    expect_grep "$T/small/out.hprof: .*No space left on device" "$T/err" "full disk named"
    no_temp "$T/small" "-o onto a full disk"
    umount "$T/small" && MNT=
else
    skipped "tmpfs mount (not root): disk-full tests"
fi

# a file-size limit (SIGXFSZ ignored: the write fails) names the output
(ulimit -f 100; "$BIN" -p none -o "$T/limited.hprof" "$FIX" 2>"$T/err"; echo $? >"$T/rc")
rc=$(cat "$T/rc")
expect_rc 4 "file-size limit"
expect_grep "$T/limited.hprof: .*File too large" "$T/err" "file-size limit names the output"
no_temp "$T" "file-size limit"
# a reader of stderr that went away costs the dump nothing
"$BIN" -p none --progress --stats -o "$T/noerr.hprof" "$FIX" 2>&1 | true
cmp -s "$T/want" "$T/noerr.hprof" && ok || bad "stderr a closed pipe: the dump differs"

# ---- 5. every terminating signal removes the temporary file -------------
# The input is a FIFO whose writer writes nothing: hprof-strip waits with its
# temporary file made. env --default-signal undoes sh's ignoring of SIGINT
# and SIGQUIT for background jobs.
mkfifo "$T/slow"
mkdir "$T/sig"
for sig in HUP INT QUIT TERM ALRM USR1 USR2 XCPU VTALRM PROF; do
    sleep 30 >"$T/slow" &
    feeder=$!
    env --default-signal "$BIN" -p none -o "$T/sig/out.hprof" <"$T/slow" 2>/dev/null &
    pid=$!
    i=0
    while ! ls "$T/sig" | grep -q tmp && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
    kill -s $sig $pid
    wait $pid 2>/dev/null
    kill $feeder 2>/dev/null
    wait $feeder 2>/dev/null
    no_temp "$T/sig" "SIG$sig"
    rm -f "$T/sig"/*
done

# The moment the temporary file is made: a signal that comes as its
# open returns (delivered before the run's next instruction) must find it
# known. On a busy machine that is when the loop above sees the file and
# signals (the run descheduled at the open's return); strace holds every
# open's return for 0.4 s, so the moment is all but certain here.
if command -v strace >/dev/null 2>&1 &&
    strace -o /dev/null -e trace=none true 2>/dev/null; then
    for sig in QUIT USR1; do
        sleep 30 >"$T/slow" &
        feeder=$!
        env --default-signal strace -o /dev/null -e trace=openat \
            -e inject=openat:delay_exit=400000 "$BIN" -p none -o "$T/sig/out.hprof" \
            <"$T/slow" 2>/dev/null &
        i=0
        while ! ls "$T/sig" | grep -q tmp && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
        # (strace's child: the run, with the file's open not returned yet)
        pkill -$sig -P $! 2>/dev/null
        wait $! 2>/dev/null
        kill $feeder 2>/dev/null
        wait $feeder 2>/dev/null
        no_temp "$T/sig" "SIG$sig as the temporary file is made"
        rm -f "$T/sig"/*
    done
else
    skipped "strace: a signal as the temporary file is made"
fi

# ---- 6. the input that shrinks is named, with the byte ------------------
# shrinks FILE CUT UNIT: FILE is copied, read with the output's reader
# holding back (it takes one byte, says so, and waits: hprof-strip stops a
# few MB in, with the pipe full), and the copy is cut to CUT bytes. It must
# end with exit 4 and a message naming the file and the UNIT ("input byte",
# or "compressed byte" for a compressed file).
shrinks() {
    name=shrinks.${1##*.}
    cp "$1" "$T/$name"
    rm -f "$T/started"
    rm -f "$T/shrink.json"
    { "$BIN" -p none --stats-file "$T/shrink.json" "$T/$name" 2>"$T/err"; echo $? >"$T/rc"; } |
        { dd bs=1 count=1 of=/dev/null 2>/dev/null; touch "$T/started"; sleep 1; cat >/dev/null; } &
    i=0
    while [ ! -e "$T/started" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    truncate -s "$2" "$T/$name"
    wait
    rc=$(cat "$T/rc")
    expect_rc 4 "$name cut to $2"
    expect_grep "$name: the input file shrank while it was being read (at $3 [0-9]" \
        "$T/err" "$name cut to $2: file and byte named"
    # a place that is a byte of the file, not "18446744073709551615" (-p
    # none, cut behind: the write from the lost pages failed, no offset)
    expect_no_grep "18446744073709551615" "$T/err" "$name cut to $2: a real byte"
    # the report too, a read error, whether the SIGBUS handler wrote it
    python3 tests/cli/report_schema.py src/lib/hprof_strip.h "$T/shrink.json" exit_status=4 \
        error.status='"read"' >"$T/schema.out" 2>&1 && ok ||
        bad "$name cut to $2: the report: $(cat "$T/schema.out")"
}
if [ -s "$BIG" ]; then
    # Cut behind where it is (a write from lost pages fails) or ahead
    # (SIGBUS).
    shrinks "$BIG" 100000 "input byte"
    shrinks "$BIG" 20M "input byte"
    # A compressed file is mapped too, and decoded in place: cut behind
    # where the decoder is or ahead of it, its next read of the lost pages
    # faults (SIGBUS), on whichever thread decodes.
    gzip -1 -c "$BIG" >"$T/whole.gz"
    zstd -q -1 -c "$BIG" >"$T/whole.zst"
    for z in "$T/whole.gz" "$T/whole.zst"; do
        shrinks "$z" 100000 "compressed byte"
        shrinks "$z" $(($(wc -c <"$z") * 3 / 4)) "compressed byte"
    done
else
    skipped "$BIG missing (make $BIG): shrinking input"
fi

# ---- 7. a broken pipe ends quietly; a terminal on stdin is refused ------
src=$FIX
[ -s "$BIG" ] && src=$BIG
("$BIN" -p none "$src"; echo $? >"$T/rc") 2>"$T/err" | head -c 100 >/dev/null
rc=$(cat "$T/rc")
expect_rc 141 "broken pipe (SIGPIPE, as gzip and zstd)"; expect_empty "$T/err" "broken pipe stderr"
"$BIN" -p none -z "$src" 2>"$T/err" | head -c 100 >/dev/null
expect_empty "$T/err" "broken pipe, zstd, stderr"
if command -v script >/dev/null 2>&1; then
    timeout 10 script -qec "$BIN -p none -o $T/tty.hprof" /dev/null >"$T/tty" 2>&1 </dev/null
    rc=$?
    expect_rc 2 "stdin a terminal"; expect_grep "stdin is a terminal" "$T/tty" "stdin a terminal"
    [ -e "$T/tty.hprof" ] && bad "stdin a terminal: output made" || ok
else
    skipped "script(1): terminal on stdin"
fi

finish
