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
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "input.h"
#include "io.h"
#include "progress.h"

static const char *const g_prog = "hprof-strip";

typedef struct {
    hs_input *in;
    hs_progress progress;
} reader;

static long read_with_progress(void *ctx, void *buf, size_t cap)
{
    reader *r = ctx;
    long n = hs_input_read(r->in, buf, cap);

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

/* What the SIGBUS handler needs to name the place: set before the mapped
 * input is read, read only by the handler. */
static const char *g_bus_name;
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
    hs_outfile_remove_on_signal();
    put_str(msg, sizeof msg, &at, "hprof-strip: ");
    put_str(msg, sizeof msg, &at, g_bus_name ? g_bus_name : "input");
    put_str(msg, sizeof msg, &at, ": the input file shrank while it was being read");
    if (addr && g_bus_base && addr >= g_bus_base && (uint64_t)(addr - g_bus_base) < g_bus_len) {
        put_str(msg, sizeof msg, &at, " (at input byte ");
        put_u64(msg, sizeof msg, &at, (uint64_t)(addr - g_bus_base));
        put_str(msg, sizeof msg, &at, ")");
    }
    put_str(msg, sizeof msg, &at, "\n");
    ignored = write(STDERR_FILENO, msg, at);
    (void)ignored;
    _exit(EXIT_IO);
}

static void catch_sigbus(const char *name, const void *base, uint64_t len)
{
    struct sigaction sa;

    g_bus_name = name;
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

static void report_failure(const hs_cli *cli, hs_status s, const hs_error *e, hs_input *in,
                           hs_output *out, const spill_file *spill)
{
    const char *name = cli->in_path ? cli->in_path : "stdin";

    if (hs_input_shrank(in))
        fprintf(stderr,
                "%s: %s: the input file shrank while it was being read (at input byte %llu)\n",
                g_prog, name, (unsigned long long)e->offset);
    else if (s == HS_E_READ && hs_input_error(in))
        fprintf(stderr, "%s: %s: %s\n", g_prog, name, hs_input_error(in));
    else if (spill->err)
        fprintf(stderr, "%s: %s: %s: %s\n", g_prog, e->message, spill->path, strerror(spill->err));
    else if (s == HS_E_WRITE)
        fprintf(stderr, "%s: %s: %s: %s\n", g_prog, out_name(cli), e->message,
                hs_output_error(out));
    else
        fprintf(stderr, "%s: %s: %s\n", g_prog, name, e->message);
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

/* --audit: what the privacy preset would still have to remove. Returns
 * EXIT_OK when nothing, EXIT_AUDIT otherwise. */
static int audit_report(const hs_cli *cli, const hs_stats *st)
{
    const char *name = cli->in_path ? cli->in_path : "stdin";
    int clean = !st->nonzero_array_bytes && !st->nonzero_field_bytes && !st->strings_dropped;

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
    /* a report that was not written is an I/O failure, not a finding */
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "%s: standard output: writing the audit report failed: %s\n", g_prog,
                strerror(errno));
        return EXIT_IO;
    }
    return clean ? EXIT_OK : EXIT_AUDIT;
}

/* --audit asks what the privacy preset would remove, and writes no dump. */
static int check_audit(hs_cli *cli)
{
    if (!cli->audit)
        return EXIT_OK;
    if (cli->out_path) {
        fprintf(stderr, "%s: --audit writes no dump; drop the output name '%s'\n", g_prog,
                cli->out_path);
        return EXIT_USAGE;
    }
    hs_rules_preset(cli->rules, "none", NULL);
    hs_rules_preset(cli->rules, "privacy", NULL);
    cli->format = HS_OUT_PLAIN;
    return EXIT_OK;
}

/* Puts -o's file in place after a success, removes it otherwise. */
static int close_output(const hs_cli *cli, hs_outfile *of, int rc)
{
    if (rc != EXIT_OK && rc != EXIT_SALVAGED) {
        hs_outfile_abort(of);
        return rc;
    }
    if (hs_outfile_commit(of) != 0) {
        fprintf(stderr, "%s: %s: %s\n", g_prog, cli->out_path, strerror(errno));
        return EXIT_IO;
    }
    return rc;
}

/* The checks made before any input is read: a terminal on either side. */
static int check_terminals(const hs_cli *cli)
{
    if (!cli->in_path && isatty(STDIN_FILENO)) {
        fprintf(stderr,
                "%s: stdin is a terminal; give a file or pipe a dump in, see --help\n",
                g_prog);
        return EXIT_USAGE;
    }
    if (!cli->audit && !cli->out_path && isatty(STDOUT_FILENO) && !cli->force) {
        fprintf(stderr,
                "%s: refusing to write a heap dump to a terminal; redirect standard "
                "output, use -o FILE, or -f to insist\n",
                g_prog);
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

/* Opens INPUT, then -o's file (keeping the input file's permission bits).
 * Returns EXIT_OK or the exit code, with the message said. */
static int open_files(const hs_cli *cli, int *in_fd, hs_outfile *of)
{
    struct stat st;
    int e;

    if (cli->in_path && (*in_fd = open(cli->in_path, O_RDONLY)) < 0) {
        fprintf(stderr, "%s: %s: %s\n", g_prog, cli->in_path, strerror(errno));
        return EXIT_IO;
    }
    if (!cli->out_path)
        return EXIT_OK;
    if (hs_outfile_open(of, cli->out_path, cli->force,
                        fstat(*in_fd, &st) == 0 && S_ISREG(st.st_mode)
                            ? (int)(st.st_mode & 0777)
                            : -1) == 0)
        return EXIT_OK;
    e = errno;
    if (e == EEXIST)
        fprintf(stderr, "%s: %s already exists; use -f to overwrite it\n", g_prog,
                cli->out_path);
    else if (e == EISDIR)
        fprintf(stderr, "%s: %s is a directory; give a file name to -o\n", g_prog,
                cli->out_path);
    else
        fprintf(stderr, "%s: %s: %s\n", g_prog, cli->out_path, strerror(e));
    if (cli->in_path)
        close(*in_fd);
    return e == EEXIST || e == EISDIR ? EXIT_USAGE : EXIT_IO;
}

/* The reader went away (EPIPE on standard output): end quietly, the way
 * gzip and zstd do, by the SIGPIPE that was ignored to get here. */
static void die_of_sigpipe(void)
{
    sigset_t set;

    fflush(stderr);
    signal(SIGPIPE, SIG_DFL);
    sigemptyset(&set);
    sigaddset(&set, SIGPIPE);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    raise(SIGPIPE);
    _exit(EXIT_IO); /* not reached */
}

/* Runs the filter from `in_fd` to `out`; returns the exit code, the
 * failure said. */
static int filter_files(hs_cli *cli, hs_filter *filter, reader *rd, hs_output *out,
                        const spill_file *spill)
{
    hs_source src;
    hs_sink dst;
    hs_status s;
    int rc;

    memset(&src, 0, sizeof src);
    src.read = read_with_progress;
    src.ctx = rd;
    src.data = hs_input_data(rd->in, &src.size);
    if (src.data) {
        src.window = window_with_progress;
        catch_sigbus(cli->in_path ? cli->in_path : "stdin", src.data, src.size);
    }
    dst.write = cli->audit ? discard : hs_output_write;
    dst.ctx = out;
    s = hs_filter_run(filter, &src, &dst);
    if (s != HS_OK && s != HS_SALVAGED) {
        if (!cli->out_path && hs_output_errno(out) == EPIPE)
            die_of_sigpipe();
        report_failure(cli, s, hs_filter_error(filter), rd->in, out, spill);
        rc = exit_code(s);
    } else if (hs_output_finish(out) != 0) {
        if (!cli->out_path && hs_output_errno(out) == EPIPE)
            die_of_sigpipe();
        fprintf(stderr, "%s: %s: writing the output failed: %s\n", g_prog, out_name(cli),
                hs_output_error(out));
        rc = EXIT_IO;
    } else {
        rc = exit_code(s);
        if (s == HS_SALVAGED)
            fprintf(stderr, "%s: %s: %s\n", g_prog, cli->in_path ? cli->in_path : "stdin",
                    hs_filter_error(filter)->message);
    }
    if (src.data) { /* in place: how far the filter got */
        hs_stats now;
        hs_filter_stats(filter, &now);
        hs_progress_end(&rd->progress, now.bytes_in);
    } else {
        hs_progress_end(&rd->progress, hs_input_raw_bytes(rd->in));
    }
    return rc;
}

/* --audit's report and --stats, after the run. */
static int report_after(const hs_cli *cli, hs_filter *filter, const hs_output *out, int rc)
{
    hs_stats stats;

    hs_filter_stats(filter, &stats);
    if (cli->audit && rc == EXIT_OK)
        rc = audit_report(cli, &stats);
    /* bytes that never got out are not output: a plain dump counts what
     * was written; compressed, nothing written is nothing out (else what
     * was compressed is all one knows) */
    if (!cli->audit && rc == EXIT_IO &&
        (cli->format == HS_OUT_PLAIN || hs_output_written(out) == 0) &&
        hs_output_written(out) < stats.bytes_out)
        stats.bytes_out = hs_output_written(out);
    if (cli->stats == 2)
        hs_cli_print_stats_json(&stats);
    else if (cli->stats)
        hs_cli_print_stats(&stats);
    return rc;
}

int hs_cli_run(hs_cli *cli)
{
    hs_outfile of = {NULL, NULL, NULL, -1};
    hs_output *out = NULL;
    hs_filter *filter = NULL;
    reader rd;
    int in_fd = STDIN_FILENO, out_fd = STDOUT_FILENO, rc;
    struct stat st;
    spill_file spill = {-1, 0, {0}};

    memset(&rd, 0, sizeof rd);
    choose_format(cli);
    if ((rc = check_audit(cli)) != EXIT_OK || (rc = check_terminals(cli)) != EXIT_OK)
        return rc;
    /* caught before the temporary file exists, so none is ever left */
    if (cli->out_path)
        hs_outfile_catch_signals();
    if ((rc = open_files(cli, &in_fd, &of)) != EXIT_OK)
        return rc;
    if (cli->out_path)
        out_fd = of.fd;
    /* A closed pipe downstream, or a file-size limit, is an error to report
     * (write fails with EPIPE or EFBIG), not a silent death by signal. */
    signal(SIGPIPE, SIG_IGN);
#ifdef SIGXFSZ
    signal(SIGXFSZ, SIG_IGN);
#endif

    hs_widen_pipe(in_fd);
    hs_widen_pipe(out_fd);
    rc = EXIT_LIMIT;
    if (hs_input_open(&rd.in, in_fd) != 0) {
        if (hs_input_error(rd.in)) {
            fprintf(stderr, "%s: %s: %s\n", g_prog, cli->in_path ? cli->in_path : "stdin",
                    hs_input_error(rd.in));
            rc = EXIT_IO;
        } else {
            fprintf(stderr, "%s: out of memory\n", g_prog);
        }
        goto done;
    }
    if (hs_output_open(&out, out_fd, cli->format, cli->level, cli->threads) != 0) {
        fprintf(stderr, "%s: cannot start the compressor: %s\n", g_prog,
                out ? hs_output_error(out) : "out of memory");
        goto done;
    }
    cli->opt.spill.write = spill_write;
    cli->opt.spill.read = spill_read;
    cli->opt.spill.ctx = &spill;
    /* the duplicate report rides on --stats: it costs a hash per array */
    cli->opt.find_duplicates = cli->stats != 0;
    /* so is the count of non-zero bytes scrubbed: it reads bytes that
     * would otherwise be skipped unread */
    cli->opt.count_nonzero = cli->stats != 0 || cli->audit;
    filter = hs_filter_create(cli->rules, &cli->opt, NULL);
    if (!filter) {
        fprintf(stderr, "%s: out of memory\n", g_prog);
        goto done;
    }
    hs_progress_start(&rd.progress,
                      cli->progress < 0 ? isatty(STDERR_FILENO) : cli->progress,
                      cli->size ? cli->size
                      : fstat(in_fd, &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size
                                                                       : 0);
    rc = filter_files(cli, filter, &rd, out, &spill);
    rc = report_after(cli, filter, out, rc);
done:
    hs_filter_free(filter);
    hs_output_free(out);
    hs_input_close(rd.in);
    if (spill.fd >= 0)
        close(spill.fd);
    if (cli->in_path)
        close(in_fd);
    return cli->out_path ? close_output(cli, &of, rc) : rc;
}
