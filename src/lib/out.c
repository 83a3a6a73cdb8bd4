/* SPDX-License-Identifier: Apache-2.0 */
/*
 * out.c - the buffered output stream.
 */
#include "out.h"

#include <string.h>

#include "alloc.h"
#include "hs_limits.h"

hs_status hs_out_init(hs_out *o, const hs_alloc *a, size_t cap)
{
    memset(o, 0, sizeof *o);
    o->alloc = a;
    o->cap = cap;
    o->buf = hs_malloc(a, cap);
    return o->buf ? HS_OK : HS_E_NOMEM;
}

void hs_out_free(hs_out *o)
{
    hs_alloc_free(o->alloc, o->buf);
    o->buf = NULL;
}

static hs_status emit(hs_out *o, const void *p, size_t n)
{
    if (o->failed)
        return HS_E_WRITE;
    if (n && o->sink.write(o->sink.ctx, p, n) != 0) {
        o->failed = 1;
        return HS_E_WRITE;
    }
    return HS_OK;
}

hs_status hs_out_flush(hs_out *o)
{
    hs_status s = emit(o, o->buf, o->len);
    o->len = 0;
    return s;
}

hs_status hs_out_write(hs_out *o, const void *p, size_t n)
{
    size_t room = o->cap - o->len;

    if (n == 0)
        return HS_OK;
    o->total += n;
    if (n >= o->cap / 2) {
        /* bulk: send what is buffered, then the caller's bytes in place */
        if (o->len && hs_out_flush(o) != HS_OK)
            return HS_E_WRITE;
        return emit(o, p, n);
    }
    if (n >= room) {
        /* top the buffer up so the sink sees full-sized writes */
        memcpy(o->buf + o->len, p, room);
        o->len = o->cap;
        p = (const uint8_t *)p + room;
        n -= room;
        if (hs_out_flush(o) != HS_OK)
            return HS_E_WRITE;
    }
    memcpy(o->buf + o->len, p, n);
    o->len += n;
    return HS_OK;
}

/* Never written: its pages are the kernel's one zero page, so sending
 * zeros from here reads memory that is always in cache, where filling the
 * buffer first would write and then read every byte. */
static uint8_t zero_block[HS_ZERO_BLOCK];

hs_status hs_out_fill(hs_out *o, uint8_t byte, uint64_t n)
{
    if (byte == 0 && n >= o->cap / 2) {
        if (o->len && hs_out_flush(o) != HS_OK)
            return HS_E_WRITE;
        o->total += n;
        while (n) {
            size_t k = n < sizeof zero_block ? (size_t)n : sizeof zero_block;
            if (emit(o, zero_block, k) != HS_OK)
                return HS_E_WRITE;
            n -= k;
        }
        return HS_OK;
    }
    while (n) {
        size_t k;
        if (o->len == o->cap && hs_out_flush(o) != HS_OK)
            return HS_E_WRITE;
        k = o->cap - o->len;
        if (k > n)
            k = (size_t)n;
        memset(o->buf + o->len, byte, k);
        o->len += k;
        o->total += k;
        n -= k;
    }
    if (o->len == o->cap)
        return hs_out_flush(o);
    return HS_OK;
}
