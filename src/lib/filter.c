/* SPDX-License-Identifier: Apache-2.0 */
/*
 * filter.c - the public filter: lifecycle, the file header and the
 * top-level record loop. Heap-dump records go to heap.c; what is written
 * goes through the encoder (encoder.c).
 */
#include <assert.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "alloc.h"
#include "be.h"
#include "codec.h"
#include "core.h"
#include "filter.h"
#include "sized.h"

/* the buffers' sizes: hs_limits.h */
#define DEFAULT_READ_BUFFER HS_READ_BUFFER_DEFAULT
#define DEFAULT_SEGMENT_CAP HS_SEGMENT_CAP_DEFAULT
#define MAX_SEGMENT_CAP HS_SEGMENT_CAP_MAX
#define MAX_READ_WINDOW HS_READ_WINDOW_MAX
#define MIN_BUFFER HS_BUFFER_MIN
#define DEFAULT_MAX_HELD HS_DEFAULT_MAX_HELD
#define DEFAULT_HOLD_IN_MEMORY HS_HOLD_IN_MEMORY_DEFAULT
/* the progress callback's least step of input: hs_limits.h */
#define PROGRESS_STEP HS_PROGRESS_STEP

/* The frozen 0.1 layouts (see the growth rules in hprof_strip.h): the
 * bytes of hs_options hs_filter_create reads, to the end of its last 0.1
 * field (never its padding, where a later field may go), and the bytes of
 * hs_stats hs_filter_stats fills. The numbers are the 0.1 sizes on LP64,
 * so that a field put in the middle fails the build. */
#define OPTIONS_0_1 (offsetof(hs_options, obfuscate_names) + sizeof(int))
#define STATS_0_1 (offsetof(hs_stats, dup_top) + sizeof(((hs_stats *)0)->dup_top))
/* the end of the last field of hs_options this library has: a field added
 * moves it */
#define OPTIONS_KNOWN OPTIONS_0_1
_Static_assert(OPTIONS_KNOWN <= sizeof(hs_options), "OPTIONS_KNOWN");
_Static_assert(sizeof(void *) != 8 || OPTIONS_0_1 == 92, "hs_options' 0.1 fields moved");
_Static_assert(sizeof(void *) != 8 || STATS_0_1 == 720, "hs_stats' 0.1 fields moved");
/* a signal handler may cancel: the flag must be lock-free */
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "hs_filter_cancel needs a lock-free int");

/* ---- lifecycle ------------------------------------------------------------ */

hs_status hs_options_take(hs_options *dst, const hs_options *opt, size_t size)
{
    /* a caller built with a newer header: what it set that this library
     * does not have, it would not get (the padding after the last field
     * known here may be the caller's next field) */
    if (opt && hs_sized_unknown_set(opt, OPTIONS_KNOWN, size))
        return HS_E_USAGE;
    memset(dst, 0, sizeof *dst);
    if (opt)
        memcpy(dst, opt, size < OPTIONS_KNOWN ? size : OPTIONS_KNOWN);
    return HS_OK;
}

static hs_status string_named(void *ctx, uint64_t id, const uint8_t *text, size_t n);
static hs_status string_emitted(void *ctx, uint64_t id, const uint8_t *text, size_t n);
static const uint8_t *string_held_text(void *ctx, uint64_t id, uint32_t *len);

static void set_defaults(hs_options *o)
{
    if (!o->read_buffer)
        o->read_buffer = DEFAULT_READ_BUFFER;
    if (o->read_buffer < MIN_BUFFER)
        o->read_buffer = MIN_BUFFER;
    if (!o->segment_cap)
        o->segment_cap = DEFAULT_SEGMENT_CAP;
    if (o->segment_cap < MIN_BUFFER)
        o->segment_cap = MIN_BUFFER;
    if (o->segment_cap > MAX_SEGMENT_CAP)
        o->segment_cap = MAX_SEGMENT_CAP;
    if (!o->max_held)
        o->max_held = DEFAULT_MAX_HELD;
    if (!o->hold_in_memory)
        o->hold_in_memory = DEFAULT_HOLD_IN_MEMORY;
    if (!o->spill.read)
        o->spill.write = NULL; /* both or none */
    if (o->findings)
        o->count_nonzero = 1; /* the findings are where those bytes are */
}

/* The reader's window is about to move on: where a run stops when it was
 * cancelled, and where progress is told. */
static hs_status window_moving(void *arg)
{
    F *f = arg;
    uint64_t in;

    if (atomic_load_explicit(&f->cancel, memory_order_relaxed))
        return HS_E_CANCELLED;
    if (!f->progress)
        return HS_OK;
    in = hs_ctx_offset(&f->c);
    if (in - f->progress_at < PROGRESS_STEP)
        return HS_OK;
    f->progress_at = in;
    /* what the sink got: bytes still buffered may yet be taken back */
    if (f->progress(f->progress_ctx, in, f->enc.out.total - f->enc.out.len)) {
        hs_filter_cancel(f);
        return HS_E_CANCELLED;
    }
    return HS_OK;
}

static hs_filter *create_failed(hs_error *err, hs_status s, const char *what)
{
    if (err)
        hs_fail_plain(err, s, "%s", what);
    return NULL;
}

hs_filter *hs_filter_create(const hs_rules *rules, const hs_options *opt,
                            const hs_alloc *alloc)
{
    return hs_filter_create_ex(rules, opt, opt ? OPTIONS_0_1 : 0, alloc, NULL);
}

hs_filter *hs_filter_create_ex(const hs_rules *rules, const hs_options *opt, size_t opt_size,
                               const hs_alloc *alloc, hs_error *err)
{
    hs_options o;
    hs_alloc a;
    F *f;

    if (!rules)
        return create_failed(err, HS_E_USAGE, "hs_filter_create: no rule set");
    if (!opt && opt_size)
        return create_failed(err, HS_E_USAGE, "hs_filter_create: no options, but a size");
    if (hs_options_take(&o, opt, opt_size) != HS_OK)
        return create_failed(err, HS_E_USAGE,
                             "hs_filter_create: an option this library version does not "
                             "have is set");
    if (hs_rules_check_mapping(rules, err) != HS_OK) /* rules changed after the mapping */
        return NULL;
    hs_alloc_init(&a, alloc);
    f = hs_calloc(&a, sizeof *f);
    if (!f)
        return create_failed(err, HS_E_NOMEM, "out of memory");
    atomic_init(&f->cancel, 0);
    f->rules = rules;
    f->c.opt = o;
    set_defaults(&f->c.opt);
    hs_ctx_init_alloc(&f->c, &a);
    f->caps = hs_rules_caps(rules, &f->c.opt);
    hs_strings_init(&f->str, &f->c.alloc, f->caps.drop_strings);
    hs_roots_init(&f->roots, &f->c.alloc);
    hs_scrub_init(&f->scrub, rules, &f->c.alloc);
    hs_dups_init(&f->dups, &f->c.alloc, f->c.opt.max_held);
    hs_histo_init(&f->histo, &f->c.alloc);
    if (f->c.opt.histogram) { /* the class names from the string table */
        f->str.emitted = string_emitted;
        f->str.emitted_ctx = f;
        f->histo.held_text = string_held_text;
        f->histo.held_ctx = f;
    }
    hs_cut_init(&f->cut, &f->c);
    hs_findings_init(&f->fd, &f->c.alloc, f->caps.findings);
    f->scrub.fd = f->caps.findings ? &f->fd : NULL;
    f->scrub.hide_only = f->caps.scrub && !hs_rules_remove_fields(rules); /* names obfuscated */
    hs_deobf_init(&f->deobf, f->caps.deobf ? rules->mapping : NULL, f->c.opt.obfuscate_names,
                  &f->c, &f->enc, &f->str);
    /* the mapping was allocated before, but is held all the same */
    f->c.meter.base = f->caps.deobf && rules->mapping ? hs_mapping_bytes(rules->mapping) : 0;
    f->deobf.named = string_named;
    f->deobf.named_ctx = f;
    f->c.subtag = -1;
    f->c.rec_tag = -1;
    f->c.rec_off = UINT64_MAX;
    f->prev_unknown_tag = -1;
    hs_reader_init(&f->c.rd, &f->c.raw, f->c.opt.read_buffer,
                   f->c.opt.read_buffer > MAX_READ_WINDOW ? f->c.opt.read_buffer
                                                          : MAX_READ_WINDOW);
    f->c.rd.moving = window_moving;
    f->c.rd.moving_arg = f;
    if (hs_enc_init(&f->enc, &f->c, HS_OUT_BUFFER, f->c.opt.segment_cap) != HS_OK) {
        hs_filter_free(f);
        return create_failed(err, HS_E_NOMEM, "out of memory");
    }
    return f;
}

void hs_filter_cancel(hs_filter *f)
{
    if (f)
        atomic_store_explicit(&f->cancel, 1, memory_order_relaxed);
}

hs_status hs_filter_set_progress(hs_filter *f, hs_progress_fn cb, void *ctx)
{
    if (!f || f->ran)
        return HS_E_USAGE;
    f->progress = cb;
    f->progress_ctx = ctx;
    return HS_OK;
}

void hs_filter_free(hs_filter *f)
{
    hs_alloc a;

    if (!f)
        return;
    a = f->c.raw;
    hs_reader_free(&f->c.rd);
    hs_enc_free(&f->enc);
    hs_strings_free(&f->str);
    hs_roots_free(&f->roots);
    hs_scrub_free(&f->scrub);
    hs_dups_free(&f->dups);
    hs_histo_free(&f->histo);
    hs_cut_free(&f->cut);
    hs_findings_free(&f->fd);
    hs_deobf_free(&f->deobf);
    hs_alloc_free(&a, f);
}

const hs_error *hs_filter_error(const hs_filter *f)
{
    return f && f->c.failed ? &f->c.err : NULL;
}

/* All of this library's counters. */
static void stats(const hs_filter *f, hs_stats *out)
{
    if (!f) {
        memset(out, 0, sizeof *out);
        return;
    }
    *out = f->c.st;
    out->bytes_in = hs_ctx_offset(&f->c);
    out->bytes_out = f->enc.out.total;
    out->strings_dropped = hs_str_unused(&f->str); /* held, never used */
    out->roots_held_peak = f->roots.q.peak;
    hs_dups_top(&f->dups, out);
    out->dup_min_bytes = f->caps.hashing ? f->dups.min_payload : 0;
}

void hs_filter_stats(const hs_filter *f, hs_stats *out)
{
    if (out)
        hs_filter_stats_ex(f, out, STATS_0_1); /* a 0.1 caller's struct */
}

size_t hs_filter_stats_ex(const hs_filter *f, hs_stats *out, size_t size)
{
    hs_stats all;

    if (!out)
        return 0;
    stats(f, &all);
    return hs_sized_fill(out, size, &all, sizeof all);
}

size_t hs_filter_findings(const hs_filter *f, const hs_finding **rows)
{
    if (rows)
        *rows = f ? f->fd.out : NULL;
    return f ? f->fd.nout : 0;
}

const char *hs_filter_warning(const hs_filter *f, size_t i)
{
    return f && i < f->n_warnings ? f->warnings[i] : NULL;
}

size_t hs_filter_histogram(const hs_filter *f, const hs_class_count **rows)
{
    if (rows)
        *rows = f ? f->histo.rows : NULL;
    return f && f->histo.rows && f->histo.rows[0].name ? f->histo.nrows : 0;
}

/* ---- the file header ------------------------------------------------------- */

static int starts_with(const uint8_t *p, size_t n, const char *s, size_t sn)
{
    return n >= sn && memcmp(p, s, sn) == 0;
}

/* Names what a file that is not HPROF looks like, for the error message
 * (`buf`, `cap` bytes; returned). Compressed data is read by the input
 * calls (hs_input_open_*), not by a filter given a source of its own. */
static const char *sniff(const uint8_t *p, size_t n, char *buf, size_t cap)
{
    const hs_codec *m = hs_codec_sniff(p, n);
    size_t i, printable = 0;

    if (m && m->dec)
        snprintf(buf, cap, "%s, which hs_input_open_* decompresses, not a filter's own source",
                 m->what);
    else if (m)
        snprintf(buf, cap, "%s, not a heap dump; decompress it first: %s", m->what, m->how);
    else if (n >= 2 && n - 2 >= 18 && memcmp(p + 2, "portable heap dump", 18) == 0)
        return "an IBM portable heap dump (PHD), not HPROF";
    else {
        for (i = 0; i < n; i++)
            printable += (p[i] >= 0x20 && p[i] < 0x7f) || p[i] == '\n' || p[i] == '\r' ||
                         p[i] == '\t';
        return printable == n ? "text, not an HPROF heap dump"
                              : "not an HPROF heap dump (it does not start with \"" HS_MAGIC "\")";
    }
    return buf;
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
    return hs_fail_at(&f->c, HS_E_UNSUPPORTED, 0, "unknown HPROF version \"%s\"", q);
}

static hs_status read_header(F *f)
{
    static const char magic[] = HS_MAGIC;
    const size_t want = HS_VERSION_MAX + HS_HEADER_TAIL;
    const uint8_t *p, *nul;
    size_t avail, vlen;
    uint32_t idsize;
    unsigned i;
    int v;

    HS_TRY(hs_enc_fill(&f->enc, want, "the file header"));
    p = hs_cur(&f->enc);
    avail = hs_reader_avail(&f->c.rd);
    if (avail == 0)
        return hs_fail_at(&f->c, HS_E_UNSUPPORTED, 0, "the input is empty");
    if (!starts_with(p, avail, magic, sizeof magic - 1)) {
        /* a few bytes of a real header are truncation, not garbage */
        if (memcmp(p, magic, avail < sizeof magic - 1 ? avail : sizeof magic - 1) == 0)
            return hs_fail_at(&f->c, HS_E_TRUNCATED, avail, "input ends inside the file header");
        char what[160];
        return hs_fail_at(&f->c, HS_E_UNSUPPORTED, 0, "the input is %s",
                          sniff(p, avail, what, sizeof what));
    }
    nul = memchr(p, 0, avail < HS_VERSION_MAX ? avail : HS_VERSION_MAX);
    if (!nul) {
        if (avail < HS_VERSION_MAX)
            return hs_fail_at(&f->c, HS_E_TRUNCATED, avail, "input ends inside the file header");
        return hs_fail_at(&f->c, HS_E_UNSUPPORTED, 0,
                          "the version string is not terminated within %u bytes",
                          HS_VERSION_MAX);
    }
    vlen = (size_t)(nul - p);
    if (vlen == sizeof magic - 1)
        v = 0;
    else if (vlen == sizeof magic + 1 && p[sizeof magic - 1] == '.' &&
             p[sizeof magic] >= '1' && p[sizeof magic] <= '0' + HS_VERSION_NEWEST)
        v = p[sizeof magic] - '0';
    else
        return unknown_version(f, p, vlen);
    if (avail < vlen + 1 + HS_HEADER_TAIL)
        return hs_fail_at(&f->c, HS_E_TRUNCATED, avail, "input ends inside the file header");
    idsize = hs_be32(p + vlen + 1);
    if (idsize != 4 && idsize != 8)
        return hs_fail_at(&f->c, HS_E_UNSUPPORTED, vlen + 1,
                          "identifier size %u is not supported (only 4 and 8 exist)",
                          (unsigned)idsize);
    f->c.idsize = idsize;
    f->version = v;
    f->c.st.hprof_version = (uint64_t)v;
    for (i = 0; i < 256; i++)
        f->sub_size[i] = (uint8_t)hs_sub_fixed_size(i, idsize);
    /* --to-jvm alone on a JVM's dump: nothing to convert, the layout kept;
     * decided before the heap decoder and its fast path set up for it */
    if (f->caps.reencode_for_jvm && v != 3) {
        f->caps.reencode = 0;
        hs_enc_keep_layout(&f->enc);
    }
    HS_TRY(hs_heap_init(f));
    /* ART writes STRINGs on demand (see strrec.c) */
    f->str.on_demand = v == 3;
    if (f->caps.deobf)
        HS_TRY(hs_deobf_start(&f->deobf, v));

    /* A re-encoded heap dump is written as HEAP_DUMP_SEGMENTs, which only
     * 1.0.2 (and Android's 1.0.3) define; --to-jvm makes 1.0.3 into 1.0.2. */
    if ((f->enc.reencode && v < 2) || (f->c.opt.to_jvm && v == 3)) {
        uint8_t hdr[sizeof HS_VERSION_LINE_JVM + HS_HEADER_TAIL];
        memcpy(hdr, HS_VERSION_LINE_JVM, sizeof HS_VERSION_LINE_JVM);
        memcpy(hdr + sizeof HS_VERSION_LINE_JVM, nul + 1, HS_HEADER_TAIL);
        HS_TRY(hs_drop(&f->enc, vlen + 1 + HS_HEADER_TAIL));
        return hs_emit(&f->enc, hdr, sizeof hdr);
    }
    hs_pass(&f->enc, vlen + 1 + HS_HEADER_TAIL);
    return HS_OK;
}

/* ---- top-level records ----------------------------------------------------- */

/* A length that breaks a record's layout. When the record before was an
 * unknown tag, that record is more likely the first corrupt byte than this
 * one (a stray byte shifts every header after it), so the error points
 * there. */
static hs_status bad_length(F *f, uint64_t len, const char *expect)
{
    const char *name = hs_tag_name((unsigned)f->c.rec_tag);

    if (f->prev_unknown_tag >= 0)
        return hs_fail_at(&f->c, HS_E_MALFORMED, f->prev_off,
                          "corrupt data: an unknown record tag 0x%02x here, then a %s at byte "
                          "%llu with length %llu (expected %s)",
                          (unsigned)f->prev_unknown_tag, name,
                          (unsigned long long)f->c.rec_off, (unsigned long long)len, expect);
    return hs_fail_at(&f->c, HS_E_MALFORMED, f->c.rec_off + 5,
                      "%s record has length %llu (expected %s)", name, (unsigned long long)len,
                      expect);
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
    HS_TRY(hs_need(&f->enc, HS_RECORD_HEADER + fixed, "a record body"));
    count = hs_be32(hs_cur(&f->enc) + HS_RECORD_HEADER + count_at);
    if (len == fixed + count * per_item)
        return HS_OK;
    snprintf(buf, sizeof buf, "%zu + %llu x %llu", fixed, (unsigned long long)count,
             (unsigned long long)per_item);
    return bad_length(f, len, buf);
}

/* The length a body of shape `body` allows (format.h's HS_RECORDS):
 * `fixed` bytes, and `each` per item of the count at `count_at`. */
static inline hs_status check_body_length(F *f, uint64_t len, int body, uint64_t fixed,
                                          size_t count_at, uint64_t each)
{
    switch (body) {
    case HS_BODY_FIXED: return expect_len(f, len, fixed);
    case HS_BODY_COUNTED: return expect_counted(f, len, (size_t)fixed, count_at, each);
    case HS_BODY_ID_TEXT: return len >= fixed ? HS_OK : bad_length(f, len, "at least the id size");
    default: return HS_OK; /* sub-records */
    }
}

/* A switch on the tag, generated from HS_RECORDS: each case folds to its
 * own constants, as a hand-written one would. */
static hs_status check_record_length(F *f, unsigned tag, uint64_t len)
{
    const uint64_t i = f->c.idsize;

    switch (tag) {
#define HS_X_CHECK(id, tag, name, kind, body, fb, fi, at, eb, ei, n, nb, ni) \
    case tag: return check_body_length(f, len, HS_BODY_##body, fb + fi * i, at, eb + ei * i);
        HS_RECORDS(HS_X_CHECK)
#undef HS_X_CHECK
    default: return HS_OK; /* a record of unknown tag */
    }
}

/* A STRING with findings asked for: its text kept for the names, its
 * place for the report, and its text noted when it was too long to hold
 * and so zeroed while it held data. */
static hs_status string_findings(F *f, uint64_t len)
{
    const unsigned i = f->c.idsize;
    const size_t n = len - i <= HS_NAME_TEXT_MAX ? (size_t)(len - i) : 0;
    const uint64_t nz = f->c.st.nonzero_string_bytes;
    const uint8_t *b;
    uint64_t id;

    HS_TRY(hs_need(&f->enc, HS_RECORD_HEADER + i + n, "a STRING record"));
    b = hs_cur(&f->enc) + HS_RECORD_HEADER;
    id = hs_be_id(b, i);
    HS_TRY(hs_findings_string(&f->fd, &f->c, id, f->c.rec_off, len - i <= HS_NAME_TEXT_MAX ? b + i : NULL, n));
    HS_TRY(hs_str_record(&f->str, &f->enc, len));
    if (f->c.st.nonzero_string_bytes != nz)
        HS_TRY(hs_findings_one(&f->fd, &f->c, HS_FIND_STRING_LONG, id,
                               f->c.st.nonzero_string_bytes - nz, f->c.rec_off));
    return HS_OK;
}

/* A STRING: matched against the keep-field names (which need no strings
 * rule), then held or passed on. */
/* True when string_named() would look at a STRING's text of `n` bytes:
 * the keep-field names (none as long as HS_MAX_NAME) and the histogram's
 * class names, until it has pruned them. */
static int text_wanted(const F *f, uint64_t n)
{
    return (f->caps.keep_names && n < HS_MAX_NAME) ||
           (f->c.opt.histogram && !f->histo.pruned && n <= HS_NAME_TEXT_MAX);
}

/* That STRING `id` holds text[n], for the features that look names up
 * by id; `held`: the string table keeps the text until the STRING is
 * written, and the histogram takes it then (string_emitted) or from there
 * (string_held_text). */
static hs_status names_of(F *f, uint64_t id, const uint8_t *text, size_t n, int held)
{
    if (!text_wanted(f, n))
        return HS_OK;
    if (f->caps.keep_names && n < HS_MAX_NAME)
        HS_TRY(hs_scrub_name(&f->scrub, &f->c, id, text, n));
    if (f->c.opt.histogram && !held)
        HS_TRY(hs_histo_string(&f->histo, &f->c, id, text, n));
    return HS_OK;
}

/* The one notice of every STRING deobf.c writes (hs_deobf.named). Not
 * matched against the keep list: a keep goes by the dump's own names,
 * never by a mapping's (issue #50: a mapping that names an app's class
 * java.lang.String and its field coder keeps nothing). */
static hs_status string_named(void *ctx, uint64_t id, const uint8_t *text, size_t n)
{
    F *f = ctx;

    if (!f->c.opt.histogram || !text_wanted(f, n))
        return HS_OK;
    return hs_histo_string(&f->histo, &f->c, id, text, n);
}

/* A held STRING written (hs_strings.emitted), and one still held, for
 * the histogram (hs_histo.held_text). */
static hs_status string_emitted(void *ctx, uint64_t id, const uint8_t *text, size_t n)
{
    F *f = ctx;

    return hs_histo_string(&f->histo, &f->c, id, text, n);
}

static const uint8_t *string_held_text(void *ctx, uint64_t id, uint32_t *len)
{
    const F *f = ctx;

    return hs_str_held_text(&f->str, id, len);
}

static hs_status string_record(F *f, uint64_t len)
{
    const unsigned i = f->c.idsize;

    if (text_wanted(f, len - i)) {
        const uint8_t *b;
        uint64_t id;
        HS_TRY(hs_need(&f->enc, HS_RECORD_HEADER + (size_t)len, "a STRING record"));
        b = hs_cur(&f->enc) + HS_RECORD_HEADER;
        id = hs_be_id(b, i);
        HS_TRY(names_of(f, id, b + i, (size_t)(len - i),
                        !f->caps.findings && hs_str_will_hold(&f->str, id, len - i)));
    }
    if (f->c.opt.salvage && len - i <= HS_CUT_NAME_MAX) {
        const uint8_t *b;
        HS_TRY(hs_need(&f->enc, HS_RECORD_HEADER + (size_t)len, "a STRING record"));
        b = hs_cur(&f->enc) + HS_RECORD_HEADER;
        hs_cut_string(&f->cut, hs_be_id(b, i), b + i, (size_t)(len - i));
    }
    if (f->caps.findings)
        return string_findings(f, len);
    return hs_str_record(&f->str, &f->enc, len);
}

/* A record of unknown tag under rules that remove values: what it holds
 * cannot be examined, so it is not copied (issue #35). */
static hs_status unknown_dropped(F *f, unsigned tag, uint64_t len)
{
    f->c.st.unknown_records_dropped++;
    if (f->caps.findings)
        HS_TRY(hs_findings_one(&f->fd, &f->c, HS_FIND_RECORD, tag, len, f->c.rec_off));
    HS_TRY(hs_drop(&f->enc, HS_RECORD_HEADER));
    return hs_skip_stream(&f->enc, len, "a record body", NULL);
}

/* Any record but the heap ones and STRING: copied by its length, after the
 * strings it names when unused strings are being dropped. */
static hs_status plain_record(F *f, unsigned tag, uint64_t len)
{
    const unsigned i = f->c.idsize;
    const hs_record_kind *k = &hs_record_kinds[tag];
    unsigned n, j;
    const uint8_t *b;

    n = f->caps.drop_strings ? k->names : 0;
    if (n || tag == HS_TAG_LOAD_CLASS) /* fixed-size bodies */
        HS_TRY(hs_need(&f->enc, HS_RECORD_HEADER + (size_t)len, "a record body"));
    if (n) { /* the STRINGs it names (format.h's HS_RECORDS) */
        const size_t at = HS_RECORD_HEADER + hs_record_names_at(k, i);
        for (j = 0; j < n; j++)
            HS_TRY(hs_str_use(&f->str, &f->enc, hs_be_id(hs_cur(&f->enc) + at + j * i, i)));
    }
    b = hs_cur(&f->enc) + HS_RECORD_HEADER;
    if (tag == HS_TAG_LOAD_CLASS && f->caps.keep_names && !f->caps.deobf)
        HS_TRY(hs_scrub_load_class(&f->scrub, &f->c, hs_be_id(b + 4, i),
                                   hs_be_id(b + 4 + i + 4, i)));
    if (tag == HS_TAG_LOAD_CLASS && f->c.opt.histogram)
        HS_TRY(hs_histo_class(&f->histo, &f->c, hs_be_id(b + 4, i), hs_be_id(b + 4 + i + 4, i)));
    if (tag == HS_TAG_LOAD_CLASS && f->c.opt.salvage)
        HS_TRY(hs_cut_load_class(&f->cut, hs_be_id(b + 4, i), hs_be32(b + 4 + i),
                                 hs_be_id(b + 4 + i + 4, i)));
    if (tag == HS_TAG_LOAD_CLASS && f->caps.findings)
        HS_TRY(hs_findings_class(&f->fd, &f->c, hs_be_id(b + 4, i), hs_be_id(b + 4 + i + 4, i)));
    if (!hs_tag_known(tag)) {
        f->prev_out_pos = hs_enc_out_next(&f->enc);
        if (f->caps.strict)
            return unknown_dropped(f, tag, len);
    }
    return hs_enc_copy_record(&f->enc, len);
}

/* A LOAD_CLASS for the keep list, with the name the dump gave it (before a
 * mapping points it at its own: issue #50). */
static hs_status keep_load_class(F *f, uint64_t len)
{
    const unsigned i = f->c.idsize;
    const uint8_t *b;

    HS_TRY(hs_need(&f->enc, HS_RECORD_HEADER + (size_t)len, "a record body"));
    b = hs_cur(&f->enc) + HS_RECORD_HEADER;
    return hs_scrub_load_class(&f->scrub, &f->c, hs_be_id(b + 4, i), hs_be_id(b + 4 + i + 4, i));
}

/* With a mapping, before a STRING, LOAD_CLASS or STACK_FRAME goes the usual
 * way: a STRING's text is kept when it may be a name (its id checked against
 * the fresh ones); a LOAD_CLASS or STACK_FRAME gets the STRINGs of its
 * original names written first and its ids patched in the window (deobf.h).
 * Out of line: the record loop pays one test without a mapping. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static hs_status deobf_record(F *f, unsigned tag, uint64_t len)
{
    const unsigned i = f->c.idsize;
    const uint8_t *b;
    size_t n;

    if (tag == HS_TAG_STRING) {
        n = len - i <= HS_NAME_TEXT_MAX ? (size_t)(len - i) : 0; /* the id always; short texts */
        HS_TRY(hs_need(&f->enc, HS_RECORD_HEADER + i + n, "a STRING record"));
        b = hs_cur(&f->enc) + HS_RECORD_HEADER;
        return hs_deobf_string(&f->deobf, hs_be_id(b, i), b + i, n);
    }
    if (tag != HS_TAG_LOAD_CLASS && tag != HS_TAG_STACK_FRAME)
        return HS_OK;
    HS_TRY(hs_need(&f->enc, HS_RECORD_HEADER + (size_t)len, "a record body"));
    return hs_deobf_record(&f->deobf, tag, hs_reader_cur_patch(&f->c.rd) + HS_RECORD_HEADER);
}

static hs_status heap_dump_end(F *f)
{
    f->heap_segments = 0;
    if (f->enc.reencode) {
        HS_TRY(hs_heap_finish(f));
        HS_TRY(hs_set_dst(&f->enc, HS_DST_OUT));
        if (!hs_enc_heap_is_open(&f->enc)) {
            /* the heap dump it closed was already closed (or was empty after
             * filtering): a second end would start a new dump */
            return hs_drop(&f->enc, HS_RECORD_HEADER);
        }
    }
    hs_pass(&f->enc, HS_RECORD_HEADER);
    f->c.st.records_out++;
    hs_enc_heap_opened(&f->enc, 0);
    return HS_OK;
}

/* Tag 'J' where a record should start: a second dump appended to the first
 * ("cat a.hprof b.hprof") reads as one unknown record. */
static hs_status second_header(F *f)
{
    static const char magic[] = HS_MAGIC;

    HS_TRY(hs_enc_fill(&f->enc, sizeof magic - 1, "a record header"));
    if (hs_reader_avail(&f->c.rd) >= sizeof magic - 1 &&
        memcmp(hs_cur(&f->enc), magic, sizeof magic - 1) == 0)
        return hs_fail_at(&f->c, HS_E_MALFORMED, f->c.rec_off,
                          "a second HPROF header at byte %llu: two dumps were joined into one "
                          "file (split them, or take the first with head -c %llu)",
                          (unsigned long long)f->c.rec_off, (unsigned long long)f->c.rec_off);
    return HS_OK;
}

static hs_status record(F *f)
{
    const uint8_t *p;
    unsigned tag;
    uint64_t len;

    f->c.rec_off = hs_ctx_offset(&f->c);
    HS_TRY(hs_need(&f->enc, HS_RECORD_HEADER, "a record header"));
    p = hs_cur(&f->enc);
    tag = p[0];
    len = hs_be32(p + 5);
    hs_record_begin(f, tag, len);
    if (tag == 'J')
        HS_TRY(second_header(f));
    HS_TRY(check_record_length(f, tag, len));
    /* HotSpot writes every STRING before the first LOAD_CLASS; a writer
     * that does not writes strings on demand (see strrec.c) */
    if (tag == HS_TAG_LOAD_CLASS)
        f->seen_load_class = 1;
    else if (tag == HS_TAG_STRING && f->seen_load_class)
        f->str.on_demand = 1;
    /* (a HEAP_DUMP_END alone is an empty heap dump: what --salvage writes
     * for a dump cut before its heap dump that named no class) */
    f->seen_profile |= hs_tag_kind(tag) >= HS_REC_PROFILE; /* or END */

    if (tag == HS_TAG_HEAP_DUMP || tag == HS_TAG_HEAP_DUMP_SEGMENT) {
        f->c.st.heap_dumps += tag == HS_TAG_HEAP_DUMP || f->heap_segments == 0;
        HS_TRY(hs_heap_record(f, tag, len));
    } else if (tag == HS_TAG_HEAP_DUMP_END) {
        f->seen_heap_end = 1;
        HS_TRY(heap_dump_end(f));
    } else {
        if (f->enc.reencode) {
            /* a top-level record ends the open segment (held roots stay held) */
            HS_TRY(hs_str_commit(&f->str, &f->enc));
            HS_TRY(hs_enc_seg_close(&f->enc));
            HS_TRY(hs_set_dst(&f->enc, HS_DST_OUT));
            if (f->caps.deobf && tag == HS_TAG_LOAD_CLASS && f->caps.keep_names)
                HS_TRY(keep_load_class(f, len)); /* by its name before the mapping's */
            if (f->caps.deobf) /* a mapping implies re-encoding */
                HS_TRY(deobf_record(f, tag, len));
        }
        if (tag == HS_TAG_STRING)
            HS_TRY(string_record(f, len));
        else
            HS_TRY(plain_record(f, tag, len));
    }
    hs_record_end(f, tag);
    return HS_OK;
}

/* The input ended between records: a segmented heap dump must have been
 * closed by its HEAP_DUMP_END, or the dump was cut after a whole segment
 * and would pass for complete. A file with no heap dump at all is a heap
 * dump cut before its first heap record, unless it holds a record only a
 * profiler writes (the JVMTI hprof agent starts its files with
 * CONTROL_SETTINGS, and writes threads, samples and sites, with or without
 * a heap dump): HotSpot's and ART's dumpers write their names, classes and
 * traces, then the heap dump, always. */
static hs_status check_end(F *f)
{
    uint64_t end = hs_ctx_offset(&f->c);

    f->c.rec_off = UINT64_MAX;
    if (!f->heap_seen && !f->seen_profile)
        return hs_fail_at(&f->c, HS_E_TRUNCATED, end,
                          "input ends after %llu record%s and before any heap dump record, "
                          "with none a profiler writes: the dump was cut before its heap dump",
                          (unsigned long long)f->c.st.records_in,
                          f->c.st.records_in == 1 ? "" : "s");
    if (!f->heap_segments)
        return HS_OK;
    return hs_fail_at(&f->c, HS_E_TRUNCATED, end,
                      "input ends after %d HEAP_DUMP_SEGMENT record%s, but the heap dump has "
                      "no HEAP_DUMP_END: the dump was cut short",
                      f->heap_segments, f->heap_segments == 1 ? "" : "s");
}

static hs_status run(F *f)
{
    HS_TRY(read_header(f));
    for (;;) {
        f->c.rec_off = UINT64_MAX;
        f->c.rec_tag = -1;
        f->c.subtag = -1;
        if (hs_reader_avail(&f->c.rd) == 0) {
            /* the end of the input may only come between records */
            int at_end;
            HS_TRY(hs_enc_at_end(&f->enc, &at_end, "a record header"));
            if (at_end)
                break;
        }
        HS_TRY(record(f));
    }
    HS_TRY(check_end(f));
    if (f->enc.reencode)
        HS_TRY(hs_heap_finish(f));
    /* a heap dump that was empty, or emptied by the rules, is still a heap
     * dump: HEAP_DUMP_END alone (never an empty segment), or the output
     * would read as a dump cut before its heap dump (check_end) */
    if (hs_enc_heap_is_open(&f->enc) ||
        (f->enc.reencode && (f->heap_seen || f->seen_heap_end) && !f->c.st.segments_out))
        HS_TRY(hs_enc_heap_end(&f->enc));
    return hs_enc_flush(&f->enc);
}

/* Adds a warning of the run (hs_filter_warning); past HS_MAX_WARNINGS the
 * rest are left out. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void warn(F *f, const char *fmt, ...)
{
    va_list ap;

    if (f->n_warnings == HS_MAX_WARNINGS)
        return;
    va_start(ap, fmt);
    vsnprintf(f->warnings[f->n_warnings++], sizeof f->warnings[0], fmt, ap);
    va_end(ap);
}

/* keep-field rules given outside a preset that kept nothing: a class or
 * field name misspelt, or a reference field (references are never zeroed).
 * Said at the end, since ART writes class dumps after their instances. */
static void warn_keep_fields(F *f)
{
    uint64_t asked = hs_rules_keep_asked(f->rules);
    const char *name;
    unsigned k;

    for (k = 0; (name = hs_rules_keep_name(f->rules, k)) != NULL; k++) {
        uint64_t bit = 1ull << k;
        if (!(asked & bit))
            continue;
        if (!f->caps.scrub || f->scrub.hide_only) {
            warn(f, "keep-field %s: fields are not zeroed by these rules: nothing to keep", name);
        } else if (!(f->scrub.keep_met & bit)) {
            f->c.st.keep_fields_unmatched++;
            warn(f, "keep-field %s: no class of the dump declares that field", name);
        } else if (f->scrub.keep_refs & bit) {
            f->c.st.keep_fields_reference++;
            warn(f, "keep-field %s: a reference field, which is always kept", name);
        }
    }
}

/* A mapping that renamed nothing is most likely another build's. */
static void warn_mapping(F *f)
{
    const hs_stats *st = &f->c.st;

    if (f->c.opt.obfuscate_names) {
        if (f->deobf.obf.unwritable)
            warn(f,
                 "obfuscating names: a name was kept as it was %llu times: the mapping "
                 "format cannot hold it (a blank or a line end in it, a class starting with "
                 "#, a bracket or dot in a field or method name)",
                 (unsigned long long)f->deobf.obf.unwritable);
        return;
    }
    if (f->caps.deobf && !st->mapping_classes_renamed && !st->mapping_fields_renamed &&
        !st->mapping_frames_renamed)
        warn(f, "the mapping renamed nothing in this dump: is it this build's mapping.txt?");
}

/* --salvage on a dump corrupt in the middle: everything complete before the
 * first bad record is kept, as for a dump cut there. An unknown record just
 * before it, which the error blames, is taken back while it is still ours. */
static hs_status salvage_corrupt(F *f)
{
    char kept[80];

    HS_TRY(hs_span_flush(&f->enc));
    if (f->prev_unknown_tag >= 0 && f->c.err.offset == f->prev_off)
        hs_enc_take_back(&f->enc, f->prev_out_pos);
    snprintf(kept, sizeof kept, "every record before byte %llu was kept",
             (unsigned long long)f->c.err.offset);
    return hs_salvage(f, HS_SALVAGE_DAMAGE, kept);
}

/* The findings named, with the STRINGs still held now: nothing used them. */
static hs_status finish_findings(F *f)
{
    const hs_idmap *m = &f->str.tab.map;
    size_t i;

    for (i = 0; i < m->cap; i++)
        if (m->used[i] && (m->ents[i].val & 3u) == HS_STR_HELD) {
            uint32_t len = 0;
            const uint64_t id = m->ents[i].key;
            (void)hs_strtab_text(&f->str.tab, id, &len);
            HS_TRY(hs_findings_one(&f->fd, &f->c, HS_FIND_STRING_UNUSED, id, len,
                                   hs_findings_string_off(&f->fd, id)));
        }
    return hs_findings_finish(&f->fd, &f->c);
}

/* May a run that patches names write `src`'s data where it lies? Only
 * when it is the bytes of `in`, and the input says they may be written
 * (hs_input_writable); asked only then, as making a mapping writable has
 * a cost. Else they are read through a copy. */
static int may_patch(const hs_source *src, hs_input *in)
{
    uint64_t size = 0;
    const void *data;

    if (!in || !src->data)
        return 0;
    data = hs_input_data(in, &size);
    assert(data == src->data && size == src->size); /* hs_filter_run_on's rule */
    (void)data;
    return hs_input_writable(in);
}

static hs_status filter_run(F *f, const hs_source *src, hs_input *in, const hs_sink *dst)
{
    hs_source copy;
    hs_status s;

    if (!f || !src || (!src->read && !src->data && !src->borrow) || !dst || !dst->write)
        return HS_E_USAGE;
    if (f->ran) {
        if (!f->c.failed)
            hs_fail_plain(&f->c.err, HS_E_USAGE, "a filter runs only once");
        f->c.failed = 1;
        return HS_E_USAGE;
    }
    f->ran = 1;
    if (f->c.opt.obfuscate_names && f->rules->mapping) {
        hs_fail_plain(&f->c.err, HS_E_USAGE,
                      "names are either obfuscated or deobfuscated with a mapping, not both");
        f->c.failed = 1;
        return HS_E_USAGE;
    }
    if (f->caps.deobf) { /* names are patched in the window: see deobf.h */
        hs_deobf_source(&f->deobf, src, may_patch(src, in), &copy);
        src = &copy;
    }
    if (hs_reader_start(&f->c.rd, src) != HS_OK)
        return hs_fail_io(&f->c, HS_E_NOMEM, "");
    HS_TRY(hs_enc_start(&f->enc, dst, f->caps.reencode));
    s = run(f);
    if (s == HS_E_TRUNCATED && f->c.opt.salvage)
        s = hs_salvage(f, HS_SALVAGE_CUT, NULL);
    else if (s == HS_E_MALFORMED && f->c.opt.salvage && f->c.idsize)
        s = salvage_corrupt(f);
    if (f->caps.hashing) { /* the arrays still queued count, whatever the status */
        hs_status d = hs_dups_flush(&f->dups, &f->c);
        if (s == HS_OK || s == HS_SALVAGED)
            s = d != HS_OK ? d : s;
    }
    if (s == HS_OK) { /* a cut dump may have lost what matched */
        warn_keep_fields(f);
        warn_mapping(f);
    }
    if (s == HS_SALVAGED && f->cut.written)
        warn(f,
             "the dump was cut before %llu CLASS_DUMPs%s%s%s: written as classes with no fields "
             "or statics, superclass java.lang.Object, so that analyzers read the objects",
             (unsigned long long)f->cut.written, f->cut.arrays[0] ? " (" : "", f->cut.arrays,
             f->cut.arrays[0] ? ")" : "");
    if ((s == HS_OK || s == HS_SALVAGED) && f->c.opt.histogram)
        HS_TRY(hs_histo_finish(&f->histo, &f->c));
    if ((s == HS_OK || s == HS_SALVAGED) && f->caps.findings)
        HS_TRY(finish_findings(f));
    return s;
}

hs_status hs_filter_run_on(hs_filter *f, const hs_source *src, hs_input *in, const hs_sink *dst)
{
    const int first = f && !f->ran;
    hs_status s = filter_run(f, src, in, dst);

    if (first && f->ran && f->progress) { /* the run's last word */
        hs_stats st;
        stats(f, &st);
        (void)f->progress(f->progress_ctx, st.bytes_in, st.bytes_out);
    }
    return s;
}

hs_status hs_filter_run(hs_filter *f, const hs_source *src, const hs_sink *dst)
{
    /* a caller's source: its bytes are never written */
    return hs_filter_run_on(f, src, NULL, dst);
}

hs_status hs_filter_run_input(hs_filter *f, hs_input *in, const hs_sink *dst)
{
    /* the usage errors before the source is made, which starts the input's
     * threads */
    if (!f || !in || !dst || !dst->write)
        return HS_E_USAGE;
    return hs_filter_run_on(f, hs_input_source(in), in, dst);
}

hs_status hs_filter_obfuscation_map(const hs_filter *f, const hs_sink *dst)
{
    if (!f || !dst || !dst->write || !f->c.opt.obfuscate_names || !f->ran)
        return HS_E_USAGE;
    return hs_obf_write(&f->deobf.obf, dst);
}
