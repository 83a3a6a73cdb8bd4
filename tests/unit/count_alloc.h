/* SPDX-License-Identifier: Apache-2.0 */
/*
 * count_alloc.h - an hs_alloc that counts, for the Criterion tests and the
 * fuzz harnesses: it shows that every allocation is freed, bounds what is
 * held at once, and fails the Nth allocation to reach the error paths.
 *
 *     count_state c = {.fail_at = 3};
 *     hs_alloc a = COUNT_ALLOC(&c);
 *
 * Each block carries its size in a header as wide as max_align_t, so the
 * pointer handed out keeps malloc's alignment and a free knows its bytes.
 */
#ifndef TEST_COUNT_ALLOC_H
#define TEST_COUNT_ALLOC_H

#include <stddef.h>
#include <stdlib.h>

#include "hprof_strip.h"

typedef struct {
    size_t calls;   /* allocations asked for, a failed one included */
    size_t fail_at; /* the call to fail, counting from 1; 0: none */
    size_t blocks;  /* live blocks */
    size_t bytes;   /* live bytes */
    size_t peak;    /* the most live bytes at once */
    size_t largest; /* the largest request */
    size_t zero;    /* requests of no bytes (the library never makes one) */
} count_state;

typedef union {
    size_t size;
    max_align_t align;
} count_head;

static inline void *count_alloc(void *opaque, size_t size)
{
    count_state *c = opaque;
    count_head *h;

    if (size > c->largest)
        c->largest = size;
    if (size == 0)
        c->zero++;
    if (++c->calls == c->fail_at)
        return NULL;
    h = malloc(sizeof *h + size);
    if (!h)
        return NULL;
    h->size = size;
    c->blocks++;
    c->bytes += size;
    if (c->bytes > c->peak)
        c->peak = c->bytes;
    return h + 1;
}

static inline void count_free(void *opaque, void *p)
{
    count_state *c = opaque;
    count_head *h = (count_head *)p - 1;

    if (!p)
        return;
    c->blocks--;
    c->bytes -= h->size;
    free(h);
}

#define COUNT_ALLOC(state) ((hs_alloc){count_alloc, count_free, (state)})

#endif
