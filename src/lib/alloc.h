/* SPDX-License-Identifier: Apache-2.0 */
/*
 * alloc.h - every allocation of the library goes through the caller's
 * allocator (or malloc/free), so tests can count allocations and make the
 * Nth one fail.
 */
#ifndef HS_ALLOC_H
#define HS_ALLOC_H

#include "hprof_strip.h"
#include "hs_limits.h"

/* Copies `a` into `dst`, or the malloc/free defaults when `a` is NULL. */
void hs_alloc_init(hs_alloc *dst, const hs_alloc *a);
void *hs_malloc(const hs_alloc *a, size_t size);
void *hs_calloc(const hs_alloc *a, size_t size);
/* Like realloc: with the default allocator (metered or not) realloc
 * itself; with a caller's, which has no realloc hook, alloc, a copy of
 * `old_size` bytes and free. On failure `p` is left untouched. */
void *hs_realloc(const hs_alloc *a, void *p, size_t old_size, size_t new_size);
/* Gives `p` (NULL is fine) back to `a`. Named apart from the public
 * hs_free (what hs_job_run allocated, with malloc). */
void hs_alloc_free(const hs_alloc *a, void *p);

/* The memory cap when the caller gives none: HS_DEFAULT_MAX_HELD
 * (hs_limits.h). */

/* The memory cap's gate. What grows with the input (held strings, roots,
 * tables, a mapping) is allocated through a meter, which knows the size of
 * every block it gave out (a header in front of each) and refuses an
 * allocation that would take `base` and its live bytes past `cap`: a table
 * that doubles is stopped before it doubles, not charged after; while it
 * is copied, its old and new blocks both count; and two growths in one
 * step count both. `base` is what the owner holds from elsewhere (the
 * mapping a filter was given). `refused` is the size of the allocation
 * refused last (0: none yet), so the owner can tell a limit from a failing
 * allocator. It stays set: a holder may allocate again before it reports
 * the failure (idmap.c allocates both halves of a table, then checks), and
 * a failure after a refusal that was let pass (a skipped compaction) is
 * met at the cap anyway. */
typedef struct {
    hs_alloc under; /* where the bytes come from */
    uint64_t cap, base;
    uint64_t live; /* bytes taken from `under` now, headers included */
    uint64_t peak; /* the most live at once */
    uint64_t refused;
} hs_meter;

void hs_meter_init(hs_meter *m, const hs_alloc *under, uint64_t cap);
/* An allocator drawing on `m` (which must outlive what it allocates, and
 * free every block it gave). */
hs_alloc hs_meter_alloc(hs_meter *m);

#endif
