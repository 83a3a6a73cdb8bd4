/* SPDX-License-Identifier: Apache-2.0 */
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
 *
 * ART also writes a block of roots (a hundred thousand on a small app, some
 * hundred thousand on a small-object heap) before its first object. Those
 * are not put in the map one by one: they are appended to an array, the
 * block, sorted by id when the first question is asked, and then found with
 * a cursor that follows the objects (which come in address order) along
 * the sorted ids. They are what the queue's memory grows with (issue #38),
 * so they are held in little: their bytes in a log, each root a slot of its
 * own size (12 bytes for ART's usual 5-byte root, where a slot is 24), and
 * an entry of 8 bytes (id << 32 | ref) while every id fits in 32 bits, 16
 * once one does not; the sort's scratch is reserved as they grow but
 * written (and so resident) only while the block closes, then freed; the
 * log is freed once its last root is handed back.
 */
#ifndef HS_ROOTQ_H
#define HS_ROOTQ_H

#include <stddef.h>
#include <stdint.h>

#include "hprof_strip.h"
#include "idmap.h"

#define HS_ROOT_MAX 17 /* 1 + 8 + 8: the largest root sub-record */
#define HS_ROOTQ_PAGE_BITS 32768u /* a 4 KiB page of the id bitmap */
#define HS_ROOTQ_PAGE_SHIFT 18    /* 32768 bits of 8 bytes of id space each */
#define HS_ROOTQ_RECENT 8

/* A held root. Its ref (what hs_rootq_take and `next` give) is the slot
 * index + 1 in `slots`, or HS_ROOTQ_LOGGED | (byte offset / 4) in the
 * block's log, where a slot takes only 5 + len bytes, rounded up to 4. */
typedef struct {
    uint32_t next; /* ref of the next root of the same id, 0 = none */
    uint8_t len;
    uint8_t bytes[HS_ROOT_MAX];
} hs_root_slot;

#define HS_ROOTQ_LOGGED 0x80000000u

typedef struct {
    const hs_alloc *alloc;
    hs_idmap map; /* object id -> (first slot + 1) << 32 | (last slot + 1) */
    hs_root_slot *slots;
    uint32_t nslots, cap;
    uint32_t free_list; /* slot index + 1, chained through next */
    uint64_t count;     /* roots held now */
    uint64_t peak;      /* most roots held at once */
    size_t cursor;      /* where hs_rootq_take_any looks first */
    /* Which ids may have roots in the map: one bit per 8 bytes of id space
     * (ids are object addresses, 8-aligned), in 4 KiB pages found through a
     * small directory. Most objects have no root, and ART writes objects in
     * address order, so the bit of the next object is in the cache line of
     * the last one: a map probe (a cache miss in a large map) happens only
     * for objects that had a root held. Bits are never cleared (a stale one
     * only costs a probe). */
    hs_idmap dir;      /* id >> HS_ROOTQ_PAGE_SHIFT -> page index + 1 */
    uint64_t **pages;
    size_t npages, pages_cap;
    uint64_t last_key; /* the page looked up last, and its bits (never */
    const uint64_t *last_page; /* NULL once a page was looked up) */
    /* An id range [win_lo, win_hi) with no bit set, no block entry and no
     * recent id, found around the last object asked about (hs_rootq_clear):
     * ART writes objects in address order, so most objects fall in the
     * range of the one before, and are cleared by two subtractions and a
     * compare. An id added inside the range empties it. */
    uint64_t win_lo, win_hi;
    /* the newest ids, each with its chain: (first + 1) << 32 | (last + 1) */
    uint64_t recent_id[HS_ROOTQ_RECENT], recent_chain[HS_ROOTQ_RECENT];
    unsigned n_recent;
    /* The block: while `open`, every root added goes to the log and is
     * appended as (id, ref): in `blk` as id << 32 | ref while every id fits
     * in 32 bits, else in `wblk` as {id, ref}. The first lookup closes it:
     * sorted by id, the roots of one id chained, it then holds one entry
     * per id, the ref of its first root, 0 once taken. The sort's scratch
     * grows with the entries (so closing cannot fail) but is written only
     * by the sort, and freed once the block is closed. */
    uint64_t *blk;
    hs_idmap_entry *wblk;
    int wide;           /* the entries are wblk's */
    void *scratch;      /* the sort's, while the block is open */
    size_t scratch_bytes;
    size_t nblk, blk_cap;
    size_t blk_ready;   /* entries faulted in (populate) */
    uint8_t *log;       /* the block's roots, as slots of their own size */
    size_t log_len, log_cap;
    size_t log_ready;   /* bytes of the log faulted in (populate) */
    uint64_t log_live;  /* roots of the log held or taken, not handed back */
    size_t blk_left; /* entries not taken yet (closed block) */
    size_t blk_cur;  /* where the last search ended */
    size_t blk_drain; /* where hs_rootq_take_any looks first */
    int open;        /* adds go to the block */
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
/* The first slot index + 1 of the roots held for `id` (0 when none),
 * left attached. */
uint32_t hs_rootq_peek(hs_rootq *q, uint64_t id);
/* Detaches the roots of any one id still held, or returns 0 when empty.
 * Roots of a block never asked about come one at a time, in the order they
 * were added (HotSpot writes its roots after every object: they go out as
 * they came); then the block's by id, each id's together; then the rest. */
uint32_t hs_rootq_take_any(hs_rootq *q);
static inline hs_root_slot *hs_rootq_slot(hs_rootq *q, uint32_t ref)
{
    if (ref & HS_ROOTQ_LOGGED) /* 4-aligned: a slot's fields are aligned */
        return (hs_root_slot *)(void *)(q->log + ((size_t)(ref & ~HS_ROOTQ_LOGGED) << 2));
    return &q->slots[ref - 1];
}
void hs_rootq_put_back(hs_rootq *q, uint32_t ref);
static inline size_t hs_rootq_bytes(const hs_rootq *q)
{
    return (size_t)q->cap * sizeof(hs_root_slot) + hs_idmap_bytes(&q->map) +
           hs_idmap_bytes(&q->dir) + q->npages * (HS_ROOTQ_PAGE_BITS / 8) +
           q->pages_cap * sizeof(uint64_t *) +
           q->blk_cap * (q->wide ? sizeof(hs_idmap_entry) : sizeof(uint64_t)) +
           q->scratch_bytes + q->log_cap;
}

/* The bitmap word of `id` when its page is the last one looked up, else
 * NULL (then the caller looks the page up). */
static inline const uint64_t *hs_rootq_word(const hs_rootq *q, uint64_t id)
{
    if (id >> HS_ROOTQ_PAGE_SHIFT != q->last_key)
        return NULL;
    return &q->last_page[(id >> 9) & (HS_ROOTQ_PAGE_BITS / 64 - 1)];
}

/* Sets the bit of `id` with no root held for it: an id runs must stop at
 * (a Thread object kept in a dropped heap). HS_OK or HS_E_NOMEM. */
hs_status hs_rootq_watch(hs_rootq *q, uint64_t id);

/* True when `id` surely has no root held and is not watched: the question
 * a run asks of every object while heaps are dropped. False when it may
 * (hs_rootq_maybe and the watched ids then tell). */
int hs_rootq_clear_slow(hs_rootq *q, uint64_t id);
static inline int hs_rootq_clear(hs_rootq *q, uint64_t id)
{
    return id - q->win_lo < q->win_hi - q->win_lo || hs_rootq_clear_slow(q, id);
}

/* False when `id` surely has no root held; true when it may (or is
 * watched). */
static inline int hs_rootq_maybe(hs_rootq *q, uint64_t id)
{
    return q->count && !hs_rootq_clear(q, id);
}

/* Starts loading the bitmap word `id` will be looked up in: called a
 * sub-record ahead, so the lookup finds it in cache. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void hs_rootq_prefetch(const hs_rootq *q, uint64_t id)
{
    const uint64_t *w = hs_rootq_word(q, id);

    if (w)
        __builtin_prefetch(w);
}

#endif
