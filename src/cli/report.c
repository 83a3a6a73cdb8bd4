/* SPDX-License-Identifier: Apache-2.0 */
/*
 * report.c - the --stats table and the histogram on stderr, for people; the
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
static void print_counter(const char *name, int kind, uint64_t v, const char *what)
{
    char buf[64];

    if (kind == HS_BYTES)
        hs_report_human(buf, sizeof buf, v);
    else if (kind == HS_OFFSET && v == 0)
        snprintf(buf, sizeof buf, "none");
    else
        snprintf(buf, sizeof buf, "%llu", U(v));
    fprintf(stderr, "  %-28s %-22s %s\n", name, buf, what);
}

/* Duplicated arrays, found before scrubbing (counts only, no content). */
static void print_dups(const hs_stats *st)
{
    unsigned t, j;
    uint64_t n = 0, bytes = 0;
    char buf[64];

    for (t = 4; t < 12; t++)
        n += st->dup_arrays[t], bytes += st->dup_bytes[t];
    fprintf(stderr, "  duplicates: %llu arrays repeat an earlier one, taking %s bytes", U(n),
            hs_report_human(buf, sizeof buf, bytes));
    for (t = 4; t < 12; t++)
        if (st->dup_arrays[t])
            fprintf(stderr, "%s %s[] %llu (%llu bytes)", t == 4 ? ":" : ";", hs_basic_type_name(t),
                    U(st->dup_arrays[t]), U(st->dup_bytes[t]));
    fprintf(stderr, "\n");
    for (j = 0; j < 5 && st->dup_top[j].copies; j++)
        fprintf(stderr, "    %s[] of %llu bytes: %llu extra %s, wasting %s bytes\n",
                hs_basic_type_name(st->dup_top[j].type), U(st->dup_top[j].length_bytes),
                U(st->dup_top[j].copies), st->dup_top[j].copies == 1 ? "copy" : "copies",
                hs_report_human(buf, sizeof buf, st->dup_top[j].wasted));
}

void hs_cli_print_stats(const hs_stats *st)
{
    char in[64], out[64];

    fprintf(stderr, "hprof-strip: %s bytes in, %s out: %.1f%% of the input\n",
            hs_report_human(in, sizeof in, st->bytes_in),
            hs_report_human(out, sizeof out, st->bytes_out),
            st->bytes_in ? 100.0 * (double)st->bytes_out / (double)st->bytes_in : 0.0);
#define PRINT_(name, kind, what) print_counter(#name, kind, st->name, what);
    HS_STATS_COUNTERS(PRINT_)
#undef PRINT_
    /* a count of non-zero bytes reads like a leak; it is what was removed */
    if (st->nonzero_array_bytes || st->nonzero_field_bytes)
        fprintf(stderr, "  (the nonzero_* bytes held data in the input that the rules "
                        "zeroed: it is not in the output)\n");
    print_dups(st);
}

/* The name of an Android heap, for the histogram. */
static const char *heap_name(uint32_t heap)
{
    switch (heap) {
    case 0: return "default";
    case 'A': return "app";
    case 'Z': return "zygote";
    case 'I': return "image";
    default: return "other";
    }
}

void hs_cli_print_histogram(const hs_report *r, size_t top)
{
    char in[48], out[48];
    size_t i;

    fprintf(stderr, "hprof-strip: classes by input bytes (%zu in all%s)\n", r->n_histo,
            r->n_histo > top ? "; the JSON report lists every one" : "");
    fprintf(stderr, "  %12s %22s %12s %22s  %s\n", "instances in", "bytes in", "out",
            "bytes out", "class");
    for (i = 0; i < r->n_histo && i < top; i++) {
        const hs_class_count *c = &r->histo[i];
        fprintf(stderr, "  %12llu %22s %12llu %22s  %s%s%s\n", U(c->instances_in),
                hs_report_human(in, sizeof in, c->bytes_in), U(c->instances_out),
                hs_report_human(out, sizeof out, c->bytes_out), c->name,
                r->histo_heaps ? " @" : "", r->histo_heaps ? heap_name(c->heap) : "");
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

