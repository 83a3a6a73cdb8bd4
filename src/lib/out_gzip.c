/* SPDX-License-Identifier: Apache-2.0 */
/*
 * out_gzip.c - the gzip encoder (codec.h): libdeflate, compressing
 * independent blocks in parallel, each a gzip member of its own, written in
 * order: the blocks go to the workers and come back in order through a
 * ring (ring.h). The result is plain valid gzip (any reader decompresses
 * all members back to back), laid out as HotSpot's own -gz dumps are, 1 MiB
 * a member and the first member's comment naming that size, so that MAT
 * reads it in place (gz_write_member). zlib's streaming deflate would be
 * one core at about a third of libdeflate's speed per core, and the
 * bottleneck of the pipeline.
 */
#define _POSIX_C_SOURCE 200809L
#include "hs_limits.h"
#include "output_int.h"
#include "ring.h"

#include <assert.h>
#include <libdeflate.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GZ_BLOCK HS_GZIP_MEMBER /* uncompressed bytes per gzip member */

typedef struct {
    uint8_t *in, *out;
    size_t in_len, out_len;
} gz_slot;

typedef struct {
    int level, nthreads;
    gz_slot *slots;
    unsigned nslots;
    /* with workers: the caller fills block `fill` (slot fill % nslots) and
     * posts it to the ring, the workers compress the blocks posted, and
     * the caller writes them in order as they come back (ring.h) */
    unsigned fill;
    int member_written; /* the first member, with its comment, is out */
    hs_ring *ring;
    pthread_t *threads;
    struct libdeflate_compressor *inline_c; /* single-threaded gzip */
} gz_out;

/* HotSpot's -gz layout, which MAT's chunked reader looks for to seek member
 * by member instead of inflating from the start: the first member's header
 * carries exactly this FCOMMENT, and every member but the last holds
 * exactly GZ_BLOCK uncompressed bytes. libdeflate writes a bare 10-byte
 * header (no name, no time), so the comment is spliced in after it. */
#define GZ_COMMENT "HPROF BLOCKSIZE=1048576"
#define GZ_FCOMMENT 0x10 /* RFC 1952's FLG bit */
#define GZ_HEADER 10

static hs_status gz_write_member(hs_output *o, const uint8_t *m, size_t n)
{
    gz_out *g = o->enc;
    uint8_t head[GZ_HEADER];

    if (g->member_written)
        return hs_out_put(o, m, n);
    /* the block size the comment names is the one members are cut at */
    assert(GZ_BLOCK == 1048576u);
    assert(n > GZ_HEADER && m[0] == 0x1f && m[1] == 0x8b && m[3] == 0);
    memcpy(head, m, GZ_HEADER);
    head[3] |= GZ_FCOMMENT;
    g->member_written = 1;
    if (hs_out_put(o, head, GZ_HEADER) != HS_OK ||
        hs_out_put(o, GZ_COMMENT, sizeof GZ_COMMENT) != HS_OK) /* with its NUL */
        return HS_E_WRITE;
    return hs_out_put(o, m + GZ_HEADER, n - GZ_HEADER);
}

/* A block the compressor could not take (libdeflate gives 0 bytes only
 * when its bound is short, or a worker had no compressor). */
static hs_status gz_failed(hs_output *o)
{
    return hs_io_error(&o->fault, HS_E_WRITE, UINT64_MAX, "gzip compression failed");
}

static void *gz_worker(void *arg)
{
    gz_out *g = arg;
    struct libdeflate_compressor *c = libdeflate_alloc_compressor(g->level);
    unsigned k;

    /* until gz_free stops the ring; a compressor not had fails each block
     * (0 bytes), which the writer reports */
    while (hs_ring_work(g->ring, &k) == 0) {
        gz_slot *s = &g->slots[k % g->nslots];
        s->out_len = c ? libdeflate_gzip_compress(c, s->in, s->in_len, s->out,
                                                  libdeflate_gzip_compress_bound(c, GZ_BLOCK))
                       : 0;
        hs_ring_worked(g->ring, k, (long)s->out_len);
    }
    libdeflate_free_compressor(c);
    return NULL;
}

/* Writes the oldest block once compressed, and gives its slot back. */
static hs_status gz_write_oldest(hs_output *o)
{
    gz_out *g = o->enc;
    unsigned k;
    long got;
    gz_slot *s;

    /* only gz_free stops the ring, after the last write */
    if (hs_ring_take(g->ring, &k, &got) != 0) {
        return gz_failed(o);
    }
    s = &g->slots[k % g->nslots];
    assert(s->in_len && (size_t)got == s->out_len);
    if (got == 0) {
        return gz_failed(o);
    }
    if (gz_write_member(o, s->out, s->out_len) != HS_OK)
        return HS_E_WRITE;
    s->in_len = 0;
    hs_ring_release(g->ring);
    return HS_OK;
}

/* Hands the block being filled to the workers and moves to the next one,
 * writing the oldest first when every slot is taken. */
static hs_status gz_submit(hs_output *o)
{
    gz_out *g = o->enc;
    gz_slot *s = &g->slots[g->fill % g->nslots];

    if (!g->ring) {
        s->out_len = libdeflate_gzip_compress(g->inline_c, s->in, s->in_len, s->out,
                                              libdeflate_gzip_compress_bound(g->inline_c,
                                                                             GZ_BLOCK));
        if (s->out_len == 0) {
            return gz_failed(o);
        }
        s->in_len = 0;
        return gz_write_member(o, s->out, s->out_len);
    }
    assert(s->in_len > 0);
    hs_ring_post(g->ring, g->fill++, (long)s->in_len);
    if (hs_ring_held(g->ring) == g->nslots && gz_write_oldest(o) != HS_OK)
        return HS_E_WRITE;
    /* the caller alone releases: the next slot is free now, no wait (the
     * ring stops only in gz_free) */
    return hs_ring_room(g->ring, g->fill) == 0 ? HS_OK : gz_failed(o);
}

static hs_status gz_write(hs_output *o, const uint8_t *p, size_t len)
{
    gz_out *g = o->enc;
    while (len) {
        gz_slot *s = &g->slots[g->fill % g->nslots];
        size_t k = GZ_BLOCK - s->in_len;
        if (k > len)
            k = len;
        memcpy(s->in + s->in_len, p, k);
        s->in_len += k;
        p += k;
        len -= k;
        if (s->in_len == GZ_BLOCK && gz_submit(o) != HS_OK)
            return HS_E_WRITE;
    }
    return HS_OK;
}

static hs_status gz_open(hs_output *o, int level, int threads)
{
    gz_out *g = calloc(1, sizeof *g);
    unsigned i;
    int t;

    if (!g)
        return HS_E_NOMEM;
    o->enc = g;
    g->level = level == HS_OUTPUT_LEVEL_DEFAULT ? 1 : level;
    g->nthreads = threads;

    g->nslots = g->nthreads <= 1 ? 1 : 2 * (unsigned)g->nthreads;
    g->slots = calloc(g->nslots, sizeof *g->slots);
    if (!g->slots)
        return HS_E_NOMEM;
    g->inline_c = libdeflate_alloc_compressor(g->level);
    if (!g->inline_c)
        return HS_E_NOMEM;
    for (i = 0; i < g->nslots; i++) {
        g->slots[i].in = malloc(GZ_BLOCK);
        g->slots[i].out = malloc(libdeflate_gzip_compress_bound(g->inline_c, GZ_BLOCK));
        if (!g->slots[i].in || !g->slots[i].out)
            return HS_E_NOMEM;
    }
    if (g->nthreads <= 1)
        return HS_OK;
    g->threads = calloc((size_t)g->nthreads, sizeof *g->threads);
    if (!g->threads || !(g->ring = hs_ring_new(g->nslots, 1)))
        return HS_E_NOMEM;
    for (t = 0; t < g->nthreads; t++)
        if (pthread_create(&g->threads[t], NULL, gz_worker, g) != 0) {
            g->nthreads = t;
            return HS_E_NOMEM;
        }
    return HS_OK;
}

static hs_status gz_finish(hs_output *o)
{
    gz_out *g = o->enc;
    if (g->slots[g->fill % g->nslots].in_len && gz_submit(o) != HS_OK)
        return HS_E_WRITE;
    while (g->ring && hs_ring_held(g->ring))
        if (gz_write_oldest(o) != HS_OK)
            return HS_E_WRITE;
    return HS_OK;
}

static void gz_free(hs_output *o)
{
    gz_out *g = o->enc;
    unsigned i;
    int t;

    if (!g)
        return;
    if (g->ring) {
        hs_ring_stop(g->ring);
        for (t = 0; t < g->nthreads; t++)
            pthread_join(g->threads[t], NULL);
        hs_ring_free(g->ring);
    }
    free(g->threads);
    if (g->slots)
        for (i = 0; i < g->nslots; i++) {
            free(g->slots[i].in);
            free(g->slots[i].out);
        }
    free(g->slots);
    if (g->inline_c)
        libdeflate_free_compressor(g->inline_c);
    free(g);
    o->enc = NULL;
}

const hs_encoder hs_gzip_encoder = {gz_open, gz_write, gz_finish, gz_free};

