/* SPDX-License-Identifier: Apache-2.0 */
/*
 * output.c - the library's byte sink: plain, zstd or gzip, onto a descriptor.
 *
 * zstd: libzstd's streaming API with worker threads (ZSTD_c_nbWorkers), so
 * compression runs beside the filter instead of after it; one frame, with
 * its content checksum.
 *
 * gzip: libdeflate, compressing independent blocks in parallel, each a gzip
 * member of its own, written in order: the blocks go to the workers and
 * come back in order through a ring (ring.h). The result is plain valid gzip (any
 * reader decompresses all members back to back), laid out as HotSpot's own
 * -gz dumps are, 1 MiB a member and the first member's comment naming that
 * size, so that MAT reads it in place (gz_write_member). zlib's streaming deflate would be one core at about a
 * third of libdeflate's speed per core, and the bottleneck of the pipeline.
 */
#define _POSIX_C_SOURCE 200809L
#include "hprof_strip.h"
#include "output.h"

#include "be.h"
#include "format.h"
#include "hasher.h"
#include "hs_limits.h"
#include "ring.h"

#include <assert.h>
#include <errno.h>
#include <libdeflate.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#define GZ_BLOCK HS_GZIP_MEMBER /* uncompressed bytes per gzip member */

typedef struct {
    uint8_t *in, *out;
    size_t in_len, out_len;
} gz_slot;

struct hs_output {
    int fd;
    /* a write callback (hs_output_open_write) in place of write(2) on fd */
    int (*wr)(void *ctx, const void *buf, size_t len);
    void *wr_ctx;
    hs_sink sink; /* hs_output_sink's */
    enum hs_output_format format;
    char err[200];
    int err_no; /* errno of the failed write, 0 for other failures */
    uint64_t written; /* bytes written to fd */
    hs_hasher *hash; /* hs_output_hash */
    /* zstd */
    ZSTD_CCtx *zc;
    uint8_t *zbuf;
    size_t zbuf_cap;
    int level_by_dump; /* the level waits for the first bytes */
    /* gzip */
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
};

static int fd_write_all(hs_output *o, const void *buf, size_t len)
{
    const uint8_t *p = buf;

    if (o->wr && len) {
        if (o->wr(o->wr_ctx, buf, len) != 0) {
            o->err_no = 0;
            snprintf(o->err, sizeof o->err, "the write callback failed");
            return -1;
        }
        if (o->hash)
            hs_hasher_put(o->hash, HS_HASH_OUT_FILE, buf, len);
        o->written += (uint64_t)len;
        return 0;
    }
    while (len) {
        ssize_t n = write(o->fd, p, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            o->err_no = errno;
            snprintf(o->err, sizeof o->err, "%s", strerror(errno));
            return -1;
        }
        if (o->hash)
            hs_hasher_put(o->hash, HS_HASH_OUT_FILE, p, (size_t)n);
        p += n;
        len -= (size_t)n;
        o->written += (uint64_t)n;
    }
    return 0;
}

/* ---- gzip ------------------------------------------------------------------ */

/* HotSpot's -gz layout, which MAT's chunked reader looks for to seek member
 * by member instead of inflating from the start: the first member's header
 * carries exactly this FCOMMENT, and every member but the last holds
 * exactly GZ_BLOCK uncompressed bytes. libdeflate writes a bare 10-byte
 * header (no name, no time), so the comment is spliced in after it. */
#define GZ_COMMENT "HPROF BLOCKSIZE=1048576"
#define GZ_FCOMMENT 0x10 /* RFC 1952's FLG bit */
#define GZ_HEADER 10

static int gz_write_member(hs_output *o, const uint8_t *m, size_t n)
{
    uint8_t head[GZ_HEADER];

    if (o->member_written)
        return fd_write_all(o, m, n);
    /* the block size the comment names is the one members are cut at */
    assert(GZ_BLOCK == 1048576u);
    assert(n > GZ_HEADER && m[0] == 0x1f && m[1] == 0x8b && m[3] == 0);
    memcpy(head, m, GZ_HEADER);
    head[3] |= GZ_FCOMMENT;
    o->member_written = 1;
    if (fd_write_all(o, head, GZ_HEADER) != 0 ||
        fd_write_all(o, GZ_COMMENT, sizeof GZ_COMMENT) != 0) /* with its NUL */
        return -1;
    return fd_write_all(o, m + GZ_HEADER, n - GZ_HEADER);
}

static void *gz_worker(void *arg)
{
    hs_output *o = arg;
    struct libdeflate_compressor *c = libdeflate_alloc_compressor(o->level);
    unsigned k;

    /* until gz_free stops the ring; a compressor not had fails each block
     * (0 bytes), which the writer reports */
    while (hs_ring_work(o->ring, &k) == 0) {
        gz_slot *s = &o->slots[k % o->nslots];
        s->out_len = c ? libdeflate_gzip_compress(c, s->in, s->in_len, s->out,
                                                  libdeflate_gzip_compress_bound(c, GZ_BLOCK))
                       : 0;
        hs_ring_worked(o->ring, k, (long)s->out_len);
    }
    libdeflate_free_compressor(c);
    return NULL;
}

/* Writes the oldest block once compressed, and gives its slot back. */
static int gz_write_oldest(hs_output *o)
{
    unsigned k;
    long got;
    gz_slot *s;

    /* only gz_free stops the ring, after the last write */
    if (hs_ring_take(o->ring, &k, &got) != 0) {
        snprintf(o->err, sizeof o->err, "gzip compression failed");
        return -1;
    }
    s = &o->slots[k % o->nslots];
    assert(s->in_len && (size_t)got == s->out_len);
    if (got == 0) {
        snprintf(o->err, sizeof o->err, "gzip compression failed");
        return -1;
    }
    if (gz_write_member(o, s->out, s->out_len) != 0)
        return -1;
    s->in_len = 0;
    hs_ring_release(o->ring);
    return 0;
}

/* Hands the block being filled to the workers and moves to the next one,
 * writing the oldest first when every slot is taken. */
static int gz_submit(hs_output *o)
{
    gz_slot *s = &o->slots[o->fill % o->nslots];

    if (!o->ring) {
        s->out_len = libdeflate_gzip_compress(o->inline_c, s->in, s->in_len, s->out,
                                              libdeflate_gzip_compress_bound(o->inline_c,
                                                                             GZ_BLOCK));
        if (s->out_len == 0) {
            snprintf(o->err, sizeof o->err, "gzip compression failed");
            return -1;
        }
        s->in_len = 0;
        return gz_write_member(o, s->out, s->out_len);
    }
    assert(s->in_len > 0);
    hs_ring_post(o->ring, o->fill++, (long)s->in_len);
    if (hs_ring_held(o->ring) == o->nslots && gz_write_oldest(o) != 0)
        return -1;
    /* the caller alone releases: the next slot is free now, no wait */
    return hs_ring_room(o->ring, o->fill);
}

static int gz_write(hs_output *o, const uint8_t *p, size_t len)
{
    while (len) {
        gz_slot *s = &o->slots[o->fill % o->nslots];
        size_t k = GZ_BLOCK - s->in_len;
        if (k > len)
            k = len;
        memcpy(s->in + s->in_len, p, k);
        s->in_len += k;
        p += k;
        len -= k;
        if (s->in_len == GZ_BLOCK && gz_submit(o) != 0)
            return -1;
    }
    return 0;
}

static int gz_open(hs_output *o)
{
    unsigned i;
    int t;

    o->nslots = o->nthreads <= 1 ? 1 : 2 * (unsigned)o->nthreads;
    o->slots = calloc(o->nslots, sizeof *o->slots);
    if (!o->slots)
        return -1;
    o->inline_c = libdeflate_alloc_compressor(o->level);
    if (!o->inline_c)
        return -1;
    for (i = 0; i < o->nslots; i++) {
        o->slots[i].in = malloc(GZ_BLOCK);
        o->slots[i].out = malloc(libdeflate_gzip_compress_bound(o->inline_c, GZ_BLOCK));
        if (!o->slots[i].in || !o->slots[i].out)
            return -1;
    }
    if (o->nthreads <= 1)
        return 0;
    o->threads = calloc((size_t)o->nthreads, sizeof *o->threads);
    if (!o->threads || !(o->ring = hs_ring_new(o->nslots, 1)))
        return -1;
    for (t = 0; t < o->nthreads; t++)
        if (pthread_create(&o->threads[t], NULL, gz_worker, o) != 0) {
            o->nthreads = t;
            return -1;
        }
    return 0;
}

static int gz_finish(hs_output *o)
{
    if (o->slots[o->fill % o->nslots].in_len && gz_submit(o) != 0)
        return -1;
    while (o->ring && hs_ring_held(o->ring))
        if (gz_write_oldest(o) != 0)
            return -1;
    return 0;
}

static void gz_free(hs_output *o)
{
    unsigned i;
    int t;

    if (o->ring) {
        hs_ring_stop(o->ring);
        for (t = 0; t < o->nthreads; t++)
            pthread_join(o->threads[t], NULL);
        hs_ring_free(o->ring);
    }
    free(o->threads);
    if (o->slots)
        for (i = 0; i < o->nslots; i++) {
            free(o->slots[i].in);
            free(o->slots[i].out);
        }
    free(o->slots);
    if (o->inline_c)
        libdeflate_free_compressor(o->inline_c);
}

/* ---- zstd ------------------------------------------------------------------ */

static int z_check(hs_output *o, size_t r)
{
    if (ZSTD_isError(r)) {
        snprintf(o->err, sizeof o->err, "zstd compression failed: %s", ZSTD_getErrorName(r));
        return -1;
    }
    return 0;
}

/* Why the level depends on the id size: measured with zstd 1.5.4 on what
 * the default, privacy and android-app presets leave (payloads zeroed),
 * level 1 is 0.3 to 14 % smaller than level 3 on every dump with 8-byte
 * ids in the corpus and the bench (HotSpot 6 to 17), and 3 to 11 % larger
 * on every one with 4-byte ids (Android, 32-bit HotSpot); it takes about
 * two thirds of level 3's CPU time. Min match length alone does not
 * explain it: level 3 with level 1's (6) is only about 2 % smaller on the
 * 8-byte dumps. Unstripped (-p none), 8-byte dumps go either way, -6 to
 * +8 %. Figures and commands: bench/RESULTS.md. */
int hs_output_dump_level(const void *head, size_t n)
{
    static const char magic[] = "JAVA PROFILE 1.0.";
    const uint8_t *p = head, *nul;

    if (n < sizeof magic || memcmp(p, magic, sizeof magic - 1) != 0)
        return 3;
    nul = memchr(p, 0, n < HS_VERSION_MAX ? n : HS_VERSION_MAX);
    if (!nul || (size_t)(nul - p) + 5 > n)
        return 3;
    return hs_be32(nul + 1) == 8 ? 1 : 3;
}

static int z_set_level(hs_output *o, int level)
{
    o->level_by_dump = 0;
    return z_check(o, ZSTD_CCtx_setParameter(o->zc, ZSTD_c_compressionLevel, level));
}

static int z_stream(hs_output *o, const void *p, size_t len, ZSTD_EndDirective mode)
{
    ZSTD_inBuffer in = {p, len, 0};

    /* The filter writes the dump's header first, and in one piece: it is
     * buffered (out.c) and far smaller than the buffer. */
    if (o->level_by_dump && z_set_level(o, hs_output_dump_level(p, len)) != 0)
        return -1;

    for (;;) {
        ZSTD_outBuffer out = {o->zbuf, o->zbuf_cap, 0};
        size_t left = ZSTD_compressStream2(o->zc, &out, &in, mode);
        if (z_check(o, left) != 0 || fd_write_all(o, o->zbuf, out.pos) != 0)
            return -1;
        if (mode == ZSTD_e_end ? left == 0 : in.pos == in.size)
            return 0;
    }
}

static int z_open(hs_output *o, int level, int threads)
{
    o->zc = ZSTD_createCCtx();
    o->zbuf_cap = ZSTD_CStreamOutSize();
    o->zbuf = malloc(o->zbuf_cap);
    if (!o->zc || !o->zbuf)
        return -1;
    /* The frame ends with a checksum of its content (XXH64), as zstd(1)
     * writes by default: without it one flipped bit in a literal passes
     * `zstd -t` and decompresses to other bytes with no error. With
     * workers, each job's worker hashes its input, in job order. Its cost,
     * measured on a 300 MB HotSpot dump (bench/ab.sh, 21 alternating
     * pairs): -z 5 % slower in wall time (250 to 273 ms; CPU time 0.23
     * to 0.25 s: the default preset's output is mostly zeroed payload,
     * which zstd compresses at several GB/s, so the hash is a visible
     * share of it), -p none -z within noise (392 and 399 ms). */
    if (z_check(o, ZSTD_CCtx_setParameter(o->zc, ZSTD_c_checksumFlag, 1)) != 0)
        return -1;
    if (level == HS_OUTPUT_LEVEL_DEFAULT)
        o->level_by_dump = 1;
    else if (z_set_level(o, level) != 0)
        return -1;
    /* Workers make compression asynchronous even with one of them; an old
     * libzstd built without threads says no, and then it runs inline. */
    if (threads > 0)
        ZSTD_CCtx_setParameter(o->zc, ZSTD_c_nbWorkers, threads);
    /* Jobs of 2 MiB rather than libzstd's default (4 windows, 8 MiB at
     * level 3): measured on a 1 GB dump with two workers, the same speed
     * and size, and peak RSS 23 MiB instead of 59 MiB. And no overlap
     * (overlapLog 1): by default each job first hashes the 256 KiB before
     * it as history, an eighth more work per 2 MiB job; without it -z is
     * about 5 % faster (up to 8 %; alternating runs on the bench's dumps),
     * peak RSS 2 MiB lower, and the output within -0.1 % to +0.4 % of the
     * size. Higher levels have larger windows and keep the defaults,
     * favouring ratio. */
    if (threads > 0 && (level <= 5 || o->level_by_dump)) {
        ZSTD_CCtx_setParameter(o->zc, ZSTD_c_jobSize, HS_ZSTD_JOB);
        ZSTD_CCtx_setParameter(o->zc, ZSTD_c_overlapLog, 1);
    }
    return 0;
}

/* ---- the sink ------------------------------------------------------------- */

int hs_output_open(hs_output **out, int fd, enum hs_output_format format, int level,
                   int threads)
{
    hs_output *o = calloc(1, sizeof *o);

    *out = o;
    if (!o)
        return -1;
    o->fd = fd;
    o->format = format;
    o->level = format == HS_OUT_GZIP && level == HS_OUTPUT_LEVEL_DEFAULT ? 1 : level;
    o->nthreads = threads;
    switch (format) {
    case HS_OUT_ZSTD: return z_open(o, level, threads);
    case HS_OUT_GZIP: return gz_open(o);
    case HS_OUT_PLAIN: break;
    }
    return 0;
}

int hs_output_write(void *ctx, const void *buf, size_t len)
{
    hs_output *o = ctx;

    if (o->hash && o->format != HS_OUT_PLAIN)
        hs_hasher_put(o->hash, HS_HASH_OUT_DUMP, buf, len);
    switch (o->format) {
    case HS_OUT_ZSTD: return z_stream(o, buf, len, ZSTD_e_continue);
    case HS_OUT_GZIP: return gz_write(o, buf, len);
    case HS_OUT_PLAIN: break;
    }
    return fd_write_all(o, buf, len);
}

int hs_output_end(hs_output *o)
{
    switch (o->format) {
    case HS_OUT_ZSTD: return z_stream(o, NULL, 0, ZSTD_e_end);
    case HS_OUT_GZIP: return gz_finish(o);
    case HS_OUT_PLAIN: break;
    }
    return 0;
}

void hs_output_set_writer(hs_output *o, int (*wr)(void *ctx, const void *buf, size_t len),
                          void *ctx)
{
    assert(o->written == 0);
    o->wr = wr;
    o->wr_ctx = ctx;
}

const hs_sink *hs_output_sink(hs_output *o)
{
    if (!o)
        return NULL;
    o->sink.write = hs_output_write;
    o->sink.ctx = o;
    return &o->sink;
}

int hs_output_is(const hs_output *o)
{
    return (int)o->format;
}

HS_API const char *hs_output_error(const hs_output *o)
{
    return o && o->err[0] ? o->err : "unknown error";
}

HS_API int hs_output_errno(const hs_output *o)
{
    return o ? o->err_no : 0;
}

void hs_output_hash(hs_output *o, hs_hasher *h)
{
    assert(!o->hash && o->written == 0);
    o->hash = h;
}

void hs_output_unhash(hs_output *o, const hs_hasher *h)
{
    if (o && h && o->hash == h)
        o->hash = NULL;
}

HS_API uint64_t hs_output_written(const hs_output *o)
{
    return o ? o->written : 0;
}

void hs_output_free(hs_output *o)
{
    if (!o)
        return;
    if (o->format == HS_OUT_GZIP)
        gz_free(o);
    ZSTD_freeCCtx(o->zc);
    free(o->zbuf);
    free(o);
}
