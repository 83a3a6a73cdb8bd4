/* SPDX-License-Identifier: Apache-2.0 */
/*
 * reader.c - the pull reader: window management and reads.
 */
#include "reader.h"

#include <string.h>

#include "alloc.h"

void hs_reader_init(hs_reader *r, const hs_alloc *a, size_t cap, size_t max)
{
    memset(r, 0, sizeof *r);
    r->alloc = a;
    r->cap = cap;
    r->max = max > cap ? max : cap;
}

void hs_reader_free(hs_reader *r)
{
    hs_alloc_free(r->alloc, r->own);
    r->own = r->buf = NULL;
}

hs_status hs_reader_start(hs_reader *r, const hs_source *src)
{
    r->src = *src;
    if (!src->data) {
        r->own = r->buf = hs_malloc(r->alloc, r->cap);
        return r->buf ? HS_OK : HS_E_NOMEM;
    }
    /* never written through, but for a private mapping deobf.c patches
     * (hs_deobf_source) */
    r->buf = (uint8_t *)(uintptr_t)src->data;
    r->mapped = 1;
    return HS_OK;
}

/* hs_reader_fill for a zero-copy source: slide the window forward. */
static hs_status fill_mapped(hs_reader *r, size_t n)
{
    uint64_t next = r->pos + (n > r->cap ? n : r->cap);

    if (r->eof)
        return HS_E_TRUNCATED;
    if (next >= r->src.size) {
        next = r->src.size;
        r->eof = 1;
    }
    if (r->src.window)
        r->src.window(r->src.ctx, r->pos, next);
    r->end = (size_t)next;
    return r->end - r->pos >= n ? HS_OK : HS_E_TRUNCATED;
}

/* Grows the own buffer to hold `n` bytes, keeping its first `keep`. */
static hs_status grow(hs_reader *r, size_t n, size_t keep)
{
    size_t cap = r->cap;
    uint8_t *nb;

    if (n > r->max)
        return HS_E_LIMIT;
    while (cap < n)
        cap = cap > r->max / 2 ? r->max : cap * 2;
    nb = hs_realloc(r->alloc, r->own, keep, cap);
    if (!nb)
        return HS_E_NOMEM;
    if (r->buf == r->own)
        r->buf = nb;
    r->own = nb;
    r->cap = cap;
    return HS_OK;
}

/* Makes the window the front of the own buffer, grown to hold `n` bytes:
 * moved there when it is in the own buffer, copied when it views the
 * input. */
static hs_status window_to_front(hs_reader *r, size_t n)
{
    size_t have = r->end - r->pos;
    hs_status s;

    if (r->buf == r->own) {
        if (r->pos > 0)
            memmove(r->own, r->own + r->pos, have);
    } else {
        if (n > r->cap && (s = grow(r, n, 0)) != HS_OK)
            return s;
        memcpy(r->own, r->buf + r->pos, have);
        r->buf = r->own;
    }
    r->base += r->pos;
    r->pos = 0;
    r->end = have;
    return n > r->cap ? grow(r, n, have) : HS_OK;
}

/* The next block from a lending source: HS_OK, HS_E_TRUNCATED at the end,
 * HS_E_READ. The block before it is given back. */
static hs_status next_block(hs_reader *r)
{
    const void *p = NULL;
    long got;

    if (r->eof)
        return HS_E_TRUNCATED;
    got = r->src.borrow(r->src.ctx, &p);
    r->blk_base += r->blk_len;
    r->blk = NULL;
    r->blk_len = r->blk_pos = 0;
    if (got < 0) {
        r->failed = 1;
        return HS_E_READ;
    }
    if (got == 0) {
        r->eof = 1;
        return HS_E_TRUNCATED;
    }
    r->blk = p;
    r->blk_len = (size_t)got;
    return HS_OK;
}

/* hs_reader_fill for a lending source (see reader.h). */
static hs_status fill_lent(hs_reader *r, size_t n)
{
    hs_status s;

    if (r->end == r->pos) { /* view the block from where it was left */
        if (r->blk_pos == r->blk_len && (s = next_block(r)) != HS_OK)
            return s;
        r->buf = (uint8_t *)(uintptr_t)r->blk; /* never written through */
        r->base = r->blk_base;
        r->pos = r->end = r->blk_pos;
    }
    if (r->buf == r->blk && r->blk_len - r->pos >= n) {
        /* a window of the block, as fill_mapped slides one */
        size_t view = n > r->cap ? n : r->cap;
        if (view > r->blk_len - r->pos)
            view = r->blk_len - r->pos;
        r->end = r->blk_pos = r->pos + view;
        return HS_OK;
    }
    /* n bytes across the block's end: the ones in the window go to the
     * front of the own buffer, and the rest follow from the next blocks */
    if ((s = window_to_front(r, n)) != HS_OK)
        return s;
    while (r->end < n) {
        size_t k;
        if (r->blk_pos == r->blk_len && (s = next_block(r)) != HS_OK)
            return s;
        k = r->blk_len - r->blk_pos;
        if (k > n - r->end)
            k = n - r->end;
        memcpy(r->own + r->end, r->blk + r->blk_pos, k);
        r->end += k;
        r->blk_pos += k;
    }
    return HS_OK;
}

hs_status hs_reader_fill(hs_reader *r, size_t n)
{
    hs_status s;

    if (r->end - r->pos >= n)
        return HS_OK;
    if (r->moving && (s = r->moving(r->moving_arg)) != HS_OK)
        return s;
    if (r->mapped)
        return fill_mapped(r, n);
    if (r->src.borrow)
        return fill_lent(r, n);
    if ((s = window_to_front(r, n)) != HS_OK)
        return s;
    while (r->end < n) {
        long got;
        if (r->eof)
            return HS_E_TRUNCATED;
        got = r->src.read(r->src.ctx, r->buf + r->end, r->cap - r->end);
        if (got < 0 || (uint64_t)got > r->cap - r->end) {
            /* more than asked: the callback wrote past the buffer, or
             * counts wrong; either way its bytes cannot be trusted */
            r->failed = 1;
            r->overrun = got > 0;
            return HS_E_READ;
        }
        if (got == 0)
            r->eof = 1;
        else
            r->end += (size_t)got;
    }
    return HS_OK;
}

hs_status hs_reader_at_end(hs_reader *r, int *at_end)
{
    hs_status s;

    if (r->end > r->pos) {
        *at_end = 0;
        return HS_OK;
    }
    s = hs_reader_fill(r, 1);
    if (s == HS_E_TRUNCATED) {
        *at_end = 1;
        return HS_OK;
    }
    *at_end = 0;
    return s;
}
