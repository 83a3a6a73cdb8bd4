/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fail.h - the one way errors are raised inside the library.
 */
#ifndef HS_FAIL_H
#define HS_FAIL_H

#include "hprof_strip.h"

/* Fills `e` (code, offset, formatted message prefixed with "input byte N: ")
 * and returns `code`, so a failing path reads `return hs_fail(...)`.
 * `record_offset`, `tag` and `subtag` are left for the caller to set. */
hs_status hs_fail(hs_error *e, hs_status code, uint64_t offset, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Same, without the "input byte N: " prefix (errors that have no place in
 * the input, such as a write failure or a bad rule). */
hs_status hs_fail_plain(hs_error *e, hs_status code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* The whole of a printf message in memory from `a`, replacing *whole (the
 * earlier one freed; NULL when there is no memory for it): for a message
 * hs_error's 320 bytes may cut, one naming a path (hs_rules_message). */
void hs_keep_whole(char **whole, const hs_alloc *a, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* hs_fail_plain into `e` (may be NULL), and the whole message kept as
 * hs_keep_whole does when `whole` is not NULL. */
hs_status hs_fail_whole(hs_error *e, char **whole, const hs_alloc *a, hs_status code,
                        const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

#define HS_TRY(expr)                                                          \
    do {                                                                      \
        hs_status hs_try_status_ = (expr);                                    \
        if (hs_try_status_ != HS_OK)                                          \
            return hs_try_status_;                                            \
    } while (0)

#endif
