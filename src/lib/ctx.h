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

#include "alloc.h"
#include "fail.h"
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
    HS_HOLD_CUT,       /* --salvage: the classes named, for the cut */
    HS_HOLD_FINDINGS,  /* names and places of the findings (findings.h) */
    HS_HOLD_COUNT
} hs_holder;

typedef struct {
    /* alloc: what grows with the input, through `meter`, which refuses an
     * allocation that would take what it gave out (and the mapping, its
     * base) past opt.max_held; raw: the fixed buffers (read window, output
     * and segment buffers), which the cap does not count */
    hs_alloc alloc, raw;
    hs_meter meter;
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

/* Sets up alloc, raw and the meter over the caller's allocator `a`, once
 * opt.max_held is final. The ctx must not move afterwards. */
void hs_ctx_init_alloc(hs_ctx *c, const hs_alloc *a);

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

/* Holder `h` now holds `bytes`: each holder calls it after it grows (or
 * shrinks). Fails with HS_E_LIMIT, naming the holder, when all of them
 * together pass opt.max_held. A growth that would pass it is refused
 * before it is made, by the meter (the holder then sees an allocation
 * fail, and hs_fail_io turns its HS_E_NOMEM into HS_E_LIMIT): this check
 * after the fact catches the rest (a holder that counts more than it
 * allocates). */
hs_status hs_hold(hs_ctx *c, hs_holder h, uint64_t bytes);

static inline uint64_t hs_ctx_offset(const hs_ctx *c)
{
    return hs_reader_offset(&c->rd);
}

#endif
