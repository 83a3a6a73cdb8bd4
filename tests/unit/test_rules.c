/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_rules.c - what the rules remove, checked with the independent walker
 * on real dumps and on hand-built ones; the rule-file grammar and its
 * errors; presets printed and read back.
 */
#define _GNU_SOURCE /* memmem */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

/* ---- presets on the corpus ------------------------------------------------ */

/* default: same objects, classes, field values (references included) and
 * array lengths, no non-zero payload byte, no unused STRING, no reference
 * to a string that is not there. */
Test(presets, default_on_every_dump, .timeout = 300)
{
    const char *const *p;

    for (p = dump_paths_sampled(); *p; p++) {
        size_t len;
        uint8_t *in = load_file(*p, &len);
        hs_options opt = {.count_nonzero = 1};
        run_result r = run_filter(in, len, "default", &opt, 0);
        walk_result wi = walk_dump(in, len, WALK_ZERO_PAYLOADS | WALK_NO_STRINGS);
        walk_result wo;

        cr_assert_eq(r.status, HS_OK, "%s: %s", *p, r.err.message);
        wo = walk_dump(r.out, r.out_len, WALK_ZERO_PAYLOADS | WALK_NO_STRINGS);
        cr_expect(wo.ok, "%s: output: %s", *p, wo.error);
        cr_expect_eq(wo.digest, wi.digest, "%s: content changed", *p);
        cr_expect_eq(wo.instances, wi.instances, "%s", *p);
        cr_expect_eq(wo.class_dumps, wi.class_dumps, "%s", *p);
        cr_expect_eq(wo.primitive_arrays, wi.primitive_arrays, "%s", *p);
        cr_expect_eq(wo.payload_bytes, wi.payload_bytes, "%s", *p);
        cr_expect_eq(wo.roots, wi.roots, "%s", *p);
        cr_expect_eq(wo.nonzero_payload_bytes, 0, "%s", *p);
        cr_expect_eq(r.st.nonzero_array_bytes, wi.nonzero_payload_bytes,
                     "%s: the filter's count of non-zero payload bytes is off", *p);
        cr_expect_eq(wo.strings_unused, 0, "%s: %llu unused strings left", *p,
                     (unsigned long long)wo.strings_unused);
        cr_expect_eq(wo.string_refs_undefined, wi.string_refs_undefined,
                     "%s: %llu references to missing strings (input had %llu)", *p,
                     (unsigned long long)wo.string_refs_undefined,
                     (unsigned long long)wi.string_refs_undefined);
        cr_expect_eq(wo.empty_heap_records, 0, "%s", *p);
        cr_expect_eq(r.st.strings_out + r.st.strings_dropped, r.st.strings_in, "%s", *p);
        cr_expect_eq(r.st.strings_out, wo.strings, "%s", *p);
        run_result_free(&r);
        free(in);
    }
}

/* Counting non-zero scrubbed bytes is asked for (it reads what would be
 * skipped): the output is the same either way, and unasked the counts stay
 * zero. */
Test(presets, nonzero_count_only_when_asked)
{
    size_t len;
    uint8_t *in = load_file("fixtures/jvm17-64bit.hprof", &len);
    hs_options count = {.count_nonzero = 1};
    run_result a = run_filter(in, len, "privacy", &count, 0);
    run_result b = run_filter(in, len, "privacy", NULL, 0);

    cr_assert_eq(a.status, HS_OK, "%s", a.err.message);
    cr_assert_eq(b.status, HS_OK, "%s", b.err.message);
    cr_expect_gt(a.st.nonzero_array_bytes, 0);
    cr_expect_gt(a.st.nonzero_field_bytes, 0);
    cr_expect_neq(a.st.first_nonzero_array, 0);
    cr_expect_eq(b.st.nonzero_array_bytes + b.st.nonzero_field_bytes, 0);
    cr_expect_eq(b.st.payload_bytes_zeroed, a.st.payload_bytes_zeroed);
    cr_expect_eq(b.st.field_bytes_scrubbed, a.st.field_bytes_scrubbed);
    cr_assert_eq(a.out_len, b.out_len);
    cr_expect(memcmp(a.out, b.out, a.out_len) == 0);
    run_result_free(&a);
    run_result_free(&b);
    free(in);
}

/* android-app: no zygote or image object left, every class dump kept, no
 * root naming a dropped object, the app heap's objects unchanged. */
Test(presets, android_app_on_android_dumps, .timeout = 120)
{
    const char *const *p;
    int seen = 0;

    for (p = dump_paths(); *p; p++) {
        size_t len, j;
        uint8_t *in;
        run_result r;
        walk_result wi, wo;

        if (!strstr(*p, "android"))
            continue;
        seen++;
        in = load_file(*p, &len);
        wi = walk_dump(in, len, WALK_ZERO_PAYLOADS | WALK_COLLECT);
        r = run_filter(in, len, "android-app", NULL, 1 + (len & 4095));
        cr_assert_eq(r.status, HS_OK, "%s: %s", *p, r.err.message);
        wo = walk_dump(r.out, r.out_len, WALK_ZERO_PAYLOADS | WALK_COLLECT);
        cr_expect(wo.ok, "%s: %s", *p, wo.error);
        /* Thread objects stay, whatever their heap (heap.c) */
        cr_expect_eq(wo.objects_in_heap[2] + wo.objects_in_heap[3], r.st.thread_objects_kept,
                     "%s", *p);
        cr_expect_eq(wo.objects_in_heap[1], wi.objects_in_heap[1], "%s", *p);
        cr_expect_eq(wo.digest_app, wi.digest_app, "%s: app objects changed", *p);
        cr_expect_eq(wo.class_dumps, wi.class_dumps, "%s", *p);
        cr_expect_eq(r.st.objects_dropped + r.st.thread_objects_kept,
                     wi.objects_in_heap[2] + wi.objects_in_heap[3]);
        for (j = 0; j < wo.n_root_ids; j++)
            cr_expect(!ids_contain(wi.dropped_heap_ids, wi.n_dropped_heap_ids, wo.root_ids[j]) ||
                          ids_contain(wo.dropped_heap_ids, wo.n_dropped_heap_ids, wo.root_ids[j]),
                      "%s: a root still names dropped object 0x%llx", *p,
                      (unsigned long long)wo.root_ids[j]);
        cr_expect_eq(wo.n_root_ids + r.st.roots_dropped, wi.n_root_ids, "%s", *p);
        cr_expect_eq(wo.strings_unused, 0, "%s", *p);
        cr_expect_eq(wo.string_refs_undefined, 0, "%s", *p);
        walk_free(&wi);
        walk_free(&wo);
        run_result_free(&r);
        free(in);
    }
    cr_expect_geq(seen, 1);
}

/* ---- rules on hand-built dumps ---------------------------------------------- */

static run_result run_rules(const dump *d, const char *text)
{
    hs_rules *rules = hs_rules_create(NULL);
    hs_error err;
    run_result r;

    cr_assert_eq(hs_rules_parse(rules, text, strlen(text), "test", &err), HS_OK, "%s",
                 err.message);
    r = run_with_rules(d->p, d->len, rules, NULL, 0);
    hs_rules_free(rules);
    return r;
}

/* Finds the first PRIMITIVE_ARRAY_DUMP with `id` in a dump with 4-byte ids;
 * returns its offset or 0. */
static size_t find_array(const run_result *r, uint32_t id)
{
    size_t i;
    uint8_t pat[5] = {0x23, (uint8_t)(id >> 24), (uint8_t)(id >> 16), (uint8_t)(id >> 8),
                      (uint8_t)id};

    for (i = 31; i + 5 <= r->out_len; i++)
        if (memcmp(r->out + i, pat, 5) == 0)
            return i;
    return 0;
}

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void arrays_dump(dump *d)
{
    dg_init(d, "JAVA PROFILE 1.0.2", 4);
    dg_begin(d, 0x1C);
    dg_prim_array(d, 0x100, 8, 10, 'x');   /* byte[10] */
    dg_prim_array(d, 0x200, 5, 10, 'y');   /* char[10] */
    dg_prim_array(d, 0x300, 10, 1000, 7);  /* int[1000]: 4000 bytes */
    dg_prim_array(d, 0x400, 11, 3, 9);     /* long[3] */
    dg_end(d);
    dg_begin(d, 0x2C);
    dg_end(d);
}

Test(arrays, each_action)
{
    dump d;
    run_result r;
    size_t at;

    arrays_dump(&d);
    r = run_rules(&d, "preset none\n"
                      "arrays byte fill '?'\n"
                      "arrays char prefix 4   # keep 4 chars\n"
                      "arrays int,long empty min 1K\n"
                      "arrays long drop\n");
    cr_assert_eq(r.status, HS_OK, "%s", r.err.message);
    at = find_array(&r, 0x100);
    cr_assert(at);
    cr_expect_eq(be32(r.out + at + 9), 10);
    cr_expect(memcmp(r.out + at + 14, "??????????", 10) == 0);
    at = find_array(&r, 0x200);
    cr_assert(at);
    cr_expect_eq(be32(r.out + at + 9), 10);
    cr_expect(memcmp(r.out + at + 14, "yyyyyyyy", 8) == 0);
    cr_expect(memcmp(r.out + at + 22, "\0\0\0\0\0\0\0\0\0\0\0\0", 12) == 0);
    at = find_array(&r, 0x300);
    cr_assert(at);
    cr_expect_eq(be32(r.out + at + 9), 0, "int[1000] should be empty");
    cr_expect_eq(find_array(&r, 0x400), 0, "long[3] should be dropped");
    cr_expect_eq(r.st.arrays_dropped, 1);
    cr_expect_eq(r.st.payload_bytes_dropped, 4000 + 24);
    cr_expect(walk_dump(r.out, r.out_len, 0).ok);
    run_result_free(&r);

    /* a later rule overrides: all zero after the specific ones */
    r = run_rules(&d, "arrays byte keep\narrays all zero\n");
    cr_assert_eq(r.status, HS_OK);
    cr_expect_eq(walk_dump(r.out, r.out_len, 0).nonzero_payload_bytes, 0);
    run_result_free(&r);

    /* min: only arrays of at least 4000 bytes are zeroed */
    r = run_rules(&d, "preset none\narrays all zero min 4000\n");
    cr_assert_eq(r.status, HS_OK);
    cr_expect_eq(walk_dump(r.out, r.out_len, 0).nonzero_payload_bytes, 10 + 20 + 24);
    cr_expect_eq(r.out_len, d.len, "zeroing keeps every length");
    run_result_free(&r);
    dg_free(&d);
}

Test(roots, drop_by_kind)
{
    dump d;
    run_result r;
    walk_result w;

    dg_everything(&d, 8, 1);
    r = run_rules(&d, "preset none\nroots vm-internal,sticky-class drop\n");
    cr_assert_eq(r.status, HS_OK, "%s", r.err.message);
    w = walk_dump(r.out, r.out_len, 0);
    cr_expect(w.ok);
    cr_expect_eq(w.roots, 14);
    cr_expect_eq(r.st.roots_dropped, 2);
    run_result_free(&r);
    r = run_rules(&d, "roots all drop\nroots unknown keep\n");
    cr_assert_eq(r.status, HS_OK);
    cr_expect_eq(walk_dump(r.out, r.out_len, 0).roots, 1);
    run_result_free(&r);
    dg_free(&d);
}

/* Roots come before their objects (as ART writes them): those naming a
 * dropped object go, the others are written (before their object), and
 * roots naming objects that never appear survive at the end. */
Test(heaps, roots_follow_their_objects)
{
    dump d;
    run_result r;
    walk_result w;

    dg_init(&d, "JAVA PROFILE 1.0.3", 4);
    dg_string(&d, 0x10, "zygote");
    dg_string(&d, 0x11, "app");
    dg_begin(&d, 0x1C);
    dg_root(&d, 0x8D, 0x100); /* names a zygote object */
    dg_root(&d, 0x05, 0x100);
    dg_root(&d, 0xFF, 0x200); /* names an app object */
    dg_root(&d, 0xFF, 0x999); /* names nothing */
    dg_root(&d, 0x05, 0x50);  /* names a class */
    dg_end(&d);
    dg_begin(&d, 0x1C);
    dg_heap_info(&d, 'Z', 0x10);
    dg_instance(&d, 0x100, 0x50, 4, 1);
    dg_heap_info(&d, 'A', 0x11);
    dg_instance(&d, 0x200, 0x50, 4, 1);
    dg_class(&d, 0x50, 0, 0x11);
    dg_end(&d);
    dg_begin(&d, 0x2C);
    dg_end(&d);
    r = run_rules(&d, "preset android-app\n");
    cr_assert_eq(r.status, HS_OK, "%s", r.err.message);
    w = walk_dump(r.out, r.out_len, WALK_COLLECT);
    cr_expect(w.ok, "%s", w.error);
    cr_expect_eq(w.instances, 1);
    cr_expect_eq(w.class_dumps, 1);
    cr_expect_eq(w.roots, 3);
    cr_expect_eq(r.st.roots_dropped, 2);
    cr_expect(w.ends_with_heap_dump_end);
    /* the zygote heap's name, which nothing kept names, is never written
     * (issue #50), though 1.0.3's class dumps follow objects: the stage
     * holds the heap dump until they are over (strrec.c) */
    cr_expect_eq(w.strings_unused, 0);
    cr_expect_eq(w.string_refs_undefined, 0);
    walk_free(&w);
    run_result_free(&r);
    dg_free(&d);
}

/* Runs android-app over `d` twice, read whole and a byte at a time (the
 * filter then never sees ahead and holds every root), and expects the same
 * records out both ways. */
static void android_app_both_ways(const dump *d, run_result *whole, run_result *bytes)
{
    hs_rules *rules = hs_rules_create(NULL);

    cr_assert_eq(hs_rules_preset(rules, "android-app", NULL), HS_OK);
    *whole = run_with_rules(d->p, d->len, rules, NULL, 0);
    *bytes = run_with_rules(d->p, d->len, rules, NULL, 1);
    hs_rules_free(rules);
    cr_assert_eq(whole->status, HS_OK, "%s", whole->err.message);
    cr_assert_eq(bytes->status, HS_OK, "%s", bytes->err.message);
    cr_expect_eq(walk_dump(whole->out, whole->out_len, WALK_NO_STRINGS).digest,
                 walk_dump(bytes->out, bytes->out_len, WALK_NO_STRINGS).digest,
                 "deciding a root ahead differs from holding it");
}

/* ART writes a root right before the object it names: the filter decides
 * it there and then, without holding it. The records are the same as when
 * it is held (one-byte reads never show the next object; only the order of
 * the STRINGs written ahead may differ): roots held earlier for the same
 * object first, then this one, then the object; and a dropped object's
 * root dropped. */
Test(heaps, root_right_before_its_object)
{
    static const uint8_t kept[] = {0x05, 0, 0, 0x02, 0, 0x8D, 0, 0, 0x02, 0, 0x21, 0, 0, 0x02, 0};
    dump d;
    run_result whole, bytes;
    walk_result w;

    dg_init(&d, "JAVA PROFILE 1.0.3", 4);
    dg_string(&d, 0x10, "zygote");
    dg_string(&d, 0x11, "app");
    dg_begin(&d, 0x1C);
    dg_heap_info(&d, 'A', 0x11);
    dg_root(&d, 0x05, 0x200); /* held: a root comes next */
    dg_root(&d, 0x8D, 0x200); /* its object comes next */
    dg_instance(&d, 0x200, 0x50, 4, 1);
    dg_heap_info(&d, 'Z', 0x10);
    dg_root(&d, 0x8D, 0x100);
    dg_instance(&d, 0x100, 0x50, 4, 1);
    dg_class(&d, 0x50, 0, 0x11);
    dg_end(&d);
    dg_begin(&d, 0x2C);
    dg_end(&d);
    android_app_both_ways(&d, &whole, &bytes);
    cr_expect_eq(whole.out_len, bytes.out_len);
    cr_expect(memmem(bytes.out, bytes.out_len, kept, sizeof kept) != NULL);
    cr_expect(memmem(whole.out, whole.out_len, kept, sizeof kept) != NULL,
              "the app object's roots, in order, right before it");
    w = walk_dump(whole.out, whole.out_len, 0);
    cr_expect(w.ok, "%s", w.error);
    cr_expect_eq(w.instances, 1);
    cr_expect_eq(w.roots, 2);
    cr_expect_eq(whole.st.roots_dropped, 1);
    cr_expect_eq(whole.st.roots_held_peak, 1, "only the first root waited");
    run_result_free(&whole);
    run_result_free(&bytes);
    dg_free(&d);
}

/* ART writes a root, then the heap switch, then the object, and starts a
 * segment every 128 items, often between a root and its object. A root
 * whose object is just ahead, past a HEAP_DUMP_INFO or a segment boundary,
 * in a dropped heap, is dropped at once; in a kept heap, or when something
 * else comes first, it waits as before. Read a byte at a time the filter
 * never sees ahead and holds every root: the records out must be the same. */
Test(heaps, root_before_a_heap_switch_or_segment_end)
{
    static const uint8_t kept[] = {0x8D, 0, 0, 0x01, 0x20, 0x21, 0, 0, 0x01, 0x20};
    dump d;
    run_result whole, bytes;
    walk_result w;

    dg_init(&d, "JAVA PROFILE 1.0.3", 4);
    dg_string(&d, 0x10, "zygote");
    dg_string(&d, 0x11, "app");
    dg_string(&d, 0x12, "image");
    dg_begin(&d, 0x1C);
    dg_root(&d, 0xFF, 0x500); /* an app object at the end */
    dg_heap_info(&d, 'A', 0x11);
    dg_instance(&d, 0x300, 0x50, 4, 1);
    dg_root(&d, 0x8D, 0x100); /* dropped: its object follows the switch */
    dg_heap_info(&d, 'Z', 0x10);
    dg_instance(&d, 0x100, 0x50, 4, 1);
    dg_root(&d, 0x8D, 0x110); /* dropped: its object opens the next segment */
    dg_end(&d);
    dg_begin(&d, 0x1C);
    dg_heap_info(&d, 'I', 0x12);
    dg_instance(&d, 0x110, 0x50, 4, 1);
    dg_root(&d, 0x8D, 0x130); /* held: another object opens the next one */
    dg_end(&d);
    dg_begin(&d, 0x1C);
    dg_heap_info(&d, 'Z', 0x10);
    dg_instance(&d, 0x998, 0x50, 4, 1);
    dg_instance(&d, 0x130, 0x50, 4, 1);
    dg_root(&d, 0x8D, 0x120); /* held: its object is in the app heap */
    dg_end(&d);
    dg_begin(&d, 0x1C);
    dg_heap_info(&d, 'A', 0x11);
    dg_instance(&d, 0x120, 0x50, 4, 1);
    dg_instance(&d, 0x500, 0x50, 4, 1);
    dg_class(&d, 0x50, 0, 0x11);
    dg_root(&d, 0x8D, 0x140); /* held: the next record is no segment */
    dg_end(&d);
    dg_begin(&d, 0x2C);
    dg_end(&d);
    android_app_both_ways(&d, &whole, &bytes);
    cr_expect(memmem(whole.out, whole.out_len, kept, sizeof kept) != NULL,
              "the app object's root right before it");
    w = walk_dump(whole.out, whole.out_len, 0);
    cr_expect(w.ok, "%s", w.error);
    cr_expect_eq(w.instances, 3);
    cr_expect_eq(w.roots, 3, "0x500's, 0x120's and the dangling 0x140's");
    cr_expect_eq(whole.st.roots_dropped, 3);
    cr_expect_eq(bytes.st.roots_dropped, 3);
    cr_expect_eq(whole.st.objects_dropped, 4);
    walk_free(&w);
    run_result_free(&whole);
    run_result_free(&bytes);
    dg_free(&d);
}

/* `heap default drop` on a JVM dump drops every object, keeps the classes. */
Test(heaps, default_heap)
{
    size_t len;
    uint8_t *in = load_file("fixtures/jvm17-64bit.hprof", &len);
    dump d = {in, len, len, 8, 0};
    run_result r = run_rules(&d, "heap default drop\n");
    walk_result wi = walk_dump(in, len, 0), wo;

    cr_assert_eq(r.status, HS_OK, "%s", r.err.message);
    wo = walk_dump(r.out, r.out_len, 0);
    cr_expect(wo.ok);
    cr_expect_eq(wo.instances + wo.object_arrays + wo.primitive_arrays, 0);
    cr_expect_eq(wo.class_dumps, wi.class_dumps);
    run_result_free(&r);
    free(in);
}

/* ---- strings ---------------------------------------------------------------- */

/* HotSpot order: every STRING first, CLASS_DUMPs before the first object.
 * Unused strings go; the class dumps' field names are written before the
 * first segment, which VisualVM's reader needs. */
Test(strings, held_until_first_use)
{
    dump d;
    run_result r;
    walk_result w;
    size_t seg;

    dg_init(&d, "JAVA PROFILE 1.0.2", 8);
    dg_string(&d, 1, "used.by.LoadClass");
    dg_string(&d, 2, "unused");
    dg_string(&d, 3, "fieldName");
    dg_string(&d, 4, "also unused");
    dg_load_class(&d, 1, 0x100, 1);
    dg_begin(&d, 0x1C);
    dg_class(&d, 0x100, 0, 3);
    dg_instance(&d, 0x200, 0x100, 16, 0);
    dg_end(&d);
    dg_begin(&d, 0x2C);
    dg_end(&d);
    r = run_rules(&d, "preset default\n");
    cr_assert_eq(r.status, HS_OK, "%s", r.err.message);
    w = walk_dump(r.out, r.out_len, 0);
    cr_expect(w.ok, "%s", w.error);
    cr_expect_eq(w.strings, 2);
    cr_expect_eq(w.strings_unused, 0);
    cr_expect_eq(w.string_refs_undefined, 0);
    cr_expect_eq(r.st.strings_dropped, 2);
    cr_expect(memmem(r.out, r.out_len, "unused", 6) == NULL);
    cr_expect_eq(w.heap_records, 1, "one run of segments, no string inside it");
    seg = (size_t)((uint8_t *)memmem(r.out, r.out_len, "fieldName", 9) - r.out);
    cr_expect_lt(seg, r.out_len - 9 - 9 - 80, "fieldName must come before the heap dump");
    run_result_free(&r);
    dg_free(&d);
}

/* A string first needed after the first object goes between segments. */
Test(strings, late_use_between_segments)
{
    dump d;
    run_result r;
    walk_result w;

    dg_init(&d, "JAVA PROFILE 1.0.2", 8);
    dg_string(&d, 3, "fieldName");
    dg_string(&d, 4, "unused");
    dg_begin(&d, 0x1C);
    dg_instance(&d, 0x200, 0x100, 16, 0);
    dg_class(&d, 0x100, 0, 3);
    dg_end(&d);
    dg_begin(&d, 0x2C); /* HEAP_DUMP_END */
    dg_end(&d);
    r = run_rules(&d, "preset default\n");
    cr_assert_eq(r.status, HS_OK, "%s", r.err.message);
    w = walk_dump(r.out, r.out_len, 0);
    cr_expect(w.ok, "%s", w.error);
    cr_expect_eq(w.strings, 1);
    cr_expect_eq(w.string_refs_undefined, 0);
    cr_expect_eq(w.heap_records, 2);
    cr_expect(w.ends_with_heap_dump_end);
    run_result_free(&r);
    dg_free(&d);
}

/* Strings written on demand (the JVMTI agent's way: a STRING after a
 * LOAD_CLASS): one used before it arrives is written when it comes, and
 * all still held are written before the first object, since such writers
 * also put class dumps after objects. */
Test(strings, written_on_demand)
{
    dump d;
    run_result r;
    walk_result w;

    dg_init(&d, "JAVA PROFILE 1.0.1", 4);
    dg_load_class(&d, 2, 0x108, 5); /* 5 comes later: used before defined */
    dg_string(&d, 5, "late");
    dg_string(&d, 6, "fieldName");
    dg_begin(&d, 0x0C);
    dg_instance(&d, 0x200, 0x100, 16, 0);
    dg_class(&d, 0x100, 0, 6);
    dg_end(&d);
    r = run_rules(&d, "preset default\n");
    cr_assert_eq(r.status, HS_OK, "%s", r.err.message);
    w = walk_dump(r.out, r.out_len, 0);
    cr_expect(w.ok, "%s", w.error);
    cr_expect_eq(w.strings, 2);
    cr_expect_eq(w.string_refs_undefined, 1, "only the one used before it was defined");
    cr_expect_eq(w.heap_records, 1);
    run_result_free(&r);
    dg_free(&d);
}

Test(strings, limit)
{
    size_t len;
    uint8_t *in = load_file("fixtures/jvm17-64bit.hprof", &len);
    hs_options opt;
    run_result r;

    memset(&opt, 0, sizeof opt);
    opt.max_held = 100000;
    r = run_filter(in, len, "default", &opt, 0);
    cr_expect_eq(r.status, HS_E_LIMIT);
    cr_expect(strstr(r.err.message, "(max_held)") != NULL, "%s", r.err.message);
    run_result_free(&r);
    free(in);
}

/* ---- the rule-file grammar ------------------------------------------------------- */

static void expect_parse_error(const char *text, const char *where, const char *what)
{
    hs_rules *rules = hs_rules_create(NULL);
    hs_error err;

    cr_expect_eq(hs_rules_parse(rules, text, strlen(text), "x.rules", &err), HS_E_USAGE,
                 "'%s' parsed", text);
    cr_expect(strncmp(err.message, where, strlen(where)) == 0, "'%s': got '%s', want '%s'",
              text, err.message, where);
    cr_expect(strstr(err.message, what) != NULL, "'%s': got '%s', want '%s'", text,
              err.message, what);
    hs_rules_free(rules);
}

Test(rulefile, errors)
{
    expect_parse_error("frobnicate all\n", "x.rules:1:1:", "unknown directive 'frobnicate'");
    expect_parse_error("# ok\n\narrays\n", "x.rules:3:", "missing words");
    expect_parse_error("arrays bytes zero\n", "x.rules:1:8:", "unknown array type 'bytes'");
    expect_parse_error("arrays byte,chr zero\n", "x.rules:1:13:", "unknown array type 'chr'");
    expect_parse_error("arrays all shred\n", "x.rules:1:12:", "unknown array action 'shred'");
    expect_parse_error("arrays all fill\n", "x.rules:1:16:", "'fill' needs a value");
    expect_parse_error("arrays all fill 256\n", "x.rules:1:17:", "fill takes a byte");
    expect_parse_error("arrays all fill ab\n", "x.rules:1:17:", "fill takes a byte");
    expect_parse_error("arrays all prefix -1\n", "x.rules:1:19:", "prefix takes a number");
    expect_parse_error("arrays all zero max 4\n", "x.rules:1:17:", "expected 'min SIZE'");
    expect_parse_error("arrays all zero min\n", "x.rules:1:20:", "'min' needs a size");
    expect_parse_error("arrays all zero min 4X\n", "x.rules:1:21:", "bad size '4X'");
    expect_parse_error("arrays all zero min 4 5\n", "x.rules:1:23:", "unexpected '5'");
    expect_parse_error("strings maybe\n", "x.rules:1:9:", "expected 'keep' or 'drop-unused'");
    expect_parse_error("strings\n", "x.rules:1:", "missing words");
    expect_parse_error("heap zygot drop\n", "x.rules:1:6:", "unknown heap 'zygot'");
    expect_parse_error("heap zygote remove\n", "x.rules:1:13:", "expected 'keep' or 'drop'");
    expect_parse_error("heap zygote drop now\n", "x.rules:1:18:", "unexpected 'now'");
    expect_parse_error("roots jni-globl drop\n", "x.rules:1:7:", "unknown root kind 'jni-globl'");
    expect_parse_error("preset fast\n", "x.rules:1:8:", "unknown preset 'fast'");
    expect_parse_error("arrays a b c d e f g h i\n", "x.rules:1:", "too many words");
    expect_parse_error("  \tarrays all zero\n\t heap 0x5A drop\nheap foo bar\n", "x.rules:3:6:",
                       "unknown heap 'foo'");
}

Test(rulefile, accepted_forms)
{
    hs_rules *rules = hs_rules_create(NULL);
    static const char text[] = "# a comment line\n"
                               "preset none   # trailing comment\n"
                               "arrays byte,char fill '#'\n"
                               "arrays all fill 0x3f min 2M\n"
                               "arrays int prefix 8 min 64\n"
                               "heap 90 drop\n"
                               "heap image drop\n"
                               "heap image keep\n"
                               "roots all keep\n"
                               "roots debugger,jni-monitor drop\n"
                               "strings drop-unused\r\n";
    char buf[2048], buf2[2048];
    hs_rules *again = hs_rules_create(NULL);
    hs_error err;

    cr_assert_eq(hs_rules_parse(rules, text, sizeof text - 1, "t", &err), HS_OK, "%s",
                 err.message);
    hs_rules_print(rules, buf, sizeof buf);
    cr_expect(strstr(buf, "arrays char,byte fill '#'\n") != NULL, "%s", buf);
    cr_expect(strstr(buf, "arrays all fill '?' min 2097152\n") != NULL, "%s", buf);
    cr_expect(strstr(buf, "arrays int prefix 8 min 64\n") != NULL, "%s", buf);
    cr_expect(strstr(buf, "heap zygote drop\n") != NULL, "%s", buf);
    cr_expect(strstr(buf, "heap image keep\n") != NULL, "%s", buf);
    cr_expect(strstr(buf, "roots debugger,jni-monitor drop\n") != NULL, "%s", buf);
    cr_expect(strstr(buf, "strings drop-unused\n") != NULL, "%s", buf);
    /* what is printed parses back to the same rules */
    cr_assert_eq(hs_rules_parse(again, buf, strlen(buf), "printed", &err), HS_OK, "%s",
                 err.message);
    hs_rules_print(again, buf2, sizeof buf2);
    cr_expect_str_eq(buf2, buf);
    hs_rules_free(rules);
    hs_rules_free(again);
}

Test(rulefile, presets_print_and_read_back)
{
    static const char *const names[] = {"none", "default", "android-app"};
    size_t i;

    for (i = 0; i < 3; i++) {
        hs_rules *a = hs_rules_create(NULL), *b = hs_rules_create(NULL);
        char pa[1024], pb[1024];
        cr_assert_eq(hs_rules_preset(a, names[i], NULL), HS_OK);
        hs_rules_print(a, pa, sizeof pa);
        cr_assert_eq(hs_rules_parse(b, pa, strlen(pa), names[i], NULL), HS_OK);
        hs_rules_print(b, pb, sizeof pb);
        cr_expect_str_eq(pa, pb);
        cr_expect_not_null(hs_preset_summary(names[i]));
        hs_rules_free(a);
        hs_rules_free(b);
    }
}

/* Presets and rule files combine in order: android-app then a file. */
Test(rulefile, presets_combine)
{
    hs_rules *r = hs_rules_create(NULL);
    char buf[1024];

    cr_assert_eq(hs_rules_preset(r, "android-app", NULL), HS_OK);
    cr_assert_eq(hs_rules_parse(r, "heap image keep\narrays char fill '?'\n", 37, "x", NULL),
                 HS_OK);
    hs_rules_print(r, buf, sizeof buf);
    cr_expect(strstr(buf, "heap zygote drop\nheap image keep\n") != NULL, "%s", buf);
    cr_expect(strstr(buf, "arrays all zero\narrays char fill '?'\n") != NULL, "%s", buf);
    /* none clears everything before it */
    cr_assert_eq(hs_rules_preset(r, "none", NULL), HS_OK);
    hs_rules_print(r, buf, sizeof buf);
    cr_expect_str_eq(buf, "strings keep\narrays all keep\n");
    hs_rules_free(r);
}

/* Rule-file forms people write by hand: spaces around a list's commas, a
 * byte-order mark from a Windows editor. */
Test(rulefile, lenient_forms)
{
    static const char *const texts[] = {"arrays char,  byte zero\n", "arrays char ,byte zero\n",
                                        "arrays char , byte zero  # both\n",
                                        "\357\273\277arrays char,byte zero\n"};
    size_t i;

    for (i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        hs_rules *r = hs_rules_create(NULL);
        hs_error err;
        char buf[1024];
        cr_assert_eq(hs_rules_parse(r, texts[i], strlen(texts[i]), "t", &err), HS_OK,
                     "'%s': %s", texts[i], err.message);
        hs_rules_print(r, buf, sizeof buf);
        cr_expect(strstr(buf, "arrays char,byte zero\n") != NULL, "'%s': %s", texts[i], buf);
        hs_rules_free(r);
    }
}

/* Mistakes get a message that says what would have been right. */
Test(rulefile, helpful_errors)
{
    /* the valid kinds, listed */
    expect_parse_error("roots jni-globl drop\n", "x.rules:1:7:", "jni-global, jni-local");
    expect_parse_error("arrays bytes zero\n", "x.rules:1:8:", "boolean, char, float");
    /* an array length is a u4: a prefix beyond it is a mistake */
    expect_parse_error("arrays all prefix 4294967296\n", "x.rules:1:19:", "prefix takes");
    expect_parse_error("arrays all prefix 0x100000000\n", "x.rules:1:19:", "prefix takes");
    /* a BOM anywhere but the start is not skipped */
    expect_parse_error("arrays all zero\n\xEF\xBB\xBFheap app drop\n", "x.rules:2:1:",
                       "unknown directive");
    /* a comma list still ends at a word without a comma */
    expect_parse_error("arrays char, byte zap\n", "x.rules:1:19:", "unknown array action");
}

Test(rulefile, prefix_at_u4_max)
{
    hs_rules *r = hs_rules_create(NULL);
    static const char t[] = "arrays all prefix 4294967295\n";
    cr_expect_eq(hs_rules_parse(r, t, sizeof t - 1, "t", NULL), HS_OK);
    hs_rules_free(r);
}

/* hs_error's message holds 320 bytes: a failure naming a longer path is
 * whole in hs_rules_message (#55), until a call succeeds */
Test(rules, the_whole_message_of_a_long_origin)
{
    hs_rules *r = hs_rules_create(NULL);
    char origin[600], want[700];
    hs_error err;

    memset(origin, 'p', sizeof origin - 1);
    origin[sizeof origin - 1] = 0;
    cr_assert_null(hs_rules_message(r));
    cr_assert_eq(hs_rules_parse(r, "bogus rule\n", 11, origin, &err), HS_E_USAGE);
    snprintf(want, sizeof want, "%s:1:1: unknown directive 'bogus'", origin);
    cr_assert_eq(strlen(err.message), sizeof err.message - 1, "cut in hs_error");
    cr_assert(strncmp(hs_rules_message(r), want, strlen(want)) == 0);
    cr_assert(strncmp(hs_rules_message(r), err.message, strlen(err.message)) == 0);
    cr_assert_eq(hs_rules_parse(r, "bogus\n", 6, origin, NULL), HS_E_USAGE);
    cr_assert_not_null(hs_rules_message(r), "made with no hs_error given too");
    cr_assert_eq(hs_rules_mapping(r, "a -> b:\n    junk\n", 17, origin, NULL), HS_E_USAGE);
    snprintf(want, sizeof want, "%s:2:9: expected a member name after the type", origin);
    cr_assert_str_eq(hs_rules_message(r), want);
    cr_assert_eq(hs_rules_preset(r, "default", NULL), HS_OK);
    cr_assert_null(hs_rules_message(r), "the last call succeeded");
    cr_assert_eq(hs_rules_preset(r, "nope", NULL), HS_E_USAGE);
    cr_assert(strncmp(hs_rules_message(r), "unknown preset 'nope'", 21) == 0);
    hs_rules_free(r);
}
