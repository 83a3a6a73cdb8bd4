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
 *
 * A child writes its report and its end (stats, histogram) into memory
 * files (memfd_create) the parent made for it and reads once it is gone:
 * nothing goes through TMPDIR, which may be full, missing or read-only
 * (where there is no memfd_create it does: cli_port.h), and nothing is
 * left there whatever kills whom. The parent keeps the
 * single run's rules itself: its report opened before any job, a signal
 * ignored at start left ignored (in the children too), SIGPIPE ignored.
 */
#define _POSIX_C_SOURCE 200809L
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "cli_port.h"
#include "io.h"
#include "many_status.h"

static const char g_prog[] = "hprof-strip";

/* The signals a stop comes by (stop.c's, less those only a process's own
 * doing sends): forwarded to the children, which stop as a single run
 * does, their temporary files removed. */
static const int g_fwd[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGALRM, SIGUSR1, SIGUSR2,
                            SIGXCPU, SIGVTALRM, SIGPROF};
#define N_FWD (sizeof g_fwd / sizeof g_fwd[0])
#define MAX_JOBS 256

static volatile sig_atomic_t g_stop_sig;
static int g_ignored[N_FWD]; /* ignored when the command started (nohup) */
static pid_t g_pid[MAX_JOBS]; /* the running children (0: a free slot) */
static hs_many_status g_show; /* the batch's one progress line, its summary */

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
    size_t n = strlen(base), d = strlen(cli->out_dir), suffix;
    const char *ext = cli->format_given ? hs_compression_suffix(cli->format) : NULL;
    char *out;

    (void)hs_compression_of_path(base, &suffix);
    n -= suffix;
    if (!ext)
        ext = "";
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

/* The whole of what a child wrote into the memory file `fd` (malloc'd,
 * *len bytes; NULL when it wrote nothing, or out of memory). */
static char *slurp_fd(int fd, size_t *len)
{
    struct stat st;
    char *doc;
    size_t at = 0;

    *len = 0;
    if (fd < 0 || fstat(fd, &st) != 0 || st.st_size <= 0 || !(doc = malloc((size_t)st.st_size)))
        return NULL;
    while (at < (size_t)st.st_size) {
        ssize_t k = pread(fd, doc + at, (size_t)st.st_size - at, (off_t)at);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        at += (size_t)k;
    }
    if (!at) {
        free(doc);
        return NULL;
    }
    *len = at;
    return doc;
}

/* Input i's line: its child's report `doc` (`len` bytes), or (a child
 * that wrote none: killed by SIGKILL, crashed) one saying how it ended,
 * written by the library's report writer as any other: a whole document
 * under the schema, with nothing read or kept. */
static void put_report(FILE *to, const char *doc, size_t len, const hs_cli *cli, char **outs,
                       int i, int rc)
{
    hs_report *none;
    char sig[16], *made;
    const char *name;

    if (doc) {
        put_one_line(to, doc, len);
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
    if ((made = hs_report_json(none, rc, cli->files[i], outs[i])) != NULL)
        fputs(made, to);
    hs_free(made);
    hs_report_free(none);
}

/* put_report's line, malloc'd (NULL: out of memory). */
static char *report_line(const char *doc, size_t len, const hs_cli *cli, char **outs, int i,
                         int rc)
{
    char *line = NULL;
    size_t n = 0;
    FILE *fp = open_memstream(&line, &n);

    if (!fp)
        return NULL;
    put_report(fp, doc, len, cli, outs, i, rc);
    if (fclose(fp) != 0 || !n) {
        free(line);
        return NULL;
    }
    return line;
}

/* Whether a child writes what a single run prints on standard error at
 * its end (the --stats table, the histogram, --stats=json's document) to
 * a file of its own: the parent copies it whole (say_end), so that two
 * inputs' never interleave. */
static int ends_said(const hs_cli *cli)
{
    return cli->stats || (cli->histogram && !cli->quiet);
}

/* A --stats=json document that did not reach standard error (a closed
 * pipe, a full disk): the run did not do all it was asked, as a single
 * run's report_lost says (exit 4 for a run that worked). */
static int g_lost;

/* `text` to standard error in one write; a --stats=json line lost is
 * noted (g_lost). */
static void say_whole(const hs_cli *cli, const char *text, size_t len)
{
    if ((fwrite(text, 1, len, stderr) != len || fflush(stderr) != 0) && cli->stats == 2)
        g_lost = 1;
}

/* Input i's end, as its child wrote it (`doc`, ends_said), copied to
 * standard error in one write, once the child is gone: --stats=json's
 * line (one saying how it ended when the child wrote none), or its
 * tables. */
static void say_end(const hs_cli *cli, char **outs, int i, int rc, const char *doc, size_t len)
{
    char *line;

    if (cli->stats == 2) {
        if ((line = report_line(doc, len, cli, outs, i, rc)) != NULL)
            say_whole(cli, line, strlen(line));
        else
            g_lost = 1;
        free(line);
    } else if (doc) {
        say_whole(cli, doc, len);
    }
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

static int worse(int a, int b)
{
    return severity(b) > severity(a) ? b : a;
}

/* The child's side: input i's run, as a single run would do it, its
 * report written into the memory file `rep_fd` and its end into `end_fd`
 * (-1: none asked). */
static void run_child(hs_cli *cli, int (*one)(hs_cli *, int), int i, char **outs,
                      const int *clash, int threads, int rep_fd, int end_fd,
                      hs_outfile *lines)
{
    struct sigaction sa;
    sigset_t set;
    size_t k;
    int rc = HS_EXIT_OK;

    /* the parent's forwarding is not the child's: as the command found
     * them (ignored stays ignored: nohup) until the single run catches
     * them (before it makes any temporary file) */
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    for (k = 0; k < N_FWD; k++) {
        sa.sa_handler = g_ignored[k] ? SIG_IGN : SIG_DFL;
        sigaction(g_fwd[k], &sa, NULL);
    }
    memset(g_pid, 0, sizeof g_pid);
    fwd_set(&set);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    /* the JSON Lines' temporary file is the parent's: a stop here
     * removes this run's files only */
    hs_outfile_disown(lines);

    cli->in_path = cli->audit && strcmp(cli->files[i], "-") == 0 ? NULL : cli->files[i];
    cli->out_path = outs[i];
    cli->out_positional = 0;
    cli->threads = threads;
    /* the report into a memory file the parent reads, streamed as the
     * single run's --stats-file - is, and no file in TMPDIR; not onto
     * standard output, which --audit's certificates take */
    if (cli->stats_file && rep_fd > 0)
        cli->report_fd = rep_fd;
    else if (cli->stats_file)
        _exit(HS_EXIT_IO); /* the parent says that there is no report */
    if (end_fd > 0)
        cli->stats_fd = end_fd;
    cli->progress = 0; /* the parent's one line shows them all (many_status.c) */
    if (clash[i] >= 0)
        rc = hs_report_fail(cli->report, HS_E_USAGE, NULL,
                            "%s: its output name %s is %s's already: nothing is written for "
                            "it (rename one of the two)",
                            cli->files[i], outs[i], cli->files[clash[i]]);
    rc = one(cli, rc);
    fflush(NULL);
    _exit(rc);
}

/* The JSON Lines report: opened before any job starts, each input's line
 * written as soon as those before it are (input order), put in place
 * when every job has ended. */
typedef struct {
    hs_outfile of;
    FILE *fp;      /* NULL: no --stats-file */
    int to_stdout; /* --stats-file - */
    char **line;   /* the lines held until those before them are written */
    int next;      /* the first input whose line is not written yet */
} many_lines;

/* Opens the JSON Lines report under files.h's rule (as a single run opens
 * its report, before anything runs). HS_EXIT_OK, or the exit code, said. */
static int lines_open(many_lines *l, const hs_cli *cli)
{
    int fd, r;

    l->to_stdout = strcmp(cli->stats_file, "-") == 0;
    if (l->to_stdout) {
        if ((r = hs_files_claim_stdout("--stats-file -")) != 0) {
            fprintf(stderr, "%s: %s\n", g_prog, hs_files_why());
            return HS_EXIT_USAGE;
        }
        fd = dup(STDOUT_FILENO);
    } else if (hs_outfile_open(&l->of, cli->stats_file,
                               HS_OUT_REPORT | (cli->force ? HS_OUT_FORCE : 0),
                               HS_PRIVATE_MODE) == 0) {
        fd = dup(l->of.fd); /* fclose closes one, the commit the other */
    } else {
        fprintf(stderr, "%s: %s%s%s\n", g_prog, l->of.refused ? "" : cli->stats_file,
                l->of.refused ? "" : ": ", l->of.refused ? hs_files_why() : strerror(errno));
        return l->of.refused ? HS_EXIT_USAGE : HS_EXIT_IO;
    }
    if (fd < 0 || !(l->fp = fdopen(fd, "w"))) {
        fprintf(stderr, "%s: %s: %s\n", g_prog, cli->stats_file, strerror(errno));
        if (fd >= 0)
            close(fd);
        if (!l->to_stdout)
            hs_outfile_abort(&l->of);
        return HS_EXIT_IO;
    }
    return HS_EXIT_OK;
}

/* A line written already: not NULL, never freed. */
static char g_written[1];

/* Input i's line (malloc'd, taken; NULL: out of memory, then the line is
 * missing) into the report, with those after it that were waiting for it. */
static void lines_put(many_lines *l, int i, char *line)
{
    if (!l->fp) {
        free(line);
        return;
    }
    l->line[i] = line ? line : strdup("");
    for (; l->line[l->next]; l->next++) {
        fputs(l->line[l->next], l->fp);
        free(l->line[l->next]);
        l->line[l->next] = g_written;
    }
    fflush(l->fp); /* a FIFO's reader (or standard output's) has it now */
}

/* Puts the report in place. HS_EXIT_OK or HS_EXIT_IO, said. */
static int lines_close(many_lines *l, const hs_cli *cli)
{
    if (!l->fp)
        return HS_EXIT_OK;
    if (fclose(l->fp) != 0 || (!l->to_stdout && hs_outfile_commit(&l->of) != 0)) {
        fprintf(stderr, "%s: %s: writing the report failed: %s\n", g_prog,
                l->to_stdout ? "standard output" : cli->stats_file, strerror(errno));
        if (!l->to_stdout)
            hs_outfile_abort(&l->of);
        l->fp = NULL;
        return HS_EXIT_IO;
    }
    l->fp = NULL;
    return HS_EXIT_OK;
}

/* A name that reads as one dump's (x.hprof, x.hprof.zst, x.hprof.7z, a
 * compression's suffix this command does not write included): several
 * FILEs and -o naming it is a slip, not a directory to make. */
static int names_a_dump(const char *path)
{
    size_t n = strlen(path);

    return ends_with(path, n, ".hprof") || hs_compression_of_path(path, NULL) != HS_COMPRESS_NONE ||
           hs_compression_foreign_of_path(path) != NULL;
}

/* -o DIR that is not there is made, as `mkdir -p` would, parents and all:
 * 0700 when an input is private (no one else may read it), so the outputs'
 * names are not shown to those the dumps were kept from; else 0777 less
 * the umask. 0, or -1 with errno set. */
static int make_out_dir(const hs_cli *cli)
{
    mode_t mode = 0777;
    struct stat st;
    char *path = strdup(cli->out_dir), *p;
    int i, rc = 0;

    if (!path)
        return -1;
    for (i = 0; i < cli->n_files; i++)
        if (stat(cli->files[i], &st) == 0 && !(st.st_mode & (S_IRGRP | S_IROTH)))
            mode = 0700;
    for (p = path + 1; rc == 0; p++) {
        char c = *p;
        if (c != '/' && c != '\0')
            continue;
        *p = '\0';
        if (mkdir(path, mode) != 0 && errno != EEXIST)
            rc = -1;
        *p = c;
        if (c == '\0')
            break;
    }
    free(path);
    return rc;
}

/* What -o DIR may not go with, said into `why` (a whole sentence, without
 * the program's name). HS_EXIT_OK (DIR made when it was not there),
 * HS_EXIT_USAGE, or HS_EXIT_IO when DIR cannot be made. */
static int refusal(const hs_cli *cli, char *why, size_t cap)
{
    struct stat st;
    int i;

    if (!cli->out_dir) { /* --audit FILE...: each read in turn, nothing written */
        assert(cli->audit);
        return HS_EXIT_OK;
    }
    if (cli->audit || cli->obfuscate_path) {
        snprintf(why, cap, "-o DIR cannot go with %s",
                 cli->audit ? "--audit, which writes nothing"
                            : "--obfuscate-names: its one mapping file would be every dump's");
        return HS_EXIT_USAGE;
    }
    for (i = 0; i < cli->n_files; i++)
        if (strcmp(cli->files[i], "-") == 0) {
            snprintf(why, cap, "-o DIR names its outputs after their inputs: standard input "
                               "('-') has no name; give it one OUTPUT, without a directory");
            return HS_EXIT_USAGE;
        }
    if (stat(cli->out_dir, &st) != 0 && errno == ENOENT && !names_a_dump(cli->out_dir)) {
        if (make_out_dir(cli) == 0)
            return HS_EXIT_OK;
        snprintf(why, cap, "cannot make the directory '%s': %s", cli->out_dir, strerror(errno));
        return HS_EXIT_IO;
    }
    if (stat(cli->out_dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(why, cap, "with several FILEs, -o names a directory: '%s' is not one",
                 cli->out_dir);
        return HS_EXIT_USAGE;
    }
    return HS_EXIT_OK;
}

/* No input is ever an output, whichever child writes it, nor the mapping
 * (the -r files were noted as they were read) the JSON Lines report. 0,
 * or -1 out of memory. */
static int note_inputs(const hs_cli *cli)
{
    const char *map = cli->mapping_path ? cli->mapping_path : hs_rules_mapping_file(cli->rules);
    int i;

    for (i = 0; i < cli->n_files; i++)
        if (hs_files_note_input("FILE", cli->files[i]) != 0)
            return -1;
    return map ? hs_files_note_input("--mapping", map) : 0;
}

/* The directory part of `path` into `dir` ("." when it has none). */
static void dir_of(const char *path, char *dir, size_t cap)
{
    const char *slash = strrchr(path, '/');

    if (!slash)
        snprintf(dir, cap, ".");
    else if (slash == path)
        snprintf(dir, cap, "/");
    else
        snprintf(dir, cap, "%.*s", (int)(slash - path), path);
}

/* Whether the paths `a` and `b` name one file, whether or not it exists:
 * one name in one directory. */
static int same_place(const char *a, const char *b)
{
    const char *na = strrchr(a, '/') ? strrchr(a, '/') + 1 : a;
    const char *nb = strrchr(b, '/') ? strrchr(b, '/') + 1 : b;
    char da[4096], db[4096];
    struct stat sa, sb;

    if (strcmp(na, nb) != 0)
        return 0;
    dir_of(a, da, sizeof da);
    dir_of(b, db, sizeof db);
    return stat(da, &sa) == 0 && stat(db, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

/* --stats-file naming one of the outputs: a usage error, said (the
 * outputs do not exist yet, so files.h's rule cannot see it). */
static int report_is_output(const hs_cli *cli, char **outs)
{
    int i;

    if (!cli->stats_file || strcmp(cli->stats_file, "-") == 0)
        return HS_EXIT_OK;
    for (i = 0; i < cli->n_files; i++)
        if (outs[i] && same_place(cli->stats_file, outs[i])) { /* --audit: none */
            fprintf(stderr, "%s: --stats-file %s is %s's output: give the report another name\n",
                    g_prog, cli->stats_file, cli->files[i]);
            return HS_EXIT_USAGE;
        }
    return HS_EXIT_OK;
}

/* A failure before any job started (`rc`, said as `why`): every input's
 * line says it, in the JSON Lines report and on --stats=json's standard
 * error, so that no reader takes an earlier run's report for this one. */
static void fail_all(const hs_cli *cli, many_lines *l, int rc, const char *why)
{
    int i;

    for (i = 0; i < cli->n_files; i++) {
        hs_report *r = hs_report_create();
        char *doc = NULL, *line = NULL;

        if (r) {
            hs_report_fail(r, hs_status_of_exit(rc), NULL, "%s", why);
            doc = hs_report_json(r, rc, cli->files[i], NULL);
        }
        if (doc) /* (a document: no output's name needed) */
            line = report_line(doc, strlen(doc), cli, NULL, i, rc);
        if (line && cli->stats == 2)
            say_whole(cli, line, strlen(line));
        lines_put(l, i, line);
        hs_free(doc);
        hs_report_free(r);
    }
}

/* The outputs' names; clash[i] is the earlier input whose output has input
 * i's name (-1: none). 0, or -1 out of memory. */
static int name_outputs(const hs_cli *cli, char **outs, int *clash)
{
    int i, j;

    for (i = 0; i < cli->n_files; i++) {
        clash[i] = -1;
        if (!cli->out_dir) /* --audit: no output */
            continue;
        if (!(outs[i] = output_name(cli, cli->files[i])))
            return -1;
        for (j = 0; j < i && clash[i] < 0; j++)
            if (strcmp(outs[i], outs[j]) == 0)
                clash[i] = j;
    }
    return 0;
}

/* A job running: its child, its input, the memory files it writes its
 * report and its end into (-1: none). */
typedef struct {
    int input, rep_fd, end_fd;
} many_job;

/* Waits for one child; records its status. Returns its slot, or -1 when
 * the wait was cut by a signal (or there is none). */
static int reap(const hs_cli *cli, const many_job *job, int *status, int n_slots)
{
    int ws, k;
    pid_t p = waitpid(-1, &ws, 0);

    if (p < 0)
        return -1;
    for (k = 0; k < n_slots; k++)
        if (g_pid[k] == p) {
            int i = job[k].input;
            status[i] = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
            if (WIFSIGNALED(ws) && !g_stop_sig)
                fprintf(stderr, "%s: %s: its run was killed by signal %d\n", g_prog,
                        cli->files[i], WTERMSIG(ws));
            g_pid[k] = 0;
            return k;
        }
    return -1;
}

/* A memory file for a child's report or end, when `wanted`: -1 when not,
 * -2 when it cannot be made. */
static int memory_file(int wanted, const char *name)
{
    int fd;

    if (!wanted)
        return -1;
    fd = hs_port_memory_file(name);
    return fd >= 0 ? fd : -2;
}

/* A job's end: its report's line and its end on standard error, from the
 * memory files its child wrote; the files closed. */
static void job_ended(const hs_cli *cli, char **outs, many_lines *l, many_job *j, int rc)
{
    size_t len;
    char *doc;

    if (j->rep_fd >= 0) {
        doc = slurp_fd(j->rep_fd, &len);
        lines_put(l, j->input, report_line(doc, len, cli, outs, j->input, rc));
        free(doc);
        close(j->rep_fd);
    }
    if (j->end_fd >= 0) {
        doc = slurp_fd(j->end_fd, &len);
        say_end(cli, outs, j->input, rc, doc, len);
        free(doc);
        close(j->end_fd);
    }
    j->rep_fd = j->end_fd = -1;
    hs_many_status_ended(&g_show, j->input, rc, outs[j->input]);
}

/* Starts input i's job in slot k (its child and memory files). 0, or -1
 * with errno set (nothing started). The caller holds the stops back. */
static int start_job(hs_cli *cli, int (*one)(hs_cli *, int), char **outs, const int *clash,
                     int threads, many_lines *l, many_job *j, int k, int i)
{
    int rep = memory_file(cli->stats_file != NULL, "hprof-strip-report");
    int end = memory_file(ends_said(cli), "hprof-strip-end");
    pid_t p = rep == -2 || end == -2 ? -1 : fork();
    int e = errno;

    if (p == 0)
        run_child(cli, one, i, outs, clash, threads, rep, end, &l->of);
    if (p < 0) {
        if (rep >= 0)
            close(rep);
        if (end >= 0)
            close(end);
        errno = e;
        return -1;
    }
    g_pid[k] = p;
    hs_many_status_started(&g_show, i);
    j->input = i;
    j->rep_fd = rep;
    j->end_fd = end;
    return 0;
}

/* The forwarded signals caught, but one ignored from the start (nohup),
 * which stays ignored here and in the children; SIGPIPE and SIGXFSZ
 * ignored, as a single run ignores them: standard error closed or full
 * is a write that fails, not a death that orphans the jobs. */
static void catch_stops(void)
{
    struct sigaction sa, was;
    size_t k;

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    fwd_set(&sa.sa_mask);
    for (k = 0; k < N_FWD; k++) {
        g_ignored[k] = sigaction(g_fwd[k], NULL, &was) == 0 && was.sa_handler == SIG_IGN;
        if (!g_ignored[k])
            sigaction(g_fwd[k], &sa, NULL);
    }
    signal(SIGPIPE, SIG_IGN);
#ifdef SIGXFSZ
    signal(SIGXFSZ, SIG_IGN);
#endif
}

/* Runs every input, -j at a time, until all are done or a stop came (the
 * running ones are then waited for). Returns how many were started. */
static int run_jobs(hs_cli *cli, int (*one)(hs_cli *, int), char **outs, const int *clash,
                    many_lines *l, int *status)
{
    int n = cli->n_files, jobs, threads, total, started = 0, running = 0, k;
    many_job job[MAX_JOBS];
    sigset_t set, old;

    jobs = cli->jobs > 0 ? cli->jobs : hs_port_cores();
    if (jobs > n)
        jobs = n;
    if (jobs > MAX_JOBS)
        jobs = MAX_JOBS;
    if (cli->audit) /* the certificates on standard output, in the files' order */
        jobs = 1;
    /* the compression threads shared among the jobs, not each given all */
    total = cli->threads > 0 ? cli->threads : hs_port_cores();
    threads = total / jobs > 1 ? total / jobs : 1;
    fwd_set(&set);
    fflush(NULL); /* nothing buffered is written twice */
    /* a stop starts no more: the children running are waited for */
    while (running > 0 || (!g_stop_sig && started < n)) {
        if (!g_stop_sig && started < n && running < jobs) {
            for (k = 0; k < jobs && g_pid[k] > 0; k++)
                ;
            /* the fork and the slot as one step for a stop: forwarded to
             * every child there is */
            pthread_sigmask(SIG_BLOCK, &set, &old);
            if (start_job(cli, one, outs, clash, threads, l, &job[k], k, started) == 0) {
                running++;
            } else {
                fprintf(stderr, "%s: %s: cannot start its run: %s\n", g_prog,
                        cli->files[started], strerror(errno));
                status[started] = HS_EXIT_LIMIT;
                /* its line says so, as for a run that wrote none */
                lines_put(l, started, report_line(NULL, 0, cli, outs, started, HS_EXIT_LIMIT));
                if (ends_said(cli))
                    say_end(cli, outs, started, HS_EXIT_LIMIT, NULL, 0);
            }
            started++;
            pthread_sigmask(SIG_SETMASK, &old, NULL);
            continue;
        }
        if ((k = reap(cli, job, status, jobs)) >= 0) {
            running--;
            job_ended(cli, outs, l, &job[k], status[job[k].input]);
        }
    }
    return started;
}

int hs_cli_many(hs_cli *cli, int (*one)(hs_cli *cli, int rc))
{
    int n = cli->n_files, worst = HS_EXIT_OK, i, started, rc, refused;
    char **outs = calloc((size_t)n, sizeof *outs), why[4400];
    int *clash = calloc((size_t)n, sizeof *clash), *status = calloc((size_t)n, sizeof *status);
    many_lines l = {{NULL, NULL, NULL, -1, 0, 0, -1}, NULL, 0, NULL, 0};
    struct sigaction sa;
    sigset_t set;

    /* first: a stop from here on is the command's, its report written */
    catch_stops();
    l.line = calloc((size_t)n + 1, sizeof *l.line);
    if (!outs || !clash || !status || !l.line || note_inputs(cli) != 0 ||
        name_outputs(cli, outs, clash) != 0) {
        fprintf(stderr, "%s: out of memory\n", g_prog);
        rc = HS_EXIT_LIMIT;
        goto done;
    }
    if ((refused = refusal(cli, why, sizeof why)) != HS_EXIT_OK)
        fprintf(stderr, "%s: %s\n", g_prog, why);
    /* the report before any job, as a single run opens its own: a name
     * it may not have is refused now, not when every job has run */
    if ((rc = report_is_output(cli, outs)) == HS_EXIT_OK && cli->stats_file)
        rc = lines_open(&l, cli);
    if (rc != HS_EXIT_OK || refused != HS_EXIT_OK) {
        if (refused != HS_EXIT_OK) { /* the report says so (when it could be opened) */
            fail_all(cli, &l, refused, why);
            rc = refused;
        }
        goto close;
    }
    if (hs_many_status_start(&g_show, cli) != 0)
        fprintf(stderr, "%s: out of memory: no progress or summary shown\n", g_prog);
    started = run_jobs(cli, one, outs, clash, &l, status);
    hs_many_status_end(&g_show);
    for (i = 0; i < started; i++)
        worst = worse(worst, status[i]);
    rc = worst;
    if (g_lost && (rc == HS_EXIT_OK || rc == HS_EXIT_SALVAGED || rc == HS_EXIT_AUDIT))
        rc = HS_EXIT_IO; /* a --stats=json line lost: as a single run's */
close:
    rc = worse(rc, lines_close(&l, cli));
done:
    for (i = 0; outs && i < n; i++)
        free(outs[i]);
    for (i = 0; l.line && i < n; i++)
        if (l.line[i] != g_written)
            free(l.line[i]);
    free(l.line);
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
