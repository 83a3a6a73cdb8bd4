/* SPDX-License-Identifier: Apache-2.0 */
/*
 * out_zstd.c - the zstd encoder (codec.h): libzstd's streaming API with
 * worker threads (ZSTD_c_nbWorkers), so compression runs beside the filter
 * instead of after it; one frame, with its content checksum.
 */
#include "be.h"
#include "format.h"
#include "hs_limits.h"
#include "output_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

typedef struct {
    ZSTD_CCtx *zc;
    uint8_t *zbuf;
    size_t zbuf_cap;
    int level_by_dump; /* the level waits for the first bytes */
} zstd_out;

static hs_status z_check(hs_output *o, size_t r)
{
    if (ZSTD_isError(r))
        return hs_io_error(&o->fault, HS_E_WRITE, UINT64_MAX, "zstd compression failed: %s",
                           ZSTD_getErrorName(r));
    return HS_OK;
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
    static const char magic[] = HS_MAGIC ".";
    const uint8_t *p = head, *nul;

    if (n < sizeof magic || memcmp(p, magic, sizeof magic - 1) != 0)
        return 3;
    nul = memchr(p, 0, n < HS_VERSION_MAX ? n : HS_VERSION_MAX);
    if (!nul || (size_t)(nul - p) + 5 > n)
        return 3;
    return hs_be32(nul + 1) == 8 ? 1 : 3;
}

static hs_status z_set_level(hs_output *o, int level)
{
    zstd_out *z = o->enc;
    z->level_by_dump = 0;
    return z_check(o, ZSTD_CCtx_setParameter(z->zc, ZSTD_c_compressionLevel, level));
}

static hs_status z_stream(hs_output *o, const void *p, size_t len, ZSTD_EndDirective mode)
{
    zstd_out *z = o->enc;
    ZSTD_inBuffer in = {p, len, 0};

    /* The filter writes the dump's header first, and in one piece: it is
     * buffered (out.c) and far smaller than the buffer. */
    if (z->level_by_dump && z_set_level(o, hs_output_dump_level(p, len)) != HS_OK)
        return HS_E_WRITE;

    for (;;) {
        ZSTD_outBuffer out = {z->zbuf, z->zbuf_cap, 0};
        size_t left = ZSTD_compressStream2(z->zc, &out, &in, mode);
        if (z_check(o, left) != HS_OK || hs_out_put(o, z->zbuf, out.pos) != HS_OK)
            return HS_E_WRITE;
        if (mode == ZSTD_e_end ? left == 0 : in.pos == in.size)
            return HS_OK;
    }
}

static hs_status z_open(hs_output *o, int level, int threads)
{
    zstd_out *z = calloc(1, sizeof *z);

    if (!z)
        return HS_E_NOMEM;
    o->enc = z;
    z->zc = ZSTD_createCCtx();
    z->zbuf_cap = ZSTD_CStreamOutSize();
    z->zbuf = malloc(z->zbuf_cap);
    if (!z->zc || !z->zbuf)
        return HS_E_NOMEM;
    /* The frame ends with a checksum of its content (XXH64), as zstd(1)
     * writes by default: without it one flipped bit in a literal passes
     * `zstd -t` and decompresses to other bytes with no error. With
     * workers, each job's worker hashes its input, in job order. Its cost,
     * measured on a 300 MB HotSpot dump (bench/ab.sh, 21 alternating
     * pairs): -z 5 % slower in wall time (250 to 273 ms; CPU time 0.23
     * to 0.25 s: the default preset's output is mostly zeroed payload,
     * which zstd compresses at several GB/s, so the hash is a visible
     * share of it), -p none -z within noise (392 and 399 ms). */
    if (z_check(o, ZSTD_CCtx_setParameter(z->zc, ZSTD_c_checksumFlag, 1)) != HS_OK)
        return o->fault.code;
    if (level == HS_OUTPUT_LEVEL_DEFAULT)
        z->level_by_dump = 1;
    else if (z_set_level(o, level) != HS_OK)
        return o->fault.code;
    /* Workers make compression asynchronous even with one of them; an old
     * libzstd built without threads says no, and then it runs inline. */
    if (threads > 0)
        ZSTD_CCtx_setParameter(z->zc, ZSTD_c_nbWorkers, threads);
    /* Jobs of 2 MiB rather than libzstd's default (4 windows, 8 MiB at
     * level 3): measured on a 1 GB dump with two workers, the same speed
     * and size, and peak RSS 23 MiB instead of 59 MiB. And no overlap
     * (overlapLog 1): by default each job first hashes the 256 KiB before
     * it as history, an eighth more work per 2 MiB job; without it -z is
     * about 5 % faster (up to 8 %; alternating runs on the bench's dumps),
     * peak RSS 2 MiB lower, and the output within -0.1 % to +0.4 % of the
     * size. Higher levels have larger windows and keep the defaults,
     * favouring ratio. */
    if (threads > 0 && (level <= 5 || z->level_by_dump)) {
        ZSTD_CCtx_setParameter(z->zc, ZSTD_c_jobSize, HS_ZSTD_JOB);
        ZSTD_CCtx_setParameter(z->zc, ZSTD_c_overlapLog, 1);
    }
    return HS_OK;
}

static hs_status z_write(hs_output *o, const uint8_t *p, size_t len)
{
    return z_stream(o, p, len, ZSTD_e_continue);
}

static hs_status z_end(hs_output *o)
{
    return z_stream(o, NULL, 0, ZSTD_e_end);
}

static void z_free(hs_output *o)
{
    zstd_out *z = o->enc;

    if (!z)
        return;
    ZSTD_freeCCtx(z->zc);
    free(z->zbuf);
    free(z);
    o->enc = NULL;
}

const hs_encoder hs_zstd_encoder = {z_open, z_write, z_end, z_free};
