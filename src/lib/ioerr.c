/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ioerr.c - the I/O layer's error records (ioerr.h). Its own file, first
 * in src/lib/io.mk, rather than fail.c's functions: the gzip reader's fuzz
 * and TSan builds link the I/O files alone, and the core's "input byte N: "
 * prefix is the filter's (an I/O message names its layer's byte itself:
 * "gzip data is truncated at compressed byte N").
 */
#include "ioerr.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#if defined(__GNUC__)
__attribute__((format(printf, 4, 0)))
#endif
static hs_status fill(hs_error *e, hs_status code, uint64_t offset, const char *fmt, va_list ap)
{
    if (!e)
        return code;
    memset(e, 0, sizeof *e);
    e->code = code;
    e->offset = offset;
    e->record_offset = UINT64_MAX;
    e->tag = e->subtag = -1;
    vsnprintf(e->message, sizeof e->message, fmt, ap);
    return code;
}

hs_status hs_io_error(hs_error *e, hs_status code, uint64_t offset, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    fill(e, code, offset, fmt, ap);
    va_end(ap);
    return code;
}

void hs_io_fail(hs_error *err, hs_status code, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    fill(err, code, UINT64_MAX, fmt, ap);
    va_end(ap);
}
