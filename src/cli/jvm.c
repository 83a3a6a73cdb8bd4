/* SPDX-License-Identifier: Apache-2.0 */
/*
 * jvm.c - --jvm PID: strips a running JVM's heap as the JVM writes it.
 *
 * How. A private directory (mkdtemp: mode 0700, under $TMPDIR or /tmp)
 * holds one FIFO; `jcmd PID GC.heap_dump [-all] -overwrite FIFO` runs as a
 * child, and the JVM opens the FIFO by name and writes the dump into it
 * (OpenJDK 17 opens the name with O_CREAT|O_TRUNC under -overwrite, which
 * on a FIFO that exists is a plain open for writing). The FIFO's read end
 * becomes standard input and the filter runs as for a pipe. The whole
 * dump is never on a disk: only the stripped output is.
 *
 * Never hang, never leave a file (but after SIGKILL). The read end is opened O_NONBLOCK before
 * jcmd starts (a blocking open would wait for a writer that may never
 * come: jcmd fails, the JVM cannot open the name), so the JVM's blocking
 * open for writing finds a reader at once. Then poll watches the FIFO and
 * jcmd's output together: data (or a writer that came and went) on the
 * FIFO means the JVM is writing; jcmd's output ending first means it
 * ended without the JVM writing, and what it printed says why. On Linux a
 * FIFO that has never had a writer reports nothing to poll, so the wait
 * needs no timeout of its own (jcmd's attach gives up after about 10 s).
 * Once the JVM has the FIFO open its name is no longer needed: it and the
 * directory are removed then, before the strip starts, so even a SIGKILL
 * during the strip leaves nothing in $TMPDIR. Before that, a signal's
 * handler removes them (stop.c, hs_stop_jvm), and every failure path does,
 * always before the read end is closed (see the failure path below). A
 * SIGKILL in that wait leaves the directory, and a JVM that then opens the
 * FIFO waits in open() for a reader (its attach listener stuck until one
 * comes: `cat FIFO >/dev/null`); nothing in the process can prevent it.
 *
 * JDK 21 and later dump in parallel by default, each worker writing a part
 * file beside the target (<target>.pN) that a second step merges into it:
 * on a disk, and in our private directory. So when the JVM's GC.heap_dump
 * lists -parallel (asked first, `jcmd PID help GC.heap_dump`), the serial
 * dump is asked for, and the directory is watched: a part file there ends
 * the run with the parts removed (remove_parts, forget_files).
 *
 * Why look at the process before jcmd does. jcmd attaches by sending
 * SIGQUIT to the process after dropping a file beside it: a process that
 * is not a JVM dies of it (or dumps core), and jcmd then waits 10.5 s to
 * say "HotSpot VM not loaded". /proc/PID/maps names libjvm.so in every
 * HotSpot JVM; reading it needs the rights attaching needs (the same
 * user), so an EACCES there is the permission error jcmd would give. Any
 * process may map a file of that name, so it must also catch SIGQUIT
 * (/proc/PID/status), as a JVM does: one that does not is never signalled.
 *
 * The FIFO's name. jcmd joins its arguments with spaces and the JVM splits
 * the line again (at spaces, '=' between a name and its value, quotes
 * around an argument), then opens the name from its own working
 * directory: the name given is absolute, and quoted when it holds
 * anything but letters, digits and "/._-+,:@" (a TMPDIR with a space).
 *
 * jcmd's own exit status is 0 whenever it reached the JVM, even when the
 * dump failed ("Unable to create ..."): the verdict is its output, which
 * ends in "Heap dump file created" on success.
 */
#define _POSIX_C_SOURCE 200809L
#include "jvm.h"

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "files.h"
#include "stop.h"

extern char **environ;

/* What a run with --jvm keeps between open and close: static, so that the
 * names stay put for stop.c's handler. */
static char g_dir[PATH_MAX - 16], g_fifo[PATH_MAX];
static pid_t g_jcmd = -1;
static int g_out = -1;        /* jcmd's standard output and error */
static char g_said[4096];     /* what jcmd printed (the first 4 KiB) */
static size_t g_said_len;
static int g_connected;       /* the JVM opened the FIFO */
static char g_part[256];      /* a file the JVM wrote beside the FIFO (none: "") */

/* A failure of the JVM's kind: the message, reported and printed; the
 * report's status names it (the command's own status, not the library's:
 * its code is null). */
static int jvm_fail(hs_cli *cli, int exit_code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int jvm_fail(hs_cli *cli, int exit_code, const char *fmt, ...)
{
    char msg[sizeof(((hs_error *)0)->message)];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    hs_report_fail_other(cli->report, exit_code == EXIT_JVM_TARGET ? "jvm-target" : "jvm-dump",
                         exit_code == EXIT_JVM_DUMP, NULL, "%s", msg);
    return exit_code;
}

/* Removes whatever the JVM wrote beside the FIFO in the private directory
 * (a parallel heap dump's parts, <FIFO>.p0, .p1...: JDK 21 and later when
 * not asked for a serial dump), noting the first one's name in g_part.
 * Returns how many there were. */
static int remove_parts(void)
{
    DIR *d = g_dir[0] ? opendir(g_dir) : NULL;
    struct dirent *e;
    char path[PATH_MAX + 256];
    int n = 0;

    if (!d)
        return 0;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
            strcmp(e->d_name, "heap.hprof") == 0)
            continue;
        if (!g_part[0])
            snprintf(g_part, sizeof g_part, "%s", e->d_name);
        snprintf(path, sizeof path, "%s/%s", g_dir, e->d_name);
        (void)unlink(path);
        n++;
    }
    closedir(d);
    return n;
}

static void forget_files(void)
{
    if (g_fifo[0])
        (void)unlink(g_fifo);
    /* a directory that is not empty holds what the JVM wrote beside the
     * FIFO: never left on the disk */
    if (g_dir[0] && rmdir(g_dir) != 0 && errno == ENOTEMPTY && remove_parts())
        (void)rmdir(g_dir);
    hs_stop_jvm(NULL, NULL, g_jcmd > 0 ? g_jcmd : 0);
    g_fifo[0] = g_dir[0] = 0;
}

/* ---- the target ---------------------------------------------------------- */

/* Whether the maps line `line` is an executable mapping of a file named
 * libjvm.so (HotSpot's code): a data file of that name mapped for reading
 * is no JVM. */
static int maps_libjvm(const char *line)
{
    const char *perms = strchr(line, ' '), *name = strstr(line, "/libjvm.so");

    return perms && name && perms[1] && perms[2] && perms[3] == 'x' &&
           (name[10] == '\n' || name[10] == 0 || name[10] == ' ');
}

/* Whether `pid` catches SIGQUIT (the SigCgt mask of /proc/PID/status): -1
 * when that cannot be read. HotSpot catches it (unless started with -Xrs,
 * when it cannot be attached to at all); a process that does not would
 * die of jcmd's SIGQUIT, whatever it maps. */
static int catches_sigquit(long pid)
{
    char path[64], line[256];
    FILE *fp;
    int r = -1;

    snprintf(path, sizeof path, "/proc/%ld/status", pid);
    if (!(fp = fopen(path, "r")))
        return -1;
    while (r < 0 && fgets(line, sizeof line, fp)) {
        unsigned long long mask;
        if (strncmp(line, "SigCgt:", 7) == 0 && sscanf(line + 7, "%llx", &mask) == 1)
            r = (int)((mask >> (SIGQUIT - 1)) & 1);
    }
    fclose(fp);
    return r;
}

/* Is `pid` a HotSpot JVM this user may dump? HS_EXIT_OK, or the failure.
 * Never a process that jcmd's SIGQUIT would kill: one that maps HotSpot's
 * code (a file named libjvm.so, executable) and catches SIGQUIT, as every
 * JVM that can be attached to does. A file's name alone proves nothing (any
 * process may map a file of that name); the perf data file jcmd lists JVMs
 * by (/tmp/hsperfdata_USER/PID) is no proof either way (-XX:-UsePerfData,
 * a container's /tmp). */
static int check_target(hs_cli *cli)
{
    char path[64], line[PATH_MAX + 128], pid[24];
    FILE *fp;
    int found = 0, caught;

    snprintf(pid, sizeof pid, "%ld", cli->jvm_pid);
    if (kill((pid_t)cli->jvm_pid, 0) != 0 && errno == ESRCH)
        return jvm_fail(cli, EXIT_JVM_TARGET, "--jvm %s: no such process", pid);
    snprintf(path, sizeof path, "/proc/%ld/maps", cli->jvm_pid);
    if (!(fp = fopen(path, "r"))) {
        int e = errno;
        if (e == ENOENT && access("/proc/self/maps", R_OK) != 0)
            return HS_EXIT_OK; /* no /proc here: jcmd alone will tell */
        if (e == ENOENT)
            return jvm_fail(cli, EXIT_JVM_TARGET, "--jvm %s: no such process", pid);
        return jvm_fail(cli, EXIT_JVM_TARGET,
                        "--jvm %s: permission denied: a JVM can be dumped only by the user it "
                        "runs as (run hprof-strip as that user)",
                        pid);
    }
    while (!found && fgets(line, sizeof line, fp))
        found = maps_libjvm(line);
    fclose(fp);
    if (!found)
        return jvm_fail(cli, EXIT_JVM_TARGET,
                        "--jvm %s: not a JVM (no libjvm.so in the process; jcmd would send it "
                        "SIGQUIT)",
                        pid);
    if ((caught = catches_sigquit(cli->jvm_pid)) == 0)
        return jvm_fail(cli, EXIT_JVM_TARGET,
                        "--jvm %s: not a JVM that can be attached to (it maps a libjvm.so but "
                        "does not catch SIGQUIT, which jcmd sends: it would die of it; a JVM "
                        "started with -Xrs cannot be dumped by jcmd)",
                        pid);
    if (caught < 0)
        return jvm_fail(cli, EXIT_JVM_TARGET, "--jvm %s: no such process", pid);
    return HS_EXIT_OK;
}

/* Refuses what would fail only after the JVM has started dumping: an
 * INPUT operand, a terminal or a refused file as the output. */
static int check_command(hs_cli *cli)
{
    hs_claim c;
    int how;

    if (cli->in_path || cli->out_positional)
        return hs_report_fail(cli->report, HS_E_USAGE, NULL,
                              "--jvm reads the JVM, not '%s': name the output with -o",
                              cli->in_path ? cli->in_path : cli->out_path);
    if (cli->audit || !cli->out_path) {
        if (!cli->audit && isatty(STDOUT_FILENO) && !cli->force)
            return hs_report_fail(cli->report, HS_E_USAGE, NULL,
                                  "refusing to write a heap dump to a terminal; use -o FILE, "
                                  "or redirect standard output");
        return HS_EXIT_OK;
    }
    /* the same claim run.c makes when it opens the file (a second claim
     * of the same output is no conflict): a refusal now, not after the
     * JVM has paused to dump */
    how = cli->force ? HS_OUT_FORCE : 0;
    switch (hs_files_claim(cli->out_path, how, &c)) {
    case 0: free(c.target); return HS_EXIT_OK;
    case 1: return hs_report_fail(cli->report, HS_E_USAGE, NULL, "%s", hs_files_why());
    default:
        return hs_report_fail(cli->report, HS_E_WRITE, NULL, "%s: %s", cli->out_path,
                              strerror(errno));
    }
}

/* ---- jcmd ---------------------------------------------------------------- */

/* Reads what jcmd printed, as far as it goes now (`wait_ms` -1: to its
 * end). Returns 1 at its end. */
static int read_said(int wait_ms)
{
    char buf[1024];
    struct pollfd p;

    for (;;) {
        ssize_t k;
        int r;
        p.fd = g_out;
        p.events = POLLIN;
        if ((r = poll(&p, 1, wait_ms)) == 0)
            return 0;
        if (r < 0 && errno == EINTR)
            continue;
        k = r < 0 ? -1 : read(g_out, buf, sizeof buf);
        if (k < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (k <= 0)
            return 1;
        if (g_said_len < sizeof g_said - 1) {
            size_t n = (size_t)k < sizeof g_said - 1 - g_said_len ? (size_t)k
                                                                  : sizeof g_said - 1 - g_said_len;
            memcpy(g_said + g_said_len, buf, n);
            g_said_len += n;
            g_said[g_said_len] = 0;
        }
    }
}

/* jcmd's message in one line: the first line that says something (not
 * "PID:", not a stack frame, not "Dumping heap to"). */
static const char *said_why(char *buf, size_t cap)
{
    const char *p = g_said;

    while (*p) {
        size_t n = strcspn(p, "\n");
        int skip = (n && p[n - 1] == ':' && strspn(p, "0123456789") == n - 1) ||
                   strncmp(p, "\tat ", 4) == 0 || strncmp(p, "Dumping heap to", 15) == 0 || !n;
        if (!skip) {
            snprintf(buf, cap, "%.*s", (int)n, p);
            return buf;
        }
        p += n + (p[n] == '\n');
    }
    snprintf(buf, cap, "jcmd said nothing");
    return buf;
}

/* The jcmd to run: $JAVA_HOME/bin/jcmd when there is one, else jcmd from
 * PATH (the JDK's jcmd should match the JVM's version; JAVA_HOME is how
 * one chooses). */
static char *jcmd_path(char *buf, size_t cap)
{
    const char *home = getenv("JAVA_HOME");

    if (!(home && *home && (size_t)snprintf(buf, cap, "%s/bin/jcmd", home) < cap &&
          access(buf, X_OK) == 0))
        snprintf(buf, cap, "jcmd");
    return buf;
}

/* The FIFO's name as the JVM's command line takes it (see the top):
 * quoted when needed, with quotes it does not hold (the JVM knows no
 * escape but before a quote). NULL when it holds a newline (jcmd's line
 * end) or both quotes, or is too long. */
static char *jcmd_word(char *name, char *buf, size_t cap)
{
    char q = '"';

    if (strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+,:@") ==
        strlen(name))
        return name;
    if (strchr(name, '\n') || strchr(name, '\r') || (strchr(name, '"') && strchr(name, '\'')))
        return NULL;
    if (strchr(name, '"'))
        q = '\'';
    if ((size_t)snprintf(buf, cap, "%c%s%c", q, name, q) >= cap)
        return NULL;
    return buf;
}

/* Runs jcmd with `argv`, its standard output and error into a pipe whose
 * read end is *out. Returns 0, or an errno (pipe, spawn). */
static int spawn_jcmd(char **argv, pid_t *child, int *out)
{
    int fds[2], e;
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    sigset_t def;

    if (pipe(fds) != 0)
        return errno;
    (void)fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
    posix_spawn_file_actions_addclose(&fa, fds[1]);
    /* jcmd gets the signals as a child should: SIGPIPE is ignored here */
    posix_spawnattr_init(&at);
    sigemptyset(&def);
    sigaddset(&def, SIGPIPE);
    sigaddset(&def, SIGXFSZ);
    posix_spawnattr_setsigdefault(&at, &def);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF);
    e = posix_spawnp(child, argv[0], &fa, &at, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    close(fds[1]);
    if (e != 0) {
        close(fds[0]);
        return e;
    }
    *out = fds[0];
    return 0;
}

/* Whether the JVM's GC.heap_dump takes -parallel (JDK 21 and later, which
 * dump in parallel by default, each worker into a part file beside the
 * target, merged afterwards: on a disk, never through our FIFO). Asked of
 * the JVM itself, `jcmd PID help GC.heap_dump`, at most PROBE_MS long: a
 * JVM that does not answer is asked for no option it may not know. */
#define PROBE_MS 20000
static int knows_parallel(char *exe, char *pid)
{
    static char a_help[] = "help", a_dump[] = "GC.heap_dump";
    char *argv[] = {exe, pid, a_help, a_dump, NULL};
    char said[8192];
    size_t len = 0;
    struct pollfd p;
    pid_t child;
    int out, status;
    ssize_t k;

    if (spawn_jcmd(argv, &child, &out) != 0)
        return 0; /* said when the dump itself is asked for */
    hs_stop_jvm(g_dir, g_fifo, child); /* a signal now ends it too */
    p.fd = out;
    p.events = POLLIN;
    while (poll(&p, 1, PROBE_MS) > 0 &&
           (k = read(out, said + len, sizeof said - 1 - len)) > 0 && len + (size_t)k < sizeof said - 1)
        len += (size_t)k;
    said[len] = 0;
    close(out);
    kill(child, SIGKILL); /* ended already, or not answering */
    while (waitpid(child, &status, 0) < 0 && errno == EINTR)
        ;
    hs_stop_jvm(g_dir, g_fifo, 0);
    return strstr(said, "-parallel") != NULL;
}

static int start_jcmd(hs_cli *cli)
{
    static char a_dump[] = "GC.heap_dump", a_all[] = "-all", a_over[] = "-overwrite",
                a_serial[] = "-parallel=1";
    static char word[PATH_MAX + 2];
    char pid[24], exe[PATH_MAX];
    char *argv[9];
    int n = 0, e;

    snprintf(pid, sizeof pid, "%ld", cli->jvm_pid);
    argv[n++] = jcmd_path(exe, sizeof exe);
    argv[n++] = pid;
    argv[n++] = a_dump;
    if (cli->jvm_all)
        argv[n++] = a_all; /* else live objects: jcmd's default */
    argv[n++] = a_over;
    if (knows_parallel(exe, pid))
        argv[n++] = a_serial; /* one writer, into the FIFO: no part on a disk */
    if (!(argv[n++] = jcmd_word(g_fifo, word, sizeof word)))
        return hs_report_fail(cli->report, HS_E_USAGE, NULL,
                              "--jvm: the FIFO's name '%s' cannot be given to jcmd (a newline, "
                              "or both quotes): set TMPDIR to another directory",
                              g_fifo);
    argv[n] = NULL;
    assert((size_t)n < sizeof argv / sizeof argv[0]);
    if ((e = spawn_jcmd(argv, &g_jcmd, &g_out)) != 0) {
        g_jcmd = -1;
        return jvm_fail(cli, EXIT_JVM_DUMP, "--jvm: cannot run %s: %s (install a JDK, "
                        "openjdk-17-jdk-headless, or set JAVA_HOME)", argv[0], strerror(e));
    }
    hs_stop_jvm(g_dir, g_fifo, g_jcmd);
    return HS_EXIT_OK;
}

/* How often the private directory is looked at while the JVM has not
 * opened the FIFO yet. */
#define PARTS_MS 100

/* A part file beside the FIFO: the JVM dumps onto a disk after all. */
static int parts_failed(hs_cli *cli)
{
    return jvm_fail(cli, EXIT_JVM_DUMP,
                    "--jvm %ld: the JVM wrote %s beside the FIFO: its dumper writes parts "
                    "beside the target (a parallel heap dump, JDK 21 and later, that did not "
                    "take -parallel=1), which would put the dump on a disk; removed, nothing "
                    "written",
                    cli->jvm_pid, g_part);
}

/* Waits for jcmd to end (after `grace_s` seconds it is killed); returns
 * its wait status. */
static int reap_jcmd(int grace_s)
{
    time_t until = time(NULL) + grace_s;
    int st = 0, killed = 0;

    if (g_jcmd <= 0)
        return 0;
    while (g_out >= 0 && !read_said(1000))
        if (!killed && time(NULL) >= until) {
            (void)kill(g_jcmd, SIGKILL);
            killed = 1;
        }
    while (waitpid(g_jcmd, &st, 0) < 0 && errno == EINTR)
        ;
    g_jcmd = -1;
    hs_stop_jvm(g_dir[0] ? g_dir : NULL, g_fifo[0] ? g_fifo : NULL, 0);
    if (g_out >= 0)
        close(g_out);
    g_out = -1;
    return st;
}

/* jcmd ended, or its output did, before the JVM wrote anything: why. */
static int jcmd_failed(hs_cli *cli)
{
    char why[512], pid[24];
    int st = reap_jcmd(5);

    snprintf(pid, sizeof pid, "%ld", cli->jvm_pid);
    said_why(why, sizeof why);
    if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
        return jvm_fail(cli, EXIT_JVM_DUMP, "--jvm %s: jcmd could not run: %s", pid, why);
    if (strstr(g_said, "No such process"))
        return jvm_fail(cli, EXIT_JVM_TARGET, "--jvm %s: no such process", pid);
    /* attaching refused (not the JVM's "Unable to create FILE: Permission
     * denied", which is the dump failing): an exception of jcmd's own */
    if (strstr(g_said, "Exception") &&
        (strstr(g_said, "Permission denied") || strstr(g_said, "Operation not permitted")))
        return jvm_fail(cli, EXIT_JVM_TARGET, "--jvm %s: permission denied: %s", pid, why);
    return jvm_fail(cli, EXIT_JVM_DUMP, "--jvm %s: the JVM wrote no dump: %s", pid, why);
}

/* ---- the run ------------------------------------------------------------- */

static int jvm_done(hs_cli *cli, int rc);

int hs_jvm_open(hs_cli *cli)
{
    const char *tmp = getenv("TMPDIR");
    static char cwd[PATH_MAX];
    struct pollfd p[2];
    int fd, rc;

    assert(cli->jvm_pid > 0);
    if ((rc = check_command(cli)) != HS_EXIT_OK || (rc = check_target(cli)) != HS_EXIT_OK)
        return rc;
    if (!tmp || !*tmp)
        tmp = "/tmp";
    /* absolute: the JVM opens the name from its own working directory */
    if (tmp[0] != '/' && !getcwd(cwd, sizeof cwd)) {
        return hs_report_fail(cli->report, HS_E_WRITE, NULL,
                              "--jvm: TMPDIR %s is relative, and the working directory: %s",
                              tmp, strerror(errno));
    }
    if ((size_t)snprintf(g_dir, sizeof g_dir, "%s%s%s/hprof-strip-jvm.XXXXXX",
                         tmp[0] == '/' ? "" : cwd, tmp[0] == '/' ? "" : "/", tmp) >=
            sizeof g_dir ||
        !mkdtemp(g_dir)) {
        rc = hs_report_fail(cli->report, HS_E_WRITE, NULL,
                            "--jvm: cannot make a directory in %s for the FIFO: %s", tmp,
                            strerror(errno));
        g_dir[0] = 0;
        return rc;
    }
    hs_stop_jvm(g_dir, NULL, 0);
    snprintf(g_fifo, sizeof g_fifo, "%s/heap.hprof", g_dir);
    if (mkfifo(g_fifo, 0600) != 0) {
        rc = hs_report_fail(cli->report, HS_E_WRITE, NULL, "--jvm: mkfifo %s: %s", g_fifo,
                            strerror(errno));
        g_fifo[0] = 0;
        forget_files();
        return rc;
    }
    hs_stop_jvm(g_dir, g_fifo, 0);
    /* the reader first, without waiting for a writer */
    if ((fd = open(g_fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0) {
        rc = hs_report_fail(cli->report, HS_E_READ, NULL, "--jvm: %s: %s", g_fifo,
                            strerror(errno));
        forget_files();
        return rc;
    }
    if ((rc = start_jcmd(cli)) != HS_EXIT_OK) {
        forget_files();
        close(fd);
        return rc;
    }
    /* until the JVM writes (or opens and closes), or jcmd's output ends;
     * the directory looked at every PARTS_MS: a part file there is a dump
     * going onto the disk, stopped at once */
    for (;;) {
        int k;
        p[0].fd = fd;
        p[0].events = POLLIN;
        p[1].fd = g_out;
        p[1].events = POLLIN;
        p[0].revents = p[1].revents = 0;
        if ((k = poll(p, 2, PARTS_MS)) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (remove_parts()) {
            forget_files();
            close(fd);
            return parts_failed(cli);
        }
        if (p[0].revents)
            break;
        if (p[1].revents && read_said(0))
            break; /* its end: no writer came */
    }
    if (!p[0].revents) {
        /* the name first, then the reader: a JVM that opens the name
         * after this fails (ENOENT), one that opened it before writes
         * into a FIFO without a reader (EPIPE); never one that waits in
         * open() for a reader that will not come */
        forget_files();
        close(fd);
        return jcmd_failed(cli);
    }
    g_connected = 1;
    /* both ends open: the names have done their work (a part written
     * since is removed with them, and the run fails: jvm_done) */
    forget_files();
    hs_stop_jvm(NULL, NULL, g_jcmd);
    if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0 || dup2(fd, STDIN_FILENO) < 0) {
        rc = hs_report_fail(cli->report, HS_E_READ, NULL, "--jvm: %s", strerror(errno));
        close(fd);
        return rc;
    }
    close(fd);
    (void)fcntl(STDIN_FILENO, F_SETFD, 0);
    cli->input_done = jvm_done;
    return HS_EXIT_OK;
}

/* run.c's cli->input_done, before the output is put in place. */
static int jvm_done(hs_cli *cli, int rc)
{
    char why[512];
    int fd;

    if (!g_connected)
        return rc;
    g_connected = 0;
    /* the read end closed: a JVM still writing (the strip failed) gets
     * EPIPE and ends the dump, and jcmd then ends */
    if ((fd = open("/dev/null", O_RDONLY)) >= 0) {
        dup2(fd, STDIN_FILENO);
        close(fd);
    }
    (void)reap_jcmd(60);
    if (g_part[0]) { /* parts beside the FIFO (forget_files removed them) */
        cli->keep_output = 0;
        return parts_failed(cli);
    }
    if (strstr(g_said, "Heap dump file created"))
        return rc;
    /* the JVM stopped writing: its failure, not a truncated input (and a
     * dump cut at a record's end, which would read as whole, is no
     * success either) */
    if (rc == HS_EXIT_OK || rc == HS_EXIT_TRUNCATED || rc == HS_EXIT_BAD_INPUT ||
        rc == HS_EXIT_SALVAGED) {
        cli->keep_output = 0;
        return jvm_fail(cli, EXIT_JVM_DUMP, "--jvm %ld: the JVM's dump failed: %s", cli->jvm_pid,
                        said_why(why, sizeof why));
    }
    return rc;
}

int hs_jvm_close(hs_cli *cli, int rc)
{
    rc = jvm_done(cli, rc); /* when the run ended before its input did */
    (void)reap_jcmd(60);
    forget_files();
    hs_stop_jvm(NULL, NULL, 0);
    return rc;
}
