/* SPDX-License-Identifier: Apache-2.0 */
/*
 * obfuscate.h - --obfuscate-names: a namer (namer.h) that gives every
 * class outside the keep list, every field of such a class and every
 * method of its stack frames a short opaque name, the same one for the
 * same name all through the run, and writes what it gave as an R8/ProGuard
 * mapping (original -> obfuscated) that --mapping reads back.
 *
 * Names, like R8's: the n-th of a kind is the n-th of a, b, ..., z, aa,
 * ab, ... (hs_obf_gen). Classes are o.a, o.b, ... (one short package, so
 * that a class name is spelled in the dump's way: o/a and [Lo/a; in a
 * HotSpot dump, o.a and o.a[] in an ART one); fields and methods are
 * numbered per class; a frame's source file becomes "SourceFile", the
 * original kept in the mapping's sourceFile metadata.
 *
 * A frame whose class no LOAD_CLASS names is renamed too, under a class
 * of its own that the mapping lists only as comments (hs_obf_orphan_frame).
 *
 * The keep list (hs_obf_keep): the JDK's and Android's own packages
 * (java., javax., jdk., sun., com.sun., android., dalvik., libcore.), the
 * primitive types and every array whose element is one of those. A name
 * the mapping format cannot carry (a blank or a line end in it, a class
 * starting with '#', a field with '(' or a method with '(', ')' or '.')
 * is kept as well, and counted (hs_obf.unwritable).
 *
 * Memory: the names and tables count under max_held with the rest of the
 * rename step (deobf.c, HS_HOLD_MAPPING).
 */
#ifndef HS_OBFUSCATE_H
#define HS_OBFUSCATE_H

#include "hprof_strip.h"
#include "idmap.h"
#include "names.h"
#include "namer.h"

typedef struct {
    uint32_t name, obf;   /* ordinals: dotted original, dotted obfuscated */
    uint32_t n_fields, n_methods;
    uint32_t first_field, last_field, first_method, last_method; /* index + 1 */
    uint32_t source;      /* ordinal + 1 of the source file, 0 none */
    int orphan;           /* the frames of a class no LOAD_CLASS names */
} hs_obf_class;

typedef struct {
    uint32_t name, obf, next; /* next: index + 1 in the class's list */
    uint32_t extra;           /* field: basic type; method: signature ordinal + 1 */
} hs_obf_member;

typedef struct {
    const hs_alloc *a;
    hs_names names;
    hs_obf_class *cls;
    size_t n_cls, cap_cls;
    hs_obf_member *mem; /* fields and methods */
    size_t n_mem, cap_mem;
    hs_idmap by_class;  /* original name ordinal -> class index + 1 */
    hs_idmap by_member; /* class << 33 | kind << 32 | name ordinal -> member index + 1 */
    uint32_t source_file; /* ordinal of "SourceFile" + 1, once interned */
    char *buf;            /* a dotted name being built */
    size_t buf_cap;
    uint64_t unwritable;  /* names kept because a mapping line cannot hold them */
    int nomem;            /* an allocation failed inside a callback */
} hs_obf;

void hs_obf_init(hs_obf *o, const hs_alloc *a);
void hs_obf_free(hs_obf *o);

/* The namer over `o`. */
void hs_obf_namer(hs_obf *o, hs_namer *nm);

/* The k-th generated name (from 0: a, b, ..., z, aa, ...) into buf, which
 * takes 16 bytes; returns its length. */
size_t hs_obf_gen(uint64_t k, char *buf);

/* True when the class of dotted name s[n] (an array's element, no "[]")
 * keeps its name. */
int hs_obf_keep(const char *s, size_t n);

/* A stack frame of class serial `serial`, which no LOAD_CLASS names:
 * its method and source file are renamed all the same (it may be the
 * app's), as members of a class of their own, "<class serial N>", which
 * the mapping lists in comment lines (no class name can restore them).
 * Returns 1 with out[0] filled, 0 when the names are kept (unwritable;
 * out of memory: o->nomem). */
size_t hs_obf_orphan_frame(hs_obf *o, uint32_t serial, const char *m, size_t mn,
                           const char *sig, size_t sn, const char *src, size_t srcn,
                           uint32_t line, hs_mapping_frame *out);

/* Writes the mapping: every renamed class with its renamed fields and
 * methods, in the order they were met. HS_E_WRITE when the sink fails,
 * HS_E_NOMEM. */
hs_status hs_obf_write(const hs_obf *o, const hs_sink *dst);

#endif
