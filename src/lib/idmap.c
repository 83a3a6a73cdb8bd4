/* SPDX-License-Identifier: Apache-2.0 */
/*
 * idmap.c - see idmap.h.
 */
#include "idmap.h"

#include <assert.h>
#include <string.h>

#include "alloc.h"

static size_t slot_of(uint64_t key, size_t cap)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdull;
    key ^= key >> 33;
    return (size_t)key & (cap - 1);
}

void hs_idmap_init(hs_idmap *m, const hs_alloc *a)
{
    memset(m, 0, sizeof *m);
    m->alloc = a;
}

void hs_idmap_free(hs_idmap *m)
{
    hs_alloc_free(m->alloc, m->ents);
    hs_alloc_free(m->alloc, m->used);
    m->ents = NULL;
    m->used = NULL;
    m->cap = m->count = 0;
}

uint64_t *hs_idmap_get(const hs_idmap *m, uint64_t key)
{
    size_t i;

    if (!m->cap)
        return NULL;
    for (i = slot_of(key, m->cap); m->used[i]; i = (i + 1) & (m->cap - 1))
        if (m->ents[i].key == key)
            return &m->ents[i].val;
    return NULL;
}

void hs_idmap_prefetch(const hs_idmap *m, uint64_t key)
{
    size_t i;

    if (!m->cap)
        return;
    i = slot_of(key, m->cap);
    __builtin_prefetch(&m->used[i]);
    __builtin_prefetch(&m->ents[i]);
}

/* Puts `e` in the first free slot from its home. While the map doubles in
 * place its slots are free (0), settled (1) or still to be moved (2,
 * grow_in_place): `e` then takes the first slot from its home that is not
 * settled, and an entry still to be moved that was there is put in turn.
 * Only settled slots are ever passed over, and a settled slot stays so, so
 * every settled entry keeps an unbroken run of settled slots from its
 * home: it is found once the last entry has moved. */
static void settle(hs_idmap_entry *ents, uint8_t *used, size_t cap, hs_idmap_entry e)
{
    for (;;) {
        size_t i = slot_of(e.key, cap);
        hs_idmap_entry moved;

        while (used[i] == 1)
            i = (i + 1) & (cap - 1);
        if (!used[i]) {
            used[i] = 1;
            ents[i] = e;
            return;
        }
        moved = ents[i];
        used[i] = 1;
        ents[i] = e;
        e = moved;
    }
}

/* An unordered map doubles in place: its arrays grow by realloc (the C
 * library moves a large block by remapping its pages) and the entries are
 * put again within them. The copy into new arrays holds the old ones beside
 * the new, half as much memory again at the peak (a report's duplicate
 * table took 54 MiB at its 36 MiB cap), but its order of slots is the one
 * walks of other maps have always had. A failure leaves the map as it
 * was, in arrays that may be larger. */
static hs_status grow_in_place(hs_idmap *m, size_t cap)
{
    const size_t old = m->cap;
    hs_idmap_entry *ents;
    uint8_t *used;
    size_t i;

    assert(old && cap == 2 * old);
    if (!(ents = hs_realloc(m->alloc, m->ents, old * sizeof *ents, cap * sizeof *ents)))
        return HS_E_NOMEM;
    m->ents = ents;
    if (!(used = hs_realloc(m->alloc, m->used, old, cap)))
        return HS_E_NOMEM;
    m->used = used;
    memset(used + old, 0, cap - old);
    for (i = 0; i < old; i++)
        used[i] = (uint8_t)(used[i] * 2); /* every entry is to be moved */
    for (i = 0; i < old; i++)
        if (used[i] == 2) {
            used[i] = 0;
            settle(ents, used, cap, ents[i]);
        }
    m->cap = cap;
    return HS_OK;
}

static hs_status grow(hs_idmap *m)
{
    size_t cap = m->cap ? m->cap * 2 : HS_IDMAP_FIRST_CAP, i;
    hs_idmap_entry *ents;
    uint8_t *used;

    if (cap < m->cap || cap > SIZE_MAX / sizeof *ents)
        return HS_E_NOMEM;
    if (m->cap && m->unordered)
        return grow_in_place(m, cap);
    ents = hs_malloc(m->alloc, cap * sizeof *ents);
    used = hs_calloc(m->alloc, cap);
    if (!ents || !used) {
        hs_alloc_free(m->alloc, ents);
        hs_alloc_free(m->alloc, used);
        return HS_E_NOMEM;
    }
    for (i = 0; i < m->cap; i++)
        if (m->used[i])
            settle(ents, used, cap, m->ents[i]);
    hs_alloc_free(m->alloc, m->ents);
    hs_alloc_free(m->alloc, m->used);
    m->ents = ents;
    m->used = used;
    m->cap = cap;
    return HS_OK;
}

hs_status hs_idmap_put(hs_idmap *m, uint64_t key, uint64_t val)
{
    uint64_t *v = hs_idmap_get(m, key);

    if (v) {
        *v = val;
        return HS_OK;
    }
    return hs_idmap_put_new(m, key, val);
}

hs_status hs_idmap_put_new(hs_idmap *m, uint64_t key, uint64_t val)
{
    /* keep the load under 3/4 so probes stay short */
    if (hs_idmap_full(m)) {
        hs_status s = grow(m);
        if (s != HS_OK)
            return s;
    }
    settle(m->ents, m->used, m->cap, (hs_idmap_entry){key, val});
    m->count++;
    return HS_OK;
}

/* Empties slot i, pulling later entries of its probe run back into the
 * hole when their home slot does not lie cyclically in (hole, their slot]:
 * an entry only ever moves into the hole, which starts at i and moves on. */
static void remove_at(hs_idmap *m, size_t i)
{
    const size_t mask = m->cap - 1;
    size_t j;

    assert(m->used[i]);
    for (j = (i + 1) & mask; m->used[j]; j = (j + 1) & mask) {
        size_t home = slot_of(m->ents[j].key, m->cap);
        if (((j - home) & mask) >= ((j - i) & mask)) {
            m->ents[i] = m->ents[j];
            i = j;
        }
    }
    m->used[i] = 0;
    m->count--;
}

size_t hs_idmap_drop_below(hs_idmap *m, uint64_t min_val)
{
    size_t i, gone = 0;

    /* An entry moves only into a hole at or after the slot being looked at
     * (remove_at), so looking at that slot again until it keeps its entry
     * sees every entry; the ones pulled back across the table's end come
     * from slots seen already, and kept. */
    for (i = 0; i < m->cap; i++)
        while (m->used[i] && m->ents[i].val < min_val) {
            remove_at(m, i);
            gone++;
        }
    return gone;
}

void hs_idmap_remove(hs_idmap *m, uint64_t key)
{
    uint64_t val;

    hs_idmap_take(m, key, &val);
}

int hs_idmap_take(hs_idmap *m, uint64_t key, uint64_t *val)
{
    size_t mask = m->cap - 1, i;

    if (!m->cap)
        return 0;
    for (i = slot_of(key, m->cap); m->used[i]; i = (i + 1) & mask)
        if (m->ents[i].key == key)
            break;
    if (!m->used[i])
        return 0;
    *val = m->ents[i].val;
    remove_at(m, i);
    return 1;
}
