/* SPDX-License-Identifier: Apache-2.0 */
/*
 * histo.h - the class histogram: per class (and per heap on Android dumps),
 * how many instances and how many bytes the input held and the output
 * holds, counted in the same pass.
 *
 * Instances come before their class's LOAD_CLASS name is resolved in no
 * dump, but before their CLASS_DUMP in ART's; rows are keyed by class id and
 * named at the end. Class names are STRING texts, met before the LOAD_CLASS
 * that names them: while the histogram is on, every STRING text of a few
 * hundred bytes or less is kept until the first heap dump (HotSpot and ART
 * write every LOAD_CLASS before it), then only the class names.
 */
#ifndef HS_HISTO_H
#define HS_HISTO_H

#include "ctx.h"
#include "idmap.h"

typedef struct {
    const hs_alloc *alloc;
    hs_idmap rows_at;  /* class key * 31 + heap -> row index + 1 */
    hs_class_count *rows;
    uint64_t *keys;    /* each row's class key */
    size_t nrows, cap;
    hs_idmap names;    /* string id -> text offset + 1 in `text` */
    hs_idmap classes;  /* class id -> name string id */
    char *text;        /* NUL-terminated texts, dotted when resolved */
    size_t text_len, text_cap;
    int pruned;        /* texts that are no class name were let go */
    unsigned idsize;
} hs_histo;

void hs_histo_init(hs_histo *h, const hs_alloc *a);
void hs_histo_free(hs_histo *h);

/* A STRING's text: kept while it may be a class name. */
hs_status hs_histo_string(hs_histo *h, hs_ctx *c, uint64_t id, const uint8_t *p, size_t n);
/* LOAD_CLASS: class `cls` is named by string `name`. */
hs_status hs_histo_class(hs_histo *h, hs_ctx *c, uint64_t cls, uint64_t name);
/* The first heap dump: texts that name no class are let go. */
hs_status hs_histo_prune(hs_histo *h, hs_ctx *c);
/* An object of class key `key` (a class id, or a primitive type with bit 63
 * set) in `heap`, of `bytes`, read; `kept` when it is written too. */
hs_status hs_histo_count(hs_histo *h, hs_ctx *c, uint64_t key, uint32_t heap, uint64_t bytes,
                         int kept);
/* Names every row; sorts by input bytes, most first. */
hs_status hs_histo_finish(hs_histo *h, hs_ctx *c);

#define HS_HISTO_PRIM (1ull << 63)

#endif
