/*
 * run.c - one run of the command: open the input (decompressing it when it
 * is compressed) and the output (compressing it when asked), run the
 * filter, and turn the outcome into messages and an exit code.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "input.h"
#include "io.h"
#include "progress.h"

static const char *const g_prog = "hprof-strip";

/* The header's version string, "JAVA PROFILE 1.0.x" (18 bytes) */
#define HEAD_LEN 18

typedef struct {
    hs_input *in;
    hs_progress progress;
    char head[HEAD_LEN]; /* the first bytes read: which dump it was */
    size_t head_len;
} reader;

static long read_with_progress(void *ctx, void *buf, size_t cap)
{
    reader *r = ctx;
    long n = hs_input_read(r->in, buf, cap);

    if (n > 0 && r->head_len < HEAD_LEN) {
        size_t k = HEAD_LEN - r->head_len < (size_t)n ? HEAD_LEN - r->head_len : (size_t)n;
        memcpy(r->head + r->head_len, buf, k);
        r->head_len += k;
    }

    hs_progress_update(&r->progress, hs_input_raw_bytes(r->in));
    return n;
}

static void window_with_progress(void *ctx, uint64_t done, uint64_t next)
{
    reader *r = ctx;

    hs_input_window(r->in, done, next);
    hs_progress_update(&r->progress, done);
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

/* A mapped input file that shrinks under us faults on the missing pages.
 * Say so and leave as an I/O error would, removing a half-written -o. */
static void on_sigbus(int sig)
{
    static const char msg[] = "hprof-strip: the input file shrank while it was being read\n";
    ssize_t ignored;

    (void)sig;
    hs_outfile_remove_on_signal();
    ignored = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)ignored;
    _exit(EXIT_IO);
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
            cli->format = HS_OUT_ZSTD;
        else if (ends_with(cli->out_path, ".gz"))
            cli->format = HS_OUT_GZIP;
    }
    if (cli->level < 0)
        cli->level = cli->format == HS_OUT_ZSTD ? 3 : 1;
    if (cli->threads <= 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        cli->threads = n > 0 ? (int)n : 1;
    }
}

/* Prints a message of the filter about the input. Its offsets are in the
 * bytes the filter read: in a compressed input, the decompressed dump, which
 * the message then says ("decompressed byte N" for "input byte N"). */
static void print_dump_message(hs_report *r, hs_status s, const hs_error *e, const char *name,
                               const hs_input *in, const char *msg)
{
    static const char lead[] = "input byte ";

    if (hs_input_format(in) == HS_IN_PLAIN)
        hs_report_fail(r, s, e, "%s: %s", name, msg);
    else if (strncmp(msg, lead, sizeof lead - 1) == 0)
        hs_report_fail(r, s, e, "%s: decompressed byte %s", name, msg + sizeof lead - 1);
    else
        hs_report_fail(r, s, e, "%s: in the decompressed dump: %s", name, msg);
}

static void report_failure(hs_cli *cli, hs_status s, const hs_error *e, hs_input *in,
                           hs_output *out)
{
    const char *name = cli->in_path ? cli->in_path : "stdin";
    hs_report *r = &cli->report;

    if (hs_input_shrank(in))
        hs_report_fail(r, s, e, "%s: the input file shrank while it was being read", name);
    else if (s == HS_E_READ && hs_input_error(in))
        hs_report_fail(r, s, e, "%s: %s", name, hs_input_error(in));
    else if (s == HS_E_WRITE)
        hs_report_fail(r, s, e, "%s: %s", e->message, hs_output_error(out));
    else
        print_dump_message(r, s, e, name, in, e->message);
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
                         hs_output *out)
{
    const char *name = cli->in_path ? cli->in_path : "stdin";
    uint64_t end = hs_input_dump_bytes(in);
    int salvaged = cli->opt.salvage && (s == HS_OK || s == HS_SALVAGED);

    if (s != HS_OK && s != HS_SALVAGED && s != HS_E_TRUNCATED && e->offset < end) {
        report_failure(cli, s, e, in, out);
        fprintf(stderr, "%s: %s: (and then %s)\n", g_prog, name, hs_input_error(in));
        return exit_code(s);
    }
    (salvaged ? hs_report_salvage : hs_report_fail)(
        &cli->report, s == HS_OK ? HS_E_TRUNCATED : s, e,
                   "%s: %s; the decompressed dump ends there, at byte %llu: %s%s", name,
                   hs_input_error(in), (unsigned long long)end, cut_detail(s, e),
                   salvaged && s == HS_OK ? " (salvaged)" : "");
    if (salvaged)
        return EXIT_SALVAGED;
    return hs_input_damage(in) == HS_DAMAGE_TRUNCATED ? EXIT_TRUNCATED : EXIT_BAD_INPUT;
}

/* The spill store for instances held back by field scrubbing: a temporary
 * file in $TMPDIR, made on first use and gone when the process ends. */
typedef struct {
    FILE *fp;
} spill_file;

static int spill_write(void *ctx, uint64_t off, const void *buf, size_t len)
{
    spill_file *s = ctx;

    if (!s->fp && !(s->fp = tmpfile()))
        return -1;
    while (len) {
        ssize_t n = pwrite(fileno(s->fp), buf, len, (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
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
        ssize_t n = s->fp ? pread(fileno(s->fp), buf, len, (off_t)off) : -1;
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
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

/* --audit: what the privacy preset would still have to remove (with -q,
 * only the exit status tells). Returns EXIT_OK when nothing, EXIT_AUDIT
 * otherwise. */
static int audit_report(hs_cli *cli, const hs_stats *st)
{
    const char *name = cli->in_path ? cli->in_path : "stdin";
    int clean = !st->nonzero_array_bytes && !st->nonzero_field_bytes && !st->strings_dropped;

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
    printf("  (String.coder and the Unsafe offsets VisualVM sizes objects by are not data:\n"
           "   see hprof-strip --print-rules privacy)\n");
    fflush(stdout);
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
 * to do on a JVM dump, and a plain output file as big as its input
 * (zeroing keeps sizes: the small file is the compressed one). */
static void warn_after_run(const hs_cli *cli, const reader *rd, const hs_stats *st, int out_fd)
{
    const char *name = cli->in_path ? cli->in_path : "stdin";
    int jvm = rd->head_len == HEAD_LEN && (memcmp(rd->head, "JAVA PROFILE 1.0.1", 18) == 0 ||
                                           memcmp(rd->head, "JAVA PROFILE 1.0.2", 18) == 0);
    struct stat ost;

    if (cli->quiet || cli->audit)
        return;
    if (jvm && cli->opt.to_jvm)
        fprintf(stderr, "%s: --to-jvm: %s is a JVM dump already (%.18s): nothing to convert\n",
                g_prog, name, rd->head);
    if (jvm && cli->android_preset)
        fprintf(stderr,
                "%s: -p android-app: %s is a JVM dump, without zygote or image heaps: "
                "nothing to drop beyond the default preset\n",
                g_prog, name);
    /* advice, not a warning: kept out of a JSON report's way */
    if (cli->format == HS_OUT_PLAIN && cli->stats != 2 && fstat(out_fd, &ost) == 0 &&
        S_ISREG(ost.st_mode) && st->bytes_in &&
        (double)st->bytes_out > 0.9 * (double)st->bytes_in && !rules_change_nothing(cli->rules))
        fprintf(stderr,
                "%s: the output is %.0f%% of the input's size: zeroed data keeps its size; "
                "for a small file compress it: -z, or -o NAME.hprof.zst (or .gz)\n",
                g_prog, 100.0 * (double)st->bytes_out / (double)st->bytes_in);
}

/* What a run that worked has to say besides: a dump with no heap dump in
 * it (valid, but nothing was stripped), and the histogram kept for the
 * report. */
static int after_run(hs_cli *cli, const hs_filter *filter, int rc)
{
    const hs_class_count *rows;
    size_t n = hs_filter_histogram(filter, &rows);
    hs_stats st;

    hs_filter_stats(filter, &st);
    if (!st.heap_dumps && !cli->quiet)
        fprintf(stderr, "%s: warning: %s holds no heap dump (valid HPROF, but no object in "
                        "it: nothing was stripped)\n",
                g_prog, cli->in_path ? cli->in_path : "stdin");
    if (cli->histogram && hs_report_keep_histogram(&cli->report, rows, n,
                                                   st.hprof_version == 3) != 0) {
        hs_report_fail(&cli->report, HS_E_NOMEM, NULL, "out of memory");
        return EXIT_LIMIT;
    }
    return rc;
}

static int run_filter(hs_cli *cli)
{
    hs_report *r = &cli->report;
    hs_outfile of = {NULL, NULL, -1};
    hs_output *out = NULL;
    hs_filter *filter = NULL;
    reader rd;
    hs_source src;
    hs_sink dst;
    hs_status s;
    int in_fd = STDIN_FILENO, out_fd = STDOUT_FILENO, rc, opened;
    struct stat st;
    spill_file spill = {NULL};

    memset(&rd, 0, sizeof rd);
    choose_format(cli);
    if (cli->audit) {
        /* an audit asks what the privacy preset would remove */
        if (cli->out_path) {
            hs_report_fail(r, HS_E_USAGE, NULL,
                           "--audit writes no dump; drop the output name '%s'", cli->out_path);
            return EXIT_USAGE;
        }
        hs_rules_preset(cli->rules, "none", NULL);
        hs_rules_preset(cli->rules, "privacy", NULL);
        cli->format = HS_OUT_PLAIN;
    } else if (!cli->out_path && isatty(STDOUT_FILENO) && !cli->force) {
        hs_report_fail(r, HS_E_USAGE, NULL,
                       "refusing to write a heap dump to a terminal; redirect standard "
                       "output, use -o FILE, or -f to insist");
        return EXIT_USAGE;
    }
    if (cli->in_path && (in_fd = open(cli->in_path, O_RDONLY)) < 0) {
        hs_report_fail(r, HS_E_READ, NULL, "%s: %s", cli->in_path, strerror(errno));
        return EXIT_IO;
    }
    if (cli->out_path) {
        if (hs_outfile_open(&of, cli->out_path, cli->force) != 0) {
            int e = errno;
            if (e == EEXIST)
                hs_report_fail(r, HS_E_USAGE, NULL, "%s already exists; use -f to overwrite it",
                               cli->out_path);
            else
                hs_report_fail(r, HS_E_WRITE, NULL, "%s: %s", cli->out_path, strerror(e));
            if (cli->in_path)
                close(in_fd);
            return e == EEXIST ? EXIT_USAGE : EXIT_IO;
        }
        out_fd = of.fd;
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

    hs_widen_pipe(in_fd);
    hs_widen_pipe(out_fd);
    rc = EXIT_LIMIT;
    if ((opened = hs_input_open(&rd.in, in_fd)) != 0) {
        if (hs_input_error(rd.in)) {
            hs_report_fail(r, HS_E_READ, NULL, "%s: %s", cli->in_path ? cli->in_path : "stdin",
                           hs_input_error(rd.in));
            /* -2: a zip, xz, ... named as such, which is not a heap dump */
            rc = opened == -2 ? EXIT_BAD_INPUT : EXIT_IO;
        } else {
            hs_report_fail(r, HS_E_NOMEM, NULL, "out of memory");
        }
        goto done;
    }
    /* decompressing beside the filter pays when there is a core for it */
    if (cli->threads > 1)
        (void)hs_input_start_thread(rd.in);
    if (hs_output_open(&out, out_fd, cli->format, cli->level, cli->threads) != 0) {
        hs_report_fail(r, HS_E_NOMEM, NULL, "cannot start the compressor: %s",
                       out ? hs_output_error(out) : "out of memory");
        goto done;
    }
    cli->opt.spill.write = spill_write;
    cli->opt.spill.read = spill_read;
    cli->opt.spill.ctx = &spill;
    /* the duplicate report rides on --stats: it costs a hash per array */
    cli->opt.find_duplicates = cli->stats != 0 || cli->stats_file;
    /* so is the count of non-zero bytes scrubbed: it reads bytes that
     * would otherwise be skipped unread */
    cli->opt.count_nonzero = cli->stats != 0 || cli->stats_file || cli->audit;
    cli->opt.histogram = cli->histogram;
    filter = hs_filter_create(cli->rules, &cli->opt, NULL);
    if (!filter) {
        hs_report_fail(r, HS_E_NOMEM, NULL, "out of memory");
        goto done;
    }
    hs_progress_start(&rd.progress,
                      cli->progress < 0 ? isatty(STDERR_FILENO) : cli->progress,
                      cli->size ? cli->size
                      : fstat(in_fd, &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size
                                                                       : 0);
    memset(&src, 0, sizeof src);
    src.read = read_with_progress;
    src.ctx = &rd;
    src.data = hs_input_data(rd.in, &src.size);
    if (src.data) {
        rd.head_len = src.size < HEAD_LEN ? (size_t)src.size : HEAD_LEN;
        memcpy(rd.head, src.data, rd.head_len);
        src.window = window_with_progress;
        signal(SIGBUS, on_sigbus);
    }
    dst.write = cli->audit ? discard : hs_output_write;
    dst.ctx = out;
    s = hs_filter_run(filter, &src, &dst);
    if ((s == HS_OK || s == HS_SALVAGED) && hs_output_finish(out) != 0) {
        hs_progress_clear(&rd.progress); /* the message on a line of its own */
        hs_report_fail(r, HS_E_WRITE, NULL, "writing the output failed: %s",
                       hs_output_error(out));
        s = HS_E_WRITE;
        rc = EXIT_IO;
    } else if (hs_input_damage(rd.in)) {
        rc = report_damage(cli, s, hs_filter_error(filter), rd.in, out);
    } else {
        rc = exit_code(s);
        if (s != HS_OK)
            hs_progress_clear(&rd.progress);
        if (s == HS_SALVAGED)
            hs_report_salvage(r, hs_filter_error(filter)->code, hs_filter_error(filter),
                              "%s: %s", cli->in_path ? cli->in_path : "stdin",
                              hs_filter_error(filter)->message);
        else if (s != HS_OK)
            report_failure(cli, s, hs_filter_error(filter), rd.in, out);
    }
    if (s == HS_OK) { /* after an error, no final figures under it */
        hs_stats now;
        hs_filter_stats(filter, &now);
        /* read in place: how far the filter got */
        hs_progress_end(&rd.progress, src.data ? now.bytes_in : hs_input_raw_bytes(rd.in));
        warn_after_run(cli, &rd, &now, out_fd);
    }
    if (rc == EXIT_OK || rc == EXIT_SALVAGED)
        rc = after_run(cli, filter, rc);
    if (cli->audit && rc == EXIT_OK) {
        hs_stats stats;
        hs_filter_stats(filter, &stats);
        rc = audit_report(cli, &stats);
    }
done:
    if (filter) {
        r->ran = 1;
        hs_filter_stats(filter, &r->st);
    }
    if (rd.in) {
        r->in_known = 1;
        r->in_format = (int)hs_input_format(rd.in);
        r->in_raw = hs_input_raw_bytes(rd.in);
    }
    if (out) {
        r->out_known = 1;
        r->out_format = (int)cli->format;
        r->out_raw = hs_output_written(out);
    }
    hs_filter_free(filter);
    hs_output_free(out);
    hs_input_close(rd.in);
    if (spill.fp)
        fclose(spill.fp);
    if (cli->in_path)
        close(in_fd);
    if (cli->out_path) {
        if (rc == EXIT_OK || rc == EXIT_SALVAGED) {
            if (hs_outfile_commit(&of) != 0) {
                hs_report_fail(r, HS_E_WRITE, NULL, "%s: %s", cli->out_path, strerror(errno));
                rc = EXIT_IO;
            }
        } else {
            hs_outfile_abort(&of);
        }
    }
    return rc;
}

static double seconds(struct timeval tv)
{
    return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

/* The JSON report: in --stats-file's file (opened first, so that a run that
 * cannot report fails before it reads a byte) and/or on stderr. */
int hs_cli_run(hs_cli *cli)
{
    hs_report *r = &cli->report;
    struct timespec t0, t1;
    struct rusage ru;
    FILE *sf = NULL;
    int rc;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (cli->stats_file && !(sf = fopen(cli->stats_file, "w"))) {
        fprintf(stderr, "%s: %s: %s\n", g_prog, cli->stats_file, strerror(errno));
        return EXIT_IO;
    }
    rc = run_filter(cli);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    r->wall = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    if (getrusage(RUSAGE_SELF, &ru) == 0) {
        r->user = seconds(ru.ru_utime);
        r->sys = seconds(ru.ru_stime);
    }
    if (cli->stats == 1 && r->ran)
        hs_cli_print_stats(&r->st);
    if (cli->histogram && r->histo && !cli->quiet && cli->stats != 2)
        hs_cli_print_histogram(r, 20);
    if (cli->stats == 2)
        hs_report_write_json(stderr, r, rc, cli->in_path, cli->out_path, cli->audit);
    if (sf) {
        int bad = hs_report_write_json(sf, r, rc, cli->in_path, cli->out_path, cli->audit);
        if (fclose(sf) != 0 || bad) {
            fprintf(stderr, "%s: %s: writing the statistics failed\n", g_prog, cli->stats_file);
            if (rc == EXIT_OK)
                rc = EXIT_IO;
        }
    }
    return rc;
}
