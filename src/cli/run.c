/* SPDX-License-Identifier: Apache-2.0 */
/*
 * run.c - one run of the command: open the input (decompressing it when it
 * is compressed) and the output (compressing it when asked), run the
 * filter, and turn the outcome into messages and an exit code.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "batch.h"
#include "cli.h"
#include "hasher.h"
#include "input.h"
#include "io.h"
#include "output.h"
#include "progress.h"
#include "stop.h"

static const char *const g_prog = "hprof-strip";

typedef struct {
    int fd;
    hs_input *in;
    const hs_source *base; /* the input's source, wrapped for the progress line */
    hs_progress progress;
    hs_hasher *hash; /* a JSON report's digests, of input and output */
    /* for the report kept ready for a signal (publish_report) */
    hs_cli *cli;
    const hs_filter *filter;
    const hs_output *out;
    struct timespec next_publish;
} reader;

static struct timespec g_t0; /* the run's start, for "wall_seconds" */

static double since_start(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - g_t0.tv_sec) + (double)(t.tv_nsec - g_t0.tv_nsec) / 1e9;
}

static void keep_figures(hs_cli *cli, const hs_filter *filter, const reader *rd,
                         const hs_output *out, int rc);

/* Renders the report as it stands, without its exit status and error, for
 * a signal's handler to complete (stop.h): the figures so far, the output
 * not kept (a stopped run removes it) until it is in place. */
static void publish_report(hs_cli *cli, const reader *rd)
{
    static hs_report copy; /* big (warnings): not on the stack */
    char *doc = NULL;
    size_t len = 0;
    long head;
    FILE *fp;

    if (!cli->stats_file && cli->stats != 2)
        return;
    if (rd)
        keep_figures(cli, rd->filter, rd, rd->out, EXIT_IO);
    copy = cli->report;
    copy.histo = NULL; /* made at the end only */
    copy.n_histo = 0;
    copy.wall = since_start();
    if (!(fp = open_memstream(&doc, &len)))
        return;
    hs_report_json_head(fp, &copy, cli->audit);
    head = ftell(fp);
    hs_report_json_tail(fp, &copy, hs_cli_report_in_name(cli), cli->out_path, cli->audit);
    if (fclose(fp) == 0 && head > 0)
        hs_stop_publish(doc, (size_t)head, len);
    free(doc);
}

/* Before each read (which may wait long on a pipe, a signal coming
 * meanwhile), at most every 10 ms: a coarse clock read per block, and a
 * report of a few KiB rendered (about 20 us) a hundred times a second is
 * 0.2 % of a core. So a stopped run's report counts what it had read. */
static void maybe_publish(reader *r)
{
    struct timespec now;

    if (!r->cli || (!r->cli->stats_file && r->cli->stats != 2))
        return;
#ifdef CLOCK_MONOTONIC_COARSE
    clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
#else
    clock_gettime(CLOCK_MONOTONIC, &now);
#endif
    if (now.tv_sec < r->next_publish.tv_sec ||
        (now.tv_sec == r->next_publish.tv_sec && now.tv_nsec < r->next_publish.tv_nsec))
        return;
    r->next_publish = now;
    r->next_publish.tv_nsec += 10000000L;
    if (r->next_publish.tv_nsec >= 1000000000L) {
        r->next_publish.tv_sec++;
        r->next_publish.tv_nsec -= 1000000000L;
    }
    publish_report(r->cli, r);
}

static long read_with_progress(void *ctx, void *buf, size_t cap)
{
    reader *r = ctx;
    long n;

    maybe_publish(r);
    n = r->base->read(r->base->ctx, buf, cap);
    hs_progress_update(&r->progress, hs_input_bytes_read(r->in));
    return n;
}

static long borrow_with_progress(void *ctx, const void **block)
{
    reader *r = ctx;
    long n;

    maybe_publish(r);
    n = r->base->borrow(r->base->ctx, block);
    hs_progress_update(&r->progress, hs_input_bytes_read(r->in));
    return n;
}

static void window_with_progress(void *ctx, uint64_t done, uint64_t next)
{
    reader *r = ctx;

    maybe_publish(r);
    r->base->window(r->base->ctx, done, next);
    hs_progress_update(&r->progress, done);
}

/* report.c's table: one place says which exit code a status gives */
static int exit_code(hs_status s)
{
    return hs_status_exit(s);
}

/* What the SIGBUS handler needs to name the place: set before the mapped
 * input is read, read only by the handler. */
static const char *g_bus_name;
static atomic_int g_bus_taken; /* on_sigbus entered: the one that ends the process */
static const char *g_bus_unit; /* "input byte", or "compressed byte" */
static const char *g_bus_base;
static uint64_t g_bus_len;

/* Appends `s` to the buffer at *at (async-signal-safe, no stdio). */
static void put_str(char *buf, size_t cap, size_t *at, const char *s)
{
    while (*s && *at < cap)
        buf[(*at)++] = *s++;
}

static void put_u64(char *buf, size_t cap, size_t *at, uint64_t v)
{
    char digits[24];
    int n = 0;

    do
        digits[n++] = (char)('0' + v % 10);
    while ((v /= 10) && n < 24);
    while (n && *at < cap)
        buf[(*at)++] = digits[--n];
}

/* A mapped input file that shrinks under us faults on the missing pages.
 * Say so, naming the file and the byte, and leave as an I/O error would,
 * removing a half-written -o. */
static void on_sigbus(int sig, siginfo_t *info, void *uctx)
{
    char msg[600];
    size_t at = 0;
    const char *addr = info ? (const char *)info->si_addr : NULL;
    ssize_t ignored;

    (void)sig;
    (void)uctx;
    /* the filter thread and the pager fault on the same missing pages: the
     * first to get here says so and ends the process; a second would write
     * the message again and could _exit while the first is still writing
     * the report (a report file seen missing 1 run in 30) */
    if (atomic_exchange(&g_bus_taken, 1))
        for (;;)
            pause();
    put_str(msg, sizeof msg, &at, "hprof-strip: ");
    put_str(msg, sizeof msg, &at, g_bus_name ? g_bus_name : "input");
    put_str(msg, sizeof msg, &at, ": the input file shrank while it was being read");
    if (addr && g_bus_base && addr >= g_bus_base && (uint64_t)(addr - g_bus_base) < g_bus_len) {
        put_str(msg, sizeof msg, &at, " (at ");
        put_str(msg, sizeof msg, &at, g_bus_unit);
        put_str(msg, sizeof msg, &at, " ");
        put_u64(msg, sizeof msg, &at, (uint64_t)(addr - g_bus_base));
        put_str(msg, sizeof msg, &at, ")");
    }
    put_str(msg, sizeof msg, &at, "\n");
    ignored = write(STDERR_FILENO, msg, at);
    (void)ignored;
    /* the report too, as an I/O failure (stop.c: async-signal-safe) */
    msg[at - 1] = 0; /* the newline, or the last byte that fitted */
    if (!hs_stop_write(0, EXIT_IO, HS_E_READ, msg + sizeof "hprof-strip: " - 1))
        hs_stop_wait_for_other(); /* a stop by a signal is writing its report */
    hs_outfile_remove_on_signal();
    _exit(EXIT_IO);
}

static void catch_sigbus(const char *name, const char *unit, const void *base, uint64_t len)
{
    struct sigaction sa;

    g_bus_name = name;
    g_bus_unit = unit;
    g_bus_base = base;
    g_bus_len = len;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, NULL);
}

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), k = strlen(tail);
    return n > k && strcmp(s + n - k, tail) == 0;
}

/* The output format: as told, else from -o's name, else plain. */
static void choose_format(hs_cli *cli)
{
    if (!cli->format_given && cli->out_path) {
        if (ends_with(cli->out_path, ".zst") || ends_with(cli->out_path, ".zstd"))
            cli->format = HS_COMPRESS_ZSTD;
        else if (ends_with(cli->out_path, ".gz"))
            cli->format = HS_COMPRESS_GZIP;
    }
    if (cli->threads <= 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        cli->threads = n > 0 ? (int)n : 1;
    }
}

/* Prints a message of the filter about the input. Its offsets are in the
 * bytes the filter read: in a compressed input, the decompressed dump, which
 * the message then says ("decompressed byte N" for "input byte N"). */
static void print_dump_message(hs_report *r, hs_status s, const hs_error *e, const char *name,
                               const hs_input *in, const char *msg, int salvage)
{
    static const char lead[] = "input byte ";
    /* a cut dump: what gets the rest out of it */
    const char *hint = s == HS_E_TRUNCATED && !salvage
                           ? " (--salvage writes the complete records before the cut)"
                           : "";
    /* the memory cap: the library names its option, we name ours */
    const char *cap = s == HS_E_LIMIT ? strstr(msg, "(max_held)") : NULL;
    char named[sizeof e->message + 16];

    if (cap) {
        snprintf(named, sizeof named, "%.*s(--max-held)%s", (int)(cap - msg), msg,
                 cap + sizeof "(max_held)" - 1);
        msg = named;
    }

    if (hs_input_compression(in) == HS_COMPRESS_NONE)
        hs_report_fail(r, s, e, "%s: %s%s", name, msg, hint);
    else if (strncmp(msg, lead, sizeof lead - 1) == 0)
        hs_report_fail(r, s, e, "%s: decompressed byte %s%s", name, msg + sizeof lead - 1,
                       hint);
    else
        hs_report_fail(r, s, e, "%s: in the decompressed dump: %s%s", name, msg, hint);
}

/* The spill store for instances held back by field scrubbing: a file in
 * $TMPDIR (else /tmp), made on first use and unlinked at once, so it is gone
 * when the process ends however it ends. tmpfile() would ignore $TMPDIR. */
typedef struct {
    int fd;
    int err;         /* errno of the first failure, 0 if none */
    char path[4096]; /* for the message */
} spill_file;

static const char *out_name(const hs_cli *cli)
{
    return cli->out_path ? cli->out_path : "standard output";
}

/* `read`: how far the filter had read, for a failure with no place in
 * the input (a write from the mapped pages of a file that shrank fails
 * with EFAULT: the error is the output's, and has no input offset). */
static void report_failure(hs_cli *cli, hs_status s, const hs_error *e, hs_input *in,
                           hs_output *out, const spill_file *spill, uint64_t read)
{
    const char *name = hs_cli_in_name(cli);
    hs_report *r = &cli->report;

    if (hs_input_shrank(in))
        hs_report_fail(r, HS_E_READ, e,
                       "%s: the input file shrank while it was being read (at input byte %llu)",
                       name, (unsigned long long)(e->offset != UINT64_MAX ? e->offset : read));
    else if (s == HS_E_READ && hs_input_error(in))
        hs_report_fail(r, s, e, "%s: %s", name, hs_input_error(in));
    else if (spill->err)
        hs_report_fail(r, s, e, "%s: %s: %s", e->message, spill->path, strerror(spill->err));
    else if (s == HS_E_WRITE)
        hs_report_fail(r, s, e, "%s: %s: %s", out_name(cli), e->message, hs_output_error(out));
    else
        print_dump_message(r, s, e, name, in, e->message, cli->opt.salvage);
}

/* The filter's account of where a cut dump ends, without its own "input
 * byte N: " (the decompressed length is said already). */
static const char *cut_detail(hs_status s, const hs_error *e)
{
    const char *p;

    if (s == HS_OK)
        return "it ends between two records";
    p = strncmp(e->message, "input byte ", 11) == 0 ? strstr(e->message, ": ") : NULL;
    return p ? p + 2 : e->message;
}

/* The compressed layer of the input was cut short or corrupt: the filter
 * saw a dump cut there. Salvaged (with --salvage), that is exit 6; else a
 * cut .gz/.zst is a truncated dump (3) and a corrupt one invalid input (1).
 * A failure of the filter before the cut is reported as such (one at the
 * cut, "the input is empty", is the cut's). Returns the exit code. */
static int report_damage(hs_cli *cli, hs_status s, const hs_error *e, hs_input *in,
                         hs_output *out, const spill_file *spill)
{
    const char *name = hs_cli_in_name(cli);
    uint64_t end = hs_input_dump_bytes(in);
    int salvaged = cli->opt.salvage && (s == HS_OK || s == HS_SALVAGED), cut;

    if (s != HS_OK && s != HS_SALVAGED && s != HS_E_TRUNCATED && e->offset < end) {
        report_failure(cli, s, e, in, out, spill, e->offset);
        fprintf(stderr, "%s: %s: (and then %s)\n", g_prog, name, hs_input_error(in));
        return exit_code(s);
    }
    /* the status says what the compressed file is: cut (3, or salvaged: 6)
     * or corrupt (1, salvaged or not: what was before the damage is kept
     * with --salvage, but the input is invalid, not merely cut) */
    cut = hs_input_damaged(in) == HS_E_TRUNCATED;
    if (salvaged && cut)
        hs_report_salvage(&cli->report, HS_E_TRUNCATED, e,
                          "%s: %s; the decompressed dump ends there, at byte %llu: %s%s", name,
                          hs_input_error(in), (unsigned long long)end, cut_detail(s, e),
                          s == HS_OK ? " (salvaged)" : "");
    else
        hs_report_fail(&cli->report, cut ? HS_E_TRUNCATED : HS_E_MALFORMED, e,
                       "%s: %s; the decompressed dump ends there, at byte %llu: %s%s", name,
                       hs_input_error(in), (unsigned long long)end, cut_detail(s, e),
                       salvaged ? " (--salvage wrote the complete records before it)"
                       : cut    ? " (--salvage writes the complete records before the cut)"
                                : "");
    if (salvaged)
        cli->keep_output = 1;
    if (salvaged && cut)
        return EXIT_SALVAGED;
    return cut ? EXIT_TRUNCATED : EXIT_BAD_INPUT;
}

static int spill_open(spill_file *s)
{
    const char *dir = getenv("TMPDIR");

    if (!dir || !*dir)
        dir = "/tmp";
    snprintf(s->path, sizeof s->path, "%s/hprof-strip-spill-XXXXXX", dir);
    s->fd = mkstemp(s->path);
    if (s->fd < 0) {
        s->err = errno;
        return -1;
    }
    unlink(s->path);
    return 0;
}

static int spill_write(void *ctx, uint64_t off, const void *buf, size_t len)
{
    spill_file *s = ctx;

    if (s->fd < 0 && spill_open(s) != 0)
        return -1;
    while (len) {
        ssize_t n = pwrite(s->fd, buf, len, (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            s->err = n < 0 ? errno : ENOSPC;
            return -1;
        }
        buf = (const char *)buf + n;
        off += (uint64_t)n;
        len -= (size_t)n;
    }
    return 0;
}

static int spill_read(void *ctx, uint64_t off, void *buf, size_t len)
{
    spill_file *s = ctx;

    while (len) {
        ssize_t n = s->fd >= 0 ? pread(s->fd, buf, len, (off_t)off) : -1;
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            s->err = n < 0 ? errno : EIO;
            return -1;
        }
        buf = (char *)buf + n;
        off += (uint64_t)n;
        len -= (size_t)n;
    }
    return 0;
}

/* --audit's sink: the output goes nowhere. */
static int discard(void *ctx, const void *buf, size_t len)
{
    (void)ctx;
    (void)buf;
    (void)len;
    return 0;
}

static uint64_t count_kind(const hs_report *r, int kind)
{
    uint64_t n = 0;
    size_t i;

    for (i = 0; i < r->n_findings; i++)
        n += r->findings[i].kind == kind;
    return n;
}

/* --audit's places, by kind, in input order within each, at most
 * AUDIT_LIST a kind (the JSON report has all of them). */
#define AUDIT_LIST 10
static void print_findings(const hs_report *r)
{
    static const char *const heads[] = {
        "instance fields holding data (objects, non-zero bytes, first at input byte)",
        "static fields holding data (non-zero bytes, at input byte)",
        "constant-pool values holding data (non-zero bytes, at input byte)",
        "instances of classes never dumped (objects, non-zero bytes)",
        "primitive arrays holding data (arrays, non-zero bytes)",
        "records of unknown tag (body bytes, at input byte)",
        "STRING records nothing uses (id, text bytes, at input byte)",
        "STRING records too long to be names, holding data"};
    int kind;

    for (kind = HS_FIND_FIELD; kind <= HS_FIND_STRING_LONG; kind++) {
        uint64_t n = count_kind(r, kind), shown = 0;
        size_t i;
        if (!n)
            continue;
        printf("  %s:\n", heads[kind]);
        for (i = 0; i < r->n_findings && shown < AUDIT_LIST; i++) {
            const hs_finding *x = &r->findings[i];
            if (x->kind != kind)
                continue;
            shown++;
            if (kind >= HS_FIND_RECORD || kind == HS_FIND_STATIC || kind == HS_FIND_CONSTANT)
                printf("    %s: %llu bytes at input byte %llu\n", x->name,
                       (unsigned long long)x->bytes, (unsigned long long)x->first_offset);
            else
                printf("    %s: %llu %s, %llu bytes, first at input byte %llu\n", x->name,
                       (unsigned long long)x->count,
                       kind == HS_FIND_ARRAY ? "arrays" : "objects",
                       (unsigned long long)x->bytes, (unsigned long long)x->first_offset);
        }
        if (n > shown)
            printf("    and %llu more (all of them in the JSON report: --stats-file)\n",
                   (unsigned long long)(n - shown));
    }
}

/* --audit: what the privacy preset would still have to remove (with -q,
 * only the exit status tells). Returns EXIT_OK when nothing, EXIT_AUDIT
 * otherwise. */
static int audit_report(hs_cli *cli, const hs_stats *st)
{
    const char *name = hs_cli_in_name(cli);
    int clean = !st->nonzero_array_bytes && !st->nonzero_field_bytes && !st->strings_dropped &&
                !st->unknown_records_dropped && !st->nonzero_string_bytes;

    cli->report.audited = 1;
    cli->report.audit_clean = clean;

    if (cli->quiet)
        return clean ? EXIT_OK : EXIT_AUDIT;
    printf("%s: %s\n", name, clean ? "clean" : "NOT clean");
    printf("  non-zero primitive-array bytes: %llu", (unsigned long long)st->nonzero_array_bytes);
    if (st->nonzero_array_bytes)
        printf(" (first at input byte %llu)", (unsigned long long)st->first_nonzero_array);
    printf("\n  non-zero primitive field bytes: %llu", (unsigned long long)st->nonzero_field_bytes);
    if (st->nonzero_field_bytes)
        printf(" (first at input byte %llu)", (unsigned long long)st->first_nonzero_field);
    printf("\n  STRING records nothing uses:    %llu\n", (unsigned long long)st->strings_dropped);
    printf("  records of unknown tag:         %llu\n",
           (unsigned long long)st->unknown_records_dropped);
    printf("  STRINGs too long to be names:   %llu holding data (%llu bytes)\n",
           (unsigned long long)(st->nonzero_string_bytes ? count_kind(&cli->report,
                                                                      HS_FIND_STRING_LONG)
                                                         : 0),
           (unsigned long long)st->nonzero_string_bytes);
    print_findings(&cli->report);
    printf("  (String.coder and the Unsafe offsets VisualVM sizes objects by are not data:\n"
           "   see hprof-strip --print-rules privacy)\n");
    /* a report that was not written is an I/O failure, not a finding */
    if (fflush(stdout) != 0 || ferror(stdout)) {
        hs_report_fail(&cli->report, HS_E_WRITE, NULL,
                       "standard output: writing the audit report failed: %s", strerror(errno));
        return EXIT_IO;
    }
    return clean ? EXIT_OK : EXIT_AUDIT;
}

/* True when `rules` change nothing (preset none, or rules amounting to it):
 * then a full-size output is what was asked for. */
static int rules_change_nothing(const hs_rules *rules)
{
    hs_rules *none = hs_rules_create(NULL);
    char a[16384], b[16384];
    int same;

    if (!none)
        return 0;
    hs_rules_print(rules, a, sizeof a);
    hs_rules_print(none, b, sizeof b);
    same = strcmp(a, b) == 0;
    hs_rules_free(none);
    return same;
}

/* After a good run, what the user may not expect: options that had nothing
 * to do on a JVM dump, and a plain output file as big as its input (zeroing
 * keeps sizes: the small file is the compressed one). */
static void warn_after_run(const hs_cli *cli, const hs_stats *st, int out_fd)
{
    const char *name = hs_cli_in_name(cli);
    int jvm = st->hprof_version == 1 || st->hprof_version == 2;
    struct stat ost;

    if (cli->quiet || cli->audit)
        return;
    if (jvm && cli->opt.to_jvm)
        fprintf(stderr,
                "%s: --to-jvm: %s is a JVM dump already (JAVA PROFILE 1.0.%u): nothing to "
                "convert\n",
                g_prog, name, (unsigned)st->hprof_version);
    if (jvm && cli->android_preset)
        fprintf(stderr,
                "%s: -p android-app: %s is a JVM dump, without zygote or image heaps: "
                "nothing to drop beyond the default preset\n",
                g_prog, name);
    /* advice, not a warning: kept out of a JSON report's way */
    if (cli->format == HS_COMPRESS_NONE && cli->stats != 2 && fstat(out_fd, &ost) == 0 &&
        S_ISREG(ost.st_mode) && st->bytes_in &&
        (double)st->bytes_out > 0.9 * (double)st->bytes_in && !rules_change_nothing(cli->rules))
        fprintf(stderr,
                "%s: %s%sthe output is %.0f%% of the input's size: zeroed data keeps its size; "
                "for a small file compress it: -z, or -o NAME.hprof.zst (or .gz)\n",
                g_prog, cli->files ? name : "", cli->files ? ": " : "",
                100.0 * (double)st->bytes_out / (double)st->bytes_in);
}

/* --audit asks what the privacy preset would remove, and writes no dump. */
static int check_audit(hs_cli *cli)
{
    if (!cli->audit)
        return EXIT_OK;
    if (cli->out_path) {
        hs_report_fail(&cli->report, HS_E_USAGE, NULL,
                       "--audit writes no dump; drop the output name '%s'", cli->out_path);
        return EXIT_USAGE;
    }
    hs_rules_preset(cli->rules, "none", NULL);
    hs_rules_preset(cli->rules, "privacy", NULL);
    cli->format = HS_COMPRESS_NONE;
    return EXIT_OK;
}

/* The checks made before any input is read: a terminal on either side. */
static int check_terminals(hs_cli *cli)
{
    if (!cli->in_path && isatty(STDIN_FILENO)) {
        hs_report_fail(&cli->report, HS_E_USAGE, NULL,
                       "stdin is a terminal; give a file or pipe a dump in, see --help");
        return EXIT_USAGE;
    }
    if (!cli->audit && !cli->out_path && isatty(STDOUT_FILENO) && !cli->force) {
        hs_report_fail(&cli->report, HS_E_USAGE, NULL,
                       "refusing to write a heap dump to a terminal; redirect standard "
                       "output, use -o FILE, or -f to insist");
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

/* How the dump's output was asked for (files.h). */
static int output_how(const hs_cli *cli)
{
    return (cli->force ? HS_OUT_FORCE : 0) | (cli->out_positional ? HS_OUT_POSITIONAL : 0);
}

/* Opens INPUT, then -o's file (keeping the input file's permission bits),
 * or checks that standard output may take the dump. Returns EXIT_OK or the
 * exit code, with the message said. */
static int open_files(hs_cli *cli, int *in_fd, hs_outfile *of)
{
    hs_report *r = &cli->report;
    struct stat st;
    int e, how = output_how(cli);

    if (cli->in_path && (*in_fd = open(cli->in_path, O_RDONLY)) < 0) {
        hs_report_fail(r, HS_E_READ, NULL, "%s: %s", cli->in_path, strerror(errno));
        return EXIT_IO;
    }
    if (!cli->out_path) {
        if (cli->audit || hs_files_claim_stdout("standard output") == 0)
            return EXIT_OK;
        hs_report_fail(r, HS_E_USAGE, NULL, "%s", hs_files_why());
        e = EEXIST;
    } else if (hs_outfile_open(of, cli->out_path, how,
                               fstat(*in_fd, &st) == 0 && S_ISREG(st.st_mode)
                                   ? (int)(st.st_mode & 07777)
                                   : -1) == 0) {
        return EXIT_OK;
    } else if (of->refused) {
        hs_report_fail(r, HS_E_USAGE, NULL, "%s", hs_files_why());
        e = EEXIST;
    } else {
        e = errno;
        hs_report_fail(r, HS_E_WRITE, NULL, "%s: %s", cli->out_path, strerror(e));
    }
    if (cli->in_path)
        close(*in_fd);
    return e == EEXIST ? EXIT_USAGE : EXIT_IO;
}

/* Puts -o's file in place after a success, removes it otherwise. */
static int close_output(hs_cli *cli, hs_outfile *of, int rc)
{
    if (rc != EXIT_OK && rc != EXIT_SALVAGED && !cli->keep_output) {
        hs_outfile_abort(of);
        return rc;
    }
    if (hs_outfile_commit(of) != 0) {
        if (errno == EEXIST)
            hs_report_fail(&cli->report, HS_E_WRITE, NULL,
                           "%s: %s while this run went on; it is left as it is, and this "
                           "run's output is dropped%s",
                           cli->out_path,
                           cli->force ? "became a file this run reads, or not a regular file"
                                      : "was created",
                           cli->force ? "" : " (-f replaces it)");
        else
            hs_report_fail(&cli->report, HS_E_WRITE, NULL, "%s: %s", cli->out_path,
                           strerror(errno));
        return EXIT_IO;
    }
    return rc;
}

/* The reader went away (EPIPE on standard output): end quietly, the way
 * gzip and zstd do, by the SIGPIPE that was ignored to get here, the
 * report saying so as it would for a SIGPIPE that killed the run. */
static void die_of_sigpipe(hs_cli *cli, reader *rd)
{
    fflush(stderr);
    publish_report(cli, rd);
    hs_stop_now(SIGPIPE);
}

static uint64_t filter_read(const hs_filter *filter)
{
    hs_stats now;

    hs_filter_stats_ex(filter, &now, sizeof now);
    return now.bytes_in;
}

/* Runs the filter from the input to `out`; returns the exit code, the
 * failure said (or the salvage). */
static int filter_files(hs_cli *cli, hs_filter *filter, reader *rd, hs_output *out,
                        const spill_file *spill)
{
    hs_report *r = &cli->report;
    const char *name = hs_cli_in_name(cli);
    const hs_error *e;
    hs_source src;
    hs_sink dst;
    hs_status s;
    int rc, finished;
    const void *mapped;
    uint64_t mapped_len;

    /* the input's own source, each call through the progress line */
    memset(&src, 0, sizeof src);
    src.read = read_with_progress;
    src.ctx = rd;
    src.data = rd->base->data;
    src.size = rd->base->size;
    if (rd->base->window)
        src.window = window_with_progress;
    if (rd->base->borrow) /* the reader thread's blocks, in place */
        src.borrow = borrow_with_progress;
    if ((mapped = hs_input_mapping(rd->in, &mapped_len)) != NULL)
        catch_sigbus(name, src.data ? "input byte" : "compressed byte", mapped, mapped_len);
    if (cli->audit) {
        dst.write = discard;
        dst.ctx = NULL;
    } else {
        dst = *hs_output_sink(out);
    }
    s = hs_filter_run(filter, &src, &dst);
    e = hs_filter_error(filter);
    /* A dump broken inside a compressed file: the rest of its frame or
     * member may say the file itself is damaged (a flipped bit fails the
     * zstd checksum or the gzip CRC only at the end), and that is the
     * error to name (report_damage). */
    if (s == HS_E_MALFORMED || s == HS_E_UNSUPPORTED)
        hs_input_drain(rd->in);
    finished = (s == HS_OK || s == HS_SALVAGED) && hs_output_finish(out, NULL) == HS_OK;
    if (!finished && !cli->out_path && hs_output_errno(out) == EPIPE)
        die_of_sigpipe(cli, rd);
    if (!finished || s != HS_OK)
        hs_progress_clear(&rd->progress); /* the message on a line of its own */
    if ((s == HS_OK || s == HS_SALVAGED) && !finished) {
        hs_report_fail(r, HS_E_WRITE, NULL, "%s: writing the output failed: %s",
                       out_name(cli), hs_output_error(out));
        return EXIT_IO;
    }
    if (hs_input_damaged(rd->in) != HS_OK)
        return report_damage(cli, s, e, rd->in, out, spill);
    rc = exit_code(s);
    /* salvaged past a cut: 6; past damage that is no cut (an unknown
     * record, a bad length), the input is invalid: 1, the complete
     * records before it written all the same */
    if (s == HS_SALVAGED && e->code != HS_E_TRUNCATED)
        rc = exit_code(e->code);
    if (s == HS_SALVAGED)
        cli->keep_output = 1;
    if (s == HS_SALVAGED && rc == EXIT_SALVAGED)
        hs_report_salvage(r, e->code, e, "%s: %s", name, e->message);
    else if (s == HS_SALVAGED)
        hs_report_fail(r, e->code, e, "%s (invalid, not cut): %s", name, e->message);
    else if (s != HS_OK)
        report_failure(cli, s, e, rd->in, out, spill, filter_read(filter));
    if (s == HS_OK) { /* after an error, no final figures under it */
        hs_stats now;
        hs_filter_stats_ex(filter, &now, sizeof now);
        /* read in place: how far the filter got */
        hs_progress_end(&rd->progress, src.data ? now.bytes_in : hs_input_bytes_read(rd->in));
    }
    return rc;
}

/* The run's warnings, on stderr (not with -q) and in the report: what the
 * input's decompressor read past, a dump with no heap dump in it (valid,
 * but nothing was stripped), and the filter's own. */
static void report_warnings(hs_cli *cli, const hs_filter *filter, const hs_input *in,
                            const hs_stats *st, int rc)
{
    const char *w;
    size_t i;

    if ((w = hs_input_warning(in)) != NULL)
        hs_report_warn(&cli->report, "%s: %s", hs_cli_in_name(cli), w);
    if (!st->heap_dumps && rc == EXIT_OK) /* (salvaged: said already) */
        hs_report_warn(&cli->report,
                       "%s holds no heap dump (valid HPROF, but no object in it: nothing "
                       "was stripped)",
                       hs_cli_in_name(cli));
    for (i = 0; (w = hs_filter_warning(filter, i)) != NULL; i++)
        hs_report_warn(&cli->report, "%s", w);
}

/* After the run: --audit's verdict, the histogram kept for the report,
 * the warnings of a good run. */
static int after_run(hs_cli *cli, const hs_filter *filter, const hs_input *in, int out_fd,
                     int rc)
{
    const hs_class_count *rows;
    size_t n;
    hs_stats st;

    if (rc != EXIT_OK && rc != EXIT_SALVAGED)
        return rc;
    hs_filter_stats_ex(filter, &st, sizeof st);
    report_warnings(cli, filter, in, &st, rc);
    warn_after_run(cli, &st, out_fd);
    n = hs_filter_histogram(filter, &rows);
    if (cli->histogram &&
        hs_report_keep_histogram(&cli->report, rows, n, st.hprof_version == 3) != 0) {
        hs_report_fail(&cli->report, HS_E_NOMEM, NULL, "out of memory");
        return EXIT_LIMIT;
    }
    if (cli->audit) {
        const hs_finding *found;
        size_t nf = hs_filter_findings(filter, &found);
        if (hs_report_keep_findings(&cli->report, found, nf) != 0) {
            hs_report_fail(&cli->report, HS_E_NOMEM, NULL, "out of memory");
            return EXIT_LIMIT;
        }
    }
    if (cli->audit && rc == EXIT_OK)
        rc = audit_report(cli, &st);
    return rc;
}

/* The digests, once the run is over (once only: not for a report
 * published while it runs): a plain side's HPROF is its file. */
static void keep_digests(hs_report *r, hs_hasher *h, hs_input *in, const hs_output *out,
                         hs_compression out_format)
{
    hs_digest d[HS_HASH_STREAMS];

    /* in place, the filter walked the file as far as bytes_in */
    hs_input_hash_end(in, r->st.bytes_in);
    hs_hasher_digests(h, d);
    r->in_hashed = 1;
    r->in_sha = d[HS_HASH_IN_FILE];
    r->in_hprof_sha =
        hs_input_compression(in) == HS_COMPRESS_NONE ? d[HS_HASH_IN_FILE] : d[HS_HASH_IN_DUMP];
    if (out) {
        r->out_hashed = 1;
        r->out_sha = d[HS_HASH_OUT_FILE];
        r->out_hprof_sha = out_format == HS_COMPRESS_NONE ? d[HS_HASH_OUT_FILE] : d[HS_HASH_OUT_DUMP];
    }
}

/* What the report keeps of a run that got as far as the filter. Bytes that
 * never got out are not output: a plain dump counts what was written;
 * compressed, nothing written is nothing out (else what was compressed is
 * all one knows). */
static void keep_figures(hs_cli *cli, const hs_filter *filter, const reader *rd,
                         const hs_output *out, int rc)
{
    hs_report *r = &cli->report;

    if (filter) {
        r->ran = 1;
        hs_filter_stats_ex(filter, &r->st, sizeof r->st);
    }
    if (rd->in) {
        int c = hs_input_compression(rd->in);
        r->in_known = 1;
        r->in_format = c == HS_COMPRESS_GZIP ? HS_IN_GZIP : c == HS_COMPRESS_ZSTD ? HS_IN_ZSTD
                                                                                  : HS_IN_PLAIN;
        r->in_raw = hs_input_bytes_read(rd->in);
    }
    if (out) {
        r->out_known = 1;
        r->out_format = (int)cli->format;
        r->out_raw = hs_output_written(out);
        if (filter && !cli->audit && rc == EXIT_IO &&
            (cli->format == HS_COMPRESS_NONE || hs_output_written(out) == 0) &&
            hs_output_written(out) < r->st.bytes_out)
            r->st.bytes_out = hs_output_written(out);
    }
}

/* gzip input is inflated on a thread of its own (input.c), and that thread
 * is what a run waits on: the filter and the compressor's workers keep up
 * with it on the other core. As SCHED_BATCH they keep the same share of
 * the CPU, but no longer preempt the inflater when they wake, so it keeps
 * its core whenever it has work (-z on a 1 GB gzip dump: 3 % faster,
 * bench/RESULTS.md). Only this thread changes, and only from the default
 * policy, so a run started under chrt keeps what it was given; the threads
 * started before (inflater, helper, pager) keep theirs, the compressor's
 * workers, started after, inherit this one (batch.h). */
static void leave_inflater_a_core(const reader *rd)
{
    if (rd->base->borrow && hs_input_compression(rd->in) == HS_COMPRESS_GZIP)
        (void)hs_run_as_batch();
}

/* A JSON report will be written (--stats=json, --stats-file). */
static int wants_json(const hs_cli *cli)
{
    return cli->stats == 2 || cli->stats_file;
}

/* Opens the input's decoder, the output's encoder and the filter. Returns
 * EXIT_OK or the exit code, with the message said. */
static int start_run(hs_cli *cli, reader *rd, int out_fd, hs_output **out, hs_filter **filter,
                     spill_file *spill)
{
    hs_report *r = &cli->report;
    hs_output_params op;
    hs_error err;

    if (!(rd->in = hs_input_open_fd(rd->fd, &err))) {
        if (err.code == HS_E_NOMEM) {
            hs_report_fail(r, HS_E_NOMEM, NULL, "out of memory");
            return EXIT_LIMIT;
        }
        /* HS_E_UNSUPPORTED: a zip, xz, ... named as such, which is not a
         * heap dump: the input's fault (1), not a read that may work again */
        return hs_report_fail(r, err.code, NULL, "%s: %s", hs_cli_in_name(cli),
                              err.message);
    }
    /* a JSON report binds the bytes it describes: every byte read and
     * written is hashed (SHA-256) on its way, from the first */
    if (wants_json(cli)) {
        if (!(rd->hash = hs_hasher_start(cli->threads > 1))) {
            hs_report_fail(r, HS_E_NOMEM, NULL, "out of memory");
            return EXIT_LIMIT;
        }
        hs_input_hash(rd->in, rd->hash);
    }
    /* decompressing beside the filter pays when there is a core for it:
     * the reader thread and the pager start with -T 2 or more */
    rd->base = hs_input_source_ex(rd->in, cli->threads > 1 ? 2 : 1);
    leave_inflater_a_core(rd);
    memset(&op, 0, sizeof op);
    op.size = sizeof op;
    op.compress = cli->format;
    op.level_as_given = cli->level != HS_CLI_LEVEL_DEFAULT;
    op.level = op.level_as_given ? cli->level : 0;
    op.threads = cli->threads;
    if (!(*out = hs_output_open_ex(out_fd, NULL, NULL, &op, &err))) {
        /* the range of levels is main.c's: only the compressor can fail */
        hs_report_fail(r, HS_E_NOMEM, NULL, "%s", err.message);
        return EXIT_LIMIT;
    }
    if (rd->hash && !cli->audit)
        hs_output_hash(*out, rd->hash);
    cli->opt.spill.write = spill_write;
    cli->opt.spill.read = spill_read;
    cli->opt.spill.ctx = spill;
    /* the duplicate report rides on --stats: it costs a hash per array */
    cli->opt.find_duplicates = cli->stats != 0 || cli->stats_file;
    /* so is the count of non-zero bytes scrubbed: it reads bytes that
     * would otherwise be skipped unread */
    cli->opt.count_nonzero = cli->stats != 0 || cli->stats_file || cli->audit;
    cli->opt.histogram = cli->histogram;
    cli->opt.findings = cli->audit; /* --audit says where */
    if (!(*filter = hs_filter_create(cli->rules, &cli->opt, NULL))) {
        hs_report_fail(r, HS_E_NOMEM, NULL, "out of memory");
        return EXIT_LIMIT;
    }
    return EXIT_OK;
}

static int write_all(int fd, const char *p, size_t n);

/* hs_sink.write into the descriptor at ctx */
static int fd_sink_write(void *ctx, const void *buf, size_t len)
{
    return write_all(*(const int *)ctx, buf, len);
}

/* --obfuscate-names' file, claimed after the dump's output (so that the
 * two clash when they are one file) and before a byte is read. */
static int claim_mapfile(hs_cli *cli)
{
    hs_claim c;
    int r;

    if (!cli->obfuscate_path)
        return EXIT_OK;
    r = hs_files_claim(cli->obfuscate_path, HS_OUT_MAPFILE | (cli->force ? HS_OUT_FORCE : 0), &c);
    if (r == 0) {
        free(c.target);
        return EXIT_OK;
    }
    if (r > 0)
        hs_report_fail(&cli->report, HS_E_USAGE, NULL, "%s", hs_files_why());
    else
        hs_report_fail(&cli->report, HS_E_WRITE, NULL, "%s: %s", cli->obfuscate_path,
                       strerror(errno));
    return r > 0 ? EXIT_USAGE : EXIT_IO;
}

/* After a run that obfuscated: the mapping, in place before the dump is. */
static int write_mapfile(hs_cli *cli, const hs_filter *filter, int rc)
{
    hs_outfile mf;
    hs_sink sink;
    hs_status s;

    if (!cli->obfuscate_path || (rc != EXIT_OK && rc != EXIT_SALVAGED))
        return rc;
    if (hs_outfile_open(&mf, cli->obfuscate_path,
                        HS_OUT_MAPFILE | (cli->force ? HS_OUT_FORCE : 0), -1) != 0) {
        hs_report_fail(&cli->report, mf.refused ? HS_E_USAGE : HS_E_WRITE, NULL, "%s%s%s",
                       mf.refused ? hs_files_why() : cli->obfuscate_path, mf.refused ? "" : ": ",
                       mf.refused ? "" : strerror(errno));
        return mf.refused ? EXIT_USAGE : EXIT_IO;
    }
    sink.write = fd_sink_write;
    sink.ctx = &mf.fd;
    s = hs_filter_obfuscation_map(filter, &sink);
    if (s != HS_OK) {
        int e = errno;
        hs_outfile_abort(&mf);
        hs_report_fail(&cli->report, s, NULL, "%s: %s", cli->obfuscate_path,
                       s == HS_E_NOMEM ? "out of memory" : strerror(e));
        return s == HS_E_NOMEM ? EXIT_LIMIT : EXIT_IO;
    }
    if (hs_outfile_commit(&mf) != 0) {
        hs_report_fail(&cli->report, HS_E_WRITE, NULL, "%s: %s", cli->obfuscate_path,
                       strerror(errno));
        return EXIT_IO;
    }
    return rc;
}

static int run_filter(hs_cli *cli)
{
    hs_outfile of = {NULL, NULL, NULL, -1, 0, 0, -1};
    hs_output *out = NULL;
    hs_filter *filter = NULL;
    reader rd;
    int out_fd = STDOUT_FILENO, rc;
    struct stat st;
    spill_file spill = {-1, 0, {0}};

    memset(&rd, 0, sizeof rd);
    rd.fd = STDIN_FILENO;
    rd.cli = cli;
    choose_format(cli);
    if ((rc = check_audit(cli)) != EXIT_OK || (rc = check_terminals(cli)) != EXIT_OK)
        return rc;
    /* (the signals are caught already: main.c, before any temporary file) */
    if ((rc = open_files(cli, &rd.fd, &of)) != EXIT_OK)
        return rc;
    if ((rc = claim_mapfile(cli)) != EXIT_OK) {
        if (cli->in_path)
            close(rd.fd);
        return cli->out_path ? close_output(cli, &of, rc) : rc;
    }
    if (cli->out_path)
        out_fd = of.fd;
    hs_widen_pipe(rd.fd);
    hs_widen_pipe(out_fd);
    rc = start_run(cli, &rd, out_fd, &out, &filter, &spill);
    rd.filter = filter;
    rd.out = out;
    if (rc == EXIT_OK) {
        publish_report(cli, &rd);
        hs_progress_start(&rd.progress, cli->progress < 0 ? isatty(STDERR_FILENO) : cli->progress,
                          cli->size ? cli->size
                          : fstat(rd.fd, &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size
                                                                           : 0);
        rc = filter_files(cli, filter, &rd, out, &spill);
        rc = after_run(cli, filter, rd.in, out_fd, rc);
        rc = write_mapfile(cli, filter, rc);
    }
    keep_figures(cli, filter, &rd, out, rc);
    if (rd.hash)
        keep_digests(&cli->report, rd.hash, rd.in, cli->audit ? NULL : out, cli->format);
    publish_report(cli, NULL);
    hs_filter_free(filter);
    hs_output_close(out);
    hs_input_close(rd.in);
    hs_hasher_free(rd.hash);
    if (spill.fd >= 0)
        close(spill.fd);
    if (cli->in_path)
        close(rd.fd);
    if (cli->input_done) /* --jvm: the JVM's word on its dump (jvm.c) */
        rc = cli->input_done(cli, rc);
    /* the output put in place (or removed) and the report that says so
     * published, as one step for a signal (stop.h) */
    hs_stop_hold();
    if (cli->out_path)
        rc = close_output(cli, &of, rc);
    cli->report.output_kept = !cli->audit && (rc == EXIT_OK || rc == EXIT_SALVAGED ||
                                              (cli->keep_output && rc != EXIT_IO));
    publish_report(cli, NULL);
    hs_stop_release();
    return rc;
}

static double seconds(struct timeval tv)
{
    return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

/* The report's file (--stats-file FILE): written under a temporary name
 * beside it and renamed into place at the end, as every output is. */
static hs_outfile g_report_file = {NULL, NULL, NULL, -1, 0, 0, -1};
static int g_report_fd = -1; /* where it goes: that file, or standard output */

/* --stats=json's destination: standard error, or many.c's file */
static int stats_fd(const hs_cli *cli)
{
    return cli->stats_fd > 0 ? cli->stats_fd : STDERR_FILENO;
}

static int report_to_stdout(const hs_cli *cli)
{
    return cli->stats_file && strcmp(cli->stats_file, "-") == 0;
}

/* --stats-file under files.h's rule: never an input, never the dump's
 * output, never a dump; "-" is standard output, when the dump (or
 * --audit's text) is not going there. Returns EXIT_OK or the exit code,
 * said. */
static int open_report(hs_cli *cli)
{
    hs_report *r = &cli->report;
    hs_claim c;

    /* the dump's output is claimed first (again when it is opened): when
     * the two clash, the report is the one refused, and nothing is written */
    if (cli->audit || cli->failed_early)
        ;
    else if (!cli->out_path)
        (void)hs_files_claim_stdout("standard output");
    else if (hs_files_claim(cli->out_path, output_how(cli), &c) == 0)
        free(c.target);
    if (report_to_stdout(cli)) {
        if (cli->failed_early)
            ;
        else if ((!cli->audit && !cli->out_path) || (cli->audit && !cli->quiet)) {
            fprintf(stderr, "%s: --stats-file - writes the report to standard output, which "
                            "takes %s already: give the report a file name, or %s\n",
                    g_prog, cli->audit ? "--audit's findings" : "the dump",
                    cli->audit ? "use -q" : "the dump one (-o FILE)");
            return EXIT_USAGE;
        } else if (hs_files_claim_stdout("--stats-file -") != 0) {
            fprintf(stderr, "%s: %s\n", g_prog, hs_files_why());
            return EXIT_USAGE;
        }
        g_report_fd = STDOUT_FILENO;
        return EXIT_OK;
    }
    if (hs_outfile_open(&g_report_file, cli->stats_file,
                        HS_OUT_REPORT | (cli->force ? HS_OUT_FORCE : 0), -1) == 0) {
        g_report_fd = g_report_file.fd;
        return EXIT_OK;
    }
    if (g_report_file.refused) {
        fprintf(stderr, "%s: %s\n", g_prog, hs_files_why());
        return EXIT_USAGE;
    }
    if (errno == EINTR)
        hs_stop_ready(); /* a signal cut the open (a FIFO with no reader): it ends the run */
    fprintf(stderr, "%s: %s: %s\n", g_prog, cli->stats_file, strerror(errno));
    (void)r;
    return EXIT_IO;
}

int hs_cli_report_open(hs_cli *cli)
{
    int rc;

    clock_gettime(CLOCK_MONOTONIC, &g_t0);
    /* A closed pipe downstream, or a file-size limit, is an error to report
     * (write fails with EPIPE or EFBIG), not a silent death by signal. */
    signal(SIGPIPE, SIG_IGN);
#ifdef SIGXFSZ
    signal(SIGXFSZ, SIG_IGN);
#endif
    if (cli->stats_file) {
        if ((rc = open_report(cli)) != EXIT_OK) {
            cli->stats_file = NULL; /* nowhere to write it */
            hs_stop_ready();
            return rc;
        }
        hs_stop_report_to(g_report_fd, g_report_fd == STDOUT_FILENO ? NULL : &g_report_file);
    }
    if (cli->stats == 2)
        hs_stop_report_to(stats_fd(cli), NULL);
    publish_report(cli, NULL);
    hs_stop_ready();
    return EXIT_OK;
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            if (k == 0)
                errno = EIO;
            return -1;
        }
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

/* The whole document to `fd`, a stream (`stream`: see hs_stop_stream) or
 * the report's temporary file: 0, or -1 with errno set. */
static int send_report(const hs_cli *cli, int rc, int fd, int stream)
{
    char *doc = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&doc, &len);
    int bad, e;

    if (!fp)
        return -1;
    bad = hs_report_write_json(fp, &cli->report, rc, hs_cli_report_in_name(cli), cli->out_path,
                               cli->audit);
    bad |= fclose(fp) != 0;
    bad = bad || (stream ? hs_stop_stream(fd, doc, len) : write_all(fd, doc, len)) != 0;
    e = errno;
    free(doc);
    errno = e;
    return bad ? -1 : 0;
}

/* A report lost turns a run that worked into an I/O failure: what was
 * asked for was not all done (the dump, when written, stays). */
static int report_lost(int rc)
{
    return rc == EXIT_OK || rc == EXIT_SALVAGED || rc == EXIT_AUDIT ? EXIT_IO : rc;
}

int hs_cli_report_close(hs_cli *cli, int rc)
{
    hs_report *r = &cli->report;
    struct rusage ru;

    /* single-threaded here: the reports are the run's own from now */
    hs_stop_hold();
    hs_stop_finish();
    r->wall = since_start();
    if (getrusage(RUSAGE_SELF, &ru) == 0) {
        r->user = seconds(ru.ru_utime);
        r->sys = seconds(ru.ru_stime);
    }
    /* a failure said only on stderr (the mapping's, a usage error printed
     * before the report knew of it) is still named by its status */
    if (rc != EXIT_OK && rc != EXIT_SALVAGED && rc != EXIT_AUDIT && !r->has_error) {
        memset(&r->error, 0, sizeof r->error);
        r->error.offset = r->error.record_offset = UINT64_MAX;
        r->error.tag = r->error.subtag = -1;
        r->error.code = hs_status_of_exit(rc);
        snprintf(r->error.message, sizeof r->error.message, "%s",
                 "see the message on standard error");
        r->has_error = 1;
    }
    /* the file first: the streams may wait for their readers */
    if (cli->stats_file && g_report_file.tmp) {
        if (send_report(cli, rc, g_report_fd, 0) != 0 || hs_outfile_commit(&g_report_file) != 0) {
            fprintf(stderr, "%s: %s: writing the report failed: %s\n", g_prog,
                    cli->stats_file,
                    errno == EEXIST ? "a file appeared under its name while the run went on"
                                    : strerror(errno));
            hs_outfile_abort(&g_report_file);
            rc = report_lost(rc);
        }
    } else if (cli->stats_file) { /* standard output, a FIFO, a device */
        if (send_report(cli, rc, g_report_fd, 1) != 0 ||
            (g_report_fd != STDOUT_FILENO && hs_outfile_commit(&g_report_file) != 0)) {
            fprintf(stderr, "%s: %s: writing the report failed: %s\n", g_prog,
                    g_report_fd == STDOUT_FILENO ? "standard output" : cli->stats_file,
                    strerror(errno));
            if (g_report_fd != STDOUT_FILENO)
                hs_outfile_abort(&g_report_file);
            rc = report_lost(rc);
        }
    }
    if (cli->stats == 2 && send_report(cli, rc, stats_fd(cli), 1) != 0)
        rc = report_lost(rc); /* stderr failed: nowhere to say so */
    hs_stop_release();
    return rc;
}

/* The run itself, between hs_cli_report_open and hs_cli_report_close:
 * the dump, and the --stats table and the histogram on stderr (or where
 * many.c's child puts them, headed by the input's name). */
int hs_cli_run(hs_cli *cli)
{
    hs_report *r = &cli->report;
    int rc = run_filter(cli), stats = cli->stats == 1 && r->ran,
        histo = cli->histogram && r->histo && !cli->quiet && cli->stats != 2, fd;
    const char *name = cli->files ? hs_cli_in_name(cli) : NULL;
    FILE *to = stderr;

    if ((stats || histo) && cli->stats_fd > 0 && (fd = dup(cli->stats_fd)) >= 0 &&
        !(to = fdopen(fd, "w"))) {
        close(fd);
        to = stderr;
    }
    if (stats)
        hs_cli_print_stats(to, &r->st, name);
    if (histo)
        hs_cli_print_histogram(to, r, 20, name);
    if (to != stderr)
        fclose(to);
    return rc;
}

const char *hs_cli_in_name(const hs_cli *cli)
{
    const char *name = hs_cli_report_in_name(cli);
    return name ? name : "stdin";
}

const char *hs_cli_report_in_name(const hs_cli *cli)
{
    if (cli->in_path)
        return cli->in_path;
    return cli->jvm_pid && cli->jvm_name[0] ? cli->jvm_name : NULL;
}
