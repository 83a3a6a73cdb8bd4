/* SPDX-License-Identifier: Apache-2.0 */
/*
 * verify.c - the audit's verifier (verify.h): one small walk of a file,
 * written apart from the filter so that a mistake of the filter cannot
 * hide itself from the audit. It reads the file's own bytes, so it sees
 * the container too. Every byte is one of three things:
 *
 *   structure  the header, record and sub-record tags, times and lengths,
 *              ids, serials, counts, types, line numbers, the old agent's
 *              counters, gzip's MTIME/XFL/OS/FHCRC, CRCs and sizes;
 *   kept       the text of a STRING something uses (a name); and five JDK
 *              values whose anchor holds (the table `g_keeps`);
 *   data       any other non-zero primitive value (instance field, static,
 *              constant-pool value, array element), a STRING nothing uses
 *              or over 1 MiB (no name is that long),
 *              a record of unknown tag, CLASS_DUMP's reserved ids, gzip's
 *              FNAME/FCOMMENT/FEXTRA (but HotSpot's block-size comment), a
 *              zstd skippable frame, non-zero bytes after the last member
 *              or frame.
 *
 * Clean means no data byte. Whatever cannot be walked (a truncated or
 * malformed file, an unknown sub-record, memory past the cap) is an error,
 * never a verdict. Uses of a STRING may come before or after it, and
 * instances before their CLASS_DUMP (Android): both are settled at the end.
 *
 * Layers, each pulling from the one below: raw (the caller's read, hashed
 * as read), container (plain, gzip members inflated by ISA-L with their
 * CRC and size checked, zstd frames by libzstd), HPROF (a buffered
 * reader the walk asks for fixed pieces and streams payloads through).
 */
#define _POSIX_C_SOURCE 200809L
#include "verify.h"

#include "alloc.h"
#include "format.h"
#include "hs_limits.h"
#include "idmap.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isa-l/igzip_lib.h>
#include <zstd.h>

#define RAW_BUF HS_VERIFY_RAW_BUFFER
/* The HPROF reader's window: an instance is classified whole in it
 * (hs_limits.h). */
#define HP_BUF HS_VERIFY_WINDOW
#define NO_TEXT UINT32_MAX
/* HotSpot's -gz dumps: the first member's comment (documented layout). */
static const char g_hotspot_comment[] = "HPROF BLOCKSIZE=1048576";

/* Values kept on purpose, each only where its anchor holds: the class is
 * the one LOAD_CLASS of that name in the file, loaded by the bootstrap
 * loader (CLASS_DUMP loader id 0), and declares the field with this type. */
static const struct {
    const char *cls, *field;
    unsigned type; /* 8 byte, 11 long */
    int is_static;
} g_keeps[] = {
    {"java.lang.String", "coder", 8, 0},
    {"java.lang.Class$Atomic", "annotationDataOffset", 11, 1},
    {"java.lang.Class$Atomic", "annotationTypeOffset", 11, 1},
    {"java.util.concurrent.FutureTask", "runnerOffset", 11, 1},
    {"java.util.concurrent.FutureTask", "waitersOffset", 11, 1},
};
#define N_KEEPS (sizeof g_keeps / sizeof g_keeps[0])

/* The values a keep takes: what the JDK gives those fields, nothing wider,
 * so that a class that only looks like the JDK's (a dump renamed by a
 * mapping, then stripped) carries at most a bit a field through. A coder
 * is LATIN1 (0) or UTF16 (1); an Unsafe offset is a field's place in an
 * object, far under 64 KiB. */
static int keep_range(unsigned type, const uint8_t *p)
{
    if (type == 8)
        return p[0] <= 1;
    if (type == 11) /* big-endian: the top six bytes zero, under 64 KiB */
        return p[0] == 0 && p[1] == 0 && p[2] == 0 && p[3] == 0 && p[4] == 0 && p[5] == 0;
    return 0;
}

typedef struct {           /* one STRING record */
    uint64_t id, offset, len;
    uint32_t text;         /* in texts[], when len <= HS_NAME_TEXT_MAX */
    uint64_t nonzero;      /* non-zero text bytes */
    uint8_t dup;           /* an id a STRING before had: never a name, never used */
} vstring;

typedef struct {           /* a declared instance field, with its tally */
    uint64_t name;
    unsigned type;
    uint64_t objects, bytes, first; /* instances with it non-zero */
    uint64_t wild;         /* of `bytes`, those in values no keep takes */
} vfield;

typedef struct {           /* a static or constant-pool value holding data */
    uint32_t cls;          /* index in classes[] */
    uint64_t name;         /* static: string id; constant: pool index */
    unsigned type, is_const, wild; /* wild: a value no keep takes */
    uint64_t bytes, offset;
} vvalue;

typedef struct {
    uint64_t id, super, offset; /* the first CLASS_DUMP */
    int loader_nonzero;         /* any of its dumps */
    uint32_t field0, nfields;   /* in fields[] */
    uint32_t flat0, nflat;      /* in flat[]: its whole layout, once known */
    int flat_known;
    uint64_t size;              /* bytes of an instance, once known */
    uint64_t reserved_offset;   /* first dump with non-zero reserved ids, 0 none */
} vclass;

typedef struct {
    uint64_t cls, name;
} vload;

typedef struct {           /* an aggregate finding, before it is named */
    int kind;
    uint64_t key, id, count, bytes, first; /* key: what rows of a kind merge by */
    uint32_t name; /* in names[]; STRING rows have none: "STRING 0x<id>" */
    int rank;      /* row_rank's, for the sort */
} vrow;

typedef struct {
    long (*read)(void *ctx, void *buf, size_t cap);
    void *ctx;
    hs_meter meter;
    hs_alloc a;
    hs_verify_result *res;
    int failed;
    /* raw */
    uint8_t *raw;
    size_t rpos, rlen;
    uint64_t roff; /* file offset of raw[0] */
    int reof;
    hs_sha256 file_sha;
    /* container */
    int kind; /* HS_COMPRESS_* */
    int in_unit, units, cend;
    struct inflate_state *gz;
    ZSTD_DStream *zd;
    /* HPROF */
    uint8_t *hp;
    size_t hpos, hlen;
    uint64_t hoff; /* HPROF offset of hp[0] */
    int heof;
    hs_sha256 hprof_sha;
    unsigned idsize;
    /* tables */
    vstring *strings;
    size_t n_strings, cap_strings;
    char *texts;
    size_t n_texts, cap_texts;
    hs_idmap string_of, used, class_of, load_of;
    vclass *classes;
    size_t n_classes, cap_classes;
    vfield *fields;
    size_t n_fields, cap_fields;
    uint32_t *flat;
    size_t n_flat, cap_flat;
    vvalue *values;
    size_t n_values, cap_values;
    vload *loads;
    size_t n_loads, cap_loads;
    uint8_t *held; /* instances waiting for their class: offset, class, n, bytes */
    size_t n_held, cap_held;
    vrow *rows;
    size_t n_rows, cap_rows;
    char *names;
    size_t n_names, cap_names;
    uint64_t arr_count[12], arr_bytes[12], arr_first[12];
} V;

/* ---- failures ------------------------------------------------------------ */

static int fail(V *v, hs_status code, uint64_t off, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static int fail(V *v, hs_status code, uint64_t off, const char *fmt, ...)
{
    hs_error *e = &v->res->err;
    va_list ap;

    if (v->failed)
        return -1;
    v->failed = 1;
    v->res->status = code;
    e->code = code;
    e->offset = off;
    e->record_offset = UINT64_MAX;
    e->tag = e->subtag = -1;
    va_start(ap, fmt);
    vsnprintf(e->message, sizeof e->message, fmt, ap);
    va_end(ap);
    return -1;
}

static int no_memory(V *v, const char *what)
{
    if (v->meter.refused)
        return fail(v, HS_E_LIMIT, UINT64_MAX,
                    "the audit holds more than its memory cap (max_held, %llu bytes) for %s",
                    (unsigned long long)v->meter.cap, what);
    return fail(v, HS_E_NOMEM, UINT64_MAX, "out of memory (%s)", what);
}

/* Makes room for `n` elements of `size` in *p (cap *cap): 0, or -1 said. */
static int grow(V *v, void **p, size_t *cap, size_t n, size_t size, const char *what)
{
    size_t c = *cap ? *cap : 64;
    void *q;

    if (n <= *cap)
        return 0;
    while (c < n)
        c *= 2;
    if (!(q = hs_realloc(&v->a, *p, *cap * size, c * size)))
        return no_memory(v, what);
    *p = q;
    *cap = c;
    return 0;
}
#define GROW(v, arr, n, what)                                                      \
    grow(v, (void **)&(v)->arr, &(v)->cap_##arr, n, sizeof *(v)->arr, what)

static int put(V *v, hs_idmap *m, uint64_t key, uint64_t val, const char *what)
{
    return hs_idmap_put(m, key, val) == HS_OK ? 0 : no_memory(v, what);
}

/* ---- raw bytes ----------------------------------------------------------- */

/* At least `n` (small) raw bytes contiguous at raw[rpos], reading more as
 * needed (every byte read is hashed as it comes): 1, 0 when the file ends
 * first, -1 failed. */
static int raw_have(V *v, size_t n)
{
    while (v->rlen - v->rpos < n) {
        long k;
        if (v->reof)
            return 0;
        if (v->rpos) {
            memmove(v->raw, v->raw + v->rpos, v->rlen - v->rpos);
            v->roff += v->rpos;
            v->rlen -= v->rpos;
            v->rpos = 0;
        }
        k = v->read(v->ctx, v->raw + v->rlen, RAW_BUF - v->rlen);
        if (k < 0 || (unsigned long)k > RAW_BUF - v->rlen)
            return fail(v, HS_E_READ, v->roff + v->rlen, "reading the input failed at byte %llu",
                        (unsigned long long)(v->roff + v->rlen));
        if (k == 0) {
            v->reof = 1;
            return 0;
        }
        hs_sha256_update(&v->file_sha, v->raw + v->rlen, (size_t)k);
        v->rlen += (size_t)k;
    }
    return 1;
}

static int raw_more(V *v)
{
    return raw_have(v, 1);
}

static uint64_t raw_at(const V *v)
{
    return v->roff + v->rpos;
}

/* The next raw byte, or -1 at the end or on failure. */
static int raw_byte(V *v)
{
    return raw_more(v) > 0 ? v->raw[v->rpos++] : -1;
}

/* `n` raw bytes into `dst` (NULL: skipped), counting the non-zero ones in
 * *nz (may be NULL): 0, or -1 said (cut short: `what` truncated). */
static int raw_take(V *v, uint8_t *dst, uint64_t n, uint64_t *nz, const char *what)
{
    while (n) {
        int m = raw_more(v);
        size_t k = v->rlen - v->rpos, i;
        if (m <= 0)
            return m < 0 ? -1
                         : fail(v, HS_E_TRUNCATED, raw_at(v), "%s byte %llu: the file ends inside %s",
                                v->kind == HS_COMPRESS_GZIP ? "gzip" : "zstd",
                                (unsigned long long)raw_at(v), what);
        if (k > n)
            k = (size_t)n;
        for (i = 0; nz && i < k; i++)
            *nz += v->raw[v->rpos + i] != 0;
        if (dst)
            memcpy(dst, v->raw + v->rpos, k), dst += k;
        v->rpos += k;
        n -= k;
    }
    return 0;
}

/* ---- findings rows ------------------------------------------------------- */

/* A finding's row: added to the row of (kind, key) for the kinds that
 * gather (records by tag, instances by class), else a row of its own. */
static int row(V *v, int kind, uint64_t key, uint64_t id, const char *name, uint64_t count,
               uint64_t bytes, uint64_t at)
{
    size_t i = v->n_rows;

    if (kind == HS_FIND_RECORD || kind == HS_FIND_CLASS)
        for (i = 0; i < v->n_rows; i++)
            if (v->rows[i].kind == kind && v->rows[i].key == key)
                break;
    if (i == v->n_rows) {
        if (GROW(v, rows, i + 1, "findings") != 0)
            return -1;
        memset(&v->rows[i], 0, sizeof v->rows[i]);
        v->rows[i].kind = kind;
        v->rows[i].key = key;
        v->rows[i].id = id;
        v->rows[i].first = at;
        v->rows[i].name = NO_TEXT;
        if (kind != HS_FIND_STRING_UNUSED && kind != HS_FIND_STRING_LONG) {
            size_t len = strlen(name) + 1;
            if (v->n_names + len >= NO_TEXT ||
                GROW(v, names, v->n_names + len, "the findings' names") != 0)
                return v->failed ? -1 : no_memory(v, "the findings' names");
            memcpy(v->names + v->n_names, name, len);
            v->rows[i].name = (uint32_t)v->n_names;
            v->n_names += len;
        }
        v->n_rows++;
    }
    v->rows[i].count += count;
    v->rows[i].bytes += bytes;
    return 0;
}

/* A container finding (file offset `at`). */
static int container_data(V *v, const char *name, uint64_t bytes, uint64_t at)
{
    v->res->n.container_findings++;
    return row(v, HS_FIND_CONTAINER, 0, 0, name, 1, bytes, at);
}

/* ---- the container ------------------------------------------------------- */

/* The rest of the file after the last member or frame: data when any byte
 * is not zero (zeros are padding, gzip(1)'s tape blocks). */
static int trailing(V *v, const char *name)
{
    uint64_t at = raw_at(v), nz = 0, n = 0;

    while (raw_more(v) > 0) {
        n += v->rlen - v->rpos;
        raw_take(v, NULL, v->rlen - v->rpos, &nz, name);
    }
    if (v->failed)
        return -1;
    return nz ? container_data(v, name, n, at) : 0;
}

/* A NUL-terminated gzip header field: data unless `allowed` is its text. */
static int gz_string(V *v, const char *name, const char *allowed)
{
    uint64_t at = raw_at(v), n = 0;
    char text[sizeof g_hotspot_comment + 1];
    int c;

    while ((c = raw_byte(v)) > 0) {
        if (n < sizeof text - 1)
            text[n] = (char)c;
        n++;
    }
    if (c < 0)
        return v->failed ? -1
                         : fail(v, HS_E_TRUNCATED, raw_at(v),
                                "gzip byte %llu: the file ends inside a member header's %s",
                                (unsigned long long)raw_at(v), name);
    text[n < sizeof text - 1 ? n : sizeof text - 1] = 0;
    if (allowed && n == strlen(allowed) && strcmp(text, allowed) == 0)
        return 0;
    return n ? container_data(v, name, n, at) : 0;
}

/* A gzip member's header, its fields classified. */
static int gz_header(V *v)
{
    uint8_t h[10];
    uint64_t at = raw_at(v);

    if (raw_take(v, h, 10, NULL, "a gzip member header") != 0)
        return -1;
    if (h[0] != 0x1f || h[1] != 0x8b || h[2] != 8 || (h[3] & 0xe0))
        return fail(v, HS_E_MALFORMED, at, "gzip byte %llu: not a deflate gzip member header",
                    (unsigned long long)at);
    if (h[3] & 0x04) { /* FEXTRA */
        uint8_t x[2];
        uint64_t nz = 0, xat;
        if (raw_take(v, x, 2, NULL, "a gzip FEXTRA") != 0)
            return -1;
        xat = raw_at(v);
        if (raw_take(v, NULL, (uint64_t)(x[0] | x[1] << 8), &nz, "a gzip FEXTRA") != 0)
            return -1;
        if ((x[0] | x[1]) && container_data(v, "gzip FEXTRA", (uint64_t)(x[0] | x[1] << 8), xat))
            return -1;
    }
    if ((h[3] & 0x08) && gz_string(v, "gzip FNAME", NULL) != 0)
        return -1;
    if ((h[3] & 0x10) && gz_string(v, "gzip FCOMMENT", v->units ? NULL : g_hotspot_comment) != 0)
        return -1;
    if ((h[3] & 0x02) && raw_take(v, NULL, 2, NULL, "a gzip header CRC") != 0)
        return -1;
    /* the deflate data and the trailer after it, CRC-32 and size checked
     * by ISA-L (which reads ahead of the deflate end, so takes the trailer
     * itself) */
    isal_inflate_init(v->gz);
    v->gz->crc_flag = ISAL_GZIP_NO_HDR_VER;
    return 0;
}

/* Decompressed bytes of gzip members: > 0, 0 at the end, -1 failed. */
static long gz_read(V *v, uint8_t *buf, size_t cap)
{
    for (;;) {
        struct inflate_state *g = v->gz;
        size_t made;
        int r, m;
        if (!v->in_unit) {
            if ((m = raw_more(v)) <= 0)
                return m;
            if (v->raw[v->rpos] != 0x1f)
                return trailing(v, "gzip trailing bytes");
            if (gz_header(v) != 0)
                return -1;
            v->in_unit = 1;
        }
        if ((m = raw_more(v)) <= 0)
            return m < 0 ? -1
                         : fail(v, HS_E_TRUNCATED, raw_at(v),
                                "gzip byte %llu: the file ends inside member %d",
                                (unsigned long long)raw_at(v), v->units + 1);
        g->next_in = v->raw + v->rpos;
        g->avail_in = (uint32_t)(v->rlen - v->rpos);
        g->next_out = buf;
        g->avail_out = cap > (1u << 30) ? (1u << 30) : (uint32_t)cap;
        made = g->avail_out;
        r = isal_inflate(g);
        made -= g->avail_out;
        v->rpos = v->rlen - g->avail_in;
        if (r < 0)
            return fail(v, HS_E_MALFORMED, raw_at(v), "gzip byte %llu: member %d: %s",
                        (unsigned long long)raw_at(v), v->units + 1,
                        r == ISAL_INCORRECT_CHECKSUM ? "its CRC or size is wrong"
                                                     : "bad deflate data");
        if (g->block_state == ISAL_BLOCK_FINISH) {
            v->in_unit = 0;
            v->units++;
        }
        if (made)
            return (long)made;
    }
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Decompressed bytes of zstd frames: > 0, 0 at the end, -1 failed. */
static long zs_read(V *v, uint8_t *buf, size_t cap)
{
    for (;;) {
        ZSTD_inBuffer in;
        ZSTD_outBuffer out = {buf, cap, 0};
        size_t r;
        int m;
        if (!v->in_unit) {
            uint8_t h[8];
            uint64_t at = raw_at(v);
            if ((m = raw_more(v)) <= 0)
                return m;
            if (raw_have(v, 4) < 0)
                return -1;
            if (v->rlen - v->rpos >= 4 && (le32(v->raw + v->rpos) & 0xfffffff0u) == 0x184d2a50u) {
                uint64_t nz = 0;
                if (raw_take(v, h, 8, NULL, "a zstd skippable frame") != 0 ||
                    raw_take(v, NULL, le32(h + 4), &nz, "a zstd skippable frame") != 0 ||
                    container_data(v, "zstd skippable frame", le32(h + 4), at) != 0)
                    return -1;
                v->units++;
                continue;
            }
            if (v->rlen - v->rpos < 4 || le32(v->raw + v->rpos) != 0xfd2fb528u)
                return trailing(v, "zstd trailing bytes");
            ZSTD_DCtx_reset(v->zd, ZSTD_reset_session_only);
            v->in_unit = 1;
        }
        if ((m = raw_more(v)) <= 0)
            return m < 0 ? -1
                         : fail(v, HS_E_TRUNCATED, raw_at(v),
                                "zstd byte %llu: the file ends inside a frame",
                                (unsigned long long)raw_at(v));
        in.src = v->raw + v->rpos;
        in.size = v->rlen - v->rpos;
        in.pos = 0;
        r = ZSTD_decompressStream(v->zd, &out, &in);
        v->rpos += in.pos;
        if (ZSTD_isError(r))
            return fail(v, HS_E_MALFORMED, raw_at(v), "zstd byte %llu: %s",
                        (unsigned long long)raw_at(v), ZSTD_getErrorName(r));
        if (r == 0) { /* the frame ended, all of it given out */
            v->in_unit = 0;
            v->units++;
        }
        if (out.pos)
            return (long)out.pos;
    }
}

/* HPROF bytes from the container: > 0, 0 at the end, -1 failed. */
static long hp_source(V *v, uint8_t *buf, size_t cap)
{
    long n;

    if (v->cend)
        return 0;
    if (v->kind == HS_COMPRESS_GZIP)
        n = gz_read(v, buf, cap);
    else if (v->kind == HS_COMPRESS_ZSTD)
        n = zs_read(v, buf, cap);
    else {
        int m = raw_more(v);
        size_t k = v->rlen - v->rpos;
        if (m <= 0)
            return m;
        if (k > cap)
            k = cap;
        memcpy(buf, v->raw + v->rpos, k);
        v->rpos += k;
        n = (long)k;
    }
    if (n > 0)
        hs_sha256_update(&v->hprof_sha, buf, (size_t)n);
    else
        v->cend = 1;
    return n;
}

/* ---- the HPROF reader ---------------------------------------------------- */

static uint64_t hp_at(const V *v)
{
    return v->hoff + v->hpos;
}

/* `n` (<= HP_BUF) contiguous HPROF bytes at the cursor, not consumed: a
 * pointer, or NULL (cut short: truncated, said, unless `eof_ok` and no
 * byte at all is left, then NULL unsaid). */
static const uint8_t *hp_peek(V *v, size_t n, const char *what, int eof_ok)
{
    assert(n <= HP_BUF);
    while (v->hlen - v->hpos < n) {
        long k;
        if (v->hpos) {
            memmove(v->hp, v->hp + v->hpos, v->hlen - v->hpos);
            v->hoff += v->hpos;
            v->hlen -= v->hpos;
            v->hpos = 0;
        }
        k = hp_source(v, v->hp + v->hlen, HP_BUF - v->hlen);
        if (k < 0)
            return NULL;
        if (k == 0) {
            if (eof_ok && v->hlen == v->hpos)
                return NULL;
            fail(v, HS_E_TRUNCATED, hp_at(v) + (v->hlen - v->hpos),
                 "HPROF byte %llu: the dump ends inside %s",
                 (unsigned long long)(hp_at(v) + (v->hlen - v->hpos)), what);
            return NULL;
        }
        v->hlen += (size_t)k;
    }
    return v->hp + v->hpos;
}

static const uint8_t *hp_get(V *v, size_t n, const char *what)
{
    const uint8_t *p = hp_peek(v, n, what, 0);

    if (p)
        v->hpos += n;
    return p;
}

/* Streams `n` bytes past, counting the non-zero ones in *nz (NULL: none). */
static int hp_skip(V *v, uint64_t n, uint64_t *nz, const char *what)
{
    while (n) {
        size_t k = v->hlen - v->hpos, i;
        if (!k) {
            if (!hp_peek(v, 1, what, 0))
                return -1;
            continue;
        }
        if (k > n)
            k = (size_t)n;
        for (i = 0; nz && i < k; i++)
            *nz += v->hp[v->hpos + i] != 0;
        v->hpos += k;
        n -= k;
    }
    return 0;
}

static uint64_t be(const uint8_t *p, unsigned n)
{
    uint64_t x = 0;

    while (n--)
        x = x << 8 | *p++;
    return x;
}

static uint64_t nonzero(const uint8_t *p, size_t n)
{
    uint64_t k = 0;

    while (n--)
        k += *p++ != 0;
    return k;
}

/* The size of basic type `t` (objects: the id size); 0 for no such type.
 * (Code 1, "array object", no writer uses as a value's type: the walk
 * refuses it where it reads a type.) */
static unsigned type_size(const V *v, unsigned t)
{
    return hs_type_size(t, v->idsize);
}

/* ---- names ----------------------------------------------------------------- */

/* The text of string `id` when held (a name up to 1 KiB), else NULL. */
static const char *text_of(const V *v, uint64_t id)
{
    uint64_t *i = hs_idmap_get(&v->string_of, id);

    if (!i || v->strings[*i].text == NO_TEXT)
        return NULL;
    return v->texts + v->strings[*i].text;
}

/* Java's dotted form of `s` into buf. */
static const char *dotted(char *buf, size_t cap, const char *s)
{
    size_t i;

    snprintf(buf, cap, "%s", s);
    for (i = 0; buf[i]; i++)
        if (buf[i] == '/')
            buf[i] = '.';
    return buf;
}

/* The name of class `id` (its LOAD_CLASS's), dotted, or "class@0x...". */
static const char *class_name(const V *v, uint64_t id, char *buf, size_t cap)
{
    uint64_t *l = hs_idmap_get(&v->load_of, id);
    const char *t = l ? text_of(v, v->loads[*l].name) : NULL;

    if (t)
        return dotted(buf, cap, t);
    snprintf(buf, cap, "class@0x%llx", (unsigned long long)id);
    return buf;
}

/* ---- records --------------------------------------------------------------- */

static int use(V *v, uint64_t id)
{
    return id ? put(v, &v->used, id, 1, "the STRING uses") : 0;
}

/* STRING: its id, whether its text holds a non-zero byte, the text of a
 * name kept to name classes and fields. */
static int rec_string(V *v, uint64_t len, uint64_t at)
{
    const uint8_t *p;
    vstring s;
    uint64_t *old;

    if (len < v->idsize)
        return fail(v, HS_E_MALFORMED, at, "HPROF byte %llu: STRING shorter than its id",
                    (unsigned long long)at);
    if (!(p = hp_get(v, v->idsize, "a STRING")))
        return -1;
    memset(&s, 0, sizeof s);
    s.id = be(p, v->idsize);
    s.offset = at;
    s.len = len - v->idsize;
    s.text = NO_TEXT;
    if (s.len <= HS_NAME_TEXT_MAX) {
        if (!(p = hp_get(v, (size_t)s.len, "a STRING")) ||
            GROW(v, texts, v->n_texts + (size_t)s.len + 1, "STRING texts") != 0)
            return -1;
        memcpy(v->texts + v->n_texts, p, (size_t)s.len);
        v->texts[v->n_texts + s.len] = 0;
        s.text = v->n_texts < NO_TEXT ? (uint32_t)v->n_texts : NO_TEXT;
        v->n_texts += (size_t)s.len + 1;
        s.nonzero = nonzero(p, (size_t)s.len);
    } else {
        if (hp_skip(v, s.len, &s.nonzero, "a STRING") != 0)
            return -1;
    }
    if (GROW(v, strings, v->n_strings + 1, "STRINGs") != 0)
        return -1;
    if (!(old = hs_idmap_get(&v->string_of, s.id)) &&
        put(v, &v->string_of, s.id, v->n_strings, "STRING ids") != 0)
        return -1;
    s.dup = old != NULL; /* the first one stays the name */
    v->strings[v->n_strings++] = s;
    v->res->strings++;
    return 0;
}

static int rec_load_class(V *v, uint64_t at)
{
    const uint8_t *p = hp_get(v, 8 + 2 * v->idsize, "a LOAD_CLASS");
    vload l;

    if (!p)
        return -1;
    l.cls = be(p + 4, v->idsize);
    l.name = be(p + 8 + v->idsize, v->idsize);
    (void)at;
    if (use(v, l.name) != 0 || GROW(v, loads, v->n_loads + 1, "LOAD_CLASSes") != 0 ||
        (!hs_idmap_get(&v->load_of, l.cls) &&
         put(v, &v->load_of, l.cls, v->n_loads, "LOAD_CLASSes") != 0))
        return -1;
    v->loads[v->n_loads++] = l;
    return 0;
}

/* A record of `len` bytes whose body holds `n_uses` ids of strings one
 * after the other from byte `first` (uses of those strings). */
static int rec_uses(V *v, uint64_t len, unsigned first, unsigned n_uses)
{
    const uint8_t *p = hp_get(v, (size_t)len, "a record");
    unsigned i;

    if (!p)
        return -1;
    for (i = 0; i < n_uses; i++)
        if (use(v, be(p + first + i * v->idsize, v->idsize)) != 0)
            return -1;
    return 0;
}

/* ---- classes --------------------------------------------------------------- */

static vclass *class_by_id(const V *v, uint64_t id)
{
    uint64_t *i = hs_idmap_get(&v->class_of, id);

    return i ? &v->classes[*i] : NULL;
}

/* A static, or a constant-pool value, holding data (settled at the end:
 * a static may be one of the keeps). */
static int value_data(V *v, uint32_t cls, uint64_t name, unsigned type, int is_const,
                      uint64_t bytes, uint64_t at, int wild)
{
    if (GROW(v, values, v->n_values + 1, "static values") != 0)
        return -1;
    v->values[v->n_values].cls = cls;
    v->values[v->n_values].name = name;
    v->values[v->n_values].type = type;
    v->values[v->n_values].is_const = (unsigned)is_const;
    v->values[v->n_values].wild = (unsigned)wild;
    v->values[v->n_values].bytes = bytes;
    v->values[v->n_values].offset = at;
    v->n_values++;
    return 0;
}

/* Constant pool and statics of the CLASS_DUMP at `at`: each value read. */
static int cd_values(V *v, uint32_t ci)
{
    const uint8_t *p;
    unsigned n, i, pass;

    for (pass = 0; pass < 2; pass++) { /* 0: constant pool, 1: statics */
        if (!(p = hp_get(v, 2, "a CLASS_DUMP")))
            return -1;
        n = (unsigned)be(p, 2);
        for (i = 0; i < n; i++) {
            unsigned head = pass ? v->idsize + 1 : 3, t, sz;
            uint64_t key;
            if (!(p = hp_get(v, head, "a CLASS_DUMP")))
                return -1;
            key = pass ? be(p, v->idsize) : be(p, 2);
            t = p[head - 1];
            if (!(sz = type_size(v, t)) || t == 1)
                return fail(v, HS_E_MALFORMED, hp_at(v) - 1,
                            "HPROF byte %llu: CLASS_DUMP value of basic type %u",
                            (unsigned long long)(hp_at(v) - 1), t);
            if (pass && use(v, key) != 0)
                return -1;
            if (!(p = hp_get(v, sz, "a CLASS_DUMP")))
                return -1;
            if (t != 2 && nonzero(p, sz) &&
                value_data(v, ci, key, t, !pass, nonzero(p, sz), hp_at(v) - sz,
                           !keep_range(t, p)) != 0)
                return -1;
        }
    }
    return 0;
}

/* Whether the instance fields just read for class `c` (at fields[f0..])
 * are the same layout as the one it had. */
static int same_layout(const V *v, const vclass *c, uint64_t super, size_t f0, size_t n)
{
    size_t i;

    if (c->super != super || c->nfields != n)
        return 0;
    for (i = 0; i < n; i++)
        if (v->fields[c->field0 + i].name != v->fields[f0 + i].name ||
            v->fields[c->field0 + i].type != v->fields[f0 + i].type)
            return 0;
    return 1;
}

static int sub_class_dump(V *v, uint64_t at)
{
    const unsigned I = v->idsize;
    const uint8_t *p = hp_get(v, 7 * I + 8, "a CLASS_DUMP");
    uint64_t id, super, loader, *known;
    size_t f0, n, i;
    uint32_t ci;
    vclass *c;

    if (!p)
        return -1;
    id = be(p, I);
    super = be(p + I + 4, I);
    loader = be(p + 2 * I + 4, I);
    known = hs_idmap_get(&v->class_of, id);
    if (!known) {
        if (GROW(v, classes, v->n_classes + 1, "classes") != 0 ||
            put(v, &v->class_of, id, v->n_classes, "classes") != 0)
            return -1;
        c = &v->classes[v->n_classes];
        memset(c, 0, sizeof *c);
        c->id = id;
        c->super = super;
        c->offset = at;
        ci = (uint32_t)v->n_classes++;
    } else {
        ci = (uint32_t)*known;
        c = &v->classes[ci];
    }
    c->loader_nonzero |= loader != 0;
    if (be(p + 5 * I + 4, I) || be(p + 6 * I + 4, I)) {
        v->res->n.reserved_ids++;
        if (!c->reserved_offset)
            c->reserved_offset = at;
    }
    if (cd_values(v, ci) != 0 || !(p = hp_get(v, 2, "a CLASS_DUMP")))
        return -1;
    n = (size_t)be(p, 2);
    f0 = v->n_fields;
    if (GROW(v, fields, f0 + n, "class layouts") != 0)
        return -1;
    c = &v->classes[ci];
    for (i = 0; i < n; i++) {
        vfield *f = &v->fields[f0 + i];
        if (!(p = hp_get(v, I + 1, "a CLASS_DUMP")))
            return -1;
        memset(f, 0, sizeof *f);
        f->name = be(p, I);
        f->type = p[I];
        if (!type_size(v, f->type) || f->type == 1)
            return fail(v, HS_E_MALFORMED, hp_at(v) - 1,
                        "HPROF byte %llu: instance field of basic type %u",
                        (unsigned long long)(hp_at(v) - 1), f->type);
        if (use(v, f->name) != 0)
            return -1;
    }
    c = &v->classes[ci];
    if (!known) {
        c->field0 = (uint32_t)f0;
        c->nfields = (uint32_t)n;
        v->n_fields += n;
    } else if (!same_layout(v, c, super, f0, n)) {
        char name[128];
        return fail(v, HS_E_MALFORMED, at,
                    "HPROF byte %llu: class %s is dumped twice with two layouts (CLASS_DUMPs "
                    "at HPROF bytes %llu and %llu)",
                    (unsigned long long)at, class_name(v, id, name, sizeof name),
                    (unsigned long long)c->offset, (unsigned long long)at);
    }
    v->res->class_dumps++;
    return 0;
}

/* The whole layout of class `c` (its fields, then its superclasses'),
 * into flat[], once every class of the chain is dumped: 1 known, 0 not
 * yet, -1 failed. */
static int layout(V *v, uint32_t ci)
{
    uint64_t id = v->classes[ci].id, size = 0;
    size_t start = v->n_flat, depth = 0, i;

    if (v->classes[ci].flat_known)
        return 1;
    while (id) {
        vclass *c = class_by_id(v, id);
        if (!c) {
            v->n_flat = start;
            return 0;
        }
        if (++depth > 65536)
            return fail(v, HS_E_MALFORMED, c->offset,
                        "HPROF byte %llu: a class's superclass chain loops",
                        (unsigned long long)c->offset);
        if (GROW(v, flat, v->n_flat + c->nfields, "class layouts") != 0)
            return -1;
        for (i = 0; i < c->nfields; i++) {
            v->flat[v->n_flat++] = c->field0 + (uint32_t)i;
            size += type_size(v, v->fields[c->field0 + i].type);
        }
        id = c->super;
    }
    v->classes[ci].flat0 = (uint32_t)start;
    v->classes[ci].nflat = (uint32_t)(v->n_flat - start);
    v->classes[ci].size = size;
    v->classes[ci].flat_known = 1;
    return 1;
}

/* Tallies an instance's field values `p[0, n)` through its class's layout. */
static int instance_values(V *v, uint32_t ci, const uint8_t *p, uint64_t n, uint64_t at)
{
    const vclass *c = &v->classes[ci];
    size_t i;

    if (n != c->size) {
        char name[128];
        return fail(v, HS_E_MALFORMED, at,
                    "HPROF byte %llu: an instance of %s holds %llu field bytes, its class "
                    "layout %llu",
                    (unsigned long long)at, class_name(v, c->id, name, sizeof name),
                    (unsigned long long)n, (unsigned long long)c->size);
    }
    for (i = 0; i < c->nflat; i++) {
        vfield *f = &v->fields[v->flat[c->flat0 + i]];
        unsigned sz = type_size(v, f->type);
        uint64_t nz = f->type == 2 ? 0 : nonzero(p, sz);
        if (nz) {
            if (!f->objects)
                f->first = at;
            f->objects++;
            f->bytes += nz;
            if (!keep_range(f->type, p))
                f->wild += nz;
        }
        p += sz;
    }
    return 0;
}

/* An instance whose class layout is not known yet: held for the end. */
static int hold(V *v, uint64_t cls, const uint8_t *p, uint64_t n, uint64_t at)
{
    size_t need = v->n_held + 20 + (size_t)n;
    uint8_t *h;

    if (GROW(v, held, need, "instances waiting for their class") != 0)
        return -1;
    h = v->held + v->n_held;
    memcpy(h, &at, 8);
    memcpy(h + 8, &cls, 8);
    memcpy(h + 16, &(uint32_t){(uint32_t)n}, 4);
    memcpy(h + 20, p, (size_t)n);
    v->n_held = need;
    return 0;
}

static int sub_instance(V *v, uint64_t at)
{
    const unsigned I = v->idsize;
    const uint8_t *p = hp_get(v, 2 * I + 8, "an INSTANCE_DUMP");
    uint64_t cls, n, *ci;
    int k = 0;

    if (!p)
        return -1;
    cls = be(p + I + 4, I);
    n = be(p + 2 * I + 4, 4);
    if (n > HP_BUF)
        return fail(v, HS_E_LIMIT, at, "HPROF byte %llu: an instance of %llu bytes (the audit "
                    "reads instances up to %u bytes)",
                    (unsigned long long)at, (unsigned long long)n, HP_BUF);
    if (!(p = hp_get(v, (size_t)n, "an INSTANCE_DUMP")))
        return -1;
    v->res->instances++;
    ci = hs_idmap_get(&v->class_of, cls);
    if (ci && (k = layout(v, (uint32_t)*ci)) < 0)
        return -1;
    if (k)
        return instance_values(v, (uint32_t)*ci, p, n, at);
    return hold(v, cls, p, n, at);
}

static int sub_prim_array(V *v, uint64_t at, int nodata)
{
    const unsigned I = v->idsize;
    const uint8_t *p = hp_get(v, I + 9, "a PRIMITIVE_ARRAY_DUMP");
    uint64_t count, nz = 0;
    unsigned t, sz;

    if (!p)
        return -1;
    count = be(p + I + 4, 4);
    t = p[I + 8];
    if (t < 4 || !(sz = type_size(v, t)))
        return fail(v, HS_E_MALFORMED, at + 1 + I + 8,
                    "HPROF byte %llu: PRIMITIVE_ARRAY_DUMP of element type %u",
                    (unsigned long long)(at + 1 + I + 8), t);
    v->res->prim_arrays++;
    if (nodata)
        return 0;
    if (hp_skip(v, count * sz, &nz, "a PRIMITIVE_ARRAY_DUMP") != 0)
        return -1;
    if (nz) {
        if (!v->arr_count[t])
            v->arr_first[t] = at;
        v->arr_count[t]++;
        v->arr_bytes[t] += nz;
    }
    return 0;
}

/* The size of a root sub-record's body (after the tag), 0: not a root. */
static unsigned root_size(unsigned tag, unsigned I)
{
    return hs_sub_is_root(tag) ? (unsigned)hs_sub_fixed_size(tag, I) - 1 : 0;
}

/* One heap sub-record at `at`, within the heap record ending at `end`. */
static int sub_record(V *v, uint64_t at)
{
    const uint8_t *p = hp_get(v, 1, "a heap sub-record");
    unsigned tag, rs;

    if (!p)
        return -1;
    tag = *p;
    v->res->subrecords++;
    if ((rs = root_size(tag, v->idsize)) != 0) {
        v->res->roots++;
        return hp_get(v, rs, "a GC root") ? 0 : -1;
    }
    switch (tag) {
    case 0x20: return sub_class_dump(v, at);
    case 0x21: return sub_instance(v, at);
    case 0x22:
        if (!(p = hp_get(v, 2 * v->idsize + 8, "an OBJECT_ARRAY_DUMP")))
            return -1;
        v->res->obj_arrays++;
        return hp_skip(v, be(p + v->idsize + 4, 4) * v->idsize, NULL, "an OBJECT_ARRAY_DUMP");
    case 0x23: return sub_prim_array(v, at, 0);
    case 0xc3: return sub_prim_array(v, at, 1);
    case 0xfe: /* HEAP_DUMP_INFO: heap id, name */
        if (!(p = hp_get(v, 4 + v->idsize, "a HEAP_DUMP_INFO")))
            return -1;
        return use(v, be(p + 4, v->idsize));
    default:
        return fail(v, HS_E_MALFORMED, at, "HPROF byte %llu: unknown heap sub-record tag 0x%02x",
                    (unsigned long long)at, tag);
    }
}

static int rec_heap(V *v, uint64_t len, uint64_t at)
{
    uint64_t end = hp_at(v) + len;

    v->res->heap_dumps++;
    while (hp_at(v) < end) {
        uint64_t sub = hp_at(v);
        if (sub_record(v, sub) != 0)
            return -1;
        if (hp_at(v) > end)
            return fail(v, HS_E_MALFORMED, sub,
                        "HPROF byte %llu: a sub-record runs past its heap record (HPROF byte "
                        "%llu)",
                        (unsigned long long)sub, (unsigned long long)at);
    }
    return 0;
}

/* A record whose body is `fixed` bytes plus `each` bytes per count read
 * at `count_at` (a u4), structure all of it. */
static int rec_sized(V *v, unsigned tag, uint64_t len, uint64_t at, unsigned fixed,
                     unsigned count_at, unsigned each)
{
    const uint8_t *p;
    uint64_t want = fixed;

    if (each) {
        if (len < count_at + 4 || !(p = hp_peek(v, count_at + 4, "a record", 0)))
            return v->failed ? -1 : fail(v, HS_E_MALFORMED, at, "HPROF byte %llu: record too short",
                                         (unsigned long long)at);
        want += be(p + count_at, 4) * each;
    }
    if (len != want)
        return fail(v, HS_E_MALFORMED, at,
                    "HPROF byte %llu: record of tag 0x%02x has length %llu, its layout %llu",
                    (unsigned long long)at, tag, (unsigned long long)len,
                    (unsigned long long)want);
    return hp_skip(v, len, NULL, "a record");
}

/* A record, by its layout in format.h's HS_RECORDS: STRING and LOAD_CLASS
 * read for what they name, a record naming strings for its uses of them. */
static int record(V *v, unsigned tag, uint64_t len, uint64_t at)
{
    const unsigned I = v->idsize;
    const hs_record_kind *k = &hs_record_kinds[tag];
    const unsigned fixed = (unsigned)hs_record_fixed(k, I);

    switch (k->body) {
    case HS_BODY_ID_TEXT: return rec_string(v, len, at); /* STRING's shape */
    case HS_BODY_SUBRECORDS: return rec_heap(v, len, at);
    case HS_BODY_COUNTED:
        return rec_sized(v, tag, len, at, fixed, k->count_at, (unsigned)hs_record_each(k, I));
    case HS_BODY_FIXED:
        if (tag != HS_TAG_LOAD_CLASS && !k->names)
            return rec_sized(v, tag, len, at, fixed, 0, 0);
        if (len != fixed)
            break;
        if (tag == HS_TAG_LOAD_CLASS)
            return rec_load_class(v, at);
        return rec_uses(v, len, hs_record_names_at(k, I), k->names);
    default: { /* unknown: data, all of it */
        char name[32];
        v->res->n.unknown_records++;
        snprintf(name, sizeof name, "record tag 0x%02x", tag);
        return row(v, HS_FIND_RECORD, tag, tag, name, 1, len, at) != 0 ? -1
               : hp_skip(v, len, NULL, "a record");
    }
    }
    return fail(v, HS_E_MALFORMED, at, "HPROF byte %llu: record of tag 0x%02x has length %llu",
                (unsigned long long)at, tag, (unsigned long long)len);
}

/* The header: version, id size, timestamp. */
static int header(V *v)
{
    static const char *const versions[] = {HS_VERSION_LINE(1), HS_VERSION_LINE(2),
                                           HS_VERSION_LINE(3)};
    const size_t line = sizeof HS_VERSION_LINE(1); /* the NUL included */
    const uint8_t *p = hp_peek(v, line + HS_HEADER_TAIL, "the HPROF header", 0);
    unsigned i;

    _Static_assert(sizeof versions / sizeof *versions == HS_VERSION_NEWEST,
                   "the verifier reads every 1.0.x version");
    if (!p)
        return -1;
    for (i = 0; i < HS_VERSION_NEWEST; i++)
        if (memcmp(p, versions[i], line) == 0)
            break;
    if (i == HS_VERSION_NEWEST)
        return fail(v, HS_E_UNSUPPORTED, 0, "HPROF byte 0: not an HPROF header (" HS_MAGIC
                    ".1, 1.0.2 or 1.0.3)");
    v->idsize = (unsigned)be(p + line, 4);
    if (v->idsize != 4 && v->idsize != 8)
        return fail(v, HS_E_UNSUPPORTED, line, "HPROF byte %zu: identifier size %u (4 or 8 read)",
                    line, v->idsize);
    v->res->hprof_version = i + 1;
    v->res->idsize = v->idsize;
    v->hpos += line + HS_HEADER_TAIL;
    return 0;
}

static int walk(V *v)
{
    const uint8_t *p;

    if (header(v) != 0)
        return -1;
    while ((p = hp_peek(v, 9, "a record header", 1)) != NULL) {
        uint64_t at = hp_at(v), len = be(p + 5, 4);
        unsigned tag = p[0];
        v->hpos += 9;
        v->res->records++;
        if (record(v, tag, len, at) != 0)
            return -1;
        if (hp_at(v) != at + 9 + len)
            return fail(v, HS_E_MALFORMED, at,
                        "HPROF byte %llu: record of tag 0x%02x is %llu bytes, its contents %llu",
                        (unsigned long long)at, tag, (unsigned long long)len,
                        (unsigned long long)(hp_at(v) - at - 9));
    }
    return v->failed ? -1 : 0;
}

/* ---- the end: what waited is settled --------------------------------------- */

/* Instances that came before their class: classified now, or their
 * non-zero bytes data when the class never came. */
static int settle_held(V *v)
{
    size_t at = 0;

    while (at < v->n_held) {
        uint64_t off, cls, *ci;
        uint32_t n;
        const uint8_t *p = v->held + at + 20;
        int k = 0;
        memcpy(&off, v->held + at, 8);
        memcpy(&cls, v->held + at + 8, 8);
        memcpy(&n, v->held + at + 16, 4);
        at += 20 + n;
        ci = hs_idmap_get(&v->class_of, cls);
        if (ci && (k = layout(v, (uint32_t)*ci)) < 0)
            return -1;
        if (k && instance_values(v, (uint32_t)*ci, p, n, off) != 0)
            return -1;
        if (!k && nonzero(p, n)) {
            char name[160], cn[128];
            snprintf(name, sizeof name, "%s (no CLASS_DUMP for its fields)",
                     class_name(v, cls, cn, sizeof cn));
            if (row(v, HS_FIND_CLASS, cls, cls, name, 1, nonzero(p, n), off) != 0)
                return -1;
            v->res->n.nonzero_field_bytes += nonzero(p, n);
            if (!v->res->n.first_nonzero_field || off < v->res->n.first_nonzero_field)
                v->res->n.first_nonzero_field = off;
        }
    }
    return 0;
}

/* The class id each keep's class name anchors to: the one LOAD_CLASS of
 * that name, when there is exactly one and its CLASS_DUMP says loader 0. */
static void anchors(const V *v, uint64_t anchor[N_KEEPS])
{
    size_t k, i;

    for (k = 0; k < N_KEEPS; k++) {
        uint64_t n = 0, id = 0;
        char name[128];
        const vclass *c;
        for (i = 0; i < v->n_loads; i++) {
            const char *t = text_of(v, v->loads[i].name);
            if (t && strcmp(dotted(name, sizeof name, t), g_keeps[k].cls) == 0)
                n++, id = v->loads[i].cls;
        }
        c = n == 1 ? class_by_id(v, id) : NULL;
        anchor[k] = c && !c->loader_nonzero ? id : UINT64_MAX;
    }
}

/* Whether the non-zero value of field `name` (type `type`) of class
 * `cls` is one of the anchored keeps. */
static int kept(const V *v, const uint64_t anchor[N_KEEPS], uint64_t cls, uint64_t name,
                unsigned type, int is_static, uint64_t wild)
{
    const char *t = text_of(v, name);
    size_t k;

    if (wild) /* a value out of the JDK's range: data, whatever the anchor */
        return 0;
    for (k = 0; t && k < N_KEEPS; k++)
        if (anchor[k] == cls && g_keeps[k].is_static == is_static && g_keeps[k].type == type &&
            strcmp(g_keeps[k].field, t) == 0)
            return 1;
    return 0;
}

static void first(uint64_t *first, uint64_t at)
{
    if (!*first || at < *first)
        *first = at;
}

/* Instance fields and statics holding data, the keeps taken out. */
static int settle_values(V *v)
{
    uint64_t anchor[N_KEEPS];
    hs_verify_counts *n = &v->res->n;
    char name[300], cn[128];
    size_t ci, i;

    anchors(v, anchor);
    for (ci = 0; ci < v->n_classes; ci++) {
        const vclass *c = &v->classes[ci];
        for (i = 0; i < c->nfields; i++) {
            const vfield *f = &v->fields[c->field0 + i];
            const char *t = text_of(v, f->name);
            if (!f->bytes)
                continue;
            if (kept(v, anchor, c->id, f->name, f->type, 0, f->wild)) {
                n->kept_bytes += f->bytes;
                continue;
            }
            snprintf(name, sizeof name, "%s.%s", class_name(v, c->id, cn, sizeof cn),
                     t ? t : "?");
            if (row(v, HS_FIND_FIELD, 0, c->id, name, f->objects, f->bytes, f->first) != 0)
                return -1;
            n->nonzero_field_bytes += f->bytes;
            first(&n->first_nonzero_field, f->first);
        }
        if (c->reserved_offset) {
            snprintf(name, sizeof name, "%s (CLASS_DUMP reserved ids)",
                     class_name(v, c->id, cn, sizeof cn));
            if (row(v, HS_FIND_RESERVED, 0, c->id, name, 1, 2 * v->idsize, c->reserved_offset))
                return -1;
        }
    }
    for (i = 0; i < v->n_values; i++) {
        const vvalue *x = &v->values[i];
        const vclass *c = &v->classes[x->cls];
        const char *t = x->is_const ? NULL : text_of(v, x->name);
        if (!x->is_const && kept(v, anchor, c->id, x->name, x->type, 1, x->wild)) {
            n->kept_bytes += x->bytes;
            continue;
        }
        if (x->is_const)
            snprintf(name, sizeof name, "%s.<constant pool %llu>",
                     class_name(v, c->id, cn, sizeof cn), (unsigned long long)x->name);
        else
            snprintf(name, sizeof name, "%s.%s", class_name(v, c->id, cn, sizeof cn),
                     t ? t : "?");
        if (row(v, x->is_const ? HS_FIND_CONSTANT : HS_FIND_STATIC, 0, c->id, name, 1, x->bytes,
                x->offset) != 0)
            return -1;
        n->nonzero_field_bytes += x->bytes;
        first(&n->first_nonzero_field, x->offset);
    }
    return 0;
}

/* STRINGs nothing uses holding data, and primitive arrays. */
static int settle_strings_arrays(V *v)
{
    hs_verify_counts *n = &v->res->n;
    char name[48];
    size_t i;
    unsigned t;

    for (i = 0; i < v->n_strings; i++) {
        const vstring *s = &v->strings[i];
        if (s->nonzero && s->len > HS_STRING_HOLD_MAX) { /* no name is that long */
            n->long_strings++;
            n->long_string_bytes += s->nonzero;
            snprintf(name, sizeof name, "STRING 0x%llx", (unsigned long long)s->id);
            if (row(v, HS_FIND_STRING_LONG, 0, s->id, name, 1, s->nonzero, s->offset) != 0)
                return -1;
            continue;
        }
        if (!s->nonzero || (!s->dup && hs_idmap_get(&v->used, s->id)))
            continue;
        n->unused_strings++;
        n->unused_string_bytes += s->len;
        snprintf(name, sizeof name, "STRING 0x%llx", (unsigned long long)v->strings[i].id);
        if (row(v, HS_FIND_STRING_UNUSED, 0, s->id, name, 1, s->len, s->offset) != 0)
            return -1;
    }
    for (t = 4; t < 12; t++) {
        static const char *const names[] = {"boolean[]", "char[]", "float[]", "double[]",
                                            "byte[]",    "short[]", "int[]",  "long[]"};
        if (!v->arr_count[t])
            continue;
        n->nonzero_array_bytes += v->arr_bytes[t];
        first(&n->first_nonzero_array, v->arr_first[t]);
        if (row(v, HS_FIND_ARRAY, 0, t, names[t - 4], v->arr_count[t], v->arr_bytes[t],
                v->arr_first[t]) != 0)
            return -1;
    }
    return 0;
}

/* A finding's class is the JDK's or Android's (listed after the app's). */
static int jdk_row(const V *v, const vrow *r)
{
    static const char *const pkgs[] = {"java.", "javax.", "jdk.", "sun.", "android.", "dalvik.",
                                       "libcore."};
    size_t i;

    for (i = 0; i < sizeof pkgs / sizeof pkgs[0]; i++)
        if (strncmp(v->names + r->name, pkgs[i], strlen(pkgs[i])) == 0)
            return 1;
    return 0;
}

/* Container findings first, then the app's classes, the JDK's, then the
 * rest by kind; within each, by offset. */
static int row_rank(const V *v, const vrow *r)
{
    switch (r->kind) {
    case HS_FIND_CONTAINER: return 0;
    case HS_FIND_FIELD: case HS_FIND_STATIC: case HS_FIND_CONSTANT: case HS_FIND_CLASS:
    case HS_FIND_RESERVED:
        return 1 + jdk_row(v, r);
    default: return 3;
    }
}

static int by_rank(const void *a, const void *b)
{
    const vrow *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank - y->rank;
    if (x->kind != y->kind)
        return x->kind - y->kind;
    return x->first < y->first ? -1 : x->first > y->first;
}

/* The rows as the result gives them (names copied). */
static int give_rows(V *v)
{
    hs_verify_result *res = v->res;
    size_t i;

    for (i = 0; i < v->n_rows; i++)
        v->rows[i].rank = row_rank(v, &v->rows[i]);
    if (v->n_rows) /* (rows is NULL when there are none) */
        qsort(v->rows, v->n_rows, sizeof *v->rows, by_rank);
    if (!(res->findings = calloc(v->n_rows + 1, sizeof *res->findings)))
        return fail(v, HS_E_NOMEM, UINT64_MAX, "out of memory (findings)");
    for (i = 0; i < v->n_rows; i++) {
        hs_finding *f = &res->findings[i];
        char str[40], *name;
        const char *text = str;
        if (v->rows[i].name == NO_TEXT)
            snprintf(str, sizeof str, "STRING 0x%llx", (unsigned long long)v->rows[i].id);
        else
            text = v->names + v->rows[i].name;
        if (!(name = malloc(strlen(text) + 1)))
            return fail(v, HS_E_NOMEM, UINT64_MAX, "out of memory (findings)");
        f->kind = v->rows[i].kind;
        f->name = strcpy(name, text);
        f->id = v->rows[i].id;
        f->count = v->rows[i].count;
        f->bytes = v->rows[i].bytes;
        f->first_offset = v->rows[i].first;
        res->n_findings = i + 1;
    }
    return 0;
}

/* ---- the run --------------------------------------------------------------- */

/* Which container the first bytes say: 0, or -1 (not a dump) said. */
static int container(V *v)
{
    const uint8_t *p;
    int kind;

    if (raw_more(v) <= 0)
        return v->failed ? -1 : fail(v, HS_E_TRUNCATED, 0, "the input is empty");
    if (raw_have(v, 4) < 0) /* a pipe's first read may be short */
        return -1;
    p = v->raw;
    kind = hs_sniff(p, v->rlen); /* the codec table's magic numbers */
    if (kind == HS_COMPRESS_GZIP) {
        v->kind = HS_COMPRESS_GZIP;
        if (!(v->gz = malloc(sizeof *v->gz)))
            return fail(v, HS_E_NOMEM, UINT64_MAX, "out of memory");
    } else if (kind == HS_COMPRESS_ZSTD) {
        v->kind = HS_COMPRESS_ZSTD;
        if (!(v->zd = ZSTD_createDStream()))
            return fail(v, HS_E_NOMEM, UINT64_MAX, "out of memory");
    } else if (v->rlen < 4 || memcmp(p, "JAVA", 4) != 0) {
        return fail(v, HS_E_UNSUPPORTED, 0,
                    "input byte 0: not HPROF (nor gzip or zstd holding HPROF)");
    }
    v->res->compression = v->kind;
    return 0;
}

static void release(V *v)
{
    hs_idmap_free(&v->string_of);
    hs_idmap_free(&v->used);
    hs_idmap_free(&v->class_of);
    hs_idmap_free(&v->load_of);
    hs_alloc_free(&v->a, v->strings);
    hs_alloc_free(&v->a, v->texts);
    hs_alloc_free(&v->a, v->classes);
    hs_alloc_free(&v->a, v->fields);
    hs_alloc_free(&v->a, v->flat);
    hs_alloc_free(&v->a, v->values);
    hs_alloc_free(&v->a, v->loads);
    hs_alloc_free(&v->a, v->held);
    hs_alloc_free(&v->a, v->rows);
    hs_alloc_free(&v->a, v->names);
    free(v->raw);
    free(v->hp);
    free(v->gz);
    ZSTD_freeDStream(v->zd);
}

hs_status hs_verify_run(long (*read)(void *ctx, void *buf, size_t cap), void *ctx,
                        uint64_t max_held, hs_verify_result *res)
{
    V *v = calloc(1, sizeof *v);

    memset(res, 0, sizeof *res);
    res->status = HS_OK;
    if (!v) {
        res->status = res->err.code = HS_E_NOMEM;
        res->err.offset = res->err.record_offset = UINT64_MAX; /* at no byte */
        snprintf(res->err.message, sizeof res->err.message, "out of memory");
        return res->status;
    }
    v->read = read;
    v->ctx = ctx;
    v->res = res;
    hs_meter_init(&v->meter, NULL, max_held ? max_held : HS_DEFAULT_MAX_HELD);
    v->a = hs_meter_alloc(&v->meter);
    hs_idmap_init(&v->string_of, &v->a);
    hs_idmap_init(&v->used, &v->a);
    hs_idmap_init(&v->class_of, &v->a);
    hs_idmap_init(&v->load_of, &v->a);
    v->string_of.unordered = v->used.unordered = v->class_of.unordered = v->load_of.unordered = 1;
    hs_sha256_init(&v->file_sha);
    hs_sha256_init(&v->hprof_sha);
    if (!(v->raw = malloc(RAW_BUF)) || !(v->hp = malloc(HP_BUF)))
        fail(v, HS_E_NOMEM, UINT64_MAX, "out of memory");
    else if (container(v) == 0 && walk(v) == 0 && settle_held(v) == 0 &&
             settle_values(v) == 0 && settle_strings_arrays(v) == 0 && give_rows(v) == 0) {
        hs_verify_counts *n = &res->n;
        res->clean = !n->nonzero_array_bytes && !n->nonzero_field_bytes && !n->unused_strings &&
                     !n->unknown_records && !n->reserved_ids && !n->container_findings &&
                     !n->long_strings;
        assert(!res->clean || v->n_rows == 0);
    }
    res->held_peak = v->meter.peak;
    hs_sha256_digest(&v->file_sha, &res->file_sha);
    hs_sha256_digest(&v->hprof_sha, &res->hprof_sha);
    release(v);
    free(v);
    return res->status;
}

void hs_verify_result_free(hs_verify_result *res)
{
    size_t i;

    if (!res)
        return;
    for (i = 0; i < res->n_findings; i++)
        free((char *)(uintptr_t)res->findings[i].name);
    free(res->findings);
    res->findings = NULL;
    res->n_findings = 0;
}
