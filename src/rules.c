/*
 * rules.c - rule set lifecycle, presets and verdicts.
 */
#include "rules.h"

#include <string.h>

#include "alloc.h"
#include "error.h"
#include "format.h"

#define ALL_PRIMITIVE_TYPES                                                    \
    (uint16_t)(1u << HS_TYPE_BOOLEAN | 1u << HS_TYPE_CHAR | 1u << HS_TYPE_FLOAT | \
               1u << HS_TYPE_DOUBLE | 1u << HS_TYPE_BYTE | 1u << HS_TYPE_SHORT |  \
               1u << HS_TYPE_INT | 1u << HS_TYPE_LONG)

hs_rules *hs_rules_create(const hs_alloc *alloc)
{
    hs_alloc a;
    hs_rules *r;

    hs_alloc_init(&a, alloc);
    r = hs_calloc(&a, sizeof *r);
    if (r)
        r->alloc = a;
    return r;
}

void hs_rules_free(hs_rules *r)
{
    if (r) {
        hs_alloc a = r->alloc;
        hs_free(&a, r);
    }
}

static void add_array_rule(hs_rules *r, uint16_t types, uint64_t min_bytes,
                           hs_arr_action action)
{
    hs_arr_rule *ar;

    if (r->n_arr == HS_MAX_ARRAY_RULES) /* keep the newest: drop the oldest */
        memmove(r->arr, r->arr + 1, sizeof r->arr - sizeof r->arr[0]), r->n_arr--;
    ar = &r->arr[r->n_arr++];
    memset(ar, 0, sizeof *ar);
    ar->types = types;
    ar->min_bytes = min_bytes;
    ar->verdict.action = action;
}

hs_status hs_rules_preset(hs_rules *r, const char *name, hs_error *err)
{
    if (strcmp(name, "none") == 0) {
        r->n_arr = 0;
        r->drop_unused_strings = 0;
        memset(r->drop_root, 0, sizeof r->drop_root);
        r->n_drop_heap = 0;
        return HS_OK;
    }
    if (strcmp(name, "default") == 0) {
        add_array_rule(r, ALL_PRIMITIVE_TYPES, 0, HS_ARR_ZERO);
        r->drop_unused_strings = 1;
        return HS_OK;
    }
    if (err)
        hs_fail_plain(err, HS_E_USAGE, "unknown preset '%s' (try none, default)", name);
    return HS_E_USAGE;
}

hs_arr_verdict hs_rules_array(const hs_rules *r, unsigned type, uint64_t nbytes)
{
    unsigned i = r->n_arr;
    hs_arr_verdict keep = {HS_ARR_KEEP, 0, 0};

    while (i--) {
        const hs_arr_rule *ar = &r->arr[i];
        if ((ar->types >> type & 1u) && nbytes >= ar->min_bytes)
            return ar->verdict;
    }
    return keep;
}

int hs_rules_change_lengths(const hs_rules *r)
{
    unsigned i;

    if (r->drop_unused_strings || r->n_drop_heap)
        return 1;
    for (i = 0; i < 256; i++)
        if (r->drop_root[i])
            return 1;
    for (i = 0; i < r->n_arr; i++)
        if (r->arr[i].verdict.action == HS_ARR_EMPTY ||
            r->arr[i].verdict.action == HS_ARR_DROP)
            return 1;
    return 0;
}
