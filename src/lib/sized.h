/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sized.h - the rule for the structs a call takes with their size
 * (hs_options, hs_job, hs_output_params; hprof_strip.h): a caller built
 * with a newer header may pass more bytes than this library knows, and
 * what it set there it would not get, so those bytes must be 0.
 */
#ifndef HS_SIZED_H
#define HS_SIZED_H

#include <stddef.h>
#include <string.h>

#include "hprof_strip.h"

/* True when any of p[known..size) is not 0 (nothing when size <= known). */
static inline int hs_sized_unknown_set(const void *p, size_t known, size_t size)
{
    const unsigned char *b = p;
    size_t i;

    for (i = known; i < size; i++)
        if (b[i])
            return 1;
    return 0;
}

/* Fills a caller's struct of `size` bytes from ours of `known` bytes: as
 * much as both have, the rest of a newer caller's zeroed. Returns the
 * bytes filled. */
static inline size_t hs_sized_fill(void *dst, size_t size, const void *src, size_t known)
{
    size_t n = size < known ? size : known;

    memcpy(dst, src, n);
    if (size > n)
        memset((unsigned char *)dst + n, 0, size - n);
    return n;
}

/* The hs_options a caller gave in `size` bytes (`opt` NULL: none) into
 * *dst, what it lacks 0: HS_OK, or HS_E_USAGE when it set an option this
 * library does not have. filter.c, which knows where the known fields
 * end; hs_filter_create_ex and hs_job_run both take their options so. */
hs_status hs_options_take(hs_options *dst, const hs_options *opt, size_t size);

#endif
