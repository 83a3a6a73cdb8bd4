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

static void *meter_alloc(void *opaque, size_t size);
static void *meter_realloc(hs_meter *m, void *p, size_t size);

/* With the default allocator, under a meter or not, the C library's
 * realloc moves a large block by remapping its pages, not by copying them
 * (a held-roots array of 20 MB grew by copies that took a quarter of a run
 * on small-object ART dumps, issue #38), and the pages of the old block are
 * not touched again. A caller's allocator has no realloc hook: there, a new
 * block, a copy and a free. */
void *hs_realloc(const hs_alloc *a, void *p, size_t old_size, size_t new_size)
{
    void *q;

    if (p && a->alloc == default_alloc)
        return realloc(p, new_size ? new_size : 1);
    if (p && a->alloc == meter_alloc && ((hs_meter *)a->opaque)->under.alloc == default_alloc)
        return meter_realloc(a->opaque, p, new_size ? new_size : 1);
    q = hs_malloc(a, new_size);
    if (!q)
        return NULL;
    if (p) {
        memcpy(q, p, old_size < new_size ? old_size : new_size);
        a->free(a->opaque, p);
    }
    return q;
}

void hs_alloc_free(const hs_alloc *a, void *p)
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

/* hs_realloc under a meter over malloc: counted as the new block, a copy
 * and a free would be (the cap asked of the new block while the old one
 * is held, the peak seeing both), so that limits and peaks do not depend
 * on how the block moved. */
static void *meter_realloc(hs_meter *m, void *p, size_t size)
{
    meter_head *h = (meter_head *)p - 1;
    const uint64_t need = (uint64_t)size + sizeof(meter_head), old = h->size;

    assert(old <= m->live);
    if (need > m->cap || m->base + m->live > m->cap - need) {
        m->refused = size;
        return NULL;
    }
    h = realloc(h, (size_t)need);
    if (!h)
        return NULL;
    if (m->live + need > m->peak)
        m->peak = m->live + need;
    m->live = m->live - old + need;
    h->size = need;
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
