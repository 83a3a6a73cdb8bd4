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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "hprof_strip.h"

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
