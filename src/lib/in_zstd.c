/* SPDX-License-Identifier: Apache-2.0 */
/*
 * in_zstd.c - the zstd decoder (codec.h): frames back to back, skippable
 * ones anywhere between them (pzstd writes one before each), a frame's
 * content checksum checked when it has one (-z writes one). zstd
 * decompresses at several times the filter's speed, so it runs in the
 * caller's thread: a reader thread only added a copy (measured: no
 * faster).
 */
#include "input_int.h"

#include <stdlib.h>
#include <zstd.h>

typedef struct {
    ZSTD_DStream *zd;
    size_t zret; /* the last ZSTD_decompressStream result: 0 at a frame end */
} unzstd;

static hs_status zstd_open(hs_input *in)
{
    unzstd *z = calloc(1, sizeof *z);

    if (!z)
        return HS_E_NOMEM;
    in->dec = z;
    if (!(z->zd = ZSTD_createDStream()))
        return HS_E_NOMEM;
    z->zret = 1;
    return HS_OK;
}

static long zstd_read(hs_input *in, uint8_t *buf, size_t cap)
{
    unzstd *z = in->dec;
    ZSTD_outBuffer o = {buf, cap, 0};

    while (o.pos == 0) { /* until some output, or the end */
        ZSTD_inBuffer i;
        int more = hs_in_raw_more(in, z->zret == 0, "zstd", "frame");
        if (more == HS_E_READ)
            return -1;
        if (more <= 0) /* the end, or a cut: the bytes end */
            return 0;
        i.src = in->raw;
        i.size = in->raw_len;
        i.pos = in->raw_pos;
        z->zret = ZSTD_decompressStream(z->zd, &o, &i);
        in->raw_pos = i.pos;
        if (ZSTD_isError(z->zret)) {
            /* what this call wrote may be half a block: dropped */
            hs_in_damaged(in, HS_DAMAGE_CORRUPT, "zstd", ZSTD_getErrorName(z->zret));
            return 0;
        }
    }
    return (long)o.pos;
}

static void zstd_close(hs_input *in)
{
    unzstd *z = in->dec;

    if (z)
        ZSTD_freeDStream(z->zd);
    free(z);
    in->dec = NULL;
}

const hs_decoder hs_unzstd_decoder = {zstd_open, zstd_read, zstd_close, NULL, NULL};
