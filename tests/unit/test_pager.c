/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_pager.c - the pager thread (src/lib/pager.c): pages ahead of the filter
 * get mapped, pages behind it get given back, and the bytes never change.
 * What is mapped is read from /proc/self/smaps (the mapping's Rss).
 */
#define _DEFAULT_SOURCE
#include <criterion/criterion.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"
#include "hs_port.h"
#include "pager.h"

#define MIB (1u << 20)
#define FILE_SIZE (48 * MIB)

static uint8_t *map;
static int fd = -1;

static void make_file(void)
{
    char path[] = "/tmp/hs-pager-XXXXXX";
    uint8_t *chunk = malloc(MIB);
    size_t i, k;

    cr_assert(chunk);
    fd = mkstemp(path);
    cr_assert(fd >= 0);
    unlink(path);
    for (k = 0; k < FILE_SIZE / MIB; k++) {
        for (i = 0; i < MIB; i++)
            chunk[i] = (uint8_t)(k * 31 + i * 7);
        cr_assert_eq(write(fd, chunk, MIB), (ssize_t)MIB);
    }
    free(chunk);
    map = mmap(NULL, FILE_SIZE, PROT_READ, MAP_PRIVATE, fd, 0);
    cr_assert(map != MAP_FAILED);
}

static void drop_file(void)
{
    munmap(map, FILE_SIZE);
    close(fd);
}

/* The resident KiB of the mapping at `map` (helpers.c). */
static long resident_kib(void)
{
    long kib = mapping_resident_kib(map);

    cr_assert_geq(kib, 0, "the mapping is not in /proc/self/smaps");
    return kib;
}

/* How many pages of map[from..to) this process has mapped, from
 * /proc/self/pagemap (bit 63 of each page's entry: present); the test is
 * skipped where the kernel does not offer it. */
static size_t present_pages(size_t from, size_t to)
{
    int pm = open("/proc/self/pagemap", O_RDONLY);
    size_t n = 0, at;

    if (pm < 0)
        cr_skip_test("no /proc/self/pagemap to see which pages are mapped");
    for (at = from; at < to; at += 4096) {
        uint64_t e = 0;
        off_t off = (off_t)(((uintptr_t)map + at) / 4096 * sizeof e);
        cr_assert_eq(pread(pm, &e, sizeof e, off), (ssize_t)sizeof e);
        n += e >> 63;
    }
    close(pm);
    return n;
}

static void nap(void)
{
    struct timespec ts = {0, 2 * 1000 * 1000};
    nanosleep(&ts, NULL);
}

/* Waits up to two seconds for the mapping's resident size to reach
 * `min_kib`; returns the last size seen. */
static long wait_resident(long min_kib)
{
    long kib = resident_kib();
    int i;

    for (i = 0; i < 1000 && kib < min_kib; i++) {
        nap();
        kib = resident_kib();
    }
    return kib;
}

/* Waits up to two seconds for the mapping's resident size to fall to
 * `max_kib`; returns the last size seen. */
static long wait_resident_down(long max_kib)
{
    long kib = resident_kib();
    int i;

    for (i = 0; i < 1000 && kib > max_kib; i++) {
        nap();
        kib = resident_kib();
    }
    return kib;
}

/* Reads a byte of each page, as the filter would (volatile: a read whose
 * value is unused would be optimised away, and map nothing). */
static void touch(size_t from, size_t to)
{
    for (; from < to; from += 4096)
        (void)*(volatile const uint8_t *)(map + from);
}

TestSuite(pager, .init = make_file, .fini = drop_file);

Test(pager, maps_pages_ahead_of_the_filter)
{
    hs_pager *p;
    long before = resident_kib(), after;

    cr_assert_lt(before, 1024, "nothing is mapped before the pager starts (%ld KiB)", before);
    p = hs_pager_start(map, FILE_SIZE, 4096, 0);
    cr_assert(p);
    hs_pager_advance(p, MIB);
    after = wait_resident(1536);
    hs_pager_stop(p);
    cr_assert_geq(after, 1536, "pages ahead mapped by the pager: %ld KiB", after);
    cr_assert_leq(after, 16 * 1024, "no more than its reach ahead: %ld KiB", after);
}

/* the POSIX fallback gives no page back (hs_port.h) */
Test(pager, gives_back_what_the_filter_has_passed, .disabled = !HS_PORT_LINUX)
{
    hs_pager *p = hs_pager_start(map, FILE_SIZE, 4096, 0);
    long peak = 0, kib;
    size_t at;

    cr_assert(p);
    /* walk the whole file as the filter would, reading every page */
    for (at = 0; at < FILE_SIZE; at += MIB) {
        touch(at, at + MIB);
        hs_pager_advance(p, at + MIB);
        nap();
        kib = resident_kib();
        if (kib > peak)
            peak = kib;
    }
    hs_pager_stop(p);
    /* without giving back, all 48 MiB would stay mapped */
    cr_assert_lt(peak, 24 * 1024, "peak resident %ld KiB of a 48 MiB walk", peak);
    cr_assert_lt(resident_kib(), 16 * 1024, "resident at the end");
}

Test(pager, never_changes_the_bytes)
{
    hs_pager *p = hs_pager_start(map, FILE_SIZE, 4096, 0);
    size_t at, i;

    cr_assert(p);
    for (at = 0; at < FILE_SIZE; at += MIB) {
        for (i = 0; i < MIB; i += 4093)
            cr_assert_eq(map[at + i], (uint8_t)((at / MIB) * 31 + i * 7));
        hs_pager_advance(p, at + MIB);
    }
    hs_pager_stop(p);
}

Test(pager, starts_where_the_pages_were_already_given_back)
{
    hs_pager *p = hs_pager_start(map, FILE_SIZE, 4096, 40 * MIB);

    cr_assert(p);
    hs_pager_advance(p, 20 * MIB); /* backwards: ignored */
    hs_pager_advance(p, 41 * MIB);
    cr_assert_geq(wait_resident(1536), 1536);
    hs_pager_stop(p);
    hs_pager_stop(NULL);
}

/* A filter much faster than the thread (bulk copies run at memory speed):
 * pages the thread maps must never end up behind what was given back,
 * where nothing would give them back again. */
/* the POSIX fallback gives no page back (hs_port.h) */
Test(pager, a_fast_filter_leaves_nothing_mapped_behind, .disabled = !HS_PORT_LINUX)
{
    hs_pager *p = hs_pager_start(map, FILE_SIZE, 4096, 0);
    long kib;
    size_t at;

    cr_assert(p);
    for (at = 0; at < FILE_SIZE; at += 256 * 1024) {
        touch(at, at + 256 * 1024);
        hs_pager_advance(p, at + 256 * 1024);
    }
    kib = wait_resident_down(0);
    hs_pager_stop(p);
    cr_assert_leq(kib, 0, "still mapped after a fast filter passed the end: %ld KiB", kib);
}

/* A fault maps the whole page-cache folio of its page: on ext4 a file
 * written in 1 MiB pieces has 1 MiB folios, and reading one byte maps all
 * of one. A filter that skips a payload without reading it leaves the
 * thread to map from the middle of a folio whose first part is behind what
 * was given back; that part must go too, or it stays mapped for good (CI
 * saw 1.5 MiB left over in the test above). Where the file system keeps
 * small folios (tmpfs) this passes either way. */
/* the POSIX fallback gives no page back (hs_port.h) */
Test(pager, a_folio_mapped_from_its_middle_goes_back_whole, .disabled = !HS_PORT_LINUX)
{
    hs_pager *p = hs_pager_start(map, FILE_SIZE, 4096, 0);
    long kib;

    cr_assert(p);
    hs_pager_advance(p, MIB + 3 * MIB / 4); /* skipped over, never read */
    cr_assert_geq(wait_resident(1536), 1536, "the thread maps ahead");
    hs_pager_advance(p, FILE_SIZE);
    kib = wait_resident_down(0);
    hs_pager_stop(p);
    cr_assert_lt(kib, 256, "still mapped after the filter passed the end: %ld KiB", kib);
}

/* A pager thread that stops for a while in the middle of its first two
 * steps (the machine is busy and preempts it there). */
struct held {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int entered, released;
};

static void hold_two_steps(void *arg)
{
    struct held *h = arg;
    int step;

    pthread_mutex_lock(&h->mu);
    step = ++h->entered;
    pthread_cond_broadcast(&h->cv);
    while (step <= 2 && h->released < step)
        pthread_cond_wait(&h->cv, &h->mu);
    pthread_mutex_unlock(&h->mu);
}

/* Waits for the thread to be held in its `step`th step. */
static void wait_held(struct held *h, int step)
{
    pthread_mutex_lock(&h->mu);
    while (h->entered < step)
        pthread_cond_wait(&h->cv, &h->mu);
    pthread_mutex_unlock(&h->mu);
}

static void release(struct held *h)
{
    pthread_mutex_lock(&h->mu);
    h->released++;
    pthread_cond_broadcast(&h->cv);
    pthread_mutex_unlock(&h->mu);
}

/* Reads on as the filter would up to `to`, giving its position to the
 * pager every 256 KiB; returns the mapping's peak resident KiB. */
static long read_on(hs_pager *p, size_t from, size_t to)
{
    long peak = 0, kib;

    while (from < to) {
        size_t next = from + 256 * 1024 < to ? from + 256 * 1024 : to;
        touch(from, next);
        hs_pager_advance(p, next);
        kib = resident_kib();
        if (kib > peak)
            peak = kib;
        from = next;
    }
    return peak;
}

/* The filter goes on while the thread is held in a step: it gives back
 * what it has passed itself, past the held step, and the pages the thread
 * maps of that step once it goes on end up given back too. The second held
 * step starts mid-page, where the filter left off. */
/* the POSIX fallback gives no page back (hs_port.h) */
Test(pager, a_held_thread_does_not_pin_memory, .disabled = !HS_PORT_LINUX)
{
    struct held h = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0};
    hs_pager *p = hs_pager_start_held(map, FILE_SIZE, 4096, 0, hold_two_steps, &h);
    long peak1, peak2;

    cr_assert(p);
    wait_held(&h, 1); /* mapping from 0 */
    peak1 = read_on(p, 0, 20 * MIB + 100);
    release(&h);
    wait_held(&h, 2); /* mapping from where the filter is */
    peak2 = read_on(p, 20 * MIB + 100, 40 * MIB);
    release(&h);
    /* without giving back past the held step, all 20 MiB stay mapped */
    cr_assert_lt(peak1, 10 * 1024, "peak resident %ld KiB in the first held step", peak1);
    cr_assert_lt(peak2, 10 * 1024, "peak resident %ld KiB in the second held step", peak2);
    read_on(p, 40 * MIB, FILE_SIZE);
    hs_pager_stop(p);
    cr_assert_eq(present_pages(0, 40 * MIB), 0,
                 "pages the held steps mapped behind the filter stay mapped");
}
