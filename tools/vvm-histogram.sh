#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# vvm-histogram.sh - class histogram of an HPROF dump via VisualVM's parser.
#
#   tools/vvm-histogram.sh [--summary] [--counts] [--roots] [--segment N] DUMP
#
# DUMP may be a file, a .gz file (decompressed into the temporary directory)
# or '-' for standard input. Prints "name<TAB>instances<TAB>bytes" per class,
# sorted, then "TOTAL<TAB>instances<TAB>bytes"; see
# tools/vvm-histogram/Histogram.java. Exit status: 0 ok, 1 the dump does not
# parse, 2 usage error or missing tools.
#
# Histogram.java is compiled once into build/vvm-histogram/ (again when the
# source is newer). VisualVM's parser writes index files (a "*.hwcache"
# directory next to the dump, and NBProfiler*.map files in java.io.tmpdir),
# so the dump is symlinked into a fresh mktemp directory, java.io.tmpdir
# points there too, and the directory is removed on exit.
#
# Environment: VVM_HEAP_JAR (the jfluid-heap jar), VVM_JAVA_OPTS (extra JVM
# options, e.g. -Xmx8g), JAVA, JAVAC, VVM_HISTOGRAM_TRACE=1 (stack traces).
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
jar=${VVM_HEAP_JAR:-/usr/share/visualvm/visualvm/modules/org-graalvm-visualvm-lib-jfluid-heap.jar}
src=$root/tools/vvm-histogram/Histogram.java
classes=$root/build/vvm-histogram
JAVA=${JAVA:-java}
JAVAC=${JAVAC:-javac}

die() { echo "vvm-histogram: $*" >&2; exit 2; }

[ -r "$jar" ] || die "VisualVM heap jar not found: $jar (apt-get install visualvm)"

# Compile once. javac writes into a private directory first, and the class
# files are then moved into place, so parallel runs never see half a class.
if [ ! -f "$classes/Histogram.class" ] || [ -n "$(find "$src" -newer "$classes/Histogram.class")" ]; then
    mkdir -p "$classes"
    stage=$(mktemp -d "$classes/.javac.XXXXXX")
    if ! "$JAVAC" -nowarn -encoding UTF-8 -d "$stage" -cp "$jar" "$src"; then
        rm -rf "$stage"
        die "javac failed"
    fi
    mv -f "$stage"/*.class "$classes"/
    rmdir "$stage"
fi

# Options go to the Java side unchanged; the one operand is the dump.
opts=""
dump=""
while [ $# -gt 0 ]; do
    case $1 in
        --segment) [ $# -ge 2 ] || die "--segment needs a number"
                   opts="$opts $1 $2"; shift ;;
        --summary|--counts|--roots) opts="$opts $1" ;;
        -h|--help) sed -n '2,20s/^# \{0,1\}//p' "$0"; exit 0 ;;
        -) [ -z "$dump" ] || die "more than one DUMP"; dump=- ;;
        -*) die "unknown option $1" ;;
        *) [ -z "$dump" ] || die "more than one DUMP"; dump=$1 ;;
    esac
    shift
done
[ -n "$dump" ] || die "usage: vvm-histogram.sh [--summary] [--counts] [--roots] [--segment N] DUMP"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/vvm-histogram.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Give the parser a path inside $tmp, so its cache lands there.
name=dump.hprof
case $dump in
    -)    cat > "$tmp/$name" ;;
    *.gz) [ -r "$dump" ] || { echo "vvm-histogram: $dump: cannot read" >&2; exit 1; }
          gzip -dc "$dump" > "$tmp/$name" || { echo "vvm-histogram: $dump: gunzip failed" >&2; exit 1; } ;;
    *)    if [ ! -f "$dump" ] || [ ! -r "$dump" ]; then
              echo "vvm-histogram: $dump: cannot read" >&2; exit 1
          fi
          case $dump in /*) abs=$dump ;; *) abs=$(pwd)/$dump ;; esac
          ln -s "$abs" "$tmp/$name" ;;
esac

# Not exec: the EXIT trap must run to remove $tmp.
status=0
# shellcheck disable=SC2086 # $opts and $VVM_JAVA_OPTS are word lists
"$JAVA" -Djava.awt.headless=true -Djava.io.tmpdir="$tmp" \
    -Dvvm.histogram.name="$dump" ${VVM_JAVA_OPTS:-} \
    -cp "$jar:$classes" Histogram $opts "$tmp/$name" || status=$?
exit $status
