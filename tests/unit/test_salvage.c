/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_salvage.c - --salvage: a dump cut short comes out as a valid dump
 * holding every object that was complete in the input.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

static size_t complete_objects(const walk_result *w, size_t cut)
{
    size_t j, n = 0;

    for (j = 0; j < w->n_object_ends; j++)
        n += w->object_ends[j] <= cut;
    return n;
}

static void salvage_every_cut(const uint8_t *p, size_t len, const char *preset, size_t step,
                              size_t seg_cap)
{
    walk_result wi = walk_dump(p, len, WALK_COLLECT);
    size_t hdr = (size_t)((const uint8_t *)memchr(p, 0, 32) - p) + 1 + 12, n;

    cr_assert(wi.ok);
    for (n = hdr; n < len; n += step) {
        hs_options opt;
        run_result r;
        walk_result wo;

        memset(&opt, 0, sizeof opt);
        opt.salvage = 1;
        opt.segment_cap = seg_cap;
        r = run_filter(p, n, preset, &opt, n % 5 ? n % 4093 : 0);
        cr_assert(r.status == HS_SALVAGED || r.status == HS_OK, "cut at %zu: status %d: %s", n,
                  r.status, r.err.message);
        if (r.status == HS_SALVAGED)
            cr_expect(strstr(r.err.message, "salvaged") != NULL, "%s", r.err.message);
        wo = walk_dump(r.out, r.out_len, 0);
        cr_expect(wo.ok, "cut at %zu: output invalid: %s", n, wo.error);
        cr_expect_eq(wo.empty_heap_records, 0, "cut at %zu", n);
        if (wo.heap_records)
            cr_expect(wo.ends_with_heap_dump_end, "cut at %zu: no HEAP_DUMP_END", n);
        cr_expect_geq(wo.instances + wo.object_arrays + wo.primitive_arrays + wo.class_dumps,
                      complete_objects(&wi, n), "cut at %zu: complete objects lost", n);
        run_result_free(&r);
    }
    walk_free(&wi);
}

Test(salvage, every_cut_of_every_tag)
{
    unsigned idsize;
    int android;

    for (idsize = 4; idsize <= 8; idsize += 4)
        for (android = 0; android <= 1; android++) {
            dump d;
            dg_everything(&d, idsize, android);
            salvage_every_cut(d.p, d.len, "none", 1, 64);
            salvage_every_cut(d.p, d.len, "default", 1, 0);
            dg_free(&d);
        }
}

/* A big array cut in the middle: its own segment already promised its
 * length, so the missing bytes are zeros and everything else stays valid. */
Test(salvage, big_array_cut)
{
    dump d;
    hs_options opt;
    run_result r;
    walk_result w;

    dg_init(&d, "JAVA PROFILE 1.0.2", 8);
    dg_begin(&d, 0x1C);
    dg_instance(&d, 0x10, 0x20, 8, 1);
    dg_prim_array(&d, 0x100, 8, 3u << 20, 0x41);
    dg_end(&d);
    memset(&opt, 0, sizeof opt);
    opt.salvage = 1;
    r = run_filter(d.p, d.len - (1u << 20), "none", &opt, 0);
    cr_assert_eq(r.status, HS_SALVAGED, "%s", r.err.message);
    cr_expect(strstr(r.err.message, "written as zeros") != NULL, "%s", r.err.message);
    cr_expect_eq(r.st.salvaged_bytes, 1u << 20);
    w = walk_dump(r.out, r.out_len, 0);
    cr_expect(w.ok, "%s", w.error);
    cr_expect_eq(w.instances, 1);
    cr_expect_eq(w.primitive_arrays, 1);
    cr_expect_eq(w.nonzero_payload_bytes, (3u << 20) - (1u << 20));
    cr_expect(w.ends_with_heap_dump_end);
    run_result_free(&r);
    dg_free(&d);
}

/* Real dumps cut at 64 places each. */
Test(salvage, corpus_cuts, .timeout = 300)
{
    const char *const *p;

    for (p = dump_paths_sampled_upto(20u << 20); *p; p++) {
        size_t len;
        uint8_t *in = load_file(*p, &len);
        if (len < 20u << 20)
            salvage_every_cut(in, len, "default", len / 64 + 1, 0);
        free(in);
    }
}

Test(salvage, header_cut_is_not_salvageable)
{
    static const char t[] = "JAVA PROFILE 1.0.2\0\0\0\0\4\0\0";
    hs_options opt;
    run_result r;

    memset(&opt, 0, sizeof opt);
    opt.salvage = 1;
    r = run_filter((const uint8_t *)t, sizeof t - 1, "none", &opt, 0);
    cr_expect_eq(r.status, HS_E_TRUNCATED);
    run_result_free(&r);
}

/* The superclass of class `id` as the CLASS_DUMP in `p` (a valid dump with
 * 4-byte ids) declares it, or -1 when no CLASS_DUMP declares `id`. */
static long long declared_super(const uint8_t *p, size_t n, uint32_t id)
{
    size_t at = (size_t)((const uint8_t *)memchr(p, 0, 32) - p) + 1 + 12;

    while (at + 9 <= n) {
        size_t end = at + 9 + ((size_t)p[at + 5] << 24 | (size_t)p[at + 6] << 16 |
                               (size_t)p[at + 7] << 8 | p[at + 8]);
        size_t q = at + 9;
        if (p[at] == 0x0C || p[at] == 0x1C)
            while (q < end) {
                uint64_t size = walk_sub_size(p + q, end - q, 4);
                cr_assert(size > 0 && q + size <= end, "sub-record at %zu", q);
                if (p[q] == 0x20 && ((uint32_t)p[q + 1] << 24 | (uint32_t)p[q + 2] << 16 |
                                     (uint32_t)p[q + 3] << 8 | p[q + 4]) == id)
                    return (long long)((uint32_t)p[q + 9] << 24 | (uint32_t)p[q + 10] << 16 |
                                       (uint32_t)p[q + 11] << 8 | p[q + 12]);
                q += (size_t)size;
            }
        at = end;
    }
    return -1;
}

/* ART writes a class's CLASS_DUMP after objects of it, and the primitive
 * array classes' after the arrays. Cut before them, the salvaged dump
 * declares every class a LOAD_CLASS named (VisualVM and ahat refused it
 * otherwise): superclass java.lang.Object, which has none; every instance
 * has its class. A whole dump gets nothing added. */
Test(salvage, art_classes_after_their_objects)
{
    static const char *const names[] = {"java.lang.Object", "byte[]", "Foo", "int[]"};
    const uint32_t object = 0x100, byte_array = 0x200, foo = 0x300, int_array = 0x400;
    hs_options opt;
    run_result r;
    fields_result fr;
    walk_result w;
    dump d;
    size_t cut;
    unsigned k;

    dg_init(&d, "JAVA PROFILE 1.0.3", 4);
    for (k = 0; k < 4; k++)
        dg_string(&d, k + 1, names[k]);
    dg_string(&d, 9, "field");
    for (k = 0; k < 4; k++)
        dg_load_class(&d, k + 1, 0x100 * (k + 1), k + 1);
    dg_begin(&d, 0x1C);
    dg_instance(&d, 0x1000, foo, 4 + 4, 1);
    dg_prim_array(&d, 0x2000, 8, 16, 0x41);
    dg_end(&d);
    cut = d.len;
    dg_begin(&d, 0x1C);
    dg_class(&d, object, 0, 9);
    dg_class(&d, foo, object, 9);
    dg_class(&d, byte_array, object, 9);
    dg_end(&d);
    dg_begin(&d, 0x2C);
    dg_end(&d);

    memset(&opt, 0, sizeof opt);
    opt.salvage = 1;
    r = run_filter(d.p, cut, "none", &opt, 0);
    cr_assert_eq(r.status, HS_SALVAGED, "%s", r.err.message);
    w = walk_dump(r.out, r.out_len, 0);
    cr_assert(w.ok, "%s", w.error);
    walk_free(&w);
    cr_expect_eq(declared_super(r.out, r.out_len, byte_array), object);
    cr_expect_eq(declared_super(r.out, r.out_len, int_array), object);
    cr_expect_eq(declared_super(r.out, r.out_len, foo), object);
    cr_expect_eq(declared_super(r.out, r.out_len, object), 0);
    fr = check_fields(r.out, r.out_len);
    cr_expect_eq(fr.instances, 1);
    cr_expect_eq(fr.instances_missing_class, 0);
    run_result_free(&r);

    /* whole: as it was (int[] had no CLASS_DUMP, and gets none) */
    r = run_filter(d.p, d.len, "none", &opt, 0);
    cr_assert_eq(r.status, HS_OK, "%s", r.err.message);
    cr_expect_eq(declared_super(r.out, r.out_len, byte_array), object);
    cr_expect_eq(declared_super(r.out, r.out_len, int_array), -1);
    run_result_free(&r);
    dg_free(&d);
}
