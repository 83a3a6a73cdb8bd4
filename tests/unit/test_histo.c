/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_histo.c - the histogram's rows cache (histo.h): kept objects are
 * counted in the slot a key was found in and reach their row only when the
 * slot changes hands or the histogram is finished; an empty slot holds a
 * key that is not its own. Here keys that share one slot take it from each
 * other over and over, in both directions (kept and dropped), beside keys
 * equal to what empty slots hold, and every row must come out exact.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "histo.h"

#define NKEYS 6

Test(histo, slots_changing_hands_lose_no_count)
{
    static hs_ctx c; /* large: not on the stack */
    static hs_histo h;
    uint64_t keys[NKEYS], in_n[NKEYS] = {0}, in_b[NKEYS] = {0}, out_n[NKEYS] = {0},
                          out_b[NKEYS] = {0};
    const hs_histo_slot *slot;
    const hs_class_count *r;
    size_t n = 0, i, j, round;
    uint64_t k;

    memset(&c, 0, sizeof c);
    c.opt.max_held = UINT64_MAX;
    hs_ctx_init_alloc(&c, NULL);
    hs_histo_init(&h, &c.alloc);

    /* four keys that share one slot... */
    slot = hs_histo_slot_of(&h, 0x1000);
    for (k = 0x1000; n < 4; k += 8)
        if (hs_histo_slot_of(&h, k) == slot)
            keys[n++] = k;
    /* ...and two equal to what empty slots hold (with this hash 1, held
     * by slot 0, where key 0 maps, and 2, by the last slot), each of them
     * mapping to a slot other than the one holding it */
    keys[n++] = h.cache[0].k;
    keys[n++] = h.cache[(sizeof h.cache / sizeof h.cache[0]) - 1].k;
    cr_assert_eq(n, NKEYS);
    for (i = 0; i < NKEYS; i++)
        cr_assert_eq(hs_histo_row(&h, keys[i]), NULL, "key %zu found before its row", i);

    for (round = 0; round < 50; round++)
        for (i = 0; i < NKEYS; i++)
            for (j = 0; j <= i; j++) {
                const int kept = (round + j) % 3 != 0;
                const uint64_t bytes = 8 * (i + 1) + round;

                cr_assert_eq(hs_histo_count(&h, &c, keys[i], 0, bytes, kept), HS_OK);
                if (kept) {
                    out_n[i]++;
                    out_b[i] += bytes;
                } else {
                    in_n[i]++;
                    in_b[i] += bytes;
                }
            }
    /* a slot holds what it counted until the end: the row may not have it */
    cr_assert_eq(hs_histo_finish(&h, &c), HS_OK);

    cr_assert_eq(h.nrows, NKEYS);
    for (i = 0; i < NKEYS; i++) {
        char name[40];

        snprintf(name, sizeof name, "class@0x%llx", (unsigned long long)keys[i]);
        for (j = 0; j < h.nrows && strcmp(h.rows[j].name, name) != 0; j++)
            ;
        cr_assert_lt(j, h.nrows, "no row %s", name);
        r = &h.rows[j];
        /* _in counts the input: dropped and kept */
        cr_expect_eq(r->instances_in, in_n[i] + out_n[i], "%s: %llu in", name,
                     (unsigned long long)r->instances_in);
        cr_expect_eq(r->bytes_in, in_b[i] + out_b[i], "%s: %llu bytes in", name,
                     (unsigned long long)r->bytes_in);
        cr_expect_eq(r->instances_out, out_n[i], "%s: %llu out", name,
                     (unsigned long long)r->instances_out);
        cr_expect_eq(r->bytes_out, out_b[i], "%s: %llu bytes out", name,
                     (unsigned long long)r->bytes_out);
    }
    /* the cache is empty again: no key is found in it */
    for (i = 0; i < NKEYS; i++) {
        const hs_histo_slot *s = hs_histo_slot_of(&h, keys[i]);
        cr_expect_neq(s->k, keys[i], "key %zu still cached after the finish", i);
    }
    hs_histo_free(&h);
}
