#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/lanes/install.sh - the library as another program meets it: `make install`
# into a scratch DESTDIR, examples/strip_file.c built with pkg-config against
# the installed copy (shared and static), its output compared byte for byte
# with the CLI's, the exported symbols compared with the header, the soname,
# the manual, and `make uninstall` leaving nothing behind.
# Usage: sh tests/lanes/install.sh ./hprof-strip   (from the top of the tree)
set -u
BIN=${1:-./hprof-strip}
MAKE=${MAKE:-make}
CC=${CC:-cc}
NAME=install
. "$(dirname "$0")/../lib.sh"
D=$T/dest
# Not the defaults, to see that every directory variable is honoured.
VARS="DESTDIR=$D PREFIX=/opt/hs LIBDIR=/opt/hs/lib64 INCLUDEDIR=/opt/hs/inc
      BINDIR=/opt/hs/sbin MANDIR=/opt/hs/man"
L=$D/opt/hs/lib64
W="-std=c11 -Wall -Wextra -Werror"

# same_lists A B WHAT: two sorted lists, with what is only in one shown
same_lists() {
    if cmp -s "$1" "$2"; then ok; else bad "$3: $(comm -3 "$1" "$2" | tr '\n' ' ')"; fi
}

# shellcheck disable=SC2086 # VARS is a list of words
$MAKE -s install $VARS >"$T/log" 2>&1; rc=$?
expect_rc 0 "make install"; [ "$rc" -eq 0 ] || cat "$T/log" >&2
VERSION=$(sed -n 's/^#define HS_VERSION_STRING "\(.*\)"/\1/p' src/lib/hprof_strip.h)
MAJOR=${VERSION%%.*}

# exactly these files, the links pointing down the version chain
(cd "$D" && find . ! -type d | sort) >"$T/files"
sort >"$T/want" <<EOF
./opt/hs/inc/hprof_strip.h
./opt/hs/inc/hprof_strip_static.h
./opt/hs/lib64/libhprofstrip.a
./opt/hs/lib64/libhprofstrip.so
./opt/hs/lib64/libhprofstrip.so.$MAJOR
./opt/hs/lib64/libhprofstrip.so.$VERSION
./opt/hs/lib64/pkgconfig/hprofstrip.pc
./opt/hs/man/man1/hprof-strip.1
./opt/hs/man/man3/hprof_strip.3
./opt/hs/man/man5/hprof-strip-report.5
./opt/hs/sbin/hprof-strip
EOF
same_lists "$T/want" "$T/files" "installed files"
[ "$(readlink "$L/libhprofstrip.so")" = "libhprofstrip.so.$MAJOR" ] && ok || bad ".so link"
[ "$(readlink "$L/libhprofstrip.so.$MAJOR")" = "libhprofstrip.so.$VERSION" ] && ok ||
    bad ".so.$MAJOR link"
"$D/opt/hs/sbin/hprof-strip" --version >"$T/out" 2>&1; rc=$?
expect_rc 0 "installed CLI"

# soname, and the exported symbols are the headers' functions, no more, no
# less: hprof_strip.h's, and hprof_strip_static.h's (exported for the
# programs built against the 0.6 and 0.7 headers, which declared them)
objdump -p "$L/libhprofstrip.so.$VERSION" >"$T/dyn"
expect_grep "SONAME  *libhprofstrip.so.$MAJOR\$" "$T/dyn" "soname"
nm -D --defined-only "$L/libhprofstrip.so.$VERSION" | awk '{print $3}' | sort >"$T/exported"
# function declarations: top-level lines (no indent, no typedef) naming hs_x(
sed -n '/^[A-Za-z]/{/^typedef/d; s/^.*[ *]\(hs_[a-z0-9_]*\)(.*/\1/p;}' src/lib/hprof_strip.h \
    src/lib/hprof_strip_static.h | sort >"$T/declared"
[ -s "$T/declared" ] && ok || bad "no functions found in hprof_strip.h"
same_lists "$T/declared" "$T/exported" "exported symbols vs the headers"
for h in hprof_strip:HS_API hprof_strip_static:HS_STATIC_API; do
    grep '^[A-Za-z].*[ *]hs_[a-z0-9_]*(' "src/lib/${h%:*}.h" | grep -v '^typedef' |
        grep -v "^${h#*:} " >"$T/unmarked"
    [ -s "$T/unmarked" ] && bad "${h%:*}.h: declared without ${h#*:}: $(cat "$T/unmarked")" || ok
done

# pkg-config over the staged copy (the sysroot maps its paths into DESTDIR)
PKG_CONFIG_PATH=$L/pkgconfig PKG_CONFIG_SYSROOT_DIR=$D
export PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR
# pkg-config's output, with its trailing blank dropped
# shellcheck disable=SC2046,SC2005
pc() { echo $(pkg-config "$@"); }
[ "$(pkg-config --modversion hprofstrip)" = "$VERSION" ] && ok || bad "pkg-config version"
pkg-config --validate hprofstrip && ok || bad "pkg-config --validate"
[ "$(pc --libs hprofstrip)" = "-L$L -lhprofstrip" ] && ok ||
    bad "pkg-config --libs: $(pc --libs hprofstrip)"
pkg-config --static --libs hprofstrip | grep -q -- "-lxxhash" && ok || bad "Libs.private"
# relocatable too: paths under ${prefix}, which --define-prefix rewrites
[ "$(PKG_CONFIG_SYSROOT_DIR='' pc --define-prefix --cflags hprofstrip)" = "-I$D/opt/hs/inc" ] &&
    ok || bad "pkg-config --define-prefix"

# the example against the installed copy: shared, with every compiler here
CFLAGS_PC=$(pkg-config --cflags hprofstrip)
LIBS_PC=$(pkg-config --libs hprofstrip)
LIBS_STATIC=$(pkg-config --static --libs hprofstrip)
n=0
for cc in "$CC" clang; do
    command -v "$cc" >/dev/null 2>&1 || continue
    n=$((n + 1))
    # shellcheck disable=SC2086
    $cc $W $CFLAGS_PC examples/strip_file.c -o "$T/strip_shared$n" $LIBS_PC 2>"$T/err"; rc=$?
    expect_rc 0 "$cc: example, shared"; [ "$rc" -eq 0 ] || cat "$T/err" >&2
done
objdump -p "$T/strip_shared1" | grep -q "NEEDED  *libhprofstrip.so.$MAJOR\$" && ok ||
    bad "shared example does not need libhprofstrip.so.$MAJOR"
LD_LIBRARY_PATH=$L ldd "$T/strip_shared1" | grep -q "=> $L/libhprofstrip.so.$MAJOR " && ok ||
    bad "shared example does not load the installed library"
# static: the archive linked in (-l:libhprofstrip.a, as hprof_strip(3)
# says), the rest of Libs.private as the system has it (Debian ships no
# libisal.a, so a fully static program cannot be made here)
LIBS_STATIC=$(echo "$LIBS_STATIC" | sed 's/-lhprofstrip/-l:libhprofstrip.a/')
# shellcheck disable=SC2086
$CC $W $CFLAGS_PC examples/strip_file.c -o "$T/strip_static" $LIBS_STATIC 2>"$T/err"; rc=$?
expect_rc 0 "example, static"; [ "$rc" -eq 0 ] || cat "$T/err" >&2
objdump -p "$T/strip_static" | grep -q "NEEDED.*libhprofstrip" && bad "static example is dynamic" || ok

# The link lines the manual (LINKING) and the README give, each run as
# written on a small program of the static header's calls (prog.c): the
# installed library through pkg-config, and the build tree's archive. A
# line naming libhprofstrip.a makes a program that needs no libhprofstrip.so.
cat >"$T/prog.c" <<'EOF'
#define HS_STATIC_LINKING_ONLY
#include <hprof_strip_static.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
    hs_report *r = hs_report_create();
    char *doc;
    int rc;

    if (!r)
        return 1;
    rc = hs_report_fail(r, HS_E_TRUNCATED, NULL, "cut at byte %d", 42);
    doc = hs_report_json(r, rc, NULL, NULL);
    if (!doc || !strstr(doc, "cut at byte 42"))
        return 1;
    printf("%d %s\n", rc, hs_version());
    hs_free(doc);
    hs_report_free(r);
    return 0;
}
EOF
{
    sed -n '/^\.SH LINKING/,/^\.SH EX/p' man/hprof_strip.3 | sed -n 's/\\-/-/g; /^cc prog\.c /p'
    sed -n '/^```/,/^```/{/^cc prog\.c /p;}' README.md
} >"$T/lines"
grep -q -- '-l:libhprofstrip\.a' "$T/lines" && ok || bad "no static link line in the manual or README"
grep -q ' build/libhprofstrip\.a' "$T/lines" && ok || bad "no build-tree link line in the README"
n=0
while read -r line; do
    n=$((n + 1))
    rm -f "$T/prog$n"
    # the documented line with the program's path and its output's name
    # put in, from the top of the tree (the build-tree line's paths), over the
    # staged install (pkg-config's variables above)
    (eval "$(echo "$line" | sed "s|prog\.c|$T/prog.c -o $T/prog$n|")") >"$T/err" 2>&1; rc=$?
    expect_rc 0 "documented line: $line"; [ "$rc" -eq 0 ] || { cat "$T/err" >&2; continue; }
    out=$(LD_LIBRARY_PATH=$L "$T/prog$n" 2>&1)
    [ "$out" = "3 $VERSION" ] && ok || bad "documented line: $line: the program says '$out'"
    case $line in
    *libhprofstrip.a*)
        objdump -p "$T/prog$n" | grep -q "NEEDED.*libhprofstrip" &&
            bad "documented line: $line: the program needs libhprofstrip.so" || ok ;;
    esac
done <"$T/lines"
[ "$n" -ge 4 ] && ok || bad "only $n documented link lines found"
# the static header is for a program that says so: without
# HS_STATIC_LINKING_ONLY it does not compile
printf '#include <hprof_strip_static.h>\nint main(void) { return 0; }\n' >"$T/nodef.c"
# shellcheck disable=SC2086
$CC $W $CFLAGS_PC -c "$T/nodef.c" -o "$T/nodef.o" 2>"$T/err" &&
    bad "hprof_strip_static.h compiles without HS_STATIC_LINKING_ONLY" || ok
expect_grep "HS_STATIC_LINKING_ONLY" "$T/err" "the static header's #error"

# same bytes as the CLI, every fixture, every preset
for f in fixtures/*.hprof; do
    for p in default privacy android-app none; do
        "$BIN" -p "$p" "$f" >"$T/cli" 2>"$T/err" || { bad "CLI -p $p $f"; continue; }
        for ex in "$T/strip_shared1" "$T/strip_static"; do
            rm -f "$T/lib"
            LD_LIBRARY_PATH=$L "$ex" "$f" "$T/lib" "$p" 2>"$T/err"; rc=$?
            expect_rc 0 "${ex##*/} $f $p"
            cmp -s "$T/cli" "$T/lib" && ok || bad "${ex##*/} $f -p $p differs from the CLI"
        done
    done
done

# examples/gz2zst.c: .gz in, .zst out with -p privacy, through the library's
# own I/O and hs_job_run: the CLI's bytes, and the CLI's --stats-file report
# but for what must differ (the file names, which the library is not given,
# and the times). Threads 1 and the default: zstd's output does not depend
# on the worker count once there are workers.
# shellcheck disable=SC2086
$CC $W $CFLAGS_PC examples/gz2zst.c -o "$T/gz2zst" $LIBS_PC 2>"$T/err"; rc=$?
expect_rc 0 "gz2zst example"; [ "$rc" -eq 0 ] || cat "$T/err" >&2
gzip -c fixtures/jvm17-64bit.hprof >"$T/j17.hprof.gz"
for f in fixtures/jvm17-jcmd-gz1.hprof.gz "$T/j17.hprof.gz" fixtures/jvm17-64bit.hprof; do
    for t in 1 0; do
        rm -f "$T/cli.zst" "$T/lib.zst" "$T/cli.json" "$T/lib.json"
        # shellcheck disable=SC2046 # -T N, or nothing for 0 (every core)
        "$BIN" -p privacy -z $([ "$t" = 0 ] || echo "-T $t") "$f" -o "$T/cli.zst" --stats-file "$T/cli.json" 2>"$T/err" ||
            { bad "CLI -p privacy -z $f: $(cat "$T/err")"; continue; }
        LD_LIBRARY_PATH=$L "$T/gz2zst" "$f" "$T/lib.zst" "$T/lib.json" "$t" 2>"$T/err"; rc=$?
        expect_rc 0 "gz2zst $f -T $t"
        cmp -s "$T/cli.zst" "$T/lib.zst" && ok || bad "gz2zst $f -T $t: output differs from the CLI's"
        python3 - "$T/cli.json" "$T/lib.json" <<'PY' && ok || bad "gz2zst $f -T $t: report differs"
import json, sys
cli, lib = (json.load(open(p)) for p in sys.argv[1:])
for d in (cli, lib):
    d["input"]["name"] = d["output"]["name"] = None
    del d["time"]
if cli != lib:
    for k in cli:
        if cli[k] != lib.get(k):
            print("report field", k, cli[k], lib.get(k), file=sys.stderr)
    sys.exit(1)
PY
    done
done
python3 tests/cli/report_schema.py src/lib/hprof_strip.h "$T/lib.json" >"$T/err" 2>&1 && ok ||
    bad "gz2zst report against the schema: $(cat "$T/err")"

# failures: a cut dump (exit 1, the library's message, no output left), a bad
# preset (exit 2, named), a bad argument count
head -c 100000 fixtures/jvm17-64bit.hprof >"$T/cut.hprof"
LD_LIBRARY_PATH=$L "$T/strip_shared1" "$T/cut.hprof" "$T/cutout" 2>"$T/err"; rc=$?
expect_rc 1 "cut dump"; expect_grep "strip_file: truncated input: input byte" "$T/err" "cut dump"
[ -e "$T/cutout" ] && bad "cut dump: partial output left" || ok
LD_LIBRARY_PATH=$L "$T/strip_shared1" fixtures/jvm17-64bit.hprof "$T/x" nonesuch 2>"$T/err"; rc=$?
expect_rc 2 "unknown preset"; expect_grep "nonesuch" "$T/err" "unknown preset"
LD_LIBRARY_PATH=$L "$T/strip_shared1" 2>"$T/err"; rc=$?
expect_rc 2 "no arguments"; expect_grep "usage" "$T/err" "no arguments"

# the installed header also compiles as C++ (extern "C", nothing C-only)
if command -v c++ >/dev/null 2>&1; then
    printf '#include <hprof_strip.h>\nint main() { return hs_rules_create(nullptr) ? 0 : 1; }\n' |
        c++ -std=c++11 -Wall -Wextra -Werror $CFLAGS_PC -x c++ -fsyntax-only - 2>"$T/err"; rc=$?
    expect_rc 0 "header in C++"; [ "$rc" -eq 0 ] || cat "$T/err" >&2
    printf '#define HS_STATIC_LINKING_ONLY\n#include <hprof_strip_static.h>\nint main() { hs_report_set_audit(nullptr, 1); return 0; }\n' |
        c++ -std=c++11 -Wall -Wextra -Werror $CFLAGS_PC -x c++ -fsyntax-only - 2>"$T/err"; rc=$?
    expect_rc 0 "static header in C++"; [ "$rc" -eq 0 ] || cat "$T/err" >&2
fi

# hprof_strip(3): formats without warnings, names every function, status and
# option of the header; hprof-strip(1) points to it
if command -v groff >/dev/null 2>&1; then
    groff -man -ww -z man/hprof_strip.3 2>"$T/err"
    [ -s "$T/err" ] && bad "groff warnings: $(cat "$T/err")" || ok
fi
{
    cat "$T/declared"
    grep -o '^ *HS_[A-Z_]* = ' src/lib/hprof_strip.h | tr -d ' ='
    sed -n '/^typedef struct {/,/^} hs_options;/p' src/lib/hprof_strip.h |
        sed -n 's/^    [a-z0-9_ ]* \**\([a-z_]*\);.*/\1/p'
} >"$T/names"
[ "$(wc -l <"$T/names")" -gt 30 ] && ok || bad "too few API names found"
while read -r name; do
    grep -q "$name" man/hprof_strip.3 && ok || bad "hprof_strip.3 does not mention $name"
done <"$T/names"
grep -q '^\.BR hprof_strip (3)' man/hprof-strip.1 && ok || bad "hprof-strip.1 SEE ALSO"

# uninstall removes every file install put there
# shellcheck disable=SC2086
$MAKE -s uninstall $VARS >"$T/log" 2>&1; rc=$?
expect_rc 0 "make uninstall"
(cd "$D" && find . ! -type d) >"$T/left"
[ -s "$T/left" ] && bad "left after uninstall: $(cat "$T/left")" || ok

finish
