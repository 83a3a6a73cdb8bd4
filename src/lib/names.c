/* SPDX-License-Identifier: Apache-2.0 */
/*
 * names.c - interned names at fixed addresses (names.h). Open addressing
 * over ordinals, hashed with FNV-1a; the slots grow at half full.
 */
#include "names.h"

#include <assert.h>
#include <string.h>

#include "alloc.h"

#define HS_NAMES_CHUNK 65536

void hs_names_init(hs_names *t, const hs_alloc *a)
{
    memset(t, 0, sizeof *t);
    t->a = a;
}

void hs_names_free(hs_names *t)
{
    size_t i;

    for (i = 0; i < t->n_chunks; i++)
        hs_alloc_free(t->a, t->chunks[i]);
    hs_alloc_free(t->a, t->chunks);
    hs_alloc_free(t->a, t->ents);
    hs_alloc_free(t->a, t->slots);
    memset(t, 0, sizeof *t);
}

static uint64_t hash(const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    size_t i;

    for (i = 0; i < n; i++)
        h = (h ^ (uint8_t)s[i]) * 0x100000001b3ull;
    return h ^ (h >> 29);
}

/* The slot holding s[n], or the empty one where it would go. */
static size_t probe(const hs_names *t, const char *s, size_t n)
{
    size_t mask = t->slot_cap - 1, k = (size_t)hash(s, n) & mask;

    while (t->slots[k]) {
        const hs_name_ref *e = &t->ents[t->slots[k] - 1];
        if (e->n == n && memcmp(e->s, s, n) == 0)
            break;
        k = (k + 1) & mask;
    }
    return k;
}

int hs_names_find(const hs_names *t, const char *s, size_t n, uint32_t *ord)
{
    size_t k;

    if (!t->slot_cap)
        return 0;
    k = probe(t, s, n);
    if (!t->slots[k])
        return 0;
    *ord = t->slots[k] - 1;
    return 1;
}

const char *hs_names_text(const hs_names *t, uint32_t ord, size_t *n)
{
    assert(ord < t->n);
    if (n)
        *n = t->ents[ord].n;
    return t->ents[ord].s;
}

size_t hs_names_bytes(const hs_names *t)
{
    return t->text_bytes + t->chunks_cap * sizeof *t->chunks + t->cap * sizeof *t->ents +
           t->slot_cap * sizeof *t->slots;
}

static int grow_slots(hs_names *t)
{
    size_t cap = t->slot_cap ? t->slot_cap * 2 : 1024, i;
    uint32_t *old = t->slots, *s = hs_calloc(t->a, cap * sizeof *s);

    if (!s)
        return -1;
    hs_alloc_free(t->a, old);
    t->slots = s;
    t->slot_cap = cap;
    for (i = 0; i < t->n; i++)
        t->slots[probe(t, t->ents[i].s, t->ents[i].n)] = (uint32_t)i + 1;
    return 0;
}

/* Room for n + 1 bytes that will never move. */
static char *store(hs_names *t, const char *s, size_t n)
{
    char *p;

    if (!t->n_chunks || t->chunk_used + n + 1 > t->chunk_size) {
        size_t size = n + 1 > HS_NAMES_CHUNK ? n + 1 : HS_NAMES_CHUNK;
        if (t->n_chunks == t->chunks_cap) {
            size_t cap = t->chunks_cap ? t->chunks_cap * 2 : 16;
            char **c = hs_realloc(t->a, t->chunks, t->chunks_cap * sizeof *c, cap * sizeof *c);
            if (!c)
                return NULL;
            t->chunks = c;
            t->chunks_cap = cap;
        }
        if (!(p = hs_malloc(t->a, size)))
            return NULL;
        t->chunks[t->n_chunks++] = p;
        t->chunk_used = 0;
        t->chunk_size = size;
        t->text_bytes += size;
    }
    p = t->chunks[t->n_chunks - 1] + t->chunk_used;
    memcpy(p, s, n);
    p[n] = 0;
    t->chunk_used += n + 1;
    return p;
}

int hs_names_intern(hs_names *t, const char *s, size_t n, uint32_t *ord)
{
    size_t k;
    char *p;

    if (hs_names_find(t, s, n, ord))
        return 0;
    if (t->n >= UINT32_MAX - 1)
        return -1;
    if ((t->n + 1) * 2 > t->slot_cap && grow_slots(t) != 0)
        return -1;
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 256;
        hs_name_ref *e = hs_realloc(t->a, t->ents, t->cap * sizeof *e, cap * sizeof *e);
        if (!e)
            return -1;
        t->ents = e;
        t->cap = cap;
    }
    if (!(p = store(t, s, n)))
        return -1;
    k = probe(t, s, n);
    t->ents[t->n].s = p;
    t->ents[t->n].n = n;
    t->slots[k] = (uint32_t)t->n + 1;
    *ord = (uint32_t)t->n++;
    return 1;
}
