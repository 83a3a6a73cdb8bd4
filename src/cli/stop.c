/* SPDX-License-Identifier: Apache-2.0 */
/*
 * stop.c - a run stopped by a signal still leaves a whole JSON report that
 * names the signal, and no temporary file (stop.h).
 *
 * Why the handler is safe. It calls only async-signal-safe functions:
 * write, lstat, rename/renameat2, link, unlink (io.c's
 * hs_outfile_commit_on_signal and hs_outfile_remove_on_signal),
 * sigaction, pthread_sigmask and raise; no malloc, no stdio, no lock. What
 * it reads was made before: a rendering of the report published by the
 * main thread, the descriptors of the report's destinations, the
 * temporary paths in io.c's static slots. The rendering is double-buffered:
 * the main thread writes only the buffer not published (g_cur names the
 * other), then publishes it with one atomic store; a handler first claims
 * the stop (g_state 0 -> 1, one atomic compare-and-swap: lock-free atomics
 * are what C11 allows a handler) and only then loads g_cur, and the main
 * thread writes a buffer only after seeing g_state 0. Whichever order the
 * two take, the buffer the handler reads is never written again: a
 * handler on another thread (a decompressor's, a compressor's) is as safe
 * as one on the main thread, and one that interrupts a rendering half done
 * reads the buffer before it. A second signal, on any thread, finds the
 * stop claimed and returns; the first ends the process.
 *
 * At its own end the run claims g_state (0 -> 2) with the signals blocked
 * and no other thread left (hs_stop_finish), so the final report is never
 * written by two hands: a report file is written and renamed with the
 * signals blocked (a regular file's writes do not wait for long). A
 * stream (a pipe, a FIFO, a terminal) may wait for its reader forever, so
 * it is written unblocked while it waits and blocked while it writes
 * (hs_stop_stream): poll with the signals open, then one write of at most
 * PIPE_BUF bytes with them blocked, and the count of bytes written kept
 * before they open again. A signal then finds how much of the final
 * document went out, exactly, writes the rest (async-signal-safe: write
 * alone), and ends the process: the reader gets one whole document, the
 * run's own.
 */
#define _POSIX_C_SOURCE 200809L
#include "stop.h"

#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

static const int g_sigs[] = {SIGHUP, SIGINT, SIGQUIT, SIGALRM, SIGTERM, SIGUSR1,
                             SIGUSR2, SIGXCPU, SIGVTALRM, SIGPROF,
#ifdef SIGPOLL
                             SIGPOLL,
#endif
#ifdef SIGPWR
                             SIGPWR,
#endif
#ifdef SIGSTKFLT
                             SIGSTKFLT,
#endif
};
#define N_SIGS (sizeof g_sigs / sizeof g_sigs[0])

/* 0: running; 1: a stop is writing the reports; 2: the run's end is */
static atomic_int g_state;
/* 0 from hs_stop_catch to hs_stop_ready: a stop that comes while the
 * report is being opened waits for it (g_early keeps the first signal),
 * for until then there is no report to write it into */
static atomic_int g_ready, g_early;
/* the published rendering: 0 or 1, -1 before the first */
static atomic_int g_cur = -1;
static char *g_doc[2];
static size_t g_cap[2], g_head[2], g_len[2];

static struct {
    int fd;
    hs_outfile *of;
} g_dest[2];
static int g_n_dest;

static int g_held;
static char g_in_name[512]; /* the input, for --timeout's message */
static sigset_t g_old_mask;

/* the final document going into a stream (hs_stop_stream) */
static int g_stream_fd = -1;
static const char *g_stream_doc;
static size_t g_stream_len;
static atomic_size_t g_stream_off;

/* jvm.c's private directory and the FIFO in it, and jcmd (hs_stop_jvm) */
static const char *volatile g_rm_dir, *volatile g_rm_file;
static volatile pid_t g_child;

static void our_set(sigset_t *set)
{
    size_t i;

    sigemptyset(set);
    for (i = 0; i < N_SIGS; i++)
        sigaddset(set, g_sigs[i]);
}

void hs_stop_report_to(int fd, hs_outfile *of)
{
    if (g_n_dest < 2) {
        g_dest[g_n_dest].fd = fd;
        g_dest[g_n_dest].of = of;
        g_n_dest++;
    }
}

void hs_stop_publish(const char *doc, size_t head, size_t len)
{
    int cur = atomic_load(&g_cur), spare = cur == 0 ? 1 : 0;

    if (atomic_load(&g_state) != 0) /* a stop may be reading either buffer */
        return;
    if (g_cap[spare] < len) {
        char *grown = realloc(g_doc[spare], len);
        if (!grown)
            return; /* the one published stays */
        g_doc[spare] = grown;
        g_cap[spare] = len;
    }
    memcpy(g_doc[spare], doc, len);
    g_head[spare] = head;
    g_len[spare] = len;
    atomic_store(&g_cur, spare);
}

/* ---- what a handler may do ---------------------------------------------- */

static void put_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return;
        p += k;
        n -= (size_t)k;
    }
}

typedef struct {
    char buf[1400];
    size_t at;
} text;

static void put_str(text *t, const char *s)
{
    while (*s && t->at < sizeof t->buf)
        t->buf[t->at++] = *s++;
}

/* A JSON string's contents: quotes, backslashes and control bytes escaped. */
static void put_json(text *t, const char *s)
{
    static const char hex[] = "0123456789abcdef";

    for (; *s && t->at + 6 < sizeof t->buf; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            t->buf[t->at++] = '\\';
            t->buf[t->at++] = (char)c;
        } else if (c < 0x20) {
            put_str(t, "\\u00");
            t->buf[t->at++] = hex[c >> 4];
            t->buf[t->at++] = hex[c & 15];
        } else {
            t->buf[t->at++] = (char)c;
        }
    }
}

static void put_int(text *t, long v)
{
    char d[24];
    int n = 0;
    unsigned long u = v < 0 ? (unsigned long)-v : (unsigned long)v;

    if (v < 0)
        put_str(t, "-");
    do
        d[n++] = (char)('0' + u % 10);
    while ((u /= 10) && n < 24);
    while (n && t->at < sizeof t->buf)
        t->buf[t->at++] = d[--n];
}

void hs_stop_jvm(const char *dir, const char *file, pid_t child)
{
    g_rm_file = file;
    g_rm_dir = dir;
    g_child = child;
}

/* unlink, rmdir and kill: async-signal-safe. The JVM may create its dump
 * under the FIFO's name in the moment between the unlink and the rmdir
 * (-overwrite opens with O_CREAT): the rmdir then fails, and the name is
 * unlinked again; once the directory is gone nothing can be created. jcmd
 * is told to end too (the JVM's dump then fails on a FIFO with no reader,
 * or on a directory that is gone). */
static void remove_jvm_files(void)
{
    const char *dir = g_rm_dir, *file = g_rm_file;
    int i;

    if (g_child > 0)
        (void)kill(g_child, SIGTERM);
    if (!dir)
        return;
    for (i = 0; i < 4; i++) {
        if (file)
            (void)unlink(file);
        if (rmdir(dir) == 0 || errno == ENOENT)
            break;
    }
}

/* Claims the stop and writes the reports: the published rendering with
 * `t` (the exit status and the error object) between its head and its
 * rest; then removes every temporary file. 1, or 0 when another stop or
 * the run's own end got there first. */
static int write_stopped(const text *t)
{
    int expect = 0, cur, i, e = errno;

    if (!atomic_compare_exchange_strong(&g_state, &expect, 1))
        return 0;
    cur = atomic_load(&g_cur);
    for (i = 0; i < g_n_dest && cur >= 0; i++) {
        put_all(g_dest[i].fd, g_doc[cur], g_head[cur]);
        put_all(g_dest[i].fd, t->buf, t->at);
        put_all(g_dest[i].fd, g_doc[cur] + g_head[cur], g_len[cur] - g_head[cur]);
        if (g_dest[i].of)
            (void)hs_outfile_commit_on_signal(g_dest[i].of);
    }
    hs_outfile_remove_on_signal(); /* the dump's, and a report not written */
    remove_jvm_files();
    errno = e;
    return 1;
}

int hs_stop_write(int sig, int exit_status, int code, const char *message)
{
    const char *name = sig ? hs_signal_name(sig) : NULL;
    text t;

    t.at = 0;
    if (sig) {
        put_int(&t, 128 + sig);
        put_str(&t, ",\"error\":{\"code\":null,\"status\":\"signal\",\"retryable\":true,"
                    "\"signal\":\"");
        put_str(&t, name ? name : "?");
    } else {
        put_int(&t, exit_status);
        put_str(&t, ",\"error\":{\"code\":");
        put_int(&t, code);
        put_str(&t, ",\"status\":\"");
        put_str(&t, hs_status_name((hs_status)code));
        put_str(&t, hs_status_retryable((hs_status)code) ? "\",\"retryable\":true,\"signal\":null"
                                                         : "\",\"retryable\":false,\"signal\":null");
    }
    put_str(&t, sig ? "\",\"offset\":null" : ",\"offset\":null");
    put_str(&t, ",\"record_offset\":null,\"tag\":null,\"subtag\":null,\"message\":\"");
    if (sig) {
        put_str(&t, "stopped by ");
        put_str(&t, name ? name : "a signal");
    } else {
        put_json(&t, message);
    }
    put_str(&t, "\"}");
    return write_stopped(&t);
}

void hs_stop_wait_for_other(void)
{
    if (atomic_load(&g_state) == 1)
        for (;;)
            pause();
}

/* Dies of `sig`: its default action, unblocked. Raised on this thread, it
 * is delivered when the handler returns (or at once outside one). */
static void die_of(int sig)
{
    struct sigaction sa;
    sigset_t set;

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
    sigemptyset(&set);
    sigaddset(&set, sig);
    raise(sig);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

static void on_stop(int sig)
{
    if (!atomic_load(&g_ready)) {
        int none = 0;
        (void)atomic_compare_exchange_strong(&g_early, &none, sig);
        return; /* a blocking open it cut returns EINTR */
    }
    /* the reports written, or (2) the run's end put everything in place
     * but a stream it is writing, which is finished first: die; else
     * another stop is at work, and it ends the process */
    if (hs_stop_write(sig, 128 + sig, 0, NULL)) {
        die_of(sig);
    } else if (atomic_load(&g_state) == 2) {
        if (g_stream_doc) {
            size_t off = atomic_load(&g_stream_off);
            put_all(g_stream_fd, g_stream_doc + off, g_stream_len - off);
        }
        die_of(sig);
    }
}

/* ---- --timeout ------------------------------------------------------------
 * The deadline is a POSIX timer of the process's own delivering SIGALRM:
 * its siginfo says SI_TIMER, which a SIGALRM sent with kill(1) never does,
 * so that one stays a stop by signal (142). It reuses the stop's machinery
 * rather than the library's hs_filter_cancel because a signal reaches a
 * run wherever it waits: in a read from a FIFO that sends nothing, in a
 * write to a full pipe, in loading a mapping, where a cancel flag the
 * filter checks between records would never be looked at. */
static char g_timeout_arg[32]; /* the --timeout argument, for the message */

/* g_early's mark for the deadline passed before hs_stop_ready (no signal
 * number is negative) */
#define EARLY_TIMEOUT (-1)

/* The deadline passed: the reports written as timed out, exit 124; or,
 * when the run's end got there first, a return (it finishes as it would
 * have). Async-signal-safe. */
static void timed_out(void)
{
    text t;

    t.at = 0;
    put_int(&t, HS_EXIT_TIMEOUT);
    put_str(&t, ",\"error\":{\"code\":null,\"status\":\"timeout\",\"retryable\":true,"
                "\"signal\":null,\"offset\":null,\"record_offset\":null,\"tag\":null,"
                "\"subtag\":null,\"message\":\"stopped by --timeout ");
    put_json(&t, g_timeout_arg);
    put_str(&t, " (seconds): the run took longer\"}");
    /* the run's end got there first (2): it finishes as it would have */
    if (!write_stopped(&t))
        return;
    t.at = 0;
    put_str(&t, "hprof-strip: ");
    put_str(&t, g_in_name);
    put_str(&t, ": stopped by --timeout ");
    put_str(&t, g_timeout_arg);
    put_str(&t, " (seconds); the output is not written\n");
    put_all(STDERR_FILENO, t.buf, t.at);
    _exit(HS_EXIT_TIMEOUT);
}

static void on_alarm(int sig, siginfo_t *info, void *uctx)
{
    (void)uctx;
    if (!info || info->si_code != SI_TIMER) {
        on_stop(sig);
        return;
    }
    /* the timer runs while the report is opened (a FIFO's open waits for
     * a reader): held as a stop is, the open it cuts returns EINTR */
    if (!atomic_load(&g_ready)) {
        int none = 0;
        (void)atomic_compare_exchange_strong(&g_early, &none, EARLY_TIMEOUT);
        return;
    }
    timed_out();
}

int hs_stop_timeout(const char *arg, double seconds, const char *in_name)
{
    struct sigaction sa, old;
    struct sigevent ev;
    struct itimerspec when;
    timer_t timer;

    assert(seconds > 0);
    snprintf(g_timeout_arg, sizeof g_timeout_arg, "%s", arg);
    snprintf(g_in_name, sizeof g_in_name, "%s", in_name);
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_alarm;
    sa.sa_flags = SA_SIGINFO;
    our_set(&sa.sa_mask);
    /* a SIGALRM ignored from the start stays ignored for kill(1); the
     * timer's own is still ours */
    if (sigaction(SIGALRM, &sa, &old) != 0)
        return -1;
    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_SIGNAL;
    ev.sigev_signo = SIGALRM;
    if (timer_create(CLOCK_MONOTONIC, &ev, &timer) != 0)
        return -1;
    memset(&when, 0, sizeof when);
    when.it_value.tv_sec = (time_t)seconds;
    when.it_value.tv_nsec = (long)((seconds - (double)(time_t)seconds) * 1e9);
    if (when.it_value.tv_sec == 0 && when.it_value.tv_nsec == 0)
        when.it_value.tv_nsec = 1;
    return timer_settime(timer, 0, &when, NULL);
}

void hs_stop_now(int sig)
{
    (void)hs_stop_write(sig, 128 + sig, 0, NULL);
    die_of(sig);
    _exit(128 + sig); /* not reached */
}

void hs_stop_catch(void)
{
    size_t i;
    sigset_t all;

    our_set(&all);
    for (i = 0; i < N_SIGS; i++) {
        struct sigaction sa, old;
        /* a signal ignored from the start (nohup) stays ignored */
        if (sigaction(g_sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_stop;
        sa.sa_mask = all; /* one stop at a time on a thread */
        sigaction(g_sigs[i], &sa, NULL);
    }
}

void hs_stop_ready(void)
{
    int sig;

    /* one that comes after the store is on_stop's; one before it, here */
    atomic_store(&g_ready, 1);
    if ((sig = atomic_load(&g_early)) == EARLY_TIMEOUT)
        timed_out();
    else if (sig != 0)
        hs_stop_now(sig);
}

void hs_stop_hold(void)
{
    sigset_t set, pending;
    size_t i;

    if (g_held++)
        return;
    our_set(&set);
    pthread_sigmask(SIG_BLOCK, &set, &g_old_mask);
    /* one that came already is taken now, with the report as it stands */
    if (sigpending(&pending) == 0)
        for (i = 0; i < N_SIGS; i++)
            if (sigismember(&pending, g_sigs[i]))
                pthread_sigmask(SIG_SETMASK, &g_old_mask, NULL); /* not survived */
}

void hs_stop_release(void)
{
    if (g_held && --g_held == 0)
        pthread_sigmask(SIG_SETMASK, &g_old_mask, NULL);
}

void hs_stop_finish(void)
{
    int expect = 0;

    assert(g_held);
    if (!atomic_compare_exchange_strong(&g_state, &expect, 2) && expect != 2)
        for (;;) /* a stop on another thread is ending the process */
            pause();
}

int hs_stop_stream(int fd, const char *doc, size_t len)
{
    sigset_t set;
    int e = 0;

    assert(g_held && atomic_load(&g_state) == 2);
    our_set(&set);
    g_stream_fd = fd;
    g_stream_len = len;
    atomic_store(&g_stream_off, 0);
    g_stream_doc = doc;
    while (atomic_load(&g_stream_off) < len) {
        size_t off = atomic_load(&g_stream_off);
        size_t n = len - off < PIPE_BUF ? len - off : PIPE_BUF;
        struct pollfd p;
        ssize_t k;

        /* the wait, open to signals; the write, not */
        p.fd = fd;
        p.events = POLLOUT;
        pthread_sigmask(SIG_SETMASK, &g_old_mask, NULL);
        (void)poll(&p, 1, -1);
        pthread_sigmask(SIG_BLOCK, &set, NULL);
        k = write(fd, doc + off, n);
        if (k < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (k <= 0) {
            e = k < 0 ? errno : EIO;
            break;
        }
        atomic_store(&g_stream_off, off + (size_t)k);
    }
    g_stream_doc = NULL;
    errno = e;
    return e ? -1 : 0;
}
