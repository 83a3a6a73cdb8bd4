#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The core's files form layers: each file's undefined symbols (nm) that the
# core defines resolve only to files listed before it in CORE_SRC (the
# Makefile's order, bottom up). So no cycle can hide between two files.
# Usage: tests/layers.sh BUILD_DIR src/a.c src/b.c ...
set -u
build=$1
shift
NAME=layers
. "$(dirname "$0")/lib.sh"
: >"$T/below"
# every core symbol: defined by some file of the core (once: nm per pair
# of files took minutes on a busy machine)
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
finish
