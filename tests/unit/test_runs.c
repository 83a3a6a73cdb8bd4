/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_runs.c - fastpath.c walks most objects in runs (hs_fast_run), a fast
 * path that must do exactly what sub_record() would: the same bytes out
 * and the same counters. The oracle is the same run with the runs turned
 * off (hs_fast_path) and a histogram, which must not change the output;
 * the runs then count the histogram too, and their rows must be the walk's
 * to the byte.
 *
 * Also hs_rules_zero_below(), which tells runs which arrays they may zero,
 * and the layouts cached for scrubbing instance fields in runs.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "rules.h"

static hs_rules *rules_of(const char *text)
{
    hs_rules *r = hs_rules_create(NULL);
    hs_error err;

    cr_assert(r);
    cr_assert_eq(hs_rules_parse(r, text, strlen(text), "test", &err), HS_OK, "%s", err.message);
    return r;
}

Test(runs, zero_below_follows_rule_order)
{
    static const struct {
        const char *rules;
        unsigned type;
        uint64_t below;
    } cases[] = {
        {"preset none\n", 8, 0},
        {"preset default\n", 8, UINT64_MAX},
        {"preset default\n", 11, UINT64_MAX},
        {"preset none\narrays all zero min 4000\n", 8, 0},
        {"preset none\narrays all zero\narrays int keep min 1K\n", 10, 1024},
        {"preset none\narrays all zero\narrays int keep min 1K\n", 8, UINT64_MAX},
        {"preset none\narrays int keep min 1K\narrays all zero\n", 10, UINT64_MAX},
        {"preset none\narrays all zero\narrays byte fill 1\n", 8, 0},
        {"preset none\narrays all zero\narrays byte fill 1 min 64\narrays byte empty min 16\n",
         8, 16},
        {"preset none\narrays char prefix 4\n", 5, 0},
        {"preset none\narrays char zero\n", 8, 0},
    };
    size_t k;

    for (k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        hs_rules *r = rules_of(cases[k].rules);
        cr_expect_eq(hs_rules_zero_below(r, cases[k].type), cases[k].below,
                     "case %zu (%s type %u): %llu", k, cases[k].rules, cases[k].type,
                     (unsigned long long)hs_rules_zero_below(r, cases[k].type));
        hs_rules_free(r);
    }
}

/* Runs `rules_text` over `in` with runs and without a histogram, with
 * neither runs nor histogram's walk alone (the oracle: runs off and a
 * histogram), and with runs and a histogram, and checks that outputs and
 * counters agree, and that the two histograms are the same rows; returns
 * how many sub-records went out. */
static uint64_t same_with_and_without_runs(const char *path, const uint8_t *in, size_t len,
                                           const char *rules_text, int to_jvm, size_t chunk)
{
    hs_rules *rules = rules_of(rules_text);
    hs_options fast, slow;
    run_result a, b, c;
    char *rows_b = NULL, *rows_c = NULL;
    uint64_t out;

    memset(&fast, 0, sizeof fast);
    fast.to_jvm = to_jvm;
    slow = fast;
    slow.histogram = 1;
    a = run_paths(in, len, rules, &fast, chunk, 1, NULL);
    b = run_paths(in, len, rules, &slow, chunk, 0, &rows_b);
    c = run_paths(in, len, rules, &slow, chunk, 1, &rows_c);
    cr_expect_eq(a.status, b.status, "%s [%s] to_jvm %d: status %d vs %d (%s)", path, rules_text,
                 to_jvm, a.status, b.status, a.err.message);
    cr_expect(a.out_len == b.out_len && memcmp(a.out, b.out, a.out_len) == 0,
              "%s [%s] to_jvm %d: outputs differ (%zu vs %zu bytes)", path, rules_text, to_jvm,
              a.out_len, b.out_len);
    /* every counter but the memory peaks, which the histogram raises */
#define HS_COUNTER_CHECK(name, kind, what)                                                                \
    if (strcmp(#name, "held_bytes_peak") != 0)                                                    \
        cr_expect_eq(a.st.name, b.st.name, "%s [%s] to_jvm %d: " #name " %llu with runs, %llu "   \
                     "without", path, rules_text, to_jvm, (unsigned long long)a.st.name,          \
                     (unsigned long long)b.st.name);
    HS_STATS_COUNTERS(HS_COUNTER_CHECK)
#undef HS_COUNTER_CHECK
    /* the histogram counted in runs: everything the walk's run gives */
    cr_expect_eq(c.status, b.status, "%s [%s] to_jvm %d, histogram: status %d vs %d", path,
                 rules_text, to_jvm, c.status, b.status);
    cr_expect(c.out_len == b.out_len && memcmp(c.out, b.out, c.out_len) == 0,
              "%s [%s] to_jvm %d, histogram: outputs differ", path, rules_text, to_jvm);
    cr_expect(memcmp(&c.st, &b.st, sizeof c.st) == 0, "%s [%s] to_jvm %d, histogram: hs_stats "
              "differ", path, rules_text, to_jvm);
    cr_expect((rows_b == NULL) == (rows_c == NULL), "%s [%s]: rows in one histogram only", path,
              rules_text);
    if (b.status == HS_OK)
        cr_expect(rows_b != NULL, "%s [%s] to_jvm %d: no histogram rows", path, rules_text, to_jvm);
    if (rows_b && rows_c)
        cr_expect_str_eq(rows_c, rows_b, "%s [%s] to_jvm %d: histogram rows differ with runs",
                         path, rules_text, to_jvm);
    out = a.st.subrecords_out;
    free(rows_b);
    free(rows_c);
    run_result_free(&a);
    run_result_free(&b);
    run_result_free(&c);
    hs_rules_free(rules);
    return out;
}

/* Every real dump, through every kind of run: skipping dropped heaps,
 * copying while roots are held, copying roots and objects, zeroing arrays
 * under a size, heap switches inside runs, scrubbing instance fields. */
Test(runs, same_bytes_and_counters_as_the_slow_path, .timeout = 600)
{
    static const char *const rule_sets[] = {
        "preset none\n",
        "preset default\n",
        "preset android-app\n",
        "preset default\narrays int keep min 64\narrays char fill 7 min 256\n",
        "preset none\nstrings drop-unused\nroots jni-local drop\n",
        "preset privacy\n",
        "preset none\nfields zero\nkeep-field java.lang.String.hash\n",
        "preset android-app\nfields zero\n",
    };
    const char *const *paths = dump_paths_sampled_upto(64u << 20);
    uint64_t total = 0;
    size_t k, j;

    for (k = 0; paths[k]; k++) {
        size_t len;
        uint8_t *in = load_file(paths[k], &len);
        if (!in || strstr(paths[k], "bad-"))
            goto next;
        if (len > (64u << 20))
            goto next; /* the OOM dump: one array, nothing for runs */
        for (j = 0; j < sizeof rule_sets / sizeof rule_sets[0]; j++) {
            total += same_with_and_without_runs(paths[k], in, len, rule_sets[j], 0, CHUNK_MAPPED);
            total += same_with_and_without_runs(paths[k], in, len, rule_sets[j], 1, 0);
        }
        /* a small read window ends runs everywhere */
        total += same_with_and_without_runs(paths[k], in, len, "preset android-app\n", 0, 4096);
    next:
        free(in);
    }
    /* (any sample of them under HS_TEST_DUMPS: make test-asan, test-clang) */
    cr_assert_gt(total, getenv("HS_TEST_DUMPS") ? 0 : 1000000,
                 "the dumps hold enough sub-records to matter (%llu)",
                 (unsigned long long)total);
}
