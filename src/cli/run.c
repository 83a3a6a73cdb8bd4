/* SPDX-License-Identifier: Apache-2.0 */
/*
 * run.c - one run of the command: the files (opened, claimed, put in place
 * or removed), the input and output opened, and the run itself made by the
 * library's hs_job_run, told through its hooks what only a command line
 * has: the terminal's progress line, the option names in messages, a
 * report kept ready for a signal, a mapped file shrinking (SIGBUS), a
 * closed pipe ending quietly, the spill file and --obfuscate-names' file.
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

#include "cli_port.h"
#include "cli.h"
#include "io.h"
#include "progress.h"
#include "stop.h"

static const char *const g_prog = "hprof-strip";

/* The spill store for instances held back by field scrubbing: a file in
 * $TMPDIR (else /tmp), made on first use and unlinked at once, so it is gone
 * when the process ends however it ends. tmpfile() would ignore $TMPDIR. */
typedef struct {
    int fd;
    int err;         /* errno of the first failure, 0 if none */
    char path[4096]; /* for the message */
} spill_file;

/* One run: what hs_job_run's hooks reach (their ctx). */
typedef struct {
    hs_cli *cli;
    hs_input *in;
    hs_output *out; /* NULL for --audit */
    int out_fd;
    hs_progress progress;
    spill_file spill;
} cli_run;

static struct timespec g_t0; /* the run's start, for "wall_seconds" */

static double since_start(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - g_t0.tv_sec) + (double)(t.tv_nsec - g_t0.tv_nsec) / 1e9;
}

/* Renders the report as it stands, without its exit status and error, for
 * a signal's handler to complete (stop.h): the figures so far (hs_job_run
 * keeps them current before each snapshot and each message), the output
 * not kept (a stopped run removes it) until it is in place. */
static void publish_report(hs_cli *cli)
{
    char *doc;
    size_t head;

    if (!cli->stats_file && cli->stats != 2)
        return;
    hs_report_set_times(cli->report, since_start(), -1, -1);
    doc = hs_report_json_parts(cli->report, hs_cli_report_in_name(cli), cli->out_path, &head);
    if (doc)
        hs_stop_publish(doc, head, strlen(doc));
    hs_free(doc);
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
    if (!hs_stop_write(0, HS_EXIT_IO, HS_E_READ, msg + sizeof "hprof-strip: " - 1))
        hs_stop_wait_for_other(); /* a stop by a signal is writing its report */
    hs_outfile_remove_on_signal();
    _exit(HS_EXIT_IO);
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

/* The output format: as told, else from -o's name, else plain. */
static void choose_format(hs_cli *cli)
{
    if (!cli->format_given && cli->out_path) {
        cli->format = (hs_compression)hs_compression_of_path(cli->out_path, NULL);
    }
    if (cli->threads <= 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        cli->threads = n > 0 ? (int)n : 1;
    }
}

static const char *out_name(const hs_cli *cli)
{
    return cli->out_path ? cli->out_path : "standard output";
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

static uint64_t count_kind(const hs_finding *rows, size_t n_rows, int kind)
{
    uint64_t n = 0;
    size_t i;

    for (i = 0; i < n_rows; i++)
        n += rows[i].kind == kind;
    return n;
}

/* --audit's places, by kind (the container's first), the app's classes
 * before the JDK's within each, at most AUDIT_LIST a kind (the JSON report
 * has all of them). */
#define AUDIT_LIST 10
static void print_findings(const hs_finding *rows, size_t n_rows)
{
    static const int order[] = {HS_FIND_CONTAINER, HS_FIND_FIELD,         HS_FIND_STATIC,
                                HS_FIND_CONSTANT,  HS_FIND_CLASS,         HS_FIND_RESERVED,
                                HS_FIND_ARRAY,     HS_FIND_STRING_UNUSED, HS_FIND_RECORD,
                                HS_FIND_STRING_LONG};
    static const char *const heads[] = {
        "instance fields holding data (objects, non-zero bytes, first at input byte)",
        "static fields holding data (non-zero bytes, at input byte)",
        "constant-pool values holding data (non-zero bytes, at input byte)",
        "instances of classes never dumped (objects, non-zero bytes)",
        "primitive arrays holding data (arrays, non-zero bytes)",
        "records of unknown tag (body bytes, at input byte)",
        "STRING records nothing uses (id, text bytes, at input byte)",
        "STRING records too long to be names, holding data",
        "CLASS_DUMPs whose reserved ids hold data (bytes, at input byte)",
        "the file's container, beside the dump (bytes, at file byte)"};
    size_t o;

    for (o = 0; o < sizeof order / sizeof order[0]; o++) {
        int kind = order[o];
        uint64_t n = count_kind(rows, n_rows, kind), shown = 0;
        size_t i;
        if (!n)
            continue;
        printf("  %s:\n", heads[kind]);
        for (i = 0; i < n_rows && shown < AUDIT_LIST; i++) {
            const hs_finding *x = &rows[i];
            if (x->kind != kind)
                continue;
            shown++;
            if (kind == HS_FIND_FIELD || kind == HS_FIND_CLASS || kind == HS_FIND_ARRAY)
                printf("    %s: %llu %s, %llu bytes, first at input byte %llu\n", x->name,
                       (unsigned long long)x->count,
                       kind == HS_FIND_ARRAY ? "arrays" : "objects",
                       (unsigned long long)x->bytes, (unsigned long long)x->first_offset);
            else
                printf("    %s: %llu bytes at %s byte %llu\n", x->name,
                       (unsigned long long)x->bytes, kind == HS_FIND_CONTAINER ? "file" : "input",
                       (unsigned long long)x->first_offset);
        }
        if (n > shown)
            printf("    and %llu more (all of them in the JSON report: --stats-file)\n",
                   (unsigned long long)(n - shown));
    }
}

/* --audit's certificate: the file, its digests, the verifier, the verdict,
 * what is kept on purpose, then where the data is (with -q, only the exit
 * status tells). The verdict and every figure are the verifier's
 * (hs_report_audit_figures), not a filter's. Returns HS_EXIT_OK when
 * clean, HS_EXIT_AUDIT otherwise. */
static int audit_report(hs_cli *cli, const hs_input *in)
{
    const char *name = hs_cli_in_name(cli);
    const hs_finding *rows;
    size_t n = hs_report_findings(cli->report, &rows);
    int clean = hs_report_audit_verdict(cli->report) == 1, c = hs_input_compression(in);
    hs_audit_figures a;

    if (cli->quiet)
        return clean ? HS_EXIT_OK : HS_EXIT_AUDIT;
    hs_report_audit_figures(cli->report, &a, sizeof a);
    printf("%s: %s\n", name, clean ? "clean" : "NOT clean");
    printf("  file:     %s, %llu bytes, %s\n", name, (unsigned long long)a.file_bytes,
           c == HS_COMPRESS_NONE ? "plain HPROF" : c > 0 ? hs_compression_name(c) : "?");
    printf("  sha256:   %s (file)\n", a.file_sha256);
    printf("  sha256:   %s (HPROF, %llu bytes)\n", a.hprof_sha256,
           (unsigned long long)a.hprof_bytes);
    printf("  verifier: hprof-strip %s, every byte of file and dump read\n", hs_version());
    printf("  verdict:  %s\n", clean ? "clean: no byte holds data"
                                      : "NOT clean: the file holds data (below)");
    printf("  kept on purpose: names (STRING text something uses), ids, lengths, counts, "
           "types,\n    serials, timestamps, line numbers, java.lang.String.coder and four "
           "JDK Unsafe\n    offsets: hprof-strip-report(5), AUDIT, says why\n");
    printf("  non-zero primitive-array bytes: %llu", (unsigned long long)a.nonzero_array_bytes);
    if (a.nonzero_array_bytes)
        printf(" (first at input byte %llu)", (unsigned long long)a.first_nonzero_array);
    printf("\n  non-zero primitive field bytes: %llu", (unsigned long long)a.nonzero_field_bytes);
    if (a.nonzero_field_bytes)
        printf(" (first at input byte %llu)", (unsigned long long)a.first_nonzero_field);
    printf("\n  STRING records nothing uses:    %llu (%llu text bytes)\n",
           (unsigned long long)a.unused_strings, (unsigned long long)a.unused_string_bytes);
    printf("  records of unknown tag:         %llu\n", (unsigned long long)a.unknown_records);
    printf("  STRINGs too long to be names:   %llu holding data (%llu bytes)\n",
           (unsigned long long)a.long_strings, (unsigned long long)a.long_string_bytes);
    printf("  CLASS_DUMP reserved ids:        %llu\n", (unsigned long long)a.reserved_ids);
    printf("  container findings:             %llu\n",
           (unsigned long long)a.container_findings);
    print_findings(rows, n);
    /* a report that was not written is an I/O failure, not a finding */
    if (fflush(stdout) != 0 || ferror(stdout)) {
        hs_report_fail(cli->report, HS_E_WRITE, NULL,
                       "standard output: writing the audit report failed: %s", strerror(errno));
        return HS_EXIT_IO;
    }
    return clean ? HS_EXIT_OK : HS_EXIT_AUDIT;
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
    /* an Android dump stays Android's: MAT and VisualVM refuse 1.0.3, and
     * nothing else would say so before the user tries (advice, as below) */
    if (st->hprof_version == 3 && !cli->opt.to_jvm && cli->stats != 2)
        fprintf(stderr,
                "%s: %s%sthe output is an Android dump (JAVA PROFILE 1.0.3): Android Studio, "
                "ahat and shark open it; MAT and VisualVM need --to-jvm\n",
                g_prog, cli->files ? name : "", cli->files ? ": " : "");
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
        return HS_EXIT_OK;
    if (cli->out_path) {
        hs_report_fail(cli->report, HS_E_USAGE, NULL,
                       "--audit writes no dump; drop the output name '%s'", cli->out_path);
        return HS_EXIT_USAGE;
    }
    hs_rules_preset(cli->rules, "none", NULL);
    hs_rules_preset(cli->rules, "privacy", NULL);
    cli->format = HS_COMPRESS_NONE;
    return HS_EXIT_OK;
}

/* The checks made before any input is read: a terminal on either side. */
static int check_terminals(hs_cli *cli)
{
    if (!cli->in_path && isatty(STDIN_FILENO)) {
        hs_report_fail(cli->report, HS_E_USAGE, NULL,
                       "stdin is a terminal; give a file or pipe a dump in, see --help");
        return HS_EXIT_USAGE;
    }
    if (!cli->audit && !cli->out_path && isatty(STDOUT_FILENO) && !cli->force) {
        hs_report_fail(cli->report, HS_E_USAGE, NULL,
                       "refusing to write a heap dump to a terminal; redirect standard "
                       "output, use -o FILE, or -f to insist");
        return HS_EXIT_USAGE;
    }
    return HS_EXIT_OK;
}

/* How the dump's output was asked for (files.h). */
static int output_how(const hs_cli *cli)
{
    return (cli->force ? HS_OUT_FORCE : 0) | (cli->out_positional ? HS_OUT_POSITIONAL : 0);
}

/* Opens INPUT, then -o's file (keeping the input file's permission bits),
 * or checks that standard output may take the dump. Returns HS_EXIT_OK or the
 * exit code, with the message said. */
static int open_files(hs_cli *cli, int *in_fd, hs_outfile *of)
{
    hs_report *r = cli->report;
    struct stat st;
    int e, how = output_how(cli);

    if (cli->in_path && (*in_fd = open(cli->in_path, O_RDONLY)) < 0) {
        hs_report_fail(r, HS_E_READ, NULL, "%s: %s", cli->in_path, strerror(errno));
        return HS_EXIT_IO;
    }
    /* a directory opens, and its read fails (EISDIR): that would be a
     * "read" error, retryable, where the command line named the wrong file */
    if (cli->in_path && fstat(*in_fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        close(*in_fd);
        hs_report_fail(r, HS_E_USAGE, NULL, "%s is a directory; give a heap dump file as INPUT",
                       cli->in_path);
        return HS_EXIT_USAGE;
    }
    if (!cli->out_path) {
        if (cli->audit || hs_files_claim_stdout("standard output") == 0)
            return HS_EXIT_OK;
        hs_report_fail(r, HS_E_USAGE, NULL, "%s", hs_files_why());
        e = EEXIST;
    } else if (hs_outfile_open(of, cli->out_path, how,
                               fstat(*in_fd, &st) == 0 && S_ISREG(st.st_mode)
                                   ? (int)(st.st_mode & 07777)
                                   : -1) == 0) {
        return HS_EXIT_OK;
    } else if (of->refused) {
        hs_report_fail(r, HS_E_USAGE, NULL, "%s", hs_files_why());
        e = EEXIST;
    } else {
        e = errno;
        hs_report_fail(r, HS_E_WRITE, NULL, "%s: %s", cli->out_path, strerror(e));
    }
    if (cli->in_path)
        close(*in_fd);
    return e == EEXIST ? HS_EXIT_USAGE : HS_EXIT_IO;
}

/* Puts -o's file in place after a success, removes it otherwise. */
static int close_output(hs_cli *cli, hs_outfile *of, int rc)
{
    if (rc != HS_EXIT_OK && rc != HS_EXIT_SALVAGED && !cli->keep_output) {
        hs_outfile_abort(of);
        return rc;
    }
    if (hs_outfile_commit(of) != 0) {
        if (errno == EEXIST)
            hs_report_fail(cli->report, HS_E_WRITE, NULL,
                           "%s: %s while this run went on; it is left as it is, and this "
                           "run's output is dropped%s",
                           cli->out_path,
                           cli->force ? "became a file this run reads, or not a regular file"
                                      : "was created",
                           cli->force ? "" : " (-f replaces it)");
        else
            hs_report_fail(cli->report, HS_E_WRITE, NULL, "%s: %s", cli->out_path,
                           strerror(errno));
        return HS_EXIT_IO;
    }
    return rc;
}

static int write_all(int fd, const char *p, size_t n);

/* hs_sink.write into the descriptor at ctx */
static int fd_sink_write(void *ctx, const void *buf, size_t len)
{
    return write_all(*(const int *)ctx, buf, len);
}

/* --obfuscate-names -: the mapping to standard output, when the dump is
 * not going there (a file named "-" is what nobody means) */
static int mapfile_to_stdout(const hs_cli *cli)
{
    return strcmp(cli->obfuscate_path, "-") == 0;
}

/* --obfuscate-names' file, claimed after the dump's output (so that the
 * two clash when they are one file) and before a byte is read. */
static int claim_mapfile(hs_cli *cli)
{
    hs_claim c;
    int r;

    if (!cli->obfuscate_path)
        return HS_EXIT_OK;
    if (mapfile_to_stdout(cli)) {
        if (!cli->out_path) {
            hs_report_fail(cli->report, HS_E_USAGE, NULL,
                           "--obfuscate-names - writes the mapping to standard output, which "
                           "takes the dump: give the mapping a file name, or the dump one "
                           "(-o FILE)");
            return HS_EXIT_USAGE;
        }
        if (hs_files_claim_stdout("--obfuscate-names -") == 0)
            return HS_EXIT_OK;
        hs_report_fail(cli->report, HS_E_USAGE, NULL, "%s", hs_files_why());
        return HS_EXIT_USAGE;
    }
    r = hs_files_claim(cli->obfuscate_path, HS_OUT_MAPFILE | (cli->force ? HS_OUT_FORCE : 0), &c);
    if (r == 0) {
        free(c.target);
        return HS_EXIT_OK;
    }
    if (r > 0)
        hs_report_fail(cli->report, HS_E_USAGE, NULL, "%s", hs_files_why());
    else
        hs_report_fail(cli->report, HS_E_WRITE, NULL, "%s: %s", cli->obfuscate_path,
                       strerror(errno));
    return r > 0 ? HS_EXIT_USAGE : HS_EXIT_IO;
}

/* After a run that obfuscated: the mapping, in place before the dump is. */
static int write_mapfile(hs_cli *cli, const hs_filter *filter, int rc)
{
    hs_outfile mf;
    hs_sink sink;
    hs_status s;

    if (!cli->obfuscate_path || (rc != HS_EXIT_OK && rc != HS_EXIT_SALVAGED))
        return rc;
    if (mapfile_to_stdout(cli)) {
        int fd = STDOUT_FILENO;
        sink.write = fd_sink_write;
        sink.ctx = &fd;
        if ((s = hs_filter_obfuscation_map(filter, &sink)) == HS_OK)
            return rc;
        hs_report_fail(cli->report, s, NULL, "--obfuscate-names: standard output: %s",
                       s == HS_E_NOMEM ? "out of memory" : strerror(errno));
        return s == HS_E_NOMEM ? HS_EXIT_LIMIT : HS_EXIT_IO;
    }
    if (hs_outfile_open(&mf, cli->obfuscate_path,
                        HS_OUT_MAPFILE | (cli->force ? HS_OUT_FORCE : 0),
                        hs_private_mode(cli->in_path)) != 0) {
        hs_report_fail(cli->report, mf.refused ? HS_E_USAGE : HS_E_WRITE, NULL, "%s%s%s",
                       mf.refused ? hs_files_why() : cli->obfuscate_path, mf.refused ? "" : ": ",
                       mf.refused ? "" : strerror(errno));
        return mf.refused ? HS_EXIT_USAGE : HS_EXIT_IO;
    }
    sink.write = fd_sink_write;
    sink.ctx = &mf.fd;
    s = hs_filter_obfuscation_map(filter, &sink);
    if (s != HS_OK) {
        int e = errno;
        hs_outfile_abort(&mf);
        hs_report_fail(cli->report, s, NULL, "%s: %s", cli->obfuscate_path,
                       s == HS_E_NOMEM ? "out of memory" : strerror(e));
        return s == HS_E_NOMEM ? HS_EXIT_LIMIT : HS_EXIT_IO;
    }
    if (hs_outfile_commit(&mf) != 0) {
        hs_report_fail(cli->report, HS_E_WRITE, NULL, "%s: %s", cli->obfuscate_path,
                       strerror(errno));
        return HS_EXIT_IO;
    }
    return rc;
}

void hs_cli_say(void *ctx, hs_message_kind kind, hs_status code, const hs_error *where,
                char *text, size_t cap)
{
    const hs_cli *cli = ctx;

    (void)code;
    (void)where;
    (void)cap;
    if (cli->quiet && (kind == HS_MSG_WARNING || kind == HS_MSG_SALVAGED))
        return;
    fprintf(stderr, "%s: %s%s\n", g_prog, kind == HS_MSG_WARNING ? "warning: " : "", text);
}

/* The reader went away (EPIPE on standard output): end quietly, the way
 * gzip and zstd do, by the SIGPIPE that was ignored to get here, the
 * report saying so as it would for a SIGPIPE that killed the run. */
static void die_of_sigpipe(hs_cli *cli)
{
    fflush(stderr);
    publish_report(cli);
    hs_stop_now(SIGPIPE);
}

/* Replaces the first `from` in `text` by `to`, within `cap`. */
static void rename_word(char *text, size_t cap, const char *from, const char *to)
{
    char *at = strstr(text, from);
    size_t n = strlen(from), k = strlen(to), len = strlen(text);

    if (!at || len - n + k >= cap)
        return;
    memmove(at + k, at + n, len - (size_t)(at - text) - n + 1);
    memcpy(at, to, k);
}

/* hs_job's message hook (the report's): each message as the library makes
 * it, in the command's words (the options by their names, the spill
 * file's), on a line of its own below the progress line; a write that
 * failed for a reader gone ends the run instead (die_of_sigpipe). */
static void say(void *ctx, hs_message_kind kind, hs_status code, const hs_error *where,
                char *text, size_t cap)
{
    cli_run *rn = ctx;
    hs_cli *cli = rn->cli;

    if (kind == HS_MSG_ERROR && !cli->out_path && rn->out && hs_output_errno(rn->out) == EPIPE)
        die_of_sigpipe(cli);
    if (kind == HS_MSG_ERROR && rn->spill.err && where) /* the spill file's own failure */
        snprintf(text, cap, "%s: %s: %s", where->message, rn->spill.path,
                 strerror(rn->spill.err));
    rename_word(text, cap, "(salvage ", "(--salvage ");
    rename_word(text, cap, "(max_held)", "(--max-held)");
    hs_progress_clear(&rn->progress); /* (none with -q) */
    hs_cli_say(cli, kind, code, where, text, cap);
}

/* hs_job's snapshot hook: the report kept ready for a signal. */
static void snapshot(void *ctx, const hs_report *r)
{
    cli_run *rn = ctx;

    (void)r; /* it is rn->cli->report */
    publish_report(rn->cli);
}

/* hs_job's progress: the terminal's line, in the input's own bytes. */
static int progress(void *ctx, uint64_t in_bytes, uint64_t in_hprof_bytes, uint64_t out_bytes)
{
    cli_run *rn = ctx;

    (void)in_hprof_bytes;
    (void)out_bytes;
    hs_progress_update(&rn->progress, in_bytes);
    return 0;
}

/* hs_job's start, the input's source made: a mapped input's SIGBUS named,
 * and the scheduling beside a gzip input's inflater.
 *
 * gzip input is inflated on a thread of its own (input.c), and that thread
 * is what a run waits on: the filter and the compressor's workers keep up
 * with it on the other core. As SCHED_BATCH they keep the same share of
 * the CPU, but no longer preempt the inflater when they wake, so it keeps
 * its core whenever it has work (-z on a 1 GB gzip dump: 3 % faster,
 * bench/RESULTS.md). Only this thread changes, and only from the default
 * policy, so a run started under chrt keeps what it was given; the threads
 * started before (inflater, helper, pager) keep theirs, and so do --gzip's
 * workers, started when the output was opened, before the job; -z's, which
 * libzstd starts with the first bytes compressed, inherit this one
 * (cli_port.h). */
static void started(void *ctx, hs_input *in)
{
    cli_run *rn = ctx;
    const hs_source *src = hs_input_source_ex(in, rn->cli->threads > 1 ? 2 : 1);
    const void *mapped;
    uint64_t mapped_len;

    if ((mapped = hs_input_mapping(in, &mapped_len)) != NULL)
        catch_sigbus(hs_cli_in_name(rn->cli), src->data ? "input byte" : "compressed byte",
                     mapped, mapped_len);
    if (src->borrow && hs_input_compression(in) == HS_COMPRESS_GZIP)
        (void)hs_run_as_batch();
}

/* hs_job's end of a run that worked: what the user may not expect, and
 * --obfuscate-names' file. */
static int finished(void *ctx, const hs_filter *filter, int rc)
{
    cli_run *rn = ctx;
    hs_stats st;

    hs_filter_stats_ex(filter, &st, sizeof st);
    warn_after_run(rn->cli, &st, rn->out_fd);
    return write_mapfile(rn->cli, filter, rc);
}

/* A JSON report will be written (--stats=json, --stats-file). */
static int wants_json(const hs_cli *cli)
{
    return cli->stats == 2 || cli->stats_file;
}

/* Opens the input's decoder and the output's encoder. Returns HS_EXIT_OK or
 * the exit code, with the message said. */
static int open_run(hs_cli *cli, cli_run *rn, int in_fd)
{
    hs_report *r = cli->report;
    hs_output_params op;
    hs_error err;

    if (!(rn->in = hs_input_open_fd(in_fd, &err))) {
        if (err.code == HS_E_NOMEM) {
            hs_report_fail(r, HS_E_NOMEM, NULL, "out of memory");
            return HS_EXIT_LIMIT;
        }
        /* HS_E_UNSUPPORTED: a zip, xz, ... named as such, which is not a
         * heap dump: the input's fault (1), not a read that may work again */
        return hs_report_fail(r, err.code, NULL, "%s: %s", hs_cli_in_name(cli),
                              err.message);
    }
    if (cli->audit) /* --audit writes no dump */
        return HS_EXIT_OK;
    memset(&op, 0, sizeof op);
    op.size = sizeof op;
    op.compress = cli->format;
    op.level_as_given = cli->level != HS_CLI_LEVEL_DEFAULT;
    op.level = op.level_as_given ? cli->level : 0;
    op.threads = cli->threads;
    if (!(rn->out = hs_output_open_ex(rn->out_fd, NULL, NULL, &op, &err))) {
        /* the range of levels is main.c's: only the compressor can fail */
        hs_report_fail(r, HS_E_NOMEM, NULL, "%s", err.message);
        return HS_EXIT_LIMIT;
    }
    return HS_EXIT_OK;
}

/* The run itself: hs_job_run with the command's rules, options, report
 * and hooks; then the progress line's end and --audit's text. */
static int run_job(hs_cli *cli, cli_run *rn)
{
    hs_job job;
    hs_stats st;
    int rc;

    cli->opt.spill.write = spill_write;
    cli->opt.spill.read = spill_read;
    cli->opt.spill.ctx = &rn->spill;
    /* the duplicate report rides on --stats: it costs a hash per array */
    cli->opt.find_duplicates = cli->stats != 0 || cli->stats_file;
    /* so is the count of non-zero bytes scrubbed: it reads bytes that
     * would otherwise be skipped unread */
    cli->opt.count_nonzero = cli->stats != 0 || cli->stats_file || cli->audit;
    memset(&job, 0, sizeof job);
    job.size = sizeof job;
    job.compress = cli->format;
    job.threads = cli->threads;
    job.histogram = cli->histogram;
    job.audit = cli->audit; /* the privacy preset's rules: check_audit's */
    job.salvage = cli->opt.salvage;
    job.progress = progress;
    job.progress_ctx = rn;
    job.in_name = hs_cli_in_name(cli);
    job.out_name = out_name(cli);
    job.rules = cli->audit ? NULL : cli->rules;
    job.options = &cli->opt;
    job.options_size = sizeof cli->opt;
    job.report = cli->report;
    /* a JSON report binds the bytes it describes: every byte read and
     * written is hashed (SHA-256) on its way, from the first */
    job.full_report = wants_json(cli);
    job.snapshot = wants_json(cli) ? snapshot : NULL;
    job.started = started;
    job.finished = finished;
    job.hooks_ctx = rn;
    hs_report_set_messages(cli->report, say, rn);
    rc = hs_job_run(&job, rn->in, rn->out, NULL);
    hs_report_set_messages(cli->report, hs_cli_say, cli);
    cli->keep_output = hs_report_output_kept(cli->report); /* a salvaged dump, whatever the code */
    hs_report_stats(cli->report, &st, sizeof st);
    if (rc == HS_EXIT_OK || (rc == HS_EXIT_AUDIT && hs_report_audit_verdict(cli->report) >= 0)) {
        /* read in place: how far the filter got */
        hs_progress_end(&rn->progress,
                        hs_input_compression(rn->in) == HS_COMPRESS_NONE
                            ? st.bytes_in
                            : hs_input_bytes_read(rn->in),
                        cli->audit || !rn->out ? UINT64_MAX : hs_output_written(rn->out));
    } else {
        hs_progress_clear(&rn->progress);
    }
    if (cli->audit && hs_report_audit_verdict(cli->report) >= 0)
        rc = audit_report(cli, rn->in);
    return rc;
}

static int run_filter(hs_cli *cli)
{
    hs_outfile of = {NULL, NULL, NULL, -1, 0, 0, -1};
    static cli_run rn; /* big (the spill file's name); the one run */
    int in_fd = STDIN_FILENO, rc;
    struct stat st;

    memset(&rn, 0, sizeof rn);
    rn.cli = cli;
    rn.out_fd = STDOUT_FILENO;
    rn.spill.fd = -1;
    choose_format(cli);
    if ((rc = check_audit(cli)) != HS_EXIT_OK || (rc = check_terminals(cli)) != HS_EXIT_OK)
        return rc;
    /* (the signals are caught already: main.c, before any temporary file) */
    if ((rc = open_files(cli, &in_fd, &of)) != HS_EXIT_OK)
        return rc;
    if ((rc = claim_mapfile(cli)) != HS_EXIT_OK) {
        if (cli->in_path)
            close(in_fd);
        return cli->out_path ? close_output(cli, &of, rc) : rc;
    }
    if (cli->out_path)
        rn.out_fd = of.fd;
    hs_widen_pipe(in_fd);
    hs_widen_pipe(rn.out_fd);
    rc = open_run(cli, &rn, in_fd);
    if (rc == HS_EXIT_OK) {
        publish_report(cli);
        hs_progress_start(&rn.progress, cli->progress < 0 ? isatty(STDERR_FILENO) : cli->progress,
                          cli->size ? cli->size
                          : fstat(in_fd, &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size
                                                                           : 0);
        rc = run_job(cli, &rn);
    }
    publish_report(cli);
    hs_output_close(rn.out);
    hs_input_close(rn.in);
    if (rn.spill.fd >= 0)
        close(rn.spill.fd);
    if (cli->in_path)
        close(in_fd);
    if (cli->input_done) /* --jvm: the JVM's word on its dump (jvm.c) */
        rc = cli->input_done(cli, rc);
    /* the output put in place (or removed) and the report that says so
     * published, as one step for a signal (stop.h) */
    hs_stop_hold();
    if (cli->out_path)
        rc = close_output(cli, &of, rc);
    hs_report_set_output_kept(cli->report,
                              !cli->audit && (rc == HS_EXIT_OK || rc == HS_EXIT_SALVAGED ||
                                              (cli->keep_output && rc != HS_EXIT_IO)));
    publish_report(cli);
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

/* The report is streamed to a descriptor this run did not open (standard
 * output, many.c's memory file): nothing to put in place or remove. */
static int report_streamed(void)
{
    return g_report_fd == STDOUT_FILENO || g_report_file.fd < 0;
}

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
 * --audit's text) is not going there. Returns HS_EXIT_OK or the exit code,
 * said. */
static int open_report(hs_cli *cli)
{
    hs_report *r = cli->report;
    hs_claim c;

    /* the dump's output is claimed first (again when it is opened): when
     * the two clash, the report is the one refused, and nothing is written */
    if (cli->audit || cli->failed_early)
        ;
    else if (!cli->out_path)
        (void)hs_files_claim_stdout("standard output");
    else if (hs_files_claim(cli->out_path, output_how(cli), &c) == 0)
        free(c.target);
    if (cli->report_fd > 0) { /* many.c's child: its parent's memory file */
        g_report_fd = cli->report_fd;
        return HS_EXIT_OK;
    }
    if (report_to_stdout(cli)) {
        if (cli->failed_early)
            ;
        else if ((!cli->audit && !cli->out_path) || (cli->audit && !cli->quiet)) {
            fprintf(stderr, "%s: --stats-file - writes the report to standard output, which "
                            "takes %s already: give the report a file name, or %s\n",
                    g_prog, cli->audit ? "--audit's findings" : "the dump",
                    cli->audit ? "use -q" : "the dump one (-o FILE)");
            return HS_EXIT_USAGE;
        } else if (hs_files_claim_stdout("--stats-file -") != 0) {
            fprintf(stderr, "%s: %s\n", g_prog, hs_files_why());
            return HS_EXIT_USAGE;
        }
        g_report_fd = STDOUT_FILENO;
        return HS_EXIT_OK;
    }
    if (hs_outfile_open(&g_report_file, cli->stats_file,
                        HS_OUT_REPORT | (cli->force ? HS_OUT_FORCE : 0),
                        hs_private_mode(cli->in_path)) == 0) {
        g_report_fd = g_report_file.fd;
        return HS_EXIT_OK;
    }
    if (g_report_file.refused) {
        fprintf(stderr, "%s: %s\n", g_prog, hs_files_why());
        return HS_EXIT_USAGE;
    }
    if (errno == EINTR)
        hs_stop_ready(); /* a signal cut the open (a FIFO with no reader): it ends the run */
    fprintf(stderr, "%s: %s: %s\n", g_prog, cli->stats_file, strerror(errno));
    (void)r;
    return HS_EXIT_IO;
}

int hs_cli_report_open(hs_cli *cli)
{
    int rc;

    clock_gettime(CLOCK_MONOTONIC, &g_t0);
    /* the report's mode, before anything is published (the job says the
     * same when it runs) */
    hs_report_set_audit(cli->report, cli->audit);
    /* A closed pipe downstream, or a file-size limit, is an error to report
     * (write fails with EPIPE or EFBIG), not a silent death by signal. */
    signal(SIGPIPE, SIG_IGN);
#ifdef SIGXFSZ
    signal(SIGXFSZ, SIG_IGN);
#endif
    if (cli->stats_file) {
        if ((rc = open_report(cli)) != HS_EXIT_OK) {
            cli->stats_file = NULL; /* nowhere to write it */
            hs_stop_ready();
            return rc;
        }
        hs_stop_report_to(g_report_fd, report_streamed() ? NULL : &g_report_file);
    }
    if (cli->stats == 2)
        hs_stop_report_to(stats_fd(cli), NULL);
    publish_report(cli);
    hs_stop_ready();
    return HS_EXIT_OK;
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
    char *doc;
    int bad, e;

    doc = hs_report_json(cli->report, rc, hs_cli_report_in_name(cli), cli->out_path);
    if (!doc)
        return -1;
    bad = (stream ? hs_stop_stream(fd, doc, strlen(doc)) : write_all(fd, doc, strlen(doc))) != 0;
    e = errno;
    hs_free(doc);
    errno = e;
    return bad ? -1 : 0;
}

/* A report lost turns a run that worked into an I/O failure: what was
 * asked for was not all done (the dump, when written, stays). The reports
 * still to be written say so: the failure is the report's error (said
 * here, on stderr, by the caller: not through the hook). */
static int report_lost(hs_cli *cli, int rc, const char *where, int e)
{
    if (rc != HS_EXIT_OK && rc != HS_EXIT_SALVAGED && rc != HS_EXIT_AUDIT)
        return rc;
    hs_report_set_messages(cli->report, NULL, NULL);
    return hs_report_fail(cli->report, HS_E_WRITE, NULL, "%s: writing the report failed: %s",
                          where, e == EEXIST ? "a file appeared under its name while the run "
                                               "went on"
                                             : strerror(e));
}

/* --stats-file: written and put in place (a regular file), or streamed. */
static int report_file(hs_cli *cli, int rc)
{
    int stream = !g_report_file.tmp, e;
    const char *where = g_report_fd == STDOUT_FILENO ? "standard output" : cli->stats_file;

    if (send_report(cli, rc, g_report_fd, stream) == 0 &&
        (report_streamed() || hs_outfile_commit(&g_report_file) == 0))
        return rc;
    e = errno;
    fprintf(stderr, "%s: %s: writing the report failed: %s\n", g_prog, where,
            e == EEXIST ? "a file appeared under its name while the run went on" : strerror(e));
    if (!report_streamed())
        hs_outfile_abort(&g_report_file);
    return report_lost(cli, rc, where, e);
}

/* The report file in place says a run that worked; it did not (standard
 * error's report failed after it): put the final one in its place, as
 * the first was, so that the file always says what the process returns. */
static int report_file_again(hs_cli *cli, int rc)
{
    if (hs_outfile_open(&g_report_file, cli->stats_file,
                        HS_OUT_REPORT | (cli->force ? HS_OUT_FORCE : 0), -1) != 0) {
        fprintf(stderr, "%s: %s: writing the report again failed: %s\n", g_prog,
                cli->stats_file, g_report_file.refused ? hs_files_why() : strerror(errno));
        return rc;
    }
    g_report_fd = g_report_file.fd;
    return report_file(cli, rc);
}

int hs_cli_report_close(hs_cli *cli, int rc)
{
    hs_report *r = cli->report;
    struct rusage ru;
    int file_first = cli->stats_file && g_report_file.tmp, was;

    /* single-threaded here: the reports are the run's own from now */
    hs_stop_hold();
    hs_stop_finish();
    if (getrusage(RUSAGE_SELF, &ru) == 0)
        hs_report_set_times(r, since_start(), seconds(ru.ru_utime), seconds(ru.ru_stime));
    else
        hs_report_set_times(r, since_start(), -1, -1);
    /* a failure said only on stderr (the mapping's, a usage error printed
     * before the report knew of it) is still named by its status: kept,
     * not said again */
    if (rc != HS_EXIT_OK && rc != HS_EXIT_SALVAGED && rc != HS_EXIT_AUDIT && !hs_report_error(r)) {
        hs_report_set_messages(r, NULL, NULL);
        hs_report_fail(r, hs_status_of_exit(rc), NULL, "%s", "see the message on standard error");
    }
    /* A regular report file first: the streams may wait for their readers,
     * and a signal meanwhile ends the process (stop.h) with the file in
     * place. When standard error's report fails after it, the file is put
     * in place again, saying so (issue #51: the file says exit 0 where
     * the process returns 4 otherwise). A stream (standard output, a FIFO)
     * cannot be taken back: it comes after standard error's. */
    if (file_first)
        rc = report_file(cli, rc);
    was = rc;
    if (cli->stats == 2 && send_report(cli, rc, stats_fd(cli), 1) != 0) {
        rc = report_lost(cli, rc, "standard error", errno); /* nowhere to say so */
        if (file_first && rc != was) /* (not when the file failed: rc was 4) */
            rc = report_file_again(cli, rc);
    }
    if (cli->stats_file && !file_first)
        rc = report_file(cli, rc);
    hs_stop_release();
    return rc;
}

/* The run itself, between hs_cli_report_open and hs_cli_report_close:
 * the dump, and the --stats table and the histogram on stderr (or where
 * many.c's child puts them, headed by the input's name). */
int hs_cli_run(hs_cli *cli)
{
    hs_report *r = cli->report;
    int rc = run_filter(cli), stats = cli->stats == 1 && hs_report_ran(r),
        histo = cli->histogram && hs_report_histogram(r, NULL, NULL) && !cli->quiet &&
                cli->stats != 2,
        fd;
    const char *name = cli->files ? hs_cli_in_name(cli) : NULL;
    FILE *to = stderr;
    hs_stats st;

    if ((stats || histo) && cli->stats_fd > 0 && (fd = dup(cli->stats_fd)) >= 0 &&
        !(to = fdopen(fd, "w"))) {
        close(fd);
        to = stderr;
    }
    hs_report_stats(r, &st, sizeof st);
    if (stats)
        hs_cli_print_stats(to, r, &st, name, cli->audit);
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
