/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_limits.c - every limit holds from the first byte read: a mapping
 * parsed as it streams, under its cap (hs_rules_mapping_read), whatever the
 * source pours out; and the memory accountant, which refuses a growth that
 * would pass hs_options.max_held instead of charging it afterwards.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "count_alloc.h"
#include "helpers.h"
#include "rules.h"

#define S(s) s, strlen(s)

/* ---- sources that never end ------------------------------------------------------- */

/* An endless text: `head` once, then `body` over and over; counts what it
 * gave, and can return one byte more than asked for (a broken callback). */
typedef struct {
    const char *head, *body;
    size_t pos;       /* into head, then into body */
    int in_body;
    uint64_t given;   /* bytes returned so far */
    uint64_t limit;   /* the end of the text (0: none) */
    int overrun;      /* return cap + 1 once past the head */
} endless;

static long endless_read(void *ctx, void *buf, size_t cap)
{
    endless *e = ctx;
    char *out = buf;
    size_t n = 0;

    while (n < cap && (!e->limit || e->given + n < e->limit)) {
        const char *s = e->in_body ? e->body : e->head;
        size_t len = strlen(s), k = len - e->pos;
        if (k > cap - n)
            k = cap - n;
        memcpy(out + n, s + e->pos, k);
        n += k;
        e->pos += k;
        if (e->pos == len) {
            e->pos = 0;
            e->in_body = 1;
        }
    }
    e->given += n;
    if (e->overrun && e->in_body && n == cap)
        return (long)cap + 1;
    return (long)n;
}

static hs_status read_mapping(endless *e, uint64_t max_held, hs_alloc *a, hs_rules **out,
                              hs_error *err)
{
    hs_rules *r = hs_rules_create(a);
    hs_source src = {.read = endless_read, .ctx = e};
    hs_status s;

    cr_assert_not_null(r);
    memset(err, 0, sizeof *err);
    s = hs_rules_mapping_read(r, &src, max_held, "m.txt", err);
    if (out)
        *out = r;
    else
        hs_rules_free(r);
    return s;
}

/* A source of NUL bytes only. */
static long zeros_read(void *ctx, void *buf, size_t cap)
{
    *(uint64_t *)ctx += cap;
    memset(buf, 0, cap);
    return (long)cap;
}

Test(mapping_stream, binary_text_stops_at_once)
{
    hs_rules *r = hs_rules_create(NULL);
    uint64_t given = 0;
    hs_source src = {.read = zeros_read, .ctx = &given};
    hs_error err = {0};

    cr_assert_not_null(r);
    cr_expect_eq(hs_rules_mapping_read(r, &src, 0, "zero", &err), HS_E_USAGE);
    cr_expect_str_eq(err.message, "zero:1:1: a NUL byte in the text");
    cr_expect_leq(given, 1u << 20, "read %llu bytes of zeros", (unsigned long long)given);
    hs_rules_free(r);
}

/* One endless line with no newline: stops at 1 MiB, holding no more. */
Test(mapping_stream, endless_line_stops_at_its_limit)
{
    endless e = {"", "aaaaaaaaaaaaaaaa", 0, 0, 0, 0, 0};
    count_state cnt = {0};
    hs_alloc a = COUNT_ALLOC(&cnt);
    hs_error err;

    cr_expect_eq(read_mapping(&e, 0, &a, NULL, &err), HS_E_USAGE);
    cr_expect(strstr(err.message, "m.txt:1:") == err.message, "%s", err.message);
    cr_expect(strstr(err.message, "a line longer than 1048576 bytes") != NULL, "%s",
              err.message);
    cr_expect_leq(e.given, 2u << 20, "read %llu bytes", (unsigned long long)e.given);
    cr_expect_leq(cnt.peak, (2u << 20) + (128u << 10), "held %zu bytes", cnt.peak);
    cr_expect_eq(cnt.blocks, 0);
}

/* Valid text that never ends (what a small .gz can inflate to): stops at
 * the cap, and what was allocated never passed it. */
Test(mapping_stream, endless_mapping_stops_at_the_cap)
{
    static const uint64_t caps[] = {1u << 20, 4u << 20, 10u << 20};
    size_t i;

    for (i = 0; i < sizeof caps / sizeof caps[0]; i++) {
        endless e = {"a -> b:\n", "    int field -> g\n    void m(int):1:2 -> h\n", 0, 0, 0, 0, 0};
        count_state cnt = {0};
        hs_alloc a = COUNT_ALLOC(&cnt);
        hs_error err;
        size_t rules_bytes;
        hs_rules *r = hs_rules_create(&a);

        cr_assert_not_null(r);
        rules_bytes = cnt.bytes;
        hs_rules_free(r);
        cr_expect_eq(read_mapping(&e, caps[i], &a, NULL, &err), HS_E_LIMIT);
        cr_expect(strstr(err.message, "limit of") != NULL, "%s", err.message);
        cr_expect(strstr(err.message, "(max_held)") != NULL, "%s", err.message);
        /* the rule set and the 64 KiB read buffer are not the mapping's */
        cr_expect_leq(cnt.peak, caps[i] + rules_bytes + (64u << 10),
                      "cap %llu: %zu bytes held at once", (unsigned long long)caps[i],
                      cnt.peak);
        cr_expect_geq(cnt.peak, caps[i] / 3, "the cap is used, not refused early: %zu",
                      cnt.peak);
        cr_expect_eq(cnt.blocks, 0, "%zu blocks left", cnt.blocks);
    }
}

/* The text cut at every size of read: the same mapping, the same error. */
Test(mapping_stream, pieces_of_any_size)
{
    static const char text[] = "# compiler: R8\r\n"
                               "com.example.Foo -> a.a:\n"
                               "# {\"id\":\"sourceFile\",\"fileName\":\"Foo.kt\"}\n"
                               "    int count -> a\n"
                               "    1:3:void run(int):10:12 -> b\n"
                               "com.example.Bar -> a.b:\n"
                               "    java.lang.String name -> a"; /* no newline at the end */
    size_t chunk;

    for (chunk = 1; chunk <= sizeof text; chunk++) {
        mem_src ms = {(const uint8_t *)text, sizeof text - 1, 0, chunk, -1, NULL};
        hs_source src = {.read = mem_read, .ctx = &ms};
        hs_rules *r = hs_rules_create(NULL);
        hs_error err = {0};

        cr_assert_not_null(r);
        cr_assert_eq(hs_rules_mapping_read(r, &src, 0, "p.txt", &err), HS_OK, "chunk %zu: %s",
                     chunk, err.message);
        cr_expect_not_null(r->mapping);
        hs_rules_free(r);
    }
    for (chunk = 1; chunk < 40; chunk++) {
        static const char bad[] = "a -> b:\n    int x -> y\nc => d:\n";
        mem_src ms = {(const uint8_t *)bad, sizeof bad - 1, 0, chunk, -1, NULL};
        hs_source src = {.read = mem_read, .ctx = &ms};
        hs_rules *r = hs_rules_create(NULL);
        hs_error err = {0};

        cr_assert_not_null(r);
        cr_expect_eq(hs_rules_mapping_read(r, &src, 0, "p.txt", &err), HS_E_USAGE);
        cr_expect_str_eq(err.message, "p.txt:3:3: expected ' -> ', found '=>'", "chunk %zu",
                         chunk);
        hs_rules_free(r);
    }
}

/* The streamed mapping deobfuscates as the one handed whole. */
Test(mapping_stream, same_as_whole_text)
{
    static const char text[] = "com.example.Foo -> a.a:\n    int count -> a\n";
    mem_src ms = {(const uint8_t *)text, sizeof text - 1, 0, 5, -1, NULL};
    hs_source src = {.read = mem_read, .ctx = &ms};
    hs_source inplace = {.data = text, .size = sizeof text - 1};
    hs_rules *r = hs_rules_create(NULL);
    hs_error err = {0};

    cr_assert_not_null(r);
    cr_expect_eq(hs_rules_mapping_read(r, &src, 0, "s.txt", &err), HS_OK, "%s", err.message);
    cr_expect_eq(hs_rules_mapping_read(r, &inplace, 0, "s.txt", &err), HS_OK, "%s",
                 err.message);
    cr_expect_eq(hs_rules_mapping_read(r, &inplace, 100, "s.txt", &err), HS_E_LIMIT,
                 "a cap of 100 bytes holds no mapping");
    hs_rules_free(r);
}

/* A read that fails, or returns more than asked: HS_E_READ, and the
 * mapping loaded before stays. */
Test(mapping_stream, read_failures)
{
    static const char text[] = "a -> b:\n    int x -> y\n";
    endless e = {"a -> b:\n", "    int x -> y\n", 0, 0, 0, 0, 1};
    mem_src fail = {(const uint8_t *)text, sizeof text - 1, 0, 4, 10, NULL};
    hs_source src = {.read = mem_read, .ctx = &fail};
    hs_rules *r = NULL;
    hs_error err;

    cr_expect_eq(read_mapping(&e, 0, NULL, &r, &err), HS_E_READ);
    cr_expect(strstr(err.message, "more bytes than asked") != NULL, "%s", err.message);
    cr_assert_eq(hs_rules_mapping(r, S(text), "first.txt", &err), HS_OK);
    memset(&err, 0, sizeof err);
    cr_expect_eq(hs_rules_mapping_read(r, &src, 0, "second.txt", &err), HS_E_READ);
    cr_expect(strstr(err.message, "second.txt") != NULL, "%s", err.message);
    cr_expect_not_null(r->mapping, "the first mapping stays");
    cr_expect_str_eq(r->mapping_file, "first.txt");
    hs_rules_free(r);
}

/* ---- the accountant ------------------------------------------------------------------ */

/* An Android dump of `n` sticky-class roots naming objects that never
 * come: under android-app (a heap dropped) every root waits. */
static void roots_bomb(dump *d, uint32_t n)
{
    uint32_t i;

    dg_init(d, "JAVA PROFILE 1.0.3", 4);
    dg_begin(d, 0x1C);
    for (i = 0; i < n; i++)
        dg_root(d, 0x05, 8 * (uint64_t)i + 8);
    dg_end(d);
    dg_begin(d, 0x2C);
    dg_end(d);
}

/* The cap is never passed, not even by the growth that meets it: the
 * counted peak stays under it, and so does what was allocated past the
 * fixed buffers. */
Test(accountant, roots_stop_under_the_cap)
{
    static const uint64_t caps[] = {1u << 20, 3u << 20, 5000000};
    dump d;
    size_t i;

    roots_bomb(&d, 600000);
    for (i = 0; i < sizeof caps / sizeof caps[0]; i++) {
        hs_options opt;
        run_result r;

        memset(&opt, 0, sizeof opt);
        opt.max_held = caps[i];
        r = run_filter(d.p, d.len, "android-app", &opt, 0);
        cr_expect_eq(r.status, HS_E_LIMIT, "cap %llu: %s", (unsigned long long)caps[i],
                     r.err.message);
        cr_expect_leq(r.st.held_bytes_peak, caps[i], "cap %llu: %llu held",
                      (unsigned long long)caps[i], (unsigned long long)r.st.held_bytes_peak);
        cr_expect(strstr(r.err.message, "(max_held)") != NULL, "%s", r.err.message);
        cr_expect(strstr(r.err.message, "GC roots") != NULL, "%s", r.err.message);
        run_result_free(&r);
    }
    dg_free(&d);
}

/* What the filter allocates, fixed buffers included, against the cap: the
 * margin the man page states. */
Test(accountant, allocated_within_the_margin)
{
    dump d;
    count_state cnt = {0};
    hs_alloc a = COUNT_ALLOC(&cnt);
    hs_options opt;
    hs_rules *rules = hs_rules_create(&a);
    hs_filter *f;
    mem_src ms;
    mem_sink sink = {NULL, 0, 0, 0};
    hs_source s = {.read = mem_read, .ctx = &ms};
    hs_sink k = {mem_write, &sink};
    size_t fixed;

    roots_bomb(&d, 600000);
    memset(&ms, 0, sizeof ms);
    ms.data = d.p;
    ms.len = d.len;
    ms.fail_at = -1;
    memset(&opt, 0, sizeof opt);
    opt.max_held = 4u << 20;
    cr_assert_not_null(rules);
    cr_assert_eq(hs_rules_preset(rules, "android-app", NULL), HS_OK);
    f = hs_filter_create(rules, &opt, &a);
    cr_assert_not_null(f);
    fixed = cnt.bytes; /* the filter, its output and segment buffers */
    cr_expect_eq(hs_filter_run(f, &s, &k), HS_E_LIMIT);
    /* + the 1 MiB read window and the 1 MiB segment buffer, allocated
     * when the run starts */
    cr_expect_leq(cnt.peak, opt.max_held + fixed + (2u << 20), "peak %zu, fixed %zu", cnt.peak,
                  fixed);
    hs_filter_free(f);
    hs_rules_free(rules);
    free(sink.data);
    dg_free(&d);
    cr_expect_eq(cnt.blocks, 0);
}
