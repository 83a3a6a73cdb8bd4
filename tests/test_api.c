/*
 * test_api.c - the library used directly, as another C program would: the
 * lifecycle, the allocator hooks, failure injection, and memory bounds.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

/* A counting allocator that can fail its Nth call. Each block carries its
 * size in a header so the peak of live bytes can be tracked. */
typedef struct {
    long calls, fail_at; /* fail_at: 1-based call to fail, 0 = never */
    long live_blocks;
    size_t live, peak;
} counter;

static void *count_alloc(void *opaque, size_t size)
{
    counter *c = opaque;
    size_t *p;

    if (c->fail_at && ++c->calls == c->fail_at)
        return NULL;
    p = malloc(size + sizeof(size_t) * 2);
    if (!p)
        return NULL;
    p[0] = size;
    c->live += size;
    c->live_blocks++;
    if (c->live > c->peak)
        c->peak = c->live;
    return p + 2;
}

static void count_free(void *opaque, void *ptr)
{
    counter *c = opaque;
    size_t *p = (size_t *)ptr - 2;

    c->live -= p[0];
    c->live_blocks--;
    free(p);
}

static hs_status run_with(counter *c, const char *preset, const uint8_t *in, size_t len,
                          size_t *out_len, const hs_options *opt)
{
    hs_alloc a = {count_alloc, count_free, c};
    mem_src src = {in, len, 0, 0, -1};
    mem_sink sink = {NULL, 0, 0, 0};
    hs_source s = {mem_read, &src};
    hs_sink k = {mem_write, &sink};
    hs_rules *rules = hs_rules_create(&a);
    hs_filter *f;
    hs_status st;

    if (!rules)
        return HS_E_NOMEM;
    if (hs_rules_preset(rules, preset, NULL) != HS_OK) {
        hs_rules_free(rules);
        return HS_E_USAGE;
    }
    f = hs_filter_create(rules, opt, &a);
    if (!f) {
        hs_rules_free(rules);
        return HS_E_NOMEM;
    }
    st = hs_filter_run(f, &s, &k);
    if (st != HS_OK)
        cr_expect_not_null(hs_filter_error(f));
    else
        cr_expect_null(hs_filter_error(f));
    hs_filter_free(f);
    hs_rules_free(rules);
    free(sink.data);
    if (out_len)
        *out_len = sink.len;
    return st;
}

Test(api, lifecycle_and_stats)
{
    dump d;
    mem_src src;
    mem_sink sink = {NULL, 0, 0, 0};
    hs_source s = {mem_read, &src};
    hs_sink k = {mem_write, &sink};
    hs_rules *rules = hs_rules_create(NULL);
    hs_filter *f;
    hs_stats st;

    dg_everything(&d, 4, 1);
    src = (mem_src){d.p, d.len, 0, 0, -1};
    cr_assert_not_null(rules);
    cr_assert_eq(hs_rules_preset(rules, "default", NULL), HS_OK);
    f = hs_filter_create(rules, NULL, NULL);
    cr_assert_not_null(f);
    cr_expect_null(hs_filter_error(f), "no error before running");
    cr_expect_eq(hs_filter_run(f, &s, &k), HS_OK);
    hs_filter_stats(f, &st);
    cr_expect_eq(st.bytes_in, d.len);
    cr_expect_eq(st.bytes_out, sink.len);
    cr_expect_eq(st.instances, 1);
    cr_expect_eq(st.object_arrays, 1);
    cr_expect_eq(st.primitive_arrays, 10);
    cr_expect_eq(st.class_dumps, 1);
    cr_expect_eq(st.roots, 16);
    cr_expect_eq(st.payload_bytes_zeroed, 5 * (1 + 2 + 4 + 8 + 1 + 2 + 4 + 8));
    /* a filter runs once */
    cr_expect_eq(hs_filter_run(f, &s, &k), HS_E_USAGE);
    cr_expect_not_null(hs_filter_error(f));
    hs_filter_free(f);
    hs_rules_free(rules);
    free(sink.data);
    dg_free(&d);
}

Test(api, null_is_harmless)
{
    hs_filter_free(NULL);
    hs_rules_free(NULL);
    cr_expect_null(hs_filter_create(NULL, NULL, NULL));
    cr_expect_null(hs_filter_error(NULL));
    cr_expect_eq(hs_filter_run(NULL, NULL, NULL), HS_E_USAGE);
}

Test(api, unknown_preset)
{
    hs_rules *rules = hs_rules_create(NULL);
    hs_error e;

    cr_expect_eq(hs_rules_preset(rules, "nonesuch", &e), HS_E_USAGE);
    cr_expect(strstr(e.message, "nonesuch") != NULL);
    hs_rules_free(rules);
}

Test(api, status_strings)
{
    cr_expect_str_eq(hs_status_str(HS_E_TRUNCATED), "truncated input");
    cr_expect_str_eq(hs_status_str(HS_OK), "success");
}

/* Every allocation the library makes is returned, on success and on every
 * failure path, and a failed allocation is reported, never a crash. */
Test(api, allocation_failures)
{
    dump d;
    counter c;
    long n, total;
    size_t out_len;
    hs_options opt;

    dg_everything(&d, 8, 1);
    memset(&opt, 0, sizeof opt);
    opt.repack = 1;
    memset(&c, 0, sizeof c);
    c.fail_at = 1000000;
    cr_assert_eq(run_with(&c, "default", d.p, d.len, &out_len, &opt), HS_OK);
    cr_expect_eq(c.live_blocks, 0, "leak on success");
    total = c.calls;
    cr_expect_gt(total, 2);
    for (n = 1; n <= total; n++) {
        hs_status st;
        memset(&c, 0, sizeof c);
        c.fail_at = n;
        st = run_with(&c, "default", d.p, d.len, NULL, &opt);
        cr_expect_eq(st, HS_E_NOMEM, "failing allocation %ld gave status %d", n, st);
        cr_expect_eq(c.live_blocks, 0, "leak when allocation %ld fails", n);
    }
    dg_free(&d);
}

/* Memory does not depend on the input: a 256 MB array and a record claiming
 * 4 GB go through in the same few megabytes. */
Test(api, memory_is_bounded, .timeout = 60)
{
    dump d;
    counter c;
    size_t out_len;
    hs_options opt;
    int repack;

    dg_init(&d, "JAVA PROFILE 1.0.2", 8);
    dg_begin(&d, 0x1C);
    dg_prim_array(&d, 0x10, 11, 32u << 20, 0x42); /* 256 MB of longs */
    dg_end(&d);
    dg_begin(&d, 0x2C);
    dg_end(&d);
    for (repack = 0; repack <= 1; repack++) {
        memset(&opt, 0, sizeof opt);
        opt.repack = repack;
        memset(&c, 0, sizeof c);
        cr_expect_eq(run_with(&c, repack ? "default" : "none", d.p, d.len, &out_len, &opt),
                     HS_OK);
        cr_expect_eq(out_len, d.len);
        cr_expect_lt(c.peak, 8u << 20, "peak %zu bytes", c.peak);
    }
    dg_free(&d);

    /* an unknown record claiming 4 GB, cut short: no 4 GB allocation */
    dg_init(&d, "JAVA PROFILE 1.0.2", 8);
    dg_u1(&d, 0x77);
    dg_u4(&d, 0);
    dg_u4(&d, 0xffffffffu);
    dg_bytes(&d, "abc", 3);
    memset(&c, 0, sizeof c);
    cr_expect_eq(run_with(&c, "none", d.p, d.len, NULL, NULL), HS_E_TRUNCATED);
    cr_expect_lt(c.peak, 8u << 20);
    dg_free(&d);
}
