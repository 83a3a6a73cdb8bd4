/* SPDX-License-Identifier: Apache-2.0 */
/*
 * many.c - FILE... -o DIR: every FILE stripped into DIR, -j of them at a
 * time, each by a child process running the single-file path unchanged.
 *
 * Why processes, not threads: a single run keeps process-wide state (the
 * signal handlers that remove its temporary output, the report published
 * for them, files.h's list of inputs and claims, the report's static
 * file). A child per input gets all of it to itself, so a run of many is
 * exactly N single runs, byte for byte, and one that crashes takes no
 * other with it. The parent only names the outputs, keeps -j children
 * going, forwards a stop to them, and gathers their reports and statuses.
 */
#define _GNU_SOURCE /* sched_getaffinity */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "io.h"

static const char g_prog[] = "hprof-strip";

/* The signals a stop comes by (stop.c's, less those only a process's own
 * doing sends): forwarded to the children, which stop as a single run
 * does, their temporary files removed. */
static const int g_fwd[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGALRM, SIGUSR1, SIGUSR2,
                            SIGXCPU, SIGVTALRM, SIGPROF};
#define N_FWD (sizeof g_fwd / sizeof g_fwd[0])
#define MAX_JOBS 256

static volatile sig_atomic_t g_stop_sig;
static pid_t g_pid[MAX_JOBS]; /* the running children (0: a free slot) */

static void on_stop(int sig)
{
    int i;

    if (!g_stop_sig)
        g_stop_sig = sig;
    for (i = 0; i < MAX_JOBS; i++)
        if (g_pid[i] > 0)
            (void)kill(g_pid[i], sig);
}

static void fwd_set(sigset_t *set)
{
    size_t i;

    sigemptyset(set);
    for (i = 0; i < N_FWD; i++)
        sigaddset(set, g_fwd[i]);
}

/* The cores this process may run on (a cpuset or taskset narrows them). */
static int cores(void)
{
    cpu_set_t set;
    long n;

    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

static int ends_with(const char *s, size_t n, const char *tail)
{
    size_t k = strlen(tail);
    return n > k && memcmp(s + n - k, tail, k) == 0;
}

/* The output's name for input `in` (the man page's rule): its last
 * component, less one trailing .gz, .zst or .zstd, ending in .hprof (added
 * when missing), then .zst for -z or .gz for --gzip. Malloc'd; NULL when
 * out of memory. */
static char *output_name(const hs_cli *cli, const char *in)
{
    const char *base = strrchr(in, '/') ? strrchr(in, '/') + 1 : in;
    size_t n = strlen(base), d = strlen(cli->out_dir);
    const char *ext = "";
    char *out;

    if (ends_with(base, n, ".gz"))
        n -= 3;
    else if (ends_with(base, n, ".zst"))
        n -= 4;
    else if (ends_with(base, n, ".zstd"))
        n -= 5;
    if (cli->format_given && cli->format == HS_COMPRESS_ZSTD)
        ext = ".zst";
    else if (cli->format_given && cli->format == HS_COMPRESS_GZIP)
        ext = ".gz";
    out = malloc(d + 1 + n + sizeof ".hprof" + strlen(ext));
    if (!out)
        return NULL;
    /* DIR/ is not DIR//: the name in messages is the one the user wrote */
    sprintf(out, "%s%s%.*s%s%s", cli->out_dir,
            d && cli->out_dir[d - 1] == '/' ? "" : "/", (int)n, base,
            ends_with(base, n, ".hprof") ? "" : ".hprof", ext);
    return out;
}

/* A report's document as one line (JSON Lines): whitespace outside its
 * strings dropped (inside them a newline is escaped already). */
static void put_one_line(FILE *to, const char *doc, size_t len)
{
    int in_str = 0, esc = 0;
    size_t i;

    for (i = 0; i < len; i++) {
        char c = doc[i];
        if (in_str) {
            if (esc)
                esc = 0;
            else if (c == '\\')
                esc = 1;
            else if (c == '"')
                in_str = 0;
        } else if (c == '"') {
            in_str = 1;
            esc = 0;
        } else if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
            continue;
        }
        fputc(c, to);
    }
    fputc('\n', to);
}

/* The whole of the file at `path` (malloc'd, *len bytes; NULL when it is
 * empty, missing or out of memory). */
static char *slurp(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    char *doc = NULL;
    size_t cap = 0, k;

    *len = 0;
    while (fp) {
        if (*len == cap) {
            char *grown = realloc(doc, cap ? 2 * cap : 65536);
            if (!grown)
                break;
            doc = grown;
            cap = cap ? 2 * cap : 65536;
        }
        if ((k = fread(doc + *len, 1, cap - *len, fp)) == 0)
            break;
        *len += k;
    }
    if (fp)
        fclose(fp);
    if (!*len) {
        free(doc);
        doc = NULL;
    }
    return doc;
}

/* Input i's line: its child's report at `path`, or (a child that wrote
 * none: killed by SIGKILL, crashed) one saying how it ended, written by
 * the library's report writer as any other: a whole document under the
 * schema, with nothing read or kept. */
static void put_report(FILE *to, const char *path, const hs_cli *cli, char **outs, int i,
                       int rc)
{
    hs_report *none;
    char sig[16];
    const char *name;
    size_t len;
    char *doc = slurp(path, &len);

    if (doc) {
        put_one_line(to, doc, len);
        free(doc);
        return;
    }
    if (!(none = hs_report_create()))
        return;
    /* a signal is no library status: the command's own, as stop.c says */
    if (rc > 128) {
        if (!(name = hs_signal_name(rc - 128))) { /* not one the schema names: its number */
            snprintf(sig, sizeof sig, "%d", rc - 128);
            name = sig;
        }
        hs_report_fail_other(none, "signal", 1, name,
                             "no report: the run ended with status %d before writing one", rc);
    } else {
        hs_report_fail(none, hs_status_of_exit(rc), NULL,
                       "no report: the run ended with status %d before writing one", rc);
    }
    if ((doc = hs_report_json(none, rc, cli->files[i], outs[i])) != NULL)
        fputs(doc, to);
    hs_free(doc);
    hs_report_free(none);
}

/* Whether a child writes what a single run prints on standard error at
 * its end (the --stats table, the histogram, --stats=json's document) to
 * a file of its own: the parent copies it whole (say_end), so that two
 * inputs' never interleave. */
static int ends_said(const hs_cli *cli)
{
    return cli->stats || (cli->histogram && !cli->quiet);
}

/* Input i's end, as its child wrote it (ends_said), copied to standard
 * error in one write, once the child is gone: --stats=json's line (one
 * saying how it ended when the child wrote none), or its tables. */
static void say_end(const hs_cli *cli, char **outs, const char *tmpdir, int i, int rc)
{
    char path[4200], *doc = NULL, *text;
    size_t len = 0;
    FILE *fp;

    snprintf(path, sizeof path, "%s/%d.end", tmpdir, i);
    if (cli->stats == 2) {
        if (!(fp = open_memstream(&doc, &len)))
            return;
        put_report(fp, path, cli, outs, i, rc);
        if (fclose(fp) == 0 && len)
            fwrite(doc, 1, len, stderr);
        free(doc);
    } else if ((text = slurp(path, &len)) != NULL) {
        fwrite(text, 1, len, stderr);
        free(text);
    }
    (void)unlink(path);
}

/* How bad an exit status is, for the worst of many (the man page, EXIT
 * STATUS): findings about an input, then a broken input, then the
 * machine's limits, then failures of the system and of the command line,
 * then a stop by signal. */
static int severity(int rc)
{
    static const int order[] = {HS_EXIT_OK,        HS_EXIT_AUDIT,     HS_EXIT_SALVAGED,
                                HS_EXIT_TRUNCATED, HS_EXIT_BAD_INPUT, HS_EXIT_CANCELLED,
                                HS_EXIT_TIMEOUT,   HS_EXIT_LIMIT,     HS_EXIT_IO,
                                HS_EXIT_USAGE};
    size_t i;

    for (i = 0; i < sizeof order / sizeof order[0]; i++)
        if (order[i] == rc)
            return (int)i;
    return 100 + rc; /* 128 + N: a signal; anything else unknown: worse still */
}

/* Removes the private directory and what is in it. */
static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;

    /* by name within the directory: no path to build, none too long */
    while (d && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        (void)unlinkat(dirfd(d), e->d_name, 0);
    }
    if (d)
        closedir(d);
    (void)rmdir(dir);
}

/* The child's side: input i's run, as a single run would do it. */
static void run_child(hs_cli *cli, int (*one)(hs_cli *, int), int i, char **outs,
                      const int *clash, const char *tmpdir, int threads)
{
    char report_path[4200], end_path[4200];
    struct sigaction sa;
    sigset_t set;
    size_t k;
    int rc = HS_EXIT_OK;

    /* the parent's forwarding is not the child's: the default until
     * the single run catches them (before it makes any temporary file) */
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    sigemptyset(&sa.sa_mask);
    for (k = 0; k < N_FWD; k++)
        sigaction(g_fwd[k], &sa, NULL);
    memset(g_pid, 0, sizeof g_pid);
    fwd_set(&set);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);

    cli->in_path = cli->files[i];
    cli->out_path = outs[i];
    cli->out_positional = 0;
    cli->threads = threads;
    if (cli->stats_file) {
        snprintf(report_path, sizeof report_path, "%s/%d.json", tmpdir, i);
        cli->stats_file = report_path;
    }
    if (ends_said(cli)) {
        snprintf(end_path, sizeof end_path, "%s/%d.end", tmpdir, i);
        cli->stats_fd = open(end_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (cli->stats_fd < 0) /* said on standard error, then, as a single run does */
            cli->stats_fd = 0;
    }
    if (cli->progress < 0) /* several bars on one terminal say nothing */
        cli->progress = 0;
    if (clash[i] >= 0)
        rc = hs_report_fail(cli->report, HS_E_USAGE, NULL,
                            "%s: its output name %s is %s's already: nothing is written for "
                            "it (rename one of the two)",
                            cli->files[i], outs[i], cli->files[clash[i]]);
    rc = one(cli, rc);
    fflush(NULL);
    _exit(rc);
}

/* The JSON Lines report, in input order: the reports the children wrote
 * (one per input started) put on one line each. Returns HS_EXIT_OK or
 * HS_EXIT_IO, said. */
static int write_lines(const hs_cli *cli, char **outs, const char *tmpdir, const int *status,
                       int started)
{
    hs_outfile of = {NULL, NULL, NULL, -1, 0, 0, -1};
    int to_stdout = strcmp(cli->stats_file, "-") == 0, fd, i;
    char path[4200];
    FILE *fp;

    if (to_stdout) {
        fd = dup(STDOUT_FILENO);
    } else if (hs_outfile_open(&of, cli->stats_file, HS_OUT_REPORT | (cli->force ? HS_OUT_FORCE : 0),
                               HS_PRIVATE_MODE) == 0) {
        fd = of.fd;
        of.fd = dup(fd); /* fclose closes one, the commit the other */
    } else {
        fprintf(stderr, "%s: %s: %s\n", g_prog, cli->stats_file,
                of.refused ? hs_files_why() : strerror(errno));
        return HS_EXIT_IO;
    }
    if (fd < 0 || !(fp = fdopen(fd, "w"))) {
        fprintf(stderr, "%s: %s: %s\n", g_prog, cli->stats_file, strerror(errno));
        if (!to_stdout)
            hs_outfile_abort(&of);
        return HS_EXIT_IO;
    }
    for (i = 0; i < started; i++) {
        snprintf(path, sizeof path, "%s/%d.json", tmpdir, i);
        put_report(fp, path, cli, outs, i, status[i]);
    }
    if (fclose(fp) != 0 || (!to_stdout && hs_outfile_commit(&of) != 0)) {
        fprintf(stderr, "%s: %s: writing the report failed: %s\n", g_prog,
                to_stdout ? "standard output" : cli->stats_file, strerror(errno));
        if (!to_stdout)
            hs_outfile_abort(&of);
        return HS_EXIT_IO;
    }
    return HS_EXIT_OK;
}

/* Checks made before any child starts: what -o DIR may not go with, and
 * the JSON Lines report's name under files.h's rule. HS_EXIT_OK or 2, said. */
static int check_many(hs_cli *cli)
{
    struct stat st;
    hs_claim c;
    const char *map;
    int i, r = stat(cli->out_dir, &st);

    if (r != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "%s: with several FILEs, -o names a directory: '%s' is not one%s\n",
                g_prog, cli->out_dir, r != 0 && errno == ENOENT ? " (make it first)" : "");
        return HS_EXIT_USAGE;
    }
    if (cli->audit || cli->obfuscate_path) {
        fprintf(stderr, "%s: -o DIR cannot go with %s\n", g_prog,
                cli->audit ? "--audit, which writes nothing"
                           : "--obfuscate-names: its one mapping file would be every dump's");
        return HS_EXIT_USAGE;
    }
    for (i = 0; i < cli->n_files; i++) {
        if (strcmp(cli->files[i], "-") == 0) {
            fprintf(stderr, "%s: -o DIR names its outputs after their inputs: standard input "
                            "('-') has no name; give it one OUTPUT, without a directory\n",
                    g_prog);
            return HS_EXIT_USAGE;
        }
        /* no input is ever an output, whichever child writes it */
        if (hs_files_note_input("FILE", cli->files[i]) != 0) {
            fprintf(stderr, "%s: out of memory\n", g_prog);
            return HS_EXIT_LIMIT;
        }
    }
    /* the mapping too (the -r files are noted as they were read): the
     * report written here must not be it */
    map = cli->mapping_path ? cli->mapping_path : hs_rules_mapping_file(cli->rules);
    if (map && hs_files_note_input("--mapping", map) != 0) {
        fprintf(stderr, "%s: out of memory\n", g_prog);
        return HS_EXIT_LIMIT;
    }
    if (!cli->stats_file)
        return HS_EXIT_OK;
    if (strcmp(cli->stats_file, "-") == 0)
        r = hs_files_claim_stdout("--stats-file -");
    else if ((r = hs_files_claim(cli->stats_file,
                                 HS_OUT_REPORT | (cli->force ? HS_OUT_FORCE : 0), &c)) == 0)
        free(c.target);
    if (r > 0 || (r < 0 && errno != ENOENT)) {
        fprintf(stderr, "%s: %s\n", g_prog, r > 0 ? hs_files_why() : strerror(errno));
        return r > 0 ? HS_EXIT_USAGE : HS_EXIT_IO;
    }
    return HS_EXIT_OK;
}

/* The outputs' names; clash[i] is the earlier input whose output has input
 * i's name (-1: none). 0, or -1 out of memory. */
static int name_outputs(const hs_cli *cli, char **outs, int *clash)
{
    int i, j;

    for (i = 0; i < cli->n_files; i++) {
        if (!(outs[i] = output_name(cli, cli->files[i])))
            return -1;
        clash[i] = -1;
        for (j = 0; j < i && clash[i] < 0; j++)
            if (strcmp(outs[i], outs[j]) == 0)
                clash[i] = j;
    }
    return 0;
}

/* Waits for one child; records its status. Returns its input's index, or
 * -1 when the wait was cut by a signal (or there is none). */
static int reap(const hs_cli *cli, const int *owner, int *status, int n_slots)
{
    int ws, k;
    pid_t p = waitpid(-1, &ws, 0);

    if (p < 0)
        return -1;
    for (k = 0; k < n_slots; k++)
        if (g_pid[k] == p) {
            int i = owner[k];
            status[i] = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
            if (WIFSIGNALED(ws) && !g_stop_sig)
                fprintf(stderr, "%s: %s: its run was killed by signal %d\n", g_prog,
                        cli->files[i], WTERMSIG(ws));
            g_pid[k] = 0;
            return i;
        }
    return -1;
}

int hs_cli_many(hs_cli *cli, int (*one)(hs_cli *cli, int rc))
{
    int n = cli->n_files, jobs, threads, total, started = 0, running = 0, worst = HS_EXIT_OK, i, k;
    int owner[MAX_JOBS], rc;
    char **outs = calloc((size_t)n, sizeof *outs);
    int *clash = calloc((size_t)n, sizeof *clash), *status = calloc((size_t)n, sizeof *status);
    char tmpdir[4096] = "";
    const char *t = getenv("TMPDIR");
    struct sigaction sa;
    sigset_t set, old;

    if (!outs || !clash || !status) {
        fprintf(stderr, "%s: out of memory\n", g_prog);
        rc = HS_EXIT_LIMIT;
        goto done;
    }
    if ((rc = check_many(cli)) != HS_EXIT_OK)
        goto done;
    if (name_outputs(cli, outs, clash) != 0) {
        fprintf(stderr, "%s: out of memory\n", g_prog);
        rc = HS_EXIT_LIMIT;
        goto done;
    }
    /* the children's reports and ends, each in a file of its own,
     * gathered here */
    if (cli->stats_file || ends_said(cli)) {
        snprintf(tmpdir, sizeof tmpdir, "%s/hprof-strip-many-XXXXXX", t && *t ? t : "/tmp");
        if (!mkdtemp(tmpdir)) {
            fprintf(stderr, "%s: %s: %s\n", g_prog, tmpdir, strerror(errno));
            tmpdir[0] = 0;
            rc = HS_EXIT_IO;
            goto done;
        }
    }
    jobs = cli->jobs > 0 ? cli->jobs : cores();
    if (jobs > n)
        jobs = n;
    if (jobs > MAX_JOBS)
        jobs = MAX_JOBS;
    /* the compression threads shared among the jobs, not each given all */
    total = cli->threads > 0 ? cli->threads : cores();
    threads = total / jobs > 1 ? total / jobs : 1;

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    fwd_set(&sa.sa_mask);
    for (k = 0; k < (int)N_FWD; k++) {
        struct sigaction was;
        /* one ignored from the start (nohup) stays ignored */
        if (sigaction(g_fwd[k], NULL, &was) == 0 && was.sa_handler == SIG_IGN)
            continue;
        sigaction(g_fwd[k], &sa, NULL);
    }
    fwd_set(&set);
    fflush(NULL); /* nothing buffered is written twice */
    /* a stop starts no more: the children running are waited for */
    while (running > 0 || (!g_stop_sig && started < n)) {
        if (!g_stop_sig && started < n && running < jobs) {
            pid_t p;
            for (k = 0; k < jobs && g_pid[k] > 0; k++)
                ;
            /* the fork and the slot as one step for a stop: forwarded to
             * every child there is */
            pthread_sigmask(SIG_BLOCK, &set, &old);
            p = fork();
            if (p == 0)
                run_child(cli, one, started, outs, clash, tmpdir, threads);
            if (p > 0) {
                g_pid[k] = p;
                owner[k] = started;
                running++;
            } else {
                fprintf(stderr, "%s: %s: cannot start its run: %s\n", g_prog,
                        cli->files[started], strerror(errno));
                status[started] = HS_EXIT_LIMIT;
            }
            started++;
            pthread_sigmask(SIG_SETMASK, &old, NULL);
            continue;
        }
        if ((i = reap(cli, owner, status, jobs)) >= 0) {
            running--;
            if (ends_said(cli))
                say_end(cli, outs, tmpdir, i, status[i]);
        }
    }
    for (i = 0; i < started; i++)
        if (severity(status[i]) > severity(worst))
            worst = status[i];
    rc = worst;
    if (cli->stats_file && (k = write_lines(cli, outs, tmpdir, status, started)) != HS_EXIT_OK &&
        severity(k) > severity(rc))
        rc = k;
done:
    if (tmpdir[0])
        remove_dir(tmpdir);
    for (i = 0; outs && i < n; i++)
        free(outs[i]);
    free(outs);
    free(clash);
    free(status);
    if (g_stop_sig) { /* as a single run would: die of it */
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = SIG_DFL;
        sigaction(g_stop_sig, &sa, NULL);
        fwd_set(&set);
        pthread_sigmask(SIG_UNBLOCK, &set, NULL);
        raise(g_stop_sig);
    }
    return rc;
}
