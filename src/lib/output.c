/* SPDX-License-Identifier: Apache-2.0 */
/*
 * output.c - the library's byte sink: plain, or compressed by the encoder
 * the codec table names (codec.h: out_gzip.c, out_zstd.c), onto a
 * descriptor or the caller's callback (outbuf.c).
 */
#include "output_int.h"

#include <assert.h>
#include <stdlib.h>

hs_status hs_output_open(hs_output **out, int fd, int compression, int level, int threads)
{
    hs_output *o = calloc(1, sizeof *o);

    *out = o;
    if (!o)
        return HS_E_NOMEM;
    o->fd = fd;
    o->codec = hs_codec_of(compression);
    assert(o->codec || compression == HS_COMPRESS_NONE);
    return o->codec ? o->codec->enc->open(o, level, threads) : HS_OK;
}

int hs_output_write(void *ctx, const void *buf, size_t len)
{
    hs_output *o = ctx;

    hs_status s;

    if (!o->codec) {
        s = hs_out_put(o, buf, len);
    } else {
        if (o->hash)
            hs_hasher_put(o->hash, HS_HASH_OUT_DUMP, buf, len);
        s = o->codec->enc->write(o, buf, len);
    }
    return s == HS_OK ? 0 : -1; /* as hs_sink.write */
}

hs_status hs_output_end(hs_output *o)
{
    return o->codec ? o->codec->enc->end(o) : HS_OK;
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
    return o->codec ? o->codec->id : HS_COMPRESS_NONE;
}

HS_API const char *hs_output_error(const hs_output *o)
{
    return o && o->fault.code != HS_OK ? o->fault.message : "unknown error";
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
    if (o->codec)
        o->codec->enc->free(o);
    free(o);
}
