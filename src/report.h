/* SPDX-License-Identifier: Apache-2.0 */
/*
 * report.h - what a run reports: the --stats table on stderr, and the JSON
 * document (--stats=json on stderr, --stats-file FILE) whose schema the man
 * page lists under STATISTICS.
 */
#ifndef HS_REPORT_H
#define HS_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "hprof_strip.h"

#define HS_REPORT_SCHEMA 1
#define HS_REPORT_MAX_RULES 64
#define HS_REPORT_MAX_WARNINGS 16

/* Everything a run learnt, filled as it goes, so that a failed run can
 * still say how far it got and how it failed. */
typedef struct {
    int ran;                  /* the filter was created: `st` is its counters */
    hs_stats st;
    int has_error;            /* `error` holds the failure (or the salvaged cut) */
    hs_error error;           /* offset/record_offset UINT64_MAX: none */
    int in_known, in_format;  /* in_format: enum hs_input_format */
    uint64_t in_raw;          /* bytes read from the input file (compressed) */
    int out_known, out_format; /* out_format: enum hs_output_format */
    uint64_t out_raw;         /* bytes written to the output file */
    int audited, audit_clean; /* --audit's verdict was reached */
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
    int quiet;                /* -q: salvage notices recorded, not printed */
    char warnings[HS_REPORT_MAX_WARNINGS][240]; /* the filter's, for the JSON */
    int n_warnings;
} hs_report;

/* Keeps a copy of the filter's histogram rows. Returns 0, or -1 on no
 * memory. */
int hs_report_keep_histogram(hs_report *r, const hs_class_count *rows, size_t n, int heaps);
/* Keeps a copy of the filter's findings. Returns 0, or -1 on no memory. */
int hs_report_keep_findings(hs_report *r, const hs_finding *rows, size_t n);
/* The JSON name of a finding's kind ("field", "static", "array", ...). */
const char *hs_report_finding_kind(int kind);
void hs_report_free(hs_report *r);

/* Records a -p (is_file 0) or -r argument for the report. */
void hs_report_note_rules(hs_report *r, int is_file, const char *arg);

/* Prints "hprof-strip: MESSAGE" on stderr and records it as the run's
 * error, with the place `where` gives (NULL: no place in the input). */
void hs_report_fail(hs_report *r, hs_status code, const hs_error *where, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* The same for a cut or damage that was salvaged (the run worked: exit 6),
 * printed only without -q. */
void hs_report_salvage(hs_report *r, hs_status code, const hs_error *where, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Prints "hprof-strip: warning: MESSAGE" on stderr (not with -q) and keeps
 * it for the JSON report's "warnings". */
void hs_report_warn(hs_report *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Writes the JSON document, one line. `in_name`/`out_name` NULL: standard
 * input/output; `audit`: an --audit run (no output). 0, or -1 when writing
 * failed. */
int hs_report_write_json(FILE *fp, const hs_report *r, int exit_status, const char *in_name,
                         const char *out_name, int audit);

/* "1234567 (1.2 MiB)": a byte count with its size in binary units (just
 * the count below 1 KiB). Returns `buf`. */
const char *hs_report_human(char *buf, size_t cap, uint64_t bytes);

#endif
