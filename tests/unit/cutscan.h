/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cutscan.h - where a dump may be cut, and what a cut leaves whole: a scan
 * of the tests' own (sub-record sizes from the walker, helpers.c) that lists
 * every top-level record boundary (and whether a heap dump is open there),
 * every sub-record boundary inside heap records, and every complete object
 * (instance, object or primitive array, class dump) with its id and end.
 *
 * It reads a whole dump or any prefix of one: a record cut short at the end
 * still gives the objects complete inside it, so the same scan answers
 * "what was complete before this cut" for a prefix made by cutting a
 * compressed file (tests/unit/cutcheck.c) and for cuts of a whole dump
 * (tests/unit/test_bounds.c).
 */
#ifndef TEST_CUTSCAN_H
#define TEST_CUTSCAN_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    int header_ok;        /* the file header is complete */
    unsigned idsize;
    size_t header;        /* bytes of the file header */
    size_t whole;         /* header and whole, well-formed records: where the input is cut
                             or turns bad */
    int cut;              /* a record runs past the end of the input */
    int bad;              /* a record or sub-record that does not parse stands at `whole` */
    int open_at_whole;    /* a segmented heap dump is open at `whole` */
    int begun_at_whole;   /* a heap record, or a record only a profiler writes
                             (CONTROL_SETTINGS, CPU_SAMPLES, ...), came before
                             `whole`: else the dump was cut before its heap
                             dump (filter.c's check_end) */
    /* offsets where a top-level record ends, the header's end first, and
     * whether a segmented heap dump is open there (1: HEAP_DUMP_SEGMENT seen,
     * no HEAP_DUMP_END since; 2: no heap dump begun, nor a profile: a cut
     * before the heap dump) */
    size_t *tops;
    unsigned char *top_open;
    unsigned char *top_tag; /* of the record ending there (0 for the header) */
    size_t n_tops;
    /* offsets inside whole heap records where a sub-record may begin: just
     * after the record header, and after every sub-record but the last */
    size_t *subs;
    size_t n_subs;
    /* complete objects in input order */
    uint64_t *ids;
    size_t *ends;
    size_t n_objs;
    char error[160];
} cutscan;

/* Scans `p[0..len)`; never fails (see header_ok, cut, bad). */
void cutscan_run(cutscan *s, const uint8_t *p, size_t len);
void cutscan_free(cutscan *s);

/* True when `len` bytes scanned into `s` form a dump that may legally end
 * there: a whole header, whole records, no segmented heap dump left open. */
int cutscan_legal_end(const cutscan *s, size_t len);

/* How many objects of `s` end at or before `cut`. */
size_t cutscan_objects_before(const cutscan *s, size_t cut);

/* Looks for each of the first `k` objects of `in` among the objects of
 * `out` (by id). Returns how many are missing; the first one's id goes to
 * `*first_missing`. */
size_t cutscan_missing(const cutscan *in, size_t k, const cutscan *out, uint64_t *first_missing);

#endif
