/* SPDX-License-Identifier: Apache-2.0 */
/*
 * inbuf.c - the input's bytes as read (input_int.h): from the descriptor
 * (read(2)), the caller's callback or a mapping; the buffer of compressed
 * bytes every decoder reads from; a plain input's reads; and the damage a
 * decoder finds, said the one way ("gzip data is truncated at compressed
 * byte N").
 */
#define _POSIX_C_SOURCE 200809L
#include "input_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* read(2), again when a signal interrupts it; or the caller's callback,
 * whose count past `n` is a failure (it wrote past the buffer, or counts
 * wrong), as hs_source.read's is. */
ssize_t hs_in_read_some(hs_input *in, void *buf, size_t n)
{
    ssize_t got;

    if (in->rd) {
        long k;
        errno = 0;
        k = in->rd(in->rd_ctx, buf, n);
        if (k < 0 || (unsigned long)k > n) {
            if (errno == 0)
                errno = EIO;
            return -1;
        }
        return (ssize_t)k;
    }
    do
        got = read(in->fd, buf, n);
    while (got < 0 && errno == EINTR);
    return got;
}

/* A read failed: keeps why for hs_input_error; HS_E_READ. No offset: the
 * read failed, not a byte of the input. */
hs_status hs_in_read_failed(hs_input *in)
{
    return hs_io_error(&in->fault, HS_E_READ, UINT64_MAX, "reading failed: %s", strerror(errno));
}

/* `n` compressed bytes were read after raw_len (none: the input ended). */
void hs_in_raw_got(hs_input *in, size_t n)
{
    if (in->hash)
        hs_hasher_put(in->hash, HS_HASH_IN_FILE, in->raw + in->raw_len, n);
    if (n == 0)
        in->raw_eof = 1;
    in->raw_len += n;
    in->raw_total += n;
}

/* Reads compressed bytes after raw_len, as many as the buffer holds: HS_OK,
 * or HS_E_READ (hs_in_read_failed). */
hs_status hs_in_raw_append(hs_input *in)
{
    ssize_t n = hs_in_read_some(in, in->raw + in->raw_len, in->raw_cap - in->raw_len);

    if (n < 0)
        return hs_in_read_failed(in);
    hs_in_raw_got(in, (size_t)n);
    return HS_OK;
}

/* Moves the bytes not decoded yet to the front of the buffer, to make room
 * after them (hs_in_raw_at() stays what it was); returns how far they moved. */
size_t hs_in_raw_to_front(hs_input *in)
{
    size_t by = in->raw_pos;

    if (by) {
        memmove(in->raw, in->raw + by, in->raw_len - by);
        in->raw_len -= by;
        in->raw_pos = 0;
    }
    return by;
}

/* Grows the buffer to `cap` bytes for what must be held ahead (a mapped
 * file holds everything already): HS_OK, or HS_E_NOMEM. */
hs_status hs_in_raw_grow(hs_input *in, size_t cap)
{
    uint8_t *bigger;

    if (in->raw_mapped)
        return HS_OK;
    if (!(bigger = realloc(in->raw, cap)))
        return HS_E_NOMEM;
    in->raw = bigger;
    in->raw_cap = cap;
    return HS_OK;
}

/* Refills the buffer once all of it is decoded: HS_OK, or HS_E_READ. */
hs_status hs_in_raw_fill(hs_input *in)
{
    in->raw_pos = 0;
    in->raw_len = 0;
    return hs_in_raw_append(in);
}

/* The offset of the next compressed byte to hs_in_decode. */
uint64_t hs_in_raw_at(const hs_input *in)
{
    return in->raw_total - in->raw_len + in->raw_pos;
}

/* Compressed bytes taken in: read from fd, or, mapped, decoded (all of the
 * file is in the buffer from the start). */
uint64_t hs_in_raw_taken(const hs_input *in)
{
    return in->raw_mapped ? hs_in_raw_at(in) : in->raw_total;
}

/* Bytes before map[at] are done with: the pager gives their pages back
 * (and maps the next ones), or, without one, this thread does once `step`
 * bytes of them have gathered. */
void hs_in_map_done(hs_input *in, size_t at, size_t step)
{
    size_t give = at / in->page * in->page;

    /* hashed before the pages can go: they are read once */
    if (in->hash && at > in->map_hashed) {
        hs_hasher_put(in->hash, HS_HASH_IN_FILE, in->map + in->map_hashed, at - in->map_hashed);
        in->map_hashed = at;
    }

    if (in->pager) {
        hs_pager_advance(in->pager, at);
        return;
    }
    if (in->lent_map)
        return; /* the caller's memory: MADV_DONTNEED would zero it */
    if (give >= in->kept + step) {
        hs_pages_give_back(in->map, in->kept, give);
        in->kept = give;
    }
}

long hs_in_read_plain(hs_input *in, uint8_t *buf, size_t cap)
{
    ssize_t n;

    if (in->raw_pos < in->raw_len) { /* the sniffed prefix first */
        size_t k = in->raw_len - in->raw_pos;
        if (k > cap)
            k = cap;
        memcpy(buf, in->raw + in->raw_pos, k);
        in->raw_pos += k;
        return (long)k;
    }
    if (in->raw_eof)
        return 0;
    if (in->lent_map) { /* memory read by copy (hs_input_data is the other way) */
        size_t k = in->map_len - (size_t)in->raw_total;
        if (k > cap)
            k = cap;
        memcpy(buf, in->map + in->raw_total, k);
        n = (ssize_t)k;
    } else {
        n = hs_in_read_some(in, buf, cap); /* then straight into the caller's buffer */
    }
    if (n < 0) {
        hs_in_read_failed(in);
        return -1; /* as hs_source.read */
    }
    if (in->hash)
        hs_hasher_put(in->hash, HS_HASH_IN_FILE, buf, (size_t)n);
    in->raw_total += (uint64_t)n;
    return (long)n;
}

/* The compressed layer is damaged at the next compressed byte: keeps what
 * for the CLI, the offset in the record as in the message, and ends the
 * decompressed stream here (the bytes before stay good). */
hs_status hs_in_damaged(hs_input *in, enum hs_input_damage d, const char *format, const char *what)
{
    uint64_t at = hs_in_raw_at(in);

    in->damage = d;
    return hs_io_error(&in->fault, d == HS_DAMAGE_TRUNCATED ? HS_E_TRUNCATED : HS_E_MALFORMED, at,
                       "%s data is %s at compressed byte %llu (%s)", format,
                       d == HS_DAMAGE_TRUNCATED ? "truncated" : "corrupt", (unsigned long long)at,
                       what);
}

/* Makes compressed bytes available: 1 when there are some, 0 at the end of
 * the input when it ends between two `unit`s (`between`), else HS_E_READ,
 * or HS_E_TRUNCATED when it ends inside one (then hs_in_damaged()). */
int hs_in_raw_more(hs_input *in, int between, const char *format, const char *unit)
{
    char what[64];

    if (in->raw_pos < in->raw_len)
        return 1;
    if (!in->raw_eof && hs_in_raw_fill(in) != HS_OK)
        return HS_E_READ;
    if (!in->raw_eof)
        return 1;
    if (between)
        return 0;
    snprintf(what, sizeof what, "the input ends inside a %s", unit);
    return hs_in_damaged(in, HS_DAMAGE_TRUNCATED, format, what);
}

/* Block k, holding `len` bytes (or the end), to the caller: its slot is
 * filled. */
void hs_in_post_block(hs_input *in, unsigned k, long len)
{
    in->slot[k % HS_IN_SLOTS].raw = hs_in_raw_taken(in);
    hs_ring_post(in->ring, k, len);
}
