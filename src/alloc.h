/* SPDX-License-Identifier: Apache-2.0 */
/*
 * alloc.h - every allocation of the library goes through the caller's
 * allocator (or malloc/free), so tests can count allocations and make the
 * Nth one fail.
 */
#ifndef HS_ALLOC_H
#define HS_ALLOC_H

#include "hprof_strip.h"

/* Copies `a` into `dst`, or the malloc/free defaults when `a` is NULL. */
void hs_alloc_init(hs_alloc *dst, const hs_alloc *a);
void *hs_malloc(const hs_alloc *a, size_t size);
void *hs_calloc(const hs_alloc *a, size_t size);
/* Like realloc, built on alloc/free because hs_alloc has no realloc hook:
 * `old_size` bytes are copied. On failure `p` is left untouched. */
void *hs_realloc(const hs_alloc *a, void *p, size_t old_size, size_t new_size);
void hs_free(const hs_alloc *a, void *p);

#endif
