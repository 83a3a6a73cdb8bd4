/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ioerr.h - filling a caller's hs_error for the I/O and job calls, which
 * fail before (or beside) any filter, so no place in the input: offset 0,
 * no record, no tag.
 */
#ifndef HS_IOERR_H
#define HS_IOERR_H

#include "hprof_strip.h"

/* Fills `err` (NULL: nothing) with `code` and the formatted message. */
void hs_io_fail(hs_error *err, hs_status code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#endif
