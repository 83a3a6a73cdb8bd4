/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_records.c - hand-built dumps that use every record and sub-record
 * tag, with 4- and 8-byte ids, through every path of the codec.
 */
#define _GNU_SOURCE /* memmem */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "helpers.h"

struct variant {
    unsigned idsize;
    int android;
};

ParameterizedTestParameters(records, everything)
{
    static struct variant v[] = {{4, 0}, {8, 0}, {4, 1}, {8, 1}};
    return cr_make_param_array(struct variant, v, sizeof v / sizeof v[0]);
}

ParameterizedTest(struct variant *v, records, everything)
{
    dump d;
    walk_result wi, wo;
    run_result r;
    hs_options opt;
    size_t chunk;

    dg_everything(&d, v->idsize, v->android);
    wi = walk_dump(d.p, d.len, 0);
    cr_assert(wi.ok, "test dump itself is bad: %s", wi.error);
    cr_expect_eq(wi.roots, v->android ? 16u : 9u);

    /* identity, whole and byte by byte */
    for (chunk = 0; chunk <= 1; chunk++) {
        r = run_filter(d.p, d.len, "none", NULL, chunk);
        cr_expect_eq(r.status, HS_OK, "%s", r.err.message);
        cr_expect(r.out_len == d.len && memcmp(r.out, d.p, d.len) == 0);
        run_result_free(&r);
    }

    /* re-encoded: same content, tiny segments */
    memset(&opt, 0, sizeof opt);
    opt.repack = 1;
    opt.segment_cap = 64;
    for (chunk = 0; chunk <= 1; chunk++) {
        r = run_filter(d.p, d.len, "none", &opt, chunk);
        cr_assert_eq(r.status, HS_OK, "%s", r.err.message);
        wo = walk_dump(r.out, r.out_len, 0);
        cr_expect(wo.ok, "%s", wo.error);
        cr_expect_eq(wo.digest, wi.digest);
        cr_expect_eq(wo.subrecords - wo.heap_infos, wi.subrecords - wi.heap_infos);
        cr_expect_gt(wo.heap_records, 3);
        cr_expect_eq(wo.empty_heap_records, 0);
        cr_expect_leq(wo.max_multi_segment, 64);
        cr_expect(wo.ends_with_heap_dump_end);
        cr_expect_eq(wo.heap_dump_ends, 1);
        run_result_free(&r);
    }

    /* default: payloads zeroed, nothing else changed */
    r = run_filter(d.p, d.len, "default", NULL, 0);
    cr_assert_eq(r.status, HS_OK, "%s", r.err.message);
    wo = walk_dump(r.out, r.out_len, WALK_ZERO_PAYLOADS | WALK_NO_STRINGS);
    cr_expect(wo.ok, "%s", wo.error);
    cr_expect_eq(wo.nonzero_payload_bytes, 0);
    /* and the record of unknown tag dropped: it cannot be examined (#35) */
    {
        static const uint8_t opaque[] = {0x42, 0, 0, 0, 0, 0, 0, 0, 6, 'o', 'p', 'a', 'q', 'u', 'e'};
        uint8_t *at = memmem(d.p, d.len, opaque, sizeof opaque);
        cr_assert(at != NULL);
        memmove(at, at + sizeof opaque, d.len - (size_t)(at - d.p) - sizeof opaque);
        d.len -= sizeof opaque;
    }
    cr_expect_eq(wo.digest, walk_dump(d.p, d.len, WALK_ZERO_PAYLOADS | WALK_NO_STRINGS).digest);
    cr_expect_eq(r.st.unknown_records_dropped, 1);
    cr_expect(memmem(r.out, r.out_len, "opaque", 6) == NULL);
    cr_expect_gt(wi.nonzero_payload_bytes, 0);
    run_result_free(&r);
    dg_free(&d);
}

/* A 1.0.1 dump with one HEAP_DUMP comes out re-encoded as 1.0.2 segments
 * closed by a HEAP_DUMP_END. */
Test(records, heap_dump_becomes_segments)
{
    dump d;
    hs_options opt;
    run_result r;
    walk_result wo;
    int j;

    dg_init(&d, "JAVA PROFILE 1.0.1", 8);
    dg_begin(&d, 0x0C);
    for (j = 0; j < 100; j++)
        dg_instance(&d, 0x1000 + 16 * (unsigned)j, 0x10, 40, 7);
    dg_end(&d);
    memset(&opt, 0, sizeof opt);
    opt.repack = 1;
    opt.segment_cap = 1000;
    r = run_filter(d.p, d.len, "none", &opt, 0);
    cr_assert_eq(r.status, HS_OK, "%s", r.err.message);
    wo = walk_dump(r.out, r.out_len, 0);
    cr_expect_str_eq(wo.version, "JAVA PROFILE 1.0.2");
    cr_expect_eq(wo.instances, 100);
    cr_expect_geq(wo.heap_records, 6);
    cr_expect_eq(wo.heap_dump_ends, 1);
    cr_expect(wo.ends_with_heap_dump_end);
    cr_expect_eq(wo.digest, walk_dump(d.p, d.len, 0).digest);
    run_result_free(&r);
    dg_free(&d);
}

/* A sub-record larger than a segment streams through in a segment of its
 * own, with the HEAP_DUMP_INFO of its heap inside that segment. */
Test(records, big_array_gets_own_segment)
{
    dump d;
    hs_options opt;
    run_result r;
    walk_result wi, wo;

    dg_init(&d, "JAVA PROFILE 1.0.3", 4);
    dg_string(&d, 0x10, "zygote");
    dg_begin(&d, 0x1C);
    dg_heap_info(&d, 'Z', 0x10);
    dg_instance(&d, 0x100, 0x10, 8, 1);
    dg_prim_array(&d, 0x200, 8, 3u << 20, 0x33);
    dg_instance(&d, 0x300, 0x10, 8, 2);
    dg_end(&d);
    dg_begin(&d, 0x2C);
    dg_end(&d);
    memset(&opt, 0, sizeof opt);
    opt.repack = 1;
    opt.segment_cap = 1u << 20;
    r = run_filter(d.p, d.len, "none", &opt, 0);
    cr_assert_eq(r.status, HS_OK, "%s", r.err.message);
    wi = walk_dump(d.p, d.len, 0);
    wo = walk_dump(r.out, r.out_len, 0);
    cr_expect_eq(wo.digest, wi.digest, "heap context lost across segments");
    cr_expect_eq(wo.heap_records, 3);
    cr_expect_eq(wo.heap_infos, 3);
    cr_expect_eq(wo.max_segment, (3u << 20) + 1 + 4 + 9 + 1 + 4 + 4);
    run_result_free(&r);
    dg_free(&d);
}

/* Every segment starts in the default heap: objects that follow a segment
 * boundary in the input must not inherit the previous segment's heap in
 * the output. */
Test(records, segment_boundary_resets_heap)
{
    dump d;
    hs_options opt;
    run_result r;

    dg_init(&d, "JAVA PROFILE 1.0.3", 4);
    dg_begin(&d, 0x1C);
    dg_heap_info(&d, 'Z', 0x10);
    dg_instance(&d, 0x100, 0x10, 8, 1);
    dg_end(&d);
    dg_begin(&d, 0x1C);
    dg_root(&d, 0xFF, 0x100);
    dg_instance(&d, 0x108, 0x10, 8, 1);
    dg_end(&d);
    dg_begin(&d, 0x2C); /* HEAP_DUMP_END */
    dg_end(&d);
    memset(&opt, 0, sizeof opt);
    opt.repack = 1;
    r = run_filter(d.p, d.len, "none", &opt, 0);
    cr_assert_eq(r.status, HS_OK, "%s", r.err.message);
    cr_expect_eq(walk_dump(r.out, r.out_len, 0).digest, walk_dump(d.p, d.len, 0).digest);
    cr_expect_eq(walk_dump(r.out, r.out_len, 0).heap_records, 2);
    run_result_free(&r);
    dg_free(&d);
}

/* HotSpot 7/8 may leave a HEAP_DUMP's length at 0 when it stops before
 * patching it: the sub-records after it run to the end of the input. */
Test(records, zero_length_heap_dump_runs_to_eof)
{
    dump d;
    hs_options opt;
    run_result r;
    walk_result wo;

    dg_init(&d, "JAVA PROFILE 1.0.1", 4);
    dg_string(&d, 1, "x");
    dg_begin(&d, 0x0C);
    dg_end(&d); /* length 0 */
    dg_class(&d, 0x10, 0, 1);
    dg_instance(&d, 0x100, 0x10, 8, 1);
    r = run_filter(d.p, d.len, "none", NULL, 0);
    cr_expect_eq(r.status, HS_OK, "%s", r.err.message);
    cr_expect(r.out_len == d.len && memcmp(r.out, d.p, d.len) == 0);
    run_result_free(&r);
    memset(&opt, 0, sizeof opt);
    opt.repack = 1;
    r = run_filter(d.p, d.len, "none", &opt, 1);
    cr_assert_eq(r.status, HS_OK, "%s", r.err.message);
    wo = walk_dump(r.out, r.out_len, 0);
    cr_expect(wo.ok, "%s", wo.error);
    cr_expect_eq(wo.instances, 1);
    cr_expect_eq(wo.class_dumps, 1);
    run_result_free(&r);
    dg_free(&d);
}

/* Segments without a HEAP_DUMP_END get one at the end of the output. */
Test(records, missing_heap_dump_end_is_truncation)
{
    dump d;
    hs_options opt;
    run_result r;

    dg_init(&d, "JAVA PROFILE 1.0.2", 8);
    dg_begin(&d, 0x1C);
    dg_root(&d, 0xFF, 0x100);
    dg_end(&d);
    /* cut after a whole segment: it must not pass for a complete dump */
    r = run_filter(d.p, d.len, "none", NULL, 0);
    cr_assert_eq(r.status, HS_E_TRUNCATED);
    cr_expect_eq(r.err.offset, d.len);
    cr_expect(strstr(r.err.message, "the heap dump has no HEAP_DUMP_END") != NULL, "%s",
              r.err.message);
    run_result_free(&r);
    /* --salvage completes it */
    memset(&opt, 0, sizeof opt);
    opt.salvage = 1;
    r = run_filter(d.p, d.len, "none", &opt, 0);
    cr_assert_eq(r.status, HS_SALVAGED, "%s", r.err.message);
    cr_expect_eq(r.out_len, d.len + 9);
    cr_expect(memcmp(r.out, d.p, d.len) == 0);
    cr_expect_eq(r.out[d.len], 0x2C);
    run_result_free(&r);
    dg_free(&d);
}

/* A profiler's file with no heap dump at all (the JVMTI hprof agent's
 * starts with CONTROL_SETTINGS) is valid HPROF: it passes, and says so in
 * hs_stats.heap_dumps (the CLI warns). */
Test(records, no_heap_dump_is_valid)
{
    dump d;
    run_result r;

    dg_init(&d, "JAVA PROFILE 1.0.2", 8);
    dg_begin(&d, 0x0E); /* CONTROL_SETTINGS: u4 flags, u2 stack depth */
    dg_u4(&d, 2);
    dg_u2(&d, 4);
    dg_end(&d);
    dg_string(&d, 1, "main");
    r = run_filter(d.p, d.len, "default", NULL, 0);
    cr_assert_eq(r.status, HS_OK, "%s", r.err.message);
    cr_expect_eq(r.st.heap_dumps, 0);
    run_result_free(&r);
    dg_free(&d);
}

/* A heap dumper's file that ends before its heap dump (names and classes
 * only, as HotSpot and ART write them first) was cut there: truncated,
 * and --salvage completes it (issue #33 item 12: it passed as valid). */
Test(records, cut_before_heap_dump_is_truncated)
{
    dump d;
    run_result r;

    dg_init(&d, "JAVA PROFILE 1.0.2", 8);
    dg_string(&d, 1, "main");
    dg_load_class(&d, 1, 0x100, 1);
    r = run_filter(d.p, d.len, "default", NULL, 0);
    cr_expect_eq(r.status, HS_E_TRUNCATED, "%s", r.err.message);
    cr_expect(strstr(r.err.message, "cut before its heap dump") != NULL, "%s", r.err.message);
    run_result_free(&r);
    dg_free(&d);
}

/* A heap dump that is empty, or emptied by the rules, stays a heap dump:
 * its output ends in a lone HEAP_DUMP_END, and reads back as complete (the
 * fuzzer's len0-heapdump-emptied-no-heap: without it the output was a dump
 * cut before its heap dump). */
Test(records, emptied_heap_dump_stays_a_heap_dump)
{
    static const char *const presets[] = {"none", "default", "privacy", "android-app"};
    dump d;
    hs_options opt;

    dg_init(&d, "JAVA PROFILE 1.0.1", 4);
    dg_begin(&d, 0x0C);
    dg_end(&d); /* an empty HEAP_DUMP */
    dg_string(&d, 0x101, "after");
    for (size_t i = 0; i < sizeof presets / sizeof *presets; i++) {
        run_result r, again;
        memset(&opt, 0, sizeof opt);
        opt.repack = 1;
        r = run_filter(d.p, d.len, presets[i], &opt, 0);
        cr_assert_eq(r.status, HS_OK, "%s: %s", presets[i], r.err.message);
        cr_expect(r.out_len >= 9 && r.out[r.out_len - 9] == HS_TAG_HEAP_DUMP_END,
                  "%s: the output does not end in HEAP_DUMP_END", presets[i]);
        again = run_filter(r.out, r.out_len, "none", NULL, 0);
        cr_expect_eq(again.status, HS_OK, "%s, read again: %s", presets[i], again.err.message);
        run_result_free(&again);
        /* and salvaged, with the STRING after it cut short */
        run_result_free(&r);
        opt.salvage = 1;
        r = run_filter(d.p, d.len - 2, presets[i], &opt, 0);
        cr_assert_eq(r.status, HS_SALVAGED, "%s salvaged: %s", presets[i], r.err.message);
        again = run_filter(r.out, r.out_len, "none", NULL, 0);
        cr_expect_eq(again.status, HS_OK, "%s salvaged, read again: %s", presets[i],
                     again.err.message);
        run_result_free(&again);
        run_result_free(&r);
        opt.salvage = 0;
        r = run_filter(d.p, d.len, presets[i], &opt, 0);
        again = run_filter(r.out, r.out_len, "none", NULL, 0);
        cr_expect_eq(again.status, HS_OK, "%s, read again: %s", presets[i], again.err.message);
        cr_expect(again.out_len == r.out_len && memcmp(again.out, r.out, r.out_len) == 0,
                  "%s: not the same bytes read again", presets[i]);
        run_result_free(&again);
        run_result_free(&r);
    }
    dg_free(&d);
}

/* The same with an empty heap dump that is a HEAP_DUMP_END alone, after
 * strings nothing uses (the fuzzer's heap-end-alone-dropped). */
Test(records, lone_heap_dump_end_is_kept)
{
    dump d;
    run_result r, again;

    dg_init(&d, "JAVA PROFILE 1.0.2", 8);
    dg_string(&d, 0x101, "unused");
    dg_begin(&d, HS_TAG_HEAP_DUMP_END);
    dg_end(&d);
    r = run_filter(d.p, d.len, "default", NULL, 0);
    cr_assert_eq(r.status, HS_OK, "%s", r.err.message);
    cr_expect(r.out_len >= 9 && r.out[r.out_len - 9] == HS_TAG_HEAP_DUMP_END);
    again = run_filter(r.out, r.out_len, "none", NULL, 0);
    cr_expect_eq(again.status, HS_OK, "read again: %s", again.err.message);
    run_result_free(&again);
    run_result_free(&r);
    dg_free(&d);
}

/* Two dumps joined into one file: the second header is named. */
Test(records, second_header_is_named)
{
    dump d;
    run_result r;
    size_t first;

    dg_init(&d, "JAVA PROFILE 1.0.2", 8);
    dg_string(&d, 1, "main");
    first = d.len;
    {
        uint8_t *copy = malloc(first); /* the same dump again */
        memcpy(copy, d.p, first);
        dg_bytes(&d, copy, first);
        free(copy);
    }
    r = run_filter(d.p, d.len, "none", NULL, 0);
    cr_assert_eq(r.status, HS_E_MALFORMED);
    cr_expect_eq(r.err.offset, first);
    cr_expect(strstr(r.err.message, "a second HPROF header") != NULL, "%s", r.err.message);
    run_result_free(&r);
    dg_free(&d);
}

/* An empty input segment is not re-encoded into an empty output segment
 * (VisualVM rejects those). */
Test(records, no_empty_segments_when_repacking)
{
    dump d;
    hs_options opt;
    run_result r;
    walk_result wo;

    dg_init(&d, "JAVA PROFILE 1.0.2", 8);
    dg_begin(&d, 0x1C);
    dg_end(&d);
    dg_begin(&d, 0x1C);
    dg_root(&d, 0xFF, 0x100);
    dg_end(&d);
    dg_begin(&d, 0x2C);
    dg_end(&d);
    memset(&opt, 0, sizeof opt);
    opt.repack = 1;
    r = run_filter(d.p, d.len, "none", &opt, 0);
    cr_assert_eq(r.status, HS_OK, "%s", r.err.message);
    wo = walk_dump(r.out, r.out_len, 0);
    cr_expect_eq(wo.empty_heap_records, 0);
    cr_expect_eq(wo.roots, 1);
    run_result_free(&r);
    dg_free(&d);
}

/* The element width of a primitive array, computed without a branch per
 * type, against the table of basic types (and 0 for every other code). */
Test(records, primitive_element_sizes)
{
    static const unsigned want[12] = {0, 0, 0, 0, 1, 2, 4, 8, 1, 2, 4, 8};
    unsigned t;

    for (t = 0; t < 256; t++)
        cr_expect_eq(hs_prim_size(t), t < 12 ? want[t] : 0, "type %u", t);
    for (t = HS_TYPE_BOOLEAN; t <= HS_TYPE_LONG; t++)
        cr_expect_eq(hs_prim_size(t), hs_type_size(t, 8), "type %u", t);
    cr_expect_eq(hs_prim_size(UINT32_MAX), 0);
}
