/* SPDX-License-Identifier: Apache-2.0 */
/*
 * port.c - the command's Linux-only calls and their POSIX fallbacks (see
 * cli_port.h). On Linux, unless HS_PORT_FORCE_POSIX, the file is built
 * with _GNU_SOURCE; otherwise with _POSIX_C_SOURCE alone, so that a forced
 * build on Linux sees no more of the system than a BSD or macOS would give
 * it, and a call that slipped past the #if would not compile.
 *
 * What each fallback loses:
 * - run_as_batch: nothing is changed (nice(2) would lower the whole
 *   process's share, which SCHED_BATCH does not): a run's threads preempt
 *   each other as they wake.
 * - rename_noreplace: fails with ENOSYS, and io.c links then unlinks
 *   (link(2) fails on a name taken too): the same rule, but a crash
 *   between the two leaves the output under both names.
 * - memory_file: a file made by mkstemp in TMPDIR, or in /tmp where that
 *   fails (unset, missing, read-only), unlinked at once: the bytes go
 *   through a file system, which must have room for a report, and a kill
 *   between mkstemp and unlink leaves the file there.
 * - cores: every online core (sysconf), a cpuset or taskset unseen: -j and
 *   --threads default to more than may run at once.
 * - pipe_buffer: nothing; a pipe keeps the system's default buffer (64 KiB
 *   on Linux), so both ends switch more often.
 */
#if defined(__linux__) && !defined(HS_PORT_FORCE_POSIX)
#define _GNU_SOURCE /* SCHED_BATCH, renameat2, memfd_create, sched_getaffinity, F_SETPIPE_SZ */
#else
#define _POSIX_C_SOURCE 200809L
#endif
#include "cli_port.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h> /* memfd_create */
#include <unistd.h>

int hs_run_as_batch(void)
{
#if HS_PORT_LINUX && defined(SCHED_BATCH)
    struct sched_param sp;
    int policy;

    if (pthread_getschedparam(pthread_self(), &policy, &sp) != 0 || policy != SCHED_OTHER)
        return 0;
    return pthread_setschedparam(pthread_self(), SCHED_BATCH, &sp) == 0;
#else
    return 0;
#endif
}

int hs_port_rename_noreplace(const char *from, const char *to)
{
#if HS_PORT_LINUX && defined(RENAME_NOREPLACE)
    return renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE);
#else
    (void)from, (void)to;
    errno = ENOSYS;
    return -1;
#endif
}

int hs_port_memory_file(const char *name)
{
#if HS_PORT_LINUX && defined(MFD_CLOEXEC)
    return memfd_create(name, MFD_CLOEXEC);
#else
    const char *dirs[2] = {getenv("TMPDIR"), "/tmp"};
    char path[4096];
    int fd = -1, e, i;

    for (i = 0; i < 2 && fd < 0; i++)
        if (dirs[i] && *dirs[i] &&
            snprintf(path, sizeof path, "%s/%s.XXXXXX", dirs[i], name) < (int)sizeof path)
            fd = mkstemp(path);
    if (fd < 0)
        return -1;
    if (unlink(path) != 0 || fcntl(fd, F_SETFD, FD_CLOEXEC) != 0) {
        e = errno;
        (void)unlink(path);
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
#endif
}

int hs_port_cores(void)
{
    long n;
#if HS_PORT_LINUX
    cpu_set_t set;

    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
#endif
    n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

int hs_port_pipe_buffer(int fd, int bytes)
{
#if HS_PORT_LINUX && defined(F_SETPIPE_SZ)
    /* Linux's default limit for unprivileged processes is 1 MiB
     * (/proc/sys/fs/pipe-max-size); past it the pipe stays as it is */
    return fcntl(fd, F_SETPIPE_SZ, bytes) >= 0;
#else
    (void)fd, (void)bytes;
    return 0;
#endif
}
