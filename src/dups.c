/*
 * dups.c - duplicate primitive arrays, found before scrubbing destroys the
 * evidence: analysts look for repeated strings and bitmaps to find waste.
 * Each payload is hashed with XXH3 (one call when it is in the read window,
 * chunk by chunk as it streams otherwise), and the hash, with the element
 * type and length, is looked up among those seen. The report holds counts,
 * types and lengths only, never content.
 */
#include <string.h>

#include "filter_impl.h"

/* The key of an array: its contents hash, mixed with type and length so
 * that equal bytes of other shapes do not count as copies. */
static uint64_t key_of(uint64_t hash, unsigned type, uint64_t payload)
{
    return hash ^ (type * 0x9E3779B97F4A7C15ull) ^ (payload * 0xC2B2AE3D27D4EB4Full);
}

hs_status hs_dups_begin(F *f, size_t hdr, uint64_t payload)
{
    if (hs_reader_avail(&f->rd) >= hdr + payload) {
        f->dup_hash = XXH3_64bits(hs_cur(f) + hdr, (size_t)payload);
        return HS_OK;
    }
    if (!f->dup_state && !(f->dup_state = XXH3_createState()))
        return hs_filter_io_fail(f, HS_E_NOMEM, "");
    XXH3_64bits_reset(f->dup_state);
    f->hashing = 1;
    return HS_OK;
}

hs_status hs_dups_end(F *f, unsigned type, uint64_t payload)
{
    uint64_t key, *seen, size_key, *waste;

    if (f->hashing) {
        f->dup_hash = XXH3_64bits_digest(f->dup_state);
        f->hashing = 0;
    }
    key = key_of(f->dup_hash, type, payload);
    seen = hs_idmap_get(&f->dup_seen, key);
    if (!seen) {
        if (hs_idmap_put(&f->dup_seen, key, 1) != HS_OK)
            return hs_filter_io_fail(f, HS_E_NOMEM, "");
        return hs_check_held(f);
    }
    f->st.dup_arrays[type]++;
    f->st.dup_bytes[type] += payload;
    size_key = (uint64_t)type << 56 | payload;
    waste = hs_idmap_get(&f->dup_sizes, size_key);
    if (waste)
        (*waste)++;
    else if (hs_idmap_put(&f->dup_sizes, size_key, 1) != HS_OK)
        return hs_filter_io_fail(f, HS_E_NOMEM, "");
    return HS_OK;
}

void hs_dups_top(const F *f, hs_stats *st)
{
    size_t i;
    int j, k;

    memset(st->dup_top, 0, sizeof st->dup_top);
    for (i = 0; i < f->dup_sizes.cap; i++) {
        uint64_t copies, len, wasted;
        if (!f->dup_sizes.used[i])
            continue;
        copies = f->dup_sizes.vals[i];
        len = f->dup_sizes.keys[i] & ((1ull << 56) - 1);
        wasted = copies * len;
        for (j = 0; j < 5 && st->dup_top[j].wasted >= wasted; j++)
            ;
        if (j == 5)
            continue;
        for (k = 4; k > j; k--)
            st->dup_top[k] = st->dup_top[k - 1];
        st->dup_top[j].type = (uint32_t)(f->dup_sizes.keys[i] >> 56);
        st->dup_top[j].length_bytes = len;
        st->dup_top[j].copies = copies;
        st->dup_top[j].wasted = wasted;
    }
}
