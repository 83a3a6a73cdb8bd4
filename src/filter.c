/*
 * filter.c - the public filter: lifecycle, the file header, the top-level
 * record loop, and the byte-moving primitives described in filter_impl.h.
 * Heap-dump records are handed to heap.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "alloc.h"
#include "be.h"
#include "filter_impl.h"

#define DEFAULT_READ_BUFFER (1u << 20)
#define DEFAULT_SEGMENT_CAP (1u << 20)
#define OUT_BUFFER (1u << 20)
/* The largest CLASS_DUMP the format allows is about 2.4 MB (65535 entries in
 * each of its three tables); the read window may grow to this so a class
 * dump can always be seen whole. */
#define MAX_READ_WINDOW (4u << 20)
#define MIN_BUFFER 64u
#define DEFAULT_MAX_HELD (1ull << 30)
#define DEFAULT_HOLD_IN_MEMORY (64ull << 20)

/* ---- lifecycle ------------------------------------------------------------ */

hs_filter *hs_filter_create(const hs_rules *rules, const hs_options *opt,
                            const hs_alloc *alloc)
{
    hs_alloc a;
    F *f;

    if (!rules)
        return NULL;
    hs_alloc_init(&a, alloc);
    f = hs_calloc(&a, sizeof *f);
    if (!f)
        return NULL;
    f->alloc = a;
    f->rules = rules;
    if (opt)
        f->opt = *opt;
    if (!f->opt.read_buffer)
        f->opt.read_buffer = DEFAULT_READ_BUFFER;
    if (f->opt.read_buffer < MIN_BUFFER)
        f->opt.read_buffer = MIN_BUFFER;
    if (!f->opt.segment_cap)
        f->opt.segment_cap = DEFAULT_SEGMENT_CAP;
    if (f->opt.segment_cap < MIN_BUFFER)
        f->opt.segment_cap = MIN_BUFFER;
    f->seg_cap = f->opt.segment_cap;
    if (!f->opt.max_held)
        f->opt.max_held = DEFAULT_MAX_HELD;
    if (!f->opt.hold_in_memory)
        f->opt.hold_in_memory = DEFAULT_HOLD_IN_MEMORY;
    if (!f->opt.spill.read)
        f->opt.spill.write = NULL; /* both or none */
    hs_strtab_init(&f->strings, &f->alloc);
    hs_rootq_init(&f->roots, &f->alloc);
    hs_classes_init(&f->classes, &f->alloc);
    hs_idmap_init(&f->keep_class_names, &f->alloc);
    hs_idmap_init(&f->keep_field_names, &f->alloc);
    hs_idmap_init(&f->keep_classes, &f->alloc);
    hs_idmap_init(&f->waiting, &f->alloc);
    hs_idmap_init(&f->dup_seen, &f->alloc);
    hs_idmap_init(&f->dup_sizes, &f->alloc);
    f->subtag = -1;
    f->rec_tag = -1;
    f->prev_unknown_tag = -1;
    f->rec_off = UINT64_MAX;
    hs_reader_init(&f->rd, &f->alloc, f->opt.read_buffer,
                   f->opt.read_buffer > MAX_READ_WINDOW ? f->opt.read_buffer : MAX_READ_WINDOW);
    if (hs_out_init(&f->out, &f->alloc, OUT_BUFFER) != HS_OK) {
        hs_filter_free(f);
        return NULL;
    }
    return f;
}

void hs_filter_free(hs_filter *f)
{
    hs_alloc a;

    if (!f)
        return;
    a = f->alloc;
    hs_reader_free(&f->rd);
    hs_out_free(&f->out);
    hs_strtab_free(&f->strings);
    hs_rootq_free(&f->roots);
    hs_classes_free(&f->classes);
    hs_idmap_free(&f->keep_class_names);
    hs_idmap_free(&f->keep_field_names);
    hs_idmap_free(&f->keep_classes);
    hs_idmap_free(&f->waiting);
    hs_idmap_free(&f->dup_seen);
    hs_idmap_free(&f->dup_sizes);
    if (f->dup_state)
        XXH3_freeState(f->dup_state);
    hs_free(&a, f->pending);
    hs_free(&a, f->holds);
    hs_free(&a, f->seg);
    hs_free(&a, f->stage);
    hs_free(&a, f);
}

const hs_error *hs_filter_error(const hs_filter *f)
{
    return f && f->failed ? &f->err : NULL;
}

void hs_filter_stats(const hs_filter *f, hs_stats *out)
{
    *out = f->st;
    out->bytes_in = hs_offset(f);
    out->bytes_out = f->out.total;
    out->strings_dropped = f->strings.held_count; /* held, never used */
    out->roots_held_peak = f->roots.peak;
    hs_dups_top(f, out);
}

/* ---- errors ---------------------------------------------------------------- */

static void locate(F *f)
{
    f->err.record_offset = f->rec_off;
    f->err.tag = f->rec_tag;
    f->err.subtag = f->subtag;
}

hs_status hs_filter_fail(F *f, hs_status code, uint64_t off, const char *fmt, ...)
{
    char msg[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    hs_fail(&f->err, code, off, "%s", msg);
    locate(f);
    f->failed = 1;
    return code;
}

/* Where we are, for a truncation message: "HEAP_DUMP_SEGMENT record at byte
 * 1234" or "the file header". */
static void describe_place(const F *f, char *buf, size_t n)
{
    if (f->rec_off == UINT64_MAX)
        snprintf(buf, n, "the file header");
    else if (f->subtag >= 0)
        snprintf(buf, n, "%s %s sub-record of the %s record at byte %llu",
                 strchr("AEIOU", hs_subtag_name((unsigned)f->subtag)[0]) ? "an" : "a",
                 hs_subtag_name((unsigned)f->subtag), hs_tag_name((unsigned)f->rec_tag),
                 (unsigned long long)f->rec_off);
    else if (!hs_tag_known((unsigned)f->rec_tag))
        snprintf(buf, n, "a record of unknown tag 0x%02x at byte %llu", (unsigned)f->rec_tag,
                 (unsigned long long)f->rec_off);
    else
        snprintf(buf, n, "the %s record at byte %llu", hs_tag_name((unsigned)f->rec_tag),
                 (unsigned long long)f->rec_off);
}

hs_status hs_filter_io_fail(F *f, hs_status s, const char *what)
{
    char place[160];
    uint64_t end = f->rd.base + f->rd.end;

    describe_place(f, place, sizeof place);
    switch (s) {
    case HS_E_TRUNCATED:
        if (f->rec_off != UINT64_MAX && f->rec_end > end && f->rec_end != UINT64_MAX)
            return hs_filter_fail(f, s, end,
                                  "input ends inside %s (reading %s; %llu of its %llu "
                                  "bytes are missing)",
                                  place, what, (unsigned long long)(f->rec_end - end),
                                  (unsigned long long)(f->rec_end - f->rec_off));
        return hs_filter_fail(f, s, end, "input ends inside %s (reading %s)", place, what);
    case HS_E_READ:
        return hs_filter_fail(f, s, end, "reading the input failed");
    case HS_E_WRITE:
        hs_fail_plain(&f->err, s, "writing the output failed");
        f->failed = 1;
        return s;
    case HS_E_LIMIT:
        return hs_filter_fail(f, s, hs_offset(f), "%s in %s is larger than the read window "
                              "may grow", what, place);
    case HS_E_NOMEM:
        hs_fail_plain(&f->err, s, "out of memory");
        f->failed = 1;
        return s;
    default:
        return hs_filter_fail(f, s, hs_offset(f), "%s", hs_status_str(s));
    }
}

/* ---- byte moving ------------------------------------------------------------ */

/* Room for `n` more bytes in the open segment. heap.c opens a segment with
 * room for a whole sub-record before the sub-record's first byte moves, so
 * a miss is a bug of ours, reported rather than written past the buffer. */
static hs_status seg_room(F *f, uint64_t n)
{
    if (!f->seg_open || n > f->seg_cap - f->seg_len)
        return hs_filter_fail(f, HS_E_USAGE, hs_offset(f),
                              "internal error: segment overflow");
    return HS_OK;
}

hs_status hs_dst_write(F *f, const void *p, size_t n)
{
    if (f->dst == DST_OUT)
        return hs_out_write(&f->out, p, n) == HS_OK ? HS_OK
                                                    : hs_filter_io_fail(f, HS_E_WRITE, "");
    HS_TRY(seg_room(f, n));
    memcpy(f->seg + f->seg_len, p, n);
    f->seg_len += n;
    return HS_OK;
}

static hs_status dst_fill(F *f, uint8_t byte, uint64_t n)
{
    if (f->dst == DST_OUT)
        return hs_out_fill(&f->out, byte, n) == HS_OK ? HS_OK
                                                      : hs_filter_io_fail(f, HS_E_WRITE, "");
    HS_TRY(seg_room(f, n));
    memset(f->seg + f->seg_len, byte, (size_t)n);
    f->seg_len += (size_t)n;
    return HS_OK;
}

hs_status hs_span_flush(F *f)
{
    size_t n = f->rd.pos - f->span;

    if (n) {
        HS_TRY(hs_dst_write(f, f->rd.buf + f->span, n));
        f->span = f->rd.pos;
    }
    return HS_OK;
}

hs_status hs_need_slow(F *f, size_t n, const char *what)
{
    hs_status s;

    HS_TRY(hs_span_flush(f));
    s = hs_reader_fill(&f->rd, n);
    f->span = f->rd.pos;
    return s == HS_OK ? HS_OK : hs_filter_io_fail(f, s, what);
}

/* The next chunk of a long payload: at least one byte, at most `n`. */
static hs_status chunk(F *f, uint64_t n, const char *what, size_t *k)
{
    size_t avail = hs_reader_avail(&f->rd);

    if (!avail) {
        HS_TRY(hs_need_slow(f, 1, what));
        avail = hs_reader_avail(&f->rd);
    }
    *k = avail < n ? avail : (size_t)n;
    return HS_OK;
}

hs_status hs_copy_stream(F *f, uint64_t n, const char *what)
{
    while (n) {
        size_t k;
        HS_TRY(chunk(f, n, what, &k));
        if (f->hashing)
            XXH3_64bits_update(f->dup_state, hs_cur(f), k);
        hs_pass(f, k);
        n -= k;
    }
    return HS_OK;
}

hs_status hs_skip_stream(F *f, uint64_t n, const char *what)
{
    while (n) {
        size_t k;
        HS_TRY(chunk(f, n, what, &k));
        if (f->hashing)
            XXH3_64bits_update(f->dup_state, hs_cur(f), k);
        HS_TRY(hs_drop(f, k));
        n -= k;
    }
    return HS_OK;
}

hs_status hs_fill_stream(F *f, uint8_t byte, uint64_t n, const char *what)
{
    while (n) {
        size_t k;
        HS_TRY(chunk(f, n, what, &k));
        HS_TRY(hs_drop(f, k));
        HS_TRY(dst_fill(f, byte, k));
        n -= k;
    }
    return HS_OK;
}

/* The count of non-zero bytes in p[0..n), eight at a time: in each byte
 * of ((w & 0x7f..) + 0x7f..) | w the top bit is set exactly when that byte
 * of w is not zero; the multiply adds those bits up. */
size_t hs_count_nonzero(const uint8_t *p, size_t n)
{
    const uint64_t lo7 = 0x7f7f7f7f7f7f7f7full, ones = 0x0101010101010101ull;
    size_t z = 0, i = 0;

    for (; i + 8 <= n; i += 8) {
        uint64_t w, t;
        memcpy(&w, p + i, 8);
        t = (((w & lo7) + lo7) | w) >> 7 & ones;
        z += (size_t)((t * ones) >> 56);
    }
    for (; i < n; i++)
        z += p[i] != 0;
    return z;
}

hs_status hs_fill_stream_count(F *f, uint8_t byte, uint64_t n, uint64_t *total,
                               uint64_t *nonzero, uint64_t *first)
{
    *total += n;
    while (n) {
        size_t k, j, z;
        const uint8_t *p;
        HS_TRY(chunk(f, n, "scrubbed bytes", &k));
        p = hs_cur(f);
        if (f->hashing)
            XXH3_64bits_update(f->dup_state, p, k);
        z = f->opt.count_nonzero ? hs_count_nonzero(p, k) : 0;
        if (z && !*first)
            for (j = 0; j < k; j++)
                if (p[j]) {
                    *first = hs_offset(f) + j;
                    break;
                }
        *nonzero += z;
        HS_TRY(hs_drop(f, k));
        HS_TRY(dst_fill(f, byte, k));
        n -= k;
    }
    return HS_OK;
}

hs_status hs_fill_stream_out(F *f, uint8_t byte, uint64_t n)
{
    HS_TRY(hs_span_flush(f));
    return dst_fill(f, byte, n);
}

/* ---- the file header ------------------------------------------------------- */

static int starts_with(const uint8_t *p, size_t n, const char *s, size_t sn)
{
    return n >= sn && memcmp(p, s, sn) == 0;
}

/* Names what a file that is not HPROF looks like, for the error message. */
static const char *sniff(const uint8_t *p, size_t n)
{
    size_t i, printable = 0;

    if (starts_with(p, n, "\x1f\x8b", 2))
        return "gzip-compressed data (decompress it first, e.g. gzip -dc)";
    if (starts_with(p, n, "\x28\xb5\x2f\xfd", 4))
        return "zstd-compressed data (decompress it first, e.g. zstd -dc)";
    if (starts_with(p, n, "\xfd" "7zXZ", 5))
        return "xz-compressed data";
    if (starts_with(p, n, "BZh", 3))
        return "bzip2-compressed data";
    if (starts_with(p, n, "PK\x03\x04", 4))
        return "a zip archive";
    if (n >= 2 && n - 2 >= 18 && memcmp(p + 2, "portable heap dump", 18) == 0)
        return "an IBM portable heap dump (PHD), not HPROF";
    for (i = 0; i < n; i++)
        printable += (p[i] >= 0x20 && p[i] < 0x7f) || p[i] == '\n' || p[i] == '\r' ||
                     p[i] == '\t';
    if (printable == n)
        return "text, not an HPROF heap dump";
    return "not an HPROF heap dump (it does not start with \"JAVA PROFILE 1.0\")";
}

/* Quotes the version string with anything unprintable escaped: an error
 * message is one line of text whatever the input holds. */
static hs_status unknown_version(F *f, const uint8_t *p, size_t n)
{
    char q[4 * HS_VERSION_MAX + 1];
    size_t i, k = 0;

    for (i = 0; i < n && i < HS_VERSION_MAX; i++) {
        if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '\\' && p[i] != '"')
            q[k++] = (char)p[i];
        else
            k += (size_t)snprintf(q + k, sizeof q - k, "\\x%02x", p[i]);
    }
    q[k] = 0;
    return hs_filter_fail(f, HS_E_UNSUPPORTED, 0, "unknown HPROF version \"%s\"", q);
}

static hs_status read_header(F *f)
{
    static const char magic[] = "JAVA PROFILE 1.0";
    const size_t want = HS_VERSION_MAX + HS_HEADER_TAIL;
    hs_status s = hs_reader_fill(&f->rd, want);
    const uint8_t *p = hs_cur(f), *nul;
    size_t avail = hs_reader_avail(&f->rd), vlen;
    uint32_t idsize;
    unsigned i;
    int v;

    if (s != HS_OK && s != HS_E_TRUNCATED)
        return hs_filter_io_fail(f, s, "the file header");
    if (avail == 0)
        return hs_filter_fail(f, HS_E_UNSUPPORTED, 0, "the input is empty");
    if (!starts_with(p, avail, magic, sizeof magic - 1)) {
        /* a few bytes of a real header are truncation, not garbage */
        if (memcmp(p, magic, avail < sizeof magic - 1 ? avail : sizeof magic - 1) == 0)
            return hs_filter_fail(f, HS_E_TRUNCATED, avail,
                                  "input ends inside the file header");
        return hs_filter_fail(f, HS_E_UNSUPPORTED, 0, "the input is %s", sniff(p, avail));
    }
    nul = memchr(p, 0, avail < HS_VERSION_MAX ? avail : HS_VERSION_MAX);
    if (!nul) {
        if (avail < HS_VERSION_MAX)
            return hs_filter_fail(f, HS_E_TRUNCATED, avail,
                                  "input ends inside the file header");
        return hs_filter_fail(f, HS_E_UNSUPPORTED, 0,
                              "the version string is not terminated within %u bytes",
                              HS_VERSION_MAX);
    }
    vlen = (size_t)(nul - p);
    if (vlen == sizeof magic - 1)
        v = 0;
    else if (vlen == sizeof magic + 1 && p[sizeof magic - 1] == '.' &&
             p[sizeof magic] >= '1' && p[sizeof magic] <= '3')
        v = p[sizeof magic] - '0';
    else
        return unknown_version(f, p, vlen);
    if (avail < vlen + 1 + HS_HEADER_TAIL)
        return hs_filter_fail(f, HS_E_TRUNCATED, avail, "input ends inside the file header");
    idsize = hs_be32(p + vlen + 1);
    if (idsize != 4 && idsize != 8)
        return hs_filter_fail(f, HS_E_UNSUPPORTED, vlen + 1,
                              "identifier size %u is not supported (only 4 and 8 exist)",
                              (unsigned)idsize);
    f->idsize = idsize;
    f->android = v == 3;
    for (i = 0; i < 256; i++)
        f->sub_size[i] = (uint8_t)hs_sub_fixed_size(i, idsize);

    /* A re-encoded heap dump is written as HEAP_DUMP_SEGMENTs, which only
     * 1.0.2 (and Android's 1.0.3) define; --to-jvm makes 1.0.3 into 1.0.2. */
    if ((f->reencode && v < 2) || (f->opt.to_jvm && v == 3)) {
        uint8_t hdr[sizeof "JAVA PROFILE 1.0.2" + HS_HEADER_TAIL];
        memcpy(hdr, "JAVA PROFILE 1.0.2", sizeof "JAVA PROFILE 1.0.2");
        memcpy(hdr + sizeof "JAVA PROFILE 1.0.2", nul + 1, HS_HEADER_TAIL);
        HS_TRY(hs_drop(f, vlen + 1 + HS_HEADER_TAIL));
        return hs_emit(f, hdr, sizeof hdr);
    }
    hs_pass(f, vlen + 1 + HS_HEADER_TAIL);
    return HS_OK;
}

/* ---- top-level records ----------------------------------------------------- */

/* A length that breaks a record's layout. When the record before was an
 * unknown tag, that record is more likely the first corrupt byte than this
 * one (a stray byte shifts every header after it), so the error points
 * there. */
static hs_status bad_length(F *f, uint64_t len, const char *expect)
{
    const char *name = hs_tag_name((unsigned)f->rec_tag);

    if (f->prev_unknown_tag >= 0)
        return hs_filter_fail(f, HS_E_MALFORMED, f->prev_off,
                              "corrupt data: an unknown record tag 0x%02x here, then a "
                              "%s at byte %llu with length %llu (expected %s)",
                              (unsigned)f->prev_unknown_tag, name,
                              (unsigned long long)f->rec_off, (unsigned long long)len,
                              expect);
    return hs_filter_fail(f, HS_E_MALFORMED, f->rec_off + 5,
                          "%s record has length %llu (expected %s)", name,
                          (unsigned long long)len, expect);
}

static hs_status expect_len(F *f, uint64_t len, uint64_t want)
{
    char buf[32];

    if (len == want)
        return HS_OK;
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)want);
    return bad_length(f, len, buf);
}

/* Records whose length follows from a count in their body: check the count
 * before trusting the length. */
static hs_status expect_counted(F *f, uint64_t len, size_t fixed, size_t count_at,
                                uint64_t per_item)
{
    char buf[64];
    uint64_t count;

    if (len < fixed) {
        snprintf(buf, sizeof buf, "at least %zu", fixed);
        return bad_length(f, len, buf);
    }
    HS_TRY(hs_need(f, HS_RECORD_HEADER + fixed, "a record body"));
    count = hs_be32(hs_cur(f) + HS_RECORD_HEADER + count_at);
    if (len == fixed + count * per_item)
        return HS_OK;
    snprintf(buf, sizeof buf, "%zu + %llu x %llu", fixed, (unsigned long long)count,
             (unsigned long long)per_item);
    return bad_length(f, len, buf);
}

static hs_status check_record_length(F *f, unsigned tag, uint64_t len)
{
    uint64_t i = f->idsize;

    switch (tag) {
    case HS_TAG_STRING:
        return len >= i ? HS_OK : bad_length(f, len, "at least the id size");
    case HS_TAG_LOAD_CLASS: return expect_len(f, len, 8 + 2 * i);
    case HS_TAG_UNLOAD_CLASS: return expect_len(f, len, 4);
    case HS_TAG_STACK_FRAME: return expect_len(f, len, 8 + 4 * i);
    case HS_TAG_STACK_TRACE: return expect_counted(f, len, 12, 8, i);
    case HS_TAG_ALLOC_SITES: return expect_counted(f, len, 34, 30, 25);
    case HS_TAG_HEAP_SUMMARY: return expect_len(f, len, 24);
    case HS_TAG_START_THREAD: return expect_len(f, len, 8 + 4 * i);
    case HS_TAG_END_THREAD: return expect_len(f, len, 4);
    case HS_TAG_CPU_SAMPLES: return expect_counted(f, len, 8, 4, 8);
    case HS_TAG_CONTROL_SETTINGS: return expect_len(f, len, 6);
    case HS_TAG_HEAP_DUMP_END: return expect_len(f, len, 0);
    default: return HS_OK;
    }
}

/* Offsets, within a record body, of the string ids it refers to. */
static unsigned string_refs(unsigned tag, unsigned i, unsigned at[3])
{
    switch (tag) {
    case HS_TAG_LOAD_CLASS: /* u4 serial, id class, u4 trace, id name */
        at[0] = 4 + i + 4;
        return 1;
    case HS_TAG_STACK_FRAME: /* id frame, id method, id signature, id source */
        at[0] = i, at[1] = 2 * i, at[2] = 3 * i;
        return 3;
    case HS_TAG_START_THREAD: /* u4, id thread, u4, id name, id group, id parent */
        at[0] = 4 + i + 4, at[1] = at[0] + i, at[2] = at[1] + i;
        return 3;
    default:
        return 0;
    }
}

/* Any record but the heap ones: copied by its length, after the strings it
 * names when unused strings are being dropped. */
static hs_status plain_record(F *f, unsigned tag, uint64_t len)
{
    unsigned at[3], n, j;

    if (f->reencode) {
        /* a top-level record ends the open segment (held roots stay held) */
        HS_TRY(hs_heap_commit(f));
        HS_TRY(hs_seg_close(f));
        HS_TRY(hs_set_dst(f, DST_OUT));
    }
    if (tag == HS_TAG_STRING && f->rules->drop_unused_strings)
        return hs_str_record(f, len);
    if (tag == HS_TAG_STRING)
        f->st.strings_in++, f->st.strings_out++;
    n = f->rules->drop_unused_strings ? string_refs(tag, f->idsize, at) : 0;
    if (n) { /* fixed-size bodies, checked already */
        HS_TRY(hs_need(f, HS_RECORD_HEADER + (size_t)len, "a record body"));
        for (j = 0; j < n; j++)
            HS_TRY(hs_str_use(f, hs_be_id(hs_cur(f) + HS_RECORD_HEADER + at[j], f->idsize)));
    }
    if (tag == HS_TAG_LOAD_CLASS && f->rules->n_keep) {
        const uint8_t *b;
        HS_TRY(hs_need(f, HS_RECORD_HEADER + (size_t)len, "a record body"));
        b = hs_cur(f) + HS_RECORD_HEADER;
        HS_TRY(hs_scrub_load_class(f, hs_be_id(b + 4, f->idsize),
                                   hs_be_id(b + 4 + f->idsize + 4, f->idsize)));
    }
    return hs_copy_record(f, len);
}

hs_status hs_copy_record(F *f, uint64_t len)
{
    /* where the record starts in the output, should --salvage have to take
     * back a record cut short */
    f->rec_out_pos = f->out.total + (f->rd.pos - f->span);
    hs_pass(f, HS_RECORD_HEADER);
    f->rec_partial = 1;
    HS_TRY(hs_copy_stream(f, len, "a record body"));
    f->rec_partial = 0;
    f->st.records_out++;
    return HS_OK;
}

static hs_status heap_dump_end(F *f)
{
    if (f->reencode) {
        HS_TRY(hs_heap_finish(f));
        HS_TRY(hs_set_dst(f, DST_OUT));
        if (!f->heap_open) {
            /* the heap dump it closed was already closed (or was empty after
             * filtering): a second end would start a new dump */
            return hs_drop(f, HS_RECORD_HEADER);
        }
    }
    hs_pass(f, HS_RECORD_HEADER);
    f->st.records_out++;
    f->heap_open = 0;
    return HS_OK;
}

static hs_status record(F *f)
{
    const uint8_t *p;
    unsigned tag;
    uint64_t len;

    HS_TRY(hs_need(f, HS_RECORD_HEADER, "a record header"));
    p = hs_cur(f);
    tag = p[0];
    len = hs_be32(p + 5);
    f->rec_off = hs_offset(f);
    f->rec_tag = (int)tag;
    f->rec_end = f->rec_off + HS_RECORD_HEADER + len;
    f->st.records_in++;
    HS_TRY(check_record_length(f, tag, len));
    /* HotSpot writes every STRING before the first LOAD_CLASS; a writer
     * that does not writes strings on demand (see hs_heap_commit) */
    if (tag == HS_TAG_LOAD_CLASS)
        f->seen_load_class = 1;
    else if (tag == HS_TAG_STRING && f->seen_load_class)
        f->strings_interleaved = 1;

    if (tag == HS_TAG_HEAP_DUMP || tag == HS_TAG_HEAP_DUMP_SEGMENT)
        HS_TRY(hs_heap_record(f, tag, len));
    else if (tag == HS_TAG_HEAP_DUMP_END)
        HS_TRY(heap_dump_end(f));
    else
        HS_TRY(plain_record(f, tag, len));
    if (!hs_tag_known(tag)) {
        f->prev_unknown_tag = (int)tag;
        f->prev_off = f->rec_off;
    } else {
        f->prev_unknown_tag = -1;
    }
    return HS_OK;
}

static hs_status run(F *f)
{
    HS_TRY(read_header(f));
    for (;;) {
        int at_end;
        hs_status s;

        f->rec_off = UINT64_MAX;
        f->rec_tag = -1;
        f->subtag = -1;
        if (hs_reader_avail(&f->rd) == 0) {
            /* the end of the input may only come between records */
            HS_TRY(hs_span_flush(f));
            s = hs_reader_at_end(&f->rd, &at_end);
            f->span = f->rd.pos;
            if (s != HS_OK)
                return hs_filter_io_fail(f, s, "a record header");
            if (at_end)
                break;
        }
        HS_TRY(record(f));
    }
    if (f->reencode)
        HS_TRY(hs_heap_finish(f));
    if (f->heap_open)
        HS_TRY(hs_heap_end(f));
    HS_TRY(hs_span_flush(f));
    if (hs_out_flush(&f->out) != HS_OK)
        return hs_filter_io_fail(f, HS_E_WRITE, "");
    return HS_OK;
}

hs_status hs_filter_run(hs_filter *f, const hs_source *src, const hs_sink *dst)
{
    hs_status s;

    if (!f || !src || (!src->read && !src->data) || !dst || !dst->write)
        return HS_E_USAGE;
    if (f->ran) {
        if (!f->failed)
            hs_fail_plain(&f->err, HS_E_USAGE, "a filter runs only once");
        f->failed = 1;
        return HS_E_USAGE;
    }
    f->ran = 1;
    if (hs_reader_start(&f->rd, src) != HS_OK)
        return hs_filter_io_fail(f, HS_E_NOMEM, "");
    f->out.sink = *dst;
    /* scrubbing may hold instances back for their class: that reorders */
    f->reencode = f->opt.repack || f->opt.salvage || f->opt.to_jvm ||
                  f->rules->scrub_fields || hs_rules_change_lengths(f->rules);
    f->drop_heaps = hs_rules_drop_any_heap(f->rules);
    f->scrub = f->rules->scrub_fields;
    if (f->reencode) {
        f->seg = hs_malloc(&f->alloc, f->seg_cap);
        if (!f->seg)
            return hs_filter_io_fail(f, HS_E_NOMEM, "");
    }
    s = run(f);
    if (s == HS_E_TRUNCATED && f->opt.salvage)
        s = hs_salvage(f);
    return s;
}
