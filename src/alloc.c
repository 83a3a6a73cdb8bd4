/* SPDX-License-Identifier: Apache-2.0 */
/*
 * alloc.c - the default allocator and the thin wrappers the library uses.
 */
#include "alloc.h"

#include <stdlib.h>
#include <string.h>

static void *default_alloc(void *opaque, size_t size)
{
    (void)opaque;
    return malloc(size);
}

static void default_free(void *opaque, void *p)
{
    (void)opaque;
    free(p);
}

void hs_alloc_init(hs_alloc *dst, const hs_alloc *a)
{
    if (a && a->alloc && a->free) {
        *dst = *a;
    } else {
        dst->alloc = default_alloc;
        dst->free = default_free;
        dst->opaque = NULL;
    }
}

void *hs_malloc(const hs_alloc *a, size_t size)
{
    return a->alloc(a->opaque, size ? size : 1);
}

void *hs_calloc(const hs_alloc *a, size_t size)
{
    void *p = hs_malloc(a, size);
    if (p)
        memset(p, 0, size);
    return p;
}

void *hs_realloc(const hs_alloc *a, void *p, size_t old_size, size_t new_size)
{
    void *q = hs_malloc(a, new_size);
    if (!q)
        return NULL;
    if (p) {
        memcpy(q, p, old_size < new_size ? old_size : new_size);
        a->free(a->opaque, p);
    }
    return q;
}

void hs_free(const hs_alloc *a, void *p)
{
    if (p)
        a->free(a->opaque, p);
}
