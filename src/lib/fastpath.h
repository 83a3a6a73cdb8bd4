/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fastpath.h - runs of plain objects (fastpath.c), the heap decoder's fast
 * path beside the sub-record walk of heap.c.
 *
 * Most sub-records of a heap dump are objects that need no decision of
 * their own: skipped whole in a dropped heap, copied whole in a kept one.
 * hs_fast_run() walks such a run in one tight loop, doing for each only
 * what heap.c's sub_record() would do for it (the same counts, the same
 * bytes out), and hands back at the first sub-record that needs more. It
 * reaches the reader and the encoder only through their calls (the inline
 * hs_reader_* and hs_enc_run_* ones), so the two decoders share one place
 * for every byte that goes out.
 *
 * The fast path is an optimisation only: turned off (hs_fast_path), every
 * sub-record takes the walk, and the output and the counters are the same
 * (tests/test_fastpath.c runs every dump and preset both ways).
 */
#ifndef HS_FASTPATH_H
#define HS_FASTPATH_H

#include <stddef.h>
#include <stdint.h>

#include "hprof_strip.h"

/* What the fast path decides once per run (hs_fast_init). */
typedef struct {
    /* payloads of each basic type under this size are zeroed in a run of
     * objects; all 0 when runs leave arrays to heap.c's array_rules() */
    uint64_t zero_below[16];
    /* the size of each root a run of dropped objects may drop with the
     * object right after it, 0 for every other sub-tag */
    uint8_t lead[256];
    /* the same for roots a run that copies may copy: when no root is held,
     * those heap.c's root() would write as they are (neither dropped nor
     * rewritten) */
    uint8_t copy_root[256];
    int off;         /* the fast path is turned off (hs_fast_path): tests only */
    uint64_t walked; /* sub-records runs took (hs_fast_walked) */
} hs_fast;

struct hs_filter;

/* Fills f->fast from the rules, the options and the identifier size
 * (f->sub_size), for a run about to start (heap.c's hs_heap_init). */
hs_status hs_fast_init(struct hs_filter *f);
/* Walks the run that starts at the reader's position, if any, and counts
 * what it did. Called after each sub-record the walk decided. */
hs_status hs_fast_run(struct hs_filter *f);
/* True when a root that ends at window position `at` is to be dropped now
 * because the object `id` it names comes next, in a dropped heap, behind
 * at most a HEAP_DUMP_INFO or a segment header (see fastpath.c). */
int hs_fast_root_dropped_ahead(const struct hs_filter *f, size_t at, uint64_t id);

/* Turns the fast path on (the default) or off for the run `f` is to make:
 * internal, for the tests that hold the two decoders to the same output. */
void hs_fast_path(struct hs_filter *f, int on);
/* The sub-records runs took in the last run of `f`. */
uint64_t hs_fast_walked(const struct hs_filter *f);

#endif
