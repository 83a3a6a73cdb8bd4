/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dups.c - duplicate primitive arrays (see dups.h). Each payload is hashed
 * with XXH3 (one call when it is in the read window, chunk by chunk as it
 * streams otherwise), and the hash, with the element type and length, is
 * looked up among those seen. The report holds counts, types and lengths
 * only, never content.
 */
#include "dups.h"

#include <assert.h>
#include <string.h>

void hs_dups_init(hs_dups *d, const hs_alloc *a, uint64_t max_held)
{
    hs_idmap_init(&d->seen, a);
    d->seen.unordered = 1; /* only asked what is in it, and emptied of its
                              smallest: the largest table of a report */
    hs_idmap_init(&d->sizes, a);
    d->state = NULL;
    d->next = d->queued = 0;
    d->min_payload = HS_DUPS_MIN_PAYLOAD;
    d->max_bytes = max_held / 4 < HS_DUPS_TABLE_MAX ? max_held / 4 : HS_DUPS_TABLE_MAX;
}

void hs_dups_free(hs_dups *d)
{
    hs_idmap_free(&d->seen);
    hs_idmap_free(&d->sizes);
    if (d->state)
        XXH3_freeState(d->state);
    d->state = NULL;
}

/* The key of an array: its contents hash, mixed with type and length so
 * that equal bytes of other shapes do not count as copies. */
static uint64_t key_of(uint64_t hash, unsigned type, uint64_t payload)
{
    return hash ^ (type * 0x9E3779B97F4A7C15ull) ^ (payload * 0xC2B2AE3D27D4EB4Full);
}

hs_status hs_dups_begin(hs_dups *d, hs_ctx *c, const uint8_t *p, size_t avail, unsigned type,
                        uint64_t payload, uint64_t *hash, XXH3_state_t **tap)
{
    *tap = NULL;
    if (avail >= payload) {
        *hash = XXH3_64bits(p, (size_t)payload);
        /* the table is tens of MiB on a dump of many arrays: its line is
         * fetched while the payload moves, not waited for at the end */
        hs_idmap_prefetch(&d->seen, key_of(*hash, type, payload));
        return HS_OK;
    }
    if (!d->state && !(d->state = XXH3_createState()))
        return hs_fail_io(c, HS_E_NOMEM, "");
    XXH3_64bits_reset(d->state);
    *tap = d->state;
    return HS_OK;
}

static hs_status held_changed(hs_dups *d, hs_ctx *c)
{
    return hs_hold(c, HS_HOLD_DUPS, hs_idmap_bytes(&d->seen) + hs_idmap_bytes(&d->sizes));
}

/* Before a new array of `payload` bytes goes in: when the table would
 * grow past its cap, the smallest arrays leave it (min_payload doubles
 * until at most half of it is taken, so that this is rare). False when
 * the array is now too small to be kept itself. */
static int make_room(hs_dups *d, uint64_t payload)
{
    hs_idmap *m = &d->seen;

    if (!hs_idmap_full(m) || hs_idmap_bytes_grown(m) <= d->max_bytes)
        return 1;
    if (!m->cap) { /* a cap under the first table (max_held under 68 KiB) */
        d->min_payload = HS_DUPS_NONE;
        return 0;
    }
    /* (it ends: past the largest payload, 2^35 bytes, the table is empty) */
    while (m->count * 2 > m->cap) {
        d->min_payload *= 2;
        hs_idmap_drop_below(m, d->min_payload);
    }
    assert(!hs_idmap_full(m));
    return hs_dups_wants(d, payload);
}

/* Looks the array up, in the order the arrays came: counts it when it
 * repeats one, else keeps it. One that was wanted when it came but that a
 * full table has since put below min_payload is not compared (its earlier
 * copies may have left): unchecked, as if it had come after. */
static hs_status record(hs_dups *d, hs_ctx *c, const hs_dup_pending *a)
{
    const uint64_t key = a->key, payload = a->payload;
    const unsigned type = a->type;
    uint64_t size_key, *waste;

    if (!hs_dups_wants(d, payload)) {
        hs_dups_pass(c, payload);
        return HS_OK;
    }
    if (!hs_idmap_get(&d->seen, key)) {
        if (!make_room(d, payload))
            return HS_OK; /* compared, but too small to be kept now */
        if (hs_idmap_put_new(&d->seen, key, payload) != HS_OK)
            return hs_fail_io(c, HS_E_NOMEM, "");
        return held_changed(d, c);
    }
    c->st.dup_arrays[type]++;
    c->st.dup_bytes[type] += payload;
    size_key = (uint64_t)type << 56 | payload;
    waste = hs_idmap_get(&d->sizes, size_key);
    if (waste) {
        (*waste)++;
        return HS_OK;
    }
    if (hs_idmap_put(&d->sizes, size_key, 1) != HS_OK)
        return hs_fail_io(c, HS_E_NOMEM, "");
    return held_changed(d, c);
}

/* The oldest array of the queue, recorded and let go. */
static hs_status record_oldest(hs_dups *d, hs_ctx *c)
{
    hs_status s;

    assert(d->queued > 0);
    s = record(d, c, &d->queue[d->next]);
    d->next = (d->next + 1) % HS_DUPS_AHEAD;
    d->queued--;
    return s;
}

hs_status hs_dups_end(hs_dups *d, hs_ctx *c, unsigned type, uint64_t payload, uint64_t hash,
                      XXH3_state_t *tap)
{
    hs_dup_pending *a;
    hs_status s = HS_OK;

    if (tap) /* the payload streamed: its hash is the state's digest */
        hash = XXH3_64bits_digest(tap);
    assert(hs_dups_wants(d, payload));
    /* A lookup in a table of tens of MiB waits for memory: each array's
     * key goes in a queue, its line prefetched (hs_dups_begin), and is
     * looked up HS_DUPS_AHEAD arrays later, the line there by then. */
    if (d->queued == HS_DUPS_AHEAD)
        s = record_oldest(d, c);
    a = &d->queue[(d->next + d->queued) % HS_DUPS_AHEAD];
    a->key = key_of(hash, type, payload);
    a->payload = payload;
    a->type = type;
    if (tap)
        hs_idmap_prefetch(&d->seen, a->key);
    d->queued++;
    return s;
}

hs_status hs_dups_flush(hs_dups *d, hs_ctx *c)
{
    hs_status s = HS_OK;

    while (d->queued) {
        hs_status r = record_oldest(d, c);
        if (s == HS_OK)
            s = r;
    }
    return s;
}

void hs_dups_top(const hs_dups *d, hs_stats *st)
{
    size_t i;
    int j, k;

    memset(st->dup_top, 0, sizeof st->dup_top);
    for (i = 0; i < d->sizes.cap; i++) {
        uint64_t copies, len, wasted;
        if (!d->sizes.used[i])
            continue;
        copies = d->sizes.ents[i].val;
        len = d->sizes.ents[i].key & ((1ull << 56) - 1);
        wasted = copies * len;
        for (j = 0; j < 5 && st->dup_top[j].wasted >= wasted; j++)
            ;
        if (j == 5)
            continue;
        for (k = 4; k > j; k--)
            st->dup_top[k] = st->dup_top[k - 1];
        st->dup_top[j].type = (uint32_t)(d->sizes.ents[i].key >> 56);
        st->dup_top[j].length_bytes = len;
        st->dup_top[j].copies = copies;
        st->dup_top[j].wasted = wasted;
    }
}
