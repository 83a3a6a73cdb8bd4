/* SPDX-License-Identifier: Apache-2.0 */
/*
 * port.c - the library's Linux-only calls and their POSIX fallbacks (see
 * hs_port.h). On Linux, unless HS_PORT_FORCE_POSIX, the file is built with
 * _GNU_SOURCE; otherwise with _POSIX_C_SOURCE alone, so that a forced build
 * on Linux sees no more of the system than a BSD or macOS would give it,
 * and a call that slipped past the #if would not compile.
 *
 * What each fallback loses:
 * - advise_sequential: posix_madvise(POSIX_MADV_SEQUENTIAL), the same hint.
 * - drop_pages: posix_madvise(POSIX_MADV_DONTNEED), a hint the system may
 *   ignore (glibc does: Linux's own MADV_DONTNEED destroys data, which
 *   POSIX's must not): a mapped input's pages then stay resident until it
 *   is unmapped, so the resident set grows with what was read, though the
 *   kernel may reclaim them (clean file pages) under pressure.
 * - populate_write: nothing; pages fault one at a time as first written.
 * - thread_rusage: RUSAGE_SELF, the process's time: a job's report counts
 *   its helper threads and the jobs run beside it in the same process (the
 *   contract hs_report_set_times states).
 * - cheap_clock: CLOCK_MONOTONIC, a little dearer to read than Linux's
 *   CLOCK_MONOTONIC_COARSE.
 * Every other call of the library is POSIX (mmap, pthreads, sysconf).
 */
#if defined(__linux__) && !defined(HS_PORT_FORCE_POSIX)
#define _GNU_SOURCE /* MADV_POPULATE_WRITE, RUSAGE_THREAD */
#else
#define _POSIX_C_SOURCE 200809L
#endif
#include "hs_port.h"

#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

void hs_port_advise_sequential(void *map, size_t len)
{
#if HS_PORT_LINUX
    (void)madvise(map, len, MADV_SEQUENTIAL);
#else
    (void)posix_madvise(map, len, POSIX_MADV_SEQUENTIAL);
#endif
}

void hs_port_drop_pages(void *map, size_t len)
{
#if HS_PORT_LINUX
    (void)madvise(map, len, MADV_DONTNEED);
#else
    (void)posix_madvise(map, len, POSIX_MADV_DONTNEED);
#endif
}

size_t hs_port_page_size(void)
{
    /* a read of a value the C library holds (glibc, the BSDs): cheap
     * enough to ask each time, and nothing to keep in step between threads */
    long ps = sysconf(_SC_PAGESIZE);

    return ps > 0 ? (size_t)ps : 4096;
}

void hs_port_populate_write(void *p, size_t n)
{
#if HS_PORT_LINUX && defined(MADV_POPULATE_WRITE)
    uintptr_t page = hs_port_page_size(), lo = (uintptr_t)p, hi = lo + n;

    lo = (lo + page - 1) & ~(page - 1);
    hi &= ~(page - 1);
    if (hi > lo)
        (void)madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
#else
    (void)p, (void)n;
#endif
}

int hs_port_thread_rusage(struct rusage *ru)
{
#if HS_PORT_LINUX && defined(RUSAGE_THREAD)
    return getrusage(RUSAGE_THREAD, ru);
#else
    return getrusage(RUSAGE_SELF, ru);
#endif
}

void hs_port_cheap_clock(struct timespec *now)
{
#if HS_PORT_LINUX && defined(CLOCK_MONOTONIC_COARSE)
    clock_gettime(CLOCK_MONOTONIC_COARSE, now);
#else
    clock_gettime(CLOCK_MONOTONIC, now);
#endif
}
