#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The core's files form layers: each file's undefined symbols (nm) that the
# core defines resolve only to files listed before it in CORE_SRC (the
# Makefile's order, bottom up). So no cycle can hide between two files.
# Then the boundary between the library (src/lib) and the command-line tool
# (src/cli), from the sources and from the objects: no src/lib file includes
# a src/cli header; a src/cli file includes no src/lib header but
# hprof_strip.h and hprof_strip_static.h (the command's own calls, for
# static linking); and no src/cli object uses a library symbol that these
# two do not declare. What the CLI still takes from the
# library's insides is listed, each with what is to become of it, in
# tests/lanes/layers-cli.txt: a use not listed there fails, and so does a listed
# one that is gone (the list only shrinks).
# Usage: tests/lanes/layers.sh BUILD_DIR src/lib/a.c src/lib/b.c ...
set -u
build=$1
shift
NAME=layers
. "$(dirname "$0")/../lib.sh"
: >"$T/below"
# every core symbol: defined by some file of the core (once: nm over all the
# objects per file took minutes on a busy machine)
for o in "$@"; do nm -g --defined-only "$build/lib/$(basename "$o" .c).o"; done |
    awk '{print $3}' | sort -u >"$T/core"
for src in "$@"; do
    obj="$build/lib/$(basename "$src" .c).o"
    nm -g --defined-only "$obj" | awk '{print $3}' | sort >"$T/def"
    nm -u "$obj" | awk '{print $2}' | sort >"$T/undef"
    comm -12 "$T/undef" "$T/core" >"$T/uses"
    comm -23 "$T/uses" "$T/below" >"$T/bad"
    if [ -s "$T/bad" ]; then
        bad "$src calls what a file above it defines: $(tr '\n' ' ' <"$T/bad")"
    else
        ok
    fi
    sort -u "$T/below" "$T/def" -o "$T/below"
done

# ---- the cursors: the reader owns its window, the encoder its span -----------
# Only reader.c/h write the reader's cursor and window (rd.pos, end, base,
# buf), only encoder.c/h the encoder's span, destination, segment fill and
# --salvage marks: a decoder moves them through their calls (hs_pass,
# hs_drop, hs_enc_fill, hs_enc_record_begin, ...: encoder.h). A write is an
# assignment (plain or compound) or ++/-- to such a field through a reader
# (rd, r) or an encoder (enc, e). LAYERS_CURSOR_DIR reads another folder
# (to see the check fail on a planted write).
cursor_dir=${LAYERS_CURSOR_DIR:-src/lib}
lhs='((\<rd|\<r)(\.|->)(pos|end|base|buf|own|cap|eof)|(\<enc|\<e)(\.|->)(span|dst|sub_open|sub_mark|sub_off|rec_partial|rec_out_pos|seg_len|seg_open|huge_out_end|huge_seg_pos|heap_open|staging))\>'
write="$lhs[[:space:]]*(([-+*/%&|^]|<<|>>)?=([^=]|\$)|\+\+|--)|(\+\+|--)[[:space:]]*[A-Za-z_>.-]*$lhs"
for f in "$cursor_dir"/*.c "$cursor_dir"/*.h; do
    case ${f##*/} in reader.[ch] | encoder.[ch]) continue ;; esac
    if grep -nE "$write" "$f" >"$T/writes"; then
        bad "$f writes the reader's or the encoder's own state (use their calls): $(tr '\n' ' ' <"$T/writes")"
    else
        ok
    fi
done

# ---- the library / CLI boundary ----------------------------------------------
ledger=${LAYERS_LEDGER:-$(dirname "$0")/layers-cli.txt}
sed 's/#.*//' "$ledger" | awk 'NF' | sort -u >"$T/ledger"
: >"$T/seen"

# the quoted includes of a file, one a line
includes() { sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$1"; }

for f in src/lib/*.c src/lib/*.h; do
    for h in $(includes "$f"); do
        if [ -e "src/cli/$h" ] && [ ! -e "src/lib/$h" ]; then
            bad "$f includes the CLI's $h: the library never sees the CLI"
        fi
    done
done
ok

for f in src/cli/*.c src/cli/*.h; do
    for h in $(includes "$f"); do
        case $h in hprof_strip.h | hprof_strip_static.h) continue ;; esac
        [ -e "src/lib/$h" ] && [ ! -e "src/cli/$h" ] || continue
        echo "include ${f#src/} $h" >>"$T/seen"
    done
done

# what the two headers declare (as tests/lanes/install.sh reads them)
sed -n '/^[A-Za-z]/{/^typedef/d; s/^.*[ *]\(hs_[a-z0-9_]*\)(.*/\1/p;}' src/lib/hprof_strip.h \
    src/lib/hprof_strip_static.h | sort -u >"$T/public"
[ -s "$T/public" ] && ok || bad "no function found in src/lib/hprof_strip.h"
# each call in one of them only (the command's own are not public too)
for h in hprof_strip hprof_strip_static; do
    sed -n '/^[A-Za-z]/{/^typedef/d; s/^.*[ *]\(hs_[a-z0-9_]*\)(.*/\1/p;}' "src/lib/$h.h" |
        sort -u >"$T/$h.calls"
done
comm -12 "$T/hprof_strip.calls" "$T/hprof_strip_static.calls" >"$T/both"
[ -s "$T/both" ] && bad "declared in both headers: $(tr '\n' ' ' <"$T/both")" || ok
for o in "$build"/lib/*.o; do nm -g --defined-only "$o"; done | awk 'NF == 3 {print $3}' |
    sort -u >"$T/libsyms"
for src in src/cli/*.c; do
    obj="$build/cli/$(basename "$src" .c).o"
    [ -e "$obj" ] || { bad "no $obj (make first)"; continue; }
    nm -u "$obj" | awk '{print $2}' | sort -u | comm -12 - "$T/libsyms" |
        comm -23 - "$T/public" | sed "s|^|symbol cli/$(basename "$obj") |" >>"$T/seen"
done

sort -u "$T/seen" -o "$T/seen"
comm -23 "$T/seen" "$T/ledger" >"$T/new"
comm -13 "$T/seen" "$T/ledger" >"$T/gone"
if [ -s "$T/new" ]; then
    while read -r what file name; do
        if [ "$what" = include ]; then
            bad "src/$file includes the library's $name: the CLI sees hprof_strip.h and hprof_strip_static.h only"
        else
            bad "$file uses $name, which neither hprof_strip.h nor hprof_strip_static.h declares (the CLI calls the library's API)"
        fi
    done <"$T/new"
else
    ok
fi
if [ -s "$T/gone" ]; then
    bad "listed in $ledger but no longer so (remove the lines): $(tr '\n' ';' <"$T/gone")"
else
    ok
fi
finish
