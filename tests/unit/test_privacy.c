/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_privacy.c - the privacy preset, checked field by field by the
 * tests' own decoder: every primitive value zeroed, every reference as it
 * was, every object still there.
 */
#define _GNU_SOURCE /* memmem */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

Test(privacy, every_dump, .timeout = 300)
{
    const char *const *p;

    for (p = dump_paths_sampled_upto(64u << 20); *p; p++) {
        size_t len;
        uint8_t *in = load_file(*p, &len);
        hs_options count = {.count_nonzero = 1};
        run_result r;
        walk_result wi, wo;
        fields_result fi, fo;

        if (len > (64u << 20)) {
            free(in);
            continue;
        }
        r = run_filter(in, len, "privacy", &count, 0);
        cr_assert_eq(r.status, HS_OK, "%s: %s", *p, r.err.message);
        cr_expect_gt(r.st.nonzero_field_bytes, 0, "%s: the count saw nothing scrubbed", *p);
        wi = walk_dump(in, len, 0);
        wo = walk_dump(r.out, r.out_len, 0);
        cr_expect(wo.ok, "%s: %s", *p, wo.error);
        cr_expect_eq(wo.instances, wi.instances, "%s", *p);
        cr_expect_eq(wo.object_arrays, wi.object_arrays, "%s", *p);
        cr_expect_eq(wo.primitive_arrays, wi.primitive_arrays, "%s", *p);
        cr_expect_eq(wo.payload_bytes, wi.payload_bytes, "%s", *p);
        cr_expect_eq(wo.class_dumps, wi.class_dumps, "%s", *p);
        cr_expect_eq(wo.nonzero_payload_bytes, 0, "%s", *p);
        cr_expect_eq(wo.strings_unused, 0, "%s", *p);
        fi = check_fields(in, len);
        fo = check_fields(r.out, r.out_len);
        cr_expect_eq(fo.instances + fo.instances_missing_class,
                     fi.instances + fi.instances_missing_class, "%s", *p);
        cr_expect_eq(fo.refs, fi.refs, "%s: references changed", *p);
        cr_expect_eq(fo.layout_mismatches, 0, "%s", *p);
        cr_expect_eq(fo.nonzero_field_bytes, 0, "%s: %llu non-zero field bytes left", *p,
                     (unsigned long long)fo.nonzero_field_bytes);
        cr_expect_eq(fo.nonzero_static_bytes, 0, "%s: %llu non-zero static bytes left", *p,
                     (unsigned long long)fo.nonzero_static_bytes);
        cr_expect_gt(fi.nonzero_field_bytes + fi.nonzero_static_bytes, 0,
                     "%s: the input had nothing to scrub", *p);
        /* a second pass finds nothing more to do */
        {
            run_result again = run_filter(r.out, r.out_len, "privacy", &count, 0);
            cr_expect_eq(again.status, HS_OK);
            cr_expect_eq(again.st.nonzero_field_bytes + again.st.nonzero_array_bytes, 0, "%s",
                         *p);
            run_result_free(&again);
        }
        run_result_free(&r);
        free(in);
    }
}

/* Instances that come before their class dump (as in ART dumps) wait for it
 * and are written in the heap they were in; one whose class never comes is
 * written with every byte zeroed. */
Test(privacy, instances_before_their_class)
{
    dump d;
    run_result r;
    walk_result w;
    fields_result fr;

    dg_init(&d, "JAVA PROFILE 1.0.3", 4);
    dg_string(&d, 0x10, "zygote");
    dg_string(&d, 0x11, "value");
    dg_begin(&d, 0x1C);
    dg_heap_info(&d, 'Z', 0x10);
    dg_instance(&d, 0x100, 0x50, 8, 0x77); /* an int and a reference */
    dg_instance(&d, 0x108, 0x60, 4, 0x66); /* class 0x60 never comes */
    dg_end(&d);
    dg_begin(&d, 0x1C);
    dg_class(&d, 0x50, 0, 0x11);
    dg_end(&d);
    dg_begin(&d, 0x2C);
    dg_end(&d);
    r = run_filter(d.p, d.len, "privacy", NULL, 0);
    cr_assert_eq(r.status, HS_OK, "%s", r.err.message);
    cr_expect_eq(r.st.instances_held, 2);
    cr_expect_eq(r.st.instances_unresolved, 1);
    w = walk_dump(r.out, r.out_len, 0);
    cr_expect(w.ok, "%s", w.error);
    cr_expect_eq(w.instances, 2);
    cr_expect_eq(w.objects_in_heap[2], 2, "the instances must stay in the zygote heap");
    fr = check_fields(r.out, r.out_len);
    cr_expect_eq(fr.nonzero_field_bytes, 0);
    cr_expect(memmem(r.out, r.out_len, "\x77\x77\x77\x77", 4) != NULL,
              "the reference (0x77777777) must survive");
    cr_expect(memmem(r.out, r.out_len, "\x66\x66", 2) == NULL);
    run_result_free(&r);
    dg_free(&d);
}

Test(privacy, rules)
{
    hs_rules *rl = hs_rules_create(NULL);
    char buf[2048];
    hs_error e;

    cr_assert_eq(hs_rules_preset(rl, "privacy", NULL), HS_OK);
    hs_rules_print(rl, buf, sizeof buf);
    cr_expect(strstr(buf, "fields zero\n") != NULL, "%s", buf);
    cr_expect(strstr(buf, "keep-field java.lang.String.coder byte\n") != NULL, "%s", buf);
    cr_expect(strstr(buf, "arrays all zero\n") != NULL, "%s", buf);
    cr_expect_eq(hs_rules_parse(rl, "keep-field nodot\n", 17, "x", &e), HS_E_USAGE);
    cr_expect(strstr(e.message, "x:1:12:") != NULL, "%s", e.message);
    cr_expect_eq(hs_rules_parse(rl, "fields shred\n", 13, "x", &e), HS_E_USAGE);
    cr_expect(strstr(e.message, "x:1:8: expected 'zero' or 'keep'") != NULL, "%s", e.message);
    hs_rules_free(rl);
}

/* Duplicates are found from the contents before any rule changes them,
 * whole in the window or hashed chunk by chunk, and counted by type. */
Test(privacy, duplicate_arrays)
{
    dump d;
    hs_options opt;
    run_result r;
    size_t chunk;

    dg_init(&d, "JAVA PROFILE 1.0.2", 8);
    dg_begin(&d, 0x1C);
    dg_prim_array(&d, 0x10, 8, 100, 'a');
    dg_prim_array(&d, 0x18, 8, 100, 'a'); /* copy */
    dg_prim_array(&d, 0x20, 8, 100, 'a'); /* copy */
    dg_prim_array(&d, 0x28, 8, 100, 'b'); /* other contents */
    dg_prim_array(&d, 0x30, 5, 50, 'a');  /* same bytes, other type */
    dg_prim_array(&d, 0x38, 10, 1u << 19, 7);
    dg_prim_array(&d, 0x40, 10, 1u << 19, 7); /* a 2 MiB copy */
    dg_end(&d);
    dg_begin(&d, 0x2C); /* HEAP_DUMP_END */
    dg_end(&d);
    for (chunk = 0; chunk <= 4096; chunk += 4096) {
        memset(&opt, 0, sizeof opt);
        opt.find_duplicates = 1;
        opt.read_buffer = 65536; /* the big ones stream through */
        r = run_filter(d.p, d.len, "privacy", &opt, chunk);
        cr_assert_eq(r.status, HS_OK, "%s", r.err.message);
        cr_expect_eq(r.st.dup_arrays[8], 2);
        cr_expect_eq(r.st.dup_bytes[8], 200);
        cr_expect_eq(r.st.dup_arrays[5], 0);
        cr_expect_eq(r.st.dup_arrays[10], 1);
        cr_expect_eq(r.st.dup_bytes[10], 2u << 20);
        cr_expect_eq(r.st.dup_top[0].type, 10);
        cr_expect_eq(r.st.dup_top[0].wasted, 2u << 20);
        cr_expect_eq(r.st.dup_top[1].length_bytes, 100);
        cr_expect_eq(r.st.dup_top[1].copies, 2);
        cr_expect_eq(walk_dump(r.out, r.out_len, 0).nonzero_payload_bytes, 0);
        run_result_free(&r);
    }
    dg_free(&d);
}

/* A spill store in memory, for the test below. */
typedef struct {
    uint8_t *p;
    size_t cap;
    int fail;
} mem_spill;

static int spill_write(void *ctx, uint64_t off, const void *buf, size_t len)
{
    mem_spill *s = ctx;
    if (s->fail)
        return -1;
    if (off + len > s->cap) {
        s->cap = (size_t)(off + len) * 2;
        s->p = realloc(s->p, s->cap);
    }
    memcpy(s->p + off, buf, len);
    return 0;
}

static int spill_read(void *ctx, uint64_t off, void *buf, size_t len)
{
    mem_spill *s = ctx;
    memcpy(buf, s->p + off, len);
    return 0;
}

/* Held instances go to the spill store past hold_in_memory, and the output
 * is the same as when they stay in memory. */
Test(privacy, spilled_instances)
{
    const char *const *p;

    for (p = dump_paths(); *p; p++) {
        size_t len;
        uint8_t *in;
        run_result a, b;
        hs_options opt;
        mem_spill sp = {NULL, 0, 0};

        if (!strstr(*p, "android"))
            continue;
        in = load_file(*p, &len);
        a = run_filter(in, len, "privacy", NULL, 0);
        memset(&opt, 0, sizeof opt);
        opt.hold_in_memory = 1;
        opt.spill.write = spill_write;
        opt.spill.read = spill_read;
        opt.spill.ctx = &sp;
        b = run_filter(in, len, "privacy", &opt, 0);
        cr_assert_eq(b.status, HS_OK, "%s: %s", *p, b.err.message);
        cr_expect_gt(b.st.instance_bytes_spilled_peak, 0, "%s: nothing spilled", *p);
        cr_expect(a.out_len == b.out_len && memcmp(a.out, b.out, a.out_len) == 0,
                  "%s: spilling changed the output", *p);
        run_result_free(&b);
        sp.fail = 1; /* a spill store that fails is an error, not a silent loss */
        b = run_filter(in, len, "privacy", &opt, 0);
        cr_expect_eq(b.status, HS_E_WRITE, "%s", *p);
        cr_expect(strstr(b.err.message, "spill") != NULL, "%s", b.err.message);
        run_result_free(&a);
        run_result_free(&b);
        free(sp.p);
        free(in);
    }
}

/* A class with no fields at all (java.lang.Object in some dumps) still
 * resolves the instances waiting for it (valgrind found them read as
 * "class missing" once). */
Test(privacy, class_without_fields)
{
    dump d;
    run_result r;

    dg_init(&d, "JAVA PROFILE 1.0.2", 4);
    dg_begin(&d, 0x1C);
    dg_instance(&d, 0x100, 0x50, 0, 0);
    dg_u1(&d, 0x20); /* CLASS_DUMP 0x50: no super, no constants, statics or fields */
    dg_id(&d, 0x50);
    dg_u4(&d, 1);
    {
        int j;
        for (j = 0; j < 6; j++)
            dg_id(&d, 0);
    }
    dg_u4(&d, 0);
    dg_u2(&d, 0);
    dg_u2(&d, 0);
    dg_u2(&d, 0);
    dg_end(&d);
    dg_begin(&d, 0x2C); /* HEAP_DUMP_END */
    dg_end(&d);
    r = run_filter(d.p, d.len, "privacy", NULL, 0);
    cr_assert_eq(r.status, HS_OK, "%s", r.err.message);
    cr_expect_eq(r.st.instances_held, 1);
    cr_expect_eq(r.st.instances_unresolved, 0);
    cr_expect_eq(walk_dump(r.out, r.out_len, 0).instances, 1);
    run_result_free(&r);
    dg_free(&d);
}
