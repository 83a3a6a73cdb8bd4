/* SPDX-License-Identifier: Apache-2.0 */
/*
 * io.c - the output file (temporary-then-rename for regular files, written
 * in place for devices and FIFOs), the standard descriptors, signals, and
 * pipe buffers.
 */
#define _GNU_SOURCE /* F_SETPIPE_SZ */
#include "io.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The temporary path the signal handler removes: a static copy, because a
 * handler may only touch what is already in place. */
static char g_signal_tmp[4096];

/* `path` with symbolic links followed, as far as they lead (a dangling
 * link ends at the name it points to, which the output then creates).
 * malloc'd; NULL with errno set. */
static char *follow_links(const char *path)
{
    char *p = strdup(path);
    int hops;

    for (hops = 0; p && hops < 40; hops++) {
        struct stat st;
        char link[4096], *next, *slash;
        ssize_t n;

        if (lstat(p, &st) != 0 || !S_ISLNK(st.st_mode))
            return p;
        n = readlink(p, link, sizeof link - 1);
        if (n < 0) {
            free(p);
            return NULL;
        }
        link[n] = 0;
        slash = strrchr(p, '/');
        /* a relative target is relative to the link's directory */
        if (link[0] == '/' || !slash) {
            next = strdup(link);
        } else {
            next = malloc((size_t)(slash - p) + 1 + (size_t)n + 1);
            if (next)
                sprintf(next, "%.*s/%s", (int)(slash - p), p, link);
        }
        free(p);
        p = next;
    }
    if (p) {
        free(p);
        errno = ELOOP;
    }
    return NULL;
}

/* Opens what is not a regular file straight: no O_CREAT, no O_TRUNC, so a
 * FIFO or a device is written into, never replaced. */
static int open_in_place(hs_outfile *o, const struct stat *st, int force)
{
    if (S_ISDIR(st->st_mode)) {
        errno = EISDIR;
        return -1;
    }
    /* writing into a character device (/dev/null, a terminal) or a FIFO
     * destroys nothing; writing over a block device (a disk) is said with -f */
    if (!force && S_ISBLK(st->st_mode)) {
        errno = EEXIST;
        return -1;
    }
    o->fd = open(o->target, O_WRONLY | O_NOCTTY | O_CLOEXEC);
    return o->fd < 0 ? -1 : 0;
}

static int open_temporary(hs_outfile *o, int perm)
{
    size_t n = strlen(o->target);

    o->tmp = malloc(n + sizeof ".tmp-XXXXXX");
    if (!o->tmp)
        return -1;
    memcpy(o->tmp, o->target, n);
    memcpy(o->tmp + n, ".tmp-XXXXXX", sizeof ".tmp-XXXXXX");
    o->fd = mkstemp(o->tmp);
    if (o->fd < 0) {
        int e = errno;
        free(o->tmp);
        o->tmp = NULL;
        errno = e;
        return -1;
    }
    if (n + sizeof ".tmp-XXXXXX" <= sizeof g_signal_tmp)
        memcpy(g_signal_tmp, o->tmp, n + sizeof ".tmp-XXXXXX");
    /* mkstemp makes 0600: the file gets the bits chosen for it before
     * anything is in it */
    fchmod(o->fd, (mode_t)perm);
    return 0;
}

static int outfile_open(hs_outfile *o, const char *path, int force, int mode)
{
    struct stat st;
    int perm;

    o->path = path;
    o->fd = -1;
    o->tmp = NULL;
    o->target = NULL;
    /* what is not a regular file is opened by the name given: the kernel
     * follows links there, /proc's magic ones (/dev/stdout) included */
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        o->target = strdup(path);
        return o->target ? open_in_place(o, &st, force) : -1;
    }
    if (!(o->target = follow_links(path)))
        return -1;
    if (stat(o->target, &st) == 0) {
        if (!S_ISREG(st.st_mode))
            return open_in_place(o, &st, force);
        if (!force) {
            errno = EEXIST;
            return -1;
        }
        /* never wider than the input, or than the file replaced */
        perm = mode >= 0 ? mode : (int)(st.st_mode & 0777);
    } else if (errno != ENOENT) {
        return -1;
    } else if (!force && lstat(path, &st) == 0) {
        errno = EEXIST; /* a dangling link is still a name in the way */
        return -1;
    } else {
        mode_t mask = umask(0);
        umask(mask);
        perm = mode >= 0 ? mode : (int)(0666 & ~mask);
    }
    return open_temporary(o, perm);
}

int hs_outfile_open(hs_outfile *o, const char *path, int force, int mode)
{
    int e;

    if (outfile_open(o, path, force, mode) == 0)
        return 0;
    e = errno;
    free(o->target);
    o->target = NULL;
    errno = e;
    return -1;
}

int hs_outfile_commit(hs_outfile *o)
{
    int e;

    if (close(o->fd) != 0 || (o->tmp && rename(o->tmp, o->target) != 0)) {
        e = errno;
        o->fd = -1;
        hs_outfile_abort(o);
        errno = e;
        return -1;
    }
    o->fd = -1;
    g_signal_tmp[0] = 0;
    free(o->tmp);
    o->tmp = NULL;
    free(o->target);
    o->target = NULL;
    return 0;
}

void hs_outfile_abort(hs_outfile *o)
{
    if (o->fd >= 0)
        close(o->fd);
    o->fd = -1;
    if (o->tmp) {
        unlink(o->tmp);
        free(o->tmp);
        o->tmp = NULL;
    }
    free(o->target);
    o->target = NULL;
    g_signal_tmp[0] = 0;
}

void hs_outfile_remove_on_signal(void)
{
    if (g_signal_tmp[0])
        unlink(g_signal_tmp);
}

static void on_signal(int sig)
{
    hs_outfile_remove_on_signal();
    signal(sig, SIG_DFL);
    raise(sig); /* delivered when the handler returns: the same death */
}

void hs_outfile_catch_signals(void)
{
    /* every signal sent from outside whose default ends the process,
     * except SIGPIPE and SIGXFSZ: those are ignored, so the write fails with
     * EPIPE or EFBIG and the error path reports it and removes the file.
     * Faults (SIGSEGV, SIGABRT...) are left alone for sanitizers and core
     * dumps; SIGBUS is run.c's (a mapped input that shrank). */
    static const int sigs[] = {SIGHUP, SIGINT, SIGQUIT, SIGALRM, SIGTERM, SIGUSR1,
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
    size_t i;

    for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction sa, old;
        /* a signal ignored from the start (nohup) stays ignored */
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(sigs[i], &sa, NULL);
    }
}

void hs_fill_std_fds(void)
{
    int fd;

    for (fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
            continue;
        /* open returns the lowest free number: this one */
        if (open("/dev/null", fd == 1 ? O_RDONLY : O_RDWR) != fd)
            _exit(4);
    }
}

int hs_widen_pipe(int fd)
{
    struct stat st;

    if (fstat(fd, &st) != 0 || !S_ISFIFO(st.st_mode))
        return 0;
#ifdef F_SETPIPE_SZ
    /* 1 MiB is Linux's default limit for unprivileged processes
     * (/proc/sys/fs/pipe-max-size); if it is lower, the pipe stays as it is */
    return fcntl(fd, F_SETPIPE_SZ, 1 << 20) >= 0;
#else
    return 0;
#endif
}
