/* SPDX-License-Identifier: Apache-2.0 */
/*
 * out.h - the buffered output stream over an hs_sink.
 *
 * Small writes are gathered into one buffer; a write at least half the
 * buffer's size goes straight to the sink (after what is buffered), so bulk
 * payloads are never copied on their way out.
 */
#ifndef HS_OUT_H
#define HS_OUT_H

#include <stddef.h>
#include <stdint.h>

#include "hprof_strip.h"

typedef struct {
    hs_sink sink;
    const hs_alloc *alloc;
    uint8_t *buf;
    size_t cap, len;
    uint64_t total; /* bytes accepted so far */
    int failed;
} hs_out;

hs_status hs_out_init(hs_out *o, const hs_alloc *a, size_t cap);
void hs_out_free(hs_out *o);
hs_status hs_out_flush(hs_out *o);
hs_status hs_out_write(hs_out *o, const void *p, size_t n);
/* Writes `n` copies of `byte`. */
hs_status hs_out_fill(hs_out *o, uint8_t byte, uint64_t n);

#endif
