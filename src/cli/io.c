/* SPDX-License-Identifier: Apache-2.0 */
/*
 * io.c - the output file (temporary-then-rename for regular files, the
 * rename replacing nothing unless -f; written in place for devices and
 * FIFOs; which files may be written at all is files.c's rule), the standard
 * descriptors, signals, and pipe buffers.
 */
#define _POSIX_C_SOURCE 200809L
#include "io.h"
#include "cli_port.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The temporary paths a signal handler removes (the dump's and the
 * report's): static copies, because a handler may only touch what is
 * already in place. A slot is in use while its first byte is not 0. */
#define N_SLOTS 4
static char g_signal_tmp[N_SLOTS][4096];

static int take_slot(const char *tmp)
{
    size_t n = strlen(tmp) + 1;
    int i;

    for (i = 0; i < N_SLOTS; i++)
        if (!g_signal_tmp[i][0] && n <= sizeof g_signal_tmp[i]) {
            memcpy(g_signal_tmp[i], tmp, n);
            return i;
        }
    return -1;
}

static void free_slot(hs_outfile *o)
{
    if (o->slot >= 0)
        g_signal_tmp[o->slot][0] = 0;
    o->slot = -1;
}

static int open_temporary(hs_outfile *o, int perm)
{
    size_t n = strlen(o->target);
    sigset_t all, old;
    int e;

    o->tmp = malloc(n + sizeof ".tmp-XXXXXX");
    if (!o->tmp)
        return -1;
    memcpy(o->tmp, o->target, n);
    memcpy(o->tmp + n, ".tmp-XXXXXX", sizeof ".tmp-XXXXXX");
    /* the file and its slot as one step for a signal: one that came
     * between the two found a temporary file it did not know of, and left
     * it (a test that signals as soon as the file appears hit that on a
     * busy machine) */
    sigfillset(&all);
    sigdelset(&all, SIGBUS); /* (what the process's own faults raise) */
    sigdelset(&all, SIGSEGV);
    sigdelset(&all, SIGFPE);
    sigdelset(&all, SIGILL);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    o->fd = mkstemp(o->tmp);
    e = errno;
    if (o->fd >= 0)
        o->slot = take_slot(o->tmp);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (o->fd < 0) {
        free(o->tmp);
        o->tmp = NULL;
        errno = e;
        return -1;
    }
    /* mkstemp makes 0600: the file gets the bits chosen for it before
     * anything is in it */
    fchmod(o->fd, (mode_t)perm);
    return 0;
}

/* The permission bits of a regular output: what a new file gets (0666
 * less the umask, as cp gives a copy), never wider than the input's, nor
 * than the file it replaces. A dump is data: never executable, never
 * set-id, whatever the input's bits say. */
static int output_mode(int input_mode, int old_mode)
{
    mode_t mask = umask(0);
    int perm;

    umask(mask);
    perm = 0666 & ~(int)mask;
    if (input_mode >= 0)
        perm &= input_mode;
    if (old_mode >= 0)
        perm &= old_mode;
    return perm;
}

static int outfile_open(hs_outfile *o, const char *path, int how, int mode)
{
    hs_claim c;
    int r;

    memset(o, 0, sizeof *o);
    o->path = path;
    o->fd = -1;
    o->slot = -1;
    /* the one rule on what may be written (files.h) */
    if ((r = hs_files_claim(path, how, &c)) != 0) {
        o->refused = r > 0;
        if (r > 0)
            errno = EEXIST;
        return -1;
    }
    o->target = c.target;
    if (c.in_place) { /* no O_CREAT, no O_TRUNC: written into, never replaced */
        o->fd = open(o->target, O_WRONLY | O_NOCTTY | O_CLOEXEC);
        return o->fd < 0 ? -1 : 0;
    }
    o->may_replace = c.may_replace;
    return open_temporary(o, output_mode(mode, c.old_mode));
}

int hs_private_mode(const char *in_path)
{
    struct stat st;

    if (in_path && stat(in_path, &st) == 0 && S_ISREG(st.st_mode))
        return HS_PRIVATE_MODE & (int)(st.st_mode & 07777);
    return HS_PRIVATE_MODE;
}

int hs_outfile_open(hs_outfile *o, const char *path, int how, int mode)
{
    int e;

    if (outfile_open(o, path, how, mode) == 0)
        return 0;
    e = errno;
    free(o->target);
    o->target = NULL;
    errno = e;
    return -1;
}

/* Gives the complete temporary file its final name. Without leave to
 * replace, a file that appeared there while the run went on stays: the
 * rename is one that replaces nothing (cli_port.h: renameat2's), or,
 * on a file system without it (EINVAL: some network and FUSE ones; ENOSYS:
 * a kernel before 3.15), a hard link, which fails on a name taken too. On
 * a file system with neither (no hard links: FAT, some FUSE), a last look
 * that the name is free, then rename: there, a file made in the
 * microseconds between the two is replaced. */
static int put_in_place(hs_outfile *o)
{
    struct stat st;

    if (o->may_replace) {
        /* -f: but never over a file the run reads, nor over what is not
         * a regular file, though either came there while the run went on */
        if (hs_files_must_keep(o->target)) {
            errno = EEXIST;
            return -1;
        }
        return rename(o->tmp, o->target);
    }
    if (hs_port_rename_noreplace(o->tmp, o->target) == 0)
        return 0;
    if (errno != EINVAL && errno != ENOSYS)
        return -1;
    if (link(o->tmp, o->target) == 0) {
        unlink(o->tmp); /* the output has its name: a failure here leaves a second one */
        return 0;
    }
    if (errno != EPERM && errno != ENOTSUP && errno != EOPNOTSUPP && errno != ENOSYS &&
        errno != EMLINK)
        return -1;
    if (lstat(o->target, &st) == 0) {
        errno = EEXIST;
        return -1;
    }
    return rename(o->tmp, o->target);
}

int hs_outfile_commit(hs_outfile *o)
{
    int e;

    if (close(o->fd) != 0 || (o->tmp && put_in_place(o) != 0)) {
        e = errno;
        o->fd = -1;
        hs_outfile_abort(o);
        errno = e;
        return -1;
    }
    o->fd = -1;
    free_slot(o);
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
    free_slot(o);
}

void hs_outfile_disown(hs_outfile *o)
{
    if (o->fd >= 0)
        close(o->fd);
    o->fd = -1;
    free_slot(o);
}

void hs_outfile_remove_on_signal(void)
{
    int i;

    for (i = 0; i < N_SLOTS; i++)
        if (g_signal_tmp[i][0])
            unlink(g_signal_tmp[i]);
}

/* Only what is async-signal-safe: put_in_place's lstat, rename, link and
 * unlink (and hs_files_must_keep's lstat over a table made before the run);
 * no free, no close (the descriptor dies with the process). */
int hs_outfile_commit_on_signal(hs_outfile *o)
{
    int e = errno, r = 0;

    if (o->fd >= 0 && o->tmp && o->slot >= 0) {
        r = put_in_place(o);
        if (r != 0)
            unlink(o->tmp);
        g_signal_tmp[o->slot][0] = 0;
    }
    errno = e;
    return r;
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
    return hs_port_pipe_buffer(fd, 1 << 20);
}
