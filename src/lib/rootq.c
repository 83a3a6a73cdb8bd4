/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rootq.c - see rootq.h.
 */
#include "rootq.h"

#include <assert.h>
#include <stddef.h>
#include <string.h>

#include "alloc.h"
#include "hs_port.h"

/* Frees the sort's scratch (see scratch_fit). */
static void scratch_free(hs_rootq *q)
{
    hs_alloc_free(q->alloc, q->scratch);
    q->scratch = NULL;
    q->scratch_bytes = 0;
}

/* Frees the block's entries (rootq.h), whether or not all its roots were
 * taken. Its log goes when its last root is handed back (hs_rootq_put_back):
 * roots taken may still be read. */
static void block_free(hs_rootq *q)
{
    hs_alloc_free(q->alloc, q->blk);
    hs_alloc_free(q->alloc, q->wblk);
    scratch_free(q);
    q->blk = NULL;
    q->wblk = NULL;
    q->nblk = q->blk_cap = q->blk_left = q->blk_ready = 0;
}

static void log_free(hs_rootq *q)
{
    hs_alloc_free(q->alloc, q->log);
    q->log = NULL;
    q->log_len = q->log_cap = q->log_ready = 0;
}

void hs_rootq_init(hs_rootq *q, const hs_alloc *a)
{
    memset(q, 0, sizeof *q);
    q->alloc = a;
    hs_idmap_init(&q->map, a);
    hs_idmap_init(&q->dir, a);
    q->last_key = UINT64_MAX;
    q->open = 1;
}

void hs_rootq_free(hs_rootq *q)
{
    size_t i;

    hs_idmap_free(&q->map);
    hs_idmap_free(&q->dir);
    for (i = 0; i < q->npages; i++)
        hs_alloc_free(q->alloc, q->pages[i]);
    hs_alloc_free(q->alloc, q->pages);
    hs_alloc_free(q->alloc, q->slots);
    block_free(q);
    log_free(q);
    q->log_live = 0;
    q->slots = NULL;
    q->pages = NULL;
    q->npages = q->pages_cap = 0;
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
        if (cap > HS_ROOTQ_LOGGED) /* refs above are the log's */
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

/* What last_page names when the page looked up last has no root: the
 * inline lookup (rootq.h) then reads a zero bit where it would otherwise
 * call out for every object of a page without roots. */
static const uint64_t no_page[HS_ROOTQ_PAGE_BITS / 64];

/* The bitmap page of `id`, or NULL when no root of its page was held. */
static uint64_t *page_of(hs_rootq *q, uint64_t id)
{
    uint64_t key = id >> HS_ROOTQ_PAGE_SHIFT, *v;

    if (key != q->last_key) {
        v = hs_idmap_get(&q->dir, key);
        q->last_key = key;
        q->last_page = v ? q->pages[*v - 1] : no_page;
    }
    /* pages[] holds the writable pointer: only no_page is const */
    return q->last_page == no_page ? NULL : (uint64_t *)(uintptr_t)q->last_page;
}

static uint64_t bit_of(uint64_t id)
{
    return 1ull << ((id >> 3) & 63);
}

static size_t word_of(uint64_t id)
{
    return (size_t)(id >> 9) & (HS_ROOTQ_PAGE_BITS / 64 - 1);
}

/* True when the bit of `id` is set: a root may be held for it in the
 * recent list or the map, or it is watched. */
static int bit_set(hs_rootq *q, uint64_t id)
{
    const uint64_t *page = page_of(q, id);

    return page && (page[word_of(id)] & bit_of(id));
}

/* ---- the block ---------------------------------------------------------- */

/* Faults in the whole pages of p[0..n) at once, ahead of their first
 * writes: one call where each page would fault on its own, which is what
 * filling the block cost most (a fault per 4 KiB, some microseconds each
 * on a virtual machine). Only a hint: memory that cannot be populated
 * faults as it is written. */
#define POPULATE_STEP ((size_t)1 << 18)
static void populate(void *p, size_t n)
{
    hs_port_populate_write(p, n);
}

/* Entry k's id and ref (0 once taken), in whichever form the block has. */
static inline uint64_t ent_key(const hs_rootq *q, size_t k)
{
    return q->wide ? q->wblk[k].key : q->blk[k] >> 32;
}

static inline uint32_t ent_ref(const hs_rootq *q, size_t k)
{
    return q->wide ? (uint32_t)q->wblk[k].val : (uint32_t)q->blk[k];
}

static inline void ent_set(hs_rootq *q, size_t k, uint64_t key, uint32_t ref)
{
    if (q->wide) {
        q->wblk[k].key = key;
        q->wblk[k].val = ref;
    } else {
        q->blk[k] = key << 32 | ref;
    }
}

/* The log's slot size for a root of `len` bytes: its fields, rounded up to
 * 4 (refs count 4-byte units, and `next` stays aligned). */
static size_t log_size(size_t len)
{
    return (offsetof(hs_root_slot, bytes) + len + 3) & ~(size_t)3;
}

/* Appends root `bytes[0..len)` to the log as a slot of its own size; its
 * ref in *ref. Room for a whole hs_root_slot is kept past the end, so the
 * copy is of a constant size, and reading a slot's fields never reaches
 * past the allocation. */
static hs_status log_add(hs_rootq *q, const uint8_t *bytes, size_t len, uint32_t *ref)
{
    hs_root_slot *s;

    if (q->log_len / 4 >= HS_ROOTQ_LOGGED - 1)
        return HS_E_LIMIT;
    if (q->log_cap - q->log_len < sizeof *s) {
        size_t cap = q->log_cap ? q->log_cap * 2 : 16384;
        uint8_t *l = hs_realloc(q->alloc, q->log, q->log_len, cap);
        if (!l)
            return HS_E_NOMEM;
        q->log = l;
        q->log_cap = cap;
        q->log_ready = q->log_len;
    }
    if (q->log_len + sizeof *s > q->log_ready) { /* the next step, faulted in */
        size_t to = q->log_cap - q->log_len < POPULATE_STEP ? q->log_cap : q->log_len + POPULATE_STEP;
        populate(q->log + q->log_len, to - q->log_len);
        q->log_ready = to;
    }
    s = (hs_root_slot *)(void *)(q->log + q->log_len);
    s->next = 0;
    s->len = (uint8_t)len;
    memcpy(s->bytes, bytes, HS_ROOT_MAX); /* a constant size: no call */
    *ref = HS_ROOTQ_LOGGED | (uint32_t)(q->log_len / 4);
    q->log_len += log_size(len);
    q->log_live++;
    return HS_OK;
}

/* The sort's scratch (scratch_free, at the top) is as large as the
 * entries: allocated as they grow, so that closing the block cannot fail,
 * but written only by the sort (it takes no memory before), and freed once
 * the block is closed. */

static hs_status scratch_fit(hs_rootq *q)
{
    const size_t need = q->blk_cap * (q->wide ? sizeof(hs_idmap_entry) : sizeof(uint64_t));

    if (q->scratch_bytes >= need)
        return HS_OK;
    scratch_free(q); /* nothing in it to keep */
    if (!(q->scratch = hs_malloc(q->alloc, need)))
        return HS_E_NOMEM;
    q->scratch_bytes = need;
    return HS_OK;
}

/* The open block's entries as {id, ref}: an id past 32 bits came. */
static hs_status widen(hs_rootq *q)
{
    hs_idmap_entry *w = q->blk_cap ? hs_malloc(q->alloc, q->blk_cap * sizeof *w) : NULL;
    size_t k;

    if (q->blk_cap && !w)
        return HS_E_NOMEM;
    for (k = 0; k < q->nblk; k++) {
        w[k].key = q->blk[k] >> 32;
        w[k].val = (uint32_t)q->blk[k];
    }
    hs_alloc_free(q->alloc, q->blk);
    q->blk = NULL;
    q->wblk = w;
    q->wide = 1;
    q->blk_ready = q->nblk;
    return scratch_fit(q);
}

static hs_status block_add(hs_rootq *q, uint64_t id, uint32_t ref)
{
    hs_status st;

    if (id > UINT32_MAX && !q->wide && (st = widen(q)) != HS_OK)
        return st;
    if (q->nblk == q->blk_cap) {
        const size_t esize = q->wide ? sizeof(hs_idmap_entry) : sizeof(uint64_t);
        size_t cap = q->blk_cap ? q->blk_cap * 2 : 1024;
        void *b;
        if (cap > SIZE_MAX / esize)
            return HS_E_LIMIT;
        b = hs_realloc(q->alloc, q->wide ? (void *)q->wblk : (void *)q->blk, q->nblk * esize,
                       cap * esize);
        if (!b)
            return HS_E_NOMEM;
        if (q->wide)
            q->wblk = b;
        else
            q->blk = b;
        q->blk_cap = cap;
        q->blk_ready = q->nblk;
        if ((st = scratch_fit(q)) != HS_OK)
            return st;
    }
    if (q->nblk == q->blk_ready) { /* the next step, faulted in */
        const size_t esize = q->wide ? sizeof(hs_idmap_entry) : sizeof(uint64_t);
        const size_t step = POPULATE_STEP / esize;
        size_t to = q->blk_cap - q->nblk < step ? q->blk_cap : q->nblk + step;
        populate(q->wide ? (void *)(q->wblk + q->nblk) : (void *)(q->blk + q->nblk),
                 (to - q->nblk) * esize);
        q->blk_ready = to;
    }
    ent_set(q, q->nblk, id, ref);
    q->nblk++;
    if (id - q->win_lo < q->win_hi - q->win_lo) /* asked while the block was empty */
        q->win_lo = q->win_hi = 0;
    return HS_OK;
}

/* Sorts a[0..n) by key, keeping the order of equal keys, through tmp[0..n):
 * 11 bits at a time (LSD radix), over the bits in which the keys differ.
 * ART's ids are 8-aligned 32-bit addresses: three passes. The entries are
 * {key, ref} (wide) or key << 32 | ref. */
#define RADIX_BITS 11
#define RADIX_SORT(name, type, KEY)                                                          \
    static void name(type *a, type *tmp, size_t n)                                           \
    {                                                                                        \
        const size_t buckets = (size_t)1 << RADIX_BITS;                                      \
        type *from = a, *to = tmp, *t;                                                       \
        uint64_t differ = 0;                                                                 \
        size_t i;                                                                            \
        unsigned shift;                                                                      \
                                                                                             \
        for (i = 1; i < n; i++)                                                              \
            differ |= KEY(a[i]) ^ KEY(a[0]);                                                 \
        if (!differ)                                                                         \
            return;                                                                          \
        for (shift = (unsigned)__builtin_ctzll(differ); shift < 64 && differ >> shift;       \
             shift += RADIX_BITS) {                                                          \
            size_t at = 0, c, cnt[(size_t)1 << RADIX_BITS]; /* then where each goes */       \
            const uint64_t mask = buckets - 1;                                               \
            memset(cnt, 0, sizeof cnt);                                                      \
            for (i = 0; i < n; i++)                                                          \
                cnt[KEY(from[i]) >> shift & mask]++;                                         \
            for (i = 0; i < buckets; i++) {                                                  \
                c = cnt[i];                                                                  \
                cnt[i] = at;                                                                 \
                at += c;                                                                     \
            }                                                                                \
            for (i = 0; i < n; i++)                                                          \
                to[cnt[KEY(from[i]) >> shift & mask]++] = from[i];                           \
            t = from, from = to, to = t;                                                     \
        }                                                                                    \
        if (from != a)                                                                       \
            memcpy(a, from, n * sizeof *a);                                                  \
    }
#define NARROW_KEY(e) ((e) >> 32)
#define WIDE_KEY(e) ((e).key)
RADIX_SORT(radix_sort, uint64_t, NARROW_KEY)
RADIX_SORT(radix_sort_wide, hs_idmap_entry, WIDE_KEY)

/* Closes the block: sorts it, chains the roots of each id in the order
 * they came, and keeps one entry per id. */
static void block_close(hs_rootq *q)
{
    const size_t esize = q->wide ? sizeof *q->wblk : sizeof *q->blk;
    size_t i, n = 0;
    uint32_t last = 0;

    q->open = 0;
    if (q->blk_drain) { /* some went out already (hs_rootq_take_any) */
        q->nblk -= q->blk_drain;
        if (q->wide)
            memmove(q->wblk, q->wblk + q->blk_drain, q->nblk * esize);
        else
            memmove(q->blk, q->blk + q->blk_drain, q->nblk * esize);
    }
    if (q->nblk > 1) {
        populate(q->scratch, q->nblk * esize);
        if (q->wide)
            radix_sort_wide(q->wblk, q->scratch, q->nblk);
        else
            radix_sort(q->blk, q->scratch, q->nblk);
    }
    scratch_free(q); /* the block stays closed */
    for (i = 0; i < q->nblk; i++) {
        const uint64_t key = ent_key(q, i);
        const uint32_t ref = ent_ref(q, i);
        if (n && ent_key(q, n - 1) == key) /* append to the id's chain */
            hs_rootq_slot(q, last)->next = ref;
        else
            ent_set(q, n++, key, ref);
        last = ref;
    }
    q->nblk = q->blk_left = n;
    q->blk_cur = q->blk_drain = 0;
}

/* The first block entry not below `id`, searched from where the last
 * search ended: objects come in address order, so it is mostly that entry
 * or the next. A gallop either way, then a binary search. */
static size_t block_seek(hs_rootq *q, uint64_t id)
{
    size_t lo, hi, step, k = q->blk_cur, n = q->nblk;

    if (k < n && ent_key(q, k) < id) { /* ahead: the answer lies in (k, n] */
        lo = k + 1;
        for (step = 1; lo + step - 1 < n && ent_key(q, lo + step - 1) < id; step *= 2)
            lo += step;
        hi = lo + step - 1 < n ? lo + step - 1 : n;
    } else { /* here or behind: in [0, k] */
        hi = k < n ? k : n;
        for (step = 1; hi >= step && ent_key(q, hi - step) >= id; step *= 2)
            hi -= step;
        lo = hi >= step ? hi - step + 1 : 0;
    }
    while (lo < hi) { /* b[lo - 1] < id <= b[hi], where they exist */
        size_t mid = lo + (hi - lo) / 2;
        if (ent_key(q, mid) < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return q->blk_cur = lo;
}

#define NOT_IN_BLOCK SIZE_MAX

/* The block entry of `id` with roots not taken, or NOT_IN_BLOCK: closes an
 * open block. */
static size_t block_find(hs_rootq *q, uint64_t id)
{
    size_t k;

    if (q->open) {
        if (!q->nblk)
            return NOT_IN_BLOCK;
        block_close(q);
    }
    if (!q->blk_left)
        return NOT_IN_BLOCK;
    k = block_seek(q, id);
    return k < q->nblk && ent_key(q, k) == id && ent_ref(q, k) ? k : NOT_IN_BLOCK;
}

/* Takes block entry `k`: its first ref, the entries freed when it was the
 * last. */
static uint32_t block_take(hs_rootq *q, size_t k)
{
    const uint32_t first = ent_ref(q, k);

    ent_set(q, k, ent_key(q, k), 0);
    if (!--q->blk_left)
        block_free(q);
    return first;
}

/* How far hs_rootq_clear_slow() looks for the next set bit: 16 words,
 * 8 KiB of id space, so a miss costs a few dozen instructions however the
 * ids jump about. */
#define WINDOW_WORDS 16

/* The range of ids around `id` with no bit set, [*lo, *hi), or 0 when
 * id's bit is set. */
static int bits_clear(hs_rootq *q, uint64_t id, uint64_t *lo, uint64_t *hi)
{
    const uint64_t *page = page_of(q, id);
    const uint64_t key = id >> HS_ROOTQ_PAGE_SHIFT, base = key << HS_ROOTQ_PAGE_SHIFT;
    const unsigned words = HS_ROOTQ_PAGE_BITS / 64;
    unsigned w = (unsigned)word_of(id), end, b;
    uint64_t m;

    if (!page) { /* no bit in the whole page */
        *lo = base;
        *hi = base + ((uint64_t)1 << HS_ROOTQ_PAGE_SHIFT);
        return 1;
    }
    b = (unsigned)(id >> 3) & 63;
    if (page[w] >> b & 1)
        return 0;
    /* the range runs from id's 8 bytes to the next set bit, or as far as
     * the search goes */
    *lo = id & ~(uint64_t)7;
    end = w + WINDOW_WORDS < words ? w + WINDOW_WORDS : words;
    for (m = page[w] & (~(uint64_t)0 << b); !m && ++w < end;)
        m = page[w];
    *hi = base + ((uint64_t)w * 64 + (m ? (unsigned)__builtin_ctzll(m) : 0)) * 8;
    /* the object at the range's end likely has roots held: their chain is
     * then in cache when it comes, some dozens of objects on */
    if (m)
        hs_idmap_prefetch(&q->map, *hi);
    return 1;
}

int hs_rootq_clear_slow(hs_rootq *q, uint64_t id)
{
    uint64_t lo, hi, blo, bhi;
    size_t k;
    unsigned i;

    if (!bits_clear(q, id, &lo, &hi))
        return 0;
    if (hi < lo) /* the top page's range ends past the id space */
        hi = UINT64_MAX;
    if (block_find(q, id) != NOT_IN_BLOCK)
        return 0;
    if (q->blk_left) { /* narrowed to the gap between two entries */
        k = q->blk_cur;
        blo = k ? ent_key(q, k - 1) + 1 : 0;
        bhi = k < q->nblk ? ent_key(q, k) : UINT64_MAX;
        lo = lo > blo ? lo : blo;
        hi = hi < bhi ? hi : bhi;
    }
    for (i = 0; i < q->n_recent; i++) { /* and to leave out the recent ids */
        const uint64_t r = q->recent_id[i];
        if (r == id)
            return 0;
        if (r < id && r >= lo)
            lo = r + 1;
        else if (r > id && r < hi)
            hi = r;
    }
    hi = hi > lo ? hi : lo;
    q->win_lo = lo;
    q->win_hi = hi;
    return 1;
}

static hs_status filter_add(hs_rootq *q, uint64_t id)
{
    uint64_t *page = page_of(q, id), *fresh;

    if (!page) {
        if (q->npages == q->pages_cap) {
            size_t cap = q->pages_cap ? q->pages_cap * 2 : 64;
            uint64_t **p = hs_realloc(q->alloc, q->pages, q->npages * sizeof *p,
                                      cap * sizeof *p);
            if (!p)
                return HS_E_NOMEM;
            q->pages = p;
            q->pages_cap = cap;
        }
        fresh = hs_calloc(q->alloc, HS_ROOTQ_PAGE_BITS / 8);
        if (!fresh)
            return HS_E_NOMEM;
        if (hs_idmap_put(&q->dir, id >> HS_ROOTQ_PAGE_SHIFT, q->npages + 1) != HS_OK) {
            hs_alloc_free(q->alloc, fresh);
            return HS_E_NOMEM;
        }
        q->pages[q->npages++] = fresh;
        q->last_key = id >> HS_ROOTQ_PAGE_SHIFT;
        q->last_page = page = fresh;
    }
    page[word_of(id)] |= bit_of(id);
    if (id - q->win_lo < q->win_hi - q->win_lo)
        q->win_lo = q->win_hi = 0;
    return HS_OK;
}

hs_status hs_rootq_watch(hs_rootq *q, uint64_t id)
{
    return filter_add(q, id);
}

/* The chain word of `id` in the recent list or the map, or NULL; else, in
 * *k, its block entry (NOT_IN_BLOCK when none). */
static uint64_t *find(hs_rootq *q, uint64_t id, size_t *k)
{
    unsigned i;

    *k = NOT_IN_BLOCK;
    for (i = q->n_recent; i-- > 0;) /* newest first: ART's roots come just before their object */
        if (q->recent_id[i] == id)
            return &q->recent_chain[i];
    if ((*k = block_find(q, id)) != NOT_IN_BLOCK)
        return NULL;
    if (!q->map.count || !bit_set(q, id))
        return NULL;
    return hs_idmap_get(&q->map, id);
}

/* Starts a chain for a new id in the recent list, moving the oldest entry
 * of a full list to the map. Only ids that reach the map get their bit:
 * most roots held after the block go out with their object a few
 * sub-records on, and would otherwise spread bitmap pages over the heap. */
static hs_status insert(hs_rootq *q, uint64_t id, uint64_t chain)
{
    hs_status st;

    if (q->n_recent == HS_ROOTQ_RECENT) {
        /* not in the map: find() looks in the list first */
        st = filter_add(q, q->recent_id[0]);
        if (st == HS_OK)
            st = hs_idmap_put_new(&q->map, q->recent_id[0], q->recent_chain[0]);
        if (st != HS_OK)
            return st;
        memmove(q->recent_id, q->recent_id + 1, (HS_ROOTQ_RECENT - 1) * sizeof(uint64_t));
        memmove(q->recent_chain, q->recent_chain + 1, (HS_ROOTQ_RECENT - 1) * sizeof(uint64_t));
        q->n_recent--;
    }
    q->recent_id[q->n_recent] = id;
    q->recent_chain[q->n_recent] = chain;
    q->n_recent++;
    if (id - q->win_lo < q->win_hi - q->win_lo)
        q->win_lo = q->win_hi = 0;
    /* the id moves to the map HS_ROOTQ_RECENT inserts on, unless its object
     * comes first: a random slot of a large map, loaded from now on */
    hs_idmap_prefetch(&q->map, id);
    return HS_OK;
}

hs_status hs_rootq_add(hs_rootq *q, uint64_t id, const uint8_t *bytes, size_t len)
{
    uint64_t *v;
    uint32_t ref, last;
    hs_root_slot *s;
    hs_status st;
    size_t k;

    if (len > HS_ROOT_MAX)
        return HS_E_USAGE;
    if (q->open) { /* no lookup yet: chained when the block closes */
        if ((st = log_add(q, bytes, len, &ref)) != HS_OK)
            return st;
        if ((st = block_add(q, id, ref)) != HS_OK) { /* the log's last slot unused */
            q->log_len -= log_size(len);
            q->log_live--;
            return st;
        }
        if (++q->count > q->peak)
            q->peak = q->count;
        return HS_OK;
    }
    st = new_slot(q, &ref);
    if (st != HS_OK)
        return st;
    s = &q->slots[ref - 1];
    s->next = 0;
    s->len = (uint8_t)len;
    memcpy(s->bytes, bytes, HS_ROOT_MAX); /* a constant size: no call */
    if ((v = find(q, id, &k)) != NULL) { /* append to the id's chain, keeping arrival order */
        last = (uint32_t)*v;
        hs_rootq_slot(q, last)->next = ref;
        *v = (*v & ~(uint64_t)0xffffffffu) | ref;
    } else if (k != NOT_IN_BLOCK) { /* a block chain: its last root is found */
        for (last = ent_ref(q, k); hs_rootq_slot(q, last)->next;)
            last = hs_rootq_slot(q, last)->next;
        hs_rootq_slot(q, last)->next = ref;
    } else {
        st = insert(q, id, (uint64_t)ref << 32 | ref);
    }
    if (st != HS_OK) {
        s->next = q->free_list;
        q->free_list = ref;
        return st;
    }
    if (++q->count > q->peak)
        q->peak = q->count;
    return HS_OK;
}

uint32_t hs_rootq_take(hs_rootq *q, uint64_t id)
{
    uint64_t chain;
    uint32_t first;
    unsigned i;
    size_t k;

    for (i = q->n_recent; i-- > 0;)
        if (q->recent_id[i] == id) {
            first = (uint32_t)(q->recent_chain[i] >> 32);
            for (q->n_recent--; i < q->n_recent; i++) { /* mostly none: the newest */
                q->recent_id[i] = q->recent_id[i + 1];
                q->recent_chain[i] = q->recent_chain[i + 1];
            }
            return first;
        }
    if ((k = block_find(q, id)) != NOT_IN_BLOCK)
        return block_take(q, k);
    if (!q->map.count || !bit_set(q, id) || !hs_idmap_take(&q->map, id, &chain))
        return 0;
    return (uint32_t)(chain >> 32);
}

uint32_t hs_rootq_peek(hs_rootq *q, uint64_t id)
{
    size_t k;
    const uint64_t *v = find(q, id, &k);

    return v ? (uint32_t)(*v >> 32) : k != NOT_IN_BLOCK ? ent_ref(q, k) : 0;
}

uint32_t hs_rootq_take_any(hs_rootq *q)
{
    size_t i, n;

    if (q->n_recent)
        return hs_rootq_take(q, q->recent_id[0]);
    if (q->open) { /* never asked about: out in the order they came */
        if (q->blk_drain < q->nblk)
            return ent_ref(q, q->blk_drain++);
        q->nblk = q->blk_drain = 0;
    }
    for (; q->blk_left; q->blk_drain++) /* in id order */
        if (ent_ref(q, q->blk_drain))
            return block_take(q, q->blk_drain);
    if (!q->map.count) {
        q->cursor = 0;
        return 0;
    }
    /* resume where the last call stopped, so draining is linear; removal
     * may shift an entry back across the cursor, hence the full lap */
    for (n = 0, i = q->cursor; n < q->map.cap; n++, i = (i + 1) & (q->map.cap - 1))
        if (q->map.used[i]) {
            q->cursor = i;
            return hs_rootq_take(q, q->map.ents[i].key);
        }
    return 0;
}

void hs_rootq_put_back(hs_rootq *q, uint32_t ref)
{
    q->count--;
    if (ref & HS_ROOTQ_LOGGED) { /* the log goes with its last root */
        assert(q->log_live > 0);
        if (!--q->log_live)
            log_free(q);
        return;
    }
    q->slots[ref - 1].next = q->free_list;
    q->free_list = ref;
}
