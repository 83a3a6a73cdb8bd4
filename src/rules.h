/*
 * rules.h - the in-memory rule set and its pure verdict functions.
 *
 * A rule set is built once (from presets and rule files) and then only read.
 * Array rules are kept in the order they were given; the last one that
 * matches an array wins, which is what "later lines override earlier ones"
 * means for a rule file.
 */
#ifndef HS_RULES_H
#define HS_RULES_H

#include <stdint.h>

#include "hprof_strip.h"

typedef enum {
    HS_ARR_KEEP,   /* payload untouched */
    HS_ARR_ZERO,   /* payload bytes set to 0, length kept */
    HS_ARR_FILL,   /* payload bytes set to `fill`, length kept */
    HS_ARR_PREFIX, /* first `prefix` elements kept, the rest zeroed */
    HS_ARR_EMPTY,  /* array kept with length 0 */
    HS_ARR_DROP    /* array record removed */
} hs_arr_action;

typedef struct {
    hs_arr_action action;
    uint8_t fill;
    uint64_t prefix; /* elements, for HS_ARR_PREFIX */
} hs_arr_verdict;

typedef struct {
    uint16_t types;     /* bit (1 << basic type) for each type it covers */
    uint64_t min_bytes; /* applies to payloads of at least this many bytes */
    hs_arr_verdict verdict;
} hs_arr_rule;

#define HS_MAX_ARRAY_RULES 64
#define HS_MAX_HEAP_RULES 8

struct hs_rules {
    hs_alloc alloc;
    hs_arr_rule arr[HS_MAX_ARRAY_RULES];
    unsigned n_arr;
    int drop_unused_strings;
    uint8_t drop_root[256]; /* by sub-record tag */
    uint32_t drop_heap[HS_MAX_HEAP_RULES];
    unsigned n_drop_heap;
};

/* What to do with a primitive array of `type` whose payload is `nbytes`. */
hs_arr_verdict hs_rules_array(const hs_rules *r, unsigned type, uint64_t nbytes);

/* True when some rule can change the length of a heap record, so heap
 * records must be re-segmented rather than passed through in place. */
int hs_rules_change_lengths(const hs_rules *r);

#endif
