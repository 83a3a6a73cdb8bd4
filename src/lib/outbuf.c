/* SPDX-License-Identifier: Apache-2.0 */
/*
 * outbuf.c - the output's bytes written out (output_int.h): to the
 * descriptor, again after a signal, or through the caller's callback;
 * counted, and hashed as written.
 */
#define _POSIX_C_SOURCE 200809L
#include "output_int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

hs_status hs_out_put(hs_output *o, const void *buf, size_t len)
{
    const uint8_t *p = buf;

    if (o->wr && len) {
        if (o->wr(o->wr_ctx, buf, len) != 0) {
            o->err_no = 0;
            return hs_io_error(&o->fault, HS_E_WRITE, UINT64_MAX, "the write callback failed");
        }
        if (o->hash)
            hs_hasher_put(o->hash, HS_HASH_OUT_FILE, buf, len);
        o->written += (uint64_t)len;
        return HS_OK;
    }
    while (len) {
        ssize_t n = write(o->fd, p, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            o->err_no = errno;
            return hs_io_error(&o->fault, HS_E_WRITE, UINT64_MAX, "%s", strerror(errno));
        }
        if (o->hash)
            hs_hasher_put(o->hash, HS_HASH_OUT_FILE, p, (size_t)n);
        p += n;
        len -= (size_t)n;
        o->written += (uint64_t)n;
    }
    return HS_OK;
}
