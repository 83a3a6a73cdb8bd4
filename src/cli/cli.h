/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cli.h - what the command-line files share: the parsed command line (the
 * exit codes are the library's, hprof_strip.h's enum hs_exit_code, as
 * hs_job_run returns them).
 */
#ifndef HS_CLI_H
#define HS_CLI_H

#include <limits.h>
#include <stdint.h>
#include <stdio.h>

/* The command's own report calls too: it links libhprofstrip.a, so it
 * may (hprof_strip_static.h says why they are apart). */
#define HS_STATIC_LINKING_ONLY
#include "hprof_strip_static.h"

typedef struct hs_cli hs_cli;
struct hs_cli {
    const char *in_path, *out_path; /* NULL: stdin, stdout */
    int out_positional; /* the output was named as OUTPUT, not with -o */
    hs_rules *rules;
    hs_options opt;
    int force, stats;   /* stats: 0 none, 1 table, 2 JSON */
    int format_given;   /* -z/--gzip/--no-compress said, else from -o's name */
    hs_compression format;
    int level;          /* compression level as given, or HS_CLI_LEVEL_DEFAULT */
    int threads;        /* compression threads */
    int progress;       /* -1 auto (a terminal), 0 off, 1 on */
    uint64_t size;      /* --size: input size for the progress display */
    int audit;          /* --audit: read, write nothing, report what is left */
    const char *stats_file; /* --stats-file: the JSON report goes there */
    int histogram;      /* --histogram: per-class counts, text and JSON */
    int quiet;          /* -q: errors only on stderr, no --audit report */
    int android_preset; /* -p android-app given: warn when the dump is a JVM's */
    const char *mapping_path; /* --mapping FILE (else a rule file's `mapping`) */
    int failed_early;   /* the command line failed: no dump will be written */
    int keep_output;    /* --salvage wrote a valid dump: kept whatever the exit code */
    const char *obfuscate_path; /* --obfuscate-names MAPFILE: written after the run */
    hs_report *report;  /* what the run learnt, for the JSON report */
    /* many.c: FILE... -o DIR (files NULL: one input, the run above) */
    char **files;       /* the FILE operands, n_files of them */
    int n_files;
    const char *out_dir; /* -o DIR */
    int jobs;           /* -j: at most this many at a time (0: the cores) */
    const char *timeout; /* --timeout SECONDS as given (NULL: none) */
    double timeout_s;
    long jvm_pid;       /* --jvm PID (jvm.c), else 0 */
    char jvm_name[32];  /* --jvm's input in messages and the report: "jvm:PID" */
    int jvm_all;        /* --jvm-all: jcmd's -all (unreachable objects too) */
    /* the input's own verdict once read, before the output is put in place
     * (--jvm: what jcmd said); returns the run's exit code */
    int (*input_done)(hs_cli *cli, int rc);
    /* where the --stats table, the histogram and --stats=json's document
     * go: standard error, but a child of many.c's writes them to a file
     * of its own, which the parent copies to standard error whole, so
     * that two inputs' tables never interleave (0: stderr) */
    int stats_fd;
    /* where the JSON report goes when many.c's child runs: the memory file
     * the parent reads, open already and streamed to as standard output
     * would be (0: cli->stats_file is opened as usual). Not standard
     * output itself: --audit's certificate goes there */
    int report_fd;
};

/* The report's message hook (ctx: the hs_cli): each message on stderr as
 * "hprof-strip: MESSAGE" ("warning: " before a warning), warnings and
 * salvage notices not with -q. A run's own hook adds to it (run.c). */
void hs_cli_say(void *ctx, hs_message_kind kind, hs_status code, const hs_error *where,
                char *text, size_t cap);

/* The input's name in messages: its path, jvm:PID, or "stdin". */
const char *hs_cli_in_name(const hs_cli *cli);
/* ... and in the JSON report, where standard input is null. */
const char *hs_cli_report_in_name(const hs_cli *cli);

/* No -z/--gzip level given: the format's own (hs_output_params.level 0);
 * any number can be given (-z0 too), this one cannot. */
#define HS_CLI_LEVEL_DEFAULT INT_MIN

/* --timeout stopped the run (timeout(1)'s status, not a library status) */
#define HS_EXIT_TIMEOUT 124
/* --timeout's most seconds, a week: a longer deadline is likely a slip
 * (milliseconds given as seconds), and the bound keeps the timer's whole
 * seconds far inside time_t */
#define HS_CLI_TIMEOUT_MAX 604800

/* many.c: strips every cli->files[i] into cli->out_dir, cli->jobs at a
 * time, each in a child process that runs `one` (main.c: what a single
 * run does, with cli->in_path, out_path, threads and stats_file set, and
 * `rc` HS_EXIT_OK or the exit code of a failure already said). Returns the
 * worst exit status (the man page's order), or dies of the signal that
 * stopped it. */
int hs_cli_many(hs_cli *cli, int (*one)(hs_cli *cli, int rc));

/* run.c: opens the files, runs the filter; returns an exit code. */
int hs_cli_run(hs_cli *cli);
/* run.c: the JSON report's destinations (--stats-file FILE or -,
 * --stats=json), opened before anything else is (the inputs noted first):
 * HS_EXIT_OK, or the exit code with the message said (no report possible). */
int hs_cli_report_open(hs_cli *cli);
/* Writes the report of a run that ended with `rc` and puts it in place;
 * returns `rc`, or HS_EXIT_IO for a good run whose report failed. */
int hs_cli_report_close(hs_cli *cli, int rc);

/* mapfile.c: reads the mapping at `path` (plain, gzip or zstd) into
 * `rules`, parsed as it streams, holding at most `max_held` bytes (0: the
 * default cap); returns an exit code, the failure recorded in `report`
 * (and said through its hook). */
int hs_cli_load_mapping(hs_report *report, hs_rules *rules, const char *path, uint64_t max_held);

/* report.c (the JSON report and the exit codes are the library's) */
/* The --stats table to `to`; `name` (NULL: none) heads it, for many.c. */
void hs_cli_print_stats(FILE *to, const hs_report *r, const hs_stats *st, const char *name,
                        int audit);
/* "1234567 (1.2 MiB)": a byte count with its size in binary units (just
 * the count below 1 KiB). Returns `buf`. */
const char *hs_report_human(char *buf, size_t cap, uint64_t bytes);
/* "SIGTERM" for SIGTERM, NULL for a signal not in the list. */
const char *hs_signal_name(int sig);
/* The histogram's top `top` rows by input bytes, to `to`; `name` as
 * hs_cli_print_stats's. */
void hs_cli_print_histogram(FILE *to, const hs_report *r, size_t top, const char *name);

#endif
