/* SPDX-License-Identifier: Apache-2.0 */
/*
 * magic.c - the table of magic numbers (magic.h).
 */
#include <string.h>

#include "magic.h"

static const struct {
    const char *bytes;
    size_t len;
    /* bits of the first byte compared (zstd's skippable frames are
     * 0x184D2A50 to 0x184D2A5F, little-endian: any low nibble) */
    uint8_t mask0;
    hs_magic m;
} g_magic[] = {
    {"\x1f\x8b", 2, 0xff, {HS_MAGIC_GZIP, "gzip data", "gzip -dc FILE | hprof-strip"}},
    {"\x28\xb5\x2f\xfd", 4, 0xff, {HS_MAGIC_ZSTD, "zstd data", "zstd -dc FILE | hprof-strip"}},
    /* user data libzstd's decoder steps over, as pzstd writes first */
    {"\x50\x2a\x4d\x18", 4, 0xf0, {HS_MAGIC_ZSTD, "zstd data", "zstd -dc FILE | hprof-strip"}},
    {"PK\x03\x04", 4, 0xff,
     {HS_MAGIC_FOREIGN, "a zip archive", "unzip -p ARCHIVE MEMBER.hprof | hprof-strip"}},
    {"\xfd" "7zXZ\x00", 6, 0xff, {HS_MAGIC_FOREIGN, "xz data", "xz -dc FILE | hprof-strip"}},
    {"BZh", 3, 0xff, {HS_MAGIC_FOREIGN, "bzip2 data", "bzip2 -dc FILE | hprof-strip"}},
    {"\x04\x22\x4d\x18", 4, 0xff, {HS_MAGIC_FOREIGN, "lz4 data", "lz4 -dc FILE | hprof-strip"}},
    {"7z\xbc\xaf\x27\x1c", 6, 0xff,
     {HS_MAGIC_FOREIGN, "a 7-Zip archive", "7z x -so ARCHIVE | hprof-strip"}},
};

const hs_magic *hs_magic_of(const uint8_t *p, size_t n)
{
    size_t i;

    for (i = 0; i < sizeof g_magic / sizeof g_magic[0]; i++) {
        size_t len = g_magic[i].len;
        if (n >= len && (p[0] & g_magic[i].mask0) == (uint8_t)g_magic[i].bytes[0] &&
            memcmp(p + 1, g_magic[i].bytes + 1, len - 1) == 0)
            return &g_magic[i].m;
    }
    return NULL;
}
