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
    EXIT_LIMIT = 5,     /* a memory cap was reached, or out of memory */
    EXIT_SALVAGED = 6   /* --salvage: truncated input, complete part written */
};

static const char *g_prog = "hprof-strip";

static void usage(FILE *to)
{
    fprintf(to,
            "Usage: %s [OPTION]... [INPUT [OUTPUT]]\n"
            "Shrink and scrub an HPROF heap dump in one streaming pass.\n"
            "INPUT and OUTPUT default to standard input and output; '-' names them too.\n"
            "\n"
            "  -p, --preset NAME   start from a built-in rule set: default (zero every\n"
            "                      primitive-array payload, drop unused strings), none\n"
            "                      (change nothing), android-app (default, and drop the\n"
            "                      zygote and image heaps' objects)\n"
            "  -r, --rules FILE    apply the rules in FILE (after the presets and rule\n"
            "                      files before it; see hprof-strip(1) for the grammar)\n"
            "      --print-rules NAME  print preset NAME as a rule file and exit\n"
            "      --max-held SIZE memory allowed for held strings and roots (default 1G)\n"
            "      --salvage       when the input is truncated, write everything complete\n"
            "                      as a valid dump and exit with status 6\n"
            "      --repack        re-encode heap dumps into fresh segments even when\n"
            "                      nothing changes (1.0.1 dumps come out as 1.0.2)\n"
            "  -o, --output FILE   write to FILE (created under a temporary name and\n"
            "                      renamed when complete)\n"
            "  -f, --force         overwrite OUTPUT; write binary to a terminal\n"
            "      --stats[=json]  print what was done on standard error (as JSON)\n"
            "  -q, --quiet         no messages except errors\n"
            "  -h, --help          show this help and exit\n"
            "  -V, --version       show the version and exit\n"
            "\n"
            "Exit status: 0 success, 1 invalid input, 2 usage error, 3 truncated input,\n"
            "4 read or write error, 5 memory limit reached, 6 truncated input salvaged.\n"
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
    case HS_SALVAGED: return EXIT_SALVAGED;
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

#define U(x) ((unsigned long long)(x))

static void print_stats(const hs_stats *st)
{
    fprintf(stderr,
            "%s: %llu bytes in, %llu bytes out (%.1f%%)\n"
            "  records         %llu in, %llu out (%llu heap segments written)\n"
            "  sub-records     %llu in, %llu out\n"
            "  objects         %llu instances, %llu object arrays, %llu primitive arrays, "
            "%llu class dumps\n"
            "  payload bytes   %llu zeroed or filled, %llu dropped (%llu arrays dropped)\n"
            "  heaps           %llu objects dropped\n"
            "  roots           %llu in, %llu dropped (at most %llu held at once)\n"
            "  strings         %llu in, %llu out, %llu dropped as unused\n"
            "  held memory     %llu bytes at most\n",
            g_prog, U(st->bytes_in), U(st->bytes_out),
            st->bytes_in ? 100.0 * (double)st->bytes_out / (double)st->bytes_in : 0.0,
            U(st->records_in), U(st->records_out), U(st->segments_out), U(st->subrecords_in),
            U(st->subrecords_out), U(st->instances), U(st->object_arrays),
            U(st->primitive_arrays), U(st->class_dumps), U(st->payload_bytes_zeroed),
            U(st->payload_bytes_dropped), U(st->arrays_dropped), U(st->objects_dropped),
            U(st->roots), U(st->roots_dropped), U(st->roots_held_peak), U(st->strings_in),
            U(st->strings_out), U(st->strings_dropped), U(st->held_bytes_peak));
}

static void print_stats_json(const hs_stats *st)
{
    fprintf(stderr,
            "{\"bytes_in\":%llu,\"bytes_out\":%llu,\"records_in\":%llu,"
            "\"records_out\":%llu,\"segments_out\":%llu,\"subrecords_in\":%llu,"
            "\"subrecords_out\":%llu,\"instances\":%llu,\"object_arrays\":%llu,"
            "\"primitive_arrays\":%llu,\"class_dumps\":%llu,"
            "\"payload_bytes_zeroed\":%llu,\"payload_bytes_dropped\":%llu,"
            "\"arrays_dropped\":%llu,\"objects_dropped\":%llu,\"roots\":%llu,"
            "\"roots_dropped\":%llu,\"roots_held_peak\":%llu,\"strings_in\":%llu,"
            "\"strings_out\":%llu,\"strings_dropped\":%llu,\"held_bytes_peak\":%llu}\n",
            U(st->bytes_in), U(st->bytes_out), U(st->records_in), U(st->records_out),
            U(st->segments_out), U(st->subrecords_in), U(st->subrecords_out),
            U(st->instances), U(st->object_arrays), U(st->primitive_arrays),
            U(st->class_dumps), U(st->payload_bytes_zeroed), U(st->payload_bytes_dropped),
            U(st->arrays_dropped), U(st->objects_dropped), U(st->roots), U(st->roots_dropped),
            U(st->roots_held_peak), U(st->strings_in), U(st->strings_out),
            U(st->strings_dropped), U(st->held_bytes_peak));
}

/* Reads a whole rule file (they are small: at most 1 MiB). */
static char *read_rule_file(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    char *buf;

    if (!fp)
        return NULL;
    buf = malloc((1u << 20) + 1);
    if (buf) {
        *len = fread(buf, 1, (1u << 20) + 1, fp);
        if (ferror(fp) || *len > (1u << 20)) {
            free(buf);
            buf = NULL;
            errno = ferror(fp) ? EIO : EFBIG;
        }
    }
    fclose(fp);
    return buf;
}

/* Applies one -p or -r argument to the rule set; returns an exit code. */
static int add_rules(hs_rules *rules, int is_file, const char *arg)
{
    hs_error err;
    size_t len;
    char *text;
    hs_status s;

    if (!is_file) {
        if (hs_rules_preset(rules, arg, &err) != HS_OK)
            return usage_error(err.message, NULL);
        return EXIT_OK;
    }
    text = read_rule_file(arg, &len);
    if (!text) {
        fprintf(stderr, "%s: %s: %s\n", g_prog, arg, strerror(errno));
        return EXIT_USAGE;
    }
    s = hs_rules_parse(rules, text, len, arg, &err);
    free(text);
    if (s != HS_OK) {
        fprintf(stderr, "%s: %s\n", g_prog, err.message);
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

static int print_rules(const char *name)
{
    hs_rules *rules = hs_rules_create(NULL);
    hs_error err;
    char buf[16384];

    if (!rules)
        return EXIT_LIMIT;
    if (hs_rules_preset(rules, name, &err) != HS_OK) {
        hs_rules_free(rules);
        return usage_error(err.message, NULL);
    }
    hs_rules_print(rules, buf, sizeof buf);
    printf("# hprof-strip rules: preset %s\n# %s\n%s", name, hs_preset_summary(name), buf);
    hs_rules_free(rules);
    return fflush(stdout) == 0 ? EXIT_OK : EXIT_IO;
}

static int parse_size(const char *s, uint64_t *out)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    uint64_t mul = 1;

    if (end == s || *s == '-')
        return -1;
    if (*end == 'k' || *end == 'K')
        mul = 1ull << 10, end++;
    else if (*end == 'm' || *end == 'M')
        mul = 1ull << 20, end++;
    else if (*end == 'g' || *end == 'G')
        mul = 1ull << 30, end++;
    if (*end || v > UINT64_MAX / mul)
        return -1;
    *out = v * mul;
    return 0;
}

int main(int argc, char **argv)
{
    enum { OPT_REPACK = 256, OPT_STATS, OPT_PRINT_RULES, OPT_MAX_HELD, OPT_SALVAGE };
    static const struct option longopts[] = {
        {"preset", required_argument, NULL, 'p'},
        {"rules", required_argument, NULL, 'r'},
        {"print-rules", required_argument, NULL, OPT_PRINT_RULES},
        {"repack", no_argument, NULL, OPT_REPACK},
        {"salvage", no_argument, NULL, OPT_SALVAGE},
        {"max-held", required_argument, NULL, OPT_MAX_HELD},
        {"output", required_argument, NULL, 'o'},
        {"force", no_argument, NULL, 'f'},
        {"stats", optional_argument, NULL, OPT_STATS},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0}};
    const char *in_path = NULL, *out_path = NULL;
    int force = 0, stats = 0, c, rc, have_preset = 0;
    hs_options opt;
    hs_rules *rules;
    hs_filter *filter;
    hs_fd in = {STDIN_FILENO, 0}, out = {STDOUT_FILENO, 0};
    hs_outfile of = {NULL, NULL, -1};
    hs_source src;
    hs_sink dst;
    hs_status s;

    memset(&opt, 0, sizeof opt);
    rules = hs_rules_create(NULL);
    if (!rules) {
        fprintf(stderr, "%s: out of memory\n", g_prog);
        return EXIT_LIMIT;
    }
    /* Presets and rule files apply in the order given, on top of the
     * default preset unless a -p comes first. */
    for (c = 1; c < argc && strcmp(argv[c], "--") != 0; c++)
        if (strncmp(argv[c], "-p", 2) == 0 || strncmp(argv[c], "--preset", 8) == 0)
            have_preset = 1;
    if (!have_preset)
        hs_rules_preset(rules, "default", NULL);
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":p:r:o:fqhV", longopts, NULL)) != -1) {
        switch (c) {
        case 'p':
        case 'r':
            rc = add_rules(rules, c == 'r', optarg);
            if (rc != EXIT_OK) {
                hs_rules_free(rules);
                return rc;
            }
            break;
        case 'o': out_path = optarg; break;
        case 'f': force = 1; break;
        case 'q': break;
        case OPT_REPACK: opt.repack = 1; break;
        case OPT_SALVAGE: opt.salvage = 1; break;
        case OPT_MAX_HELD:
            if (parse_size(optarg, &opt.max_held) != 0 || opt.max_held == 0) {
                hs_rules_free(rules);
                return usage_error("--max-held takes a size such as 512M, not", optarg);
            }
            break;
        case OPT_STATS:
            if (optarg && strcmp(optarg, "json") != 0) {
                hs_rules_free(rules);
                return usage_error("--stats takes no value or =json, not", optarg);
            }
            stats = optarg ? 2 : 1;
            break;
        case OPT_PRINT_RULES:
            hs_rules_free(rules);
            return print_rules(optarg);
        case 'h':
            hs_rules_free(rules);
            usage(stdout);
            return fflush(stdout) == 0 ? EXIT_OK : EXIT_IO;
        case 'V':
            hs_rules_free(rules);
            printf("hprof-strip %s\n", HS_VERSION_STRING);
            return fflush(stdout) == 0 ? EXIT_OK : EXIT_IO;
        case ':':
            hs_rules_free(rules);
            return usage_error("missing argument for option", argv[optind - 1]);
        default:
            hs_rules_free(rules);
            return usage_error("unknown option", argv[optind - 1]);
        }
    }
    if (optind < argc)
        in_path = argv[optind++];
    if (optind < argc) {
        if (out_path) {
            hs_rules_free(rules);
            return usage_error("both -o and an OUTPUT argument given:", argv[optind]);
        }
        out_path = argv[optind++];
    }
    if (optind < argc) {
        hs_rules_free(rules);
        return usage_error("unexpected argument", argv[optind]);
    }
    if (in_path && strcmp(in_path, "-") == 0)
        in_path = NULL;
    if (out_path && strcmp(out_path, "-") == 0)
        out_path = NULL;

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
    if (s == HS_SALVAGED) {
        fprintf(stderr, "%s: %s: %s\n", g_prog, in_path ? in_path : "stdin",
                hs_filter_error(filter)->message);
        if (out_path && hs_outfile_commit(&of) != 0) {
            fprintf(stderr, "%s: %s: %s\n", g_prog, out_path, strerror(errno));
            rc = EXIT_IO;
        }
    } else if (s != HS_OK) {
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
        if (stats == 2)
            print_stats_json(&st);
        else
            print_stats(&st);
    }
    hs_filter_free(filter);
    hs_rules_free(rules);
    if (in_path)
        close(in.fd);
    return rc;
}
