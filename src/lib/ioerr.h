/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ioerr.h - errors of the library's I/O (the input, the output, and the
 * I/O and job calls on them), kept as the core keeps its own (fail.h): an
 * hs_status and an hs_error, whose offset is the input byte the problem is
 * at (the compressed byte in a .gz or .zst) or UINT64_MAX when it has none
 * (a read or a write that failed, a bad argument). The I/O's own functions
 * return the hs_status; those that give bytes (as hs_source.read) or say
 * yes or no return those, their error kept in the input's or the output's
 * hs_error.
 */
#ifndef HS_IOERR_H
#define HS_IOERR_H

#include <stdint.h>

#include "hprof_strip.h"

/* Fills `e` (NULL: nothing) with `code`, `offset` (UINT64_MAX: none) and
 * the formatted message, no record and no tag; returns `code`. */
hs_status hs_io_error(hs_error *e, hs_status code, uint64_t offset, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* hs_io_error with no offset: the I/O and job calls, which fail before
 * (or beside) any place in the input. */
void hs_io_fail(hs_error *err, hs_status code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#endif
