/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cutscan.c - see cutscan.h.
 */
#define _POSIX_C_SOURCE 200809L
#include "cutscan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

#define TAG_HEAP_DUMP 0x0C
#define TAG_HEAP_DUMP_SEGMENT 0x1C
#define TAG_HEAP_DUMP_END 0x2C
#define RECORD_HEADER 9 /* tag, time, length */

static uint64_t be(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;

    while (n--)
        v = v << 8 | *p++;
    return v;
}

/* Grows a vector of `size`-byte items to hold one more. */
static void *more(void *v, size_t n, size_t size)
{
    if (n == 0 || (n >= 16 && (n & (n - 1)) == 0)) { /* 16, then doubling */
        v = realloc(v, (n ? 2 * n : 16) * size);
        if (!v)
            abort();
    }
    return v;
}

static void add_top(cutscan *s, size_t off, int open, unsigned tag)
{
    s->tops = more(s->tops, s->n_tops, sizeof *s->tops);
    s->top_open = more(s->top_open, s->n_tops, sizeof *s->top_open);
    s->top_tag = more(s->top_tag, s->n_tops, sizeof *s->top_tag);
    s->tops[s->n_tops] = off;
    s->top_tag[s->n_tops] = (unsigned char)tag;
    s->top_open[s->n_tops++] = (unsigned char)open;
}

static void add_sub(cutscan *s, size_t off)
{
    s->subs = more(s->subs, s->n_subs, sizeof *s->subs);
    s->subs[s->n_subs++] = off;
}

static void add_obj(cutscan *s, uint64_t id, size_t end)
{
    s->ids = more(s->ids, s->n_objs, sizeof *s->ids);
    s->ends = more(s->ends, s->n_objs, sizeof *s->ends);
    s->ids[s->n_objs] = id;
    s->ends[s->n_objs++] = end;
}

static int is_object(unsigned tag)
{
    return tag == 0x20 || tag == 0x21 || tag == 0x22 || tag == 0x23 || tag == 0xC3;
}

/* The sub-records of the heap record body `p[at..end)`, of which only
 * `p[at..avail)` arrived. A whole record must parse to its end; one cut
 * short gives what is complete before the cut. 0, or -1 when bad. */
static int scan_heap(cutscan *s, const uint8_t *p, size_t at, size_t end, size_t avail)
{
    int whole = avail >= end;
    size_t lim = whole ? end : avail;

    if (whole)
        add_sub(s, at);
    while (at < lim) {
        uint64_t sz = walk_sub_size(p + at, lim - at, s->idsize);

        if (sz == 0 || sz > lim - at) {
            if (!whole)
                return 0; /* the cut falls in this sub-record */
            snprintf(s->error, sizeof s->error, "byte %zu: bad or overlong sub-record 0x%02x",
                     at, p[at]);
            return -1;
        }
        if (is_object(p[at]))
            add_obj(s, be(p + at + 1, s->idsize), at + (size_t)sz);
        at += (size_t)sz;
        if (whole && at < end)
            add_sub(s, at);
    }
    return 0;
}

void cutscan_run(cutscan *s, const uint8_t *p, size_t len)
{
    const uint8_t *nul = memchr(p, 0, len < 32 ? len : 32);
    int open = 0, begun = 0;
    size_t at;

    memset(s, 0, sizeof *s);
    if (!nul || (size_t)(nul - p) + 13 > len) {
        snprintf(s->error, sizeof s->error, "no whole file header");
        s->cut = 1;
        return;
    }
    s->header_ok = 1;
    s->idsize = (unsigned)be(nul + 1, 4);
    s->header = at = (size_t)(nul - p) + 13;
    add_top(s, at, 2, 0);
    while (at < len) {
        unsigned tag;
        size_t body, end;

        if (len - at < RECORD_HEADER) {
            s->cut = 1;
            break;
        }
        tag = p[at];
        body = at + RECORD_HEADER;
        end = body + (size_t)be(p + at + 5, 4);
        if (end > len)
            s->cut = 1;
        if ((tag == TAG_HEAP_DUMP || tag == TAG_HEAP_DUMP_SEGMENT) &&
            scan_heap(s, p, body, end, len) != 0) {
            s->bad = 1;
            break;
        }
        if (s->cut)
            break;
        open = tag == TAG_HEAP_DUMP_SEGMENT ? 1 : tag == TAG_HEAP_DUMP_END ? 0 : open;
        begun |= tag == TAG_HEAP_DUMP || tag == TAG_HEAP_DUMP_SEGMENT || tag == 0x0E ||
                 tag == 0x0D || tag == 0x06 || tag == 0x07 || tag == 0x0A || tag == 0x0B ||
                 tag == TAG_HEAP_DUMP_END;
        add_top(s, end, open ? open : begun ? 0 : 2, tag);
        at = end;
    }
    s->whole = at;
    s->open_at_whole = open;
    s->begun_at_whole = begun;
}

void cutscan_free(cutscan *s)
{
    free(s->tops);
    free(s->top_open);
    free(s->top_tag);
    free(s->subs);
    free(s->ids);
    free(s->ends);
    memset(s, 0, sizeof *s);
}

int cutscan_legal_end(const cutscan *s, size_t len)
{
    return s->header_ok && !s->cut && !s->bad && s->whole == len && !s->open_at_whole &&
           s->begun_at_whole;
}

size_t cutscan_objects_before(const cutscan *s, size_t cut)
{
    size_t lo = 0, hi = s->n_objs;

    /* ends rise with the input order */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->ends[mid] <= cut)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int cmp_id(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

size_t cutscan_missing(const cutscan *in, size_t k, const cutscan *out, uint64_t *first_missing)
{
    uint64_t *have = malloc((out->n_objs ? out->n_objs : 1) * sizeof *have);
    size_t j, missing = 0;

    if (!have)
        abort();
    if (out->n_objs)
        memcpy(have, out->ids, out->n_objs * sizeof *have);
    qsort(have, out->n_objs, sizeof *have, cmp_id);
    for (j = 0; j < k && j < in->n_objs; j++)
        if (!ids_contain(have, out->n_objs, in->ids[j]) && missing++ == 0)
            *first_missing = in->ids[j];
    free(have);
    return missing;
}
