/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_api.c - the library used directly, as another C program would: the
 * lifecycle, the allocator hooks, failure injection, and memory bounds.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "count_alloc.h"
#include "helpers.h"

static hs_status run_with(count_state *c, const char *preset, const uint8_t *in, size_t len,
                          size_t *out_len, const hs_options *opt)
{
    hs_alloc a = COUNT_ALLOC(c);
    mem_src src = {in, len, 0, 0, -1, NULL};
    mem_sink sink = {NULL, 0, 0, 0};
    hs_source s = {.read = mem_read, .ctx = &src};
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
    hs_source s = {.read = mem_read, .ctx = &src};
    hs_sink k = {mem_write, &sink};
    hs_rules *rules = hs_rules_create(NULL);
    hs_filter *f;
    hs_stats st;

    dg_everything(&d, 4, 1);
    src = (mem_src){d.p, d.len, 0, 0, -1, NULL};
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

/* The command's table of outcomes, public since 0.2 (the CLI's report and
 * its signal handler read it through these calls): each status's exit
 * code, report name and retryability, and back from an exit code. */
Test(api, outcome_table)
{
    static const struct {
        hs_status s;
        int exit_code;
        const char *name;
        int retry;
    } rows[] = {
        {HS_OK, HS_EXIT_OK, "ok", 0},
        {HS_SALVAGED, HS_EXIT_SALVAGED, "salvaged", 0},
        {HS_E_MALFORMED, HS_EXIT_BAD_INPUT, "malformed", 0},
        {HS_E_TRUNCATED, HS_EXIT_TRUNCATED, "truncated", 0},
        {HS_E_UNSUPPORTED, HS_EXIT_BAD_INPUT, "unsupported", 0},
        {HS_E_READ, HS_EXIT_IO, "read", 1},
        {HS_E_WRITE, HS_EXIT_IO, "write", 1},
        {HS_E_LIMIT, HS_EXIT_LIMIT, "limit", 0},
        {HS_E_NOMEM, HS_EXIT_LIMIT, "nomem", 1},
        {HS_E_USAGE, HS_EXIT_USAGE, "usage", 0},
        {HS_E_CANCELLED, HS_EXIT_CANCELLED, "cancelled", 1},
    };
    size_t i;

    for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        cr_expect_eq(hs_status_exit(rows[i].s), rows[i].exit_code, "row %zu", i);
        cr_expect_str_eq(hs_status_name(rows[i].s), rows[i].name, "row %zu", i);
        cr_expect_eq(hs_status_retryable(rows[i].s), rows[i].retry, "row %zu", i);
    }
    /* a status this library does not know: the input's fault */
    cr_expect_str_eq(hs_status_name((hs_status)-100), "malformed");
    cr_expect_eq(hs_status_exit((hs_status)-100), HS_EXIT_BAD_INPUT);
    cr_expect_eq(hs_status_of_exit(HS_EXIT_IO), HS_E_READ);
    cr_expect_eq(hs_status_of_exit(HS_EXIT_LIMIT), HS_E_LIMIT);
    cr_expect_eq(hs_status_of_exit(HS_EXIT_CANCELLED), HS_E_CANCELLED);
    cr_expect_eq(hs_status_of_exit(HS_EXIT_AUDIT), HS_E_MALFORMED); /* no status gives 7 */
    cr_expect_eq(hs_status_of_exit(99), HS_E_MALFORMED);
}

Test(api, basic_type_names)
{
    cr_expect_str_eq(hs_basic_type_name(4), "boolean");
    cr_expect_str_eq(hs_basic_type_name(8), "byte");
    cr_expect_str_eq(hs_basic_type_name(11), "long");
    cr_expect_str_eq(hs_basic_type_name(2), "");
    cr_expect_str_eq(hs_basic_type_name(12), "?");
}

/* the heaps' names the report and the command's histogram share (#53) */
Test(api, heap_names)
{
    cr_expect_str_eq(hs_heap_name('A'), "app");
    cr_expect_str_eq(hs_heap_name('Z'), "zygote");
    cr_expect_str_eq(hs_heap_name('I'), "image");
    cr_expect_str_eq(hs_heap_name(0), "default");
    cr_expect_str_eq(hs_heap_name('J'), "other");
}

/* Every allocation the library makes is returned, on success and on every
 * failure path, and a failed allocation is reported, never a crash. */
Test(api, allocation_failures)
{
    dump d;
    count_state c;
    size_t n, total, out_len;
    hs_options opt;

    dg_everything(&d, 8, 1);
    memset(&opt, 0, sizeof opt);
    opt.repack = 1;
    memset(&c, 0, sizeof c);
    c.fail_at = 1000000;
    cr_assert_eq(run_with(&c, "default", d.p, d.len, &out_len, &opt), HS_OK);
    cr_expect_eq(c.blocks, 0, "leak on success");
    total = c.calls;
    cr_expect_gt(total, 2);
    for (n = 1; n <= total; n++) {
        hs_status st;
        memset(&c, 0, sizeof c);
        c.fail_at = n;
        st = run_with(&c, "default", d.p, d.len, NULL, &opt);
        cr_expect_eq(st, HS_E_NOMEM, "failing allocation %zu gave status %d", n, st);
        cr_expect_eq(c.blocks, 0, "leak when allocation %zu fails", n);
    }
    dg_free(&d);
}

/* Memory does not depend on the input: a 256 MB array and a record claiming
 * 4 GB go through in the same few megabytes. */
Test(api, memory_is_bounded, .timeout = 60)
{
    dump d;
    count_state c;
    size_t out_len;
    hs_options opt;
    int repack;

    dg_one_array(&d, 11, 32u << 20, 0x42); /* 256 MB of longs */
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

/* ---- zero-copy input ------------------------------------------------------ */

/* The input sits in pages of its own; each time the filter says it is done
 * with a stretch, those pages are made unreadable. Reading behind what it
 * gave back (a stale pointer, a look back) faults instead of passing. */
typedef struct {
    uint8_t *base; /* page-aligned copy of the input */
    size_t len, page, guarded;
    uint64_t last_done, last_next;
    unsigned calls, bad_order;
} guarded_input;

static void guard_window(void *ctx, uint64_t done, uint64_t next)
{
    guarded_input *g = ctx;
    size_t upto = (size_t)done / g->page * g->page;

    if (done < g->last_done || next < done || next > g->len || next < g->last_next)
        g->bad_order++;
    g->last_done = done;
    g->last_next = next;
    g->calls++;
    if (upto > g->guarded) {
        cr_assert_eq(mprotect(g->base + g->guarded, upto - g->guarded, PROT_NONE), 0);
        g->guarded = upto;
    }
}

static void run_guarded(const uint8_t *in, size_t len, const char *preset, hs_options *opt,
                        const char *what)
{
    guarded_input g = {0};
    size_t map_len;
    hs_rules *rules = hs_rules_create(NULL);
    hs_filter *f;
    mem_sink sink = {NULL, 0, 0, 0};
    hs_source src = {.window = guard_window};
    hs_sink dst = {mem_write, &sink};
    run_result plain;
    hs_status s;

    g.page = (size_t)sysconf(_SC_PAGESIZE);
    map_len = (len + g.page - 1) / g.page * g.page;
    g.base = mmap(NULL, map_len ? map_len : g.page, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    cr_assert_neq(g.base, MAP_FAILED);
    memcpy(g.base, in, len);
    g.len = len;
    src.ctx = &g;
    src.data = g.base;
    src.size = len;
    cr_assert_eq(hs_rules_preset(rules, preset, NULL), HS_OK);
    f = hs_filter_create(rules, opt, NULL);
    cr_assert_not_null(f);
    s = hs_filter_run(f, &src, &dst);
    plain = run_with_rules(in, len, rules, opt, 4093);
    cr_expect_eq(s, plain.status, "%s %s: %d, read: %d", what, preset, s, plain.status);
    cr_expect(sink.len == plain.out_len &&
                  (!sink.len || memcmp(sink.data, plain.out, sink.len) == 0),
              "%s %s: output differs from the read source's", what, preset);
    cr_expect_eq(g.bad_order, 0, "%s %s: window calls out of order", what, preset);
    cr_expect_gt(g.calls, 0);
    cr_expect_eq(g.last_next, len, "%s %s: never reached the end", what, preset);
    run_result_free(&plain);
    free(sink.data);
    hs_filter_free(f);
    hs_rules_free(rules);
    munmap(g.base, map_len ? map_len : g.page);
}

Test(zero_copy, never_reads_what_it_gave_back, .timeout = 300)
{
    static const char *const presets[] = {"none", "default", "android-app", "privacy"};
    const char *const *p;
    size_t i;

    for (p = dump_paths_sampled_upto(64u << 20); *p; p++) {
        size_t len;
        uint8_t *in = load_file(*p, &len);
        hs_options opt;
        if (len > (64u << 20)) {
            free(in);
            continue;
        }
        for (i = 0; i < sizeof presets / sizeof presets[0]; i++) {
            memset(&opt, 0, sizeof opt);
            opt.read_buffer = 4096 * (i + 1); /* many windows */
            run_guarded(in, len, presets[i], &opt, *p);
        }
        memset(&opt, 0, sizeof opt);
        opt.repack = 1;
        opt.read_buffer = 64; /* smaller than a CLASS_DUMP */
        run_guarded(in, len, "none", &opt, *p);
        /* cut short and salvaged */
        memset(&opt, 0, sizeof opt);
        opt.salvage = 1;
        run_guarded(in, len - len / 3, "default", &opt, *p);
        free(in);
    }
}

/* With the input in place the filter allocates no read window: its peak is
 * the output buffer and bookkeeping, well under a read window more. */
Test(zero_copy, allocates_no_read_buffer)
{
    dump d;
    count_state c;
    hs_alloc a = COUNT_ALLOC(&c);
    hs_rules *rules = hs_rules_create(NULL);
    hs_filter *f;
    mem_sink sink = {NULL, 0, 0, 0};
    hs_source src = {.read = NULL};
    hs_sink dst = {mem_write, &sink};

    dg_one_array(&d, 8, 4u << 20, 0x42); /* 4 MB of bytes */
    memset(&c, 0, sizeof c);
    f = hs_filter_create(rules, NULL, &a);
    cr_assert_not_null(f);
    src.data = d.p;
    src.size = d.len;
    cr_expect_eq(hs_filter_run(f, &src, &dst), HS_OK);
    cr_expect(sink.len == d.len && memcmp(sink.data, d.p, d.len) == 0);
    hs_filter_free(f);
    cr_expect_eq(c.blocks, 0);
    cr_expect_lt(c.peak, (1u << 20) + (256u << 10), "peak %zu bytes", c.peak);
    free(sink.data);
    hs_rules_free(rules);
    dg_free(&d);
}
