/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_strings_order.c - under a rule that drops unused STRINGs, no unused
 * STRING is ever written, whatever the order the records come in (STRINGs
 * before or after LOAD_CLASS, between heap segments, after the heap dump,
 * ART's order of class dumps among objects), each written STRING comes
 * before its first user, and none stands between two heap segments when
 * the heap dump fits the stage (VisualVM reads the segments as one run).
 * The outputs are read by the tests' own walker (helpers.c), never through
 * the filter's counters.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

/* String ids: USED_* are named by some record the rules keep, UNUSED_* by
 * none; "secret" texts stand for the program's literals. */
enum {
    CLASS_NAME = 0x100,
    FIELD_A = 0x101,
    FIELD_B = 0x102,
    FIELD_C = 0x103,
    HEAP_APP = 0x104,
    HEAP_ZYGOTE = 0x105,
    METHOD = 0x106,
    UNUSED_BASE = 0x900
};

static void unused_strings(dump *d, uint64_t first, unsigned n)
{
    unsigned j;
    char text[40];

    for (j = 0; j < n; j++) {
        snprintf(text, sizeof text, "secret literal %u", (unsigned)(first + j));
        dg_string(d, first + j, text);
    }
}

static void heap_end(dump *d)
{
    dg_begin(d, 0x2C);
    dg_end(d);
}

static void stack_frame(dump *d, uint64_t id, uint64_t name)
{
    dg_begin(d, 0x04);
    dg_id(d, id);
    dg_id(d, name);
    dg_id(d, name);
    dg_id(d, name);
    dg_u4(d, 1);
    dg_u4(d, 7);
    dg_end(d);
}

/* The orders a dump's STRINGs may come in. */
enum {
    HOTSPOT,        /* every STRING first, then LOAD_CLASS, then the heap */
    AFTER_LOAD,     /* unused STRINGs after LOAD_CLASS (--mapping's output) */
    BETWEEN,        /* a field name and unused ones between heap segments */
    AFTER_HEAP,     /* unused ones after HEAP_DUMP_END, a used one too */
    ART,            /* 1.0.3: class dumps among objects, heap switches */
    N_ORDERS
};
static const char *const order_name[] = {"hotspot", "after-load-class", "between-segments",
                                         "after-heap", "art"};

static void build(dump *d, int order)
{
    const int art = order == ART;
    const unsigned i = art ? 4 : 8;
    const uint32_t isize = 4 + i;

    dg_init(d, art ? "JAVA PROFILE 1.0.3" : "JAVA PROFILE 1.0.2", i);
    dg_string(d, CLASS_NAME, "com/example/Card");
    dg_string(d, FIELD_A, "number");
    if (order != BETWEEN)
        dg_string(d, FIELD_B, "holder");
    dg_string(d, FIELD_C, "expiry");
    dg_string(d, HEAP_APP, "app");
    dg_string(d, HEAP_ZYGOTE, "zygote");
    if (order == HOTSPOT || order == ART)
        unused_strings(d, UNUSED_BASE, 40);
    dg_load_class(d, 1, 0x200, CLASS_NAME);
    dg_load_class(d, 2, 0x300, CLASS_NAME);
    dg_load_class(d, 3, 0x400, CLASS_NAME);
    if (order == AFTER_LOAD)
        unused_strings(d, UNUSED_BASE, 40);
    dg_begin(d, 0x1C);
    if (art)
        dg_heap_info(d, 'Z', HEAP_ZYGOTE);
    dg_class(d, 0x200, 0, FIELD_A);
    if (!art && order != BETWEEN)
        dg_class(d, 0x300, 0, FIELD_B);
    if (order == HOTSPOT || order == AFTER_HEAP) /* HotSpot: class dumps first */
        dg_class(d, 0x400, 0, FIELD_C);
    dg_instance(d, 0x1000, 0x200, isize, 0x11);
    if (art) {
        dg_heap_info(d, 'A', HEAP_APP);
        dg_class(d, 0x300, 0, FIELD_B);
        dg_instance(d, 0x1008, 0x300, isize, 0x22);
    }
    dg_end(d);
    if (order == BETWEEN) {
        dg_string(d, FIELD_B, "holder");
        unused_strings(d, UNUSED_BASE, 40);
    }
    dg_begin(d, 0x1C);
    if (order == BETWEEN)
        dg_class(d, 0x300, 0, FIELD_B);
    if (art)
        dg_heap_info(d, 'A', HEAP_APP);
    dg_instance(d, 0x1010, 0x200, isize, 0x33);
    if (order != HOTSPOT && order != AFTER_HEAP)
        dg_class(d, 0x400, 0, FIELD_C);
    dg_instance(d, 0x1018, 0x400, isize, 0x44);
    dg_end(d);
    heap_end(d);
    if (order == AFTER_HEAP) {
        unused_strings(d, UNUSED_BASE, 40);
        dg_string(d, METHOD, "main");
        stack_frame(d, 0x50, METHOD);
    }
}

/* The STRING records between the first heap record and the last one. */
static unsigned strings_between_segments(const uint8_t *p, size_t n)
{
    size_t at = (size_t)((const uint8_t *)memchr(p, 0, 32) - p) + 1 + 12;
    unsigned strings = 0, between = 0;
    int heap = 0;

    while (at + 9 <= n) {
        const unsigned tag = p[at];
        const size_t len = (size_t)p[at + 5] << 24 | (size_t)p[at + 6] << 16 |
                           (size_t)p[at + 7] << 8 | p[at + 8];
        if (tag == 0x0C || tag == 0x1C) {
            between += heap ? strings : 0; /* strings since the last one */
            heap = 1;
            strings = 0;
        } else if (tag == 0x01 && heap) {
            strings++;
        } else if (tag == 0x2C) {
            heap = 0;
        }
        at += 9 + len;
    }
    return between;
}

static int has_literal(const uint8_t *p, size_t n)
{
    size_t at;

    for (at = 0; p && at + 14 <= n; at++)
        if (memcmp(p + at, "secret literal", 14) == 0)
            return 1;
    return 0;
}

static void check_output(const run_result *r, const char *what, int input_between)
{
    walk_result w;

    cr_assert_eq(r->status, HS_OK, "%s: %d %s", what, r->status, r->err.message);
    w = walk_dump(r->out, r->out_len, 0);
    cr_assert(w.ok, "%s: %s", what, w.error);
    cr_expect_eq(w.strings_unused, 0, "%s: %llu unused STRINGs written", what,
                 (unsigned long long)w.strings_unused);
    cr_expect_eq(w.string_refs_undefined, 0, "%s: %llu names used before their STRING", what,
                 (unsigned long long)w.string_refs_undefined);
    cr_expect(!has_literal(r->out, r->out_len), "%s: a literal left", what);
    if (!input_between) /* else the input's order is the output's */
        cr_expect_eq(strings_between_segments(r->out, r->out_len), 0,
                     "%s: a STRING between heap segments", what);
    walk_free(&w);
}

Test(strings_order, no_unused_string_in_any_order)
{
    static const char *const presets[] = {"default", "privacy"};
    static const size_t chunks[] = {0, 7, 4093};
    int order, p, to_jvm;
    size_t c;

    for (order = 0; order < N_ORDERS; order++)
        for (p = 0; p < 2; p++)
            for (to_jvm = 0; to_jvm <= (order == ART); to_jvm++)
                for (c = 0; c < 3; c++) {
                    hs_options o;
                    run_result r;
                    char what[120];
                    dump d;

                    build(&d, order);
                    memset(&o, 0, sizeof o);
                    o.to_jvm = to_jvm;
                    o.segment_cap = 512; /* a few sub-records a segment */
                    r = run_filter(d.p, d.len, presets[p], &o, chunks[c]);
                    snprintf(what, sizeof what, "%s, -p %s%s, chunk %zu", order_name[order],
                             presets[p], to_jvm ? " --to-jvm" : "", chunks[c]);
                    check_output(&r, what, order == BETWEEN);
                    run_result_free(&r);
                    dg_free(&d);
                }
}

/* An output re-stripped: what one run writes, a second run (another
 * preset) reads, its STRINGs now in the order the first one wrote. */
Test(strings_order, restripped_output)
{
    int order;

    for (order = 0; order < N_ORDERS; order++) {
        hs_options o;
        run_result a, b;
        dump d;

        build(&d, order);
        memset(&o, 0, sizeof o);
        a = run_filter(d.p, d.len, "none", &o, 0);
        cr_assert_eq(a.status, HS_OK);
        b = run_filter(a.out, a.out_len, "privacy", &o, 0);
        check_output(&b, order_name[order], order == BETWEEN);
        run_result_free(&a);
        run_result_free(&b);
        dg_free(&d);
    }
}

/* Past the memory cap the run fails (HS_E_LIMIT) rather than write what
 * it holds: no STRING record the rules drop reaches the output. */
Test(strings_order, cap_fails_rather_than_write)
{
    hs_options o;
    run_result r;
    dump d;
    unsigned j;

    dg_init(&d, "JAVA PROFILE 1.0.2", 8);
    dg_string(&d, CLASS_NAME, "com/example/Card");
    dg_load_class(&d, 1, 0x200, CLASS_NAME);
    for (j = 0; j < 4000; j++) {
        char text[200];
        memset(text, 'x', sizeof text - 1);
        text[sizeof text - 1] = 0;
        memcpy(text, "secret literal", 14);
        dg_string(&d, UNUSED_BASE + j, text);
    }
    dg_begin(&d, 0x1C);
    dg_class(&d, 0x200, 0, CLASS_NAME);
    dg_end(&d);
    heap_end(&d);
    memset(&o, 0, sizeof o);
    o.max_held = 256u << 10;
    r = run_filter(d.p, d.len, "privacy", &o, 0);
    cr_expect_eq(r.status, HS_E_LIMIT, "status %d: %s", r.status, r.err.message);
    cr_expect(strstr(r.err.message, "STRING") || strstr(r.err.message, "string"), "%s",
              r.err.message);
    cr_expect(!has_literal(r.out, r.out_len), "a held STRING was written");
    run_result_free(&r);
    dg_free(&d);
}
