/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fail.c - status names and error records.
 *
 * The core formats its messages with vsnprintf (the one piece of stdio it
 * uses): an error that names the byte and the record is worth more to a user
 * than a bare code, and the caller gets it ready to print.
 */
#include "fail.h"

#include "alloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *hs_status_str(hs_status status)
{
    switch (status) {
    case HS_OK: return "success";
    case HS_SALVAGED: return "truncated input, salvaged";
    case HS_E_MALFORMED: return "malformed input";
    case HS_E_TRUNCATED: return "truncated input";
    case HS_E_UNSUPPORTED: return "unsupported input";
    case HS_E_READ: return "read error";
    case HS_E_WRITE: return "write error";
    case HS_E_LIMIT: return "memory limit reached";
    case HS_E_NOMEM: return "out of memory";
    case HS_E_USAGE: return "usage error";
    case HS_E_CANCELLED: return "cancelled";
    }
    return "unknown status";
}

#if defined(__GNUC__)
__attribute__((format(printf, 5, 0)))
#endif
static void fill(hs_error *e, hs_status code, uint64_t offset, const char *prefix,
                 const char *fmt, va_list ap)
{
    size_t n;

    e->code = code;
    e->offset = offset;
    e->record_offset = UINT64_MAX;
    e->tag = -1;
    e->subtag = -1;
    n = (size_t)snprintf(e->message, sizeof e->message, "%s", prefix);
    if (n < sizeof e->message)
        vsnprintf(e->message + n, sizeof e->message - n, fmt, ap);
}

hs_status hs_fail(hs_error *e, hs_status code, uint64_t offset, const char *fmt, ...)
{
    char prefix[48];
    va_list ap;

    snprintf(prefix, sizeof prefix, "input byte %llu: ", (unsigned long long)offset);
    va_start(ap, fmt);
    fill(e, code, offset, prefix, fmt, ap);
    va_end(ap);
    return code;
}

hs_status hs_fail_plain(hs_error *e, hs_status code, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    fill(e, code, UINT64_MAX, "", fmt, ap);
    va_end(ap);
    return code;
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 0)))
#endif
static void keep_whole(char **whole, const hs_alloc *a, const char *fmt, va_list ap)
{
    va_list aq;
    int n;

    hs_alloc_free(a, *whole);
    *whole = NULL;
    va_copy(aq, ap);
    n = vsnprintf(NULL, 0, fmt, aq);
    va_end(aq);
    if (n >= 0 && (*whole = hs_malloc(a, (size_t)n + 1)) != NULL)
        vsnprintf(*whole, (size_t)n + 1, fmt, ap);
}

void hs_keep_whole(char **whole, const hs_alloc *a, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    keep_whole(whole, a, fmt, ap);
    va_end(ap);
}

hs_status hs_fail_whole(hs_error *e, char **whole, const hs_alloc *a, hs_status code,
                        const char *fmt, ...)
{
    va_list ap;

    if (e) {
        va_start(ap, fmt);
        fill(e, code, UINT64_MAX, "", fmt, ap);
        va_end(ap);
    }
    if (whole) {
        va_start(ap, fmt);
        keep_whole(whole, a, fmt, ap);
        va_end(ap);
    }
    return code;
}
