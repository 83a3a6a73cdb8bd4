/*
 * test_pager.c - the pager thread (src/pager.c): pages ahead of the filter
 * get mapped, pages behind it get given back, and the bytes never change.
 * What is mapped is read from /proc/self/smaps (the mapping's Rss).
 */
#define _DEFAULT_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

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

/* The resident KiB of the mapping at `map`, from /proc/self/smaps. */
static long resident_kib(void)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    char line[512];
    int in_map = 0;
    long kib = -1;

    cr_assert(f);
    while (fgets(line, sizeof line, f)) {
        unsigned long start;
        if (sscanf(line, "%lx-", &start) == 1 && strchr(line, '-') < strchr(line, ' '))
            in_map = start == (unsigned long)(uintptr_t)map;
        else if (in_map && sscanf(line, "Rss: %ld kB", &kib) == 1)
            break;
    }
    fclose(f);
    return kib;
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

static unsigned touch(size_t from, size_t to)
{
    unsigned sum = 0;
    for (; from < to; from += 4096)
        sum += map[from];
    return sum;
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

Test(pager, gives_back_what_the_filter_has_passed)
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
Test(pager, a_fast_filter_leaves_nothing_mapped_behind)
{
    hs_pager *p = hs_pager_start(map, FILE_SIZE, 4096, 0);
    long kib = 0;
    size_t at;
    int i;

    cr_assert(p);
    for (at = 0; at < FILE_SIZE; at += 256 * 1024) {
        touch(at, at + 256 * 1024);
        hs_pager_advance(p, at + 256 * 1024);
    }
    for (i = 0; i < 1000; i++) {
        kib = resident_kib();
        if (kib <= 1024)
            break;
        nap();
    }
    hs_pager_stop(p);
    cr_assert_leq(kib, 1024, "still mapped after the filter passed the end: %ld KiB", kib);
}
