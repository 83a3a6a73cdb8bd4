/* SPDX-License-Identifier: Apache-2.0 */
/*
 * core.h - the filter object: the shared context, the encoder, one struct
 * per feature, and the decoder's own state. Included by the files that
 * decode, filter.c (the file header and top-level records), heap.c
 * (heap-dump sub-records) and fastpath.c (runs of plain objects, heap.c's
 * fast path); every feature below them (strrec.c, roots.c,
 * scrub.c, dups.c) sees only its own struct, the encoder and the context.
 */
#ifndef HS_CORE_H
#define HS_CORE_H

#include <stdatomic.h>

#include "ctx.h"
#include "hs_limits.h"
#include "deobf.h"
#include "dups.h"
#include "findings.h"
#include "encoder.h"
#include "fastpath.h"
#include "histo.h"
#include "cutclasses.h"
#include "roots.h"
#include "rules.h"
#include "scrub.h"
#include "strrec.h"

struct hs_filter {
    hs_ctx c;
    hs_enc enc;
    const hs_rules *rules;
    hs_caps caps;

    hs_strings str;
    hs_roots roots;
    hs_scrub scrub;
    hs_dups dups;
    hs_histo histo;
    hs_cutclasses cut; /* --salvage: the classes it must still declare */
    hs_findings fd;    /* where the data is (hs_options.findings) */

    /* the decoder */
    uint8_t sub_size[256]; /* hs_sub_fixed_size() of each sub-tag, 0: unknown */
    int version;           /* 0..3: JAVA PROFILE 1.0[.x] */
    int prev_unknown_tag;  /* tag of the previous record if unknown, else -1 */
    uint64_t prev_off;
    uint64_t prev_out_pos; /* where an unknown record starts in the output */
    int heap_seen;         /* a heap record was read */
    int heap_segments;     /* HEAP_DUMP_SEGMENTs read since the last HEAP_DUMP_END */
    int seen_load_class;
    int seen_profile;      /* a record only a profiler writes (check_end) */
    int seen_heap_end;     /* a HEAP_DUMP_END: a heap dump, if an empty one */
    uint32_t cur_heap;    /* the input's heap, for the rules (enc.in_heap is 0
                             with --to-jvm, which writes no heaps) */
    int cur_heap_dropped; /* the rules drop cur_heap's objects */
    hs_fast fast; /* runs of plain objects, and each heap's verdict (fastpath.h) */
    int ran;
    atomic_int cancel;         /* hs_filter_cancel: set from any thread */
    hs_progress_fn progress;   /* hs_filter_set_progress */
    void *progress_ctx;
    uint64_t progress_at;      /* bytes_in at its last call */
    char warnings[HS_MAX_WARNINGS][HS_WARNING_MAX]; /* the run's warnings (hs_filter_warning) */
    unsigned n_warnings;

    hs_deobf deobf; /* the mapping applied (caps.deobf): last, off the hot fields */
};

typedef struct hs_filter F;

/* The record loop's bookkeeping (filter.c), which heap.c also does when a
 * run goes on into the next segment. A record at c.rec_off with `tag` and
 * a body of `len` bytes starts: */
static inline void hs_record_begin(F *f, unsigned tag, uint64_t len)
{
    f->c.rec_tag = (int)tag;
    f->c.rec_end = f->c.rec_off + HS_RECORD_HEADER + len;
    f->c.st.records_in++;
}
/* The record being read, of `tag`, is over. */
static inline void hs_record_end(F *f, unsigned tag)
{
    f->prev_unknown_tag = hs_tag_known(tag) ? -1 : (int)tag;
    f->prev_off = f->c.rec_off;
}

/* True when the rules drop the objects of `heap` (a table for ART's heap
 * ids, built by hs_heap_init: heaps switch every few dozen objects). */
static inline int hs_heap_dropped(const F *f, uint32_t heap)
{
    return hs_fast_heap_dropped(&f->fast, heap);
}

/* The input is now in `heap`: looked up once here, not for every object. */
static inline void hs_set_heap(F *f, uint32_t heap)
{
    f->cur_heap = heap;
    f->cur_heap_dropped = hs_heap_dropped(f, heap);
}

/* heap.c */
/* Sets up what heap.c decides once per run, from the rules, the options
 * and the identifier size (sub_size). */
hs_status hs_heap_init(F *f);
/* Body of a HEAP_DUMP or HEAP_DUMP_SEGMENT record whose 9-byte header is at
 * hs_cur() and has been validated. */
hs_status hs_heap_record(F *f, unsigned tag, uint64_t body_len);
/* Before a heap dump ends: writes what is still held and closes the open
 * segment. */
hs_status hs_heap_finish(F *f);
/* After a truncation (`why` HS_SALVAGE_CUT) or a malformed record
 * (HS_SALVAGE_DAMAGE): completes a valid output (--salvage), the message
 * saying what was `kept` (NULL: what was done with the record cut short).
 * Returns HS_SALVAGED, or another error. */
hs_status hs_salvage(F *f, hs_salvage_why why, const char *kept);

#endif
