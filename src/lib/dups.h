/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dups.h - duplicate primitive arrays, found before scrubbing destroys the
 * evidence: analysts look for repeated strings and bitmaps to find waste.
 */
#ifndef HS_DUPS_H
#define HS_DUPS_H

#include <xxhash.h>

#include "ctx.h"
#include "hs_limits.h"
#include "idmap.h"

/* How many arrays wait to be looked up (hs_dups_end): far enough that the
 * table's line, prefetched when the array was hashed, has come from
 * memory by then. */
#define HS_DUPS_AHEAD 8

/* An array hashed, to be looked up. */
typedef struct {
    uint64_t key, payload;
    unsigned type;
} hs_dup_pending;

typedef struct {
    hs_idmap seen;  /* contents key -> payload bytes */
    hs_dup_pending queue[HS_DUPS_AHEAD]; /* oldest at next */
    unsigned next, queued;
    hs_idmap sizes; /* type << 56 | length -> extra copies */
    XXH3_state_t *state;
    /* Arrays of fewer bytes are not compared: HS_DUPS_MIN_PAYLOAD, doubled
     * each time the table is full at its cap (what it held of smaller
     * ones goes), so that the table never outgrows it. Counts for arrays
     * of min_payload bytes or more are exact: none of them ever left the
     * table or passed it by. */
    uint64_t min_payload;
    uint64_t max_bytes; /* the cap: HS_DUPS_TABLE_MAX, or max_held / 4 */
} hs_dups;

/* `max_held`: the run's memory cap, a quarter of which the table may take
 * at most. */
void hs_dups_init(hs_dups *d, const hs_alloc *a, uint64_t max_held);

void hs_dups_free(hs_dups *d);

/* True when an array of `payload` bytes is to be compared; when not, it
 * goes to hs_dups_pass. */
static inline int hs_dups_wants(const hs_dups *d, uint64_t payload)
{
    return payload >= d->min_payload;
}
/* An array of `payload` bytes left uncompared: counted in
 * dup_arrays_unchecked when it is one a table with room would have
 * compared (HS_DUPS_MIN_PAYLOAD or more), so that 0 means exact. */
static inline void hs_dups_pass(hs_ctx *c, uint64_t payload)
{
    c->st.dup_arrays_unchecked += payload >= HS_DUPS_MIN_PAYLOAD;
}

/* Before a payload of `payload` bytes (element type `type`) moves: when all
 * of it is at p (`avail` bytes there), hashes it into *hash and sets *tap to
 * NULL; else sets *tap to a state that must see every payload byte as it
 * streams. */
hs_status hs_dups_begin(hs_dups *d, hs_ctx *c, const uint8_t *p, size_t avail, unsigned type,
                        uint64_t payload, uint64_t *hash, XXH3_state_t **tap);
/* After it moved: records it, counting it when it repeats an earlier
 * array's type, length and contents; HS_DUPS_AHEAD arrays later, in the
 * order they came (the counts lag by as many until hs_dups_flush). */
hs_status hs_dups_end(hs_dups *d, hs_ctx *c, unsigned type, uint64_t payload, uint64_t hash,
                      XXH3_state_t *tap);
/* Records the arrays still waiting: at the end of a run, before its counts
 * are final. */
hs_status hs_dups_flush(hs_dups *d, hs_ctx *c);
/* Fills st->dup_top. */
void hs_dups_top(const hs_dups *d, hs_stats *st);

#endif
