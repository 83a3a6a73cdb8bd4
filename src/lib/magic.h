/* SPDX-License-Identifier: Apache-2.0 */
/*
 * magic.h - what the first bytes of a file say it is: the one table of
 * magic numbers the library knows, read by the input's detection (input.c:
 * gzip and zstd are decompressed, the others refused with the command
 * that gets the dump out) and by the filter's header check (filter.c: the
 * error for a source that is not HPROF).
 */
#ifndef HS_MAGIC_H
#define HS_MAGIC_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    HS_MAGIC_GZIP = 1, /* read by input.c (ISA-L) */
    HS_MAGIC_ZSTD,     /* read by input.c (libzstd), skippable frames too */
    HS_MAGIC_FOREIGN   /* a format a dump arrives in that is not read here */
} hs_magic_kind;

typedef struct {
    hs_magic_kind kind;
    const char *what; /* "a zip archive", "xz data": the phrase of a message */
    const char *how;  /* the command that gets the dump out of it */
} hs_magic;

/* The entry whose magic `p` (`n` bytes) starts with, NULL for none. */
const hs_magic *hs_magic_of(const uint8_t *p, size_t n);

#endif
