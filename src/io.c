/*
 * io.c - the temporary-then-rename output file, and pipe buffers.
 */
#define _GNU_SOURCE /* F_SETPIPE_SZ */
#include "io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The temporary path the signal handler removes: a static copy, because a
 * handler may only touch what is already in place. */
static char g_signal_tmp[4096];

int hs_outfile_open(hs_outfile *o, const char *path, int force)
{
    struct stat st;
    size_t n = strlen(path);

    o->path = path;
    o->fd = -1;
    o->tmp = NULL;
    if (!force && stat(path, &st) == 0) {
        errno = EEXIST;
        return -1;
    }
    o->tmp = malloc(n + sizeof ".tmp-XXXXXX");
    if (!o->tmp)
        return -1;
    memcpy(o->tmp, path, n);
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
    /* mkstemp makes 0600; give the file the usual mode for new files */
    {
        mode_t mask = umask(0);
        umask(mask);
        fchmod(o->fd, 0666 & ~mask);
    }
    return 0;
}

int hs_outfile_commit(hs_outfile *o)
{
    int e;

    if (close(o->fd) != 0 || rename(o->tmp, o->path) != 0) {
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
    g_signal_tmp[0] = 0;
}

void hs_outfile_remove_on_signal(void)
{
    if (g_signal_tmp[0])
        unlink(g_signal_tmp);
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
