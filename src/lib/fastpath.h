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
 * for every byte that goes out. Of the filter it sees only what it is given
 * (hs_fast_parts, once) and where the decoder stands (hs_fast_at, for each
 * run, handed back with what the run moved).
 *
 * The fast path is an optimisation only: turned off (hs_fast_path), every
 * sub-record takes the walk, and the output and the counters are the same
 * (tests/unit/test_fastpath.c runs every dump and preset both ways).
 */
#ifndef HS_FASTPATH_H
#define HS_FASTPATH_H

#include <stddef.h>
#include <stdint.h>

#include "ctx.h"
#include "encoder.h"
#include "histo.h"
#include "roots.h"
#include "rules.h"
#include "scrub.h"
#include "strrec.h"

/* What runs work with, given once (hs_fast_init). */
typedef struct {
    hs_ctx *c;             /* the reader, the options, the counters */
    hs_enc *enc;
    hs_roots *roots;       /* roots held for their object, kept Thread objects */
    hs_scrub *scrub;       /* instance layouts when fields are scrubbed, else NULL */
    hs_histo *histo;       /* the class histogram, or NULL */
    const hs_strings *str; /* whether STRINGs come on demand (strrec.h) */
    const hs_rules *rules;
    const hs_caps *caps;
    const uint8_t *sub_size; /* hs_sub_fixed_size() of each sub-tag, 0: unknown */
    int version;             /* 0..3: JAVA PROFILE 1.0[.x] */
} hs_fast_parts;

/* What the fast path decides once per run (hs_fast_init). */
typedef struct {
    hs_fast_parts p;
    /* the rules drop the objects of each heap id under 256 (ART's heaps:
     * 0 and letters; heaps switch every few dozen objects) */
    uint8_t heap_dropped[256];
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

/* Where the heap decoder stands: handed to each run, which may move it on
 * into another heap (a HEAP_DUMP_INFO) and into the next segments, and
 * handed back. */
typedef struct {
    uint64_t rec_off;  /* the heap record being read starts here */
    uint64_t rec_end;  /* and ends here (UINT64_MAX: with the input) */
    int segment;       /* it is a HEAP_DUMP_SEGMENT, which a run may go on from */
    uint32_t heap;     /* the input's heap */
    int heap_dropped;  /* the rules drop its objects (hs_fast_heap_dropped) */
    unsigned segments; /* out: the segments the run went on into */
    uint64_t prev_off; /* out, when it did: the record before the last one */
    uint64_t seg_len;  /* out, when it did: the last one's body length */
} hs_fast_at;

/* True when the rules drop the objects of `heap`. */
static inline int hs_fast_heap_dropped(const hs_fast *fp, uint32_t heap)
{
    if (heap < sizeof fp->heap_dropped)
        return fp->heap_dropped[heap];
    return fp->p.caps->hold_roots && hs_rules_heap_dropped(fp->p.rules, heap);
}

/* Sets up `fp` with `parts` from the rules, the options and the identifier
 * size, for a run about to start (heap.c's hs_heap_init). */
hs_status hs_fast_init(hs_fast *fp, const hs_fast_parts *parts);
/* Walks the run that starts at the reader's position, if any, and counts
 * what it did. Called after each sub-record the walk decided. */
hs_status hs_fast_run(hs_fast *fp, hs_fast_at *at);
/* True when a root that ends at window position `pos` is to be dropped now
 * because the object `id` it names comes next, in a dropped heap, behind
 * at most a HEAP_DUMP_INFO or a segment header (see fastpath.c). */
int hs_fast_root_dropped_ahead(const hs_fast *fp, const hs_fast_at *at, size_t pos, uint64_t id);

/* Turns the fast path on (the default) or off for the run `f` is to make:
 * internal, for the tests that hold the two decoders to the same output. */
struct hs_filter;
void hs_fast_path(struct hs_filter *f, int on);
/* The sub-records runs took in the last run of `f`. */
uint64_t hs_fast_walked(const struct hs_filter *f);

#endif
