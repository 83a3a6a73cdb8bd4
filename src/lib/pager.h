/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pager.h - the page-table work of a mapped input, on a thread of its own.
 *
 * Walking a mapped file costs the filter two things in the kernel besides
 * its own work: a page fault each time it reaches pages not yet mapped, and
 * the unmapping of the pages behind it (which keeps memory flat). On dumps
 * of small objects that is a fifth of the run. A pager thread does both
 * beside the filter: it maps the pages a few MiB ahead of it (by reading
 * a byte of each) and gives back those it has passed (MADV_DONTNEED), so
 * the filter finds its pages mapped and unmaps them only when the thread
 * falls behind. A mapped compressed file is paged the same way ahead of
 * its decompressor, which is then what "the filter" means here (input.c).
 *
 * The pager only changes page tables, never what the pages hold. A file
 * that shrank raises SIGBUS in whichever thread reaches the missing pages
 * first; the CLI's handler reports it the same way from either.
 */
#ifndef HS_PAGER_H
#define HS_PAGER_H

#include <stddef.h>
#include <stdint.h>

typedef struct hs_pager hs_pager;

/* Starts paging map[0..len) (`page`-sized pages), whose pages before
 * `kept` are given back already. NULL when no thread could be started. */
hs_pager *hs_pager_start(uint8_t *map, size_t len, size_t page, size_t kept);

/* For tests: as hs_pager_start, and the thread calls hold(arg) before
 * each step of pages it maps (a test stands in for a preempted thread). */
hs_pager *hs_pager_start_held(uint8_t *map, size_t len, size_t page, size_t kept,
                              void (*hold)(void *), void *arg);

/* The filter has passed map[0..done): those pages may go, and the next
 * ones should be mapped. Called at every window step; cheap. */
void hs_pager_advance(hs_pager *p, size_t done);

/* Gives back the pages of map[from..to) (a file mapped from offset 0) and
 * those of the page-cache folio `from` lies in: a fault maps a whole folio,
 * so its pages below `from` may have come back since they were given. For
 * those who give pages back without a pager (input.c). */
void hs_pages_give_back(uint8_t *map, size_t from, size_t to);

/* Stops the thread and frees the pager. */
void hs_pager_stop(hs_pager *p);

#endif
