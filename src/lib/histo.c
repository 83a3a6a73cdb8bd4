/* SPDX-License-Identifier: Apache-2.0 */
/*
 * histo.c - the class histogram (see histo.h).
 */
#include "histo.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "format.h"
#include "hs_limits.h"

/* STRING texts longer than this are no class names worth keeping. */
#define MAX_NAME HS_NAME_TEXT_MAX

/* Empties the rows' cache: each slot gets a key that is not its own (the
 * first of 0, 1, 2... that maps elsewhere), which no lookup can match. */
static void empty_cache(hs_histo *h)
{
    uint64_t k = 0;
    size_t i;

    for (i = 0; i < sizeof h->cache / sizeof h->cache[0]; i++) {
        while (hs_histo_slot_of(h, k) == &h->cache[i])
            k++;
        h->cache[i] = (hs_histo_slot){.k = k};
    }
}

void hs_histo_init(hs_histo *h, const hs_alloc *a)
{
    memset(h, 0, sizeof *h);
    empty_cache(h);
    h->alloc = a;
    hs_idmap_init(&h->rows_at, a);
    hs_idmap_init(&h->names, a);
    hs_idmap_init(&h->classes, a);
}

void hs_histo_free(hs_histo *h)
{
    hs_idmap_free(&h->rows_at);
    hs_idmap_free(&h->names);
    hs_idmap_free(&h->classes);
    hs_alloc_free(h->alloc, h->rows);
    hs_alloc_free(h->alloc, h->keys);
    hs_alloc_free(h->alloc, h->text);
    hs_alloc_free(h->alloc, h->strs);
    h->strs = NULL;
    h->rows = NULL;
    h->keys = NULL;
    h->text = NULL;
}

static hs_status nomem(hs_ctx *c)
{
    return hs_fail_io(c, HS_E_NOMEM, "");
}

static hs_status held_changed(hs_histo *h, hs_ctx *c)
{
    return hs_hold(c, HS_HOLD_HISTO,
                   hs_idmap_bytes(&h->rows_at) + hs_idmap_bytes(&h->names) +
                       hs_idmap_bytes(&h->classes) + h->text_cap +
                       h->strs_cap * sizeof *h->strs +
                       h->cap * (sizeof *h->rows + sizeof *h->keys));
}

/* Appends text p[0..n) and a NUL; *at is where it starts. */
static hs_status add_text(hs_histo *h, hs_ctx *c, const void *p, size_t n, size_t *at)
{
    if (n + 1 > h->text_cap - h->text_len) {
        size_t cap = h->text_cap ? h->text_cap : 1u << 16;
        char *t;
        while (n + 1 > cap - h->text_len)
            cap *= 2;
        t = hs_realloc(h->alloc, h->text, h->text_len, cap);
        if (!t)
            return nomem(c);
        h->text = t;
        h->text_cap = cap;
        HS_TRY(held_changed(h, c));
    }
    memcpy(h->text + h->text_len, p, n);
    h->text[h->text_len + n] = 0;
    *at = h->text_len;
    h->text_len += n + 1;
    return HS_OK;
}

hs_status hs_histo_string(hs_histo *h, hs_ctx *c, uint64_t id, const uint8_t *p, size_t n)
{
    size_t at;

    if (h->pruned || n > MAX_NAME || memchr(p, 0, n))
        return HS_OK;
    if (h->nstrs == h->strs_cap) {
        size_t cap = h->strs_cap ? h->strs_cap * 2 : 1024;
        struct hs_histo_str *l = hs_realloc(h->alloc, h->strs, h->nstrs * sizeof *l,
                                            cap * sizeof *l);
        if (!l)
            return nomem(c);
        h->strs = l;
        h->strs_cap = cap;
        HS_TRY(held_changed(h, c));
    }
    HS_TRY(add_text(h, c, p, n, &at));
    h->strs[h->nstrs].id = id;
    h->strs[h->nstrs].at = at;
    h->nstrs++;
    return HS_OK;
}

hs_status hs_histo_class(hs_histo *h, hs_ctx *c, uint64_t cls, uint64_t name)
{
    if (hs_idmap_put(&h->classes, cls, name) != HS_OK)
        return nomem(c);
    return held_changed(h, c);
}

/* Keeps only the texts that name a class, in a fresh arena, in `names`.
 * A STRING id read twice names by its last text, as a map's put would. */
hs_status hs_histo_prune(hs_histo *h, hs_ctx *c)
{
    char *old = h->text;
    size_t i;
    hs_idmap last; /* class name string id -> its last entry in strs + 1 */
    hs_status s = HS_OK;

    if (h->pruned)
        return HS_OK;
    h->pruned = 1;
    hs_idmap_init(&last, h->alloc);
    /* the class names, then which entry of the list each has */
    for (i = 0; i < h->classes.cap && s == HS_OK; i++)
        if (h->classes.used[i] && hs_idmap_put(&last, h->classes.ents[i].val, 0) != HS_OK)
            s = nomem(c);
    for (i = 0; i < h->nstrs && s == HS_OK; i++) {
        uint64_t *v = hs_idmap_get(&last, h->strs[i].id);
        if (v)
            *v = i + 1;
    }
    h->text = NULL;
    h->text_len = h->text_cap = 0;
    for (i = 0; i < last.cap && s == HS_OK; i++) {
        size_t at, n;
        const char *t;
        uint32_t len;
        const uint8_t *held;
        if (!last.used[i])
            continue;
        if (last.ents[i].val) {
            t = old + h->strs[last.ents[i].val - 1].at;
            n = strlen(t);
        } else if (h->held_text &&
                   (held = h->held_text(h->held_ctx, last.ents[i].key, &len)) != NULL &&
                   len <= MAX_NAME && !memchr(held, 0, len)) {
            /* not written yet: the string table has it (its last text) */
            t = (const char *)held;
            n = len;
        } else {
            continue;
        }
        s = add_text(h, c, t, n, &at);
        if (s == HS_OK && hs_idmap_put(&h->names, last.ents[i].key, at + 1) != HS_OK)
            s = nomem(c);
    }
    hs_idmap_free(&last);
    hs_alloc_free(h->alloc, old);
    hs_alloc_free(h->alloc, h->strs);
    h->strs = NULL;
    h->nstrs = h->strs_cap = 0;
    /* (a failure was recorded where it happened: nomem, or add_text's) */
    return s != HS_OK ? s : held_changed(h, c);
}

hs_status hs_histo_count(hs_histo *h, hs_ctx *c, uint64_t key, uint32_t heap, uint64_t bytes,
                         int kept)
{
    const uint64_t k = hs_histo_key(key, heap);
    hs_histo_slot *r = hs_histo_row(h, k);

    if (!r) {
        if (h->nrows == h->cap) {
            size_t cap = h->cap ? h->cap * 2 : 256;
            hs_class_count *rows = hs_realloc(h->alloc, h->rows, h->nrows * sizeof *rows,
                                              cap * sizeof *rows);
            uint64_t *keys = rows ? hs_realloc(h->alloc, h->keys, h->nrows * sizeof *keys,
                                               cap * sizeof *keys)
                                  : NULL;
            if (rows)
                h->rows = rows;
            if (!keys)
                return nomem(c);
            h->keys = keys;
            h->cap = cap;
        }
        memset(&h->rows[h->nrows], 0, sizeof *h->rows);
        h->rows[h->nrows].heap = heap;
        h->keys[h->nrows] = key;
        if (hs_idmap_put(&h->rows_at, k, ++h->nrows) != HS_OK)
            return nomem(c);
        HS_TRY(held_changed(h, c));
        r = hs_histo_row(h, k);
        assert(r);
    }
    hs_histo_add(h, r, bytes, kept);
    return HS_OK;
}

/* The counts slot `s` holds go to its row. */
static void flush_slot(hs_histo *h, hs_histo_slot *s)
{
    assert(s->row <= h->nrows);
    if (s->row) {
        h->rows[s->row - 1].instances_out += s->instances;
        h->rows[s->row - 1].bytes_out += s->bytes;
    }
    s->instances = s->bytes = 0;
}

hs_histo_slot *hs_histo_miss(hs_histo *h, hs_histo_slot *s, uint64_t k)
{
    const uint64_t *v = hs_idmap_get(&h->rows_at, k);

    assert(s == hs_histo_slot_of(h, k));
    if (!v)
        return NULL;
    flush_slot(h, s);
    s->k = k;
    s->row = (size_t)*v;
    return s;
}

/* Java's dotted form of a class name as a dump writes it: HotSpot's
 * "java/lang/String" and "[Ljava/lang/String;" / "[[I", or ART's
 * "java.lang.String[]" (kept), into out[0..cap). */
static void java_name(const char *in, char *out, size_t cap)
{
    size_t dims = 0, n = 0, i;
    const char *p;

    while (in[dims] == '[')
        dims++;
    p = in + dims;
    if (dims && *p == 'L') {
        p++;
        for (i = 0; p[i] && p[i] != ';' && n + 1 < cap; i++)
            out[n++] = p[i] == '/' ? '.' : p[i];
    } else if (dims && p[0] && !p[1] && hs_type_of_letter(p[0])) {
        n = (size_t)snprintf(out, cap, "%s", hs_type_name(hs_type_of_letter(p[0])));
    } else {
        for (i = 0, p = in; p[i] && n + 1 < cap; i++)
            out[n++] = p[i] == '/' ? '.' : p[i];
        dims = 0;
    }
    for (i = 0; i < dims && n + 3 <= cap; i++) {
        out[n++] = '[';
        out[n++] = ']';
    }
    out[n < cap ? n : cap - 1] = 0;
}

static int by_bytes(const void *a, const void *b)
{
    const hs_class_count *x = a, *y = b;

    if (x->bytes_in != y->bytes_in)
        return x->bytes_in < y->bytes_in ? 1 : -1;
    if (x->instances_in != y->instances_in)
        return x->instances_in < y->instances_in ? 1 : -1;
    return strcmp(x->name, y->name);
}

/* The name of row `i`, as an offset into the text arena. */
static hs_status name_row(hs_histo *h, hs_ctx *c, size_t i, size_t *at)
{
    char buf[MAX_NAME + 64];
    uint64_t key = h->keys[i], *name, *text;

    if (key & HS_HISTO_PRIM) {
        snprintf(buf, sizeof buf, "%s[]", hs_type_name((unsigned)(key & 0xff)));
    } else if ((name = hs_idmap_get(&h->classes, key)) &&
               (text = hs_idmap_get(&h->names, *name))) {
        java_name(h->text + *text - 1, buf, sizeof buf);
    } else {
        snprintf(buf, sizeof buf, "class@0x%llx", (unsigned long long)key);
    }
    return add_text(h, c, buf, strlen(buf), at);
}

hs_status hs_histo_finish(hs_histo *h, hs_ctx *c)
{
    size_t i, *at;

    if (!h->nrows)
        return HS_OK;
    for (i = 0; i < sizeof h->cache / sizeof h->cache[0]; i++)
        flush_slot(h, &h->cache[i]);
    for (i = 0; i < h->nrows; i++) { /* the input's: dropped, and kept (hs_histo_add) */
        h->rows[i].instances_in += h->rows[i].instances_out;
        h->rows[i].bytes_in += h->rows[i].bytes_out;
    }
    HS_TRY(hs_histo_prune(h, c)); /* put off by heap.c for the JVMTI agent's dumps */
    at = hs_malloc(h->alloc, h->nrows * sizeof *at);
    if (!at)
        return nomem(c);
    for (i = 0; i < h->nrows; i++)
        if (name_row(h, c, i, &at[i]) != HS_OK) {
            hs_alloc_free(h->alloc, at);
            return nomem(c);
        }
    /* pointers only now: the arena may have moved while it grew */
    for (i = 0; i < h->nrows; i++)
        h->rows[i].name = h->text + at[i];
    hs_alloc_free(h->alloc, at);
    qsort(h->rows, h->nrows, sizeof *h->rows, by_bytes);
    empty_cache(h); /* the rows moved */
    return HS_OK;
}
