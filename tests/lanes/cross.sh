#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/lanes/cross.sh - the library and the command built for aarch64 (little-
# endian, another ISA) and s390x (big-endian) with Debian's cross compilers
# and multiarch -dev packages, run under qemu-user, must write the same
# bytes as the native build: every preset, -z, --gzip, gzip input,
# --to-jvm and --histogram's report, on every fixture. Byte order and
# alignment bugs show up here before a user's ARM ingestion server or a
# mainframe does.
#
# Usage: sh tests/lanes/cross.sh ./hprof-strip   (make test-cross; install the
# toolchains first: sh tools/install-deps.sh --cross)
#
# ISA-L's -dev package cannot be installed for a second architecture beside
# the host's (apt removes one), so its .deb is fetched with apt-get download
# and unpacked under build/cross/isal-ARCH, and the binary runs with that
# directory on the guest's library path (qemu's -E: the host's qemu must not
# see it). QEMU_LD_PREFIX stays unset: the guest's loader and libc are
# Debian's multiarch ones under /lib and /usr/lib/TRIPLET.
set -u
NAME=cross
. "$(dirname "$0")/../lib.sh"
BIN=${1:-./hprof-strip}
TOP=$(cd "$TESTS/.." && pwd)
WORK=$TOP/build/cross

# arch TRIPLET QEMU: Debian's architecture name, the GNU triplet, qemu-user's
ARCHES="arm64:aarch64-linux-gnu:aarch64 s390x:s390x-linux-gnu:s390x"

# isal ARCH: unpacks ISA-L's library and headers for ARCH; prints the root
isal() {
    root=$WORK/isal-$1
    if [ ! -f "$root/.done" ]; then
        rm -rf "$root" && mkdir -p "$root/debs" || return 1
        (cd "$root/debs" && apt-get download "libisal2:$1" "libisal-dev:$1") \
            >"$T/download-$1.log" 2>&1 || { cat "$T/download-$1.log" >&2; return 1; }
        for deb in "$root"/debs/*.deb; do dpkg -x "$deb" "$root" || return 1; done
        touch "$root/.done"
    fi
    echo "$root"
}

# compare WHAT ARGS...: the native and the cross binary on the same input
# and arguments, same exit status and same bytes on standard output
compare() {
    what=$1
    shift
    "$BIN" "$@" >"$T/native" 2>/dev/null; want=$?
    qemu-$QEMU -E "LD_LIBRARY_PATH=$LIBS" "$XBIN" "$@" >"$T/cross" 2>"$T/err"; rc=$?
    if [ $rc -ne $want ]; then
        bad "$ARCH $what: exit $rc, native $want: $(head -c 300 "$T/err")"
    elif cmp -s "$T/native" "$T/cross"; then
        ok
    else
        bad "$ARCH $what: other bytes than the native build ($(wc -c <"$T/cross") against $(wc -c <"$T/native"))"
    fi
}

# report_of ARGS...: the JSON report of a run, less its times (which vary)
# and its tool.version line (the same), on standard output
report_of() {
    /usr/bin/python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
r.pop("time", None)
print(json.dumps(r, sort_keys=True))' "$1"
}

for spec in $ARCHES; do
    ARCH=${spec%%:*}
    rest=${spec#*:}
    TRIPLET=${rest%%:*}
    QEMU=${rest#*:}
    if ! command -v "$TRIPLET-gcc" >/dev/null || ! command -v "qemu-$QEMU" >/dev/null; then
        if [ "${CI:-}" = true ]; then
            bad "$ARCH: $TRIPLET-gcc or qemu-$QEMU missing (sh tools/install-deps.sh --cross)"
        else
            skipped "$ARCH: needs $TRIPLET-gcc and qemu-$QEMU (sh tools/install-deps.sh --cross)"
        fi
        continue
    fi
    root=$(isal "$ARCH") || { bad "$ARCH: ISA-L for $ARCH could not be fetched"; continue; }
    LIBS=$root/usr/lib/$TRIPLET
    B=$WORK/$ARCH
    XBIN=$B/hprof-strip
    # the library and the command, warnings as errors as for the native build
    if ! make -s -C "$TOP" -j2 BUILD="$B" BIN="$XBIN" CC="$TRIPLET-gcc" \
        EXTRA_CFLAGS="-Werror -isystem $root/usr/include" \
        LDFLAGS="-L$LIBS -Wl,-rpath-link,$LIBS" "$XBIN" "$B/libhprofstrip.so" >"$T/make-$ARCH.log" 2>&1; then
        bad "$ARCH: the cross build failed: $(tail -5 "$T/make-$ARCH.log")"
        continue
    fi
    ok
    # it is what it says it is
    file "$XBIN" 2>/dev/null | grep -q "$(case $ARCH in arm64) echo aarch64 ;; s390x) echo 'IBM S/390' ;; esac)" && ok ||
        bad "$ARCH: $XBIN is not a $ARCH binary: $(file "$XBIN")"
    for f in fixtures/*.hprof fixtures/*.hprof.gz; do
        n=$(basename "$f")
        for p in none default privacy android-app; do
            compare "$n -p $p" -q -p "$p" "$f"
        done
        compare "$n -z" -q -z -T 2 "$f"
        compare "$n --gzip" -q --gzip -T 2 "$f"
        compare "$n -p android-app --to-jvm" -q -p android-app --to-jvm "$f"
        # the histogram's report, less its times
        "$BIN" -q -p privacy --histogram --stats-file "$T/native.json" "$f" >/dev/null 2>&1
        qemu-$QEMU -E "LD_LIBRARY_PATH=$LIBS" "$XBIN" -q -p privacy --histogram \
            --stats-file "$T/cross.json" "$f" >/dev/null 2>&1
        if [ -s "$T/cross.json" ] && [ "$(report_of "$T/native.json")" = "$(report_of "$T/cross.json")" ]; then
            ok
        else
            bad "$ARCH $n: --histogram's report differs from the native build's"
        fi
    done
    # a gzip input made here (zlib, one member) and zstd input, read there
    gzip -c fixtures/jvm17-64bit.hprof >"$T/in.hprof.gz"
    compare "gzip input" -q -p privacy "$T/in.hprof.gz"
    zstd -q -c fixtures/jvm17-64bit.hprof >"$T/in.hprof.zst"
    compare "zstd input" -q -p privacy "$T/in.hprof.zst"
    # and a bad dump is refused the same way (exit status compared)
    head -c 100000 fixtures/jvm17-64bit.hprof >"$T/cut.hprof"
    compare "a cut dump" -q "$T/cut.hprof"
done
finish
