/* SPDX-License-Identifier: Apache-2.0 */
/*
 * deobf.h - what an R8/ProGuard mapping does to each record of the stream:
 * the original names of classes (LOAD_CLASS), fields (CLASS_DUMP) and
 * stack frames (STACK_FRAME), written as new STRING records with ids of
 * their own, and the records' name ids pointed at them.
 *
 * The same step obfuscates (--obfuscate-names): what gives the new names
 * is a namer (namer.h), the mapping's or obfuscate.c's generator.
 *
 * The decoder calls it at a few points, only when a mapping was given or
 * names are obfuscated (hs_caps.deobf): each STRING (hs_deobf_string), LOAD_CLASS and
 * STACK_FRAME (hs_deobf_record), the start of the first heap dump
 * (hs_deobf_heap_start) and each CLASS_DUMP (hs_deobf_class_dump). The
 * records are patched where they lie in the read window, which is why a
 * zero-copy source is read through a copy (hs_deobf_source) when a mapping
 * is given (a file mapped by input.c is patched in place, privately, when
 * the input says it may be: hs_input_writable).
 * The how and why are at the top of deobf.c.
 */
#ifndef HS_DEOBF_H
#define HS_DEOBF_H

#include "encoder.h"
#include "idmap.h"
#include "mapping.h"
#include "names.h"
#include "namer.h"
#include "obfuscate.h"
#include "strrec.h"

typedef struct {
    int on;        /* 0: no mapping nor obfuscation, nothing here runs */
    hs_namer nm;   /* what renames: the mapping's or the obfuscator's */
    const hs_mapping *m; /* the mapping (--mapping), or NULL: read-only,
                            shared by every filter of the rule set */
    hs_mapping_counts counts; /* what this filter's lookups asked and hit */
    hs_obf obf;    /* the name generator (--obfuscate-names) */
    hs_names own;  /* rewritten signatures, at fixed addresses for `fresh` */
    hs_ctx *c;
    hs_enc *e;
    hs_strings *str; /* fresh STRINGs are written through it (hs_str_write) */
    /* told of each STRING written here, as of each read: the filter's one
     * notice that a STRING exists (filter.c string_named); NULL: none */
    hs_status (*named)(void *ctx, uint64_t id, const uint8_t *text, size_t n);
    void *named_ctx;
    int version;     /* x of JAVA PROFILE 1.0.x: 3 spells classes ART's way */

    /* texts of input STRINGs that may matter (obfuscated class or member
     * names), NUL-terminated, by id: value offset + 1 into `text` */
    hs_idmap held;
    char *text;
    size_t text_len, text_cap;
    hs_idmap classes;  /* class object id -> its held obfuscated name */
    hs_idmap serials;  /* class serial -> the same */
    hs_idmap loaded;   /* obfuscating: every LOAD_CLASS's serial (a frame
                          of no loaded class is renamed all the same) */
    hs_idmap renamed;  /* input class-name STRING id -> fresh id */
    hs_idmap fresh;    /* original name (the mapping's pointer) -> fresh id */
    hs_idmap reserved; /* input STRING ids that fell in the fresh range */
    uint64_t base, next, limit; /* fresh ids: [base, limit), next unused */
    char *scratch;     /* a class name being rewritten */
    size_t scratch_cap;
    hs_mapping_frame *frames;
    size_t frames_cap;
    int heap_started;

    /* a zero-copy source read through a copy (hs_deobf_source): the
     * position in its data, or in the block it lent last */
    hs_source user;
    uint64_t user_pos;
    const uint8_t *lent;
    size_t lent_len;
} hs_deobf;

/* `m`: the mapping to apply, or NULL; `obfuscate`: generate names instead
 * (hs_deobf.obf then holds what was given, for hs_obf_write). */
void hs_deobf_init(hs_deobf *d, const hs_mapping *m, int obfuscate, hs_ctx *c, hs_enc *e,
                   hs_strings *str);
void hs_deobf_free(hs_deobf *d);

/* Once the file header is read (id size and version known): sets the
 * fresh-id range and counts the mapping under max_held. */
hs_status hs_deobf_start(hs_deobf *d, int version);

/* A zero-copy source `in` (data or lent blocks) becomes a read source over
 * it in `out` (the window is patched in place; the source's bytes are not
 * ours to write), unless `writable` says its data may be written: a file
 * input.c mapped privately and made writable (hs_input_writable), which is
 * read and patched in place, copied on write a page at a time. Any other
 * source is copied as it is. */
void hs_deobf_source(hs_deobf *d, const hs_source *in, int writable, hs_source *out);

/* The STRING record `id` with text p[n]: fails when the id is one already
 * given to an original name; keeps the text when the mapping may need it. */
hs_status hs_deobf_string(hs_deobf *d, uint64_t id, const uint8_t *p, size_t n);

/* A LOAD_CLASS or STACK_FRAME whose body (fixed size, in the window) is at
 * `body`: writes the STRINGs its original names need, then points the
 * body's name ids at them (and a frame's line at the original line). */
hs_status hs_deobf_record(hs_deobf *d, unsigned tag, uint8_t *body);

/* Before the first heap dump's first record: the STRINGs of every renamed
 * field of the classes loaded so far, so that none has to be written
 * between heap segments (VisualVM's reader cannot take that). */
hs_status hs_deobf_heap_start(hs_deobf *d);

/* The CLASS_DUMP of `size` bytes at `p` (whole, in the window): its static
 * and instance field names pointed at their original names' STRINGs. */
hs_status hs_deobf_class_dump(hs_deobf *d, uint8_t *p, size_t size);

#endif
