/*
 * test_rootq.c - the held-root queue's id sets (src/rootq.c, src/idmap.c):
 * the range a run skips the lookup in (hs_rootq_clear) never holds an id
 * with roots held or watched, however ids arrive; the map's one-probe
 * insert and take agree with a plain array.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
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

/* True when sorted `granules` (ids >> 3) holds id's. */
static int granule_in(const uint64_t *granules, size_t n, uint64_t id)
{
    const uint64_t g = id >> 3;

    return bsearch(&g, granules, n, sizeof g, cmp_u64) != NULL;
}

Test(rootq, clear_around_held_and_watched_ids, .init = start)
{
    hs_rootq q;

    hs_rootq_init(&q, &mem);
    cr_expect(hs_rootq_clear(&q, 0x1000), "nothing held: every id is clear");
    cr_assert_eq(hs_rootq_add(&q, 0x1000, root_bytes, 5), HS_OK);
    cr_expect(!hs_rootq_clear(&q, 0x1000));
    cr_expect(!hs_rootq_clear(&q, 0x1004), "an id of the same 8 bytes may be held");
    cr_expect(hs_rootq_clear(&q, 0xff8));
    cr_expect(hs_rootq_clear(&q, 0x1008));
    /* the range found from 0x1008 reaches far: an id added inside it must
     * not be skipped */
    cr_expect(hs_rootq_clear(&q, 0x1010));
    cr_assert_eq(hs_rootq_watch(&q, 0x1800), HS_OK);
    cr_expect(!hs_rootq_clear(&q, 0x1800), "a watched id inside the last range");
    cr_expect(hs_rootq_clear(&q, 0x1808));
    /* ids at the top of the id space, where ranges wrap */
    cr_assert_eq(hs_rootq_add(&q, UINT64_MAX - 7, root_bytes, 5), HS_OK);
    cr_expect(!hs_rootq_clear(&q, UINT64_MAX - 7));
    cr_expect(!hs_rootq_clear(&q, UINT64_MAX));
    cr_expect(hs_rootq_clear(&q, UINT64_MAX - 15));
    cr_expect(hs_rootq_clear(&q, 0));
    /* roots taken leave their bit: the lookup is asked, and finds none */
    cr_expect_neq(hs_rootq_take(&q, 0x1000), 0);
    cr_expect_eq(hs_rootq_take(&q, 0x1000), 0);
    hs_rootq_free(&q);
}

/* Random ids, dense and sparse, asked in address order (as ART writes)
 * and at random: an id reported clear never has roots held or watched. */
Test(rootq, clear_never_hides_an_id, .init = start)
{
    enum { N = 3000 };
    static uint64_t held[N], granules[N];
    hs_rootq q;
    uint64_t s = 0x9E3779B97F4A7C15ull, base = 0x12c00000, id, wrong = 0, asked = 0;
    size_t n = 0, k;

    hs_rootq_init(&q, &mem);
    for (k = 0; k < 40; k++) {
        /* hold some ids, some far apart, some of the same 8 bytes */
        size_t add = 1 + next_rand(&s) % 100, j;
        for (j = 0; j < add && n < N; j++) {
            id = base + (next_rand(&s) % (1u << 24) & ~(uint64_t)(next_rand(&s) & 1 ? 7 : 3));
            if (j % 7 == 0)
                cr_assert_eq(hs_rootq_watch(&q, id), HS_OK);
            else
                cr_assert_eq(hs_rootq_add(&q, id, root_bytes, 5), HS_OK);
            held[n++] = id;
        }
        for (j = 0; j < n; j++)
            granules[j] = held[j] >> 3;
        qsort(granules, n, sizeof granules[0], cmp_u64);
        /* a walk in address order over part of the range */
        for (id = base + next_rand(&s) % (1u << 24); id < base + (1u << 24); id += 8 + next_rand(&s) % 120) {
            asked++;
            if (hs_rootq_clear(&q, id) && granule_in(granules, n, id))
                wrong++;
        }
        /* and ids at random */
        for (j = 0; j < 2000; j++) {
            id = base + next_rand(&s) % (1u << 24);
            asked++;
            if (hs_rootq_clear(&q, id) && granule_in(granules, n, id))
                wrong++;
        }
    }
    cr_expect_gt(asked, 100000);
    cr_expect_eq(wrong, 0, "%llu ids with roots held were reported clear",
                 (unsigned long long)wrong);
    for (k = 0; k < n; k++)
        cr_expect(!hs_rootq_clear(&q, held[k]));
    hs_rootq_free(&q);
}

/* put_new and take against a plain array of what is in the map. */
Test(idmap, put_new_and_take_agree_with_an_array, .init = start)
{
    enum { N = 20000 };
    static uint64_t keys[N], vals[N];
    static uint8_t in[N];
    hs_idmap m;
    uint64_t s = 12345, v;
    size_t i, step, count = 0;

    hs_idmap_init(&m, &mem);
    for (i = 0; i < N; i++) {
        keys[i] = 0x12c00000 + (next_rand(&s) % (1u << 20)) * 8 * N + i * 8; /* distinct */
        vals[i] = next_rand(&s) | 1;
    }
    for (step = 0; step < 5 * N; step++) {
        i = next_rand(&s) % N;
        if (!in[i]) {
            cr_assert_eq(hs_idmap_put_new(&m, keys[i], vals[i]), HS_OK);
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
    }
    for (i = 0; i < N; i++) {
        const uint64_t *got = hs_idmap_get(&m, keys[i]);
        cr_assert_eq(got != NULL, in[i], "key %zu", i);
        if (got)
            cr_assert_eq(*got, vals[i]);
    }
    hs_idmap_free(&m);
}
