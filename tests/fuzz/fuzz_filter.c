/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_filter.c - libFuzzer harness over the whole library pipeline:
 * rules -> filter -> memory source -> memory sink, then the output through a
 * second (preset none) filter.
 *
 * Input layout. Byte 0 is a selector, the rest is the dump:
 *
 *   bit 0      preset: 0 = none, 1 = default
 *   bit 1      hs_options.repack
 *   bit 2      small segment_cap (32..4096, below the library's 64 minimum on
 *              purpose now and then) instead of the default
 *   bit 3      small read_buffer (32..4096) instead of the default
 *   bits 4..7  how many bytes the memory source returns per read, see
 *              chunk_mode(): fixed 1..511, or a pseudo-random sequence; 0
 *              hands the input over in place (hs_source.data), as the CLI
 *              does with a file. In about half the other modes (a bit of
 *              the seed) the same pieces are lent (hs_source.borrow), as
 *              the CLI's inflater does, each a fresh allocation freed at
 *              the next call, so ASan sees a pointer kept into one
 *
 * The small sizes and the random read sequence are derived from the selector
 * and the input length, so an input always replays the same way.
 *
 * An input that itself starts with "JAVA PROFILE 1.0" is a raw dump (a
 * fixture, or a file from /work/shared/corpus used as a seed): all of it is
 * the dump and the selector is a hash of its bytes.
 *
 * Invariants checked (any failure aborts with a message naming it):
 *   - hs_filter_run returns HS_OK or one of the negative hs_status codes;
 *   - on failure hs_filter_error() is non-NULL, its code is the returned
 *     status, its message is non-empty, NUL-terminated, one line with no control
 *     characters, its
 *     offsets lie inside the input, and the message shows no wrapped-around
 *     number (>= 2^48); on success it is NULL;
 *   - a second hs_filter_run on the same filter returns HS_E_USAGE;
 *   - stats: on success bytes_out equals what the sink received and bytes_in
 *     is the dump's length (on failure bytes_out may count buffered bytes that
 *     never reached the sink, so it is only checked to be >=);
 *   - the source is never asked for 0 bytes, nor read again after it said
 *     end of input; the sink is never written after it failed;
 *   - the output never exceeds OUT_CAP(n) (bounded amplification);
 *   - preset none, repack off, success: output == input byte for byte (see
 *     FUZZ_STRICT_IDENTITY below for the one tolerated difference);
 *   - the output of a successful run goes through a second filter (preset
 *     none, repack off, default options) with HS_OK and comes out unchanged
 *     (it is valid, closed HPROF);
 *   - every allocation made through hs_alloc is freed once hs_filter_free
 *     and hs_rules_free have run, and no single allocation and no total of
 *     live bytes exceeds the library's documented fixed buffers.
 */
#define _GNU_SOURCE /* strnlen, memfd_create */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/mman.h>
#include <unistd.h>

#include "../unit/count_alloc.h"
#include "hprof_strip.h"
#include "input.h"
#include "fuzz_check.h"

/* The library closes a heap dump left open at the end of the input (segments
 * with no HEAP_DUMP_END) by appending one, even with preset none and no
 * repack. Built with -DFUZZ_STRICT_IDENTITY=1 the harness rejects that too;
 * by default it tolerates exactly that 9-byte suffix so fuzzing goes on. */
#ifndef FUZZ_STRICT_IDENTITY
#define FUZZ_STRICT_IDENTITY 0
#endif

/* Output may grow a little when re-encoding (segment headers, repeated
 * HEAP_DUMP_INFOs, HEAP_DUMP_END records, a 1.0 header becoming 1.0.2), never
 * by more than this. */
#define OUT_CAP(n) ((size_t)(n) * 8u + 4096u)

/* Fixed buffers of the library: 1 MiB read buffer (may grow to 4 MiB for a
 * CLASS_DUMP), 1 MiB output buffer, segment buffer (1 MiB default). Nothing
 * is sized from the input, so live memory stays under this. */
#define MAX_LIVE_BYTES ((size_t)8 << 20)

/* ---- memory source ---------------------------------------------------------- */

typedef struct {
    const uint8_t *data;
    size_t len, pos;
    unsigned mode;   /* selector bits 4..7 */
    uint64_t rng;    /* for the pseudo-random modes */
    int saw_eof;
    size_t reads;
    uint64_t done; /* in place: what the filter said it is done with */
    uint8_t *lent; /* lending: the block lent last */
} msource;

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Bytes the source hands out per read in `mode`; 0 = as many as asked. */
static size_t chunk_mode(msource *s)
{
    static const size_t fixed[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 13, 17, 31, 64, 511};

    if (s->mode < sizeof fixed / sizeof fixed[0])
        return fixed[s->mode];
    if (s->mode == 14)
        return 1 + (size_t)(splitmix(&s->rng) % 16);
    return 1 + (size_t)(splitmix(&s->rng) % 4096);
}

static long msource_read(void *ctx, void *buf, size_t cap)
{
    msource *s = ctx;
    size_t n = s->len - s->pos, k;

    s->reads++;
    CHECK(buf != NULL, "read into a NULL buffer");
    CHECK(cap > 0, "read asked for 0 bytes (a 0 return would mean end of input)");
    CHECK(!s->saw_eof, "read again after the source reported end of input");
    if (n == 0) {
        s->saw_eof = 1;
        return 0;
    }
    if (n > cap)
        n = cap;
    k = chunk_mode(s);
    if (k && n > k)
        n = k;
    memcpy(buf, s->data + s->pos, n);
    s->pos += n;
    return (long)n;
}

/* Lends the next piece, as msource_read would read it, and takes the one
 * before back (freed). */
static long msource_borrow(void *ctx, const void **block)
{
    msource *s = ctx;
    size_t n = s->len - s->pos, k;

    s->reads++;
    CHECK(block != NULL, "borrow into a NULL pointer");
    CHECK(!s->saw_eof, "borrow again after the source reported end of input");
    free(s->lent);
    s->lent = NULL;
    if (n == 0) {
        s->saw_eof = 1;
        return 0;
    }
    k = chunk_mode(s);
    if (k && n > k)
        n = k;
    s->lent = malloc(n);
    CHECK(s->lent != NULL, "harness out of memory");
    memcpy(s->lent, s->data + s->pos, n);
    s->pos += n;
    *block = s->lent;
    return (long)n;
}

/* In place, the filter reports how far it has got: never backwards, never
 * past the input. */
static void msource_window(void *ctx, uint64_t done, uint64_t next)
{
    msource *s = ctx;

    s->reads++;
    CHECK(done >= s->done && next >= done && next <= s->len && next >= s->pos,
          "window(%llu, %llu) after window(%llu, %zu) over %zu bytes", (unsigned long long)done,
          (unsigned long long)next, (unsigned long long)s->done, s->pos, s->len);
    s->done = done;
    s->pos = (size_t)next;
}

/* ---- memory sink ------------------------------------------------------------ */

typedef struct {
    uint8_t *buf; /* holds min(total, cap) bytes */
    size_t cap, len;
    uint64_t total;
    int overflow, failed_once;
} msink;

static int msink_write(void *ctx, const void *p, size_t n)
{
    msink *k = ctx;

    CHECK(!k->failed_once, "write after the sink reported failure");
    CHECK(n == 0 || p != NULL, "write from a NULL buffer");
    if (n > k->cap - k->len) {
        k->overflow = 1;
        k->failed_once = 1;
        return -1;
    }
    memcpy(k->buf + k->len, p, n);
    k->len += n;
    k->total += n;
    return 0;
}

/* ---- one filter run ---------------------------------------------------------- */

typedef struct {
    int preset_default, repack;
    size_t segment_cap, read_buffer;
    unsigned chunk;
    /* picked by a second hash of the dump, each now and then: --salvage, a
     * preset that holds state (privacy, android-app), --to-jvm */
    int salvage, to_jvm;
    const char *preset; /* NULL: none or default, by preset_default */
} config;

/* FUZZ_KNOWN, a comma-separated list of ids in the environment, lets a
 * fuzzing session go past library bugs already reported (each has a
 * reproducer in regress/). Each id relaxes one check for one symptom only:
 *   version-msg     the "unknown HPROF version" message may quote control
 *                   characters from the input (newline)
 *   missing-msg     a truncation message inside a zero-length heap record
 *                   may show a wrapped "N of its M bytes are missing"
 *   len0-end        a zero-length HEAP_DUMP_SEGMENT running to the end of
 *                   the input gets a HEAP_DUMP_END appended, which the round
 *                   trip then reads as sub-tag 0x2c
 *   string-alloc    a STRING held back (preset default) gets its arena sized
 *                   from the record's declared length, up to max_held (1 GiB
 *                   by default); with this id the harness sets max_held to
 *                   1 MiB, so those allocations stay within the checks
 * Unset (the default, and for make fuzz-replay) everything is checked. */
static int known(const char *id)
{
    const char *k = getenv("FUZZ_KNOWN"), *p;
    size_t n = strlen(id);

    if (!k)
        return 0;
    for (p = k; (p = strstr(p, id)) != NULL; p += n)
        if ((p == k || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
            return 1;
    return 0;
}

/* True when `msg` holds a decimal number of 2^48 or more. Every number an
 * error message has reason to show (offsets into an input of at most a few
 * MB here, u4 lengths and counts times an element size) is far below; a
 * bigger one is an unsigned wrap-around or a UINT64_MAX sentinel printed as
 * a value. */
static int has_wild_number(const char *msg)
{
    const char *p = msg;

    while (*p) {
        if (*p >= '0' && *p <= '9') {
            uint64_t v = 0;
            int big = 0;
            while (*p >= '0' && *p <= '9') {
                if (v >= ((uint64_t)1 << 48) / 10)
                    big = 1;
                else
                    v = v * 10 + (uint64_t)(*p - '0');
                p++;
            }
            if (big || v >= ((uint64_t)1 << 48))
                return 1;
        } else {
            p++;
        }
    }
    return 0;
}

/* One line of text: no newline, no other control character. */
static int has_control(const char *msg)
{
    for (; *msg; msg++)
        if ((unsigned char)*msg < 0x20 || *msg == 0x7f)
            return 1;
    return 0;
}

static void check_error(const hs_filter *f, hs_status s, size_t len, const char *which)
{
    const hs_error *e = hs_filter_error(f);
    size_t n;

    if (s == HS_OK) {
        CHECK(e == NULL, "%s: hs_filter_error is not NULL after HS_OK", which);
        return;
    }
    CHECK((s >= HS_E_USAGE && s <= HS_E_MALFORMED) || s == HS_SALVAGED,
          "%s: status %d is not an hs_status", which,
          (int)s);
    CHECK(e != NULL, "%s: status %d (%s) but hs_filter_error is NULL", which, (int)s,
          hs_status_str(s));
    /* after HS_SALVAGED the error is the damage that was salvaged: a cut
     * (or a missing HEAP_DUMP_END) or corruption */
    CHECK(s == HS_SALVAGED ? e->code == HS_E_TRUNCATED || e->code == HS_E_MALFORMED
                           : e->code == s,
          "%s: returned %d but the error says %d", which, (int)s, (int)e->code);
    n = strnlen(e->message, sizeof e->message);
    CHECK(n < sizeof e->message, "%s: error message not NUL-terminated", which);
    CHECK(n > 0, "%s: empty error message for status %d", which, (int)s);
    if (!(known("version-msg") && strstr(e->message, "unknown HPROF version")))
        CHECK(!has_control(e->message), "%s: error message has a control character: %s",
              which, e->message);
    CHECK(e->offset == UINT64_MAX || e->offset <= len,
          "%s: error offset %llu is past the end of the %zu-byte input: %s", which,
          (unsigned long long)e->offset, len, e->message);
    CHECK(e->record_offset == UINT64_MAX || e->record_offset < len,
          "%s: error record offset %llu is past the end of the %zu-byte input: %s", which,
          (unsigned long long)e->record_offset, len, e->message);
    CHECK(e->tag >= -1 && e->tag <= 255 && e->subtag >= -1 && e->subtag <= 255,
          "%s: error tag %d / subtag %d out of range", which, e->tag, e->subtag);
    if (!(known("missing-msg") && strstr(e->message, "bytes are missing)")))
        CHECK(!has_wild_number(e->message), "%s: error message shows a wrapped or sentinel "
              "value: %s", which, e->message);
}

/* Runs one filter over `in`; the output lands in `out` (caller frees
 * out->buf). Returns the status. */
static hs_status run_filter(const config *cfg, const uint8_t *in, size_t len, msink *out,
                            uint64_t seed, const char *which, hs_error *err_out)
{
    count_state cnt = {0};
    size_t live_limit = MAX_LIVE_BYTES;
    hs_alloc a = COUNT_ALLOC(&cnt);
    hs_options opt = {0};
    hs_rules *rules;
    hs_filter *f;
    hs_status s, s2;
    hs_error perr;
    hs_stats st;
    msource src = {in, len, 0, cfg->chunk, seed, 0, 0, 0, NULL};
    hs_source hsrc = {.read = msource_read, .ctx = &src};
    hs_sink hsink = {msink_write, out};

    if (cfg->chunk == 0) {
        hsrc.read = NULL;
        hsrc.data = len ? in : (const uint8_t *)"";
        hsrc.size = len;
        hsrc.window = msource_window;
    } else if (seed & 0x100) {
        hsrc.read = NULL;
        hsrc.borrow = msource_borrow;
    }
    memset(out, 0, sizeof *out);
    out->cap = OUT_CAP(len);
    out->buf = malloc(out->cap ? out->cap : 1);
    CHECK(out->buf != NULL, "harness out of memory");

    rules = hs_rules_create(&a);
    CHECK(rules != NULL, "%s: hs_rules_create failed", which);
    s = hs_rules_preset(rules,
                        cfg->preset ? cfg->preset : cfg->preset_default ? "default" : "none",
                        &perr);
    CHECK(s == HS_OK, "%s: hs_rules_preset failed: %d", which, (int)s);

    opt.repack = cfg->repack;
    opt.salvage = cfg->salvage;
    opt.to_jvm = cfg->to_jvm;
    opt.segment_cap = cfg->segment_cap;
    opt.read_buffer = cfg->read_buffer;
    opt.count_nonzero = 1; /* reads every scrubbed byte: more to check */
    if (known("string-alloc")) {
        /* with a small cap on held strings the arena sized from a STRING's
         * declared length stays small (see the regress README) */
        opt.max_held = 1u << 20;
        live_limit += 4 * (size_t)opt.max_held;
    }
    f = hs_filter_create(rules, &opt, &a);
    CHECK(f != NULL, "%s: hs_filter_create failed", which);
    CHECK(hs_filter_error(f) == NULL, "%s: error before the run", which);

    s = hs_filter_run(f, &hsrc, &hsink);
    CHECK(cnt.zero == 0, "%s: hs_alloc asked for 0 bytes", which);
    CHECK(cnt.largest <= MAX_LIVE_BYTES, "%s: one allocation of %zu bytes", which, cnt.largest);
    CHECK(cnt.peak <= live_limit, "%s: %zu bytes live at once", which, cnt.peak);
    if (out->overflow && (cfg->salvage || cfg->to_jvm)) {
        /* Both may write zeros for bytes the input only declares: salvage
         * completes a cut record (up to 64 MiB, see heap.c), --to-jvm gives
         * a PRIMITIVE_ARRAY_NODATA its elements. Not a bug; not checkable
         * within the output cap either. */
        hs_filter_free(f);
        free(src.lent);
        hs_rules_free(rules);
        return HS_E_WRITE;
    }
    check_error(f, s, len, which);
    CHECK(!out->overflow, "%s: output passed %zu bytes for a %zu-byte input", which, out->cap,
          len);
    if (s == HS_E_WRITE)
        CHECK(0, "%s: HS_E_WRITE but the sink never failed", which);
    if (s == HS_E_READ)
        CHECK(0, "%s: HS_E_READ but the source never failed", which);
    if (s == HS_E_USAGE)
        CHECK(0, "%s: HS_E_USAGE from a first run with valid arguments: %s", which,
              hs_filter_error(f)->message);
    if (s == HS_E_NOMEM)
        CHECK(0, "%s: HS_E_NOMEM but the allocator never failed", which);
    memset(err_out, 0, sizeof *err_out);
    if (s != HS_OK)
        *err_out = *hs_filter_error(f);

    hs_filter_stats(f, &st);
    /* On failure what sits in the output buffer is counted in bytes_out but
     * never reaches the sink, so only success makes them equal. */
    CHECK(s == HS_OK || s == HS_SALVAGED ? st.bytes_out == out->total
                                         : st.bytes_out >= out->total,
          "%s: stats say %llu bytes out, the sink got %llu", which,
          (unsigned long long)st.bytes_out, (unsigned long long)out->total);
    if (s == HS_OK) {
        CHECK(st.bytes_in == len, "%s: stats say %llu bytes in, the input has %zu", which,
              (unsigned long long)st.bytes_in, len);
        CHECK(src.pos == len, "%s: HS_OK before the input was read to its end", which);
    }

    /* a filter runs once */
    s2 = hs_filter_run(f, &hsrc, &hsink);
    CHECK(s2 == HS_E_USAGE, "%s: second hs_filter_run returned %d", which, (int)s2);
    CHECK(hs_filter_error(f) != NULL, "%s: no error after a second run", which);

    hs_filter_free(f);
    free(src.lent);
    hs_rules_free(rules);
    CHECK(cnt.blocks == 0 && cnt.bytes == 0,
          "%s: leak: %zu allocations (%zu bytes) still live after free", which, cnt.blocks,
          cnt.bytes);
    return s;
}

/* ---- the entry point ----------------------------------------------------------- */

static uint64_t fnv1a(const uint8_t *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    while (n--)
        h = (h ^ *p++) * 0x100000001b3ull;
    return h;
}

static size_t first_diff(const uint8_t *a, const uint8_t *b, size_t n)
{
    size_t i = 0;
    while (i < n && a[i] == b[i])
        i++;
    return i;
}

/* FUZZ_VERBOSE=1 in the environment prints each input's configuration and
 * outcome (for replay). */
static int verbose(void)
{
    static int v = -1;
    if (v < 0) {
        const char *e = getenv("FUZZ_VERBOSE");
        v = e && *e && *e != '0';
    }
    return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Compressed input (gzip or zstd magic) goes through the CLI's
 * decompressing source first, from a memory file, as a pipe would give it.
 * Its errors must be messages, never crashes; a bomb stops at the cap.
 * Returns the decompressed bytes (malloc'd) or NULL when the compressed
 * layer failed (checked here) or the input is not compressed. */
static uint8_t *decompress(const uint8_t *p, size_t n, size_t *out_len, int *compressed)
{
    const size_t cap = OUT_CAP(n) > ((size_t)16 << 20) ? OUT_CAP(n) : ((size_t)16 << 20);
    hs_input *in = NULL;
    uint8_t *buf;
    size_t len = 0;
    int fd;

    *compressed = n >= 2 && ((p[0] == 0x1f && p[1] == 0x8b) ||
                             (n >= 4 && memcmp(p, "\x28\xb5\x2f\xfd", 4) == 0));
    if (!*compressed)
        return NULL;
    fd = memfd_create("fuzz-input", 0);
    CHECK(fd >= 0, "memfd_create failed");
    CHECK(write(fd, p, n) == (ssize_t)n && lseek(fd, 0, SEEK_SET) == 0, "memfd write failed");
    buf = malloc(cap);
    CHECK(buf != NULL, "harness out of memory");
    if (hs_input_open(&in, fd) == 0) {
        for (;;) {
            long k = hs_input_read(in, buf + len, cap - len);
            if (k <= 0) {
                if (k < 0) {
                    const char *e = hs_input_error(in);
                    CHECK(e != NULL && *e && !has_control(e),
                          "decompression failed without a one-line message");
                    free(buf);
                    buf = NULL;
                }
                break;
            }
            len += (size_t)k;
            if (len == cap)
                break; /* a bomb: enough */
        }
        CHECK(hs_input_compression(in) != HS_COMPRESS_NONE, "compressed input read as plain");
    } else {
        free(buf);
        buf = NULL;
    }
    hs_input_close(in);
    close(fd);
    *out_len = len;
    return buf;
}

static int LLVMFuzzerTestOneInput_plain(const uint8_t *dump, size_t len, unsigned sel);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *dump;
    size_t len;
    unsigned sel;

    if (size == 0)
        return 0;
    if (size >= 16 && memcmp(data, "JAVA PROFILE 1.0", 16) == 0) {
        dump = data;
        len = size;
        sel = (unsigned)(fnv1a(data, size) & 0xff);
    } else {
        sel = data[0];
        dump = data + 1;
        len = size - 1;
    }
    {
        int compressed;
        size_t dlen;
        uint8_t *plain = decompress(dump, len, &dlen, &compressed);
        if (compressed) {
            /* the filter then reads what came out, with the same selector */
            int r = 0;
            if (plain && dlen)
                r = LLVMFuzzerTestOneInput_plain(plain, dlen, sel);
            free(plain);
            return r;
        }
    }
    return LLVMFuzzerTestOneInput_plain(dump, len, sel);
}

/* One dump (not compressed), with selector `sel`. */
static int LLVMFuzzerTestOneInput_plain(const uint8_t *dump, size_t len, unsigned sel)
{
    static const uint8_t heap_end[9] = {0x2c, 0, 0, 0, 0, 0, 0, 0, 0};
    config cfg, cfg2;
    uint64_t seed;
    msink out, out2;
    hs_error err;
    hs_status s;

    seed = ((uint64_t)len << 8) ^ sel;

    memset(&cfg, 0, sizeof cfg);
    cfg.preset_default = sel & 1;
    cfg.repack = (sel >> 1) & 1;
    if (sel & 4)
        cfg.segment_cap = 32 + (size_t)(splitmix(&seed) % (4096 - 32 + 1));
    if (sel & 8)
        cfg.read_buffer = 32 + (size_t)(splitmix(&seed) % (4096 - 32 + 1));
    cfg.chunk = sel >> 4;
    {
        uint64_t h = fnv1a(dump, len) >> 8;
        cfg.salvage = (h & 3) == 0;
        cfg.preset = (h >> 2 & 7) == 0 ? "privacy" : (h >> 2 & 7) == 1 ? "android-app" : NULL;
        cfg.to_jvm = (h >> 5 & 3) == 0;
    }

    s = run_filter(&cfg, dump, len, &out, seed, "first run", &err);
    if (verbose())
        fprintf(stderr, "fuzz_filter: sel 0x%02x (%s%s%s%s seg %zu rbuf %zu chunk %u) %zu -> "
                        "%zu bytes: %s%s%s\n",
                sel, cfg.preset ? cfg.preset : cfg.preset_default ? "default" : "none",
                cfg.repack ? " repack" : "", cfg.salvage ? " salvage" : "",
                cfg.to_jvm ? " to-jvm" : "",
                cfg.segment_cap, cfg.read_buffer, cfg.chunk, len, out.len, hs_status_str(s),
                s == HS_OK ? "" : ": ", err.message);
    if (s == HS_SALVAGED) /* a truncated input, completed: valid output */
        s = HS_OK;
    if (s == HS_OK) {
        if (!cfg.preset_default && !cfg.repack && !cfg.preset && !cfg.salvage && !cfg.to_jvm) {
            int same = out.len == len && memcmp(out.buf, dump, len) == 0;
            int closed = !FUZZ_STRICT_IDENTITY && out.len == len + sizeof heap_end &&
                         memcmp(out.buf, dump, len) == 0 &&
                         memcmp(out.buf + len, heap_end, sizeof heap_end) == 0;
            size_t n = out.len < len ? out.len : len;
            CHECK(same || closed,
                  "identity: preset none without repack changed the dump (%zu bytes in, %zu "
                  "out, first difference at byte %zu)",
                  len, out.len, first_diff(out.buf, dump, n));
        }

        /* the output is valid, closed HPROF: a preset-none pass takes it and
         * gives it back unchanged */
        memset(&cfg2, 0, sizeof cfg2);
        cfg2.chunk = cfg.chunk;
        s = run_filter(&cfg2, out.buf, out.len, &out2, seed ^ 0x5555, "second run", &err);
        if (s != HS_OK && known("len0-end") &&
            strstr(err.message, "unknown heap sub-record tag 0x2c")) {
            free(out2.buf);
            free(out.buf);
            return 0;
        }
        CHECK(s == HS_OK, "round trip: the output of a successful run fails a preset-none "
                          "pass with status %d: %s",
              (int)s, err.message);
        CHECK(out2.len == out.len && memcmp(out2.buf, out.buf, out.len) == 0,
              "round trip: a preset-none pass changed the first run's output (%zu -> %zu "
              "bytes, first difference at byte %zu)",
              out.len, out2.len,
              first_diff(out.buf, out2.buf, out.len < out2.len ? out.len : out2.len));
        free(out2.buf);
    }
    free(out.buf);
    return 0;
}
