/* SPDX-License-Identifier: Apache-2.0 */
/*
 * report.h - what a run reports: the JSON document (--stats=json on
 * stderr, --stats-file FILE, hs_job_run's report) whose schema the man page
 * lists under STATISTICS, and the one table of outcomes (status, exit
 * code, name). The library builds it, so the CLI and a program calling
 * hs_job_run get the same document; the CLI adds the --stats table and
 * what only a command line knows (file names, a signal).
 */
#ifndef HS_REPORT_H
#define HS_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "hprof_strip.h"
/* the report's calls the command uses (the library defines them all) */
#ifndef HS_STATIC_LINKING_ONLY
#define HS_STATIC_LINKING_ONLY
#endif
#include "hprof_strip_static.h"
#include "sha256.h"

/* The command's exit codes (hprof-strip(1), EXIT STATUS), which hs_job_run
 * returns too: hprof_strip.h's enum hs_exit_code, by shorter names. */
enum {
    EXIT_OK = HS_EXIT_OK,
    EXIT_BAD_INPUT = HS_EXIT_BAD_INPUT,
    EXIT_USAGE = HS_EXIT_USAGE,
    EXIT_TRUNCATED = HS_EXIT_TRUNCATED,
    EXIT_IO = HS_EXIT_IO,
    EXIT_LIMIT = HS_EXIT_LIMIT,
    EXIT_SALVAGED = HS_EXIT_SALVAGED,
    EXIT_AUDIT = HS_EXIT_AUDIT,
    EXIT_CANCELLED = HS_EXIT_CANCELLED
};

/* What an audit leaves in a clean file on purpose, in one line (the
 * certificate's and the JSON report's; the man page's AUDIT table says
 * why). */
#define HS_AUDIT_KEPT                                                           \
    "names (STRING text something uses), ids, lengths, counts, types, "        \
    "serials, timestamps, line numbers, java.lang.String.coder and four "       \
    "JDK Unsafe offsets (hprof-strip-report(5), AUDIT)"
#define HS_REPORT_SCHEMA 1
#define HS_REPORT_MAX_RULES 64
#define HS_REPORT_MAX_WARNINGS 16

/* Everything a run learnt, filled as it goes, so that a failed run can
 * still say how far it got and how it failed. The public header's opaque
 * hs_report (hs_report_create, hs_job.report) is this struct; hs_job_run
 * holds one by value when the caller gives none. */
struct hs_report {
    int ran;                  /* the filter was created: `st` is its counters */
    hs_stats st;
    int has_error;            /* `error` holds the failure (or the salvaged cut) */
    hs_error error;           /* offset/record_offset UINT64_MAX: none */
    char *message;            /* error's whole message (error.message holds
                                 what fits of it); NULL: error.message is it */
    int in_known, in_format;  /* in_format: hs_compression */
    uint64_t in_raw;          /* bytes read from the input file (compressed) */
    int out_known, out_format; /* out_format: hs_compression */
    uint64_t out_raw;         /* bytes written to the output file */
    /* SHA-256 of the file's bytes and of the HPROF in it (the same bytes
     * when not compressed), each side; *_hashed: the digests are set */
    int in_hashed, out_hashed;
    hs_digest in_sha, in_hprof_sha, out_sha, out_hprof_sha;
    int audited, audit_clean; /* --audit's verdict was reached */
    hs_audit_figures audit;   /* the verifier's figures (verify.h), when audited */
    double wall, user, sys;   /* seconds */
    /* -p and -r arguments in command-line order (is_file: -r) */
    const char *rule_arg[HS_REPORT_MAX_RULES];
    char rule_is_file[HS_REPORT_MAX_RULES];
    int n_rules;
    /* --histogram: the rows (names owned here), and whether heaps count */
    hs_class_count *histo;
    size_t n_histo;
    int histo_heaps;
    /* --audit: where the data is (hs_filter_findings; names owned here) */
    hs_finding *findings;
    size_t n_findings;
    char *warnings[HS_REPORT_MAX_WARNINGS]; /* for the JSON, whole (each freed
                                                  by hs_report_clear) */
    int n_warnings;
    int output_kept;          /* the complete dump is under the output's name */
    /* a failure of the command's own, not the library's (the CLI's --jvm):
     * error.status is this name, error.code null */
    const char *cli_status;
    int cli_retryable;
    const char *cli_signal;   /* "SIGKILL": error.signal, with cli_status "signal" */
    /* each message as it is made (hs_report_set_messages); none: unsaid */
    hs_message_fn say;
    void *say_ctx;
    int audit_run;            /* an audit: "mode": "audit", no output */
    /* hs_report_end_run: a run ended in it, having noted this many rule
     * arguments and warnings (the ones after are the next run's) */
    int ended, rules_at_end, warnings_at_end;
};

/* The one table of outcomes (report.c: status, exit code, report name,
 * retryable) is public: hs_status_exit, hs_status_name, hs_status_retryable
 * and hs_status_of_exit in hprof_strip.h. A run stopped by a signal is no
 * library status: "signal", exit 128+N, retryable. */

/* Keeps a copy of the filter's histogram rows. Returns 0, or -1 on no
 * memory. */
int hs_report_keep_histogram(hs_report *r, const hs_class_count *rows, size_t n, int heaps);
/* Keeps a copy of the filter's findings. Returns 0, or -1 on no memory. */
int hs_report_keep_findings(hs_report *r, const hs_finding *rows, size_t n);
/* The JSON name of a finding's kind ("field", "static", "array", ...). */
const char *hs_report_finding_kind(int kind);
/* Frees what `r` holds (rows, findings), not `r` itself: for a report held
 * by value, as hs_job_run's own is (hs_report_free frees one made by
 * hs_report_create). */
void hs_report_clear(hs_report *r);

/* A run (hs_job_run) starts in `r`: when `r` holds one that ended
 * (hs_report_end_run), every field is zeroed (its rows freed) but the
 * message hook and the rule arguments and warnings noted since that run
 * ended, which are the new run's; the first run in `r` keeps all the
 * caller noted. So a reused report never shows the last run's error,
 * counters or rows. */
void hs_report_begin_run(hs_report *r);
void hs_report_end_run(hs_report *r);

/* hs_report_note_rules, hs_report_fail, hs_report_warn and the rendering
 * (hs_report_json, hs_report_json_parts) are public (hprof_strip.h); each
 * message goes to the report's hook, when it has one, and nowhere else. */

/* hs_report_fail for a cut or damage that was salvaged (the run worked:
 * exit 6), said as HS_MSG_SALVAGED. */
void hs_report_salvage(hs_report *r, hs_status code, const hs_error *where, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* A message said to the hook and not kept (HS_MSG_NOTE). */
void hs_report_note(hs_report *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#endif
