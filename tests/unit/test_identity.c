/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_identity.c - with nothing to change, every real dump comes out byte
 * for byte, however its input is split into reads.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

static void expect_identity(const char *path, size_t chunk)
{
    size_t len;
    uint8_t *in = load_file(path, &len);
    run_result r;

    cr_assert_not_null(in, "cannot read %s", path);
    r = run_filter(in, len, "none", NULL, chunk);
    cr_expect_eq(r.status, HS_OK, "%s (chunk %zu): %s", path, chunk, r.err.message);
    cr_expect_eq(r.out_len, len, "%s (chunk %zu): %zu bytes out of %zu", path, chunk,
                 r.out_len, len);
    cr_expect(r.out_len == len && memcmp(r.out, in, len) == 0, "%s (chunk %zu) differs",
              path, chunk);
    run_result_free(&r);
    free(in);
}

Test(identity, every_dump_whole_reads, .timeout = 120)
{
    const char *const *p = dump_paths_sampled();
    int n = 0;

    for (; *p; p++, n++) {
        expect_identity(*p, 0);
        expect_identity(*p, CHUNK_MAPPED);
    }
    cr_expect_geq(n, 1, "no dumps found");
}

/* One byte per read: the decoder must not care how input arrives. Dumps
 * over 16 MB are left to the other chunk sizes to keep the suite quick. */
Test(identity, one_byte_reads, .timeout = 300)
{
    const char *const *p;

    int ran = 0;

    for (p = dump_paths_sampled(); *p; p++) {
        size_t len;
        uint8_t *in = load_file(*p, &len);
        free(in);
        if (len <= 16u << 20) {
            expect_identity(*p, 1);
            ran++;
        }
    }
    if (!ran) /* a sample of large dumps only: one small one all the same */
        expect_identity("fixtures/jvm7-hprof-agent.hprof", 1);
}

Test(identity, odd_read_sizes, .timeout = 300)
{
    static const size_t chunks[] = {3, 9, 4093, 65537};
    const char *const *p;
    size_t c;

    for (p = dump_paths_sampled(); *p; p++)
        if (strstr(*p, "500mb") == NULL)
            for (c = 0; c < sizeof chunks / sizeof chunks[0]; c++)
                expect_identity(*p, chunks[c]);
}

/* A tiny read window forces every refill path (records and CLASS_DUMPs
 * that straddle the window, which must then grow). */
Test(identity, tiny_read_window)
{
    hs_options opt;
    size_t len;
    uint8_t *in = load_file("fixtures/jvm17-64bit.hprof", &len);
    run_result r;

    cr_assert_not_null(in);
    memset(&opt, 0, sizeof opt);
    opt.read_buffer = 64;
    r = run_filter(in, len, "none", &opt, 0);
    cr_expect_eq(r.status, HS_OK, "%s", r.err.message);
    cr_expect(r.out_len == len && memcmp(r.out, in, len) == 0);
    run_result_free(&r);
    free(in);
}
