/* SPDX-License-Identifier: Apache-2.0 */
/*
 * codec.c - the table of compressions (codec.h), and the public calls that
 * read it (hs_sniff, hs_compression_name, hs_compression_of_path,
 * hs_compression_foreign_of_path...).
 */
#include <string.h>

#include "codec.h"
#include "hprof_strip.h"

static const hs_codec g_codecs[] = {
    {HS_COMPRESS_GZIP, "gzip", "gzip data", "gzip -dc FILE | hprof-strip", {".gz", NULL},
     {{"\x1f\x8b", 2, 0xff}}, 0, 12, &hs_gunzip_decoder, &hs_gzip_encoder},
    /* the second magic: user data libzstd's decoder steps over, as pzstd
     * writes first */
    {HS_COMPRESS_ZSTD, "zstd", "zstd data", "zstd -dc FILE | hprof-strip", {".zst", ".zstd", NULL},
     {{"\x28\xb5\x2f\xfd", 4, 0xff}, {"\x50\x2a\x4d\x18", 4, 0xf0}}, -7, 19, &hs_unzstd_decoder,
     &hs_zstd_encoder},
    {HS_CODEC_FOREIGN, "zip", "a zip archive", "unzip -p ARCHIVE MEMBER.hprof | hprof-strip",
     {".zip", NULL}, {{"PK\x03\x04", 4, 0xff}}, 0, 0, NULL, NULL},
    {HS_CODEC_FOREIGN, "xz", "xz data", "xz -dc FILE | hprof-strip", {".xz", NULL},
     {{"\xfd" "7zXZ\x00", 6, 0xff}}, 0, 0, NULL, NULL},
    {HS_CODEC_FOREIGN, "bzip2", "bzip2 data", "bzip2 -dc FILE | hprof-strip", {".bz2", NULL},
     {{"BZh", 3, 0xff}}, 0, 0, NULL, NULL},
    {HS_CODEC_FOREIGN, "lz4", "lz4 data", "lz4 -dc FILE | hprof-strip", {".lz4", NULL},
     {{"\x04\x22\x4d\x18", 4, 0xff}}, 0, 0, NULL, NULL},
    {HS_CODEC_FOREIGN, "7-Zip", "a 7-Zip archive", "7z x -so ARCHIVE | hprof-strip", {".7z", NULL},
     {{"7z\xbc\xaf\x27\x1c", 6, 0xff}}, 0, 0, NULL, NULL},
    /* known by their names alone: an output named for one is refused, an
     * input in one is not sniffed (it reads as not HPROF) */
    {HS_CODEC_FOREIGN, "lzma", NULL, NULL, {".lzma", NULL}, {{0}}, 0, 0, NULL, NULL},
    {HS_CODEC_FOREIGN, "lzip", NULL, NULL, {".lz", NULL}, {{0}}, 0, 0, NULL, NULL},
    {HS_CODEC_FOREIGN, "brotli", NULL, NULL, {".br", NULL}, {{0}}, 0, 0, NULL, NULL},
    {HS_CODEC_FOREIGN, "compress", NULL, NULL, {".Z", NULL}, {{0}}, 0, 0, NULL, NULL},
    {HS_CODEC_FOREIGN, "snappy", NULL, NULL, {".sz", NULL}, {{0}}, 0, 0, NULL, NULL},
};

#define N_CODECS (sizeof g_codecs / sizeof g_codecs[0])

static int starts_with_magic(const hs_codec_magic *m, const uint8_t *p, size_t n)
{
    return m->len && n >= m->len && (p[0] & m->mask0) == (uint8_t)m->bytes[0] &&
           memcmp(p + 1, m->bytes + 1, m->len - 1) == 0;
}

const hs_codec *hs_codec_sniff(const uint8_t *p, size_t n)
{
    size_t i, k;

    for (i = 0; i < N_CODECS; i++)
        for (k = 0; k < sizeof g_codecs[i].magic / sizeof g_codecs[i].magic[0]; k++)
            if (starts_with_magic(&g_codecs[i].magic[k], p, n))
                return &g_codecs[i];
    return NULL;
}

const hs_codec *hs_codec_of(int id)
{
    size_t i;

    for (i = 0; i < N_CODECS; i++)
        if (g_codecs[i].id == id && id != HS_CODEC_FOREIGN)
            return &g_codecs[i];
    return NULL;
}

HS_API int hs_sniff(const void *head, size_t n)
{
    const hs_codec *c = head ? hs_codec_sniff(head, n) : NULL;

    return c ? c->id : HS_COMPRESS_NONE;
}

const char *hs_codec_name(int id)
{
    const hs_codec *row = hs_codec_of(id);

    return id == HS_COMPRESS_NONE ? "none" : row ? row->name : NULL;
}

HS_API const char *hs_compression_name(int c)
{
    return c == HS_COMPRESS_NONE ? NULL : hs_codec_name(c);
}

HS_API int hs_compression_of_name(const char *name)
{
    size_t i;

    if (!name)
        return -1;
    if (strcmp(name, hs_codec_name(HS_COMPRESS_NONE)) == 0)
        return HS_COMPRESS_NONE;
    for (i = 0; i < N_CODECS; i++)
        if (g_codecs[i].dec && strcmp(g_codecs[i].name, name) == 0)
            return g_codecs[i].id;
    return -1;
}

/* The row, read here (`foreign` 0) or not (1), whose suffix ends `path`,
 * with that suffix's length in *len; NULL for none. A name that is only
 * the suffix (".gz") names no file of it. */
static const hs_codec *row_of_path(const char *path, int foreign, size_t *len)
{
    size_t i, k, n = path ? strlen(path) : 0;

    for (i = 0; i < N_CODECS; i++)
        for (k = 0; (g_codecs[i].dec == NULL) == foreign && g_codecs[i].suffix[k]; k++) {
            const char *s = g_codecs[i].suffix[k];
            *len = strlen(s);
            if (n > *len && strcmp(path + n - *len, s) == 0)
                return &g_codecs[i];
        }
    *len = 0;
    return NULL;
}

HS_API int hs_compression_of_path(const char *path, size_t *suffix_len)
{
    size_t len;
    const hs_codec *row = row_of_path(path, 0, &len);

    if (suffix_len)
        *suffix_len = len;
    return row ? row->id : HS_COMPRESS_NONE;
}

HS_API const char *hs_compression_foreign_of_path(const char *path)
{
    size_t len;
    const hs_codec *row = row_of_path(path, 1, &len);

    return row ? row->name : NULL;
}

HS_API const char *hs_compression_suffix(int c)
{
    const hs_codec *row = hs_codec_of(c);

    return row ? row->suffix[0] : NULL;
}

HS_API int hs_compression_levels(int c, int *min, int *max)
{
    const hs_codec *row = hs_codec_of(c);

    if (!row)
        return -1;
    if (min)
        *min = row->level_min;
    if (max)
        *max = row->level_max;
    return 0;
}
