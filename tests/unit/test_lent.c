/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_lent.c - input lent in blocks (hs_source.borrow) gives what a read
 * source gives: the same bytes out on every preset, the same status, error
 * and offset on bad and cut input, wherever the blocks split the records.
 *
 * mem_borrow (helpers.c) lends each block as a fresh allocation and frees
 * it at the next call, so under ASan (make test-asan) a reader that kept a
 * pointer into a block given back fails here.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

static const char *const presets[] = {"none", "default", "privacy", "android-app"};

/* Block sizes: what the CLI's inflater lends (1 MiB), sizes that split
 * records anywhere, and the whole input as one block. */
static const size_t blocks[] = {1u << 20, 4093, 7, 0};

/* b (lent) against a (read). What an error leaves written depends on how
 * far the window had gone (hs_filter_run): then one output must be the
 * start of the other. */
static int same_bytes(const uint8_t *a, const uint8_t *b, size_t n)
{
    return n == 0 || memcmp(a, b, n) == 0; /* an empty output may be NULL */
}

static void expect_same(const run_result *a, const run_result *b, const char *what)
{
    size_t n = a->out_len < b->out_len ? a->out_len : b->out_len;

    cr_expect_eq(b->status, a->status, "%s: status %d lent, %d read", what, b->status, a->status);
    if (a->status == HS_OK || a->status == HS_SALVAGED) {
        cr_expect_eq(b->out_len, a->out_len, "%s: %zu bytes out lent, %zu read", what,
                     b->out_len, a->out_len);
        cr_expect(b->out_len == a->out_len && same_bytes(b->out, a->out, a->out_len),
                  "%s: the output differs", what);
    } else {
        cr_expect(same_bytes(b->out, a->out, n), "%s: the outputs before the error differ",
                  what);
    }
    if (a->status != HS_OK) {
        cr_expect_eq(b->err.offset, a->err.offset, "%s: error at %llu lent, %llu read", what,
                     (unsigned long long)b->err.offset, (unsigned long long)a->err.offset);
        cr_expect_str_eq(b->err.message, a->err.message, "%s", what);
    }
}

/* `in` through `preset`, read whole and lent in each block size. */
static void compare(const uint8_t *in, size_t len, const char *preset, const hs_options *opt,
                    const char *name, size_t smallest_block_for)
{
    run_result a = run_filter(in, len, preset, opt, 0);
    size_t b;

    for (b = 0; b < sizeof blocks / sizeof blocks[0]; b++) {
        char what[300];
        run_result r;
        if (blocks[b] && blocks[b] < 64 && len > smallest_block_for)
            continue; /* tiny blocks on big dumps: slow, and the small ones cover them */
        snprintf(what, sizeof what, "%s, -p %s, blocks of %zu", name, preset, blocks[b]);
        r = run_filter(in, len, preset, opt, CHUNK_LENT | blocks[b]);
        expect_same(&a, &r, what);
        run_result_free(&r);
    }
    run_result_free(&a);
}

Test(lent, every_dump_every_preset, .timeout = 600)
{
    const char *const *p;
    size_t k;
    int n = 0;

    for (p = dump_paths_sampled_upto(64u << 20); *p; p++) {
        size_t len;
        uint8_t *in = load_file(*p, &len);
        cr_assert_not_null(in, "cannot read %s", *p);
        if (len <= (64u << 20)) {
            for (k = 0; k < sizeof presets / sizeof presets[0]; k++)
                compare(in, len, presets[k], NULL, *p, 4u << 20);
            n++;
        }
        free(in);
    }
    /* three dumps at least (one with HS_TEST_DUMPS's sample: a sample of
     * the corpus's one dump over 64 MB alone takes a smaller one instead) */
    cr_expect_geq(n, getenv("HS_TEST_DUMPS") ? 1 : 3, "no dumps found");
}

/* A window smaller than the records: every fill that spans blocks must
 * grow the reader's own buffer, and CLASS_DUMPs are seen whole. */
Test(lent, tiny_window)
{
    hs_options opt;
    size_t len, k;
    uint8_t *in = load_file("fixtures/jvm17-64bit.hprof", &len);

    cr_assert_not_null(in);
    memset(&opt, 0, sizeof opt);
    opt.read_buffer = 64;
    for (k = 0; k < sizeof presets / sizeof presets[0]; k++)
        compare(in, len, presets[k], &opt, "jvm17, 64-byte window", SIZE_MAX);
    free(in);
}

/* Cut anywhere (inside the header, a record, a sub-record): the status,
 * message, offset and what came out before are those of a read source. */
Test(lent, cut_input, .timeout = 120)
{
    size_t len, at, k;
    uint8_t *in = load_file("fixtures/jvm17-64bit.hprof", &len);
    hs_options opt;
    int cuts = 0;

    cr_assert_not_null(in);
    memset(&opt, 0, sizeof opt);
    for (at = 0; at < len; at = at < 64 ? at + 1 : at * 5 / 4 + 4093) {
        for (k = 0; k < 2; k++) {
            char what[100];
            run_result a, r;
            opt.salvage = (int)k;
            snprintf(what, sizeof what, "cut at %zu%s", at, k ? ", --salvage" : "");
            a = run_filter(in, at, "default", &opt, 0);
            r = run_filter(in, at, "default", &opt, CHUNK_LENT | 4093);
            expect_same(&a, &r, what);
            run_result_free(&a);
            run_result_free(&r);
        }
        cuts++;
    }
    cr_expect_gt(cuts, 80);
    free(in);
}

/* Dumps that are broken, not cut: the same error at the same byte. */
Test(lent, corrupt_input)
{
    static const char *const bad[] = {"../shared/corpus/bad-corrupt-length-1.hprof",
                                      "../shared/corpus/bad-corrupt-length-2.hprof"};
    size_t i, k;

    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        size_t len;
        uint8_t *in;
        if (!need_shared(bad[i], "lent: the corrupt corpus dumps through every preset"))
            cr_skip_test("%s is missing", bad[i]);
        in = load_file(bad[i], &len);
        cr_assert(in, "%s does not read", bad[i]);
        for (k = 0; k < sizeof presets / sizeof presets[0]; k++)
            compare(in, len, presets[k], NULL, bad[i], SIZE_MAX);
        free(in);
    }
}

/* A source that fails: HS_E_READ, as a failing read gives. */
Test(lent, failing_source)
{
    size_t len, at;
    uint8_t *in = load_file("fixtures/jvm17-64bit.hprof", &len);

    hs_rules *rules = hs_rules_create(NULL);

    cr_assert_not_null(in);
    cr_assert_not_null(rules);
    for (at = 0; at < len; at += len / 7) {
        mem_src src = {in, len, 0, 4093, (int)at, NULL};
        mem_sink sink = {NULL, 0, 0, 0};
        hs_source s = {.borrow = mem_borrow, .ctx = &src};
        hs_sink k = {mem_write, &sink};
        hs_filter *f = hs_filter_create(rules, NULL, NULL);
        cr_assert_not_null(f);
        cr_expect_eq(hs_filter_run(f, &s, &k), HS_E_READ, "failing at %zu", at);
        cr_expect(strstr(hs_filter_error(f)->message, "reading the input failed") != NULL,
                  "failing at %zu: %s", at, hs_filter_error(f)->message);
        hs_filter_free(f);
        mem_src_free(&src);
        free(sink.data);
    }
    hs_rules_free(rules);
    free(in);
}

/* The empty input, lent: the message a read source gets. */
Test(lent, empty_input)
{
    run_result a = run_filter((const uint8_t *)"", 0, "default", NULL, 0);
    run_result r = run_filter((const uint8_t *)"", 0, "default", NULL, CHUNK_LENT | 7);

    cr_expect_neq(a.status, HS_OK);
    expect_same(&a, &r, "empty input");
    run_result_free(&a);
    run_result_free(&r);
}
