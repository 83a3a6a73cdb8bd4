/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_port.c - the Linux-only calls of src/lib/port.c and src/cli/port.c
 * and their POSIX fallbacks. The suite is built twice (make, and make
 * HS_PORT_POSIX=1 for make test-posix): each test checks what the calls
 * do in the build it is in (HS_PORT_LINUX), watched from outside through
 * Linux's own means (mincore, /proc, F_GETPIPE_SZ), which this file, a
 * test that runs on Linux only, may use in both builds.
 */
#define _GNU_SOURCE /* mincore, MAP_ANONYMOUS, F_GETPIPE_SZ: the observers */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli_port.h"
#include "hs_port.h"

static char g_dir[] = "/tmp/hs-port.XXXXXX";

static void make_dir(void)
{
    cr_assert_not_null(mkdtemp(g_dir));
}

static void remove_dir(void)
{
    char cmd[64];

    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    cr_expect_eq(system(cmd), 0);
}

static void write_file(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");

    cr_assert_not_null(fp, "%s: %s", path, strerror(errno));
    fputs(text, fp);
    cr_assert_eq(fclose(fp), 0);
}

static void expect_file(const char *path, const char *text)
{
    char buf[64] = {0};
    FILE *fp = fopen(path, "r");

    cr_assert_not_null(fp, "%s: %s", path, strerror(errno));
    cr_expect_gt(fread(buf, 1, sizeof buf - 1, fp), 0);
    fclose(fp);
    cr_expect_str_eq(buf, text, "%s", path);
}

/* ---- the command's calls ------------------------------------------------ */

TestSuite(port, .init = make_dir, .fini = remove_dir);

Test(port, rename_noreplace_replaces_nothing_or_says_it_cannot)
{
    char from[64], to[64];

    snprintf(from, sizeof from, "%s/from", g_dir);
    snprintf(to, sizeof to, "%s/to", g_dir);
    write_file(from, "new");
    write_file(to, "old");
    errno = 0;
    cr_expect_eq(hs_port_rename_noreplace(from, to), -1);
    /* io.c links for ENOSYS and EINVAL: the fallback must say one of them */
    cr_expect_eq(errno, HS_PORT_LINUX ? EEXIST : ENOSYS, "errno %d", errno);
    expect_file(to, "old");
    expect_file(from, "new");
    cr_assert_eq(unlink(to), 0);
    if (HS_PORT_LINUX) {
        cr_expect_eq(hs_port_rename_noreplace(from, to), 0);
        expect_file(to, "new");
        cr_expect_eq(access(from, F_OK), -1);
    } else {
        cr_expect_eq(hs_port_rename_noreplace(from, to), -1);
        cr_expect_eq(errno, ENOSYS);
        cr_expect_eq(access(to, F_OK), -1, "the fallback moved a file");
    }
}

/* A memory file holds what is written, has no name, and is closed on exec;
 * the fallback's goes through TMPDIR and leaves nothing there. */
Test(port, memory_file_is_a_nameless_file)
{
    char buf[8] = {0}, link[256] = {0}, proc[64];
    struct stat st;
    const char *was = getenv("TMPDIR");
    char *saved = was ? strdup(was) : NULL;
    int fd;

    setenv("TMPDIR", g_dir, 1);
    fd = hs_port_memory_file("hs-test");
    saved ? setenv("TMPDIR", saved, 1) : unsetenv("TMPDIR");
    free(saved);
    cr_assert_geq(fd, 0, "%s", strerror(errno));
    cr_expect_eq(write(fd, "report", 6), 6);
    cr_expect_eq(pread(fd, buf, 6, 0), 6);
    cr_expect_str_eq(buf, "report");
    cr_expect_eq(fstat(fd, &st), 0);
    cr_expect_eq(st.st_nlink, 0, "a memory file with a name");
    cr_expect(fcntl(fd, F_GETFD) & FD_CLOEXEC, "exec would pass it on");
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    cr_expect_gt(readlink(proc, link, sizeof link - 1), 0);
    if (HS_PORT_LINUX)
        cr_expect_eq(strncmp(link, "/memfd:hs-test", 14), 0, "%s", link);
    else
        cr_expect_eq(strncmp(link, g_dir, strlen(g_dir)), 0, "%s not in TMPDIR", link);
    close(fd);
    cr_expect_eq(rmdir(g_dir), 0, "a file was left in TMPDIR");
    cr_assert_eq(mkdir(g_dir, 0700), 0);
}

/* A TMPDIR that is missing: Linux's needs none, the fallback's is made in
 * /tmp (tests/cli/cli_many_stops.sh runs many files so). */
Test(port, memory_file_without_tmpdir)
{
    const char *was = getenv("TMPDIR");
    char *saved = was ? strdup(was) : NULL, missing[80], link[256] = {0}, proc[64];
    int fd;

    snprintf(missing, sizeof missing, "%s/missing", g_dir);
    setenv("TMPDIR", missing, 1);
    fd = hs_port_memory_file("hs-test");
    saved ? setenv("TMPDIR", saved, 1) : unsetenv("TMPDIR");
    free(saved);
    cr_assert_geq(fd, 0, "%s", strerror(errno));
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    cr_expect_gt(readlink(proc, link, sizeof link - 1), 0);
    cr_expect_eq(strncmp(link, HS_PORT_LINUX ? "/memfd:" : "/tmp/hs-test.", HS_PORT_LINUX ? 7 : 13),
                 0, "%s", link);
    close(fd);
}

Test(port, cores_are_counted)
{
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    cpu_set_t set;

    cr_expect_geq(hs_port_cores(), 1);
    cr_expect_leq(hs_port_cores(), online);
    cr_assert_eq(sched_getaffinity(0, sizeof set, &set), 0);
    /* the fallback does not see a narrower affinity */
    cr_expect_eq(hs_port_cores(), HS_PORT_LINUX ? CPU_COUNT(&set) : online);
}

Test(port, pipe_buffer_is_widened_on_linux_only)
{
    int p[2], before;

    cr_assert_eq(pipe(p), 0);
    before = fcntl(p[1], F_GETPIPE_SZ);
    cr_expect_eq(hs_port_pipe_buffer(p[1], 1 << 18), HS_PORT_LINUX);
    cr_expect_eq(fcntl(p[1], F_GETPIPE_SZ), HS_PORT_LINUX ? 1 << 18 : before);
    close(p[0]);
    close(p[1]);
}

static void *batch_in_thread(void *out)
{
    struct sched_param sp;
    int *r = out;

    r[0] = hs_run_as_batch();
    cr_assert_eq(pthread_getschedparam(pthread_self(), &r[1], &sp), 0);
    return NULL;
}

/* test_batch.c checks the Linux call in full; here, that the fallback
 * changes nothing */
Test(port, run_as_batch_changes_nothing_in_the_fallback)
{
    pthread_t t;
    int r[2] = {-1, -1};

    cr_assert_eq(pthread_create(&t, NULL, batch_in_thread, r), 0);
    pthread_join(t, NULL);
    cr_expect_eq(r[0], HS_PORT_LINUX);
    cr_expect_eq(r[1], HS_PORT_LINUX ? SCHED_BATCH : SCHED_OTHER);
}

/* ---- the library's calls ------------------------------------------------ */

Test(port, page_size_is_the_systems)
{
    cr_expect_eq(hs_port_page_size(), (size_t)sysconf(_SC_PAGESIZE));
}

/* A private mapping of a file, its first page written: dropped, Linux's
 * page reads the file again; the fallback's hint destroys nothing. Both
 * are what hs_input_writable (input.h) allows for. */
Test(port, dropped_pages_forget_private_writes_on_linux_only)
{
    size_t page = hs_port_page_size();
    char path[64];
    uint8_t *map;
    int fd;

    snprintf(path, sizeof path, "%s/mapped", g_dir);
    fd = open(path, O_RDWR | O_CREAT, 0600);
    cr_assert_geq(fd, 0);
    cr_assert_eq(ftruncate(fd, (off_t)(4 * page)), 0);
    map = mmap(NULL, 4 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    cr_assert_neq(map, MAP_FAILED);
    hs_port_advise_sequential(map, 4 * page);
    map[0] = 7;
    map[page] = 9;
    hs_port_drop_pages(map, page);
    cr_expect_eq(map[0], HS_PORT_LINUX ? 0 : 7);
    cr_expect_eq(map[page], 9, "a page past the range was dropped");
    munmap(map, 4 * page);
    close(fd);
}

/* How many of the n pages at map are resident. */
static size_t resident(const uint8_t *map, size_t n, size_t page)
{
    unsigned char vec[64];
    size_t i, k = 0;

    cr_assert_leq(n, sizeof vec);
    cr_assert_eq(mincore((void *)(uintptr_t)map, n * page, vec), 0);
    for (i = 0; i < n; i++)
        k += vec[i] & 1;
    return k;
}

/* Only the whole pages inside the range are faulted in, where the system
 * can (Linux 5.14 and later); the fallback faults in none. */
Test(port, populate_faults_in_whole_pages_only)
{
    size_t page = hs_port_page_size(), got;
    uint8_t *map = mmap(NULL, 16 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                        -1, 0);

    cr_assert_neq(map, MAP_FAILED);
    cr_assert_eq(resident(map, 16, page), 0);
    hs_port_populate_write(map + 1, 10 * page); /* pages 1 to 9 are whole */
    got = resident(map, 16, page);
    if (HS_PORT_LINUX)
        cr_expect(got == 9 || got == 0, "%zu pages (0 on a kernel before 5.14)", got);
    else
        cr_expect_eq(got, 0);
    if (got) {
        cr_expect_eq(resident(map, 1, page), 0, "the partial first page");
        cr_expect_eq(resident(map + 10 * page, 6, page), 0, "the partial last page");
    }
    munmap(map, 16 * page);
}

static double cpu_seconds(const struct rusage *ru)
{
    return (double)ru->ru_utime.tv_sec + ru->ru_utime.tv_usec / 1e6 +
           (double)ru->ru_stime.tv_sec + ru->ru_stime.tv_usec / 1e6;
}

static void *thread_cpu(void *out)
{
    struct rusage ru;

    cr_assert_eq(hs_port_thread_rusage(&ru), 0);
    *(double *)out = cpu_seconds(&ru);
    return NULL;
}

/* A new thread's time, read at once, is its own on Linux (next to none);
 * the fallback's is the process's, which counts what this thread burnt. */
Test(port, thread_rusage_is_the_threads_on_linux_only)
{
    volatile unsigned long spin = 0;
    struct rusage ru;
    double burnt, theirs = -1;
    pthread_t t;

    do {
        for (unsigned long i = 0; i < 1000000; i++)
            spin += i;
        cr_assert_eq(getrusage(RUSAGE_SELF, &ru), 0);
        burnt = cpu_seconds(&ru);
    } while (burnt < 0.3);
    cr_assert_neq(spin, 0);
    cr_assert_eq(pthread_create(&t, NULL, thread_cpu, &theirs), 0);
    pthread_join(t, NULL);
    if (HS_PORT_LINUX)
        cr_expect_lt(theirs, 0.1, "a new thread counted %.3f s", theirs);
    else
        cr_expect_geq(theirs, burnt);
}

Test(port, cheap_clock_is_monotonic)
{
    struct timespec a, b, mono;

    hs_port_cheap_clock(&a);
    clock_gettime(CLOCK_MONOTONIC, &mono);
    hs_port_cheap_clock(&b);
    cr_expect(b.tv_sec > a.tv_sec || (b.tv_sec == a.tv_sec && b.tv_nsec >= a.tv_nsec));
    /* the coarse clock lags by a tick (a few ms), no more */
    cr_expect_lt(llabs((long long)(mono.tv_sec - a.tv_sec)), 2);
}
