/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_salvage_report.c - --salvage writes the same bytes whatever
 * reporting is asked for: counting non-zero bytes (--audit, --stats-file),
 * hashing arrays (--stats-file) and the histogram (--histogram) read the
 * input another way, never to another output.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

/* The reporting a run may ask for: none, then each, then all. */
static void reporting(hs_options *o, int which)
{
    o->count_nonzero = which == 1 || which == 4;
    o->find_duplicates = which == 2 || which == 4;
    o->histogram = which == 3 || which == 4;
}

/* Every reporting gives the bytes no reporting gives, on `in` cut at `n`. */
static void same_bytes(const uint8_t *in, size_t n, const char *preset, const hs_options *base,
                       size_t chunk, const char *what)
{
    run_result plain;
    int which;
    hs_options o = *base;

    reporting(&o, 0);
    plain = run_filter(in, n, preset, &o, chunk);
    cr_assert(plain.status == HS_SALVAGED || plain.status == HS_OK,
              "%s cut at %zu, -p %s: status %d: %s", what, n, preset, plain.status,
              plain.err.message);
    for (which = 1; which <= 4; which++) {
        run_result r;
        reporting(&o, which);
        r = run_filter(in, n, preset, &o, chunk);
        cr_expect_eq(r.status, plain.status, "%s cut at %zu, -p %s, reporting %d", what, n,
                     preset, which);
        cr_expect(r.out_len == plain.out_len &&
                      (r.out_len == 0 || memcmp(r.out, plain.out, r.out_len) == 0),
                  "%s cut at %zu, -p %s, reporting %d: %zu bytes, without reporting %zu", what,
                  n, preset, which, r.out_len, plain.out_len);
        run_result_free(&r);
    }
    run_result_free(&plain);
}

/* A class, then an array far larger than the read window and than a
 * segment (so that it streams to the output in a segment of its own),
 * and a small one after it. */
static void big_array_dump(dump *d, uint32_t big)
{
    dg_init(d, "JAVA PROFILE 1.0.2", 8);
    dg_string(d, 0x100, "Big");
    dg_string(d, 0x101, "f");
    dg_load_class(d, 1, 0x200, 0x100);
    dg_begin(d, 0x1C);
    dg_class(d, 0x200, 0, 0x101);
    dg_prim_array(d, 0x300, 8, big, 0x41);
    dg_prim_array(d, 0x301, 10, 16, 0x42);
    dg_end(d);
    dg_begin(d, 0x2C);
    dg_end(d);
}

Test(salvage_report, big_array_cut_anywhere)
{
    static const char *const presets[] = {"default", "privacy", "none"};
    const uint32_t big = 3u << 20;
    hs_options o;
    dump d;
    size_t p, n;

    big_array_dump(&d, big);
    memset(&o, 0, sizeof o);
    o.salvage = 1;
    o.read_buffer = 64u << 10;
    o.segment_cap = 256u << 10;
    for (p = 0; p < 3; p++)
        for (n = d.len / 7; n < d.len; n += d.len / 7) {
            same_bytes(d.p, n, presets[p], &o, 0, "big array");
            same_bytes(d.p, n, presets[p], &o, 10007, "big array, read in pieces");
        }
    dg_free(&d);
}

Test(salvage_report, fixtures_cut_anywhere)
{
    static const char *const files[] = {"fixtures/jvm17-64bit.hprof",
                                        "fixtures/jvm17-jcmd-gz1.hprof.gz",
                                        "fixtures/android-art2025-ahat-test-dump.hprof"};
    static const char *const presets[] = {"default", "privacy", "android-app"};
    size_t f;

    for (f = 0; f < sizeof files / sizeof files[0]; f++) {
        size_t len, n, p;
        uint8_t *in = load_file(files[f], &len);
        hs_options o;

        cr_assert(in, "%s", files[f]);
        memset(&o, 0, sizeof o);
        o.salvage = 1;
        o.read_buffer = 64u << 10;
        o.segment_cap = 64u << 10;
        for (n = len / 5; n < len; n += len / 5)
            for (p = 0; p < 3; p++)
                same_bytes(in, n, presets[p], &o, n % 3 ? 4093 : 0, files[f]);
        free(in);
    }
}
