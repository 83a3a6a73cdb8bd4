/*
 * rootq.h - GC roots held back while heaps are being dropped.
 *
 * ART writes its roots before the objects they name, so when a heap's
 * objects are dropped the filter cannot yet tell which roots would dangle.
 * Roots are parked here, keyed by the object id they name, until that
 * object goes by: written just before it when it is kept, dropped with it
 * when it is not. What is left when the heap dump ends names objects that
 * never appeared, and is written then.
 *
 * Each root is a slot of at most 24 bytes (the longest root is 1 + 8 + 8);
 * the roots of one id are chained through their slots, in arrival order.
 *
 * ART writes one ROOT_VM_INTERNAL right before each zygote or image object,
 * millions of them: the ids of the last few roots are kept in a small list
 * in front of the map, so such a root comes and goes without a map probe.
 */
#ifndef HS_ROOTQ_H
#define HS_ROOTQ_H

#include <stddef.h>
#include <stdint.h>

#include "hprof_strip.h"
#include "idmap.h"

#define HS_ROOT_MAX 17 /* 1 + 8 + 8: the largest root sub-record */
#define HS_ROOTQ_RECENT 8

typedef struct {
    uint32_t next; /* slot index + 1 of the next root of the same id, 0 = none */
    uint8_t len;
    uint8_t bytes[HS_ROOT_MAX];
} hs_root_slot;

typedef struct {
    const hs_alloc *alloc;
    hs_idmap map; /* object id -> (first slot + 1) << 32 | (last slot + 1) */
    hs_root_slot *slots;
    uint32_t nslots, cap;
    uint32_t free_list; /* slot index + 1, chained through next */
    uint64_t count;     /* roots held now */
    uint64_t peak;      /* most roots held at once */
    size_t cursor;      /* where hs_rootq_take_any looks first */
    /* A Bloom filter over every id ever put in the map: most objects have
     * no root, and this answers "none" from one word of 256 KiB, where a
     * map probe would miss the cache. Each id sets two bits of one word.
     * Bits are never cleared (a stale one only costs a probe). */
    uint64_t *filter;
    /* the newest ids, each with its chain: (first + 1) << 32 | (last + 1) */
    uint64_t recent_id[HS_ROOTQ_RECENT], recent_chain[HS_ROOTQ_RECENT];
    unsigned n_recent;
} hs_rootq;

void hs_rootq_init(hs_rootq *q, const hs_alloc *a);
void hs_rootq_free(hs_rootq *q);
/* Holds root `bytes[0..len)` for object `id`; `bytes` must be readable for
 * HS_ROOT_MAX bytes (a slot is copied whole). */
hs_status hs_rootq_add(hs_rootq *q, uint64_t id, const uint8_t *bytes, size_t len);
/* Detaches the roots held for `id` and returns the first slot index + 1 (0
 * when none); walk them with hs_rootq_slot()/next and hand each back with
 * hs_rootq_put_back(). */
uint32_t hs_rootq_take(hs_rootq *q, uint64_t id);
/* Detaches the roots of any one id still held, or returns 0 when empty. */
uint32_t hs_rootq_take_any(hs_rootq *q);
static inline hs_root_slot *hs_rootq_slot(hs_rootq *q, uint32_t ref)
{
    return &q->slots[ref - 1];
}
void hs_rootq_put_back(hs_rootq *q, uint32_t ref);
#define HS_ROOTQ_FILTER_WORDS_LOG2 15
#define HS_ROOTQ_FILTER_BYTES ((size_t)8 << HS_ROOTQ_FILTER_WORDS_LOG2)

static inline size_t hs_rootq_bytes(const hs_rootq *q)
{
    return (size_t)q->cap * sizeof(hs_root_slot) + hs_idmap_bytes(&q->map) +
           (q->filter ? HS_ROOTQ_FILTER_BYTES : 0);
}

/* The filter word of `id`, and its two bits there, from the top bits of a
 * multiplicative hash (ids are aligned, so their low bits say little). */
static inline const uint64_t *hs_rootq_filter_word(const hs_rootq *q, uint64_t id,
                                                   uint64_t *mask)
{
    uint64_t h = id * 0x9E3779B97F4A7C15ull;

    *mask = 1ull << (h >> 37 & 63) | 1ull << (h >> 43 & 63);
    return &q->filter[h >> (64 - HS_ROOTQ_FILTER_WORDS_LOG2)];
}

/* Starts loading the filter word `id` will be looked up in: called a
 * sub-record ahead, so the lookup finds it in cache. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void hs_rootq_prefetch(const hs_rootq *q, uint64_t id)
{
    uint64_t mask;

    if (q->map.count)
        __builtin_prefetch(hs_rootq_filter_word(q, id, &mask));
}

#endif
