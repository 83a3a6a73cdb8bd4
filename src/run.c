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
#include "progress.h"

static const char *const g_prog = "hprof-strip";

typedef struct {
    int fd;
    hs_input *in;
    hs_progress progress;
    hs_hasher *hash; /* a JSON report's digests, of input and output */
} reader;

static long read_with_progress(void *ctx, void *buf, size_t cap)
{
    reader *r = ctx;
    long n = hs_input_read(r->in, buf, cap);

    hs_progress_update(&r->progress, hs_input_raw_bytes(r->in));
    return n;
}

static long borrow_with_progress(void *ctx, const void **block)
{
    reader *r = ctx;
    long n = hs_input_borrow(r->in, block);

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
    hs_outfile_remove_on_signal();
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
            cli->format = HS_OUT_ZSTD;
        else if (ends_with(cli->out_path, ".gz"))
            cli->format = HS_OUT_GZIP;
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

static void report_failure(hs_cli *cli, hs_status s, const hs_error *e, hs_input *in,
                           hs_output *out, const spill_file *spill)
{
    const char *name = cli->in_path ? cli->in_path : "stdin";
    hs_report *r = &cli->report;

    if (hs_input_shrank(in))
        hs_report_fail(r, s, e, "%s: the input file shrank while it was being read (at input byte %llu)",
                       name, (unsigned long long)e->offset);
    else if (s == HS_E_READ && hs_input_error(in))
        hs_report_fail(r, s, e, "%s: %s", name, hs_input_error(in));
    else if (spill->err)
        hs_report_fail(r, s, e, "%s: %s: %s", e->message, spill->path, strerror(spill->err));
    else if (s == HS_E_WRITE)
        hs_report_fail(r, s, e, "%s: %s: %s", out_name(cli), e->message, hs_output_error(out));
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
                         hs_output *out, const spill_file *spill)
{
    const char *name = cli->in_path ? cli->in_path : "stdin";
    uint64_t end = hs_input_dump_bytes(in);
    int salvaged = cli->opt.salvage && (s == HS_OK || s == HS_SALVAGED);

    if (s != HS_OK && s != HS_SALVAGED && s != HS_E_TRUNCATED && e->offset < end) {
        report_failure(cli, s, e, in, out, spill);
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
    const char *name = cli->in_path ? cli->in_path : "stdin";
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
    if (cli->format == HS_OUT_PLAIN && cli->stats != 2 && fstat(out_fd, &ost) == 0 &&
        S_ISREG(ost.st_mode) && st->bytes_in &&
        (double)st->bytes_out > 0.9 * (double)st->bytes_in && !rules_change_nothing(cli->rules))
        fprintf(stderr,
                "%s: the output is %.0f%% of the input's size: zeroed data keeps its size; "
                "for a small file compress it: -z, or -o NAME.hprof.zst (or .gz)\n",
                g_prog, 100.0 * (double)st->bytes_out / (double)st->bytes_in);
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
    cli->format = HS_OUT_PLAIN;
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
    if (rc != EXIT_OK && rc != EXIT_SALVAGED) {
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

/* Runs the filter from the input to `out`; returns the exit code, the
 * failure said (or the salvage). */
static int filter_files(hs_cli *cli, hs_filter *filter, reader *rd, hs_output *out,
                        const spill_file *spill)
{
    hs_report *r = &cli->report;
    const char *name = cli->in_path ? cli->in_path : "stdin";
    const hs_error *e;
    hs_source src;
    hs_sink dst;
    hs_status s;
    int rc, finished;
    const void *mapped;
    uint64_t mapped_len;

    memset(&src, 0, sizeof src);
    src.read = read_with_progress;
    src.ctx = rd;
    src.data = hs_input_data(rd->in, &src.size);
    if (src.data)
        src.window = window_with_progress;
    else if (hs_input_lends(rd->in)) /* the reader thread's blocks, in place */
        src.borrow = borrow_with_progress;
    if ((mapped = hs_input_mapped(rd->in, &mapped_len)) != NULL)
        catch_sigbus(name, src.data ? "input byte" : "compressed byte", mapped, mapped_len);
    dst.write = cli->audit ? discard : hs_output_write;
    dst.ctx = out;
    s = hs_filter_run(filter, &src, &dst);
    e = hs_filter_error(filter);
    /* A dump broken inside a compressed file: the rest of its frame or
     * member may say the file itself is damaged (a flipped bit fails the
     * zstd checksum or the gzip CRC only at the end), and that is the
     * error to name (report_damage). */
    if (s == HS_E_MALFORMED || s == HS_E_UNSUPPORTED)
        hs_input_drain(rd->in);
    finished = (s == HS_OK || s == HS_SALVAGED) && hs_output_finish(out) == 0;
    if (!finished && !cli->out_path && hs_output_errno(out) == EPIPE)
        die_of_sigpipe();
    if (!finished || s != HS_OK)
        hs_progress_clear(&rd->progress); /* the message on a line of its own */
    if ((s == HS_OK || s == HS_SALVAGED) && !finished) {
        hs_report_fail(r, HS_E_WRITE, NULL, "%s: writing the output failed: %s",
                       out_name(cli), hs_output_error(out));
        return EXIT_IO;
    }
    if (hs_input_damage(rd->in))
        return report_damage(cli, s, e, rd->in, out, spill);
    rc = exit_code(s);
    if (s == HS_SALVAGED)
        hs_report_salvage(r, e->code, e, "%s: %s", name, e->message);
    else if (s != HS_OK)
        report_failure(cli, s, e, rd->in, out, spill);
    if (s == HS_OK) { /* after an error, no final figures under it */
        hs_stats now;
        hs_filter_stats(filter, &now);
        /* read in place: how far the filter got */
        hs_progress_end(&rd->progress, src.data ? now.bytes_in : hs_input_raw_bytes(rd->in));
    }
    return rc;
}

/* The run's warnings, on stderr (not with -q) and in the report: what the
 * input's decompressor read past, a dump with no heap dump in it (valid,
 * but nothing was stripped), and the filter's own. */
static void report_warnings(hs_cli *cli, const hs_filter *filter, const hs_input *in,
                            const hs_stats *st)
{
    const char *w;
    size_t i;

    if ((w = hs_input_warning(in)) != NULL)
        hs_report_warn(&cli->report, "%s: %s", cli->in_path ? cli->in_path : "stdin", w);
    if (!st->heap_dumps)
        hs_report_warn(&cli->report,
                       "%s holds no heap dump (valid HPROF, but no object in it: nothing "
                       "was stripped)",
                       cli->in_path ? cli->in_path : "stdin");
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
    hs_filter_stats(filter, &st);
    report_warnings(cli, filter, in, &st);
    warn_after_run(cli, &st, out_fd);
    n = hs_filter_histogram(filter, &rows);
    if (cli->histogram &&
        hs_report_keep_histogram(&cli->report, rows, n, st.hprof_version == 3) != 0) {
        hs_report_fail(&cli->report, HS_E_NOMEM, NULL, "out of memory");
        return EXIT_LIMIT;
    }
    if (cli->audit && rc == EXIT_OK)
        rc = audit_report(cli, &st);
    return rc;
}

/* What the report keeps of a run that got as far as the filter. Bytes that
 * never got out are not output: a plain dump counts what was written;
 * compressed, nothing written is nothing out (else what was compressed is
 * all one knows). */
/* The digests, once every byte is in: a plain side's HPROF is its file. */
static void keep_digests(hs_report *r, hs_hasher *h, const hs_input *in, const hs_output *out,
                         enum hs_output_format out_format)
{
    hs_digest d[HS_HASH_STREAMS];

    hs_hasher_digests(h, d);
    r->in_hashed = 1;
    r->in_sha = d[HS_HASH_IN_FILE];
    r->in_hprof_sha = hs_input_format(in) == HS_IN_PLAIN ? d[HS_HASH_IN_FILE] : d[HS_HASH_IN_DUMP];
    if (out) {
        r->out_hashed = 1;
        r->out_sha = d[HS_HASH_OUT_FILE];
        r->out_hprof_sha = out_format == HS_OUT_PLAIN ? d[HS_HASH_OUT_FILE] : d[HS_HASH_OUT_DUMP];
    }
}

static void keep_figures(hs_cli *cli, const hs_filter *filter, const reader *rd,
                         const hs_output *out, int rc)
{
    hs_report *r = &cli->report;

    if (filter) {
        r->ran = 1;
        hs_filter_stats(filter, &r->st);
    }
    if (rd->in) {
        r->in_known = 1;
        r->in_format = (int)hs_input_format(rd->in);
        r->in_raw = hs_input_raw_bytes(rd->in);
        /* in place, the filter walked the file as far as bytes_in */
        hs_input_hash_end(rd->in, r->st.bytes_in);
    }
    if (rd->hash)
        keep_digests(r, rd->hash, rd->in, cli->audit ? NULL : out, cli->format);
    if (out) {
        r->out_known = 1;
        r->out_format = (int)cli->format;
        r->out_raw = hs_output_written(out);
        if (filter && !cli->audit && rc == EXIT_IO &&
            (cli->format == HS_OUT_PLAIN || hs_output_written(out) == 0) &&
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
static void leave_inflater_a_core(const hs_input *in)
{
    if (hs_input_lends(in) && hs_input_format(in) == HS_IN_GZIP)
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
    int opened;

    if ((opened = hs_input_open(&rd->in, rd->fd)) != 0) {
        if (!hs_input_error(rd->in)) {
            hs_report_fail(r, HS_E_NOMEM, NULL, "out of memory");
            return EXIT_LIMIT;
        }
        hs_report_fail(r, HS_E_READ, NULL, "%s: %s", cli->in_path ? cli->in_path : "stdin",
                       hs_input_error(rd->in));
        /* -2: a zip, xz, ... named as such, which is not a heap dump */
        return opened == -2 ? EXIT_BAD_INPUT : EXIT_IO;
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
    /* decompressing beside the filter pays when there is a core for it */
    if (cli->threads > 1) {
        (void)hs_input_start_thread(rd->in);
        leave_inflater_a_core(rd->in);
    }
    if (hs_output_open(out, out_fd, cli->format, cli->level, cli->threads) != 0) {
        hs_report_fail(r, HS_E_NOMEM, NULL, "cannot start the compressor: %s",
                       *out ? hs_output_error(*out) : "out of memory");
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
    if (!(*filter = hs_filter_create(cli->rules, &cli->opt, NULL))) {
        hs_report_fail(r, HS_E_NOMEM, NULL, "out of memory");
        return EXIT_LIMIT;
    }
    return EXIT_OK;
}

static int write_all(void *ctx, const void *buf, size_t len)
{
    const int fd = *(const int *)ctx;
    const char *p = buf;

    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
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
    sink.write = write_all;
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
    hs_outfile of = {NULL, NULL, NULL, -1, 0, 0, 0};
    hs_output *out = NULL;
    hs_filter *filter = NULL;
    reader rd;
    int out_fd = STDOUT_FILENO, rc;
    struct stat st;
    spill_file spill = {-1, 0, {0}};

    memset(&rd, 0, sizeof rd);
    rd.fd = STDIN_FILENO;
    choose_format(cli);
    if ((rc = check_audit(cli)) != EXIT_OK || (rc = check_terminals(cli)) != EXIT_OK)
        return rc;
    /* caught before the temporary file exists, so none is ever left */
    if (cli->out_path)
        hs_outfile_catch_signals();
    if ((rc = open_files(cli, &rd.fd, &of)) != EXIT_OK)
        return rc;
    if ((rc = claim_mapfile(cli)) != EXIT_OK) {
        if (cli->in_path)
            close(rd.fd);
        return cli->out_path ? close_output(cli, &of, rc) : rc;
    }
    if (cli->out_path)
        out_fd = of.fd;
    /* A closed pipe downstream, or a file-size limit, is an error to report
     * (write fails with EPIPE or EFBIG), not a silent death by signal. */
    signal(SIGPIPE, SIG_IGN);
#ifdef SIGXFSZ
    signal(SIGXFSZ, SIG_IGN);
#endif
    hs_widen_pipe(rd.fd);
    hs_widen_pipe(out_fd);
    rc = start_run(cli, &rd, out_fd, &out, &filter, &spill);
    if (rc == EXIT_OK) {
        hs_progress_start(&rd.progress, cli->progress < 0 ? isatty(STDERR_FILENO) : cli->progress,
                          cli->size ? cli->size
                          : fstat(rd.fd, &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size
                                                                           : 0);
        rc = filter_files(cli, filter, &rd, out, &spill);
        rc = after_run(cli, filter, rd.in, out_fd, rc);
        rc = write_mapfile(cli, filter, rc);
    }
    keep_figures(cli, filter, &rd, out, rc);
    hs_filter_free(filter);
    hs_output_free(out);
    hs_input_close(rd.in);
    hs_hasher_free(rd.hash);
    if (spill.fd >= 0)
        close(spill.fd);
    if (cli->in_path)
        close(rd.fd);
    return cli->out_path ? close_output(cli, &of, rc) : rc;
}

static double seconds(struct timeval tv)
{
    return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

/* --stats-file's file under files.h's rule: never an input, never the
 * dump's output, never a dump. Returns EXIT_OK or the exit code, said. */
static int claim_report(const hs_cli *cli)
{
    hs_claim c;
    int r;

    /* the dump's output is claimed first (again when it is opened): when
     * the two clash, the report is the one refused, and nothing is written */
    if (cli->audit)
        ;
    else if (!cli->out_path)
        (void)hs_files_claim_stdout("standard output");
    else if (hs_files_claim(cli->out_path, output_how(cli), &c) == 0)
        free(c.target);
    r = hs_files_claim(cli->stats_file, HS_OUT_REPORT | (cli->force ? HS_OUT_FORCE : 0), &c);
    if (r == 0) {
        free(c.target);
        return EXIT_OK;
    }
    if (r > 0)
        fprintf(stderr, "%s: %s\n", g_prog, hs_files_why());
    else
        fprintf(stderr, "%s: %s: %s\n", g_prog, cli->stats_file, strerror(errno));
    return r > 0 ? EXIT_USAGE : EXIT_IO;
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
    if (cli->stats_file) {
        if ((rc = claim_report(cli)) != EXIT_OK)
            return rc;
        if (!(sf = fopen(cli->stats_file, "w"))) {
            fprintf(stderr, "%s: %s: %s\n", g_prog, cli->stats_file, strerror(errno));
            return EXIT_IO;
        }
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
