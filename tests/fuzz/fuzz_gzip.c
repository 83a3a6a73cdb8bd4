/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_gzip.c - libFuzzer harness over the library's gzip reader (src/lib/input.c).
 *
 * The reader has two ways through a gzip input: the streaming inflater, and,
 * with its reader thread on HotSpot's -gz shape, members inflated two at a
 * time, which hands over to the streaming inflater at the first member it
 * cannot vouch for (damage, a member bigger than it says, header-like bytes
 * inside a member past a budget). input.c promises that the second way gives
 * the same bytes and the same messages as the first. This harness builds a
 * gzip file from the fuzzer's bytes, optionally damages or cuts it, reads it
 * both ways and checks that promise, and what each way must give on its own.
 *
 * Input layout: a 16-byte recipe, then the content (the dump's bytes).
 *
 *   h[0] bit 0   the first member carries HotSpot's comment "HPROF
 *                BLOCKSIZE=N" (else every member has a plain header)
 *        bit 1   stored deflate blocks: the content's bytes appear in the
 *                members as they are, so a member header in the content is
 *                one inside a member (else libdeflate at level h[1])
 *        bit 2   the content is grown to up to 6 MiB (h[5..7]): the fuzz
 *                bytes then pseudo-random ones, in turn, so the compressed
 *                file outgrows the reader's 1 and 4 MiB buffers
 *        bit 3   the threaded read comes through a pipe, written in pieces
 *                of pseudo-random sizes, and the streaming one from a
 *                memory file (mapped, as a regular file is); else the
 *                other way round: each way is checked against the other
 *        bit 4   BLOCKSIZE says less than the members hold
 *        bit 5   one byte of the file is changed (h[8..10] where, h[11] how)
 *        bit 6   the file is cut (h[12..14] where)
 *        bit 7   an empty member follows the first
 *   h[1]         libdeflate's level (1..12; at most 3 for grown content);
 *                grown content is halved h[1] >> 5 times
 *   h[2..4]      bytes per member: 1 + h % 4096, or % 1 MiB when grown
 *   h[15]        the read size asked of hs_input_read (1 byte to 1 MiB) and
 *                the pipe's pieces;
 *                bit 7: the members after the first carry a file name (not
 *                HotSpot's shape)
 *
 * Invariants checked (any failure aborts with a message naming it):
 *   - read with and without the reader thread, the input gives the same
 *     bytes, ends the same way, with the same damage and the same error
 *     message (but from a corrupt member: the bytes inflated from it
 *     before the damage showed are given out, as gzip -dc gives them, and
 *     which and how many depends on the room each inflate call had);
 *   - a whole, unchanged file gives exactly the content, no damage, no
 *     error; on HotSpot's shape (compressed, members no bigger than
 *     BLOCKSIZE, none empty, no names) every member goes two at a time;
 *   - a cut file gives a prefix of the content: all of the members before
 *     the cut and no damage when it falls between two members, else
 *     HS_DAMAGE_TRUNCATED;
 *   - a changed byte loses none of the members before it (nor does a cut),
 *     and either is reported as damage or changes nothing.
 */
#define _GNU_SOURCE /* memfd_create */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <libdeflate.h>
#include <xxhash.h>

#include "input.h"
#include "fuzz_check.h"

#define RECIPE 16
#define MAX_GROWN ((size_t)6 << 20)
#define MAX_MEMBERS 4096 /* beyond that, members grow */

enum {
    F_HOTSPOT = 1, F_STORED = 2, F_GROW = 4, F_PIPE = 8,
    F_SMALL_BLOCK = 16, F_EDIT = 32, F_CUT = 64, F_EMPTY = 128
};

static uint32_t u24(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;
}

static void le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16), p[3] = (uint8_t)(v >> 24);
}

static uint32_t xorshift(uint32_t *x)
{
    *x ^= *x << 13, *x ^= *x >> 17, *x ^= *x << 5;
    return *x;
}

/* ---- building the file ---------------------------------------------------- */

typedef struct {
    uint8_t *p;
    size_t len, cap;
    /* where each member ends, in the file and in the content */
    size_t gz_end[MAX_MEMBERS + 1], data_end[MAX_MEMBERS + 1];
    unsigned members;
} gzfile;

static uint8_t *room(gzfile *g, size_t n)
{
    if (g->len + n > g->cap) {
        g->cap = (g->len + n) * 2;
        g->p = realloc(g->p, g->cap);
        CHECK(g->p != NULL, "harness out of memory");
    }
    g->len += n;
    return g->p + g->len - n;
}

/* A member's header: HotSpot's first (with its comment), or a plain one,
 * or one with a file name. */
static void header(gzfile *g, size_t block, int hotspot, int named)
{
    static const uint8_t plain[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 4, 3};
    uint8_t *h = room(g, 10);

    memcpy(h, plain, 10);
    if (hotspot) {
        char c[40];
        int n = snprintf(c, sizeof c, "HPROF BLOCKSIZE=%zu", block);
        h[3] = 0x10, h[8] = 0;
        memcpy(room(g, (size_t)n + 1), c, (size_t)n + 1);
    } else if (named) {
        h[3] = 0x08;
        memcpy(room(g, 6), "a.bin", 6);
    }
}

/* Stored blocks (at least one, the last final) holding p[0, n). */
static void stored(gzfile *g, const uint8_t *p, size_t n)
{
    size_t done = 0;

    do {
        size_t k = n - done > 65535 ? 65535 : n - done;
        uint8_t *b = room(g, 5 + k);
        b[0] = done + k == n;
        b[1] = (uint8_t)k, b[2] = (uint8_t)(k >> 8);
        b[3] = (uint8_t)~k, b[4] = (uint8_t)(~k >> 8);
        memcpy(b + 5, p + done, k);
        done += k;
    } while (done < n);
}

static void member(gzfile *g, struct libdeflate_compressor *c, const uint8_t *p, size_t n,
                   size_t block, int hotspot, int named)
{
    header(g, block, hotspot, named);
    if (!c) {
        stored(g, p, n);
    } else {
        size_t bound = libdeflate_deflate_compress_bound(c, n), got;
        uint8_t *out = room(g, bound);
        got = libdeflate_deflate_compress(c, p, n, out, bound);
        CHECK(got > 0, "libdeflate could not compress %zu bytes", n);
        g->len -= bound - got;
    }
    le32(room(g, 4), libdeflate_crc32(0, p, n));
    le32(room(g, 4), (uint32_t)n);
    CHECK(g->members < MAX_MEMBERS + 1, "too many members");
    g->gz_end[g->members] = g->len;
    g->data_end[g->members] = (g->members ? g->data_end[g->members - 1] : 0) + n;
    g->members++;
}

/* The content: the fuzz bytes, grown with pseudo-random ones when asked
 * (copied from a table at pseudo-random offsets: byte by byte, 6 MiB would
 * cost more than the reads being fuzzed). */
static uint8_t *content(const uint8_t *h, const uint8_t *d, size_t n, size_t *len)
{
    static uint8_t noise[1 << 16];
    /* mostly far below 6 MiB (h[1] >> 5 halves it up to 7 times): big ones
     * are slow to fuzz */
    size_t want = h[0] & F_GROW ? (size_t)((uint64_t)u24(h + 5) * MAX_GROWN >> 24) >> (h[1] >> 5)
                                : n;
    size_t at = 0;
    uint32_t x = (uint32_t)XXH3_64bits(d, n) | 1;
    uint8_t *c;

    if (!noise[0]) {
        uint32_t y = 2463534242u;
        size_t i;
        for (i = 0; i < sizeof noise; i++)
            noise[i] = (uint8_t)(xorshift(&y) >> 11);
        noise[0] |= 1;
    }
    if (want < n)
        want = n;
    c = malloc(want ? want : 1);
    CHECK(c != NULL, "harness out of memory");
    while (at < want) { /* the fuzz bytes, then as many pseudo-random ones */
        size_t k = n < want - at ? n : want - at, from = xorshift(&x) % (sizeof noise / 2);
        memcpy(c + at, d, k);
        at += k;
        k = n + 4096 < want - at ? n + 4096 : want - at;
        if (k > sizeof noise / 2)
            k = sizeof noise / 2;
        memcpy(c + at, noise + from, k);
        at += k;
    }
    *len = want;
    return c;
}

static void build(gzfile *g, const uint8_t *h, const uint8_t *c, size_t n)
{
    int grown = (h[0] & F_GROW) != 0;
    size_t per = 1 + u24(h + 2) % (grown ? (1u << 20) : 4096u), at = 0, block;
    int level = 1 + h[1] % (grown ? 3 : 12);
    struct libdeflate_compressor *z = NULL;

    if (per < n / MAX_MEMBERS + 1)
        per = n / MAX_MEMBERS + 1;
    block = h[0] & F_SMALL_BLOCK && per > 1 ? per - 1 : per;
    if (!(h[0] & F_STORED)) {
        z = libdeflate_alloc_compressor(level);
        CHECK(z != NULL, "libdeflate_alloc_compressor(%d) failed", level);
    }
    do {
        size_t k = n - at < per ? n - at : per;
        member(g, z, c + at, k, block, at == 0 && (h[0] & F_HOTSPOT), at > 0 && (h[15] & 0x80));
        if (at == 0 && (h[0] & F_EMPTY))
            member(g, z, c, 0, block, 0, 0);
        at += k;
    } while (at < n);
    libdeflate_free_compressor(z);
}

/* ---- reading it ----------------------------------------------------------- */

/* Bytes kept of one way's output: a damaged file may inflate to more
 * than its content, never near this from a fuzz input's few KiB. */
#define KEEP ((size_t)64 << 20)

typedef struct {
    uint8_t *out;      /* the first KEEP bytes given */
    uint64_t len;      /* bytes given in all */
    long end;          /* the last hs_input_read: 0 or -1 */
    int opened;        /* hs_input_open's result */
    int format; /* hs_compression */
    enum hs_input_damage damage;
    char err[256];
    uint64_t paired;
    size_t prefix;     /* how many leading bytes are the content's */
} outcome;

typedef struct {
    int fd;
    const uint8_t *p;
    size_t len;
    uint32_t seed;
} writer;

static void *write_pieces(void *arg)
{
    writer *w = arg;
    size_t at = 0;

    while (at < w->len) {
        size_t k = 1 + xorshift(&w->seed) % (1u << 17);
        ssize_t n;
        if (k > w->len - at)
            k = w->len - at;
        n = write(w->fd, w->p + at, k);
        if (n <= 0)
            break; /* the reader stopped early: EPIPE */
        at += (size_t)n;
    }
    close(w->fd);
    return NULL;
}

static int memory_file(const uint8_t *p, size_t n)
{
    int fd = memfd_create("fuzz-gzip", 0);

    CHECK(fd >= 0, "memfd_create failed");
    CHECK(n == 0 || write(fd, p, n) == (ssize_t)n, "memfd write failed");
    CHECK(lseek(fd, 0, SEEK_SET) == 0, "memfd seek failed");
    return fd;
}

static void read_all(outcome *o, const uint8_t *p, size_t n, int threaded, int piped,
                     unsigned sizes, const uint8_t *want, size_t want_len)
{
    /* grown content is read in pieces of 4 KiB or more: a byte at a time,
     * 6 MiB would take seconds */
    size_t cap = sizes & 0x40 ? (size_t)1 << 20
                 : want_len > (1u << 16) ? (size_t)4096 << (sizes & 7)
                                         : 1 + (sizes & 0x3f) * 1021;
    size_t room = 0;
    uint8_t *buf = malloc(cap);
    pthread_t wt;
    writer w;
    hs_input *in = NULL;
    int fd, pp[2];

    CHECK(buf != NULL, "harness out of memory");
    memset(o, 0, sizeof *o);
    if (piped) {
        CHECK(pipe(pp) == 0, "pipe failed");
        w.fd = pp[1], w.p = p, w.len = n, w.seed = sizes * 2654435761u | 1;
        CHECK(pthread_create(&wt, NULL, write_pieces, &w) == 0, "no writer thread");
        fd = pp[0];
    } else {
        fd = memory_file(p, n);
    }
    o->opened = hs_input_open(&in, fd);
    if (o->opened == 0) {
        long k;
        o->format = hs_input_compression(in);
        if (threaded)
            CHECK(hs_input_start_thread(in) == 0, "the reader thread did not start");
        while ((k = hs_input_read(in, buf, cap)) > 0) {
            size_t kept = o->len < KEEP ? KEEP - (size_t)o->len : 0;
            CHECK((size_t)k <= cap, "a read gave %ld bytes for %zu asked", k, cap);
            if (kept > (size_t)k)
                kept = (size_t)k;
            if (o->len + kept > room) {
                room = (size_t)(o->len + kept) * 2;
                o->out = realloc(o->out, room);
                CHECK(o->out != NULL, "harness out of memory");
            }
            memcpy(o->out + o->len, buf, kept);
            o->len += (uint64_t)k;
        }
        o->end = k;
        o->damage = hs_input_damage(in);
        o->paired = hs_input_paired_members(in);
    }
    if (hs_input_error(in))
        snprintf(o->err, sizeof o->err, "%s", hs_input_error(in));
    o->prefix = o->len < KEEP ? (size_t)o->len : KEEP;
    if (o->prefix > want_len)
        o->prefix = want_len;
    if (o->prefix && memcmp(o->out, want, o->prefix) != 0) { /* where they part */
        size_t same = 0;
        while (o->out[same] == want[same])
            same++;
        o->prefix = same;
    }
    hs_input_close(in);
    close(fd);
    if (piped)
        pthread_join(wt, NULL);
    free(buf);
}

/* Header-like bytes (as input.c's member_header sees them) anywhere but
 * at a member's start: each makes the two-at-a-time path try again. */
static unsigned false_headers(const gzfile *g)
{
    const uint8_t *p = g->p + 1, *end = g->p + g->len;
    unsigned count = 0, m = 0;

    while ((p = memchr(p, 0x1f, (size_t)(end - p))) != NULL && end - p >= 10) {
        size_t i = (size_t)(p - g->p);
        while (m < g->members && g->gz_end[m] < i)
            m++;
        if (!(m < g->members && g->gz_end[m] == i) && p[1] == 0x8b && p[2] == 8 &&
            (p[3] & ~0x10) == 0)
            count++;
        p++;
    }
    return count;
}

static int member_ends_at(const gzfile *g, size_t at, size_t *data)
{
    unsigned i;

    for (i = 0; i < g->members; i++)
        if (g->gz_end[i] == at) {
            *data = g->data_end[i];
            return 1;
        }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int once;
    const uint8_t *h = data;
    uint8_t *c;
    size_t n, len, edit_at = SIZE_MAX;
    gzfile *g;
    outcome a, b;
    uint64_t kept;
    int hotspot_shape;

    if (!once) { /* a pipe whose reader stopped early is not a crash */
        signal(SIGPIPE, SIG_IGN);
        once = 1;
    }
    if (size < RECIPE)
        return 0;
    c = content(h, data + RECIPE, size - RECIPE, &n);
    g = calloc(1, sizeof *g);
    CHECK(g != NULL, "harness out of memory");
    build(g, h, c, n);
    len = g->len;
    if (h[0] & F_EDIT) {
        edit_at = (size_t)((uint64_t)u24(h + 8) * len >> 24);
        g->p[edit_at] ^= h[11] ? h[11] : 1;
    }
    if (h[0] & F_CUT)
        len = (size_t)((uint64_t)u24(h + 12) * len >> 24);

    read_all(&a, g->p, len, 0, !(h[0] & F_PIPE), h[15], c, n);
    read_all(&b, g->p, len, 1, (h[0] & F_PIPE) != 0, h[15], c, n);

    if (getenv("FUZZ_VERBOSE")) {
        const outcome *o[2] = {&a, &b};
        int i;
        fprintf(stderr, "fuzz_gzip: recipe %02x, %zu content bytes in %u members, %zu of %zu file bytes read\n",
                h[0], n, g->members, len, g->len);
        for (i = 0; i < 2; i++)
            fprintf(stderr, "  %s: %llu bytes, %zu of them the content's, damage %d, paired %llu, \"%s\"\n",
                    i ? "threaded" : "streaming", (unsigned long long)o[i]->len, o[i]->prefix,
                    o[i]->damage, (unsigned long long)o[i]->paired, o[i]->err);
    }
    /* the two ways agree */
    CHECK(a.opened == b.opened, "open: %d streaming, %d threaded", a.opened, b.opened);
    CHECK(a.end == 0 && b.end == 0, "a read failed: %s", a.err[0] ? a.err : b.err);
    CHECK(a.damage == b.damage, "damage %d streaming, %d threaded", a.damage, b.damage);
    CHECK(strcmp(a.err, b.err) == 0, "streaming says \"%s\", threaded \"%s\"", a.err, b.err);
    /* from a corrupt member, the bytes inflated before the damage showed are
     * given out, as gzip -dc gives them, and which and how many depends on
     * the room each inflate call had: only the members before it compare */
    if (a.damage != HS_DAMAGE_CORRUPT) {
        kept = a.len < KEEP ? a.len : KEEP;
        CHECK(a.len == b.len, "%llu bytes streaming, %llu threaded", (unsigned long long)a.len,
              (unsigned long long)b.len);
        CHECK(kept == 0 || memcmp(a.out, b.out, (size_t)kept) == 0,
              "the bytes differ, streaming against threaded");
    }
    if (a.opened == 0) { /* every member wholly before the damage is given */
        size_t good = 0, upto = len < edit_at ? len : edit_at;
        unsigned i;
        for (i = 0; i < g->members && g->gz_end[i] <= upto; i++)
            good = g->data_end[i];
        CHECK(a.prefix >= good && b.prefix >= good,
              "damage in member %u lost the members before it: %zu and %zu bytes of %zu", i,
              a.prefix, b.prefix, good);
    }

    if (len < 2 || a.opened != 0) { /* too short to be gzip at all */
        free(a.out), free(b.out);
        free(c), free(g->p), free(g);
        return 0;
    }
    if (a.format != HS_COMPRESS_GZIP) { /* the change hit the magic */
        CHECK(h[0] & F_EDIT, "gzip read as format %d", a.format);
        free(a.out), free(b.out);
        free(c), free(g->p), free(g);
        return 0;
    }
    if (!(h[0] & (F_EDIT | F_CUT))) { /* whole and unchanged */
        CHECK(a.damage == HS_DAMAGE_NONE && !a.err[0], "a good file reported: %s", a.err);
        CHECK(a.len == n && a.prefix == n, "%llu bytes out, %zu matching, of %zu",
              (unsigned long long)a.len, a.prefix, n);
        /* (through a pipe, a first read too short to hold the comment
         * leaves the shape unseen) */
        hotspot_shape = (h[0] & F_HOTSPOT) &&
                        !(h[0] & (F_STORED | F_SMALL_BLOCK | F_EMPTY | F_PIPE)) &&
                        !(h[15] & 0x80) && n > 0 && false_headers(g) == 0;
        if (hotspot_shape)
            CHECK(b.paired == g->members, "%llu of %u members went two at a time",
                  (unsigned long long)b.paired, g->members);
    } else if (!(h[0] & F_EDIT)) { /* cut */
        size_t upto;
        CHECK(a.prefix == a.len, "a cut file gave other bytes than the content's, from %zu",
              a.prefix);
        if (member_ends_at(g, len, &upto))
            CHECK(a.damage == HS_DAMAGE_NONE && a.len == upto,
                  "cut after a member: damage %d, %llu bytes of %zu", a.damage,
                  (unsigned long long)a.len, upto);
        else
            CHECK(a.damage == HS_DAMAGE_TRUNCATED, "cut inside a member: damage %d (%s)",
                  a.damage, a.err);
    } else if (!(h[0] & F_CUT) && a.damage == HS_DAMAGE_NONE) { /* changed, unseen */
        CHECK(a.len == n && a.prefix == n, "a changed byte went unseen and changed the bytes");
    }
    free(a.out), free(b.out);
    free(c), free(g->p), free(g);
    return 0;
}
