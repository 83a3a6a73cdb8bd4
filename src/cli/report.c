/* SPDX-License-Identifier: Apache-2.0 */
/*
 * report.c - the --stats table and the histogram, for people; the
 * JSON document for pipelines is the library's (src/lib/report.c). The table
 * lists the counters from HS_STATS_COUNTERS, so it cannot miss one.
 */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define U(x) ((unsigned long long)(x))

const char *hs_report_human(char *buf, size_t cap, uint64_t bytes)
{
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = (double)bytes;
    int u = -1;

    while (v >= 1024.0 && u < 5)
        v /= 1024.0, u++;
    if (u < 0)
        snprintf(buf, cap, "%llu", U(bytes));
    else
        snprintf(buf, cap, "%llu (%.1f %s)", U(bytes), v, units[u]);
    return buf;
}

/* One counter's line: its JSON name, its value, what it counts. */
static void print_counter(FILE *to, const char *name, int kind, uint64_t v, const char *what)
{
    char buf[64];

    if (kind == HS_BYTES)
        hs_report_human(buf, sizeof buf, v);
    else if (kind == HS_OFFSET && v == 0)
        snprintf(buf, sizeof buf, "none");
    else
        snprintf(buf, sizeof buf, "%llu", U(v));
    fprintf(to, "  %-28s %-22s %s\n", name, buf, what);
}

/* Duplicated arrays, found before scrubbing (counts only, no content). */
static void print_dups(FILE *to, const hs_stats *st)
{
    unsigned t, j;
    uint64_t n = 0, bytes = 0;
    char buf[64];

    for (t = 4; t < 12; t++)
        n += st->dup_arrays[t], bytes += st->dup_bytes[t];
    fprintf(to, "  duplicates: %llu arrays repeat an earlier one, taking %s bytes", U(n),
            hs_report_human(buf, sizeof buf, bytes));
    for (t = 4; t < 12; t++)
        if (st->dup_arrays[t])
            fprintf(to, "%s %s[] %llu (%llu bytes)", t == 4 ? ":" : ";", hs_basic_type_name(t),
                    U(st->dup_arrays[t]), U(st->dup_bytes[t]));
    fprintf(to, "\n");
    for (j = 0; j < 5 && st->dup_top[j].copies; j++)
        fprintf(to, "    %s[] of %llu bytes: %llu extra %s, wasting %s bytes\n",
                hs_basic_type_name(st->dup_top[j].type), U(st->dup_top[j].length_bytes),
                U(st->dup_top[j].copies), st->dup_top[j].copies == 1 ? "copy" : "copies",
                hs_report_human(buf, sizeof buf, st->dup_top[j].wasted));
}

/* The first line: what went in and what was written, as files (what a
 * user sees on disk, compressed or not), then the HPROF in them. */
static void print_sizes(FILE *to, const hs_report *r, const hs_stats *st, const char *name,
                        int audit)
{
    char in[64], out[64], hin[64], hout[64];
    uint64_t in_file = st->bytes_in, out_file = st->bytes_out;
    int known = hs_report_file_bytes(r, &in_file, &out_file);
    const char *pre = name ? name : "", *sep = name ? ": " : "";

    hs_report_human(in, sizeof in, in_file);
    hs_report_human(hin, sizeof hin, st->bytes_in);
    if (audit || !(known & 2)) {
        fprintf(to, "hprof-strip: %s%s%s bytes read", pre, sep, in);
        if (in_file != st->bytes_in)
            fprintf(to, " (%s of HPROF)", hin);
        fprintf(to, "%s\n", audit ? ", nothing written (an audit)" : "");
        return;
    }
    hs_report_human(out, sizeof out, out_file);
    hs_report_human(hout, sizeof hout, st->bytes_out);
    fprintf(to, "hprof-strip: %s%s%s bytes in, %s %s: %.1f%% of the input", pre, sep, in, out,
            in_file == st->bytes_in && out_file == st->bytes_out ? "out" : "written",
            in_file ? 100.0 * (double)out_file / (double)in_file : 0.0);
    if (in_file != st->bytes_in || out_file != st->bytes_out)
        fprintf(to, " (HPROF: %s in, %s out)", hin, hout);
    fputc('\n', to);
}

void hs_cli_print_stats(FILE *to, const hs_report *r, const hs_stats *st, const char *name,
                        int audit)
{
    print_sizes(to, r, st, name, audit);
#define PRINT_(name, kind, what) print_counter(to, #name, kind, st->name, what);
    HS_STATS_COUNTERS(PRINT_)
#undef PRINT_
    /* a count of non-zero bytes reads like a leak; it is what was removed */
    if (st->nonzero_array_bytes || st->nonzero_field_bytes)
        fprintf(to, "  (the nonzero_* bytes held data in the input that the rules "
                        "zeroed: it is not in the output)\n");
    print_dups(to, st);
}

void hs_cli_print_histogram(FILE *to, const hs_report *r, size_t top, const char *name)
{
    const hs_class_count *rows;
    char in[48], out[48];
    int heaps;
    size_t i, n = hs_report_histogram(r, &rows, &heaps);

    fprintf(to, "hprof-strip: %s%sclasses by input bytes (%zu in all%s)\n", name ? name : "",
            name ? ": " : "", n, n > top ? "; the JSON report lists every one" : "");
    fprintf(to, "  %12s %22s %12s %22s  %s\n", "instances in", "bytes in", "out",
            "bytes out", "class");
    for (i = 0; i < n && i < top; i++) {
        const hs_class_count *c = &rows[i];
        fprintf(to, "  %12llu %22s %12llu %22s  %s%s%s\n", U(c->instances_in),
                hs_report_human(in, sizeof in, c->bytes_in), U(c->instances_out),
                hs_report_human(out, sizeof out, c->bytes_out), c->name, heaps ? " @" : "",
                heaps ? hs_heap_name(c->heap) : "");
    }
}

const char *hs_signal_name(int sig)
{
    switch (sig) {
    case SIGHUP: return "SIGHUP";
    case SIGINT: return "SIGINT";
    case SIGQUIT: return "SIGQUIT";
    case SIGPIPE: return "SIGPIPE";
    case SIGALRM: return "SIGALRM";
    case SIGTERM: return "SIGTERM";
    case SIGUSR1: return "SIGUSR1";
    case SIGUSR2: return "SIGUSR2";
    case SIGXCPU: return "SIGXCPU";
    case SIGXFSZ: return "SIGXFSZ";
    case SIGVTALRM: return "SIGVTALRM";
    case SIGPROF: return "SIGPROF";
    case SIGBUS: return "SIGBUS";
    /* not caught: what a run of many's child can die of with no report */
    case SIGKILL: return "SIGKILL";
    case SIGSEGV: return "SIGSEGV";
    case SIGABRT: return "SIGABRT";
    case SIGILL: return "SIGILL";
    case SIGFPE: return "SIGFPE";
#ifdef SIGPOLL
    case SIGPOLL: return "SIGPOLL";
#endif
#ifdef SIGPWR
    case SIGPWR: return "SIGPWR";
#endif
#ifdef SIGSTKFLT
    case SIGSTKFLT: return "SIGSTKFLT";
#endif
    }
    return NULL;
}

