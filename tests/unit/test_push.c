/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_push.c - the push API (hs_push_*): a dump written to it in pieces
 * of every size, plain and gzip, gives the bytes and the report a pulled
 * run (hs_job_run over the same bytes) gives; a broken dump makes the
 * writes return its status at once, however much is still to come; a
 * handle freed before its end stops and frees; the writes that never wait
 * (try, with the descriptor to poll) give the same bytes too.
 */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "hprof_strip.h"

static const char *const g_fixtures[] = {
    "fixtures/jvm17-64bit.hprof",
    "fixtures/android-art2025-ahat-test-dump.hprof",
    "fixtures/jvm17-jcmd-gz1.hprof.gz", /* read as it is: the job sniffs it */
};

/* The file's own bytes (helpers' load_file inflates a .gz). */
static uint8_t *raw_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t *p;
    long n;

    cr_assert(f, "%s", path);
    cr_assert_eq(fseek(f, 0, SEEK_END), 0);
    n = ftell(f);
    rewind(f);
    p = malloc((size_t)n + 1);
    cr_assert(p && fread(p, 1, (size_t)n, f) == (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return p;
}

typedef struct {
    int rc;
    mem_sink out;
    char *report;
} outcome;

static void outcome_free(outcome *o)
{
    free(o->out.data);
    hs_free(o->report);
}

static hs_job default_job(void)
{
    hs_job job;

    memset(&job, 0, sizeof job);
    job.size = sizeof job;
    return job;
}

/* The report with its "time" object taken out: the one part two runs of
 * the same bytes may not share. */
static void drop_time(char *json)
{
    char *t = json ? strstr(json, "\"time\":{") : NULL;
    char *e = t ? strchr(t, '}') : NULL;

    if (e)
        memmove(t, e + 1, strlen(e + 1) + 1);
}

/* hs_job_run over the bytes, read through a callback as a push's are. */
static outcome pulled(const hs_job *job, const uint8_t *data, size_t len)
{
    mem_src src = {data, len, 0, 0, -1, NULL};
    outcome o = {0, {NULL, 0, 0, 0}, NULL};
    hs_input *in = hs_input_open_read(mem_read, &src, NULL);
    hs_output *out = job->audit ? NULL
                                : hs_output_open_write(mem_write, &o.out, job->compress, 0, 1, NULL);

    cr_assert(in && (out || job->audit));
    o.rc = hs_job_run(job, in, out, &o.report);
    hs_output_close(out);
    hs_input_close(in);
    drop_time(o.report);
    return o;
}

/* The same bytes pushed in writes of `chunk` bytes (0: sizes 1, 2, 3...
 * growing, then again from 1), through a buffer of `buffer` bytes. */
static outcome pushed(const hs_job *job, const uint8_t *data, size_t len, size_t chunk,
                      size_t buffer)
{
    hs_push_options opt = {sizeof opt, buffer, 1, 0};
    outcome o = {0, {NULL, 0, 0, 0}, NULL};
    hs_output *out = job->audit ? NULL
                                : hs_output_open_write(mem_write, &o.out, job->compress, 0, 1, NULL);
    hs_error err;
    hs_push *p = hs_push_new(job, out, &opt, &err);
    size_t pos = 0, grow = 1;

    cr_assert(p, "%s", err.message);
    while (pos < len) {
        size_t n = chunk ? chunk : grow++;
        hs_status s;

        if (n > len - pos)
            n = len - pos;
        s = hs_push_write(p, data + pos, n);
        if (s != HS_OK)
            break; /* the run ended: finish says how */
        pos += n;
        if (grow > 1000)
            grow = 1;
    }
    o.rc = hs_push_finish(p, &o.report);
    hs_push_free(p);
    hs_output_close(out);
    drop_time(o.report);
    return o;
}

static void same(const outcome *a, const outcome *b, const char *what, size_t chunk)
{
    cr_assert_eq(a->rc, b->rc, "%s, writes of %zu: exit %d, pulled %d", what, chunk, b->rc, a->rc);
    cr_assert_eq(a->out.len, b->out.len, "%s, writes of %zu: %zu bytes, pulled %zu", what, chunk,
                 b->out.len, a->out.len);
    cr_assert(a->out.len == 0 || memcmp(a->out.data, b->out.data, a->out.len) == 0,
              "%s, writes of %zu: the bytes differ", what, chunk);
    cr_assert(a->report && b->report);
    cr_assert_str_eq(a->report, b->report, "%s, writes of %zu", what, chunk);
}

Test(push, writes_of_every_size_give_the_pulled_bytes, .timeout = 600)
{
    static const size_t chunks[] = {1, 2, 3, 5, 7, 13, 31, 127, 1021, 4093, 65536, 1u << 20, 0};
    hs_job job = default_job();
    size_t f, c;

    for (f = 0; f < sizeof g_fixtures / sizeof *g_fixtures; f++) {
        size_t len;
        uint8_t *data = raw_file(g_fixtures[f], &len);
        outcome ref = pulled(&job, data, len);

        cr_assert(ref.rc == 0 && ref.out.len > 0, "%s: exit %d", g_fixtures[f], ref.rc);
        for (c = 0; c < sizeof chunks / sizeof *chunks; c++) {
            outcome got = pushed(&job, data, len, chunks[c], 0);

            same(&ref, &got, g_fixtures[f], chunks[c]);
            outcome_free(&got);
        }
        outcome_free(&ref);
        free(data);
    }
}

/* Write sizes from 1 up, across the block size, on one dump, through a
 * buffer so small that the writer waits for the run again and again
 * (blocks of 64 bytes). */
Test(push, every_size_through_a_tiny_buffer, .timeout = 600)
{
    hs_job job = default_job();
    size_t len, c;
    uint8_t *data = raw_file("fixtures/jvm7-hprof-agent.hprof", &len);
    outcome ref = pulled(&job, data, len);

    cr_assert_eq(ref.rc, 0);
    for (c = 1; c <= 300; c += c < 12 ? 1 : c < 63 ? 51 : c < 65 ? 1 : 117) {
        outcome got = pushed(&job, data, len, c, 256);

        same(&ref, &got, "jvm7, 256-byte buffer", c);
        outcome_free(&got);
    }
    outcome_free(&ref);
    free(data);
}

Test(push, compressed_output_and_audit_as_pulled)
{
    hs_job job = default_job();
    size_t len;
    uint8_t *data = raw_file("fixtures/jvm17-jcmd-gz1.hprof.gz", &len);
    outcome ref, got;

    job.compress = HS_COMPRESS_ZSTD;
    job.histogram = 1;
    ref = pulled(&job, data, len);
    got = pushed(&job, data, len, 8191, 0);
    cr_assert_eq(ref.rc, 0);
    same(&ref, &got, "gz to zstd", 8191);
    outcome_free(&ref);
    outcome_free(&got);

    job = default_job();
    job.audit = 1;
    ref = pulled(&job, data, len);
    got = pushed(&job, data, len, 4096, 0);
    cr_assert(ref.rc == 0 || ref.rc == 7, "audit exit %d", ref.rc);
    same(&ref, &got, "audit", 4096);
    outcome_free(&ref);
    outcome_free(&got);
    free(data);
}

/* A dump broken after its first records, and 64 MiB more to come: a write
 * returns the run's status as soon as the run stops, and the rest is never
 * waited for (with a 64-byte buffer, a writer that waited on a run that is
 * gone would hang here, and the test time out). */
Test(push, a_broken_dump_stops_the_writes, .timeout = 120)
{
    static uint8_t junk[1 << 16];
    /* a STRING of 3 bytes, shorter than an id: malformed */
    static const uint8_t bad[12] = {1, 0, 0, 0, 0, 0, 0, 0, 3, 'a', 'b', 'c'};
    hs_job job = default_job();
    size_t len, i, head = 31; /* the file header: the first record is bad */
    uint8_t *data = raw_file("fixtures/jvm17-64bit.hprof", &len);
    hs_push_options opt = {sizeof opt, 64, 1, 0};
    mem_sink sink = {NULL, 0, 0, 0};
    hs_output *out = hs_output_open_write(mem_write, &sink, HS_COMPRESS_NONE, 0, 1, NULL);
    hs_push *p = hs_push_new(&job, out, &opt, NULL);
    hs_status s = HS_OK;
    char *report;
    int rc;

    for (i = 0; i + sizeof bad <= sizeof junk; i += sizeof bad)
        memcpy(junk + i, bad, sizeof bad);
    cr_assert(p);
    cr_assert_eq(hs_push_write(p, data, head), HS_OK);
    for (i = 0; i < 1024 && s == HS_OK; i++)
        s = hs_push_write(p, junk, sizeof junk);
    cr_assert_eq(s, HS_E_MALFORMED, "status %d after %zu writes", s, i);
    cr_assert_lt(i, 1024, "the writes went on after the run stopped");
    cr_assert_eq(hs_push_write(p, junk, 1), HS_E_MALFORMED, "and every write after");
    cr_assert_eq(hs_push_done(p), 1);
    rc = hs_push_finish(p, &report);
    cr_assert_eq(rc, HS_EXIT_BAD_INPUT);
    cr_assert(report && strstr(report, "\"status\":\"malformed\""), "%s", report);
    cr_assert_eq(hs_push_finish(p, NULL), HS_EXIT_USAGE, "a second finish");
    cr_assert_eq(hs_push_write(p, junk, 1), HS_E_USAGE, "a write after finish");
    hs_free(report);
    hs_push_free(p);
    hs_output_close(out);
    free(sink.data);
    free(data);
}

/* Freed before its end, with a run waiting for bytes, or with a writer's
 * buffer full: the run stops, the thread is joined, nothing is left (ASan
 * and TSan runs of this suite say so). */
Test(push, freed_before_the_end, .timeout = 120)
{
    hs_job job = default_job();
    size_t len;
    uint8_t *data = raw_file("fixtures/jvm17-64bit.hprof", &len);
    int half;

    for (half = -1; half < 2; half++) {
        mem_sink sink = {NULL, 0, 0, 0};
        hs_output *out = hs_output_open_write(mem_write, &sink, HS_COMPRESS_NONE, 0, 1, NULL);
        hs_push *p = hs_push_new(&job, out, NULL, NULL);

        cr_assert(p);
        /* nothing; 100 bytes, the run waiting for more; half the dump,
         * a writer that waited for room */
        if (half >= 0)
            cr_assert_eq(hs_push_write(p, data, half ? len / 2 : 100), HS_OK);
        hs_push_free(p);
        hs_output_close(out);
        free(sink.data);
    }
    free(data);
}

Test(push, misuse_is_refused)
{
    hs_job job = default_job();
    hs_push_options opt = {sizeof opt + 8, 0, 0, 0};
    unsigned char big[sizeof opt + 8] = {0};
    hs_error err;

    cr_assert_null(hs_push_new(NULL, NULL, NULL, &err));
    cr_assert_eq(err.code, HS_E_USAGE);
    cr_assert_null(hs_push_new(&job, NULL, NULL, &err), "no output, not an audit");
    cr_assert_eq(err.code, HS_E_USAGE);
    /* a newer caller's options: unknown bytes 0 are fine, one set is not */
    memcpy(big, &opt, sizeof opt);
    job.audit = 1;
    {
        hs_push *p = hs_push_new(&job, NULL, (const hs_push_options *)(void *)big, &err);

        cr_assert(p, "%s", err.message);
        hs_push_free(p);
    }
    big[sizeof opt + 3] = 1;
    cr_assert_null(hs_push_new(&job, NULL, (const hs_push_options *)(void *)big, &err));
    cr_assert_eq(err.code, HS_E_USAGE);
    cr_assert_eq(hs_push_write(NULL, "x", 1), HS_E_USAGE);
    cr_assert_eq(hs_push_finish(NULL, NULL), HS_EXIT_USAGE);
    cr_assert_eq(hs_push_try_end(NULL), -1);
    hs_push_free(NULL);
}

/* An event loop's way: writes that never wait, and a poll on the
 * handle's descriptor when one took less than it was given. */
Test(push, writes_that_never_wait_and_the_descriptor, .timeout = 300)
{
    hs_job job = default_job();
    size_t len, pos = 0, polls = 0;
    uint8_t *data = raw_file("fixtures/jvm17-jcmd-gz1.hprof.gz", &len);
    outcome ref = pulled(&job, data, len), got = {0, {NULL, 0, 0, 0}, NULL};
    hs_push_options opt = {sizeof opt, 4096, 1, 0};
    hs_output *out = hs_output_open_write(mem_write, &got.out, HS_COMPRESS_NONE, 0, 1, NULL);
    hs_push *p = hs_push_new(&job, out, &opt, NULL);
    struct pollfd pfd = {hs_push_fd(p), POLLIN, 0};

    cr_assert(p && pfd.fd >= 0);
    while (pos < len) {
        size_t n = len - pos < 10000 ? len - pos : 10000, taken;

        cr_assert_eq(hs_push_try_write(p, data + pos, n, &taken), HS_OK);
        pos += taken;
        if (taken < n) { /* no room: the descriptor says when there is */
            cr_assert_eq(poll(&pfd, 1, 60000), 1, "no wakeup in a minute");
            polls++;
        }
    }
    while (!hs_push_try_end(p))
        cr_assert_eq(poll(&pfd, 1, 60000), 1);
    while (!hs_push_done(p))
        cr_assert_eq(poll(&pfd, 1, 60000), 1, "the end is told too");
    got.rc = hs_push_finish(p, &got.report);
    drop_time(got.report);
    cr_assert_gt(polls, 0, "the 4 KiB buffer was never full");
    same(&ref, &got, "try writes", 10000);
    hs_push_free(p);
    hs_output_close(out);
    outcome_free(&ref);
    outcome_free(&got);
    free(data);
}

/* A dump cut short, with salvage: the same salvaged output and report. */
Test(push, a_cut_dump_salvaged_as_pulled)
{
    hs_job job = default_job();
    size_t len;
    uint8_t *data = raw_file("fixtures/android-art2025-ahat-test-dump.hprof", &len);
    outcome ref, got;

    job.salvage = 1;
    ref = pulled(&job, data, len / 2);
    got = pushed(&job, data, len / 2, 4093, 0);
    cr_assert_eq(ref.rc, HS_EXIT_SALVAGED);
    same(&ref, &got, "salvaged", 4093);
    outcome_free(&ref);
    outcome_free(&got);
    free(data);
}
