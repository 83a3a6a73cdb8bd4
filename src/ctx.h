/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ctx.h - what every part of the filter's core shares: the read window,
 * where the decoder is in the input, the first error, the counters, and the
 * one memory accountant.
 *
 * It sits below the encoder and every feature (strings, roots, scrubbing,
 * duplicates), so each of them can fail with an error that names the byte
 * and the record, and report what it holds, without knowing the others.
 */
#ifndef HS_CTX_H
#define HS_CTX_H

#include <stdint.h>

#include "error.h"
#include "hprof_strip.h"
#include "reader.h"

/* Everything that holds memory that grows with the input. Each holder
 * reports its bytes after it grows; --max-held caps their sum. */
typedef enum {
    HS_HOLD_STRINGS,   /* STRING records waiting for their first user */
    HS_HOLD_ROOTS,     /* GC roots waiting for their object's heap */
    HS_HOLD_INSTANCES, /* instances waiting for their CLASS_DUMP */
    HS_HOLD_STAGE,     /* the start of the heap dump, held back */
    HS_HOLD_CLASSES,   /* instance layouts */
    HS_HOLD_NAMES,     /* keep-field names matched so far */
    HS_HOLD_DUPS,      /* duplicate-array tables */
    HS_HOLD_HISTO,     /* the class histogram and class names */
    HS_HOLD_MAPPING,   /* the deobfuscation mapping and the names it needs */
    HS_HOLD_COUNT
} hs_holder;

typedef struct {
    hs_alloc alloc;
    hs_options opt;
    hs_reader rd;
    unsigned idsize;

    /* where the decoder is: the top-level record and the sub-record */
    uint64_t rec_off, rec_end; /* rec_off UINT64_MAX: between records */
    int rec_tag, subtag;       /* -1: none */

    hs_error err;
    int failed;
    hs_stats st;

    uint64_t held[HS_HOLD_COUNT]; /* bytes, as each holder last said */
    uint64_t held_total;
} hs_ctx;

/* Records the first error, located at input byte `off` and tagged with the
 * current record and sub-record. Returns `code`. */
hs_status hs_fail_at(hs_ctx *c, hs_status code, uint64_t off, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Turns a failed status of the reader, the sink or the allocator into a
 * full error; `what` names what was being read. */
hs_status hs_fail_io(hs_ctx *c, hs_status s, const char *what);

/* Holder `h` now holds `bytes`. Fails with HS_E_LIMIT, naming the holder,
 * when all of them together pass opt.max_held. */
hs_status hs_hold(hs_ctx *c, hs_holder h, uint64_t bytes);

static inline uint64_t hs_ctx_offset(const hs_ctx *c)
{
    return hs_reader_offset(&c->rd);
}

#endif
