/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_core.c - findings of the review of the core, each a test that failed
 * before its fix: duplicate hashing of streamed payloads, keep-field without
 * the strings rule, the first non-zero field of a held instance, the
 * segment cap's bound, and the stats of no filter.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "count_alloc.h"
#include "helpers.h"

/* Two different 2 MiB arrays streamed through a 64 KiB window are not
 * duplicates; two equal ones are. */
Test(core, streamed_duplicates_are_hashed)
{
    static const uint8_t fills[2][2] = {{7, 9}, {7, 7}};
    int k;

    for (k = 0; k < 2; k++) {
        dump d;
        hs_options opt;
        run_result r;

        dg_init(&d, "JAVA PROFILE 1.0.2", 8);
        dg_begin(&d, 0x1C);
        dg_prim_array(&d, 0x38, 8, 2u << 20, fills[k][0]);
        dg_prim_array(&d, 0x40, 8, 2u << 20, fills[k][1]);
        dg_end(&d);
        dg_begin(&d, 0x2C);
        dg_end(&d);
        memset(&opt, 0, sizeof opt);
        opt.find_duplicates = 1;
        opt.read_buffer = 65536;
        r = run_filter(d.p, d.len, "default", &opt, 4096);
        cr_assert_eq(r.status, HS_OK, "%s", r.err.message);
        cr_expect_eq(r.st.dup_arrays[8], (uint64_t)k, "fills %u and %u: %llu duplicates",
                     fills[k][0], fills[k][1], (unsigned long long)r.st.dup_arrays[8]);
        cr_expect_eq(r.st.dup_bytes[8], k ? 2u << 20 : 0);
        run_result_free(&r);
        dg_free(&d);
    }
}

static run_result run_text(const uint8_t *in, size_t len, const char *text, const hs_options *o)
{
    hs_rules *rules = hs_rules_create(NULL);
    hs_error err;
    run_result r;

    cr_assert_eq(hs_rules_parse(rules, text, strlen(text), "test", &err), HS_OK, "%s",
                 err.message);
    r = run_with_rules(in, len, rules, o, 0);
    hs_rules_free(rules);
    return r;
}

/* keep-field works whatever the strings rule says: privacy keeps
 * String.coder with unused strings kept as with them dropped. */
Test(core, keep_field_without_dropping_strings)
{
    size_t len;
    uint8_t *in = load_file("fixtures/jvm17-64bit.hprof", &len);
    run_result a = run_text(in, len, "preset privacy\n", NULL);
    run_result b = run_text(in, len, "preset privacy\nstrings keep\n", NULL);
    run_result c = run_text(in, len, "strings keep\narrays all zero\nfields zero\n", NULL);

    cr_assert_eq(a.status, HS_OK, "%s", a.err.message);
    cr_assert_eq(b.status, HS_OK, "%s", b.err.message);
    cr_assert_eq(c.status, HS_OK, "%s", c.err.message);
    cr_expect_eq(b.st.field_bytes_scrubbed, a.st.field_bytes_scrubbed,
                 "strings keep: %llu field bytes scrubbed, drop-unused: %llu",
                 (unsigned long long)b.st.field_bytes_scrubbed,
                 (unsigned long long)a.st.field_bytes_scrubbed);
    /* and the keep list does keep something: without String.coder more goes */
    cr_expect_gt(c.st.field_bytes_scrubbed, b.st.field_bytes_scrubbed);
    run_result_free(&a);
    run_result_free(&b);
    run_result_free(&c);
    free(in);
}

/* An instance held for its class (it comes first, as ART writes them):
 * --audit's "first at" names its first non-zero field byte. */
Test(core, first_nonzero_field_of_held_instance)
{
    dump d;
    hs_options opt;
    run_result r;
    size_t at;

    dg_init(&d, "JAVA PROFILE 1.0.2", 4);
    dg_begin(&d, 0x1C);
    at = d.len + 1 + 4 + 4 + 4 + 4; /* tag, id, trace, class, length */
    dg_instance(&d, 0x100, 0x50, 8, 0x41);
    dg_u1(&d, 0x20); /* CLASS_DUMP 0x50: one long field */
    dg_id(&d, 0x50);
    dg_u4(&d, 1);
    {
        int j;
        for (j = 0; j < 6; j++)
            dg_id(&d, 0);
    }
    dg_u4(&d, 8);
    dg_u2(&d, 0);
    dg_u2(&d, 0);
    dg_u2(&d, 1);
    dg_id(&d, 0);
    dg_u1(&d, 11);
    dg_end(&d);
    dg_begin(&d, 0x2C);
    dg_end(&d);
    memset(&opt, 0, sizeof opt);
    opt.count_nonzero = 1;
    r = run_filter(d.p, d.len, "privacy", &opt, 0);
    cr_assert_eq(r.status, HS_OK, "%s", r.err.message);
    cr_expect_eq(r.st.instances_held, 1);
    cr_expect_eq(r.st.nonzero_field_bytes, 8);
    cr_expect_eq(r.st.first_nonzero_field, at, "first at %llu, expected %zu",
                 (unsigned long long)r.st.first_nonzero_field, at);
    run_result_free(&r);
    dg_free(&d);
}

/* A segment cap past what a u4 segment length can say is bounded: the
 * segment buffer never takes gigabytes. */
Test(core, segment_cap_is_bounded)
{
    count_state c = {0};
    hs_alloc a = COUNT_ALLOC(&c);
    hs_rules *rules = hs_rules_create(NULL);
    hs_options opt;
    hs_filter *f;

    if (sizeof(size_t) < 8)
        cr_skip_test("32-bit size_t");
    cr_assert_eq(hs_rules_preset(rules, "default", NULL), HS_OK);
    memset(&opt, 0, sizeof opt);
    opt.segment_cap = (size_t)5 << 30;
    f = hs_filter_create(rules, &opt, &a);
    cr_assert_not_null(f);
    {
        size_t len;
        uint8_t *in = load_file("fixtures/jvm17-64bit.hprof", &len);
        mem_src src = {in, len, 0, 0, -1, NULL};
        mem_sink snk = {NULL, 0, 0, 0};
        hs_source s = {.read = mem_read, .ctx = &src};
        hs_sink k = {mem_write, &snk};
        cr_expect_eq(hs_filter_run(f, &s, &k), HS_OK);
        free(snk.data);
        free(in);
    }
    cr_expect_leq(c.largest, (size_t)256 << 20, "largest allocation %zu", c.largest);
    hs_filter_free(f);
    cr_expect_eq(c.blocks, 0, "%zu blocks left", c.blocks);
    hs_rules_free(rules);
}

Test(core, stats_of_no_filter)
{
    hs_stats st;

    memset(&st, 0xAB, sizeof st);
    hs_filter_stats(NULL, &st);
    cr_expect_eq(st.bytes_in, 0);
    cr_expect_eq(st.dup_top[4].wasted, 0);
}

/* A STRING claiming 1 GiB, cut short: it is never held, whatever it claims,
 * so memory stays flat; the cut is still a truncation. */
Test(core, huge_string_is_not_held)
{
    dump d;
    run_result r;
    size_t i;

    dg_init(&d, "JAVA PROFILE 1.0.2", 8);
    dg_u1(&d, 0x01);
    dg_u4(&d, 0);
    dg_u4(&d, 1u << 30);
    dg_id(&d, 7);
    for (i = 0; i < (4u << 20) / 64; i++)
        dg_bytes(&d, "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", 64);
    r = run_filter(d.p, d.len, "default", NULL, 65536);
    cr_assert_eq(r.status, HS_E_TRUNCATED, "%s", r.err.message);
    cr_expect_lt(r.st.held_bytes_peak, 1u << 20, "held %llu bytes",
                 (unsigned long long)r.st.held_bytes_peak);
    cr_expect_eq(r.st.strings_unheld, 1);
    run_result_free(&r);
    dg_free(&d);
}

/* --salvage on a dump corrupt in the middle keeps every record complete
 * before the damage, as a valid dump, rather than nothing. */
Test(core, salvage_keeps_what_came_before_corruption)
{
    static const char *const bad[] = {"../shared/corpus/bad-corrupt-length-1.hprof",
                                      "../shared/corpus/bad-corrupt-length-2.hprof"};
    unsigned k;

    for (k = 0; k < 2; k++) {
        hs_options opt;
        run_result r;
        walk_result wi, wo;
        size_t len;
        uint8_t *in;

        if (!need_shared(bad[k], "core: salvage of the corrupt corpus dumps"))
            cr_skip_test("%s is missing", bad[k]);
        in = load_file(bad[k], &len);
        cr_assert(in, "%s does not read", bad[k]);
        memset(&opt, 0, sizeof opt);
        opt.salvage = 1;
        r = run_filter(in, len, "none", &opt, 0);
        cr_assert_eq(r.status, HS_SALVAGED, "%s: %s", bad[k], r.err.message);
        cr_expect_eq(r.err.code, HS_E_MALFORMED);
        wo = walk_dump(r.out, r.out_len, 0);
        cr_expect(wo.ok, "%s: salvaged output: %s", bad[k], wo.error);
        /* every record before the damage, as it was (the unknown record the
         * error blames is taken back) */
        wi = walk_dump(in, (size_t)r.err.offset, 0);
        cr_expect(wi.ok, "%s: %s", bad[k], wi.error);
        cr_expect_eq(wo.records, wi.records + (r.out_len > r.err.offset), "%s", bad[k]);
        /* (past the version string: 1.0.1 goes out as 1.0.2 when re-encoded;
         * damage before any heap record: an empty heap dump after it, a
         * HEAP_DUMP_END alone, so that the output is no dump cut before its
         * heap dump itself) */
        cr_expect((r.out_len == r.err.offset ||
                   (r.out_len == r.err.offset + 9 && r.out[r.err.offset] == 0x2C)) &&
                      memcmp(r.out + 19, in + 19, (size_t)r.err.offset - 19) == 0,
                  "%s", bad[k]);
        cr_expect(strstr(r.err.message, "every record before byte") != NULL, "%s",
                  r.err.message);
        walk_free(&wi);
        walk_free(&wo);
        run_result_free(&r);
        free(in);
    }
}

/* The class histogram: its rows add up to the objects of the input and of
 * the output (the tests' own reader counts them), every row has a name, and
 * String is named in Java's form. */
Test(core, histogram_adds_up, .timeout = 120)
{
    const char *const *p;

    for (p = dump_paths_sampled(); *p; p++) {
        static const char *const presets[] = {"none", "android-app", "privacy"};
        size_t len, k;
        uint8_t *in = load_file(*p, &len);
        walk_result wi = walk_dump(in, len, 0);

        if (!wi.ok) { /* the corrupt ones */
            walk_free(&wi);
            free(in);
            continue;
        }
        for (k = 0; k < 3; k++) {
            hs_options opt;
            run_result r;
            walk_result wo;
            uint64_t n_in = 0, n_out = 0, strings = 0;
            hs_rules *rules = hs_rules_create(NULL);
            hs_filter *f;
            mem_src src = {in, len, 0, 0, -1, NULL};
            mem_sink snk = {NULL, 0, 0, 0};
            hs_source s = {.read = mem_read, .ctx = &src};
            hs_sink o = {mem_write, &snk};
            const hs_class_count *rows;
            size_t n, j;

            memset(&opt, 0, sizeof opt);
            opt.histogram = 1;
            cr_assert_eq(hs_rules_preset(rules, presets[k], NULL), HS_OK);
            f = hs_filter_create(rules, &opt, NULL);
            r.status = hs_filter_run(f, &s, &o);
            cr_assert_eq(r.status, HS_OK, "%s %s", *p, presets[k]);
            n = hs_filter_histogram(f, &rows);
            cr_assert_gt(n, 0, "%s", *p);
            for (j = 0; j < n; j++) {
                cr_assert_not_null(rows[j].name);
                n_in += rows[j].instances_in;
                n_out += rows[j].instances_out;
                strings += strcmp(rows[j].name, "java.lang.String") == 0;
                cr_expect(!strchr(rows[j].name, '/'), "%s: %s", *p, rows[j].name);
                if (j)
                    cr_expect_geq(rows[j - 1].bytes_in, rows[j].bytes_in);
            }
            wo = walk_dump(snk.data, snk.len, 0);
            cr_expect_eq(n_in, wi.instances + wi.object_arrays + wi.primitive_arrays, "%s",
                         *p);
            cr_expect_eq(n_out, wo.instances + wo.object_arrays + wo.primitive_arrays,
                         "%s %s", *p, presets[k]);
            cr_expect_geq(strings, 1, "%s: no java.lang.String row", *p);
            walk_free(&wo);
            free(snk.data);
            hs_filter_free(f);
            hs_rules_free(rules);
        }
        walk_free(&wi);
        free(in);
    }
}

/* The histogram's class names (until the first heap dump, every short
 * STRING read or written: histo.c, then only the class names): a STRING id read
 * twice names its class by the last text, as a map's put did; a name whose
 * STRING comes only after the first heap dump is not known (class@0x...),
 * in that heap dump or a later one; a class first met in a second heap
 * dump is named from the STRINGs before the first. */
static void histogram_names_under(const char *preset)
{
    hs_options opt;
    dump d;
    hs_rules *rules = hs_rules_create(NULL);
    hs_filter *f;
    const hs_class_count *rows;
    mem_src src;
    mem_sink sink = {NULL, 0, 0, 0};
    hs_source s = {.read = mem_read, .ctx = &src};
    hs_sink k = {mem_write, &sink};
    size_t n, j;
    int first = 0, second = 0, late = 0, third = 0;

    memset(&opt, 0, sizeof opt);
    opt.histogram = 1;
    dg_init(&d, "JAVA PROFILE 1.0.2", 8);
    dg_string(&d, 0x10, "com/ex/First");
    dg_string(&d, 0x11, "com/ex/Third");
    dg_string(&d, 0x10, "com/ex/Second"); /* the same id again: this one names */
    dg_load_class(&d, 1, 0x100, 0x10);
    dg_load_class(&d, 2, 0x200, 0x12);
    dg_load_class(&d, 3, 0x300, 0x11);
    dg_begin(&d, 0x1c);
    dg_instance(&d, 0x500, 0x100, 4, 0);
    dg_instance(&d, 0x501, 0x200, 4, 0);
    dg_end(&d);
    dg_string(&d, 0x12, "com/ex/Late"); /* after the first heap dump */
    dg_begin(&d, 0x1c);
    dg_instance(&d, 0x502, 0x300, 4, 0);
    dg_instance(&d, 0x503, 0x200, 4, 0);
    dg_end(&d);
    dg_begin(&d, 0x2c);
    dg_end(&d);
    src = (mem_src){d.p, d.len, 0, 0, -1, NULL};
    cr_assert_eq(hs_rules_preset(rules, preset, NULL), HS_OK);
    f = hs_filter_create(rules, &opt, NULL);
    cr_assert_eq(hs_filter_run(f, &s, &k), HS_OK, "%s", preset);
    n = hs_filter_histogram(f, &rows);
    cr_assert_eq(n, 3, "%s", preset);
    for (j = 0; j < n; j++) {
        first += strcmp(rows[j].name, "com.ex.First") == 0;
        second += strcmp(rows[j].name, "com.ex.Second") == 0 && rows[j].instances_in == 1;
        late += strcmp(rows[j].name, "class@0x200") == 0 && rows[j].instances_in == 2;
        third += strcmp(rows[j].name, "com.ex.Third") == 0 && rows[j].instances_in == 1;
    }
    cr_expect_eq(first, 0, "%s: the first text of a STRING read twice named a class", preset);
    cr_expect_eq(second, 1, "%s", preset);
    cr_expect_eq(late, 1, "%s: a name read after the first heap dump", preset);
    cr_expect_eq(third, 1, "%s", preset);
    hs_filter_free(f);
    hs_rules_free(rules);
    free(sink.data);
    dg_free(&d);
}

/* "none" keeps every STRING as read (histo.c's list); the others hold
 * them until used (strrec.c), and the histogram takes a class name's text
 * when its LOAD_CLASS writes it. */
Test(core, histogram_class_names_from_the_strings_before_the_heap)
{
    histogram_names_under("none");
    histogram_names_under("default");
    histogram_names_under("privacy");
}

/* The run's warnings (hs_filter_warning) for keep-field rules of the
 * caller that kept nothing; none for a preset's own keep-fields. */
static size_t warnings_of(const uint8_t *in, size_t len, const char *text, char *all,
                          size_t cap, hs_stats *st)
{
    hs_rules *rules = hs_rules_create(NULL);
    hs_filter *f;
    hs_error err;
    mem_src src = {in, len, 0, 0, -1, NULL};
    mem_sink snk = {NULL, 0, 0, 0};
    hs_source s = {.read = mem_read, .ctx = &src};
    hs_sink d = {mem_write, &snk};
    const char *w;
    size_t n = 0;

    cr_assert_eq(hs_rules_parse(rules, text, strlen(text), "test", &err), HS_OK, "%s",
                 err.message);
    f = hs_filter_create(rules, NULL, NULL);
    cr_assert_eq(hs_filter_warning(f, 0), NULL, "a warning before the run");
    cr_assert_eq(hs_filter_run(f, &s, &d), HS_OK);
    all[0] = 0;
    while ((w = hs_filter_warning(f, n)) != NULL) {
        snprintf(all + strlen(all), cap - strlen(all), "%s\n", w);
        n++;
    }
    hs_filter_stats(f, st);
    hs_filter_free(f);
    hs_rules_free(rules);
    free(snk.data);
    return n;
}

Test(core, keep_field_warnings)
{
    size_t len;
    uint8_t *in = load_file("fixtures/jvm17-64bit.hprof", &len);
    char all[2048];
    hs_stats st;

    cr_assert_not_null(in);
    cr_expect_eq(warnings_of(in, len, "preset privacy\n", all, sizeof all, &st), 0, "%s", all);
    cr_expect_eq(warnings_of(in, len,
                             "preset privacy\nkeep-field java.lang.Thread.priority\n"
                             "keep-field java/lang/Thread.nosuch\n"
                             "keep-field java.lang.Thread.contextClassLoader\n",
                             all, sizeof all, &st),
                 2, "%s", all);
    cr_expect(strstr(all, "java/lang/Thread.nosuch: no class") != NULL, "%s", all);
    cr_expect(strstr(all, "contextClassLoader: a reference field") != NULL, "%s", all);
    cr_expect(strstr(all, "priority") == NULL, "%s", all);
    cr_expect_eq(st.keep_fields_unmatched, 1);
    cr_expect_eq(st.keep_fields_reference, 1);
    /* without field zeroing, every keep-field is moot, and said so */
    cr_expect_eq(warnings_of(in, len, "preset default\nkeep-field java.lang.Thread.priority\n",
                             all, sizeof all, &st),
                 1, "%s", all);
    cr_expect(strstr(all, "fields are not zeroed") != NULL, "%s", all);
    cr_expect_eq(hs_filter_warning(NULL, 0), NULL);
    free(in);
}
