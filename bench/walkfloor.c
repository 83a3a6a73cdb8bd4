/* SPDX-License-Identifier: Apache-2.0 */
/*
 * walkfloor.c - a yardstick for any filter of a heap dump: its sub-records
 * walked and nothing else done (bench.sh's "walk alone" rows, issue #38).
 *
 *   walkfloor [-t 2 | -p] FILE
 *
 * Maps FILE, follows its records, and inside each heap dump record reads
 * every sub-record's size to reach the next: the chain of dependent loads
 * every HPROF reader walks, hprof-strip and hprof-conv alike. No decision,
 * no copy, no output. Alone, the walking thread faults the file's pages in
 * as it goes. With -p a second thread maps them ahead of it (madvise
 * MADV_POPULATE_READ, 1 MiB at a time, at most 8 MiB ahead), as
 * hprof-strip's pager does (touching a byte a page where the kernel has no
 * MADV_POPULATE_READ): hprof-strip's own arrangement.
 * With -t 2 the records are split at the one nearest the middle of the
 * file and the two halves walked on two threads, each faulting its own,
 * which is as far as two cores can take a walk split by records (a real
 * filter's would also have to hand roots, counts and output across the
 * split). Prints the sub-records walked, so that a wrong walk shows.
 *
 * A bench tool for the bench's own dumps, not part of hprof-strip: it stops
 * at a record that runs past the file and at a sub-record whose tag it does
 * not know or that runs past its record, but otherwise trusts what it reads
 * (a damaged class dump could send it past the mapping). It shares no code
 * with src/ on purpose: it is the plain walk, written apart, to compare
 * against (tests/lanes/bench_floor.sh holds its count to hprof-strip's). Not a
 * proof of a bound: a cleverer walk can beat it (hprof-strip's own does on
 * dumps of small instances).
 */
#define _DEFAULT_SOURCE /* madvise's MADV_POPULATE_READ */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static const uint8_t *dump;
static size_t dump_len;
static unsigned idsize;

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The size of a value of basic type `t`, 0 if none: an object is an id;
 * boolean, char, float, double (4 to 7) take 1, 2, 4, 8 bytes, and byte,
 * short, int, long (8 to 11) the same again. */
static size_t type_size(unsigned t)
{
    if (t == 2)
        return idsize;
    return t >= 4 && t <= 11 ? (size_t)1 << (t & 3) : 0;
}

/* The size of the CLASS_DUMP at `q`: its three variable-length lists. */
static size_t class_dump_size(const uint8_t *q)
{
    const size_t i = idsize;
    size_t o = 1 + i + 4 + 6 * i + 4, k, n;

    n = (size_t)q[o] << 8 | q[o + 1]; /* constant pool: index, type, value */
    for (o += 2, k = 0; k < n; k++)
        o += 3 + type_size(q[o + 2]);
    n = (size_t)q[o] << 8 | q[o + 1]; /* statics: name, type, value */
    for (o += 2, k = 0; k < n; k++)
        o += i + 1 + type_size(q[o + i]);
    n = (size_t)q[o] << 8 | q[o + 1]; /* instance fields: name, type */
    return o + 2 + n * (i + 1);
}

/* The size of the sub-record at `q`, 0 when its tag is unknown. The switch
 * is what a reader's walk is: a branch on the tag, then a length. */
static size_t sub_size(const uint8_t *q)
{
    const size_t i = idsize;

    switch (q[0]) {
    case 0xff: case 0x05: case 0x07: case 0x89: case 0x8a: case 0x8b: case 0x8c:
    case 0x8d: case 0x90: return 1 + i;
    case 0x01: return 1 + 2 * i;
    case 0x02: case 0x03: case 0x08: case 0x8e: return 1 + i + 8;
    case 0x04: case 0x06: return 1 + i + 4;
    case 0xfe: return 1 + 4 + i;
    case 0x20: return class_dump_size(q);
    case 0x21: return 1 + 2 * i + 8 + be32(q + 1 + 2 * i + 4);
    case 0x22: return 1 + 2 * i + 8 + (size_t)be32(q + 1 + i + 4) * i;
    case 0x23: return 1 + i + 9 + (size_t)be32(q + 1 + i + 4) * type_size(q[1 + i + 8]);
    case 0xc3: return 1 + i + 9;
    default: return 0;
    }
}

/* -p: how far the walk has come (published every STEP), and the pager's
 * stop */
#define STEP ((size_t)1 << 20)
#define AHEAD (8 * STEP)
static _Atomic size_t walked_to;
static _Atomic int walk_over;
static int paged;

/* -p's thread: maps the file's pages ahead of the walk. */
static void *map_ahead(void *arg)
{
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t at = 0;

    (void)arg;
    while (at < dump_len && !atomic_load(&walk_over)) {
        size_t n = dump_len - at < STEP ? dump_len - at : STEP;
        if (at >= atomic_load(&walked_to) + AHEAD) {
            sched_yield();
            continue;
        }
#ifdef MADV_POPULATE_READ
        if (madvise((void *)(uintptr_t)(dump + at), (n + page - 1) / page * page,
                    MADV_POPULATE_READ) != 0)
#endif
        { /* an older kernel: touch a byte a page */
            size_t k;
            for (k = 0; k < n; k += page)
                (void)*(volatile const uint8_t *)(dump + at + k);
        }
        at += n;
    }
    return NULL;
}

typedef struct {
    size_t from, to; /* record offsets: the first, and where to stop */
    uint64_t subs;   /* sub-records walked */
    int bad;         /* stopped at a sub-record it cannot walk */
} half;

static void *walk(void *arg)
{
    half *h = arg;
    size_t pos = h->from;

    while (pos < h->to && dump_len - pos >= 9) {
        const unsigned tag = dump[pos];
        const size_t end = pos + 9 + be32(dump + pos + 5);
        size_t p = pos + 9;

        if (end > dump_len)
            break;
        if (tag == 0x0c || tag == 0x1c)
            while (p < end) {
                size_t n = sub_size(dump + p);
                /* as a reader does: the bytes some 40 objects on are asked
                 * for while this one is decoded */
                __builtin_prefetch(dump + p + 2048);
                if (!n || n > end - p) {
                    h->bad = 1;
                    return NULL;
                }
                p += n;
                h->subs++;
                if (paged && (p & (STEP - 1)) < n)
                    atomic_store_explicit(&walked_to, p, memory_order_relaxed);
            }
        pos = end;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    half h[2];
    pthread_t t;
    struct stat st;
    size_t pos, first, mid, half_way;
    int fd, threads = 1;

    if (argc == 4 && !strcmp(argv[1], "-t") && !strcmp(argv[2], "2"))
        threads = 2;
    else if (argc == 3 && !strcmp(argv[1], "-p"))
        paged = 1;
    else if (argc != 2 || argv[1][0] == '-') {
        fprintf(stderr, "usage: walkfloor [-t 2 | -p] FILE\n");
        return 2;
    }
    fd = open(argv[argc - 1], O_RDONLY);
    if (fd < 0 || fstat(fd, &st) < 0 || st.st_size < 32) {
        perror(argv[argc - 1]);
        return 1;
    }
    dump_len = (size_t)st.st_size;
    dump = mmap(NULL, dump_len, PROT_READ, MAP_PRIVATE, fd, 0);
    if (dump == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    pos = strnlen((const char *)dump, 32) + 1; /* "JAVA PROFILE 1.0.x" */
    if (pos > 32) {
        fprintf(stderr, "walkfloor: not an HPROF file\n");
        return 1;
    }
    idsize = be32(dump + pos);
    if (idsize != 4 && idsize != 8) {
        fprintf(stderr, "walkfloor: identifier size %u\n", idsize);
        return 1;
    }
    first = pos += 12; /* the first record */
    /* the record chain alone (one load a record) finds the split */
    half_way = first + (dump_len - first) / 2;
    for (mid = first; dump_len - pos >= 9;) {
        const size_t n = 9 + (size_t)be32(dump + pos + 5);
        if (pos <= half_way)
            mid = pos;
        if (n > dump_len - pos)
            break;
        pos += n;
    }
    memset(h, 0, sizeof h);
    h[0].from = first;
    h[0].to = threads == 2 ? mid : dump_len;
    h[1].from = mid;
    h[1].to = dump_len;
    if ((threads == 2 && pthread_create(&t, NULL, walk, &h[1]) != 0) ||
        (paged && pthread_create(&t, NULL, map_ahead, NULL) != 0)) {
        fprintf(stderr, "walkfloor: no second thread\n");
        return 1;
    }
    walk(&h[0]);
    atomic_store(&walk_over, 1);
    if (threads == 2 || paged)
        pthread_join(t, NULL);
    if (h[0].bad || (threads == 2 && h[1].bad)) {
        fprintf(stderr, "walkfloor: a sub-record of unknown tag, or past its record\n");
        return 1;
    }
    printf("%llu sub-records\n", (unsigned long long)(h[0].subs + (threads == 2 ? h[1].subs : 0)));
    return 0;
}
