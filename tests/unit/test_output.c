/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_output.c - the library's sink (src/lib/output.c): the zstd level a dump's
 * header chooses when none is given, and the stream that results.
 */
#define _DEFAULT_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "hprof_strip.h"
#include "output.h"

/* "JAVA PROFILE 1.0.x\0", the id size, and the 8 bytes of time. */
static size_t header(uint8_t *p, const char *version, uint32_t id_size)
{
    size_t n = strlen(version) + 1;

    memcpy(p, version, n);
    p[n] = (uint8_t)(id_size >> 24);
    p[n + 1] = (uint8_t)(id_size >> 16);
    p[n + 2] = (uint8_t)(id_size >> 8);
    p[n + 3] = (uint8_t)id_size;
    memset(p + n + 4, 0, 8);
    return n + 12;
}

Test(output, eight_byte_ids_choose_level_1)
{
    uint8_t h[64];

    cr_assert_eq(hs_output_dump_level(h, header(h, "JAVA PROFILE 1.0.2", 8)), 1);
    cr_assert_eq(hs_output_dump_level(h, header(h, "JAVA PROFILE 1.0.1", 8)), 1);
    cr_assert_eq(hs_output_dump_level(h, header(h, "JAVA PROFILE 1.0.3", 8)), 1);
}

Test(output, four_byte_ids_choose_level_3)
{
    uint8_t h[64];

    cr_assert_eq(hs_output_dump_level(h, header(h, "JAVA PROFILE 1.0.3", 4)), 3);
    cr_assert_eq(hs_output_dump_level(h, header(h, "JAVA PROFILE 1.0.1", 4)), 3);
}

Test(output, anything_else_is_level_3)
{
    uint8_t h[64];
    size_t n = header(h, "JAVA PROFILE 1.0.2", 8);

    /* the id size must be there whole: cut anywhere before its last byte */
    for (size_t k = 0; k < 23; k++)
        cr_assert_eq(hs_output_dump_level(h, k), 3, "cut at %zu", k);
    cr_assert_eq(hs_output_dump_level(h, 23), 1);
    cr_assert_eq(hs_output_dump_level(NULL, 0), 3);
    /* id sizes other than 8, and an 8 in the wrong byte */
    cr_assert_eq(hs_output_dump_level(h, header(h, "JAVA PROFILE 1.0.2", 2)), 3);
    cr_assert_eq(hs_output_dump_level(h, header(h, "JAVA PROFILE 1.0.2", 8u << 8)), 3);
    cr_assert_eq(hs_output_dump_level(h, header(h, "JAVA PROFILE 1.0.2", 0x01000008)), 3);
    /* not HPROF */
    n = header(h, "JAVA PROFILX 1.0.2", 8);
    cr_assert_eq(hs_output_dump_level(h, n), 3);
    memset(h, 'A', sizeof h);
    cr_assert_eq(hs_output_dump_level(h, sizeof h), 3);
}

/* Compresses `len` bytes with the sink at `level` and returns the stream. */
static uint8_t *compress(const void *data, size_t len, int level, size_t *out_len)
{
    FILE *f = tmpfile();
    hs_output *o;
    uint8_t *buf;
    long n;

    cr_assert_not_null(f);
    cr_assert_eq(hs_output_open(&o, fileno(f), HS_COMPRESS_ZSTD, level, 2), 0);
    /* in pieces, as the filter's buffer hands them over */
    for (size_t at = 0; at < len; at += 4096) {
        size_t k = len - at < 4096 ? len - at : 4096;
        cr_assert_eq(hs_output_write(o, (const uint8_t *)data + at, k), 0);
    }
    cr_assert_eq(hs_output_end(o), 0);
    hs_output_free(o);
    n = ftell(f);
    cr_assert_gt(n, 0);
    buf = malloc((size_t)n);
    rewind(f);
    cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *out_len = (size_t)n;
    return buf;
}

/* A made-up dump body: a header and records whose bytes differ enough
 * that levels 1 and 3 compress them differently. */
static uint8_t *sample(uint32_t id_size, size_t *len)
{
    size_t n = 1u << 20, at;
    uint8_t *p = malloc(n);
    uint64_t x = 88172645463325252u;

    at = header(p, "JAVA PROFILE 1.0.2", id_size);
    for (; at < n; at++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        p[at] = (uint8_t)(x % 7 == 0 ? x >> 32 : (at / 8) & 0x3f);
    }
    *len = n;
    return p;
}

static void check_level(uint32_t id_size, int want)
{
    size_t n, na, nw, no;
    uint8_t *in = sample(id_size, &n);
    uint8_t *a = compress(in, n, HS_OUTPUT_LEVEL_DEFAULT, &na);
    uint8_t *w = compress(in, n, want, &nw);
    uint8_t *other = compress(in, n, want == 1 ? 3 : 1, &no);
    uint8_t *back = malloc(n);

    cr_assert(no != nw || memcmp(other, w, nw) != 0, "levels 1 and 3 agree: no test");
    cr_assert_eq(na, nw, "not the bytes of level %d", want);
    cr_assert_eq(memcmp(a, w, na), 0, "not the bytes of level %d", want);
    cr_assert_eq(ZSTD_decompress(back, n, a, na), n);
    cr_assert_eq(memcmp(back, in, n), 0);
    free(in), free(a), free(w), free(other), free(back);
}

Test(output, by_dump_stream_is_level_1_for_8_byte_ids)
{
    check_level(8, 1);
}

Test(output, by_dump_stream_is_level_3_for_4_byte_ids)
{
    check_level(4, 3);
}

Test(output, by_dump_with_nothing_written_is_an_empty_frame)
{
    size_t n;
    uint8_t *z = compress("", 0, HS_OUTPUT_LEVEL_DEFAULT, &n);
    char one;

    cr_assert_eq(ZSTD_decompress(&one, 1, z, n), 0);
    free(z);
}
