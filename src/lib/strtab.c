/* SPDX-License-Identifier: Apache-2.0 */
/*
 * strtab.c - see strtab.h. Arena layout per held text: u32 length, bytes.
 */
#include "strtab.h"

#include <string.h>

#include "alloc.h"

#define STATE(v) ((int)((v)&3u))
#define OFFSET(v) ((size_t)((v) >> 2))

void hs_strtab_init(hs_strtab *t, const hs_alloc *a)
{
    memset(t, 0, sizeof *t);
    t->alloc = a;
    hs_idmap_init(&t->map, a);
}

void hs_strtab_free(hs_strtab *t)
{
    hs_idmap_free(&t->map);
    hs_alloc_free(t->alloc, t->arena);
    t->arena = NULL;
}

int hs_strtab_state(const hs_strtab *t, uint64_t id)
{
    const uint64_t *v = hs_idmap_get(&t->map, id);
    return v ? STATE(*v) : HS_STR_UNKNOWN;
}

static void kill_text(hs_strtab *t, uint64_t v)
{
    uint32_t n;

    memcpy(&n, t->arena + OFFSET(v), 4);
    t->dead += 4 + (size_t)n;
    t->held_count--;
}

hs_status hs_strtab_set(hs_strtab *t, uint64_t id, int state)
{
    uint64_t *v = hs_idmap_get(&t->map, id);

    if (v && STATE(*v) == HS_STR_HELD)
        kill_text(t, *v);
    return hs_idmap_put(&t->map, id, (uint64_t)state);
}

/* Moves the held texts to the front of the arena, dropping dead space. */
static void compact(hs_strtab *t)
{
    size_t i, to = 0;
    uint8_t *tmp;

    /* walk the map, not the arena: only the map knows which texts live.
     * Copy through a scratch arena so texts never overlap mid-move. */
    tmp = hs_malloc(t->alloc, t->len - t->dead + 1);
    if (!tmp)
        return; /* compaction is an optimisation: skip it when memory is short */
    for (i = 0; i < t->map.cap; i++) {
        uint64_t v;
        uint32_t n;
        if (!t->map.used[i] || STATE(t->map.ents[i].val) != HS_STR_HELD)
            continue;
        v = t->map.ents[i].val;
        memcpy(&n, t->arena + OFFSET(v), 4);
        memcpy(tmp + to, t->arena + OFFSET(v), 4 + (size_t)n);
        t->map.ents[i].val = (uint64_t)to << 2 | HS_STR_HELD;
        to += 4 + (size_t)n;
    }
    memcpy(t->arena, tmp, to);
    hs_alloc_free(t->alloc, tmp);
    t->len = to;
    t->dead = 0;
}

static hs_status reserve(hs_strtab *t, size_t n)
{
    size_t cap;
    uint8_t *a;

    if (n <= t->cap - t->len)
        return HS_OK;
    cap = t->cap ? t->cap : 64u << 10;
    while (cap - t->len < n)
        cap *= 2;
    a = hs_realloc(t->alloc, t->arena, t->len, cap);
    if (!a)
        return HS_E_NOMEM;
    t->arena = a;
    t->cap = cap;
    return HS_OK;
}

hs_status hs_strtab_begin(hs_strtab *t)
{
    if (t->dead > t->len / 2 && t->dead > (64u << 10))
        compact(t);
    if (reserve(t, 4) != HS_OK)
        return HS_E_NOMEM;
    t->open = t->len;
    t->len += 4; /* the length, patched by hs_strtab_end */
    return HS_OK;
}

hs_status hs_strtab_append(hs_strtab *t, const uint8_t *p, size_t n)
{
    if (reserve(t, n) != HS_OK)
        return HS_E_NOMEM;
    memcpy(t->arena + t->len, p, n);
    t->len += n;
    return HS_OK;
}

hs_status hs_strtab_end(hs_strtab *t, uint64_t id)
{
    uint32_t n = (uint32_t)(t->len - t->open - 4);
    hs_status s = hs_strtab_set(t, id, HS_STR_UNKNOWN); /* drops an older text */

    if (s == HS_OK)
        s = hs_idmap_put(&t->map, id, (uint64_t)t->open << 2 | HS_STR_HELD);
    if (s != HS_OK)
        return s;
    memcpy(t->arena + t->open, &n, 4);
    t->held_count++;
    return HS_OK;
}

const uint8_t *hs_strtab_text(const hs_strtab *t, uint64_t id, uint32_t *len)
{
    const uint64_t *v = hs_idmap_get(&t->map, id);

    if (!v || STATE(*v) != HS_STR_HELD)
        return NULL;
    memcpy(len, t->arena + OFFSET(*v), 4);
    return t->arena + OFFSET(*v) + 4;
}

void hs_strtab_release(hs_strtab *t, uint64_t id)
{
    uint64_t *v = hs_idmap_get(&t->map, id);

    if (v && STATE(*v) == HS_STR_HELD) {
        kill_text(t, *v);
        *v = HS_STR_EMITTED;
    }
}
