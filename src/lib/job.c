/* SPDX-License-Identifier: Apache-2.0 */
/*
 * job.c - one whole run as the CLI makes it (hs_job_run): the rules from a
 * preset, rule text and a mapping file, the filter from an hs_input into an
 * hs_output, the damage of a compressed input told from a broken dump, the
 * audit verdict, and the run's exit code and JSON report (report.c), the
 * document --stats-file writes. What only a command line has stays in the
 * CLI: file names and the rules for files (temporary name, rename, modes),
 * terminal progress, signals, the spill file (held instances here count
 * toward the memory cap instead).
 *
 * The messages are the CLI's, the input named job->in_name where the CLI
 * names its file ("input" without one), and the output job->out_name
 * ("output"), naming no option (the CLI's message hook adds its own). The
 * job's progress callback rides on the filter's, adding the compressed
 * bytes read; its non-zero return cancels the run as hs_filter_cancel does
 * (exit 8, "cancelled"). The CLI's run is this one: it gives its report
 * (hs_job.report), its words (the report's message hook), its snapshot for
 * a signal, its scheduling once the reader thread runs (started) and its
 * --obfuscate-names file (finished) as hooks.
 */
#define _POSIX_C_SOURCE 200809L
#include "alloc.h"
#include "codec.h"
#include "filter.h"
#include "hasher.h"
#include "hs_port.h"
#include "hs_limits.h"
#include "hprof_strip.h"
#include "input.h"
#include "ioerr.h"
#include "output.h"
#include "report.h"
#include "rules.h"
#include "sized.h"
#include "verify.h"

#include <assert.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    hs_job job;          /* the caller's, zero past its size */
    const char *in_name; /* in messages: job.in_name, else "input" */
    const char *out_name;
    hs_report own;       /* the report when the caller gave none */
    hs_report *r;        /* job.report, else &own */
    int full;            /* all of a JSON report's figures (digests, duplicates) */
    hs_input *in;
    hs_output *out;
    int format;          /* hs_compression of the output */
    hs_rules *rules;           /* the job's own, made from preset and text */
    const hs_rules *use_rules; /* what the filter reads: those, or the caller's */
    hs_filter *filter;
    hs_hasher *hash;
    int threads;
    int keep_output;
    /* job.snapshot: the input's source wrapped, a snapshot before a read */
    const hs_source *base;
    hs_source snap_src;
    struct timespec next_snapshot;
    uint64_t told;       /* --audit: file bytes read when progress was told last */
    int cancelled;       /* --audit: the progress callback asked to stop */
} run;

/* --audit's sink: the output goes nowhere. */
static int discard(void *ctx, const void *buf, size_t len)
{
    (void)ctx;
    (void)buf;
    (void)len;
    return 0;
}

/* The whole message of the failed call on `rules` that filled `err`, whose
 * room a long path passes (hs_rules_message). */
static const char *whole(const hs_rules *rules, const hs_error *err)
{
    return hs_rules_message(rules) ? hs_rules_message(rules) : err->message;
}

/* The filter refused the rules (`err`): said whole, a mapping's refusal
 * naming its file at whatever length. */
static int filter_refused(run *j, const hs_error *err)
{
    char *refusal = hs_rules_mapping_refusal(j->use_rules);
    /* the refusal `err` holds the start of, not another failure */
    int is_it = refusal && strncmp(refusal, err->message, strlen(err->message)) == 0;
    int rc = hs_report_fail(j->r, err->code, NULL, "%s", is_it ? refusal : err->message);

    hs_alloc_free(&j->use_rules->alloc, refusal);
    return rc;
}

/* The rule set the job asks for; the exit code, the failure recorded. */
static int make_rules(run *j)
{
    const hs_job *job = &j->job;
    const char *preset = job->preset ? job->preset : "default";
    const char *map;
    hs_error err;
    hs_status s;
    /* a caller's report with its own rule arguments (the CLI's -p and -r,
     * in order) keeps them */
    int note = j->r->n_rules == 0;

    if (job->rules) { /* the caller's, made as it wished: one or the other */
        if (job->preset || job->rules_text || job->rules_len || job->mapping_path || job->audit)
            return hs_report_fail(j->r, HS_E_USAGE, NULL,
                                  "hs_job_run: a rule set (rules) and %s: one or the other",
                                  job->audit ? "audit (the privacy preset's)"
                                             : "preset, rules_text or mapping_path");
        if (note)
            hs_report_note_rules(j->r, 1, "rules");
        j->use_rules = job->rules;
        return EXIT_OK;
    }
    if (!(j->rules = hs_rules_create(NULL)))
        return hs_report_fail(j->r, HS_E_NOMEM, NULL, "out of memory");
    j->use_rules = j->rules;
    if (job->audit) { /* what the privacy preset would remove: nothing else */
        hs_rules_preset(j->rules, "privacy", NULL);
        return EXIT_OK;
    }
    if (note)
        hs_report_note_rules(j->r, 0, preset);
    if (hs_rules_preset(j->rules, preset, NULL) != HS_OK)
        return hs_report_fail(j->r, HS_E_USAGE, NULL, "unknown preset '%s'", preset);
    if (job->rules_text || job->rules_len) {
        if (note)
            hs_report_note_rules(j->r, 1, "rules_text");
        if (hs_rules_parse(j->rules, job->rules_text, job->rules_len, "rules_text", &err) !=
            HS_OK)
            return hs_report_fail(j->r, HS_E_USAGE, NULL, "%s", whole(j->rules, &err));
    }
    /* the job's mapping wins over the rule text's `mapping` line */
    map = job->mapping_path ? job->mapping_path : hs_rules_mapping_file(j->rules);
    if (!map)
        return EXIT_OK;
    s = hs_rules_mapping_path(j->rules, map, 0, &err);
    if (s == HS_OK)
        return EXIT_OK;
    /* a mapping that is missing or does not parse is the command's
     * mistake, as the CLI says: usage, never retried (HS_E_READ's exit
     * is 4, and it is retryable) */
    if (s != HS_E_LIMIT && s != HS_E_NOMEM)
        s = HS_E_USAGE;
    return hs_report_fail(j->r, s, NULL, "%s", whole(j->rules, &err));
}

/* A message of the filter about the input: in a compressed input its
 * offsets are in the decompressed dump, which the message then says. */
static void dump_message(run *j, hs_status s, const hs_error *e)
{
    static const char lead[] = "input byte ";
    const char *msg = e->message;
    const char *hint = s == HS_E_TRUNCATED && !j->job.salvage
                           ? " (salvage writes the complete records before the cut)"
                           : "";

    if (hs_input_compression(j->in) == HS_COMPRESS_NONE)
        hs_report_fail(j->r, s, e, "%s: %s%s", j->in_name, msg, hint);
    else if (strncmp(msg, lead, sizeof lead - 1) == 0)
        hs_report_fail(j->r, s, e, "%s: decompressed byte %s%s", j->in_name,
                       msg + sizeof lead - 1, hint);
    else
        hs_report_fail(j->r, s, e, "%s: in the decompressed dump: %s%s", j->in_name, msg, hint);
}

static void failure(run *j, hs_status s, const hs_error *e)
{
    if (hs_input_shrank(j->in)) { /* whatever failed after: the pages went */
        hs_stats now;
        hs_filter_stats_ex(j->filter, &now, sizeof now);
        hs_report_fail(j->r, HS_E_READ, e,
                       "%s: the input file shrank while it was being read (at input byte %llu)",
                       j->in_name,
                       (unsigned long long)(e->offset != UINT64_MAX ? e->offset : now.bytes_in));
    } else if (s == HS_E_READ && hs_input_error(j->in))
        hs_report_fail(j->r, s, e, "%s: %s", j->in_name, hs_input_error(j->in));
    else if (s == HS_E_WRITE)
        hs_report_fail(j->r, s, e, "%s: %s: %s", j->out_name, e->message,
                       j->out ? hs_output_error(j->out) : "");
    else
        dump_message(j, s, e);
}

static const char *cut_detail(hs_status s, const hs_error *e)
{
    const char *p;

    if (s == HS_OK)
        return "it ends between two records";
    p = strncmp(e->message, "input byte ", 11) == 0 ? strstr(e->message, ": ") : NULL;
    return p ? p + 2 : e->message;
}

/* The compressed layer was cut short or corrupt (the CLI's rule: cut is
 * exit 3, or 6 salvaged; corrupt is 1). */
static int damage(run *j, hs_status s, const hs_error *e)
{
    uint64_t end = hs_input_dump_bytes(j->in);
    int salvaged = j->job.salvage && (s == HS_OK || s == HS_SALVAGED), cut;

    if (s != HS_OK && s != HS_SALVAGED && s != HS_E_TRUNCATED && e->offset < end) {
        failure(j, s, e);
        hs_report_note(j->r, "%s: (and then %s)", j->in_name, hs_input_error(j->in));
        return hs_status_exit(s);
    }
    cut = hs_input_damage(j->in) == HS_DAMAGE_TRUNCATED;
    if (salvaged && cut)
        hs_report_salvage(j->r, HS_E_TRUNCATED, e,
                          "%s: %s; the decompressed dump ends there, at byte %llu: %s%s",
                          j->in_name, hs_input_error(j->in), (unsigned long long)end,
                          cut_detail(s, e), s == HS_OK ? " (salvaged)" : "");
    else
        hs_report_fail(j->r, cut ? HS_E_TRUNCATED : HS_E_MALFORMED, e,
                       "%s: %s; the decompressed dump ends there, at byte %llu: %s%s",
                       j->in_name, hs_input_error(j->in), (unsigned long long)end, cut_detail(s, e),
                       salvaged ? " (salvage wrote the complete records before it)"
                       : cut    ? " (salvage writes the complete records before the cut)"
                                : "");
    if (salvaged)
        j->keep_output = 1;
    if (salvaged && cut)
        return EXIT_SALVAGED;
    return cut ? EXIT_TRUNCATED : EXIT_BAD_INPUT;
}

/* The filter's progress, told to the job's callback with the input's own
 * bytes (compressed) too: read on this thread, as the filter's reads are.
 * A plain input's are the dump's (a mapped file's raw count is the pages
 * given back, which lag behind). */
static int progress(void *ctx, uint64_t in, uint64_t out)
{
    run *j = ctx;
    uint64_t raw = hs_input_compression(j->in) == HS_COMPRESS_NONE ? in : hs_input_raw_bytes(j->in);

    assert(j->job.progress);
    return j->job.progress(j->job.progress_ctx, raw, in, out) != 0;
}

static void counts(run *j, int rc);

/* job.snapshot, before a read, at most every 10 ms: a coarse clock read
 * per block, and a report of a few KiB rendered by the caller (about 20 us)
 * a hundred times a second is 0.2 % of a core. So a report kept for a
 * signal counts what the run had read. */
static void maybe_snapshot(run *j)
{
    struct timespec now;

    hs_port_cheap_clock(&now);
    if (now.tv_sec < j->next_snapshot.tv_sec ||
        (now.tv_sec == j->next_snapshot.tv_sec && now.tv_nsec < j->next_snapshot.tv_nsec))
        return;
    j->next_snapshot = now;
    j->next_snapshot.tv_nsec += 10000000L;
    if (j->next_snapshot.tv_nsec >= 1000000000L) {
        j->next_snapshot.tv_sec++;
        j->next_snapshot.tv_nsec -= 1000000000L;
    }
    counts(j, EXIT_IO); /* as if it ended now: what got out is what was written */
    j->job.snapshot(j->job.hooks_ctx, j->r);
}

static long snap_read(void *ctx, void *buf, size_t cap)
{
    run *j = ctx;

    maybe_snapshot(j);
    return j->base->read(j->base->ctx, buf, cap);
}

static long snap_borrow(void *ctx, const void **block)
{
    run *j = ctx;

    maybe_snapshot(j);
    return j->base->borrow(j->base->ctx, block);
}

static void snap_window(void *ctx, uint64_t done, uint64_t next)
{
    run *j = ctx;

    maybe_snapshot(j);
    j->base->window(j->base->ctx, done, next);
}

/* The input's source, each call through the snapshot when there is one. */
static const hs_source *source(run *j)
{
    j->base = hs_input_source_threads(j->in, j->threads > 1);
    if (!j->job.snapshot || !j->job.report)
        return j->base;
    j->snap_src = *j->base;
    j->snap_src.ctx = j;
    j->snap_src.read = snap_read;
    j->snap_src.borrow = j->base->borrow ? snap_borrow : NULL;
    j->snap_src.window = j->base->window ? snap_window : NULL;
    return &j->snap_src;
}

/* The filter from the input to the output: the exit code, the failure
 * (or the salvage) recorded. */
static int filter(run *j)
{
    hs_options opt;
    hs_error err;
    const hs_source *src;
    hs_sink dst;
    const hs_error *e;
    hs_status s;
    int rc, finished;

    if (hs_options_take(&opt, j->job.options, j->job.options ? j->job.options_size : 0) != HS_OK)
        return hs_report_fail(j->r, HS_E_USAGE, NULL,
                              "hs_job.options: an option this library version does not have "
                              "is set");
    opt.salvage |= j->job.salvage;
    /* what the JSON report holds: the CLI's --stats-file counts these */
    opt.find_duplicates |= j->full;
    opt.count_nonzero |= j->full || j->job.audit;
    opt.histogram |= j->job.histogram;
    opt.findings |= j->job.audit;
    if (!(j->filter = hs_filter_create_ex(j->use_rules, &opt, sizeof opt, NULL, &err)))
        return filter_refused(j, &err);
    if (j->job.progress && hs_filter_set_progress(j->filter, progress, j) != HS_OK)
        return hs_report_fail(j->r, HS_E_USAGE, NULL, "the filter would take no progress");
    src = source(j);
    if (j->job.started)
        j->job.started(j->job.hooks_ctx, j->in);
    if (j->job.audit || !j->out) {
        dst.write = discard;
        dst.ctx = NULL;
    } else {
        dst = *hs_output_sink(j->out);
    }
    /* the input's mapping patched in place, when it may be (filter.h) */
    s = hs_filter_run_on(j->filter, src, j->in, &dst);
    e = hs_filter_error(j->filter);
    if (s == HS_E_MALFORMED || s == HS_E_UNSUPPORTED)
        hs_input_drain(j->in);
    finished = (s == HS_OK || s == HS_SALVAGED) && (!j->out || hs_output_end(j->out) == HS_OK);
    /* the figures as they stand before a word is said: a message hook may
     * publish the report (the CLI's, ending quietly on a closed pipe) */
    counts(j, (s == HS_OK || s == HS_SALVAGED) && finished ? EXIT_OK : EXIT_IO);
    if ((s == HS_OK || s == HS_SALVAGED) && !finished)
        return hs_report_fail(j->r, HS_E_WRITE, NULL, "%s: writing the output failed: %s",
                              j->out_name, hs_output_error(j->out));
    if (hs_input_damage(j->in))
        return damage(j, s, e);
    rc = hs_status_exit(s);
    if (s == HS_SALVAGED && e->code != HS_E_TRUNCATED)
        rc = hs_status_exit(e->code);
    if (s == HS_SALVAGED)
        j->keep_output = 1;
    if (s == HS_SALVAGED && rc == EXIT_SALVAGED)
        hs_report_salvage(j->r, e->code, e, "%s: %s", j->in_name, e->message);
    else if (s == HS_SALVAGED)
        hs_report_fail(j->r, e->code, e, "%s (invalid, not cut): %s", j->in_name, e->message);
    else if (s != HS_OK)
        failure(j, s, e);
    return rc;
}

/* After a good run: the warnings, the histogram and findings kept, the
 * audit verdict. */
static int after(run *j, int rc)
{
    const hs_class_count *rows;
    const hs_finding *found;
    const char *w;
    hs_stats st;
    size_t i, n;

    if (rc != EXIT_OK && rc != EXIT_SALVAGED)
        return rc;
    hs_filter_stats_ex(j->filter, &st, sizeof st);
    if ((w = hs_input_warning(j->in)) != NULL)
        hs_report_warn(j->r, "%s: %s", j->in_name, w);
    if (!st.heap_dumps && rc == EXIT_OK)
        hs_report_warn(j->r,
                       "%s holds no heap dump (valid HPROF, but no object in it: nothing "
                       "was stripped)",
                       j->in_name);
    for (i = 0; (w = hs_filter_warning(j->filter, i)) != NULL; i++)
        hs_report_warn(j->r, "%s", w);
    n = hs_filter_histogram(j->filter, &rows);
    if (j->job.histogram && hs_report_keep_histogram(j->r, rows, n, st.hprof_version == 3) != 0)
        return hs_report_fail(j->r, HS_E_NOMEM, NULL, "out of memory");
    if (j->job.audit) {
        int clean = !st.nonzero_array_bytes && !st.nonzero_field_bytes && !st.strings_dropped &&
                    !st.unknown_records_dropped && !st.nonzero_string_bytes;
        n = hs_filter_findings(j->filter, &found);
        if (hs_report_keep_findings(j->r, found, n) != 0)
            return hs_report_fail(j->r, HS_E_NOMEM, NULL, "out of memory");
        if (rc == EXIT_OK) {
            j->r->audited = 1;
            j->r->audit_clean = clean;
            rc = clean ? EXIT_OK : EXIT_AUDIT;
        }
    }
    return rc;
}

/* --audit's reads: the input file's own bytes, the job's progress told
 * every MiB (a non-zero return stops the walk), a snapshot kept. */
static long audit_read(void *ctx, void *buf, size_t cap)
{
    run *j = ctx;
    uint64_t at = hs_input_file_bytes(j->in);

    if (j->job.snapshot && j->job.report)
        maybe_snapshot(j);
    if (j->job.progress && at - j->told >= HS_PROGRESS_STEP) {
        j->told = at;
        if (j->job.progress(j->job.progress_ctx, at, at, 0) != 0) {
            j->cancelled = 1;
            return -1;
        }
    }
    return hs_input_read_file(j->in, buf, cap);
}

/* The figures a report shows of an audit: its own counters (the filter's
 * are not run) as the --stats table's. */
static void audit_counters(hs_report *r, const hs_verify_result *res)
{
    r->ran = 1;
    memset(&r->st, 0, sizeof r->st);
    r->st.bytes_in = res->hprof_sha.bytes;
    r->st.hprof_version = res->hprof_version;
    r->st.heap_dumps = res->heap_dumps;
    r->st.records_in = res->records;
    r->st.subrecords_in = res->subrecords;
    r->st.instances = res->instances;
    r->st.object_arrays = res->obj_arrays;
    r->st.primitive_arrays = res->prim_arrays;
    r->st.class_dumps = res->class_dumps;
    r->st.roots = res->roots;
    r->st.strings_in = res->strings;
    r->st.held_bytes_peak = res->held_peak;
    r->st.nonzero_array_bytes = res->n.nonzero_array_bytes;
    r->st.first_nonzero_array = res->n.first_nonzero_array;
    r->st.nonzero_field_bytes = res->n.nonzero_field_bytes;
    r->st.first_nonzero_field = res->n.first_nonzero_field;
}

/* --audit: the verifier (verify.c) over the input file's own bytes, its
 * container included; the verdict and the findings are its alone. */
static int audit(run *j)
{
    hs_verify_result res;
    hs_options opt;
    hs_report *r = j->r;
    hs_status s;
    int rc;

    if (hs_options_take(&opt, j->job.options, j->job.options ? j->job.options_size : 0) != HS_OK)
        return hs_report_fail(r, HS_E_USAGE, NULL,
                              "hs_job.options: an option this library version does not have "
                              "is set");
    s = hs_verify_run(audit_read, j, opt.max_held, &res);
    if (j->job.progress) /* the last word, as the filter's */
        (void)j->job.progress(j->job.progress_ctx, hs_input_file_bytes(j->in),
                              res.hprof_sha.bytes, 0);
    audit_counters(r, &res);
    r->audit = res.n;
    r->audit.file_bytes = res.file_sha.bytes;
    r->audit.hprof_bytes = res.hprof_sha.bytes;
    memcpy(r->audit.file_sha256, res.file_sha.hex, sizeof r->audit.file_sha256);
    memcpy(r->audit.hprof_sha256, res.hprof_sha.hex, sizeof r->audit.hprof_sha256);
    r->in_hashed = s == HS_OK;
    r->in_sha = res.file_sha;
    r->in_hprof_sha = res.hprof_sha;
    if (j->cancelled)
        rc = hs_report_fail(r, HS_E_CANCELLED, NULL, "%s: cancelled", j->in_name);
    else if (s == HS_E_READ && hs_input_error(j->in))
        rc = hs_report_fail(r, s, &res.err, "%s: %s", j->in_name, hs_input_error(j->in));
    else if (s != HS_OK)
        rc = hs_report_fail(r, s, &res.err, "%s: %s", j->in_name, res.err.message);
    else if (hs_report_keep_findings(r, res.findings, res.n_findings) != 0)
        rc = hs_report_fail(r, HS_E_NOMEM, NULL, "out of memory");
    else {
        r->audited = 1;
        r->audit_clean = res.clean;
        rc = res.clean ? EXIT_OK : EXIT_AUDIT;
    }
    hs_verify_result_free(&res);
    return rc;
}

/* What the report keeps of the run so far: counters and sizes. Bytes that
 * never got out are not output: a plain dump counts what was written;
 * compressed, nothing written is nothing out (else what was compressed is
 * all one knows). */
static void counts(run *j, int rc)
{
    hs_report *r = j->r;

    if (j->filter) {
        r->ran = 1;
        hs_filter_stats_ex(j->filter, &r->st, sizeof r->st);
    }
    r->in_known = 1;
    r->in_format = hs_input_compression(j->in);
    r->in_raw = j->job.audit ? hs_input_file_bytes(j->in) : hs_input_raw_bytes(j->in);
    if (j->out) {
        r->out_known = 1;
        r->out_format = (int)j->format;
        r->out_raw = hs_output_written(j->out);
        if (j->filter && !j->job.audit && rc == EXIT_IO &&
            (j->format == HS_COMPRESS_NONE || r->out_raw == 0) && r->out_raw < r->st.bytes_out)
            r->st.bytes_out = r->out_raw;
    }
}

/* ... and, once the run is over (once only), the digests: a plain side's
 * HPROF is its file. */
static void figures(run *j, int rc)
{
    hs_report *r = j->r;

    counts(j, rc);
    if (j->hash) {
        hs_digest d[HS_HASH_STREAMS];
        hs_input_hash_end(j->in, r->st.bytes_in);
        hs_hasher_digests(j->hash, d);
        r->in_hashed = 1;
        r->in_sha = d[HS_HASH_IN_FILE];
        r->in_hprof_sha =
            hs_input_compression(j->in) == HS_COMPRESS_NONE ? d[HS_HASH_IN_FILE] : d[HS_HASH_IN_DUMP];
        if (j->out && !j->job.audit) {
            r->out_hashed = 1;
            r->out_sha = d[HS_HASH_OUT_FILE];
            r->out_hprof_sha =
                j->format == HS_COMPRESS_NONE ? d[HS_HASH_OUT_FILE] : d[HS_HASH_OUT_DUMP];
        }
    }
}

/* The output says its compression; the job's `compress`, when a caller
 * still sets it (0 is the output's), must agree, each named by name. */
static int check_compression(run *j)
{
    const char *asked = hs_codec_name((int)j->job.compress);

    j->format = hs_output_is(j->out);
    if (j->job.compress == HS_COMPRESS_NONE || (int)j->job.compress == j->format)
        return EXIT_OK;
    if (!asked)
        return hs_report_fail(j->r, HS_E_USAGE, NULL, "the job's compression %d is none of "
                              "none, zstd and gzip (0: the output's)", (int)j->job.compress);
    return hs_report_fail(j->r, HS_E_USAGE, NULL,
                          "the job says compression %s, the output was opened for %s "
                          "(leave the job's 0: the output's)",
                          asked, hs_codec_name(j->format));
}

static int start(run *j)
{
    if (j->job.threads < 0)
        return hs_report_fail(j->r, HS_E_USAGE, NULL, "thread count %d", j->job.threads);
    j->threads = j->job.threads;
    if (j->threads == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        j->threads = n > 0 ? (int)n : 1;
    }
    if (j->out) {
        int rc = check_compression(j);
        if (rc != EXIT_OK)
            return rc;
    }
    if (hs_input_started(j->in))
        return hs_report_fail(j->r, HS_E_USAGE, NULL,
                              "the input was read from already (one run per input)");
    /* the report binds the bytes it describes, as the CLI's does: every
     * byte read and written is hashed (SHA-256) on its way */
    if (j->full && !j->job.audit) { /* an audit's verifier hashes its own */
        if (!(j->hash = hs_hasher_start(j->threads > 1)))
            return hs_report_fail(j->r, HS_E_NOMEM, NULL, "out of memory");
        hs_input_hash(j->in, j->hash);
        if (j->out && !j->job.audit && hs_output_written(j->out) == 0)
            hs_output_hash(j->out, j->hash);
    }
    return EXIT_OK;
}

static double since(const struct timespec *t0)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

static double seconds(struct timeval tv)
{
    return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

/* The end of the last hs_job field this library knows. */
#define JOB_KNOWN (offsetof(hs_job, hooks_ctx) + sizeof(void *))
_Static_assert(JOB_KNOWN == sizeof(hs_job), "JOB_KNOWN: a field was added after hooks_ctx");

HS_API int hs_job_run(const hs_job *job, hs_input *in, hs_output *out, char **report)
{
    static run zero;
    run *j = malloc(sizeof *j); /* big (the report's warnings): not on the stack */
    struct timespec t0;
    struct rusage ru0, ru1;
    int rc, have_ru;

    if (report)
        *report = NULL;
    if (!j)
        return EXIT_LIMIT;
    *j = zero;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    /* The job's CPU time is its thread's where the system counts one
     * (Linux, hs_port.h): the process's would count every other job run at
     * once in it. The helper threads (a gzip input's reader, the pager, the
     * hasher, the compressor's workers) are not the job's thread: their
     * time is not in it. */
    have_ru = hs_port_thread_rusage(&ru0) == 0;
    if (job)
        memcpy(&j->job, job,
               job->size && job->size < sizeof j->job ? job->size : sizeof j->job);
    j->r = j->job.report ? j->job.report : &j->own;
    hs_report_begin_run(j->r); /* a reused report: the last run's goes */
    j->r->audit_run = j->job.audit != 0;
    j->full = report != NULL || (j->job.report && j->job.full_report);
    j->in_name = j->job.in_name ? j->job.in_name : "input";
    j->out_name = j->job.out_name ? j->job.out_name : "output";
    j->in = in;
    j->out = j->job.audit ? NULL : out; /* (the copy: fields past size are 0) */
    if (!job || !in || (!out && !j->job.audit))
        rc = hs_report_fail(j->r, HS_E_USAGE, NULL, "hs_job_run: no %s",
                            !job ? "job" : !in ? "input" : "output");
    else if (hs_sized_unknown_set(job, JOB_KNOWN, job->size))
        rc = hs_report_fail(j->r, HS_E_USAGE, NULL,
                            "hs_job_run: the job sets a field this library version (%s) does "
                            "not have",
                            HS_VERSION_STRING);
    else if ((rc = make_rules(j)) == EXIT_OK && (rc = start(j)) == EXIT_OK) {
        rc = j->job.audit ? audit(j) : after(j, filter(j));
        /* (an audit runs no filter: nothing to finish) */
        if (j->job.finished && !j->job.audit && (rc == EXIT_OK || rc == EXIT_SALVAGED))
            rc = j->job.finished(j->job.hooks_ctx, j->filter, rc);
    }
    if (in)
        figures(j, rc);
    j->r->output_kept = !j->job.audit && j->out &&
                       (rc == EXIT_OK || rc == EXIT_SALVAGED || (j->keep_output && rc != EXIT_IO));
    j->r->wall = since(&t0);
    if (have_ru && hs_port_thread_rusage(&ru1) == 0) {
        j->r->user = seconds(ru1.ru_utime) - seconds(ru0.ru_utime);
        j->r->sys = seconds(ru1.ru_stime) - seconds(ru0.ru_stime);
    }
    if (report)
        *report = hs_report_json(j->r, rc, j->job.in_name, j->job.out_name);
    hs_report_end_run(j->r);
    hs_filter_free(j->filter);
    hs_rules_free(j->rules);
    /* the input and output are the caller's, to finish, read or reuse
     * after the job: neither may keep the job's hasher */
    hs_input_unhash(in, j->hash);
    hs_output_unhash(j->out, j->hash);
    hs_hasher_free(j->hash);
    hs_report_clear(&j->own);
    free(j);
    return rc;
}

HS_API void hs_free(void *p)
{
    free(p);
}
