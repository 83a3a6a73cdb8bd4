/*
 * main.c - the hprof-strip command: options, files, messages, exit codes.
 * Everything about HPROF lives in the library; this file only wires a rule
 * set and a filter to file descriptors.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hprof_strip.h"
#include "io.h"

/* Exit codes, documented in the man page. */
enum {
    EXIT_OK = 0,
    EXIT_BAD_INPUT = 1, /* not HPROF, or breaks the format */
    EXIT_USAGE = 2,     /* bad option or argument */
    EXIT_TRUNCATED = 3, /* the input ends inside a record */
    EXIT_IO = 4,        /* reading or writing failed */
    EXIT_LIMIT = 5      /* a memory cap was reached, or out of memory */
};

static const char *g_prog = "hprof-strip";

static void usage(FILE *to)
{
    fprintf(to,
            "Usage: %s [OPTION]... [INPUT [OUTPUT]]\n"
            "Shrink and scrub an HPROF heap dump in one streaming pass.\n"
            "INPUT and OUTPUT default to standard input and output; '-' names them too.\n"
            "\n"
            "  -p, --preset NAME   rules to apply: default (zero primitive-array payloads,\n"
            "                      drop unused strings) or none (copy unchanged)\n"
            "      --repack        re-encode heap dumps into fresh segments even when\n"
            "                      nothing changes (1.0.1 dumps come out as 1.0.2)\n"
            "  -o, --output FILE   write to FILE (created under a temporary name and\n"
            "                      renamed when complete)\n"
            "  -f, --force         overwrite OUTPUT; write binary to a terminal\n"
            "      --stats         print what was done on standard error\n"
            "  -q, --quiet         no messages except errors\n"
            "  -h, --help          show this help and exit\n"
            "  -V, --version       show the version and exit\n"
            "\n"
            "Exit status: 0 success, 1 invalid input, 2 usage error, 3 truncated input,\n"
            "4 read or write error, 5 memory limit reached.\n"
            "See hprof-strip(1) for details.\n",
            g_prog);
}

/* Prints a usage error (one line naming what was wrong) and returns 2. */
static int usage_error(const char *what, const char *arg)
{
    fprintf(stderr, "%s: %s%s%s%s\nTry '%s --help' for more information.\n", g_prog, what,
            arg ? " '" : "", arg ? arg : "", arg ? "'" : "", g_prog);
    return EXIT_USAGE;
}

static int exit_code(hs_status s)
{
    switch (s) {
    case HS_OK: return EXIT_OK;
    case HS_E_MALFORMED:
    case HS_E_UNSUPPORTED: return EXIT_BAD_INPUT;
    case HS_E_TRUNCATED: return EXIT_TRUNCATED;
    case HS_E_READ:
    case HS_E_WRITE: return EXIT_IO;
    case HS_E_LIMIT:
    case HS_E_NOMEM: return EXIT_LIMIT;
    case HS_E_USAGE: return EXIT_USAGE;
    }
    return EXIT_BAD_INPUT;
}

static void on_signal(int sig)
{
    hs_outfile_remove_on_signal();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void print_stats(const hs_stats *st)
{
    fprintf(stderr,
            "%s: %llu bytes in, %llu bytes out (%.1f%%)\n"
            "  records        %llu in, %llu out (%llu heap segments written)\n"
            "  sub-records    %llu in, %llu out\n"
            "  objects        %llu instances, %llu object arrays, %llu primitive arrays, "
            "%llu class dumps, %llu roots\n"
            "  payload bytes  %llu zeroed or filled, %llu dropped (%llu arrays dropped)\n"
            "  strings        %llu in, %llu out\n",
            g_prog, (unsigned long long)st->bytes_in, (unsigned long long)st->bytes_out,
            st->bytes_in ? 100.0 * (double)st->bytes_out / (double)st->bytes_in : 0.0,
            (unsigned long long)st->records_in, (unsigned long long)st->records_out,
            (unsigned long long)st->segments_out, (unsigned long long)st->subrecords_in,
            (unsigned long long)st->subrecords_out, (unsigned long long)st->instances,
            (unsigned long long)st->object_arrays, (unsigned long long)st->primitive_arrays,
            (unsigned long long)st->class_dumps, (unsigned long long)st->roots,
            (unsigned long long)st->payload_bytes_zeroed,
            (unsigned long long)st->payload_bytes_dropped,
            (unsigned long long)st->arrays_dropped, (unsigned long long)st->strings_in,
            (unsigned long long)st->strings_out);
}

int main(int argc, char **argv)
{
    enum { OPT_REPACK = 256, OPT_STATS };
    static const struct option longopts[] = {
        {"preset", required_argument, NULL, 'p'}, {"repack", no_argument, NULL, OPT_REPACK},
        {"output", required_argument, NULL, 'o'}, {"force", no_argument, NULL, 'f'},
        {"stats", no_argument, NULL, OPT_STATS},  {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},         {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0}};
    const char *preset = "default", *in_path = NULL, *out_path = NULL;
    int force = 0, stats = 0, c, rc;
    hs_options opt;
    hs_rules *rules;
    hs_filter *filter;
    hs_fd in = {STDIN_FILENO, 0}, out = {STDOUT_FILENO, 0};
    hs_outfile of = {NULL, NULL, -1};
    hs_source src;
    hs_sink dst;
    hs_status s;
    hs_error err;

    memset(&opt, 0, sizeof opt);
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":p:o:fqhV", longopts, NULL)) != -1) {
        switch (c) {
        case 'p': preset = optarg; break;
        case 'o': out_path = optarg; break;
        case 'f': force = 1; break;
        case 'q': break;
        case OPT_REPACK: opt.repack = 1; break;
        case OPT_STATS: stats = 1; break;
        case 'h': usage(stdout); return fflush(stdout) == 0 ? EXIT_OK : EXIT_IO;
        case 'V':
            printf("hprof-strip %s\n", HS_VERSION_STRING);
            return fflush(stdout) == 0 ? EXIT_OK : EXIT_IO;
        case ':': return usage_error("missing argument for option", argv[optind - 1]);
        default: return usage_error("unknown option", argv[optind - 1]);
        }
    }
    if (optind < argc)
        in_path = argv[optind++];
    if (optind < argc) {
        if (out_path)
            return usage_error("both -o and an OUTPUT argument given:", argv[optind]);
        out_path = argv[optind++];
    }
    if (optind < argc)
        return usage_error("unexpected argument", argv[optind]);
    if (in_path && strcmp(in_path, "-") == 0)
        in_path = NULL;
    if (out_path && strcmp(out_path, "-") == 0)
        out_path = NULL;

    rules = hs_rules_create(NULL);
    if (!rules) {
        fprintf(stderr, "%s: out of memory\n", g_prog);
        return EXIT_LIMIT;
    }
    if (hs_rules_preset(rules, preset, &err) != HS_OK) {
        hs_rules_free(rules);
        return usage_error(err.message, NULL);
    }

    if (!out_path && isatty(STDOUT_FILENO) && !force) {
        hs_rules_free(rules);
        fprintf(stderr,
                "%s: refusing to write a binary heap dump to a terminal; redirect "
                "standard output, use -o FILE, or -f to insist\n",
                g_prog);
        return EXIT_USAGE;
    }
    if (in_path) {
        in.fd = open(in_path, O_RDONLY);
        if (in.fd < 0) {
            fprintf(stderr, "%s: %s: %s\n", g_prog, in_path, strerror(errno));
            hs_rules_free(rules);
            return EXIT_IO;
        }
    }
    if (out_path) {
        if (hs_outfile_open(&of, out_path, force) != 0) {
            if (errno == EEXIST)
                fprintf(stderr, "%s: %s already exists; use -f to overwrite it\n", g_prog,
                        out_path);
            else
                fprintf(stderr, "%s: %s: %s\n", g_prog, out_path, strerror(errno));
            hs_rules_free(rules);
            return errno == EEXIST ? EXIT_USAGE : EXIT_IO;
        }
        out.fd = of.fd;
        signal(SIGINT, on_signal);
        signal(SIGTERM, on_signal);
        signal(SIGHUP, on_signal);
    }
    /* A closed pipe downstream, or a file-size limit, is an error to report
     * (write fails with EPIPE or EFBIG), not a silent death by signal. */
    signal(SIGPIPE, SIG_IGN);
#ifdef SIGXFSZ
    signal(SIGXFSZ, SIG_IGN);
#endif

    filter = hs_filter_create(rules, &opt, NULL);
    if (!filter) {
        fprintf(stderr, "%s: out of memory\n", g_prog);
        hs_outfile_abort(&of);
        hs_rules_free(rules);
        return EXIT_LIMIT;
    }
    src.read = hs_fd_read;
    src.ctx = &in;
    dst.write = hs_fd_write;
    dst.ctx = &out;
    s = hs_filter_run(filter, &src, &dst);
    rc = exit_code(s);
    if (s != HS_OK) {
        const hs_error *e = hs_filter_error(filter);
        const char *name = in_path ? in_path : "stdin";
        if (s == HS_E_READ)
            fprintf(stderr, "%s: %s: %s: %s\n", g_prog, name, e->message, strerror(in.err));
        else if (s == HS_E_WRITE)
            fprintf(stderr, "%s: %s: %s\n", g_prog, e->message,
                    out.err ? strerror(out.err) : "unknown error");
        else
            fprintf(stderr, "%s: %s: %s\n", g_prog, name, e->message);
        hs_outfile_abort(&of);
    } else if (out_path && hs_outfile_commit(&of) != 0) {
        fprintf(stderr, "%s: %s: %s\n", g_prog, out_path, strerror(errno));
        rc = EXIT_IO;
    }
    if (stats) {
        hs_stats st;
        hs_filter_stats(filter, &st);
        print_stats(&st);
    }
    hs_filter_free(filter);
    hs_rules_free(rules);
    if (in_path)
        close(in.fd);
    return rc;
}
