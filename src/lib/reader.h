/* SPDX-License-Identifier: Apache-2.0 */
/*
 * reader.h - a pull reader over an hs_source with a window of contiguous
 * bytes and absolute input offsets.
 *
 *     buf: [ consumed | pos .. end: available | free ]
 *
 * Decoding code asks for the next n bytes to be contiguous (hs_reader_fill)
 * and then reads them in place; payloads larger than the window are taken a
 * window at a time. The window only grows (up to `max`) when a record that
 * must be seen whole, a CLASS_DUMP, is larger than it.
 *
 * A zero-copy source (hs_source.data) is read where it lies: buf is the
 * input itself, base stays 0, and a fill only moves `end` forward by a
 * window, telling the source what is done with. Nothing moves, so the
 * callers see the same window discipline either way.
 *
 * A lending source (hs_source.borrow) is read in place too, a block at a
 * time: an empty window views the rest of the current block. Only bytes
 * asked for across the end of a block are copied, into the reader's own
 * buffer, and no more than asked for, so that the window is empty again
 * soon after and views the next block.
 */
#ifndef HS_READER_H
#define HS_READER_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#include "hprof_strip.h"

typedef struct {
    hs_source src;
    const hs_alloc *alloc;
    uint8_t *buf;
    size_t cap;      /* current window size */
    size_t max;      /* largest window fill() may grow to */
    size_t pos, end; /* available bytes are buf[pos..end) */
    uint64_t base;   /* input offset of buf[0] */
    int eof;         /* the source said end of input */
    int failed;      /* the source's read callback failed */
    int overrun;     /* ... by returning more bytes than it was asked for */
    int mapped;      /* buf is the source's data (zero-copy) */
    uint8_t *own;    /* the reader's buffer (cap bytes); buf, but when
                      * buf views the input in place */
    /* a lending source: the block lent last, its input offset, and how
     * much of it the window has taken (viewed or copied) */
    const uint8_t *blk;
    size_t blk_len, blk_pos;
    uint64_t blk_base;
    /* called (when set) each time the window must move on, before it does:
     * a status other than HS_OK stops the fill with that status (the
     * filter's cancel flag and progress callback, filter.c) */
    hs_status (*moving)(void *arg);
    void *moving_arg;
} hs_reader;

void hs_reader_init(hs_reader *r, const hs_alloc *a, size_t cap, size_t max);
void hs_reader_free(hs_reader *r);
/* Takes the input from `src`: in place when it has data, else by reads
 * into a window allocated now. HS_OK or HS_E_NOMEM. */
hs_status hs_reader_start(hs_reader *r, const hs_source *src);

static inline size_t hs_reader_avail(const hs_reader *r)
{
    return r->end - r->pos;
}

/* Input offset of the next unread byte. */
static inline uint64_t hs_reader_offset(const hs_reader *r)
{
    return r->base + r->pos;
}

/* The window itself, for code that walks it in place (fastpath.c): bytes
 * at positions pos..end are available, position p being input offset
 * hs_reader_offset_at(r, p). */
static inline const uint8_t *hs_reader_window(const hs_reader *r)
{
    return r->buf;
}
static inline size_t hs_reader_pos(const hs_reader *r)
{
    return r->pos;
}
static inline size_t hs_reader_end(const hs_reader *r)
{
    return r->end;
}
static inline uint64_t hs_reader_offset_at(const hs_reader *r, size_t pos)
{
    return r->base + pos;
}
/* The next unread byte, and the `avail` bytes after it. */
static inline const uint8_t *hs_reader_cur(const hs_reader *r)
{
    return r->buf + r->pos;
}
/* The same bytes, to patch in place: only where the window is the
 * reader's own buffer or a private mapping (deobf.h). */
static inline uint8_t *hs_reader_cur_patch(const hs_reader *r)
{
    return r->buf + r->pos;
}
/* Input offset of the end of what the window holds: where the input ends
 * once a fill came up short. */
static inline uint64_t hs_reader_end_offset(const hs_reader *r)
{
    return r->base + r->end;
}

/* The only ways the cursor moves, besides a fill: the reader owns it. */
/* Consumes the available bytes up to window position `pos`. */
static inline void hs_reader_advance_to(hs_reader *r, size_t pos)
{
    assert(pos >= r->pos && pos <= r->end);
    r->pos = pos;
}
/* Consumes the next `n` available bytes. */
static inline void hs_reader_skip(hs_reader *r, size_t n)
{
    assert(n <= r->end - r->pos);
    r->pos += n;
}
/* Consumes every available byte (--salvage: what is left of a record cut
 * short goes nowhere). */
static inline void hs_reader_skip_all(hs_reader *r)
{
    r->pos = r->end;
}

/* Makes at least `n` bytes available at buf[pos], moving the unread bytes to
 * the front of the window first (so pointers into the window die). Reads as
 * much as the window holds, in as few calls as the source allows. Returns
 * HS_OK, HS_E_TRUNCATED when the input ends first (whatever did arrive stays
 * available), HS_E_READ, HS_E_LIMIT when n > max, or HS_E_NOMEM. */
hs_status hs_reader_fill(hs_reader *r, size_t n);

/* True when no byte is left: the window is empty and the source is at its
 * end. May read to find out. */
hs_status hs_reader_at_end(hs_reader *r, int *at_end);

#endif
