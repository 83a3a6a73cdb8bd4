/* SPDX-License-Identifier: Apache-2.0 */
/*
 * verify.h - the audit's verifier: its own walk of a file, container first
 * (gzip members and their header fields, zstd frames of every kind), then
 * every HPROF record and sub-record, classifying every byte as structure,
 * a documented keep, or data. It shares no decision code and no counter
 * with the filter: a file is clean when the verifier found no data byte,
 * whatever the filter did to make it (hprof-strip-report(5), AUDIT).
 *
 * Pull model, as the filter: the verifier reads the file's own bytes
 * (compressed or not) through the caller's read callback and does no I/O
 * of its own. What it holds (strings, classes, instances waiting for their
 * class) stays under `max_held`; past it the run fails with HS_E_LIMIT,
 * never with a verdict.
 */
#ifndef HS_VERIFY_H
#define HS_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#include "hprof_strip.h"
#include "sha256.h"

/* What the verifier counts: each a kind of data byte (none: clean), and
 * the bytes kept on purpose (hprof_strip.h's hs_audit_figures, whose
 * digests and sizes are the result's own fields below). */
typedef hs_audit_figures hs_verify_counts;

typedef struct {
    hs_status status;      /* HS_OK: the walk ended; the verdict holds */
    hs_error err;          /* the failure when status is not HS_OK */
    int clean;             /* 1: no data byte (only when status is HS_OK) */
    int compression;       /* HS_COMPRESS_NONE, _ZSTD, _GZIP */
    unsigned hprof_version, idsize;
    uint64_t records, subrecords, strings, heap_dumps, class_dumps, instances, prim_arrays,
        obj_arrays, roots;
    hs_verify_counts n;
    hs_digest file_sha, hprof_sha; /* the bytes read, the HPROF decompressed */
    hs_finding *findings;          /* names owned here; app classes first */
    size_t n_findings;
    uint64_t held_peak;            /* most bytes held at once */
} hs_verify_result;

/* Walks the file `read` gives (as hs_source.read) to its end. `max_held` 0:
 * HS_DEFAULT_MAX_HELD. Fills *res (to free with hs_verify_result_free,
 * whatever the status) and returns res->status. */
hs_status hs_verify_run(long (*read)(void *ctx, void *buf, size_t cap), void *ctx,
                        uint64_t max_held, hs_verify_result *res);
void hs_verify_result_free(hs_verify_result *res);

#endif
