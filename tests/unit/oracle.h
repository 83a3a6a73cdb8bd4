/* SPDX-License-Identifier: Apache-2.0 */
/*
 * oracle.h - what a filtered dump must hold, computed from the input by a
 * decoder of the tests' own (not the library's, not helpers.c's walker).
 *
 * A model says what the rules mean (array actions, strings, fields, heaps,
 * --to-jvm) in the simplest terms; o_expect applies it to an input and sums
 * up what the output must contain, o_actual sums up an output the same way,
 * and o_compare says where the two differ. Items are compared as multisets
 * of hashes, per kind, because the filter may move records (strings go
 * before their first user, held instances after their class dump) but
 * never change what they say beyond what the rules ask.
 */
#ifndef TEST_ORACLE_H
#define TEST_ORACLE_H

#include <stddef.h>
#include <stdint.h>

#include "hprof_strip.h"

enum { OA_KEEP, OA_ZERO, OA_FILL, OA_PREFIX, OA_EMPTY, OA_DROP };

typedef struct {
    uint16_t types; /* bit (1 << basic type) */
    uint64_t min;   /* payload bytes */
    int action;
    uint64_t arg;   /* fill byte, prefix elements */
} o_arr_rule;

#define O_MAX_KEEP 8

typedef struct {
    o_arr_rule arr[4]; /* in order; the last that matches wins; none: keep */
    unsigned n_arr;
    int drop_unused;   /* strings drop-unused */
    int fields_zero;   /* fields zero */
    int drop_zi;       /* zygote and image heaps' objects dropped */
    int to_jvm;
    const char *keep[O_MAX_KEEP]; /* "java.lang.String.coder" */
    unsigned n_keep;
} o_model;

/* The model of a built-in preset (what the man page says it does); 0 for
 * an unknown name. */
int o_model_preset(o_model *m, const char *name);

typedef struct {
    uint64_t *v;
    size_t n, cap;
} o_vec;

typedef struct {
    int ok;
    char error[200];
    /* sorted hashes of each kind of item */
    o_vec arrays, instances, classes, obj_arrays, strings;
    o_vec needed;     /* (o_expect) strings some kept record refers to */
    int interleaved;  /* Android, or a STRING after a LOAD_CLASS: the filter
                         may write held strings nothing uses */
    uint64_t unresolved;   /* instances whose class chain is incomplete */
    uint64_t arrays_dropped, bytes_zeroed, bytes_dropped, strings_in;
    /* non-zero input bytes among those zeroed or filled, and the input
     * offset of the first (0: none) */
    uint64_t nonzero_arrays, first_nonzero_array, nonzero_fields, first_nonzero_field;
    /* with dups: brute-force duplicate counts over the input's payloads */
    uint64_t dup_arrays[12], dup_bytes[12], dup_top_wasted;
} o_summary;

o_summary o_expect(const uint8_t *in, size_t n, const o_model *m, int dups);
o_summary o_actual(const uint8_t *out, size_t n);
void o_summary_free(o_summary *s);

/* Checks an output (its summary `got`, its run's stats `st`) against
 * `want`; `dups` and `count_nonzero` as the run's hs_options had them.
 * Returns 0 when all agree, else 1 with what differs first in msg. */
int o_compare(const o_summary *want, const o_summary *got, const o_model *m,
              const hs_stats *st, int dups, int count_nonzero, char *msg, size_t cap);

#endif
