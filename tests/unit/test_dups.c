/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_dups.c - the duplicate-array table (find_duplicates, what a report
 * asks for) stays within its cap whatever the dump: past it the smallest
 * arrays make room, the run never fails for it, and the counters say how
 * far the counts are exact (dup_arrays_unchecked, dup_min_bytes).
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "helpers.h"
#include "idmap.h"

/* A long[1] holding `v`: 8 bytes of payload, distinct for each v. */
static void long1(dump *d, uint64_t id, uint64_t v)
{
    dg_u1(d, 0x23);
    dg_id(d, id);
    dg_u4(d, 1);
    dg_u4(d, 1);
    dg_u1(d, 11);
    dg_u8(d, v);
}

/* Three int[64] (256 bytes), `small` distinct long[1], the three again,
 * then the first `repeats` long[1] again. */
static void make(dump *d, unsigned small, unsigned repeats)
{
    uint64_t id = 0x1000;
    unsigned k;

    dg_init(d, "JAVA PROFILE 1.0.2", 8);
    dg_begin(d, 0x1C);
    for (k = 0; k < 3; k++)
        dg_prim_array(d, id += 0x100, 10, 64, (uint8_t)(k + 1));
    for (k = 0; k < small; k++)
        long1(d, id += 0x100, 1000 + k);
    for (k = 0; k < 3; k++)
        dg_prim_array(d, id += 0x100, 10, 64, (uint8_t)(k + 1));
    for (k = 0; k < repeats; k++)
        long1(d, id += 0x100, 1000 + k);
    dg_end(d);
    dg_begin(d, 0x2C);
    dg_end(d);
}

static run_result run(const dump *d, uint64_t max_held, int find)
{
    hs_options opt;

    memset(&opt, 0, sizeof opt);
    opt.find_duplicates = find;
    opt.max_held = max_held;
    return run_filter(d->p, d->len, "none", &opt, 0);
}

/* Under its cap the table is exact: every copy counted, none unchecked. */
Test(dups, exact_while_the_table_has_room)
{
    dump d;
    run_result r;

    make(&d, 2000, 10);
    r = run(&d, 0, 1);
    cr_assert_eq(r.status, HS_OK, "%s", r.err.message);
    cr_expect_eq(r.st.dup_arrays[10], 3);
    cr_expect_eq(r.st.dup_bytes[10], 3 * 256);
    cr_expect_eq(r.st.dup_arrays[11], 10);
    cr_expect_eq(r.st.dup_bytes[11], 10 * 8);
    cr_expect_eq(r.st.dup_arrays_unchecked, 0);
    cr_expect_eq(r.st.dup_min_bytes, 8);
    run_result_free(&r);
    /* not asked for: nothing counted, and no smallest size */
    r = run(&d, 0, 0);
    cr_assert_eq(r.status, HS_OK, "%s", r.err.message);
    cr_expect_eq(r.st.dup_arrays[11], 0);
    cr_expect_eq(r.st.dup_arrays_unchecked, 0);
    cr_expect_eq(r.st.dup_min_bytes, 0);
    run_result_free(&r);
    dg_free(&d);
}

/* With max_held at 1 MiB the table may take 256 KiB: 8192 slots of 17
 * bytes, 6144 arrays at 3/4 load (16384 slots would be 272 KiB). The 3
 * int[] and the first 6141 long[] fill it; the next long[] finds it full,
 * the 8-byte arrays leave (dup_min_bytes 16) and it is compared but not
 * kept; the 13858 long[] after it and the 10 repeats are not compared.
 * Before the cap the same dump failed the run with HS_E_LIMIT. */
Test(dups, full_table_drops_the_smallest_and_says_so)
{
    dump d;
    run_result r;

    make(&d, 20000, 10);
    r = run(&d, 1u << 20, 1);
    cr_assert_eq(r.status, HS_OK, "%s", r.err.message);
    cr_expect_eq(r.st.dup_min_bytes, 16);
    cr_expect_eq(r.st.dup_arrays_unchecked, 20000 - 6142 + 10);
    /* the big arrays stayed: their copies are all counted */
    cr_expect_eq(r.st.dup_arrays[10], 3);
    cr_expect_eq(r.st.dup_bytes[10], 3 * 256);
    /* the repeats came after their first copies left: not counted, and
     * not counted as anything else either */
    cr_expect_eq(r.st.dup_arrays[11], 0);
    cr_expect_leq(r.st.held_bytes_peak, 1u << 20);
    cr_expect_eq(r.st.primitive_arrays, 3 + 20000 + 3 + 10);
    run_result_free(&r);
    dg_free(&d);
}

/* A cap too small for the first table (1024 slots, 17 KiB: max_held under
 * 68 KiB): nothing is compared, every array says so, the run goes on. */
Test(dups, no_table_under_a_tiny_cap)
{
    dump d;
    run_result r;

    make(&d, 100, 10);
    r = run(&d, 40u << 10, 1);
    cr_assert_eq(r.status, HS_OK, "%s", r.err.message);
    cr_expect_eq(r.st.dup_min_bytes, (uint64_t)1 << 36);
    /* the first array finds no table (compared with none before it: no
     * copy missed), every other one is left uncompared */
    cr_expect_eq(r.st.dup_arrays_unchecked, 3 + 100 + 3 + 10 - 1);
    cr_expect_eq(r.st.dup_arrays[10] + r.st.dup_arrays[11], 0);
    cr_expect_eq(r.st.held_bytes_peak, 0);
    run_result_free(&r);
    dg_free(&d);
}

/* The sweep that makes room: every entry below the bound goes, every
 * other stays findable, whatever the probe runs look like (a small table
 * with many collisions and wrap-around). */
Test(dups, idmap_drop_below_keeps_the_rest_findable)
{
    hs_alloc mem;
    hs_idmap m;
    uint64_t k, *v;
    size_t gone;

    hs_alloc_init(&mem, NULL);
    hs_idmap_init(&m, &mem);
    for (k = 1; k <= 700; k++)
        cr_assert_eq(hs_idmap_put_new(&m, k * 0x9E3779B97F4A7C15ull, k % 7), HS_OK);
    gone = hs_idmap_drop_below(&m, 4);
    cr_expect_eq(gone, 400); /* k % 7 in 0..3: 4 of every 7, 100 each */
    cr_expect_eq(m.count, 300);
    for (k = 1; k <= 700; k++) {
        v = hs_idmap_get(&m, k * 0x9E3779B97F4A7C15ull);
        if (k % 7 < 4)
            cr_expect_null(v, "key %llu (value %llu) still there", (unsigned long long)k,
                           (unsigned long long)(k % 7));
        else
            cr_expect(v && *v == k % 7, "key %llu lost", (unsigned long long)k);
    }
    cr_expect_eq(hs_idmap_drop_below(&m, 0), 0);
    cr_expect_eq(hs_idmap_drop_below(&m, UINT64_MAX), 300);
    cr_expect_eq(m.count, 0);
    hs_idmap_free(&m);
}
