/* SPDX-License-Identifier: Apache-2.0 */
/*
 * classes.c - see classes.h.
 */
#include "classes.h"

#include <string.h>

#include "alloc.h"
#include "format.h"

#define NOT_BUILT UINT32_MAX

void hs_classes_init(hs_classes *c, const hs_alloc *a)
{
    memset(c, 0, sizeof *c);
    c->alloc = a;
    hs_idmap_init(&c->index, a);
}

void hs_classes_free(hs_classes *c)
{
    hs_idmap_free(&c->index);
    hs_alloc_free(c->alloc, c->classes);
    hs_alloc_free(c->alloc, c->fields);
    hs_alloc_free(c->alloc, c->runs);
    memset(c, 0, sizeof *c);
}

/* Grows `*p` (holding `len` elements of `elem` bytes, room for `*cap`) to
 * hold `len + more`. */
static hs_status grow(const hs_alloc *a, void **p, size_t elem, size_t len, size_t *cap,
                      size_t more)
{
    size_t n = *cap ? *cap : 256;
    void *q;

    if (len + more <= *cap)
        return HS_OK;
    while (n < len + more)
        n *= 2;
    q = hs_realloc(a, *p, len * elem, n * elem);
    if (!q)
        return HS_E_NOMEM;
    *p = q;
    *cap = n;
    return HS_OK;
}

static uint8_t field_byte(const uint8_t *types, const uint8_t *keep, uint32_t i)
{
    return (uint8_t)(types[i] | (keep && keep[i] ? 0x80 : 0));
}

/* Class `k` seen again: the same layout, or HS_E_MALFORMED. */
static hs_status same_layout(const hs_classes *c, const hs_class *k, uint64_t super,
                             const uint8_t *types, const uint8_t *keep, uint32_t nfields)
{
    uint32_t i;

    if (k->super != super || k->nfields != nfields)
        return HS_E_MALFORMED;
    for (i = 0; i < nfields; i++)
        if (c->fields[k->types + i] != field_byte(types, keep, i))
            return HS_E_MALFORMED;
    return HS_OK;
}

hs_status hs_classes_add(hs_classes *c, uint64_t id, uint64_t super, const uint8_t *types,
                         const uint8_t *keep, uint32_t nfields, uint64_t at, uint64_t *first)
{
    const uint64_t *seen = hs_idmap_get(&c->index, id);
    hs_class *k;
    uint32_t i;

    if (seen) {
        *first = c->classes[*seen].at;
        return same_layout(c, &c->classes[*seen], super, types, keep, nfields);
    }
    if (grow(c->alloc, (void **)&c->classes, sizeof *c->classes, c->n, &c->cap, 1) != HS_OK ||
        grow(c->alloc, (void **)&c->fields, 1, c->fields_len, &c->fields_cap, nfields) !=
            HS_OK ||
        hs_idmap_put(&c->index, id, c->n) != HS_OK)
        return HS_E_NOMEM;
    k = &c->classes[c->n++];
    k->super = super;
    k->types = (uint32_t)c->fields_len;
    k->nfields = nfields;
    k->nruns = NOT_BUILT;
    k->runs = 0;
    k->size = 0;
    k->at = at;
    for (i = 0; i < nfields; i++)
        c->fields[c->fields_len++] = field_byte(types, keep, i);
    return HS_OK;
}

static hs_class *find(hs_classes *c, uint64_t id)
{
    uint64_t *v = hs_idmap_get(&c->index, id);
    return v ? &c->classes[*v] : NULL;
}

hs_status hs_classes_runs(hs_classes *c, uint64_t id, unsigned idsize, const uint32_t **runs,
                          uint32_t *nruns, uint64_t *size, uint64_t *missing)
{
    hs_class *leaf = find(c, id), *k;
    uint64_t cur, total = 0;
    size_t depth = 0, start;
    uint32_t last = 0;

    *runs = NULL;
    if (!leaf) {
        *missing = id;
        return HS_OK;
    }
    if (leaf->nruns == NOT_BUILT) {
        /* every class of the chain must be known first */
        for (cur = id; cur; cur = k->super) {
            if (!(k = find(c, cur))) {
                *missing = cur;
                return HS_OK;
            }
            if (++depth > c->n)
                return HS_E_MALFORMED; /* a superclass cycle */
        }
        start = c->runs_len;
        for (cur = id; cur; cur = k->super) {
            uint32_t i;
            k = find(c, cur);
            if (grow(c->alloc, (void **)&c->runs, sizeof *c->runs, c->runs_len, &c->runs_cap,
                     k->nfields) != HS_OK)
                return HS_E_NOMEM;
            leaf = find(c, id); /* `find` results survive: classes did not move */
            for (i = 0; i < k->nfields; i++) {
                uint8_t f = c->fields[k->types + i];
                unsigned type = f & 0x7f, w = hs_type_size(type, idsize);
                uint32_t kind = (f & 0x80) || type == HS_TYPE_OBJECT ||
                                        type == HS_TYPE_ARRAY_OBJECT
                                    ? HS_RUN_KEEP
                                    : 0;
                total += w;
                if (c->runs_len > start && (last & HS_RUN_KEEP) == kind) {
                    c->runs[c->runs_len - 1] += w; /* same kind: one run */
                    last = c->runs[c->runs_len - 1];
                } else {
                    c->runs[c->runs_len++] = kind | w;
                    last = kind | w;
                }
            }
        }
        leaf->runs = (uint32_t)start;
        leaf->nruns = (uint32_t)(c->runs_len - start);
        leaf->size = total;
    }
    {
        /* a chain with no fields at all has no runs, but it is known: its
         * runs must not read as "missing" */
        static const uint32_t none[1] = {0};
        *runs = c->runs ? c->runs + leaf->runs : none;
    }
    *nruns = leaf->nruns;
    *size = leaf->size;
    return HS_OK;
}

size_t hs_classes_bytes(const hs_classes *c)
{
    return c->cap * sizeof *c->classes + c->fields_cap + c->runs_cap * sizeof *c->runs +
           hs_idmap_bytes(&c->index);
}
