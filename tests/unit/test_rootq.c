/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_rootq.c - the held-root queue's id sets (src/lib/rootq.c, src/lib/idmap.c):
 * the range a run skips the lookup in (hs_rootq_clear) never holds an id
 * with roots held or watched, however ids arrive; the block keeps each id's
 * roots in arrival order; the map's one-probe insert and take agree with a
 * plain array.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "count_alloc.h"
#include "idmap.h"
#include "rootq.h"

static const uint8_t root_bytes[HS_ROOT_MAX] = {0xFF, 0, 0, 0, 1};
static hs_alloc mem; /* malloc and free */

static void start(void)
{
    hs_alloc_init(&mem, NULL);
}

/* xorshift: the same ids on every run */
static uint64_t next_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

/* True when sorted `ids[0..n)` holds `id`. */
static int id_in(const uint64_t *ids, size_t n, uint64_t id)
{
    return bsearch(&id, ids, n, sizeof id, cmp_u64) != NULL;
}

Test(rootq, clear_around_held_and_watched_ids, .init = start)
{
    hs_rootq q;

    hs_rootq_init(&q, &mem);
    cr_expect(hs_rootq_clear(&q, 0x1000), "nothing held: every id is clear");
    cr_assert_eq(hs_rootq_add(&q, 0x1000, root_bytes, 5), HS_OK);
    cr_assert_eq(hs_rootq_add(&q, 0x1400, root_bytes, 5), HS_OK);
    /* the first question closes the block */
    cr_expect(!hs_rootq_clear(&q, 0x1000));
    cr_expect(hs_rootq_clear(&q, 0x1004), "block ids are exact");
    cr_expect(hs_rootq_clear(&q, 0xff8));
    cr_expect(hs_rootq_clear(&q, 0x1008));
    cr_expect(!hs_rootq_clear(&q, 0x1400), "the range from 0x1008 stops at the next entry");
    /* after the block: the recent list, then the map and its bits */
    cr_assert_eq(hs_rootq_add(&q, 0x1010, root_bytes, 5), HS_OK);
    cr_expect(!hs_rootq_clear(&q, 0x1010), "an id added inside the last range");
    cr_expect(hs_rootq_clear(&q, 0x1018));
    /* a recent id below and above the one asked, in a page of no bits */
    cr_assert_eq(hs_rootq_add(&q, 0x800100, root_bytes, 5), HS_OK);
    cr_assert_eq(hs_rootq_add(&q, 0x800300, root_bytes, 5), HS_OK);
    cr_expect(hs_rootq_clear(&q, 0x800200));
    cr_expect(!hs_rootq_clear(&q, 0x800100), "a recent id below the last range");
    cr_expect(hs_rootq_clear(&q, 0x800200));
    cr_expect(!hs_rootq_clear(&q, 0x800300), "a recent id above the last range");
    cr_assert_eq(hs_rootq_watch(&q, 0x1800), HS_OK);
    cr_expect(!hs_rootq_clear(&q, 0x1800), "a watched id inside the last range");
    cr_expect(!hs_rootq_clear(&q, 0x1804), "a watched id's 8 bytes");
    cr_expect(hs_rootq_clear(&q, 0x1808));
    /* ids at the top of the id space, where the bitmap's ranges end */
    cr_assert_eq(hs_rootq_add(&q, UINT64_MAX - 7, root_bytes, 5), HS_OK);
    cr_expect(!hs_rootq_clear(&q, UINT64_MAX - 7));
    cr_expect(hs_rootq_clear(&q, UINT64_MAX - 15));
    cr_expect(hs_rootq_clear(&q, 0));
    /* roots taken are gone from the block, the list and the map */
    cr_expect_neq(hs_rootq_take(&q, 0x1000), 0);
    cr_expect_eq(hs_rootq_take(&q, 0x1000), 0);
    cr_expect(hs_rootq_clear(&q, 0x1000));
    cr_expect_neq(hs_rootq_take(&q, 0x1010), 0);
    cr_expect_eq(hs_rootq_take(&q, 0x1010), 0);
    cr_expect_neq(hs_rootq_take(&q, UINT64_MAX - 7), 0);
    cr_expect(!hs_rootq_clear(&q, 0x1400), "still held");
    hs_rootq_free(&q);
}

/* Random ids, dense and sparse, in the block and after it, some spilled
 * from the recent list to the map, asked in address order (as ART writes)
 * and at random: an id reported clear never has roots held or watched. */
Test(rootq, clear_never_hides_an_id, .init = start)
{
    enum { N = 6000, W = 4000 };
    static uint64_t held[N], sorted[N], walk[W + N];
    hs_rootq q;
    uint64_t s = 0x9E3779B97F4A7C15ull, base = 0x12c00000, id, wrong = 0, asked = 0, hits = 0;
    size_t n = 0, k;

    hs_rootq_init(&q, &mem);
    for (k = 0; k < 40; k++) {
        /* hold some ids (the first round is the block), some far apart,
         * some of the same 8 bytes */
        size_t add = 1 + next_rand(&s) % (k ? 100 : 2000), j, nw = 0, m;
        for (j = 0; j < add && n < N; j++) {
            id = base + (next_rand(&s) % (1u << 24) & ~(uint64_t)(next_rand(&s) & 1 ? 7 : 3));
            if (j % 7 == 0)
                cr_assert_eq(hs_rootq_watch(&q, id), HS_OK);
            else
                cr_assert_eq(hs_rootq_add(&q, id, root_bytes, 5), HS_OK);
            held[n++] = id;
        }
        memcpy(sorted, held, n * sizeof *held);
        qsort(sorted, n, sizeof sorted[0], cmp_u64);
        /* a walk in address order over part of the range, through the
         * held ids in it and others near them */
        for (id = base + next_rand(&s) % (1u << 24); id < base + (1u << 24) && nw < W;
             id += 8 + next_rand(&s) % 120)
            walk[nw++] = id;
        for (m = 0; m < n; m++)
            if (nw && sorted[m] >= walk[0])
                walk[nw++] = sorted[m] + (next_rand(&s) % 3 == 0 ? 4 : 0);
        qsort(walk, nw, sizeof walk[0], cmp_u64);
        for (m = 0; m < nw; m++) {
            asked++;
            hits += id_in(sorted, n, walk[m]);
            if (hs_rootq_clear(&q, walk[m]) && id_in(sorted, n, walk[m]))
                wrong++;
        }
        /* and ids at random, held ones among them */
        for (j = 0; j < 2000; j++) {
            id = j % 4 ? base + next_rand(&s) % (1u << 24) : held[next_rand(&s) % n];
            asked++;
            hits += id_in(sorted, n, id);
            if (hs_rootq_clear(&q, id) && id_in(sorted, n, id))
                wrong++;
        }
    }
    cr_expect_gt(asked, 100000);
    cr_expect_gt(hits, 10000, "the held ids are asked too");
    cr_expect_eq(wrong, 0, "%llu ids with roots held were reported clear",
                 (unsigned long long)wrong);
    for (k = 0; k < n; k++)
        cr_expect(!hs_rootq_clear(&q, held[k]));
    hs_rootq_free(&q);
}

/* The roots of an id taken as one chain in the order they were added,
 * whether they came in the block, after it, or both. */
static void expect_chain(hs_rootq *q, uint32_t ref, const uint8_t *want, size_t n, uint64_t id)
{
    size_t i;

    for (i = 0; i < n; i++) {
        cr_assert_neq(ref, 0, "id %#llx: chain ends after %zu of %zu roots",
                      (unsigned long long)id, i, n);
        cr_expect_eq(hs_rootq_slot(q, ref)->bytes[1], want[i], "id %#llx root %zu",
                     (unsigned long long)id, i);
        ref = hs_rootq_slot(q, ref)->next;
    }
    cr_expect_eq(ref, 0, "id %#llx: more roots than added", (unsigned long long)id);
}

/* Roots of random ids into the block, several for some; taken in address
 * order, behind it, and drained: each id's roots come as one chain in the
 * order they were added. Every other id past 32 bits when `wide` (the
 * block's entries widen midway: HotSpot's ids are addresses). */
static void block_order(int wide)
{
    enum { IDS = 3000, ROOTS = 9000, LATE = 1000 };
    static uint64_t ids[IDS];
    static uint8_t seq[IDS][16], nseq[IDS], taken[IDS];
    hs_rootq q;
    uint64_t s = 77;
    size_t i, k, left;
    uint32_t ref;
    hs_meter m;
    hs_alloc a;

    memset(nseq, 0, sizeof nseq);
    memset(taken, 0, sizeof taken);
    hs_meter_init(&m, &mem, UINT64_MAX);
    a = hs_meter_alloc(&m);
    hs_rootq_init(&q, &a);
    for (i = 0; i < IDS; i++) /* distinct, some in the same 8 bytes */
        ids[i] = (wide && i % 2 ? 0x7f0000000000ull : 0) + 0x12c00000 + (uint64_t)i * 24 +
                 (i % 5 == 0 ? 4 : 0);
    /* the block: roots of random ids, several for some, numbered in order */
    for (k = 0; k < ROOTS + LATE; k++) {
        uint8_t b[HS_ROOT_MAX] = {0xFF};
        i = next_rand(&s) % IDS;
        if (nseq[i] == 16)
            continue;
        b[1] = (uint8_t)(k & 0xff);
        b[2] = (uint8_t)(i >> 8); /* whose root it is, for take_any */
        b[3] = (uint8_t)i;
        seq[i][nseq[i]++] = b[1];
        cr_assert_eq(hs_rootq_add(&q, ids[i], b, 5), HS_OK);
        if (k == ROOTS) { /* the first question: later roots join the chains */
            cr_expect(hs_rootq_clear(&q, 0x12c00000 - 8));
            cr_expect_eq(q.wide, wide);
            cr_expect_null(q.scratch, "the sort's scratch freed once the block is closed");
        }
    }
    /* take in address order with some ids skipped, then some behind */
    for (i = 0; i < IDS; i += 1 + next_rand(&s) % 3) {
        ref = hs_rootq_take(&q, ids[i]);
        taken[i] = 1;
        if (nseq[i])
            expect_chain(&q, ref, seq[i], nseq[i], ids[i]);
        else
            cr_expect_eq(ref, 0, "id %zu had no roots", i);
        for (; ref; ref = hs_rootq_slot(&q, ref)->next) /* hands back after reading next */
            ;
    }
    for (i = IDS; i-- > 0;)
        if (!taken[i] && i % 2) {
            cr_expect_eq(hs_rootq_peek(&q, ids[i]) != 0, nseq[i] != 0);
            ref = hs_rootq_take(&q, ids[i]);
            taken[i] = 1;
            if (nseq[i])
                expect_chain(&q, ref, seq[i], nseq[i], ids[i]);
            cr_expect_eq(hs_rootq_take(&q, ids[i]), 0, "taken twice");
        }
    /* the rest drains, each id once */
    for (left = 0, i = 0; i < IDS; i++)
        left += !taken[i] && nseq[i];
    while ((ref = hs_rootq_take_any(&q)) != 0) {
        const uint8_t *b = hs_rootq_slot(&q, ref)->bytes;
        i = (size_t)b[2] << 8 | b[3];
        cr_assert(i < IDS && !taken[i] && nseq[i], "take_any returned id %zu, not held", i);
        expect_chain(&q, ref, seq[i], nseq[i], ids[i]);
        taken[i] = 1;
        left--;
    }
    cr_expect_eq(left, 0, "%zu ids left undrained", left);
    hs_rootq_free(&q);
    cr_expect_eq(m.live, 0, "all memory given back");
}

Test(rootq, block_keeps_each_ids_roots_in_order, .init = start)
{
    block_order(0);
}

Test(rootq, wide_block_keeps_each_ids_roots_in_order, .init = start)
{
    block_order(1);
}

/* What a held root of ART's block costs (issue #38: 693 k held roots took
 * a run to 46 MiB, at 24 bytes of slot and 2 x 16 of entry and scratch
 * each, 73.4 here and 94.4 at the meter's peak): 8 (entry) + 12 (its
 * bytes, as a slot of their size) + 8 (the sort's scratch, reserved, only
 * resident while the block closes), with the tables' doubling 41.9 here;
 * at the peak, a doubling's old and new blocks too (as the meter counts a
 * realloc). */
Test(rootq, block_roots_held_in_little, .init = start)
{
    enum { N = 100000 };
    const uint8_t b[HS_ROOT_MAX] = {0x89, 0x12, 0x34, 0x56, 0x78}; /* ROOT_INTERNED_STRING */
    hs_rootq q;
    hs_meter m;
    hs_alloc a;
    uint64_t s = 5, id;
    size_t k;

    hs_meter_init(&m, &mem, UINT64_MAX);
    a = hs_meter_alloc(&m);
    hs_rootq_init(&q, &a);
    for (k = 0; k < N; k++) {
        id = 0x12c00000 + (next_rand(&s) % (1u << 22)) * 8;
        cr_assert_eq(hs_rootq_add(&q, id, b, 5), HS_OK);
    }
    cr_expect_leq(hs_rootq_bytes(&q), (uint64_t)N * 48, "%.1f bytes per held root held",
                  (double)hs_rootq_bytes(&q) / N);
    cr_expect(hs_rootq_clear(&q, 0x12c00000 - 8)); /* closes the block */
    cr_expect_leq(m.peak, (uint64_t)N * 64, "%.1f bytes per held root at the peak",
                  (double)m.peak / N);
    while ((k = hs_rootq_take_any(&q)) != 0)
        for (uint32_t ref = (uint32_t)k, next; ref; ref = next) {
            next = hs_rootq_slot(&q, ref)->next;
            hs_rootq_put_back(&q, ref);
        }
    cr_expect_eq(q.count, 0);
    cr_expect_eq(q.log, NULL, "the log goes with its last root");
    hs_rootq_free(&q);
    cr_expect_eq(m.live, 0);
}

/* A block never asked about (HotSpot writes its roots after every object)
 * drains root by root in the order the roots came; asked about midway, the
 * rest closes and drains by id, each id's roots together. */
Test(rootq, an_open_block_drains_in_arrival_order, .init = start)
{
    static const uint64_t ids[] = {0x3000, 0x1000, 0x3000, 0x2000, 0x1000, 0x4000, 0x2000, 0x1000};
    static const uint8_t rest[] = {4, 7, 3, 6, 2}; /* after two out and 0x4000 taken */
    hs_rootq q;
    uint32_t ref;
    size_t k, n = sizeof ids / sizeof *ids;

    for (int round = 0; round < 2; round++) {
        hs_rootq_init(&q, &mem);
        for (k = 0; k < n; k++) {
            uint8_t b[HS_ROOT_MAX] = {0xFF, (uint8_t)k};
            cr_assert_eq(hs_rootq_add(&q, ids[k], b, 5), HS_OK);
        }
        if (round == 0) {
            for (k = 0; (ref = hs_rootq_take_any(&q)) != 0; k++) {
                cr_assert_lt(k, n);
                cr_expect_eq(hs_rootq_slot(&q, ref)->bytes[1], k, "root %zu", k);
                cr_expect_eq(hs_rootq_slot(&q, ref)->next, 0, "one root at a time");
                hs_rootq_put_back(&q, ref);
            }
            cr_expect_eq(k, n);
        } else {
            for (k = 0; k < 2; k++) {
                ref = hs_rootq_take_any(&q);
                cr_assert_neq(ref, 0);
                cr_expect_eq(hs_rootq_slot(&q, ref)->bytes[1], k);
                hs_rootq_put_back(&q, ref);
            }
            ref = hs_rootq_take(&q, 0x4000); /* closes what is left */
            cr_assert_neq(ref, 0);
            cr_expect_eq(hs_rootq_slot(&q, ref)->bytes[1], 5);
            hs_rootq_put_back(&q, ref);
            for (k = 0; (ref = hs_rootq_take_any(&q)) != 0;)
                for (; ref; k++) {
                    uint32_t next = hs_rootq_slot(&q, ref)->next;
                    cr_assert_lt(k, sizeof rest);
                    cr_expect_eq(hs_rootq_slot(&q, ref)->bytes[1], rest[k], "root %zu", k);
                    hs_rootq_put_back(&q, ref);
                    ref = next;
                }
            cr_expect_eq(k, sizeof rest);
        }
        cr_expect_eq(q.count, 0);
        hs_rootq_free(&q);
    }
}

/* put_new, take and drop_below against a plain array of what is in the
 * map, which is made and then doubles four times or more on the way:
 * copied, or in place (an unordered map); through malloc, or through a
 * caller's allocator, which has no realloc (hs_realloc then copies) and
 * fails the call `fail_at` when it is not 0. Returns the calls that
 * allocator saw. */
static size_t agree_with_an_array(int unordered, int theirs, size_t fail_at)
{
    enum { N = 20000 };
    static uint64_t keys[N], vals[N];
    static uint8_t in[N];
    count_state cs = {.fail_at = fail_at};
    const hs_alloc counted = COUNT_ALLOC(&cs);
    hs_idmap m;
    uint64_t s = 12345, v;
    size_t i, step, count = 0, failed = 0, caps = 0, last_cap = 0;

    memset(in, 0, sizeof in);
    hs_idmap_init(&m, theirs ? &counted : &mem);
    m.unordered = unordered;
    for (i = 0; i < N; i++) {
        keys[i] = 0x12c00000 + (next_rand(&s) % (1u << 20)) * 8 * N + i * 8; /* distinct */
        vals[i] = next_rand(&s) | 1;
    }
    for (step = 0; step < 5 * N; step++) {
        i = next_rand(&s) % N;
        if (!in[i]) {
            hs_status st = hs_idmap_put_new(&m, keys[i], vals[i]);
            if (st != HS_OK) { /* the failing call: the map as it was */
                cr_assert_eq(st, HS_E_NOMEM);
                cr_assert(fail_at && !failed++, "only the call made to fail fails");
                continue;
            }
            in[i] = 1;
            count++;
        } else if (step % 3) {
            cr_assert(hs_idmap_take(&m, keys[i], &v), "key %zu is in the map", i);
            cr_assert_eq(v, vals[i]);
            cr_assert(!hs_idmap_take(&m, keys[i], &v), "taken twice");
            in[i] = 0;
            count--;
        }
        cr_assert_eq(m.count, count);
        if (m.cap != last_cap)
            caps++, last_cap = m.cap;
        if (step == 4 * N) { /* the small values go, in place */
            const uint64_t below = (uint64_t)1 << 62;
            size_t gone = 0;
            for (i = 0; i < N; i++)
                if (in[i] && vals[i] < below)
                    in[i] = 0, gone++;
            cr_assert_eq(hs_idmap_drop_below(&m, below), gone);
            count -= gone;
            cr_assert_eq(m.count, count);
        }
    }
    cr_assert_geq(caps, 5, "%zu sizes, the first included: want 5 or more", caps);
    for (i = 0; i < N; i++) {
        const uint64_t *got = hs_idmap_get(&m, keys[i]);
        cr_assert_eq(got != NULL, in[i], "key %zu", i);
        if (got)
            cr_assert_eq(*got, vals[i]);
    }
    hs_idmap_free(&m);
    cr_assert_eq(cs.blocks, 0, "every block freed");
    return cs.calls;
}

Test(idmap, put_new_and_take_agree_with_an_array, .init = start)
{
    agree_with_an_array(0, 0, 0);
    agree_with_an_array(0, 1, 0);
}

/* Doubling in place puts every entry again inside the grown arrays. (New
 * slots whose flags were left as realloc gave them would send it round
 * forever: the timeout.) */
Test(idmap, an_unordered_map_doubles_in_place, .init = start, .timeout = 60)
{
    size_t calls, k;

    agree_with_an_array(1, 0, 0);
    calls = agree_with_an_array(1, 1, 0);
    /* each allocation of the caller's made to fail in turn: the entries'
     * array, the slots' flags, the first arrays; the map stays whole */
    for (k = 1; k <= calls; k++)
        agree_with_an_array(1, 1, k);
}

/* 100 k entries, made the two ways: the same entries. Only the runs that
 * wrap past the top of the table make growth in place move an entry still
 * to be moved out of its way, and a slip there (passing over such an entry
 * as if it were settled, or putting one over it) loses entries; a map this
 * large has such runs at every doubling. */
Test(idmap, an_unordered_map_holds_the_same_entries_as_a_copied_one, .init = start,
     .timeout = 60)
{
    hs_idmap a, b;
    uint64_t s = 99, k;
    size_t i, n = 0;

    hs_idmap_init(&a, &mem);
    hs_idmap_init(&b, &mem);
    b.unordered = 1;
    for (i = 0; i < 100000; i++) {
        k = next_rand(&s) & ~(uint64_t)7;
        if (hs_idmap_get(&a, k))
            continue;
        cr_assert_eq(hs_idmap_put_new(&a, k, i), HS_OK);
        cr_assert_eq(hs_idmap_put_new(&b, k, i), HS_OK);
        n++;
    }
    cr_assert_eq(a.cap, b.cap);
    cr_assert_eq(a.count, n);
    cr_assert_eq(b.count, n);
    for (i = 0; i < a.cap; i++)
        if (a.used[i]) {
            const uint64_t *v = hs_idmap_get(&b, a.ents[i].key);
            cr_assert(v && *v == a.ents[i].val, "entry %zu of the copied map", i);
        }
    hs_idmap_free(&a);
    hs_idmap_free(&b);
}
