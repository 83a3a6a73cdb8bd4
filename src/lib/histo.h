/* SPDX-License-Identifier: Apache-2.0 */
/*
 * histo.h - the class histogram: per class (and per heap on Android dumps),
 * how many instances and how many bytes the input held and the output
 * holds, counted in the same pass.
 *
 * Instances come before their class's LOAD_CLASS name is resolved in no
 * dump, but before their CLASS_DUMP in ART's; rows are keyed by class id and
 * named at the end. Class names are STRING texts, met before the LOAD_CLASS
 * that names them: while the histogram is on, every STRING text of at most
 * HS_NAME_TEXT_MAX bytes is kept until the first heap dump (HotSpot and ART
 * write every LOAD_CLASS before it), then only the class names. When unused
 * STRINGs are dropped, the string table holds each text until its first
 * user anyway: those come here only as they are written (a LOAD_CLASS
 * writes its name's), or from the table at the prune (held_text).
 */
#ifndef HS_HISTO_H
#define HS_HISTO_H

#include "be.h"
#include "ctx.h"
#include "format.h"
#include "idmap.h"

/* A slot of the rows' cache: the row of mixed key `k` (its index + 1) and
 * the kept objects of that row counted here and not yet in it. A run
 * counts each kept object in the slot it has just compared, so the row
 * itself is touched only when the slot changes hands or the histogram is
 * read: one cache line an object, not two. An empty slot (row 0) holds a
 * key that is not its own (hs_histo_init), so that comparing the key is
 * the whole test. */
typedef struct {
    uint64_t k;
    uint64_t instances;
    size_t row; /* between the counters: side by side, gcc adds the two as a
                   vector (a register built each object, a spill, a 16-byte
                   load and store), 3 to 6 % slower a run than two adds */
    uint64_t bytes;
} hs_histo_slot;

/* 512 slots of 32 bytes, 16 KiB: in L1 beside the walk's window. Misses
 * (each row's first lookup among them) are 1300 to 2300 a run on the
 * small-object mixes of 6 to 10 M objects; 256 slots missed up to 5800
 * times and ran no faster, 1024 missed as often as 512. */
#define HS_HISTO_CACHE_BITS 9

typedef struct {
    const hs_alloc *alloc;
    hs_idmap rows_at;  /* class key ^ heap mix -> row index + 1 */
    /* the rows last counted, by mixed key: a heap of small objects has a
     * few hundred classes, and fastpath.c's runs count each object here
     * rather than in rows_at (rows are only appended: indexes stay) */
    hs_histo_slot cache[1u << HS_HISTO_CACHE_BITS];
    hs_class_count *rows;
    uint64_t *keys;    /* each row's class key */
    size_t nrows, cap;
    /* Until the first heap dump (pruned 0), every short STRING given to
     * hs_histo_string, in order: its id and its text's offset in `text`.
     * A list, not a map: a dump has tens of thousands of STRINGs and a
     * few hundred classes, and putting each in a map cost more than
     * counting every object (issue #38); hs_histo_prune looks the class
     * names up once. */
    struct hs_histo_str {
        uint64_t id;
        size_t at;
    } *strs;
    size_t nstrs, strs_cap;
    hs_idmap names;    /* after the prune: class name string id -> offset + 1 */
    /* The text of a STRING the string table still holds (filter.c: when
     * unused STRINGs are dropped, a STRING's text stays there until its
     * first user, and comes here by hs_histo_string only when written, so
     * that the histogram copies the few that are used rather than all);
     * NULL: none held anywhere. */
    const uint8_t *(*held_text)(void *ctx, uint64_t id, uint32_t *len);
    void *held_ctx;
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
/* The first heap dump (or the end, when there was none): texts that name
 * no class are let go. */
hs_status hs_histo_prune(hs_histo *h, hs_ctx *c);
/* An object of class key `key` (a class id, or a primitive type with bit 63
 * set) in `heap`, of `bytes`, read; `kept` when it is written too. */
hs_status hs_histo_count(hs_histo *h, hs_ctx *c, uint64_t key, uint32_t heap, uint64_t bytes,
                         int kept);
/* The mixed key of class key `key` in `heap` (one row per class and heap). */
static inline uint64_t hs_histo_key(uint64_t key, uint32_t heap)
{
    return key ^ (uint64_t)heap * 0x9E3779B97F4A7C15ull;
}
/* The cache slot of mixed key `k`. */
static inline hs_histo_slot *hs_histo_slot_of(hs_histo *h, uint64_t k)
{
    return &h->cache[(k * 0xD6E8FEB86659FD93ull) >> (64 - HS_HISTO_CACHE_BITS)];
}
/* Slot `s` of mixed key `k` misses: it takes the key's row, its counts
 * going to the row it held. NULL when `k` has no row yet (histo.c). */
hs_histo_slot *hs_histo_miss(hs_histo *h, hs_histo_slot *s, uint64_t k);
/* The slot holding the row of mixed key `k` when the row exists, else
 * NULL: a new row is hs_histo_count's to make, as that may fail. For
 * fastpath.c's runs, which must not fail half way. */
static inline hs_histo_slot *hs_histo_row(hs_histo *h, uint64_t k)
{
    hs_histo_slot *s = hs_histo_slot_of(h, k);

    return s->k == k ? s : hs_histo_miss(h, s, k);
}
/* Counts an object of `bytes` in the row slot `s` holds, as hs_histo_count
 * does. Until hs_histo_finish adds the kept ones in, a row's _in fields
 * count only the objects dropped, its _out fields (and its slot's counts)
 * those kept: one pair of counters an object, not two, in the loop the
 * fast path runs for every object (--histogram / without on a HotSpot mix
 * of small instances, -p android-app: 1.26 -> 1.17). */
static inline void hs_histo_add(hs_histo *h, hs_histo_slot *s, uint64_t bytes, int kept)
{
    if (kept) {
        s->instances++;
        s->bytes += bytes;
    } else {
        hs_class_count *r = &h->rows[s->row - 1];
        r->instances_in++;
        r->bytes_in += bytes;
    }
}

/* Names every row; sorts by input bytes, most first. */
hs_status hs_histo_finish(hs_histo *h, hs_ctx *c);

#define HS_HISTO_PRIM (1ull << 63)

/* The histogram's class key of the object sub-record at `p` (`i`-byte ids,
 * its header whole) and, in *bytes, what it counts for: an instance's
 * field bytes, an array's elements (a primitive array's whether its data
 * follows or not). heap.c's sub-records and fastpath.c's runs both count
 * through it, so the two paths cannot disagree on a row. */
static inline uint64_t hs_histo_object(const uint8_t *p, unsigned i, uint64_t *bytes)
{
    switch (p[0]) {
    case HS_SUB_INSTANCE_DUMP:
        *bytes = hs_be32(p + 1 + 2 * i + 4);
        return hs_be_id(p + 1 + i + 4, i);
    case HS_SUB_OBJ_ARRAY_DUMP:
        *bytes = (uint64_t)hs_be32(p + 1 + i + 4) * i;
        return hs_be_id(p + 1 + i + 4 + 4, i);
    default:
        *bytes = (uint64_t)hs_be32(p + 1 + i + 4) * hs_prim_size(p[1 + i + 8]);
        return HS_HISTO_PRIM | p[1 + i + 8];
    }
}

#endif
