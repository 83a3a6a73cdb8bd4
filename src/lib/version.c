/* SPDX-License-Identifier: Apache-2.0 */
/*
 * version.c - what the library says about itself at run time: its version,
 * and its counters by index and name, for a program (a binding through
 * ctypes, say) that has no header to read HS_STATS_COUNTERS from.
 *
 * The counter table is generated from HS_STATS_COUNTERS, so it lists each
 * counter once, in the header's order, which is the index order: counters
 * are only added at the end of that list, so an index keeps its meaning.
 */
#include <stddef.h>
#include <string.h>

#include "hprof_strip.h"

/* The header's number and string agree (HS_VERSION_STRING is a literal,
 * which the Makefile reads for the soname). */
_Static_assert(HS_VERSION_NUMBER == HS_VERSION_MAJOR * 10000 + HS_VERSION_MINOR * 100 +
                                        HS_VERSION_PATCH,
               "HS_VERSION_NUMBER");

const char *hs_version(void)
{
    return HS_VERSION_STRING;
}

unsigned hs_version_number(void)
{
    return HS_VERSION_NUMBER;
}

static const struct {
    const char *name, *what;
    int kind;
    size_t offset; /* in hs_stats */
} counters[] = {
#define COUNTER_(name, kind, what) {#name, what, kind, offsetof(hs_stats, name)},
    HS_STATS_COUNTERS(COUNTER_)
#undef COUNTER_
};
#define N_COUNTERS (sizeof counters / sizeof counters[0])

size_t hs_counter_count(void)
{
    return N_COUNTERS;
}

const char *hs_counter_name(size_t i)
{
    return i < N_COUNTERS ? counters[i].name : NULL;
}

int hs_counter_kind(size_t i)
{
    return i < N_COUNTERS ? counters[i].kind : -1;
}

const char *hs_counter_description(size_t i)
{
    return i < N_COUNTERS ? counters[i].what : NULL;
}

int hs_counter_index(const char *name)
{
    size_t i;

    if (name)
        for (i = 0; i < N_COUNTERS; i++)
            if (strcmp(counters[i].name, name) == 0)
                return (int)i;
    return -1;
}

uint64_t hs_filter_counter(const hs_filter *f, size_t i)
{
    hs_stats st;
    uint64_t v;

    if (!f || i >= N_COUNTERS)
        return 0;
    hs_filter_stats_ex(f, &st, sizeof st);
    memcpy(&v, (const unsigned char *)&st + counters[i].offset, sizeof v);
    return v;
}
