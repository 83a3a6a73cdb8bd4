/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_report_api.c - the report as an object and hs_job's hooks (0.6),
 * which the CLI's own run is made of: a report the caller made is filled
 * by the job and renders the document hs_job_run's `report` argument
 * gives; each message goes through the hook, which may rewrite it, and
 * what it wrote is what the report keeps; the library's own words name no
 * option; started comes before a byte is read, snapshot while the run
 * goes, finished only after a run that worked, its return the exit code.
 */
#define _DEFAULT_SOURCE
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "helpers.h"
/* the command's report calls too (the suite links libhprofstrip.a) */
#define HS_STATIC_LINKING_ONLY
#include "hprof_strip_static.h"
#include "hs_port.h"

#define DUMP "fixtures/jvm17-64bit.hprof"

static int has(const char *doc, const char *what)
{
    return doc && strstr(doc, what) != NULL;
}

/* A report without its timing (the "time" object), which two runs never
 * share: what comes before it and what comes after. */
static char *untimed(const char *doc)
{
    const char *a = strstr(doc, "\"time\":{"), *b = a ? strchr(a, '}') : NULL;
    char *out;

    cr_assert(a && b, "no time in %s", doc);
    out = malloc(strlen(doc) + 1);
    cr_assert(out);
    memcpy(out, doc, (size_t)(a - doc));
    strcpy(out + (a - doc), b + 1);
    return out;
}

typedef struct {
    int started, snapshots, finished, messages;
    int snapshot_before_start;
    uint64_t read_at_start;     /* bytes_in when started was called */
    uint64_t last_snapshot_in;  /* bytes_in of the last snapshot */
    hs_message_kind kinds[8];
    hs_status codes[8];
    char texts[8][600];
    int finish_rc;              /* finished's return: -1 keeps the run's */
    hs_report *report;
} hooks;

static void on_start(void *ctx, hs_input *in)
{
    hooks *h = ctx;
    hs_stats st;

    cr_assert(in);
    h->started++;
    hs_report_stats(h->report, &st, sizeof st);
    h->read_at_start = st.bytes_in;
}

static void on_snapshot(void *ctx, const hs_report *r)
{
    hooks *h = ctx;
    hs_stats st;

    cr_assert_eq(r, h->report, "the snapshot is the caller's report");
    if (!h->started)
        h->snapshot_before_start = 1;
    h->snapshots++;
    hs_report_stats(r, &st, sizeof st);
    cr_assert_geq(st.bytes_in, h->last_snapshot_in, "counts only grow");
    h->last_snapshot_in = st.bytes_in;
    cr_assert_null(hs_report_error(r), "no error while the run goes");
}

static int on_finish(void *ctx, const hs_filter *filter, int rc)
{
    hooks *h = ctx;
    hs_stats st;

    cr_assert(filter);
    hs_filter_stats_ex(filter, &st, sizeof st);
    cr_assert_gt(st.bytes_in, 0);
    h->finished++;
    if (h->finish_rc < 0)
        return rc;
    return hs_report_fail(h->report, HS_E_WRITE, NULL, "the caller's own step failed");
}

static void on_message(void *ctx, hs_message_kind kind, hs_status code, const hs_error *where,
                       char *text, size_t cap)
{
    hooks *h = ctx;
    int i = h->messages++;

    (void)where;
    cr_assert_lt(i, 8);
    h->kinds[i] = kind;
    h->codes[i] = code;
    snprintf(h->texts[i], sizeof h->texts[i], "%s", text);
    if (kind == HS_MSG_ERROR) /* what the report then keeps */
        snprintf(text, cap, "REWRITTEN: %s", h->texts[i]);
}

/* Runs `job` over `n` bytes of memory into `sink`, uncompressed. */
static int run_on(const hs_job *job, const uint8_t *p, size_t n, mem_sink *sink)
{
    hs_input *in = hs_input_open_memory(p, n, NULL);
    hs_output *out = hs_output_open_write(mem_write, sink, HS_COMPRESS_NONE, 0, 1, NULL);
    int rc;

    cr_assert(in && out);
    rc = hs_job_run(job, in, out, NULL);
    hs_input_close(in);
    hs_output_close(out);
    return rc;
}

static void job_with(hs_job *job, hooks *h, hs_report *r)
{
    memset(job, 0, sizeof *job);
    memset(h, 0, sizeof *h);
    h->finish_rc = -1;
    h->report = r;
    job->size = sizeof *job;
    job->report = r;
    job->full_report = 1;
    job->snapshot = on_snapshot;
    job->started = on_start;
    job->finished = on_finish;
    job->hooks_ctx = h;
    hs_report_set_messages(r, on_message, h);
}

/* Each test's dump, sink and report (a suite fixture: Criterion runs each
 * test in a process of its own). */
static struct {
    uint8_t *hprof;
    size_t len;
    mem_sink sink;
    hs_report *r;
} fx;

static void fx_init(void)
{
    fx.hprof = load_file(DUMP, &fx.len);
    fx.r = hs_report_create();
    cr_assert(fx.hprof && fx.r);
    memset(&fx.sink, 0, sizeof fx.sink);
}

static void fx_fini(void)
{
    hs_report_free(fx.r);
    free(fx.sink.data);
    free(fx.hprof);
}

TestSuite(report_api, .init = fx_init, .fini = fx_fini);

Test(report_api, the_callers_report_is_filled_and_renders_the_jobs_document)
{
    mem_sink a = {NULL, 0, 0, 0}, b = {NULL, 0, 0, 0};
    hs_report *r = fx.r;
    hs_job job;
    hooks h;
    hs_input *in;
    hs_output *out;
    hs_stats st;
    char *doc, *want, *x, *y;
    int rc;

    cr_assert_null(hs_report_error(r));
    cr_assert_eq(hs_report_output_kept(r), 0);
    /* the job's own report, through the char ** argument */
    memset(&job, 0, sizeof job);
    job.size = sizeof job;
    job.compress = HS_COMPRESS_ZSTD;
    in = hs_input_open_memory(fx.hprof, fx.len, NULL);
    out = hs_output_open_write(mem_write, &a, HS_COMPRESS_ZSTD, 0, 1, NULL);
    cr_assert_eq(hs_job_run(&job, in, out, &want), 0, "%s", want);
    hs_input_close(in);
    hs_output_close(out);
    /* the caller's, with every hook */
    job_with(&job, &h, r);
    job.compress = HS_COMPRESS_ZSTD;
    in = hs_input_open_memory(fx.hprof, fx.len, NULL);
    out = hs_output_open_write(mem_write, &b, HS_COMPRESS_ZSTD, 0, 1, NULL);
    rc = hs_job_run(&job, in, out, NULL);
    hs_input_close(in);
    hs_output_close(out);
    cr_assert_eq(rc, 0);
    cr_assert(a.len == b.len && memcmp(a.data, b.data, a.len) == 0, "the same output");
    cr_assert_eq(h.started, 1);
    cr_assert_eq(h.read_at_start, 0, "started before a byte was read");
    cr_assert_geq(h.snapshots, 1);
    cr_assert_eq(h.snapshot_before_start, 0);
    cr_assert_eq(h.finished, 1);
    cr_assert_eq(h.messages, 0, "a clean run says nothing: %s", h.texts[0]);
    cr_assert_eq(hs_report_output_kept(r), 1);
    cr_assert_null(hs_report_error(r));
    cr_assert_eq(hs_report_stats(r, &st, sizeof st), sizeof st);
    cr_assert_eq(st.bytes_in, fx.len);
    doc = hs_report_json(r, rc, NULL, NULL);
    cr_assert(has(doc, "\"exit_status\":0,\"error\":null"), "%.400s", doc);
    cr_assert(has(doc, "\"presets\":[\"default\"]"), "%.400s", doc);
    x = untimed(doc);
    y = untimed(want);
    cr_assert_str_eq(x, y, "the same document but its timing:\n%.400s\n%.400s", x, y);
    /* the caller's own change after the run */
    hs_report_set_output_kept(r, 0);
    cr_assert_eq(hs_report_output_kept(r), 0);
    free(x);
    free(y);
    hs_free(doc);
    hs_free(want);
    hs_report_free(NULL);
    free(a.data);
    free(b.data);
}

Test(report_api, messages_go_through_the_hook_and_name_no_option)
{
    size_t gz_len;
    uint8_t *gz;
    hs_report *r = fx.r;
    hs_job job;
    hooks h;
    char *doc;
    int rc;

    gz = gzip_bytes(fx.hprof, fx.len, &gz_len);
    job_with(&job, &h, r);
    rc = run_on(&job, gz, gz_len / 2, &fx.sink); /* a cut .gz */
    cr_assert_eq(rc, HS_EXIT_TRUNCATED);
    cr_assert_eq(h.finished, 0, "finished only after a run that worked");
    cr_assert_eq(h.messages, 1);
    cr_assert_eq(h.kinds[0], HS_MSG_ERROR);
    cr_assert_eq(h.codes[0], HS_E_TRUNCATED);
    cr_assert(has(h.texts[0], "gzip data is truncated"), "%s", h.texts[0]);
    cr_assert(has(h.texts[0], "(salvage writes the complete records"), "%s", h.texts[0]);
    cr_assert(!has(h.texts[0], "--"), "the library names no option: %s", h.texts[0]);
    /* what the hook wrote is what the report keeps */
    cr_assert(hs_report_error(r));
    cr_assert_eq(hs_report_error(r)->code, HS_E_TRUNCATED);
    cr_assert(strncmp(hs_report_error(r)->message, "REWRITTEN: input: ", 18) == 0, "%s",
              hs_report_error(r)->message);
    doc = hs_report_json(r, rc, "cut.gz", NULL);
    cr_assert(has(doc, "\"message\":\"REWRITTEN: input: "), "%.400s", doc);
    cr_assert(has(doc, "\"name\":\"cut.gz\""), "%.400s", doc);
    cr_assert(has(doc, "\"kept\":false"), "%.400s", doc);
    hs_free(doc);
    hs_report_free(r);

    /* salvaged: a message of its own kind, the run worked (finished) */
    r = fx.r = hs_report_create();
    cr_assert(r);
    job_with(&job, &h, r);
    job.salvage = 1;
    rc = run_on(&job, gz, gz_len / 2, &fx.sink);
    cr_assert_eq(rc, HS_EXIT_SALVAGED);
    cr_assert_eq(h.finished, 1);
    cr_assert_eq(h.messages, 1);
    cr_assert_eq(h.kinds[0], HS_MSG_SALVAGED);
    cr_assert(!has(h.texts[0], "--"), "%s", h.texts[0]);
    cr_assert_eq(hs_report_output_kept(r), 1);
    free(gz);
}

Test(report_api, finished_decides_the_exit_code_and_the_callers_notes_stay)
{
    hs_report *r = fx.r;
    hs_job job;
    hooks h;
    char *doc;
    int rc;

    hs_report_note_rules(r, 0, "mine");
    hs_report_note_rules(r, 1, "my.rules");
    job_with(&job, &h, r);
    job.preset = "privacy";
    h.finish_rc = 1; /* the caller's step after the run fails */
    rc = run_on(&job, fx.hprof, fx.len, &fx.sink);
    cr_assert_eq(rc, HS_EXIT_IO, "finished's return is the run's");
    cr_assert_eq(h.finished, 1);
    cr_assert_eq(h.messages, 1, "its failure said through the hook");
    cr_assert_str_eq(h.texts[0], "the caller's own step failed");
    cr_assert_eq(hs_report_output_kept(r), 0, "a failed run's output is not kept");
    doc = hs_report_json(r, rc, NULL, NULL);
    cr_assert(has(doc, "\"presets\":[\"mine\"]"), "%.400s", doc);
    cr_assert(has(doc, "\"rule_files\":[\"my.rules\"]"), "%.400s", doc);
    cr_assert(has(doc, "\"status\":\"write\""), "%.400s", doc);
    hs_free(doc);
}

Test(report_api, sized_stats_and_null_arguments)
{
    hs_report *r = fx.r;
    hs_job job;
    struct {
        hs_stats st;
        uint64_t newer[4];
    } big;
    hs_stats st;

    /* before a run: all 0 */
    memset(&st, 0xff, sizeof st);
    cr_assert_eq(hs_report_stats(r, &st, sizeof st), sizeof st);
    cr_assert_eq(st.bytes_in, 0);
    memset(&job, 0, sizeof job);
    job.size = sizeof job;
    job.report = r; /* no hooks, no full report: the counters all the same */
    cr_assert_eq(run_on(&job, fx.hprof, fx.len, &fx.sink), 0);
    /* a newer caller's struct: the rest zeroed */
    memset(&big, 0xff, sizeof big);
    cr_assert_eq(hs_report_stats(r, &big.st, sizeof big), sizeof st);
    cr_assert_eq(big.st.bytes_in, fx.len);
    cr_assert_eq(big.newer[0] | big.newer[3], 0);
    /* an older caller's: only what it knows */
    memset(&st, 0xff, sizeof st);
    cr_assert_eq(hs_report_stats(r, &st, 16), 16);
    cr_assert_eq(st.bytes_in, fx.len);
    cr_assert_eq(st.heap_dumps, (uint64_t)-1, "past the caller's size untouched");
    cr_assert_eq(hs_report_stats(NULL, &st, sizeof st), 0);
    cr_assert_eq(hs_report_stats(r, NULL, sizeof st), 0);
    cr_assert_null(hs_report_json(NULL, 0, NULL, NULL));
    cr_assert_null(hs_report_error(NULL));
    cr_assert_eq(hs_report_fail(NULL, HS_E_READ, NULL, "nowhere"), HS_EXIT_IO);
    hs_report_warn(NULL, "nowhere");
    hs_report_note_rules(NULL, 0, "x");
    hs_report_set_messages(NULL, NULL, NULL);
}

/* What the CLI reads and sets through calls since it stopped reading the
 * report's insides: rows, findings, the verdict, times, a caller's own
 * status, and the document in two parts for a signal handler. */
Test(report_api, accessors_a_callers_status_and_the_parts)
{
    size_t n, head;
    hs_report *r = fx.r;
    const hs_class_count *rows;
    const hs_finding *found;
    hs_job job;
    hooks h;
    int heaps = -1;
    char *doc, *whole;

    cr_assert_eq(hs_report_ran(r), 0);
    cr_assert_eq(hs_report_audit_verdict(r), -1);
    cr_assert_eq(hs_report_histogram(r, &rows, &heaps), 0);
    cr_assert_null(rows);
    /* an audit: findings, a verdict; the verifier's (0.7), so no filter's
     * histogram and no finished hook */
    job_with(&job, &h, r);
    job.audit = 1;
    job.histogram = 1;
    cr_assert_eq(run_on(&job, fx.hprof, fx.len, &fx.sink), HS_EXIT_AUDIT);
    cr_assert_eq(hs_report_ran(r), 1);
    cr_assert_eq(hs_report_audit_verdict(r), 0, "the unstripped dump is not clean");
    n = hs_report_histogram(r, &rows, &heaps);
    cr_assert_eq(n, 0);
    cr_assert_eq(h.finished, 0);
    cr_assert_gt(hs_report_findings(r, &found), 0);
    cr_assert(found[0].name);
    /* the caller's times, a negative one left alone */
    hs_report_set_times(r, 12.5, 3.25, -1);
    doc = hs_report_json(r, HS_EXIT_AUDIT, NULL, NULL);
    cr_assert(has(doc, "\"wall_seconds\":12.500000,\"user_seconds\":3.250000"), "%.400s", doc);
    cr_assert(has(doc, "\"mode\":\"audit\""), "%.400s", doc);
    hs_free(doc);
    /* two parts: the head ends where the exit status goes, the tail
     * starts after the error object, no histogram in it */
    doc = hs_report_json_parts(r, "in", NULL, &head);
    cr_assert(doc && head > 0 && head < strlen(doc));
    cr_assert(head >= 14 && strncmp(doc + head - 14, "\"exit_status\":", 14) == 0, "%.400s", doc);
    cr_assert_eq(doc[head], ',', "%.400s", doc + head);
    cr_assert(has(doc + head, "\"histogram\":null"), "%.400s", doc + head);
    whole = malloc(strlen(doc) + 16);
    cr_assert(whole);
    memcpy(whole, doc, head);
    strcpy(whole + head, "7,\"error\":null");
    strcat(whole, doc + head);
    cr_assert(has(whole, "\"exit_status\":7,\"error\":null,\"input\":{\"name\":\"in\""), "%.400s",
              whole);
    free(whole);
    hs_free(doc);
    /* a caller's own status: no library code, said to the hook */
    h.messages = 0;
    hs_report_fail_other(r, "jvm-dump", 1, NULL, "the JVM stopped writing");
    cr_assert_eq(h.messages, 1);
    cr_assert_eq(h.codes[0], HS_OK);
    cr_assert_eq(hs_report_error(r)->code, HS_OK);
    doc = hs_report_json(r, 10, NULL, NULL);
    cr_assert(has(doc, "\"error\":{\"code\":null,\"status\":\"jvm-dump\",\"retryable\":true,"
                       "\"signal\":null"),
              "%.400s", doc);
    hs_free(doc);
    hs_report_fail_other(r, "signal", 1, "SIGTERM", "stopped");
    doc = hs_report_json(r, 143, NULL, NULL);
    cr_assert(has(doc, "\"status\":\"signal\",\"retryable\":true,\"signal\":\"SIGTERM\""), "%.400s",
              doc);
    hs_free(doc);
    /* a library failure after it is a library status again */
    hs_report_fail(r, HS_E_READ, NULL, "read failed");
    doc = hs_report_json(r, 4, NULL, NULL);
    cr_assert(has(doc, "\"error\":{\"code\":-4,\"status\":\"read\""), "%.400s", doc);
    hs_free(doc);
    hs_report_set_audit(r, 0);
    doc = hs_report_json(r, 4, NULL, NULL);
    cr_assert(has(doc, "\"mode\":\"filter\""), "%.400s", doc);
    hs_free(doc);
    cr_assert_null(hs_report_json_parts(NULL, NULL, NULL, &head));
    cr_assert_null(hs_report_json_parts(r, NULL, NULL, NULL));
    cr_assert_eq(hs_report_histogram(NULL, NULL, NULL), 0);
    cr_assert_eq(hs_report_findings(NULL, NULL), 0);
    cr_assert_eq(hs_report_ran(NULL), 0);
    hs_report_set_times(NULL, 1, 1, 1);
    hs_report_set_audit(NULL, 1);
    hs_report_fail_other(NULL, "x", 0, NULL, "nowhere");
}

/* Issue #51, 2: after a failed job that hashed its output (a report asked
 * for, zstd or gzip), the output is the caller's to finish or reuse: the
 * job's hasher, freed when it returned, must not be written through (an
 * ASan build says heap-use-after-free in hs_hasher_put otherwise). */
Test(report_api, the_output_outlives_a_failed_jobs_hasher)
{
    static const hs_compression formats[] = {HS_COMPRESS_ZSTD, HS_COMPRESS_GZIP};
    size_t k;

    for (k = 0; k < 2; k++) {
        mem_sink a = {NULL, 0, 0, 0};
        hs_job job;
        hs_input *in = hs_input_open_memory(fx.hprof, fx.len - 9999, NULL); /* cut */
        hs_output *out = hs_output_open_write(mem_write, &a, formats[k], 0, 2, NULL);
        char *doc = NULL;
        hs_error e;

        cr_assert(in && out);
        memset(&job, 0, sizeof job);
        job.size = sizeof job;
        job.compress = formats[k];
        cr_assert_eq(hs_job_run(&job, in, out, &doc), HS_EXIT_TRUNCATED, "%s", doc);
        cr_assert(has(doc, "\"sha256\":{"), "the report hashed: %.300s", doc);
        hs_free(doc);
        /* what the header invites: finish the frame of what was written,
         * then read more of the input's bytes through it */
        cr_assert_eq(hs_output_finish(out, &e), HS_OK, "%s", e.message);
        cr_assert_gt(hs_output_written(out), 0, "format %d", (int)formats[k]);
        hs_input_drain(in);
        hs_input_close(in);
        hs_output_close(out);
        free(a.data);
    }
}

static int cancel_at_once(void *ctx, uint64_t in, uint64_t hprof, uint64_t out)
{
    (void)ctx;
    (void)in;
    (void)hprof;
    (void)out;
    return 1;
}

/* Issue #51, 13: a report reused for a second run holds that run alone:
 * no error, warning, histogram or verdict of the first; the hook and
 * what the caller noted for the new run stay. */
Test(report_api, a_reused_report_holds_the_new_run_alone)
{
    hs_report *r = fx.r;
    const hs_class_count *rows;
    hs_job job;
    hooks h;
    char *doc;

    job_with(&job, &h, r);
    job.progress = cancel_at_once;
    job.histogram = 1;
    cr_assert_eq(run_on(&job, fx.hprof, fx.len, &fx.sink), HS_EXIT_CANCELLED);
    cr_assert(hs_report_error(r) && hs_report_error(r)->code == HS_E_CANCELLED);
    /* a run with a histogram, an audit (findings, a verdict: no
     * histogram, as the verifier runs no filter), then a good run */
    job_with(&job, &h, r);
    job.histogram = 1;
    cr_assert_eq(run_on(&job, fx.hprof, fx.len, &fx.sink), HS_EXIT_OK);
    cr_assert_null(hs_report_error(r), "the cancel is gone");
    cr_assert_gt(hs_report_histogram(r, &rows, NULL), 0);
    job_with(&job, &h, r);
    job.audit = 1;
    cr_assert_eq(run_on(&job, fx.hprof, fx.len, &fx.sink), HS_EXIT_AUDIT);
    cr_assert_eq(hs_report_audit_verdict(r), 0);
    cr_assert_eq(hs_report_histogram(r, NULL, NULL), 0, "the run before's histogram is gone");
    cr_assert_gt(hs_report_findings(r, NULL), 0);
    hs_report_note_rules(r, 0, "noted-for-the-next");
    job_with(&job, &h, r);
    cr_assert_eq(run_on(&job, fx.hprof, fx.len, &fx.sink), HS_EXIT_OK);
    cr_assert_null(hs_report_error(r));
    cr_assert_eq(hs_report_audit_verdict(r), -1, "no audit in this run");
    cr_assert_eq(hs_report_histogram(r, NULL, NULL), 0, "no histogram asked for");
    cr_assert_eq(hs_report_findings(r, NULL), 0);
    doc = hs_report_json(r, HS_EXIT_OK, NULL, NULL);
    cr_assert(has(doc, "\"mode\":\"filter\",\"exit_status\":0,\"error\":null"), "%.400s", doc);
    cr_assert(has(doc, "\"presets\":[\"noted-for-the-next\"]"), "%.600s", doc);
    cr_assert(has(doc, "\"histogram\":null"), "%.400s", doc);
    cr_assert(has(doc, "\"audit\":null"), "%.400s", doc);
    hs_free(doc);
}

/* Issue #51, 11: a mapping that is not there is a usage error (exit 2,
 * not retryable), the file named, as the command says: never "read"
 * (exit 4, retryable), which a retry policy would retry forever. */
Test(report_api, a_missing_mapping_is_a_usage_error)
{
    hs_rules *rules = hs_rules_create(NULL);
    hs_job job;
    hooks h;
    hs_error e;
    char *doc;

    cr_assert_eq(hs_rules_mapping_path(rules, "/nonexistent/mapping.txt", 0, &e), HS_E_USAGE);
    cr_assert(has(e.message, "/nonexistent/mapping.txt"), "%s", e.message);
    hs_rules_free(rules);
    job_with(&job, &h, fx.r);
    job.mapping_path = "/nonexistent/mapping.txt";
    cr_assert_eq(run_on(&job, fx.hprof, fx.len, &fx.sink), HS_EXIT_USAGE);
    cr_assert_eq(hs_report_error(fx.r)->code, HS_E_USAGE);
    doc = hs_report_json(fx.r, HS_EXIT_USAGE, NULL, NULL);
    cr_assert(has(doc, "\"status\":\"usage\",\"retryable\":false"), "%.600s", doc);
    cr_assert(has(doc, "/nonexistent/mapping.txt"), "%.600s", doc);
    hs_free(doc);
    /* a rule text's `mapping` line too */
    job_with(&job, &h, fx.r);
    job.rules_text = "mapping /nonexistent/m2.txt\n";
    job.rules_len = strlen(job.rules_text);
    cr_assert_eq(run_on(&job, fx.hprof, fx.len, &fx.sink), HS_EXIT_USAGE);
    cr_assert_eq(hs_report_error(fx.r)->code, HS_E_USAGE);
}

/* Whether `doc` is well-formed UTF-8 with no raw control byte: what a
 * JSON parser takes (the CLI's tests parse it too: tests/cli/cli_report.sh). */
static int json_text(const char *doc)
{
    const unsigned char *p = (const unsigned char *)doc;

    while (*p) {
        size_t n = *p < 0x80 ? 1 : (*p & 0xe0) == 0xc0 ? 2 : (*p & 0xf0) == 0xe0 ? 3
                                 : (*p & 0xf8) == 0xf0 ? 4 : 0;
        size_t i;
        if (n == 0 || (n == 1 && *p < 0x20 && !(*p == '\n' && !p[1]))) /* one line */
            return 0;
        if (n == 2 && *p < 0xc2)
            return 0;
        for (i = 1; i < n; i++)
            if ((p[i] & 0xc0) != 0x80)
                return 0;
        p += n;
    }
    return 1;
}

/* Issue #51, 8: every string the report did not make is escaped, bytes
 * that are not UTF-8 replaced (U+FFFD) and a name so changed flagged. */
Test(report_api, strings_it_did_not_make_are_escaped)
{
    hs_report *r = fx.r;
    char *doc;

    hs_report_note_rules(r, 1, "rules\xff\x01.txt");
    hs_report_warn(r, "a warning with \xc3( and \xed\xa0\x80 in it");
    hs_report_fail_other(r, "st\"atus\xff", 1, "SIG\\\xfe", "message \xf8\x88\x80\x80\x80");
    doc = hs_report_json(r, 10, "bad\xff.hprof", "caf\xc3\xa9\x1f.hprof");
    cr_assert(doc && json_text(doc), "%s", doc);
    cr_assert(has(doc, "\"name\":\"bad\\ufffd.hprof\",\"name_invalid_utf8\":true,"), "%s", doc);
    cr_assert(has(doc, "\"name\":\"caf\xc3\xa9\\u001f.hprof\",\"hprof_bytes\""),
              "valid UTF-8 stays, unflagged: %s", doc);
    cr_assert(has(doc, "\"status\":\"st\\\"atus\\ufffd\""), "%s", doc);
    cr_assert(has(doc, "\"signal\":\"SIG\\\\\\ufffd\""), "%s", doc);
    cr_assert(has(doc, "\"rule_files\":[\"rules\\ufffd\\u0001.txt\"]"), "%s", doc);
    /* maximal ill-formed parts: \xc3 then '(' ; a surrogate's three bytes */
    cr_assert(has(doc, "with \\ufffd( and \\ufffd\\ufffd\\ufffd in"), "%s", doc);
    cr_assert(has(doc, "message \\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\""), "%s", doc);
    hs_free(doc);
}

/* ... and a class name in an untrusted dump: a histogram row. */
Test(report_api, a_class_name_that_is_not_utf8_is_replaced_and_flagged)
{
    hs_job job;
    hooks h;
    dump d;
    uint8_t *at;
    char *doc;
    int rc;

    dg_everything(&d, 8, 0);
    for (at = d.p; at + 16 <= d.p + d.len && memcmp(at, "java.lang.Object", 16) != 0; at++)
        ;
    cr_assert(at + 16 <= d.p + d.len);
    at[13] = 0xff; /* java.lang.Obj\xffct */
    job_with(&job, &h, fx.r);
    job.histogram = 1;
    rc = run_on(&job, d.p, d.len, &fx.sink);
    cr_assert_eq(rc, HS_EXIT_OK, "%s", h.texts[0]);
    doc = hs_report_json(fx.r, rc, NULL, NULL);
    cr_assert(doc && json_text(doc), "%s", doc);
    cr_assert(has(doc, "{\"class\":\"java.lang.Obj\\ufffdct\",\"class_invalid_utf8\":true,"),
              "%s", doc);
    hs_free(doc);
    dg_free(&d);
}

/* Burns a second of this thread's CPU time (issue #53's test). */
static void *burn(void *arg)
{
    struct timespec t;
    volatile unsigned long x = 0;

    (void)arg;
    do {
        for (int i = 0; i < 100000; i++)
            x += (unsigned long)i;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    } while (t.tv_sec < 1);
    return (void *)(uintptr_t)(x & 1); /* (used: not optimised away) */
}

/* While the job runs, another thread of the process burns a second. */
static void burn_beside(void *ctx, hs_input *in)
{
    pthread_t t;

    (void)ctx;
    (void)in;
    cr_assert_eq(pthread_create(&t, NULL, burn, NULL), 0);
    pthread_join(t, NULL); /* the job's thread waits: no CPU of its own */
}

/* Issue #53: the job's user and system seconds are its thread's, not the
 * process's (jobs run at once in one process count their own), where the
 * system counts a thread's (Linux). */
Test(report_api, the_jobs_cpu_time_is_its_threads)
{
    hs_job job;
    hs_stats st;
    char *doc, *at;
    double user = -1, sys = -1;

    memset(&job, 0, sizeof job);
    job.size = sizeof job;
    job.report = fx.r;
    job.started = burn_beside;
    cr_assert_eq(run_on(&job, fx.hprof, fx.len, &fx.sink), 0);
    cr_assert_eq(hs_report_stats(fx.r, &st, sizeof st), sizeof st);
    doc = hs_report_json(fx.r, 0, NULL, NULL);
    at = doc ? strstr(doc, "\"user_seconds\":") : NULL;
    cr_assert(at && sscanf(at, "\"user_seconds\":%lf,\"sys_seconds\":%lf", &user, &sys) == 2,
              "%.400s", doc);
#if HS_PORT_LINUX
    cr_assert_lt(user + sys, 0.9, "the other thread's second counted: %f + %f", user, sys);
#else
    /* the fallback counts the process's time, as the header says */
    cr_assert_geq(user + sys, 0.9, "the other thread's second not counted: %f + %f", user, sys);
#endif
    hs_free(doc);
}
