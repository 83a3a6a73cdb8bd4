/*
 * rootq.c - see rootq.h.
 */
#include "rootq.h"

#include <string.h>

#include "alloc.h"

void hs_rootq_init(hs_rootq *q, const hs_alloc *a)
{
    memset(q, 0, sizeof *q);
    q->alloc = a;
    hs_idmap_init(&q->map, a);
}

void hs_rootq_free(hs_rootq *q)
{
    hs_idmap_free(&q->map);
    hs_free(q->alloc, q->slots);
    q->slots = NULL;
}

static hs_status new_slot(hs_rootq *q, uint32_t *ref)
{
    if (q->free_list) {
        *ref = q->free_list;
        q->free_list = q->slots[*ref - 1].next;
        return HS_OK;
    }
    if (q->nslots == q->cap) {
        uint32_t cap = q->cap ? q->cap * 2 : 1024;
        hs_root_slot *s;
        if (cap < q->cap)
            return HS_E_LIMIT;
        s = hs_realloc(q->alloc, q->slots, q->nslots * sizeof *s, cap * sizeof *s);
        if (!s)
            return HS_E_NOMEM;
        q->slots = s;
        q->cap = cap;
    }
    *ref = ++q->nslots;
    return HS_OK;
}

hs_status hs_rootq_add(hs_rootq *q, uint64_t id, const uint8_t *bytes, size_t len)
{
    uint64_t *v = hs_idmap_get(&q->map, id);
    uint32_t ref;
    hs_root_slot *s;
    hs_status st;

    if (len > HS_ROOT_MAX)
        return HS_E_USAGE;
    st = new_slot(q, &ref);
    if (st != HS_OK)
        return st;
    s = &q->slots[ref - 1];
    s->next = 0;
    s->len = (uint8_t)len;
    memcpy(s->bytes, bytes, len);
    if (v) { /* append to the id's chain, keeping arrival order */
        uint32_t last = (uint32_t)*v;
        q->slots[last - 1].next = ref;
        *v = (*v & ~(uint64_t)0xffffffffu) | ref;
    } else {
        st = hs_idmap_put(&q->map, id, (uint64_t)ref << 32 | ref);
        if (st != HS_OK) {
            s->next = q->free_list;
            q->free_list = ref;
            return st;
        }
    }
    q->count++;
    return HS_OK;
}

uint32_t hs_rootq_take(hs_rootq *q, uint64_t id)
{
    uint64_t *v;
    uint32_t first;

    if (!q->map.count)
        return 0;
    v = hs_idmap_get(&q->map, id);
    if (!v)
        return 0;
    first = (uint32_t)(*v >> 32);
    hs_idmap_remove(&q->map, id);
    return first;
}

uint32_t hs_rootq_take_any(hs_rootq *q)
{
    size_t i, n;

    if (!q->map.count) {
        q->cursor = 0;
        return 0;
    }
    /* resume where the last call stopped, so draining is linear; removal
     * may shift an entry back across the cursor, hence the full lap */
    for (n = 0, i = q->cursor; n < q->map.cap; n++, i = (i + 1) & (q->map.cap - 1))
        if (q->map.used[i]) {
            q->cursor = i;
            return hs_rootq_take(q, q->map.keys[i]);
        }
    return 0;
}

void hs_rootq_put_back(hs_rootq *q, uint32_t ref)
{
    q->slots[ref - 1].next = q->free_list;
    q->free_list = ref;
    q->count--;
}

size_t hs_rootq_bytes(const hs_rootq *q)
{
    return (size_t)q->cap * sizeof(hs_root_slot) + hs_idmap_bytes(&q->map);
}
