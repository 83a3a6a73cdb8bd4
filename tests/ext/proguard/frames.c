/* SPDX-License-Identifier: Apache-2.0 */
/*
 * frames.c - prints the deep stack traces of a HotSpot dump, one frame a
 * line ("class method line"), optionally mapped back through an R8/ProGuard
 * mapping with the library's parser: the end-to-end check that the
 * retraced frames of the obfuscated program's dump are the plain program's.
 *
 *     frames DUMP [MAPPING]
 *
 * Only traces of at least MIN_FRAMES frames are printed (the test program's
 * parked thread), each preceded by "trace". A hidden class's address suffix
 * (Main$$Lambda$1/0x...) is cut: it differs from run to run. Source files are left out: a
 * ProGuard mapping does not have them. With FRAMES_OUTER=1 in the
 * environment, an inlined frame prints only its outermost original frame,
 * as hprof-strip --mapping writes it (tests/cli/deobf.sh). Exit status 0, or 2
 * on a bad input.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mapping.h"

#define MIN_FRAMES 15

typedef struct {
    uint8_t *d;
    size_t n, idsize;
} dump;

static _Noreturn void die(const char *what)
{
    fprintf(stderr, "frames: %s\n", what);
    exit(2);
}

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t *b = NULL;
    size_t cap = 0, got;

    if (!f)
        die("cannot open an input");
    *len = 0;
    do {
        if (*len == cap) {
            cap = cap ? cap * 2 : 1 << 20;
            b = realloc(b, cap);
            if (!b)
                die("out of memory");
        }
        got = fread(b + *len, 1, cap - *len, f);
        *len += got;
    } while (got);
    fclose(f);
    return b;
}

static uint64_t be(const uint8_t *p, size_t n)
{
    uint64_t v = 0;

    while (n--)
        v = v << 8 | *p++;
    return v;
}

/* The record (tag `tag`) whose first id is `id`, or NULL: a linear scan,
 * fine for the few hundred frames of a test dump. */
static const uint8_t *find(const dump *h, int tag, uint64_t id, size_t skip, uint32_t *len)
{
    size_t p = strlen((const char *)h->d) + 1 + 4 + 8;

    while (p + 9 <= h->n) {
        uint32_t l = (uint32_t)be(h->d + p + 5, 4);
        if (h->d[p] == tag && l >= skip + h->idsize &&
            be(h->d + p + 9 + skip, h->idsize) == id) {
            *len = l;
            return h->d + p + 9;
        }
        p += 9 + (size_t)l;
    }
    return NULL;
}

/* The LOAD_CLASS record of class serial `serial`, or NULL. */
static const uint8_t *load_class(const dump *h, uint32_t serial)
{
    size_t p = strlen((const char *)h->d) + 1 + 4 + 8;

    while (p + 9 <= h->n) {
        uint32_t l = (uint32_t)be(h->d + p + 5, 4);
        if (h->d[p] == 0x02 && l >= 4 && be(h->d + p + 9, 4) == serial)
            return h->d + p + 9;
        p += 9 + (size_t)l;
    }
    return NULL;
}

static void print_frame(const dump *h, const uint8_t *fr, hs_mapping *m)
{
    size_t id = h->idsize;
    uint32_t len, slen, serial = (uint32_t)be(fr + 4 * id, 4);
    int32_t line = (int32_t)be(fr + 4 * id + 4, 4);
    const uint8_t *method = find(h, 0x01, be(fr + id, id), 0, &slen), *lc, *cname;
    char cls[600], out[600];
    size_t i, mlen;
    hs_mapping_frame f[8];

    lc = load_class(h, serial);
    if (!method || !lc || !(cname = find(h, 0x01, be(lc + 8 + id, id), 0, &len)))
        die("a frame names a missing string or class");
    mlen = slen - id;
    snprintf(cls, sizeof cls, "%.*s", (int)(len - id), (const char *)cname + id);
    if (m) {
        size_t n = hs_mapping_frames(m, NULL, cls, strlen(cls), (const char *)method + id, mlen,
                                     line > 0 ? (uint32_t)line : 0, f, 8);
        const char *outer = getenv("FRAMES_OUTER");
        for (i = outer && *outer == '1' && n && n <= 8 ? n - 1 : 0; i < n && i < 8; i++)
            printf("%s %s %u\n", f[i].class_name, f[i].method, f[i].line);
        if (n)
            return;
        if (hs_mapping_class_jvm(m, NULL, cls, strlen(cls), out, sizeof out))
            snprintf(cls, sizeof cls, "%s", out);
    }
    for (i = 0; cls[i]; i++) {
        if ((cls[i] == '/' || cls[i] == '+') && strncmp(cls + i + 1, "0x", 2) == 0)
            cls[i] = 0;
        else if (cls[i] == '/')
            cls[i] = '.';
    }
    printf("%s %.*s %d\n", cls, (int)mlen, (const char *)method + id, line);
}

int main(int argc, char **argv)
{
    dump h;
    hs_mapping *m = NULL;
    size_t p;

    if (argc < 2 || argc > 3)
        die("usage: frames DUMP [MAPPING]");
    h.d = slurp(argv[1], &h.n);
    if (h.n < 32 || !memchr(h.d, 0, 32))
        die("not an HPROF file");
    p = strlen((const char *)h.d) + 1;
    h.idsize = (size_t)be(h.d + p, 4);
    if (argc == 3) {
        size_t len;
        uint8_t *text = slurp(argv[2], &len);
        hs_error err;
        m = hs_mapping_parse((const char *)text, len, argv[2], NULL, &err);
        if (!m) {
            fprintf(stderr, "frames: %s\n", err.message);
            return 2;
        }
        free(text);
    }
    for (p += 12; p + 9 <= h.n;) {
        uint32_t l = (uint32_t)be(h.d + p + 5, 4), n, i, flen;
        const uint8_t *r = h.d + p + 9;
        if (h.d[p] == 0x05 && (n = (uint32_t)be(r + 8, 4)) >= MIN_FRAMES) {
            printf("trace\n");
            for (i = 0; i < n; i++) {
                const uint8_t *fr = find(&h, 0x04, be(r + 12 + i * h.idsize, h.idsize), 0, &flen);
                if (!fr)
                    die("a trace names a missing frame");
                print_frame(&h, fr, m);
            }
        }
        p += 9 + (size_t)l;
    }
    hs_mapping_free(m);
    free(h.d);
    return 0;
}
