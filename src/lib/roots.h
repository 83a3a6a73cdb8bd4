/* SPDX-License-Identifier: Apache-2.0 */
/*
 * roots.h - GC roots held while heaps are dropped.
 *
 * ART writes every root before the objects it names, and which heap an
 * object lives in is known only when the object itself goes by. So when a
 * heap's objects are dropped, roots wait in the root queue (rootq.h) until
 * their object shows its heap: written with it, or dropped with it. Roots
 * whose object never comes dangled in the input too, and are written at the
 * end of the heap dump.
 */
#ifndef HS_ROOTS_H
#define HS_ROOTS_H

#include "rootq.h"
#include "strrec.h"

typedef struct {
    hs_rootq q;
    /* Thread objects named by a ROOT_THREAD_OBJ: kept even in a dropped heap,
     * since analysts start from threads (see heap.c) */
    hs_idmap threads;
    /* A bit per thread id, hashed into 4096 (id bits 3..14): asked for every
     * object in a dropped heap, it answers "not a thread" from L1 cache
     * where a map probe would cost a call and a hash. */
    uint64_t thread_bits[64];
    int dropped_any; /* some object was dropped already */
} hs_roots;

void hs_roots_init(hs_roots *r, const hs_alloc *a);
void hs_roots_free(hs_roots *r);

/* Holds the root `bytes[0..n)` naming object `id`. */
hs_status hs_roots_hold(hs_roots *r, hs_enc *e, uint64_t id, const uint8_t *bytes, size_t n);
/* Writes (or, with `drop`, discards) a chain of held roots from `ref`. */
hs_status hs_roots_write_chain(hs_roots *r, hs_strings *s, hs_enc *e, uint32_t ref, int drop);

/* Writes (or, with `drop`, discards) the roots held for object `id`: called
 * for every object while heaps are dropped, so the common answer (none) is
 * inline. */
static inline hs_status hs_roots_release(hs_roots *r, hs_strings *s, hs_enc *e, uint64_t id,
                                         int drop)
{
    uint32_t ref;

    if (!hs_rootq_maybe(&r->q, id) || !(ref = hs_rootq_take(&r->q, id)))
        return HS_OK;
    return hs_roots_write_chain(r, s, e, ref, drop);
}
/* Object `id` is a thread's: keep it whatever its heap. */
hs_status hs_roots_keep_thread(hs_roots *r, hs_ctx *c, uint64_t id);
/* True when object `id` is kept whatever its heap. */
static inline int hs_roots_kept_thread(const hs_roots *r, uint64_t id)
{
    return r->threads.count && (r->thread_bits[(id >> 9) & 63] >> ((id >> 3) & 63) & 1) &&
           hs_idmap_get(&r->threads, id);
}

/* Writes every root still held. */
hs_status hs_roots_release_all(hs_roots *r, hs_strings *s, hs_enc *e);

#endif
