/* SPDX-License-Identifier: Apache-2.0 */
/*
 * output_int.h - the output's insides, shared by its files (output.h is
 * what the rest of the library sees): outbuf.c writes the bytes out (to the
 * descriptor or the caller's callback), an encoder per compression
 * (out_gzip.c, out_zstd.c, named by the codec table, codec.h) compresses
 * into it, and output.c opens, writes and closes through the table.
 */
#ifndef HS_OUTPUT_INT_H
#define HS_OUTPUT_INT_H

#include <stddef.h>
#include <stdint.h>

#include "codec.h"
#include "hasher.h"
#include "hprof_strip.h"
#include "ioerr.h"
#include "output.h"

struct hs_output {
    int fd;
    /* a write callback (hs_output_open_write) in place of write(2) on fd */
    int (*wr)(void *ctx, const void *buf, size_t len);
    void *wr_ctx;
    hs_sink sink; /* hs_output_sink's */
    const hs_codec *codec; /* NULL: plain */
    void *enc;             /* the codec's encoder's state */
    hs_error fault; /* what failed (code HS_OK: nothing); no offset (ioerr.h) */
    int err_no; /* errno of the failed write, 0 for other failures */
    uint64_t written; /* bytes written to fd */
    hs_hasher *hash; /* hs_output_hash */
};

/* Writes all of buf[0..len) out (and hashes it as written): HS_OK, or
 * HS_E_WRITE with o->fault (and o->err_no) set. */
hs_status hs_out_put(hs_output *o, const void *buf, size_t len);

#endif
