/* SPDX-License-Identifier: Apache-2.0 */
/*
 * main.c - the hprof-strip command line: options into an hs_cli, usage,
 * presets and rule files. Everything about HPROF lives in the library;
 * run.c wires the filter to files.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "hprof_strip.h"
#include "io.h"
#include "jvm.h"
#include "stop.h"

static const char *g_prog = "hprof-strip";
/* where a usage error is recorded for the JSON report (main's hs_cli) */
static hs_report *g_report;

/* parse_args: the command line asked for a job that is now done (--help,
 * --version, --print-rules). */
#define JOB_DONE 256

static void usage(FILE *to)
{
    fprintf(to,
            "Usage: %s [OPTION]... [INPUT [OUTPUT]]\n"
            "  or:  %s [OPTION]... FILE... -o DIR\n"
            "Shrink and scrub an HPROF heap dump in one streaming pass.\n"
            "INPUT and OUTPUT default to standard input and output; '-' names them too.\n"
            "INPUT may be gzip- or zstd-compressed: it is detected by its first bytes.\n"
            "\n"
            "  -p, --preset NAME   start from a built-in rule set: default (zero every\n"
            "                      primitive-array payload, drop unused strings), none\n"
            "                      (change nothing), privacy (default, and zero every\n"
            "                      primitive field value), android-app (default, and drop\n"
            "                      the zygote and image heaps' objects)\n"
            "  -r, --rules FILE    apply the rules in FILE (after the presets and rule\n"
            "                      files before it; see hprof-strip(1) for the grammar)\n"
            "      --print-rules [NAME]  print preset NAME as a rule file and exit\n"
            "                      (no NAME: list the presets)\n"
            "      --max-held SIZE memory allowed for held strings and roots (default 1G)\n"
            "      --spill-after SIZE  instances held for their class (privacy on Android\n"
            "                      dumps) go to a temporary file past SIZE (default 64M)\n"
            "      --audit         write nothing; check every byte of INPUT (or of each\n"
            "                      FILE...), its gzip or zstd container too, and print a\n"
            "                      certificate: exit 0 only when none is data (7 otherwise)\n"
            "      --salvage       when the input is truncated, write everything complete\n"
            "                      as a valid dump and exit with status 6\n"
            "      --repack        re-encode heap dumps into fresh segments even when\n"
            "                      nothing changes (1.0.1 dumps come out as 1.0.2)\n"
            "      --to-jvm        write an Android (1.0.3) dump as 1.0.2 for MAT and\n"
            "                      VisualVM, the way hprof-conv does; without -p or -r\n"
            "                      it changes nothing else (preset none)\n"
            "  -o, --output FILE   write to FILE (created under a temporary name and\n"
            "                      renamed when complete); FILE.zst and FILE.gz are\n"
            "                      compressed unless told otherwise\n"
            "  -z, --zstd[=LEVEL]  compress the output with zstd (level 1 for a dump\n"
            "                      with 8-byte ids, 3 for 4-byte ones)\n"
            "      --gzip[=LEVEL]  compress the output with gzip (level 1), as\n"
            "                      independent members made in parallel\n"
            "      --no-compress   write plain HPROF whatever -o's name says\n"
            "                      (-z and --gzip refuse a name that says another\n"
            "                      format: .gz, .zst, .hprof)\n"
            "  -T, --threads N     compression threads (default: $HPROF_STRIP_THREADS,\n"
            "                      else every core)\n"
            "  -o DIR (FILE...)    strip every FILE into DIR (named after it: see\n"
            "                      hprof-strip(1)); goes on after one that fails\n"
            "  -j, --jobs N        with -o DIR, strip N files at a time (default: the\n"
            "                      cores), the -T threads shared among them\n"
            "      --timeout SECONDS  stop a run (each FILE's) taking longer: its output\n"
            "                      removed, exit status 124; SECONDS is a decimal\n"
            "                      number (30, 0.5) up to 604800, a week; 0 is no\n"
            "                      deadline\n"
            "      --progress      show progress on stderr even when it is not a\n"
            "                      terminal (--no-progress: never)\n"
            "      --size SIZE     input size, for the progress display of a pipe\n"
            "  -f, --force         overwrite OUTPUT (never a file read, nor a dump\n"
            "                      named without -o: see FILES in hprof-strip(1));\n"
            "                      write binary to a terminal\n"
            "      --stats[=json]  print what was done on standard error (as JSON)\n"
            "      --stats-file FILE  write the JSON report to FILE ('-': standard\n"
            "                      output), failed and stopped runs too\n"
            "      --histogram     instances and bytes per class, in and out (top 20;\n"
            "                      all of them in the JSON report)\n"
            "      --mapping FILE  deobfuscate with an R8/ProGuard mapping.txt (may be\n"
            "                      .gz or .zst): classes, fields and stack frames\n"
            "      --obfuscate-names MAPFILE  rename application classes, fields and\n"
            "                      stack frames to short opaque names; write the\n"
            "                      mapping (R8 format: --mapping MAPFILE restores them)\n"
            "      --jvm PID       strip a running JVM's heap as it dumps it (jcmd\n"
            "                      GC.heap_dump into a FIFO: no full dump on disk);\n"
            "                      no INPUT; -o FILE or standard output\n"
            "      --jvm-live      live objects only (the default: jcmd's)\n"
            "      --jvm-all       unreachable objects too (jcmd's -all)\n"
            "  -q, --quiet         no messages except errors (--audit: the exit status\n"
            "                      alone)\n"
            "  -h, --help          show this help and exit\n"
            "  -V, --version       show the version and exit\n"
            "\n"
            "Exit status: 0 success, 1 invalid input, 2 usage error, 3 truncated input,\n"
            "4 read or write error, 5 memory limit reached, 6 truncated input salvaged,\n"
            "7 --audit found data, 8 cancelled (the library's alone: never this\n"
            "command's), 9 --jvm: no such JVM (or not this user's), 10 --jvm: the JVM\n"
            "could not be dumped (jcmd failed), 124 --timeout, 128+N stopped by\n"
            "signal N; several FILEs: the worst of theirs.\n"
            "See hprof-strip(1) for details.\n",
            g_prog, g_prog);
}

/* Prints a usage error (one line naming what was wrong) and returns 2. */
static int usage_error(const char *what, const char *arg)
{
    hs_report_fail(g_report, HS_E_USAGE, NULL, "%s%s%s%s", what, arg ? " '" : "", arg ? arg : "",
                   arg ? "'" : "");
    fprintf(stderr, "Try '%s --help' for more information.\n", g_prog);
    return HS_EXIT_USAGE;
}

/* Reads a whole rule file (they are small: at most 1 MiB). */
static char *read_rule_file(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    struct stat st;
    char *buf;

    if (!fp)
        return NULL;
    /* fopen opens a directory; reading it would fail with a vaguer EISDIR */
    if (fstat(fileno(fp), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(fp);
        errno = EISDIR;
        return NULL;
    }
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

static const char *const g_presets[] = {"none", "default", "privacy", "android-app"};

/* An unknown preset name, said as such with the names there are (the
 * library's message names a position in a rule text: "--preset:1:1"). */
static int unknown_preset(const char *name)
{
    char list[200] = "";
    size_t i;

    for (i = 0; i < sizeof g_presets / sizeof g_presets[0]; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s %s", i ? "," : "",
                 g_presets[i]);
    hs_report_fail(g_report, HS_E_USAGE, NULL, "unknown preset '%s'; presets:%s", name, list);
    fprintf(stderr, "Try '%s --print-rules' for what each does.\n", g_prog);
    return HS_EXIT_USAGE;
}

/* --print-rules without a name: the presets, one a line with what it does. */
static int list_presets(void)
{
    size_t i;

    for (i = 0; i < sizeof g_presets / sizeof g_presets[0]; i++)
        printf("%-12s %s\n", g_presets[i], hs_preset_summary(g_presets[i]));
    printf("Print one as a rule file: %s --print-rules NAME\n", g_prog);
    return fflush(stdout) == 0 ? HS_EXIT_OK : HS_EXIT_IO;
}

/* Applies one -p or -r argument to the rule set; returns an exit code. */
static int add_rules(hs_rules *rules, int is_file, const char *arg)
{
    hs_error err;
    size_t len;
    char *text;
    hs_status s;

    if (!is_file) {
        if (!hs_preset_summary(arg))
            return unknown_preset(arg);
        if (hs_rules_preset(rules, arg, &err) != HS_OK)
            return usage_error(err.message, NULL);
        return HS_EXIT_OK;
    }
    if (hs_files_note_input("-r", arg) != 0) {
        fprintf(stderr, "%s: out of memory\n", g_prog);
        return HS_EXIT_LIMIT;
    }
    text = read_rule_file(arg, &len);
    if (!text)
        return hs_report_fail(g_report, HS_E_USAGE, NULL, "%s: %s", arg, strerror(errno));
    s = hs_rules_parse(rules, text, len, arg, &err);
    free(text);
    if (s != HS_OK) /* a bad line, a preset it names that does not exist: usage */
        return hs_report_fail(g_report, HS_E_USAGE, NULL, "%s",
                              hs_rules_message(rules) ? hs_rules_message(rules) : err.message);
    return HS_EXIT_OK;
}

static int print_rules(const char *name)
{
    hs_rules *rules = hs_rules_create(NULL);
    hs_error err;
    char buf[16384];

    if (!rules)
        return HS_EXIT_LIMIT;
    if (!hs_preset_summary(name)) {
        hs_rules_free(rules);
        return unknown_preset(name);
    }
    if (hs_rules_preset(rules, name, &err) != HS_OK) {
        hs_rules_free(rules);
        return usage_error(err.message, NULL);
    }
    hs_rules_print(rules, buf, sizeof buf);
    printf("# hprof-strip rules: preset %s\n# %s\n%s", name, hs_preset_summary(name), buf);
    hs_rules_free(rules);
    return fflush(stdout) == 0 ? HS_EXIT_OK : HS_EXIT_IO;
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

static const char *format_option(hs_compression format)
{
    return format == HS_COMPRESS_ZSTD ? "-z" : format == HS_COMPRESS_GZIP ? "--gzip" : "--no-compress";
}

/* The -z or --gzip given without a level ("-z" or "--zstd"), so that a
 * level written as a separate word ("-z 19") can be told from a file. */
static const char *g_bare_format;

static int set_format(hs_cli *cli, hs_compression format, const char *level,
                      const char *spelled)
{
    char *end;
    long v;
    int lo = 0, hi = 0;

    if (cli->format_given && cli->format != format) {
        fprintf(stderr, "%s: choose one of %s and %s\n", g_prog, format_option(cli->format),
                format_option(format));
        return HS_EXIT_USAGE;
    }
    g_bare_format = level || format == HS_COMPRESS_NONE ? NULL : spelled;
    cli->format_given = 1;
    cli->format = format;
    cli->level = HS_CLI_LEVEL_DEFAULT;
    if (!level)
        return HS_EXIT_OK;
    v = strtol(level, &end, 10);
    (void)hs_compression_levels(format, &lo, &hi);
    if (*end || end == level || v < lo || v > hi) {
        char what[64];
        snprintf(what, sizeof what, "%s levels run from %d to %d, not",
                 hs_compression_name(format), lo, hi);
        return usage_error(what, level);
    }
    cli->level = (int)v;
    return HS_EXIT_OK;
}

enum {
    OPT_REPACK = 256, OPT_STATS, OPT_PRINT_RULES, OPT_MAX_HELD, OPT_SALVAGE, OPT_GZIP,
    OPT_NO_COMPRESS, OPT_PROGRESS, OPT_NO_PROGRESS, OPT_SIZE, OPT_TO_JVM, OPT_AUDIT,
    OPT_SPILL_AFTER, OPT_STATS_FILE, OPT_HISTOGRAM, OPT_MAPPING, OPT_OBFUSCATE, OPT_TIMEOUT,
    OPT_JVM, OPT_JVM_ALL, OPT_JVM_LIVE
};
static const char g_optstring[] = ":p:r:o:z::T:j:fqhV";
static const struct option longopts[] = {
        {"preset", required_argument, NULL, 'p'},
        {"rules", required_argument, NULL, 'r'},
        {"print-rules", required_argument, NULL, OPT_PRINT_RULES},
        {"repack", no_argument, NULL, OPT_REPACK},
        {"salvage", no_argument, NULL, OPT_SALVAGE},
        {"to-jvm", no_argument, NULL, OPT_TO_JVM},
        {"audit", no_argument, NULL, OPT_AUDIT},
        {"spill-after", required_argument, NULL, OPT_SPILL_AFTER},
        {"max-held", required_argument, NULL, OPT_MAX_HELD},
        {"output", required_argument, NULL, 'o'},
        {"zstd", optional_argument, NULL, 'z'},
        {"gzip", optional_argument, NULL, OPT_GZIP},
        {"no-compress", no_argument, NULL, OPT_NO_COMPRESS},
        {"threads", required_argument, NULL, 'T'},
        {"jobs", required_argument, NULL, 'j'},
        {"timeout", required_argument, NULL, OPT_TIMEOUT},
        {"progress", no_argument, NULL, OPT_PROGRESS},
        {"no-progress", no_argument, NULL, OPT_NO_PROGRESS},
        {"size", required_argument, NULL, OPT_SIZE},
        {"force", no_argument, NULL, 'f'},
        {"stats", optional_argument, NULL, OPT_STATS},
        {"stats-file", required_argument, NULL, OPT_STATS_FILE},
        {"histogram", no_argument, NULL, OPT_HISTOGRAM},
        {"mapping", required_argument, NULL, OPT_MAPPING},
        {"obfuscate-names", required_argument, NULL, OPT_OBFUSCATE},
        {"jvm", required_argument, NULL, OPT_JVM},
        {"jvm-all", no_argument, NULL, OPT_JVM_ALL},
        {"jvm-live", no_argument, NULL, OPT_JVM_LIVE},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0}};

/* Presets and rule files apply in the order given, on top of a base: the
 * default preset, unless a -p is given anywhere, or --to-jvm with neither
 * -p nor -r (a conversion asked for alone changes nothing else; a rule file
 * means the same with or without it). A first pass over the options finds
 * those, wherever they are on the line. */
static void apply_base_rules(hs_cli *cli, int argc, char **argv)
{
    int c, have_preset = 0, have_rules = 0, to_jvm = 0;

    opterr = 0;
    while ((c = getopt_long(argc, argv, g_optstring, longopts, NULL)) != -1) {
        have_preset |= c == 'p';
        have_rules |= c == 'r';
        to_jvm |= c == OPT_TO_JVM;
        /* where the report goes, known before any option can fail, so
         * that a usage error is reported there too */
        if (c == OPT_STATS_FILE)
            cli->stats_file = optarg;
        else if (c == OPT_STATS && optarg && strcmp(optarg, "json") == 0)
            cli->stats = 2;
    }
    optind = 0; /* glibc: start the real pass from scratch */
    if (!have_preset && (!to_jvm || have_rules)) {
        hs_rules_preset(cli->rules, "default", NULL);
        hs_report_note_rules(cli->report, 0, "default");
    }
}

/* "-z 19": getopt's optional arguments must be attached, so 19 became a
 * file name. When that file does not exist, say what was meant. */
static int check_level_word(const char *path, int is_output)
{
    const char *eq;
    struct stat st;

    if (!g_bare_format || !path || !*path || strspn(path, "0123456789") != strlen(path) ||
        stat(path, &st) == 0)
        return HS_EXIT_OK;
    eq = g_bare_format[1] == '-' ? "=" : "";
    if (is_output) /* a new output file does not exist yet: ./19 says it is one */
        fprintf(stderr, "%s: %s would be the output file's name; did you mean %s%s%s? "
                "(./%s names a file)\n", g_prog, path, g_bare_format, eq, path, path);
    else
        fprintf(stderr, "%s: %s: no such file; did you mean %s%s%s?\n", g_prog, path,
                g_bare_format, eq, path);
    return HS_EXIT_USAGE;
}

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), k = strlen(tail);
    return n > k && strcmp(s + n - k, tail) == 0;
}

/* -z into "x.gz" (or --gzip into "x.zst") would write one format under the
 * other's name, which every tool then fails to open: refuse. So is -z into
 * "x.hprof", hprof-conv's habit (its -z drops the zygote heap): an analyzer
 * told the file is plain HPROF cannot open it. And a name for a compression
 * this command does not write (x.hprof.bz2) would be plain HPROF under it. */
static int check_output_name(const hs_cli *cli)
{
    const char *o = cli->out_path;
    const char *foreign = hs_compression_foreign_of_path(o);
    int named;

    if (foreign) {
        fprintf(stderr,
                "%s: '%s' names a compression this command does not write (%s): name "
                "the output *.hprof (plain), *.hprof.zst (zstd) or *.hprof.gz (gzip), "
                "or pipe plain HPROF to the compressor\n",
                g_prog, o, foreign);
        return HS_EXIT_USAGE;
    }
    if (!o || !cli->format_given || cli->format == HS_COMPRESS_NONE)
        return HS_EXIT_OK;
    if (ends_with(o, ".hprof")) {
        fprintf(stderr,
                "%s: %s writes %s, but the name '%s' says plain HPROF: name the output "
                "'%s%s', or drop %s (hprof-conv's -z, leaving the zygote heap out, is "
                "-p android-app here)\n",
                g_prog, format_option(cli->format), hs_compression_name(cli->format), o, o,
                hs_compression_suffix(cli->format), format_option(cli->format));
        return HS_EXIT_USAGE;
    }
    named = hs_compression_of_path(o, NULL);
    if (named != HS_COMPRESS_NONE && named != (int)cli->format) {
        fprintf(stderr,
                "%s: %s writes %s, but the name '%s' says %s: drop %s, or name the output "
                "*%s\n",
                g_prog, format_option(cli->format), hs_compression_name(cli->format), o,
                hs_compression_name(named), format_option(cli->format),
                hs_compression_suffix(cli->format));
        return HS_EXIT_USAGE;
    }
    return HS_EXIT_OK;
}

/* A count of threads or jobs, 1 to 256 (-T, -j, HPROF_STRIP_THREADS):
 * the count, or 0 when `arg` is not one. */
static int count_1_256(const char *arg)
{
    char *end;
    long n = strtol(arg, &end, 10);

    return *end || end == arg || n < 1 || n > 256 ? 0 : (int)n;
}

/* --timeout SECONDS: a decimal number, digits with at most one point
 * ("30", "0.5", ".5", "5."), nothing else: strtod alone also took hex
 * ("0x10"), exponents, "inf", leading spaces, and turned "1e-400" into 0,
 * no deadline at all. 0 (any spelling of it) is no deadline, as timeout(1)
 * has it; anything else must be a nanosecond (the timer's step) to a week. */
static int timeout_option(hs_cli *cli, const char *arg)
{
    size_t whole = strspn(arg, "0123456789"), frac = 0, end = whole;
    double t;

    if (arg[end] == '.') {
        frac = strspn(arg + end + 1, "0123456789");
        end += 1 + frac;
    }
    if (whole + frac == 0 || arg[end] != 0)
        return usage_error("--timeout takes seconds as a decimal number, such as 30 or 0.5 "
                           "(no sign, exponent, unit or space), not",
                           arg);
    t = strtod(arg, NULL); /* digits and a point (the C locale's: none is set) */
    if (t > HS_CLI_TIMEOUT_MAX) {
        char what[80];
        snprintf(what, sizeof what, "--timeout takes at most a week (%d seconds), not",
                 HS_CLI_TIMEOUT_MAX);
        return usage_error(what, arg);
    }
    /* "0.0000000001", or 400 zeros and a 1 (strtod's underflow to 0): not
     * meant as "no deadline", and shorter than the timer can count */
    if (t < 1e-9 && strcspn(arg, "123456789") < end)
        return usage_error("--timeout takes 0 (no deadline) or at least a nanosecond "
                           "(0.000000001), not",
                           arg);
    cli->timeout = t > 0 ? arg : NULL;
    cli->timeout_s = t;
    return HS_EXIT_OK;
}

/* The options whose argument is a number or a size. */
static int number_option(hs_cli *cli, int c, const char *arg)
{
    switch (c) {
    case 'T':
        if (!(cli->threads = count_1_256(arg)))
            return usage_error("--threads takes a number from 1 to 256, not", arg);
        return HS_EXIT_OK;
    case 'j':
        if (!(cli->jobs = count_1_256(arg)))
            return usage_error("--jobs takes a number from 1 to 256, not", arg);
        return HS_EXIT_OK;
    case OPT_TIMEOUT: return timeout_option(cli, arg);
    case OPT_SIZE:
        if (parse_size(arg, &cli->size) != 0)
            return usage_error("--size takes a size such as 4G, not", arg);
        return HS_EXIT_OK;
    case OPT_SPILL_AFTER:
        if (parse_size(arg, &cli->opt.hold_in_memory) != 0 || !cli->opt.hold_in_memory)
            return usage_error("--spill-after takes a size such as 64M, not", arg);
        return HS_EXIT_OK;
    case OPT_MAX_HELD:
        if (parse_size(arg, &cli->opt.max_held) != 0 || cli->opt.max_held == 0)
            return usage_error("--max-held takes a size such as 512M, not", arg);
        return HS_EXIT_OK;
    default: /* OPT_STATS: no value, or =json */
        if (arg && strcmp(arg, "json") != 0)
            return usage_error("--stats takes no value or =json, not", arg);
        cli->stats = arg ? 2 : 1;
        return HS_EXIT_OK;
    }
}

/* --jvm PID: a process id, given once */
static int jvm_option(hs_cli *cli, const char *arg)
{
    char *end;
    long n;

    errno = 0;
    n = strtol(arg, &end, 10);
    if (*end || end == arg || n < 1 || n > INT_MAX || errno)
        return usage_error("--jvm takes a process id, not", arg);
    if (cli->jvm_pid && cli->jvm_pid != n)
        return usage_error("--jvm given twice: one JVM a run, not", arg);
    cli->jvm_pid = n;
    snprintf(cli->jvm_name, sizeof cli->jvm_name, "jvm:%ld", n);
    return HS_EXIT_OK;
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* INPUT and OUTPUT after the options ("-" is standard input/output), or
 * FILE... -o DIR: several FILEs with -o (which must then be a directory:
 * many.c says so), or one FILE with -o naming a directory, which is no
 * different from several (a script stripping a glob's files). Standard
 * input with -o DIR stays refused (exit 2: there is no name to give the
 * output; tests/cli/cli_safety.sh). */
static int take_operands(hs_cli *cli, int argc, char **argv)
{
    int rc;

    /* --audit FILE...: every operand an input, each audited in turn */
    if (cli->audit && !cli->out_path && argc - optind > 1) {
        cli->files = argv + optind;
        cli->n_files = argc - optind;
        return HS_EXIT_OK;
    }
    if (cli->out_path && optind < argc &&
        (argc - optind > 1 || is_dir(cli->out_path))) {
        cli->files = argv + optind;
        cli->n_files = argc - optind;
        cli->out_dir = cli->out_path;
        cli->out_path = NULL;
        return HS_EXIT_OK;
    }
    if (optind < argc)
        cli->in_path = argv[optind++];
    if (optind < argc) {
        if (cli->out_path)
            return usage_error("both -o and an OUTPUT argument given:", argv[optind]);
        cli->out_path = argv[optind++];
        cli->out_positional = 1;
    }
    if (optind < argc)
        return usage_error("unexpected argument", argv[optind]);
    if (cli->in_path && strcmp(cli->in_path, "-") == 0)
        cli->in_path = NULL;
    if (cli->out_path && strcmp(cli->out_path, "-") == 0)
        cli->out_path = NULL;
    if ((rc = check_level_word(cli->in_path, 0)) != HS_EXIT_OK ||
        (rc = check_level_word(cli->out_path, 1)) != HS_EXIT_OK)
        return rc;
    return check_output_name(cli);
}

/* Fills `cli` from argv. Returns HS_EXIT_OK to go on, or the exit code of a
 * finished job (--help, --version, --print-rules) or of a usage error. */
static int parse_args(hs_cli *cli, int argc, char **argv)
{
    int c, rc;

    apply_base_rules(cli, argc, argv);
    while ((c = getopt_long(argc, argv, g_optstring, longopts, NULL)) != -1) {
        rc = HS_EXIT_OK;
        switch (c) {
        case 'p':
        case 'r':
            if (c == 'p' && strcmp(optarg, "android-app") == 0)
                cli->android_preset = 1;
            hs_report_note_rules(cli->report, c == 'r', optarg);
            rc = add_rules(cli->rules, c == 'r', optarg);
            break;
        case 'o':
            if (cli->out_path) {
                fprintf(stderr, "%s: -o given twice ('%s' and '%s')\n", g_prog, cli->out_path,
                        optarg);
                return HS_EXIT_USAGE;
            }
            cli->out_path = optarg;
            break;
        case 'f': cli->force = 1; break;
        case 'q': cli->quiet = 1, cli->progress = 0; break;
        case 'z': rc = set_format(cli, HS_COMPRESS_ZSTD, optarg, argv[optind - 1]); break;
        case OPT_GZIP: rc = set_format(cli, HS_COMPRESS_GZIP, optarg, argv[optind - 1]); break;
        case OPT_NO_COMPRESS: rc = set_format(cli, HS_COMPRESS_NONE, NULL, NULL); break;
        case 'T':
        case 'j':
        case OPT_TIMEOUT:
        case OPT_SIZE:
        case OPT_SPILL_AFTER:
        case OPT_MAX_HELD:
        case OPT_STATS: rc = number_option(cli, c, optarg); break;
        case OPT_PROGRESS: cli->progress = 1; break;
        case OPT_NO_PROGRESS: cli->progress = 0; break;
        case OPT_REPACK: cli->opt.repack = 1; break;
        case OPT_SALVAGE: cli->opt.salvage = 1; break;
        case OPT_TO_JVM: cli->opt.to_jvm = 1; break;
        case OPT_AUDIT: cli->audit = 1; break;
        case OPT_STATS_FILE: cli->stats_file = optarg; break;
        case OPT_HISTOGRAM: cli->histogram = 1; break;
        case OPT_MAPPING: cli->mapping_path = optarg; break;
        case OPT_OBFUSCATE:
            cli->obfuscate_path = optarg;
            cli->opt.obfuscate_names = 1;
            break;
        case OPT_JVM: rc = jvm_option(cli, optarg); break;
        case OPT_JVM_ALL: cli->jvm_all = 1; break;
        case OPT_JVM_LIVE: cli->jvm_all = 0; break;
        case OPT_PRINT_RULES:
            rc = print_rules(optarg);
            return rc == HS_EXIT_OK ? JOB_DONE : rc;
        case 'h':
            usage(stdout);
            return fflush(stdout) == 0 ? JOB_DONE : HS_EXIT_IO;
        case 'V':
            printf("hprof-strip %s\n", HS_VERSION_STRING);
            return fflush(stdout) == 0 ? JOB_DONE : HS_EXIT_IO;
        case ':':
            if (optopt == OPT_PRINT_RULES)
                return list_presets() == HS_EXIT_OK ? JOB_DONE : HS_EXIT_IO;
            return usage_error("missing argument for option", argv[optind - 1]);
        default: return usage_error("unknown option", argv[optind - 1]);
        }
        if (rc != HS_EXIT_OK)
            return rc;
    }
    if ((rc = take_operands(cli, argc, argv)) == HS_EXIT_OK && cli->jvm_all && !cli->jvm_pid)
        return usage_error("--jvm-all goes with --jvm PID", NULL);
    /* one JVM, one output: FILE... -o DIR is for files */
    if (rc == HS_EXIT_OK && cli->jvm_pid && cli->files)
        return usage_error("--jvm reads the JVM's dump, not a FILE too:", cli->files[0]);
    return rc;
}

/* The files the run reads, for files.h's rule (the -r files are noted as
 * they are read): no output may be one of them. */
static int note_inputs(const hs_cli *cli, const char *map)
{
    int bad = cli->in_path ? hs_files_note_input("INPUT", cli->in_path)
                           : hs_files_note_input_fd("standard input", STDIN_FILENO);

    if (!bad && map)
        bad = hs_files_note_input(cli->mapping_path ? "--mapping" : "the rule file's mapping",
                                  map);
    if (bad) {
        fprintf(stderr, "%s: out of memory\n", g_prog);
        return HS_EXIT_LIMIT;
    }
    return HS_EXIT_OK;
}

/* A command line that failed before its operands were read: every file it
 * names but the report (the word after --stats-file, or an abbreviation of
 * it: getopt keeps an option beside its argument) is kept from the
 * report, as an input would be. */
static void note_arguments(int argc, char **argv)
{
    int i;

    for (i = 1; i < argc; i++)
        if (!(strncmp(argv[i - 1], "--stats-f", 9) == 0 && !strchr(argv[i - 1], '=')))
            (void)hs_files_note_input("an argument", argv[i]);
}

/* HPROF_STRIP_THREADS: -T's default, as ZSTD_NBTHREADS is zstd's. A bad
 * value is a warning and ignored (the cores are the default then): set
 * far from the command line, in a service's environment, it should not
 * fail every run, and a run asking -T is not affected at all. */
static void threads_from_env(hs_cli *cli)
{
    const char *v = getenv("HPROF_STRIP_THREADS");

    if (cli->threads || !v || !*v)
        return;
    if (!(cli->threads = count_1_256(v)))
        hs_report_warn(cli->report,
                       "HPROF_STRIP_THREADS='%.40s' is not a number from 1 to 256: ignored, "
                       "using every core",
                       v);
}

static int g_argc;
static char **g_argv;

/* One run, after the command line was read: `rc` HS_EXIT_OK, or the exit code
 * of a failure of the command line (then the report says so). many.c runs
 * this in each child. */
static int run_one(hs_cli *cli, int rc)
{
    /* --mapping wins over a rule file's `mapping` */
    const char *map = cli->mapping_path ? cli->mapping_path : hs_rules_mapping_file(cli->rules);
    int orc;

    /* before any temporary file exists (the report's is the first), so
     * that none is ever left, and a stop is reported (stop.h) */
    hs_stop_catch();
    if (rc == HS_EXIT_OK && cli->obfuscate_path && (map || cli->audit))
        rc = hs_report_fail(cli->report, HS_E_USAGE, NULL, "--obfuscate-names cannot go with %s",
                            cli->audit ? "--audit, which writes nothing"
                            : cli->mapping_path
                                ? "--mapping: names are obfuscated or restored, not both"
                                : "a rule file's mapping: names are obfuscated or restored, "
                                  "not both");
    cli->failed_early = rc != HS_EXIT_OK;
    if (rc == HS_EXIT_OK)
        rc = note_inputs(cli, map);
    else
        note_arguments(g_argc, g_argv);
    /* the deadline counts from here: opening the report (a FIFO's open
     * waits for its reader) and loading the mapping are the run's */
    if (rc == HS_EXIT_OK && cli->timeout &&
        hs_stop_timeout(cli->timeout, cli->timeout_s, hs_cli_in_name(cli)) != 0)
        rc = hs_report_fail(cli->report, HS_E_NOMEM, NULL, "--timeout: cannot start a timer: %s",
                            strerror(errno));
    /* a usage error is reported too, where the report was to go */
    if ((orc = hs_cli_report_open(cli)) != HS_EXIT_OK && rc == HS_EXIT_OK)
        rc = orc;
    if (rc == HS_EXIT_OK && map && !cli->audit)
        rc = hs_cli_load_mapping(cli->report, cli->rules, map, cli->opt.max_held);
    if (rc == HS_EXIT_OK && cli->jvm_pid)
        rc = hs_jvm_open(cli); /* the JVM's dump as standard input */
    if (rc == HS_EXIT_OK)
        rc = hs_cli_run(cli);
    if (cli->jvm_pid)
        rc = hs_jvm_close(cli, rc);
    return hs_cli_report_close(cli, rc);
}

int main(int argc, char **argv)
{
    hs_cli cli;
    int rc;

    /* before anything is opened: no file may become fd 0, 1 or 2 */
    hs_fill_std_fds();
    memset(&cli, 0, sizeof cli);
    cli.level = HS_CLI_LEVEL_DEFAULT;
    cli.progress = -1;
    cli.rules = hs_rules_create(NULL);
    cli.report = hs_report_create();
    if (!cli.rules || !cli.report) {
        fprintf(stderr, "%s: out of memory\n", g_prog);
        return HS_EXIT_LIMIT;
    }
    hs_report_set_messages(cli.report, hs_cli_say, &cli); /* on stderr too */
    g_report = cli.report;
    g_argc = argc;
    g_argv = argv;
    rc = parse_args(&cli, argc, argv);
    if (rc == HS_EXIT_OK)
        threads_from_env(&cli);
    if (rc == JOB_DONE)
        rc = HS_EXIT_OK;
    else if (rc == HS_EXIT_OK && cli.files)
        rc = hs_cli_many(&cli, run_one);
    else
        rc = run_one(&cli, rc);
    hs_report_free(cli.report);
    hs_rules_free(cli.rules);
    return rc;
}
