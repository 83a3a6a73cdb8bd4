/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_fastpath.c - the heap decoder's two paths (heap.c's sub-record walk
 * and fastpath.c's runs of plain objects) held to the same result: every
 * dump the suites know (corpus, fixtures, build/fresh) through every
 * built-in preset, with the fast path on and off (its internal switch,
 * hs_fast_path), must give the same status, the same bytes and the same
 * counters, the memory peaks included.
 *
 * test_runs.c compares runs with a histogram against the walk with one
 * (runs count it too), over more rule sets; this one runs every preset
 * with and without a histogram, and the staging, findings and hashing
 * options. With a histogram, its rows must be the same both ways.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "fastpath.h"
#include "helpers.h"
#include "rules.h"

/* Both paths over one input; returns the sub-records written. */
static uint64_t both_paths(const char *path, const uint8_t *in, size_t len, const char *preset,
                           const hs_options *opt, size_t chunk)
{
    hs_rules *rules = hs_rules_create(NULL);
    hs_error err;
    run_result a, b;
    char *rows_a = NULL, *rows_b = NULL;
    uint64_t out;

    cr_assert(rules);
    cr_assert_eq(hs_rules_preset(rules, preset, &err), HS_OK, "%s", err.message);
    a = run_paths(in, len, rules, opt, chunk, 1, &rows_a);
    b = run_paths(in, len, rules, opt, chunk, 0, &rows_b);
    cr_expect_eq(a.status, b.status, "%s -p %s chunk %zu: status %d fast, %d walked (%s)", path,
                 preset, chunk, a.status, b.status, a.err.message);
    cr_expect_str_eq(a.err.message, b.err.message, "%s -p %s: messages differ", path, preset);
    cr_expect(a.out_len == b.out_len && memcmp(a.out, b.out, a.out_len) == 0,
              "%s -p %s chunk %zu: outputs differ (%zu bytes fast, %zu walked)", path, preset,
              chunk, a.out_len, b.out_len);
#define SAME_COUNTER(name, kind, what)                                                             \
    cr_expect_eq(a.st.name, b.st.name, "%s -p %s chunk %zu: " #name " %llu fast, %llu walked",   \
                 path, preset, chunk, (unsigned long long)a.st.name,                              \
                 (unsigned long long)b.st.name);
    HS_STATS_COUNTERS(SAME_COUNTER)
#undef SAME_COUNTER
    cr_expect(memcmp(&a.st, &b.st, sizeof a.st) == 0, "%s -p %s: hs_stats differ", path, preset);
    cr_expect((rows_a == NULL) == (rows_b == NULL), "%s -p %s: rows in one histogram only", path,
              preset);
    if (opt->histogram && b.status == HS_OK)
        cr_expect(rows_b != NULL, "%s -p %s: no histogram rows", path, preset);
    if (rows_a && rows_b)
        cr_expect_str_eq(rows_a, rows_b, "%s -p %s chunk %zu: histogram rows differ", path, preset,
                         chunk);
    free(rows_a);
    free(rows_b);
    out = a.st.subrecords_out;
    run_result_free(&a);
    run_result_free(&b);
    hs_rules_free(rules);
    return out;
}

/* The switch is what the differential test rests on: on, runs walk most
 * of a real dump's objects; off, none. */
Test(fastpath, the_switch_turns_runs_off)
{
    const char *const *paths = dump_paths();
    size_t k;
    int seen = 0;

    for (k = 0; paths[k] && !seen; k++) {
        size_t len;
        uint8_t *in = load_file(paths[k], &len);
        hs_rules *rules = hs_rules_create(NULL);
        hs_filter *f;
        int on;

        cr_assert(rules);
        cr_assert_eq(hs_rules_preset(rules, "default", NULL), HS_OK);
        for (on = 1; in && on >= 0; on--) {
            mem_sink sink = {NULL, 0, 0, 0};
            hs_source s = {.data = in, .size = len};
            hs_sink out = {mem_write, &sink};
            f = hs_filter_create(rules, NULL, NULL);
            cr_assert(f);
            hs_fast_path(f, on);
            if (hs_filter_run(f, &s, &out) == HS_OK) {
                hs_stats st;
                hs_filter_stats(f, &st);
                if (on)
                    seen = hs_fast_walked(f) * 2 > st.subrecords_in;
                else
                    cr_expect_eq(hs_fast_walked(f), 0, "%s: runs with the fast path off",
                                 paths[k]);
            }
            hs_filter_free(f);
            free(sink.data);
        }
        hs_rules_free(rules);
        free(in);
    }
    cr_expect(seen, "no dump had most of its sub-records walked in runs");
    for (k = 0; hs_preset_name(k); k++)
        cr_expect(hs_preset_summary(hs_preset_name(k)), "preset %s has no summary",
                  hs_preset_name(k));
    cr_expect_geq(k, 4, "the presets: none, default, privacy, android-app at least (%zu)", k);
}

Test(fastpath, same_bytes_and_stats_on_every_dump_and_preset, .timeout = 900)
{
    /* (a sample of the dumps under HS_TEST_DUMPS: make test-asan, test-clang) */
    const char *const *paths = dump_paths_sampled();
    int sampled = getenv("HS_TEST_DUMPS") != NULL;
    uint64_t total = 0;
    size_t k, j, dumps = 0;

    for (k = 0; paths[k]; k++) {
        size_t len;
        uint8_t *in = load_file(paths[k], &len);
        hs_options opt;

        if (!in)
            continue;
        dumps++;
        for (j = 0; hs_preset_name(j); j++) {
            memset(&opt, 0, sizeof opt);
            total += both_paths(paths[k], in, len, hs_preset_name(j), &opt, CHUNK_MAPPED);
            /* --to-jvm, reading: runs end where the window does */
            opt.to_jvm = 1;
            total += both_paths(paths[k], in, len, hs_preset_name(j), &opt, 65537);
            /* the histogram, counted in runs as in the walk (issue #38) */
            memset(&opt, 0, sizeof opt);
            opt.histogram = 1;
            total += both_paths(paths[k], in, len, hs_preset_name(j), &opt, CHUNK_MAPPED);
        }
        /* --audit's counting and findings (which see every zeroed byte) */
        memset(&opt, 0, sizeof opt);
        opt.findings = 1;
        total += both_paths(paths[k], in, len, "privacy", &opt, CHUNK_MAPPED);
        free(in);
    }
    cr_assert_geq(dumps, sampled ? 1 : 3, "dumps read: %zu", dumps);
    cr_assert_gt(total, sampled ? 0 : 1000000, "the dumps hold enough sub-records to matter (%llu)",
                 (unsigned long long)total);
}
