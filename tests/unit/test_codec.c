/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_codec.c - the public calls over the library's one table of
 * compressions (codec.c): sniffing, names, suffixes, level ranges.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "hprof_strip.h"

Test(codec, sniff_tells_what_the_first_bytes_are)
{
    static const unsigned char gz[] = {0x1f, 0x8b, 8, 0};
    static const unsigned char zst[] = {0x28, 0xb5, 0x2f, 0xfd};
    static const unsigned char skippable[] = {0x5e, 0x2a, 0x4d, 0x18}; /* pzstd's */
    static const unsigned char zip[] = {'P', 'K', 3, 4};

    cr_assert_eq(hs_sniff(gz, sizeof gz), HS_COMPRESS_GZIP);
    cr_assert_eq(hs_sniff(zst, sizeof zst), HS_COMPRESS_ZSTD);
    cr_assert_eq(hs_sniff(skippable, sizeof skippable), HS_COMPRESS_ZSTD);
    cr_assert_eq(hs_sniff(zip, sizeof zip), -1);
    cr_assert_eq(hs_sniff("JAVA PROFILE 1.0.2", 18), HS_COMPRESS_NONE);
    cr_assert_eq(hs_sniff(zst, 3), HS_COMPRESS_NONE, "too short to tell");
    cr_assert_eq(hs_sniff(NULL, 4), HS_COMPRESS_NONE);
}

Test(codec, names_go_both_ways)
{
    cr_assert_str_eq(hs_compression_name(HS_COMPRESS_GZIP), "gzip");
    cr_assert_str_eq(hs_compression_name(HS_COMPRESS_ZSTD), "zstd");
    cr_assert_null(hs_compression_name(HS_COMPRESS_NONE));
    cr_assert_null(hs_compression_name(-1));
    cr_assert_null(hs_compression_name(99));
    cr_assert_eq(hs_compression_of_name("gzip"), HS_COMPRESS_GZIP);
    cr_assert_eq(hs_compression_of_name("zstd"), HS_COMPRESS_ZSTD);
    cr_assert_eq(hs_compression_of_name("none"), HS_COMPRESS_NONE);
    cr_assert_eq(hs_compression_of_name("zip"), -1, "known by its magic only, not read");
    cr_assert_eq(hs_compression_of_name(NULL), -1);
}

Test(codec, suffixes_as_the_command_reads_them)
{
    size_t len = 99;

    cr_assert_eq(hs_compression_of_path("a/x.hprof.gz", &len), HS_COMPRESS_GZIP);
    cr_assert_eq(len, 3);
    cr_assert_eq(hs_compression_of_path("x.zst", &len), HS_COMPRESS_ZSTD);
    cr_assert_eq(len, 4);
    cr_assert_eq(hs_compression_of_path("x.zstd", &len), HS_COMPRESS_ZSTD);
    cr_assert_eq(len, 5);
    cr_assert_eq(hs_compression_of_path(".gz", &len), HS_COMPRESS_NONE, "no file name before it");
    cr_assert_eq(len, 0);
    cr_assert_eq(hs_compression_of_path("x.hprof", NULL), HS_COMPRESS_NONE);
    cr_assert_str_eq(hs_compression_suffix(HS_COMPRESS_GZIP), ".gz");
    cr_assert_str_eq(hs_compression_suffix(HS_COMPRESS_ZSTD), ".zst");
    cr_assert_null(hs_compression_suffix(HS_COMPRESS_NONE));
}

/* what the command refuses as an output name (#53: the table's suffixes,
 * not a copy of them in src/cli) */
Test(codec, foreign_suffixes_name_their_compressor)
{
    static const char *const named[][2] = {
        {"x.hprof.bz2", "bzip2"}, {"x.xz", "xz"},       {"x.lzma", "lzma"},
        {"x.lz4", "lz4"},         {"a/x.lz", "lzip"},   {"x.zip", "zip"},
        {"x.7z", "7-Zip"},        {"x.br", "brotli"},   {"x.Z", "compress"},
        {"x.sz", "snappy"}};
    size_t i, len = 9;

    for (i = 0; i < sizeof named / sizeof named[0]; i++) {
        const char *got = hs_compression_foreign_of_path(named[i][0]);
        cr_assert(got && strcmp(got, named[i][1]) == 0, "%s: %s", named[i][0], got);
        cr_assert_eq(hs_compression_of_path(named[i][0], &len), HS_COMPRESS_NONE);
        cr_assert_eq(len, 0);
    }
    cr_assert_null(hs_compression_foreign_of_path("x.hprof.gz"), "written here");
    cr_assert_null(hs_compression_foreign_of_path("x.hprof.zst"));
    cr_assert_null(hs_compression_foreign_of_path("x.hprof"));
    cr_assert_null(hs_compression_foreign_of_path("x.z"), "compress's is .Z");
    cr_assert_null(hs_compression_foreign_of_path(".bz2"), "no file name before it");
    cr_assert_eq(hs_compression_of_name("bzip2"), -1, "not read");
    cr_assert_null(hs_compression_name(HS_COMPRESS_NONE));
}

Test(codec, level_ranges_are_the_commands)
{
    int lo = 1, hi = 1;

    cr_assert_eq(hs_compression_levels(HS_COMPRESS_ZSTD, &lo, &hi), 0);
    cr_assert(lo == -7 && hi == 19);
    cr_assert_eq(hs_compression_levels(HS_COMPRESS_GZIP, &lo, &hi), 0);
    cr_assert(lo == 0 && hi == 12);
    cr_assert_eq(hs_compression_levels(HS_COMPRESS_NONE, &lo, &hi), -1);
}
