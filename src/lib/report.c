/* SPDX-License-Identifier: Apache-2.0 */
/*
 * report.c - the JSON report of a run, for pipelines (the CLI's --stats=json
 * and --stats-file, hs_job_run's report), and the table of outcomes. It
 * lists the counters from HS_STATS_COUNTERS, so it cannot miss one.
 */
#define _POSIX_C_SOURCE 200809L
#include <assert.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "hs_limits.h"
#include "report.h"
#include "sized.h"

#define U(x) ((unsigned long long)(x))

/* Element type names for the duplicate report, in JSON and in the CLI's
 * table: the primitive types' (format.h), "" for another code, "?" past the
 * last. */
HS_API const char *hs_basic_type_name(unsigned t)
{
    if (hs_prim_size(t))
        return hs_type_name(t);
    return t < HS_TYPE_CODES ? "" : "?";
}

HS_STATIC_API void hs_report_note_rules(hs_report *r, int is_file, const char *arg)
{
    if (r && r->n_rules < HS_REPORT_MAX_RULES) {
        r->rule_arg[r->n_rules] = arg;
        r->rule_is_file[r->n_rules++] = (char)is_file;
    }
}

/* Says a message through the caller's hook, which may rewrite it in place
 * (the library prints nothing of its own). */
static void say(hs_report *r, hs_message_kind kind, hs_status code, const hs_error *where,
                char *text, size_t cap)
{
    if (r->say)
        r->say(r->say_ctx, kind, code, where, text, cap);
}

/* Room a message hook may grow a message by in place (the CLI names its
 * options: "(salvage " becomes "(--salvage "). */
#define MESSAGE_SLACK 64

/* Copies what fits of `text` into the fixed `dst`, ending on a whole UTF-8
 * character: hs_error's 320 bytes are a summary, the report keeps all. */
static void copy_fitting(char *dst, size_t cap, const char *text)
{
    size_t n = strlen(text);

    if (n >= cap) {
        n = cap - 1;
        while (n > 0 && ((unsigned char)text[n] & 0xC0) == 0x80)
            n--; /* text[n] would be a continuation byte: cut before it */
    }
    memcpy(dst, text, n);
    dst[n] = '\0';
}

/* The whole of a printf message in fresh memory with MESSAGE_SLACK bytes
 * to spare (*cap: its size), or NULL when there is no memory for it. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 0)))
#endif
static char *format_whole(size_t *cap, const char *fmt, va_list ap)
{
    va_list aq;
    int n;
    char *m;

    va_copy(aq, ap);
    n = vsnprintf(NULL, 0, fmt, aq);
    va_end(aq);
    if (n < 0)
        return NULL;
    *cap = (size_t)n + 1 + MESSAGE_SLACK;
    m = malloc(*cap);
    if (m)
        vsnprintf(m, *cap, fmt, ap);
    return m;
}

#if defined(__GNUC__)
__attribute__((format(printf, 5, 0)))
#endif
static void record(hs_report *r, hs_status code, const hs_error *where, hs_message_kind kind,
                   const char *fmt, va_list ap)
{
    size_t cap = 0;
    va_list aq;

    if (where) {
        r->error = *where;
    } else {
        memset(&r->error, 0, sizeof r->error);
        r->error.offset = r->error.record_offset = UINT64_MAX;
        r->error.tag = r->error.subtag = -1;
    }
    r->error.code = code;
    r->cli_status = NULL;
    r->has_error = 1;
    free(r->message);
    va_copy(aq, ap);
    r->message = format_whole(&cap, fmt, aq);
    va_end(aq);
    if (r->message) { /* never cut: the hook and the JSON see all of it */
        say(r, kind, code, where, r->message, cap);
        copy_fitting(r->error.message, sizeof r->error.message, r->message);
    } else { /* no memory: what fits */
        vsnprintf(r->error.message, sizeof r->error.message, fmt, ap);
        say(r, kind, code, where, r->error.message, sizeof r->error.message);
    }
}

HS_STATIC_API int hs_report_fail(hs_report *r, hs_status code, const hs_error *where,
                                 const char *fmt, ...)
{
    va_list ap;

    if (!r)
        return hs_status_exit(code);
    va_start(ap, fmt);
    record(r, code, where, HS_MSG_ERROR, fmt, ap);
    va_end(ap);
    return hs_status_exit(code);
}

void hs_report_salvage(hs_report *r, hs_status code, const hs_error *where, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    record(r, code, where, HS_MSG_SALVAGED, fmt, ap);
    va_end(ap);
}

/* The JSON's copy of warning `m`: whole up to HS_REPORT_WARNING_MAX bytes
 * (NUL included), in fresh memory; NULL when there is none for it. */
static char *warning_copy(const char *m)
{
    size_t n = strlen(m) + 1;
    char *w = malloc(n < HS_REPORT_WARNING_MAX ? n : HS_REPORT_WARNING_MAX);

    if (w)
        copy_fitting(w, n < HS_REPORT_WARNING_MAX ? n : HS_REPORT_WARNING_MAX, m);
    return w;
}

HS_STATIC_API void hs_report_warn(hs_report *r, const char *fmt, ...)
{
    char w[HS_WARNING_MAX], *m, *kept;
    size_t cap = 0;
    va_list ap;

    if (!r)
        return;
    va_start(ap, fmt);
    m = format_whole(&cap, fmt, ap);
    va_end(ap);
    if (m) { /* said whole (a long path in it), and so kept for the JSON */
        say(r, HS_MSG_WARNING, HS_OK, NULL, m, cap);
        kept = r->n_warnings < HS_REPORT_MAX_WARNINGS ? warning_copy(m) : NULL;
        free(m);
    } else { /* no memory: what fits, said only */
        va_start(ap, fmt);
        vsnprintf(w, sizeof w, fmt, ap);
        va_end(ap);
        say(r, HS_MSG_WARNING, HS_OK, NULL, w, sizeof w);
        kept = NULL;
    }
    if (kept) /* when full, said only */
        r->warnings[r->n_warnings++] = kept;
}

void hs_report_note(hs_report *r, const char *fmt, ...)
{
    char w[sizeof r->error.message], *m;
    size_t cap = 0;
    va_list ap;

    va_start(ap, fmt);
    m = format_whole(&cap, fmt, ap);
    va_end(ap);
    if (m) {
        say(r, HS_MSG_NOTE, HS_OK, NULL, m, cap);
        free(m);
        return;
    }
    va_start(ap, fmt);
    vsnprintf(w, sizeof w, fmt, ap);
    va_end(ap);
    say(r, HS_MSG_NOTE, HS_OK, NULL, w, sizeof w);
}

/* ---- the report as an object (hprof_strip.h) ------------------------------- */

HS_API hs_report *hs_report_create(void)
{
    return calloc(1, sizeof(hs_report));
}

HS_API void hs_report_free(hs_report *r)
{
    if (!r)
        return;
    hs_report_clear(r);
    free(r);
}

HS_API void hs_report_set_messages(hs_report *r, hs_message_fn fn, void *ctx)
{
    if (r) {
        r->say = fn;
        r->say_ctx = ctx;
    }
}

HS_API const hs_error *hs_report_error(const hs_report *r)
{
    return r && r->has_error ? &r->error : NULL;
}

HS_API int hs_report_file_bytes(const hs_report *r, uint64_t *in_bytes, uint64_t *out_bytes)
{
    if (!r)
        return 0;
    /* a plain input's raw count is what the reader took, not the file */
    if (in_bytes && r->in_known)
        *in_bytes = r->in_format == HS_COMPRESS_NONE ? r->st.bytes_in : r->in_raw;
    if (out_bytes && r->out_known)
        *out_bytes = r->out_raw;
    return (r->in_known ? 1 : 0) | (r->out_known ? 2 : 0);
}

HS_API const char *hs_report_message(const hs_report *r)
{
    if (!r || !r->has_error)
        return NULL;
    return r->message ? r->message : r->error.message;
}

HS_API size_t hs_report_stats(const hs_report *r, hs_stats *st, size_t size)
{
    return r && st ? hs_sized_fill(st, size, &r->st, sizeof r->st) : 0;
}

HS_API int hs_report_output_kept(const hs_report *r)
{
    return r ? r->output_kept : 0;
}

HS_STATIC_API void hs_report_set_output_kept(hs_report *r, int kept)
{
    if (r)
        r->output_kept = kept != 0;
}

HS_API int hs_report_ran(const hs_report *r)
{
    return r ? r->ran : 0;
}

HS_API size_t hs_report_histogram(const hs_report *r, const hs_class_count **rows, int *per_heap)
{
    if (rows)
        *rows = r ? r->histo : NULL;
    if (per_heap)
        *per_heap = r ? r->histo_heaps : 0;
    return r ? r->n_histo : 0;
}

HS_API size_t hs_report_findings(const hs_report *r, const hs_finding **rows)
{
    if (rows)
        *rows = r ? r->findings : NULL;
    return r ? r->n_findings : 0;
}

HS_API int hs_report_audit_verdict(const hs_report *r)
{
    return r && r->audited ? r->audit_clean != 0 : -1;
}

HS_STATIC_API void hs_report_set_audit(hs_report *r, int audit)
{
    if (r)
        r->audit_run = audit != 0;
}

HS_STATIC_API void hs_report_set_times(hs_report *r, double wall, double user, double sys)
{
    if (!r)
        return;
    if (wall >= 0)
        r->wall = wall;
    if (user >= 0)
        r->user = user;
    if (sys >= 0)
        r->sys = sys;
}

HS_STATIC_API void hs_report_fail_other(hs_report *r, const char *status, int retryable,
                                        const char *signal, const char *fmt, ...)
{
    va_list ap;

    if (!r)
        return;
    va_start(ap, fmt);
    record(r, HS_OK, NULL, HS_MSG_ERROR, fmt, ap); /* HS_OK: no library status */
    va_end(ap);
    r->cli_status = status;
    r->cli_retryable = retryable != 0;
    r->cli_signal = signal;
}

/* ---- JSON ---------------------------------------------------------------- */

/* The length of the well-formed UTF-8 sequence at p (1 to 4), or 0 when
 * it is not one: then *bad is the length of its maximal ill-formed part
 * (at least 1), which gets one U+FFFD, as Unicode's "substitution of
 * maximal subparts" (and Python's errors="replace") has it. Overlong
 * forms, surrogates and code points past U+10FFFF are ill-formed. */
static size_t utf8_len(const unsigned char *p, size_t *bad)
{
    unsigned char c = p[0], lo = 0x80, hi = 0xbf;
    size_t n, i;

    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf)
        n = 2;
    else if (c >= 0xe0 && c <= 0xef)
        n = 3, lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
    else if (c >= 0xf0 && c <= 0xf4)
        n = 4, lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
    else
        n = 0;
    for (i = 1; i < n; i++) { /* the string's NUL stops this too */
        unsigned char d = p[i];
        if (d < (i == 1 ? lo : 0x80) || d > (i == 1 ? hi : 0xbf))
            break;
    }
    if (n && i == n)
        return n;
    *bad = i;
    return 0;
}

/* The one writer of a JSON string the report did not make itself (names,
 * messages, a caller's words): quotes, backslashes and control characters
 * escaped, each ill-formed UTF-8 part replaced by U+FFFD, so that the
 * document is JSON whatever bytes a file name or a dump holds. NULL is
 * null. Returns 1 when something was replaced (the caller may flag the
 * value: hprof-strip-report(5)), else 0. */
static int json_str(FILE *fp, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    int replaced = 0;

    if (!s) {
        fputs("null", fp);
        return 0;
    }
    fputc('"', fp);
    while (*p) {
        size_t bad = 0, n = utf8_len(p, &bad);
        if (n == 0) {
            fputs("\\ufffd", fp);
            replaced = 1;
            p += bad;
        } else if (*p == '"' || *p == '\\') {
            fprintf(fp, "\\%c", *p++);
        } else if (*p < 0x20 || *p == 0x7f) {
            fprintf(fp, "\\u%04x", *p++);
        } else {
            fwrite(p, 1, n, fp);
            p += n;
        }
    }
    fputc('"', fp);
    return replaced;
}

/* "KEY":STRING, and "KEY_invalid_utf8":true after it when the string
 * held bytes that are not UTF-8 (replaced), for the names a pipeline acts
 * on: a file's, a class's. */
static void json_name(FILE *fp, const char *key, const char *s, int first)
{
    fprintf(fp, "%s\"%s\":", first ? "" : ",", key);
    if (json_str(fp, s))
        fprintf(fp, ",\"%s_invalid_utf8\":true", key);
}

/* An offset, or null where there is none (`none` is the sentinel). */
static void json_off(FILE *fp, uint64_t v, uint64_t none)
{
    if (v == none)
        fputs("null", fp);
    else
        fprintf(fp, "%llu", U(v));
}

/* The one table of outcomes: a library status, the exit code, the
 * report's name for it (stable: pipelines switch on it), and whether the
 * same command run again may succeed. A read or write failure may be the
 * disk's or the network's of the moment, and memory may be free next time;
 * the input's own faults, a cap the command sets, and a wrong command line
 * stay what they are. An input that is not a heap dump (a zip, an xz file)
 * is "unsupported", exit 1: never "read", which a retry policy retries. */
static const struct {
    hs_status code;
    int exit_code;
    const char *name;
    int retryable;
} g_outcomes[] = {
    {HS_OK, EXIT_OK, "ok", 0},
    {HS_SALVAGED, EXIT_SALVAGED, "salvaged", 0},
    {HS_E_MALFORMED, EXIT_BAD_INPUT, "malformed", 0},
    {HS_E_UNSUPPORTED, EXIT_BAD_INPUT, "unsupported", 0},
    {HS_E_USAGE, EXIT_USAGE, "usage", 0},
    {HS_E_TRUNCATED, EXIT_TRUNCATED, "truncated", 0},
    {HS_E_READ, EXIT_IO, "read", 1},
    {HS_E_WRITE, EXIT_IO, "write", 1},
    {HS_E_LIMIT, EXIT_LIMIT, "limit", 0},
    {HS_E_NOMEM, EXIT_LIMIT, "nomem", 1},
    /* the library's alone (hs_filter_cancel, hs_job's progress callback
     * returning non-zero): the command never cancels a run, a signal stops
     * it ("signal"); a program that reports with this table gets a name
     * and a code of its own for it */
    {HS_E_CANCELLED, EXIT_CANCELLED, "cancelled", 1},
};
#define N_OUTCOMES (sizeof g_outcomes / sizeof g_outcomes[0])

static size_t outcome(hs_status s)
{
    size_t i;

    for (i = 0; i < N_OUTCOMES; i++)
        if (g_outcomes[i].code == s)
            return i;
    return 2; /* not a status of this library version: the input's fault */
}

HS_API int hs_status_exit(hs_status s)
{
    return g_outcomes[outcome(s)].exit_code;
}

HS_API const char *hs_status_name(hs_status s)
{
    return g_outcomes[outcome(s)].name;
}

HS_API int hs_status_retryable(hs_status s)
{
    return g_outcomes[outcome(s)].retryable;
}

HS_API hs_status hs_status_of_exit(int exit_code)
{
    size_t i;

    for (i = 0; i < N_OUTCOMES; i++)
        if (g_outcomes[i].exit_code == exit_code)
            return g_outcomes[i].code;
    return HS_E_MALFORMED;
}

static void json_error(FILE *fp, const hs_report *r)
{
    const hs_error *e = &r->error;

    if (!r->has_error) {
        fputs("null", fp);
        return;
    }
    if (r->cli_status) { /* the caller's words: escaped as any */
        fputs("{\"code\":null,\"status\":", fp);
        json_str(fp, r->cli_status);
        fprintf(fp, ",\"retryable\":%s,\"signal\":", r->cli_retryable ? "true" : "false");
        json_str(fp, r->cli_signal);
        fputs(",\"offset\":", fp);
    } else
        fprintf(fp, "{\"code\":%d,\"status\":\"%s\",\"retryable\":%s,\"signal\":null,"
                    "\"offset\":",
                (int)e->code, hs_status_name(e->code),
                hs_status_retryable(e->code) ? "true" : "false");
    json_off(fp, e->offset, UINT64_MAX);
    fputs(",\"record_offset\":", fp);
    json_off(fp, e->record_offset, UINT64_MAX);
    fputs(",\"tag\":", fp);
    json_off(fp, e->tag < 0 ? UINT64_MAX : (uint64_t)e->tag, UINT64_MAX);
    fputs(",\"subtag\":", fp);
    json_off(fp, e->subtag < 0 ? UINT64_MAX : (uint64_t)e->subtag, UINT64_MAX);
    fputs(",\"message\":", fp);
    json_str(fp, r->message ? r->message : e->message);
    fputc('}', fp);
}

/* A side's "sha256": the file's bytes as read or written, and the HPROF
 * in them, each with how many bytes it covers. */
static void json_digests(FILE *fp, int hashed, const hs_digest *file, const hs_digest *hprof)
{
    if (!hashed) {
        fputs("null", fp);
        return;
    }
    fprintf(fp, "{\"file\":\"%s\",\"file_bytes\":%llu,\"hprof\":\"%s\",\"hprof_bytes\":%llu}",
            file->hex, U(file->bytes), hprof->hex, U(hprof->bytes));
}

/* "input"/"output": HPROF bytes, and the file's own bytes when compressed;
 * their digests when `hashed`; `kept` (-1 for the input): whether the
 * output's name holds this run's complete dump. */
static void json_side(FILE *fp, const char *name, uint64_t hprof, int known,
                      const char *compression, uint64_t raw, int hashed, const hs_digest *file_sha,
                      const hs_digest *hprof_sha, int kept)
{
    fputc('{', fp);
    json_name(fp, "name", name, 1);
    fprintf(fp, ",\"hprof_bytes\":%llu,\"compressed_bytes\":", U(hprof));
    json_off(fp, known && compression ? raw : UINT64_MAX, UINT64_MAX);
    fputs(",\"compression\":", fp);
    json_str(fp, known ? compression : NULL);
    fputs(",\"sha256\":", fp);
    json_digests(fp, hashed, file_sha, hprof_sha);
    if (kept >= 0)
        fprintf(fp, ",\"kept\":%s", kept ? "true" : "false");
    fputc('}', fp);
}

static void json_rules(FILE *fp, const hs_report *r, int audit)
{
    int i, n = 0;

    /* what the run applied, given or not (main.c notes the base preset) */
    fputs("\"presets\":[", fp);
    if (audit)
        fputs("\"privacy\"", fp), n++;
    for (i = 0; i < r->n_rules && !audit; i++)
        if (!r->rule_is_file[i]) {
            fputs(n++ ? "," : "", fp);
            json_str(fp, r->rule_arg[i]);
        }
    fputs("],\"rule_files\":[", fp);
    for (i = 0, n = 0; i < r->n_rules && !audit; i++)
        if (r->rule_is_file[i]) {
            fputs(n++ ? "," : "", fp);
            json_str(fp, r->rule_arg[i]);
        }
    fputc(']', fp);
}

static void json_dups(FILE *fp, const hs_stats *st)
{
    unsigned t, j;

    fputs("\"duplicates\":{", fp);
    for (t = 4; t < 12; t++)
        fprintf(fp, "%s\"%s\":{\"arrays\":%llu,\"bytes\":%llu}", t == 4 ? "" : ",",
                hs_basic_type_name(t), U(st->dup_arrays[t]), U(st->dup_bytes[t]));
    fputs("},\"duplicates_top\":[", fp);
    for (j = 0; j < 5 && st->dup_top[j].copies; j++)
        fprintf(fp, "%s{\"type\":\"%s\",\"length_bytes\":%llu,\"copies\":%llu,\"wasted\":%llu}",
                j ? "," : "", hs_basic_type_name(st->dup_top[j].type), U(st->dup_top[j].length_bytes),
                U(st->dup_top[j].copies), U(st->dup_top[j].wasted));
    fputc(']', fp);
}

/* Every finding, each with its kind, name, id, counts and first offset. */
static void json_findings(FILE *fp, const hs_report *r)
{
    size_t i;

    for (i = 0; i < r->n_findings; i++) {
        const hs_finding *x = &r->findings[i];
        fprintf(fp, "%s{\"kind\":\"%s\"", i ? "," : "", hs_report_finding_kind(x->kind));
        json_name(fp, "name", x->name, 0);
        fprintf(fp, ",\"id\":%llu,\"count\":%llu,\"bytes\":%llu,\"first_offset\":%llu}",
                U(x->id), U(x->count), U(x->bytes), U(x->first_offset));
    }
}

/* The verifier's verdict and figures (verify.c), never the filter's. */
static void json_audit(FILE *fp, const hs_report *r)
{
    const hs_audit_figures *a = &r->audit;

    if (!r->audited) {
        fputs("null", fp);
        return;
    }
    fprintf(fp, "{\"clean\":%s,\"nonzero_array_bytes\":%llu,\"first_nonzero_array\":",
            r->audit_clean ? "true" : "false", U(a->nonzero_array_bytes));
    json_off(fp, a->first_nonzero_array, 0);
    fprintf(fp, ",\"nonzero_field_bytes\":%llu,\"first_nonzero_field\":",
            U(a->nonzero_field_bytes));
    json_off(fp, a->first_nonzero_field, 0);
    fprintf(fp, ",\"unused_strings\":%llu", U(a->unused_strings));
    fprintf(fp, ",\"unknown_records\":%llu,\"nonzero_string_bytes\":%llu",
            U(a->unknown_records), U(a->long_string_bytes));
    fprintf(fp, ",\"reserved_ids\":%llu,\"container_findings\":%llu,\"kept_bytes\":%llu",
            U(a->reserved_ids), U(a->container_findings), U(a->kept_bytes));
    fputs(",\"verifier\":", fp);
    json_str(fp, "hprof-strip " HS_VERSION_STRING);
    fputs(",\"kept_on_purpose\":", fp);
    json_str(fp, HS_AUDIT_KEPT);
    fputs(",\"findings\":[", fp);
    json_findings(fp, r);
    fputs("]}", fp);
}

HS_API size_t hs_report_audit_figures(const hs_report *r, hs_audit_figures *out, size_t size)
{
    size_t n = size < sizeof *out ? size : sizeof *out;

    if (!out)
        return 0;
    memset(out, 0, size);
    if (r)
        memcpy(out, &r->audit, n);
    return n;
}

int hs_report_keep_histogram(hs_report *r, const hs_class_count *rows, size_t n, int heaps)
{
    size_t i;

    r->histo = calloc(n ? n : 1, sizeof *r->histo);
    if (!r->histo)
        return -1;
    for (i = 0; i < n; i++) {
        r->histo[i] = rows[i];
        size_t len = strlen(rows[i].name) + 1;
        char *name = malloc(len);
        if (!name)
            return -1;
        r->histo[i].name = memcpy(name, rows[i].name, len);
        r->n_histo = i + 1;
    }
    r->histo_heaps = heaps;
    return 0;
}

const char *hs_report_finding_kind(int kind)
{
    static const char *const names[] = {"field",  "static", "constant",      "class",
                                        "array",  "record", "unused_string", "long_string",
                                        "reserved_ids", "container"};

    return kind >= 0 && (size_t)kind < sizeof names / sizeof names[0] ? names[kind] : "other";
}

int hs_report_keep_findings(hs_report *r, const hs_finding *rows, size_t n)
{
    size_t i;

    r->findings = calloc(n ? n : 1, sizeof *r->findings);
    if (!r->findings)
        return -1;
    for (i = 0; i < n; i++) {
        size_t len = strlen(rows[i].name) + 1;
        char *name = malloc(len);
        if (!name)
            return -1;
        r->findings[i] = rows[i];
        r->findings[i].name = memcpy(name, rows[i].name, len);
        r->n_findings = i + 1;
    }
    return 0;
}

void hs_report_clear(hs_report *r)
{
    size_t i;

    free(r->message);
    r->message = NULL;
    for (i = 0; i < (size_t)r->n_warnings; i++)
        free(r->warnings[i]);
    r->n_warnings = 0;
    for (i = 0; i < r->n_findings; i++)
        free((char *)(uintptr_t)r->findings[i].name);
    free(r->findings);
    r->findings = NULL;
    r->n_findings = 0;
    for (i = 0; i < r->n_histo; i++)
        free((char *)(uintptr_t)r->histo[i].name);
    free(r->histo);
    r->histo = NULL;
    r->n_histo = 0;
}

void hs_report_begin_run(hs_report *r)
{
    static const hs_report zero;
    const char *args[HS_REPORT_MAX_RULES];
    char is_file[HS_REPORT_MAX_RULES], *warnings[HS_REPORT_MAX_WARNINGS];
    int n_rules, n_warnings;
    hs_message_fn hook;
    void *hook_ctx;

    if (!r->ended)
        return;
    assert(r->rules_at_end <= r->n_rules && r->warnings_at_end <= r->n_warnings);
    n_rules = r->n_rules - r->rules_at_end;
    n_warnings = r->n_warnings - r->warnings_at_end;
    memcpy(args, r->rule_arg + r->rules_at_end, (size_t)n_rules * sizeof *args);
    memcpy(is_file, r->rule_is_file + r->rules_at_end, (size_t)n_rules);
    memcpy(warnings, r->warnings + r->warnings_at_end, (size_t)n_warnings * sizeof warnings[0]);
    r->n_warnings = r->warnings_at_end; /* the next run's are moved, not freed */
    hook = r->say;
    hook_ctx = r->say_ctx;
    hs_report_clear(r);
    *r = zero; /* whatever a later field is, the last run's goes */
    memcpy(r->rule_arg, args, (size_t)n_rules * sizeof *args);
    memcpy(r->rule_is_file, is_file, (size_t)n_rules);
    memcpy(r->warnings, warnings, (size_t)n_warnings * sizeof warnings[0]);
    r->n_rules = n_rules;
    r->n_warnings = n_warnings;
    r->say = hook;
    r->say_ctx = hook_ctx;
}

void hs_report_end_run(hs_report *r)
{
    r->ended = 1;
    r->rules_at_end = r->n_rules;
    r->warnings_at_end = r->n_warnings;
}

static int by_bytes_out(const void *a, const void *b)
{
    const hs_class_count *x = *(const hs_class_count *const *)a;
    const hs_class_count *y = *(const hs_class_count *const *)b;

    if (x->bytes_out != y->bytes_out)
        return x->bytes_out < y->bytes_out ? 1 : -1;
    return x->instances_out < y->instances_out ? 1 : x->instances_out > y->instances_out ? -1 : 0;
}

/* "histogram": {"input": [...], "output": [...]}: every class with
 * instances on that side, most bytes first. */
static void json_histogram(FILE *fp, const hs_report *r)
{
    const hs_class_count **order = NULL;
    size_t i, k, n = 0;
    int side;

    fputs(",\"histogram\":", fp);
    if (r->histo)
        order = malloc((r->n_histo ? r->n_histo : 1) * sizeof *order);
    if (!order) { /* not asked for (or no memory to sort) */
        fputs("null", fp);
        return;
    }
    fputc('{', fp);
    for (side = 0; side < 2; side++) {
        fputs(side ? ",\"output\":[" : "\"input\":[", fp);
        for (i = n = 0; i < r->n_histo; i++)
            if (side ? r->histo[i].instances_out : r->histo[i].instances_in)
                order[n++] = &r->histo[i];
        if (side)
            qsort(order, n, sizeof *order, by_bytes_out);
        for (k = 0; k < n; k++) {
            fputs(k ? ",{" : "{", fp);
            json_name(fp, "class", order[k]->name, 1);
            fprintf(fp, ",\"instances\":%llu,\"bytes\":%llu",
                    U(side ? order[k]->instances_out : order[k]->instances_in),
                    U(side ? order[k]->bytes_out : order[k]->bytes_in));
            if (r->histo_heaps)
                fprintf(fp, ",\"heap\":\"%s\"", hs_heap_name(order[k]->heap));
            fputc('}', fp);
        }
        fputc(']', fp);
    }
    fputc('}', fp);
    free(order);
}

/* The document up to "exit_status": (hs_report_json_parts' head). */
static void json_head(FILE *fp, const hs_report *r)
{
    fprintf(fp, "{\"schema\":%d,\"tool\":{\"name\":\"hprof-strip\",\"version\":",
            HS_REPORT_SCHEMA);
    json_str(fp, HS_VERSION_STRING);
    fprintf(fp, "},\"mode\":\"%s\",\"exit_status\":", r->audit_run ? "audit" : "filter");
}

/* The document from the comma after "error" on; `histogram` 0: null there. */
static void json_tail(FILE *fp, const hs_report *r, const char *in_name, const char *out_name,
                      int histogram)
{
    const hs_stats *st = &r->st;
    const int audit = r->audit_run;
    const char *sep = "";
    int i;

    fputs(",\"input\":", fp);
    json_side(fp, in_name, st->bytes_in, r->in_known,
              hs_compression_name(r->in_format),
              r->in_raw, r->in_hashed, &r->in_sha, &r->in_hprof_sha, -1);
    fputs(",\"output\":", fp);
    if (audit)
        fputs("null", fp);
    else
        json_side(fp, out_name, st->bytes_out, r->out_known,
                  hs_compression_name(r->out_format),
                  r->out_raw, r->out_hashed, &r->out_sha, &r->out_hprof_sha,
                  r->output_kept);
    fputc(',', fp);
    json_rules(fp, r, audit);
    fprintf(fp, ",\"time\":{\"wall_seconds\":%.6f,\"user_seconds\":%.6f,\"sys_seconds\":%.6f}",
            r->wall, r->user, r->sys);
    fputs(",\"counters\":{", fp);
#define JSON_(name, kind, what)                                                 \
    fprintf(fp, "%s\"%s\":", sep, #name);                                       \
    json_off(fp, st->name, kind == HS_OFFSET ? 0 : UINT64_MAX);                 \
    sep = ",";
    HS_STATS_COUNTERS(JSON_)
#undef JSON_
    fputs("},", fp);
    json_dups(fp, st);
    fputs(",\"warnings\":[", fp);
    for (i = 0; i < r->n_warnings; i++) {
        fputs(i ? "," : "", fp);
        json_str(fp, r->warnings[i]);
    }
    fputc(']', fp);
    if (histogram)
        json_histogram(fp, r);
    else
        fputs(",\"histogram\":null", fp);
    fputs(",\"audit\":", fp);
    json_audit(fp, r);
    fputs("}\n", fp);
}

static int write_json(FILE *fp, const hs_report *r, int exit_status, const char *in_name,
                      const char *out_name)
{
    json_head(fp, r);
    fprintf(fp, "%d,\"error\":", exit_status);
    json_error(fp, r);
    json_tail(fp, r, in_name, out_name, 1);
    return fflush(fp) == 0 && !ferror(fp) ? 0 : -1;
}

/* ---- the document, as a caller renders it ----------------------------------- */

HS_STATIC_API char *hs_report_json_parts(const hs_report *r, const char *in_name,
                                         const char *out_name, size_t *head_len)
{
    char *doc = NULL;
    size_t len = 0;
    long head;
    FILE *fp;

    if (!r || !head_len || !(fp = open_memstream(&doc, &len)))
        return NULL;
    json_head(fp, r);
    head = ftell(fp);
    json_tail(fp, r, in_name, out_name, 0); /* the histogram is made at the end only */
    if (fclose(fp) != 0 || head <= 0) {
        free(doc);
        return NULL;
    }
    *head_len = (size_t)head;
    return doc;
}

HS_API char *hs_report_json(const hs_report *r, int exit_status, const char *in_name,
                            const char *out_name)
{
    char *doc = NULL;
    size_t len = 0;
    FILE *fp;
    int bad;

    if (!r || !(fp = open_memstream(&doc, &len)))
        return NULL;
    bad = write_json(fp, r, exit_status, in_name, out_name);
    if (fclose(fp) != 0 || bad) {
        free(doc);
        return NULL;
    }
    return doc;
}
