/* SPDX-License-Identifier: Apache-2.0 */
/*
 * alloc.c - the default allocator and the thin wrappers the library uses.
 */
#include "alloc.h"

#include <assert.h>
#include <stddef.h>
#include <stdint.h>
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

/* In front of each block a meter gives out: its size, as wide as
 * max_align_t so the block keeps malloc's alignment. */
typedef union {
    uint64_t size;
    max_align_t align;
} meter_head;

static void *meter_alloc(void *opaque, size_t size)
{
    hs_meter *m = opaque;
    uint64_t need = (uint64_t)size + sizeof(meter_head);
    meter_head *h;

    if (need > m->cap || m->base + m->live > m->cap - need) {
        m->refused = size;
        return NULL;
    }
    h = m->under.alloc(m->under.opaque, (size_t)need);
    if (!h)
        return NULL;
    h->size = need;
    m->live += need;
    if (m->live > m->peak)
        m->peak = m->live;
    return h + 1;
}

static void meter_free(void *opaque, void *p)
{
    hs_meter *m = opaque;
    meter_head *h = (meter_head *)p - 1;

    if (!p)
        return;
    assert(h->size <= m->live);
    m->live -= h->size;
    m->under.free(m->under.opaque, h);
}

void hs_meter_init(hs_meter *m, const hs_alloc *under, uint64_t cap)
{
    hs_alloc_init(&m->under, under);
    m->cap = cap;
    m->base = m->live = m->peak = m->refused = 0;
}

hs_alloc hs_meter_alloc(hs_meter *m)
{
    hs_alloc a;

    a.alloc = meter_alloc;
    a.free = meter_free;
    a.opaque = m;
    return a;
}
