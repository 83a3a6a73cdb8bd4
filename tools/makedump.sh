#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# makedump.sh - write a real HotSpot heap dump of roughly SIZE_MB MiB.
#
#   tools/makedump.sh [--seed N] [--big-frac F] [--small] [--mix M] SIZE_MB OUT.hprof
#
# Runs tools/makedump/MakeDump.java (compiled once into build/makedump/) on
# the local `java` (17) with -Xmx chosen from SIZE_MB. The heap imitates an
# application: many small objects (Strings incl. non-Latin-1, boxed numbers,
# HashMap/ArrayList/LinkedList graphs, small primitive arrays) and big
# primitive arrays; about three quarters of the file is primitive-array
# payload. The object graph depends only on the seed (default 1); the bytes
# of the dump do not (addresses, JDK internals). --small makes the other
# common shape: no big arrays (--big-frac 0), so the dump is dominated by
# small instances and short strings and arrays (over 20 M sub-records per GB).
# --mix M says what the small objects are: app (the default: the mix above),
# instances (many small instances with few arrays: linked nodes, boxed
# numbers, Instants, small records, held 1024 to an Object[]) or strings
# (many short Strings of 2 to 24 characters, each with its byte[]); with
# instances or strings, --big-frac defaults to 0 (no big arrays), as --small.
#
# The dump is written next to OUT under a temporary name and renamed when
# complete; OUT is replaced if it exists. A ~1 GiB dump takes well under a
# minute on 2 cores. Environment: JAVA, JAVAC, MAKEDUMP_JAVA_OPTS.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
src=$root/tools/makedump/MakeDump.java
classes=$root/build/makedump
JAVA=${JAVA:-java}
JAVAC=${JAVAC:-javac}

die() { echo "makedump: $*" >&2; exit 2; }

opts=""
big0=0
while [ $# -gt 0 ]; do
    case $1 in
        --seed|--big-frac) [ $# -ge 2 ] || die "$1 needs a value"; opts="$opts $1 $2"; shift 2 ;;
        --small) opts="$opts --big-frac 0"; shift ;;
        --mix) [ $# -ge 2 ] || die "$1 needs a value"
               case $2 in app) ;; instances|strings) big0=1 ;; *) die "--mix must be app, instances or strings" ;; esac
               opts="$opts --mix $2"; shift 2 ;;
        -h|--help) sed -n '2,25s/^# \{0,1\}//p' "$0"; exit 0 ;;
        -*) die "unknown option $1" ;;
        *) break ;;
    esac
done
[ $# -eq 2 ] || die "usage: makedump.sh [--seed N] [--big-frac F] [--small] [--mix M] SIZE_MB OUT.hprof"
# --mix instances|strings: no big arrays unless --big-frac says otherwise
# (MakeDump takes the last --big-frac given)
case " $opts " in *" --big-frac "*) ;; *) [ "$big0" = 0 ] || opts="--big-frac 0$opts" ;; esac
size=$1
out=$2
case $size in ''|*[!0-9]*) die "SIZE_MB must be a whole number: $size" ;; esac
[ "$size" -ge 8 ] || die "SIZE_MB must be at least 8"

# Compile once (again when the source changes), via a private directory.
if [ ! -f "$classes/MakeDump.class" ] || [ -n "$(find "$src" -newer "$classes/MakeDump.class")" ]; then
    mkdir -p "$classes"
    stage=$(mktemp -d "$classes/.javac.XXXXXX")
    if ! "$JAVAC" -nowarn -encoding UTF-8 -d "$stage" "$src"; then
        rm -rf "$stage"
        die "javac failed"
    fi
    mv -f "$stage"/*.class "$classes"/
    rmdir "$stage"
fi

# The live data takes less memory than its dump (4-byte compressed
# references, 12-byte headers), but the generator and dumpHeap's full GC
# need headroom: 1.5 x SIZE_MB + 512 MiB.
xmx=$((size * 3 / 2 + 512))

# HotSpot refuses to overwrite and wants a .hprof name: dump to a temporary
# name in OUT's directory, then rename.
outdir=$(dirname "$out")
[ -d "$outdir" ] || die "no such directory: $outdir"
tmp="$outdir/.makedump.$$.hprof"
trap 'rm -f "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# shellcheck disable=SC2086 # word lists
"$JAVA" -Xmx${xmx}m -Xms${xmx}m ${MAKEDUMP_JAVA_OPTS:-} -cp "$classes" MakeDump $opts "$size" "$tmp"
mv -f "$tmp" "$out"
echo "makedump: $out ready" >&2
