/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_input.c - the library's gzip reader (src/lib/input.c) on HotSpot's -gz
 * shape: members inflated two at a time on the reader thread, also past
 * bytes inside a member that look like the next member's header.
 *
 * Also: a compressed regular file, mapped and decoded in place.
 *
 * The members are built here from stored deflate blocks, which carry their
 * bytes as they are: a header planted in the data is then a header inside
 * the compressed member, as it happens by chance about once in 2 GB of
 * real compressed data.
 */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "helpers.h"
#include "hs_port.h"
#include "input.h"

#define BLOCK 262144u /* the BLOCKSIZE the first header gives */
#define MEMBERS 8
#define MANY 40 /* members: 10 MiB, more than the reader's 4 MiB buffer */

/* A member's header as gzip -1 writes it (no flags, XFL 4, Unix): what
 * starts each member but the first, and what is planted as a decoy. */
static const uint8_t g_head[10] = {0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x04, 0x03};

static void le(uint8_t *p, uint32_t v, int n)
{
    int i;

    for (i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* One gzip member of stored blocks holding p[0, n) at out; its length. The
 * first member carries HotSpot's comment; a member with a `name` carries
 * it as gzip(1) does, which HotSpot never writes. */
static size_t named_member(uint8_t *out, const uint8_t *p, size_t n, int first, const char *name)
{
    size_t at = sizeof g_head, done = 0;
    char comment[40];

    memcpy(out, g_head, sizeof g_head);
    if (first) {
        out[3] = 0x10;
        at += (size_t)snprintf(comment, sizeof comment, "HPROF BLOCKSIZE=%u", BLOCK) + 1;
        memcpy(out + 10, comment, at - 10);
    } else if (name) {
        out[3] = 0x08;
        memcpy(out + at, name, strlen(name) + 1);
        at += strlen(name) + 1;
    }
    do {
        size_t k = n - done > 65535 ? 65535 : n - done;
        out[at++] = done + k == n; /* BFINAL on the last, BTYPE 00: stored */
        le(out + at, (uint32_t)k, 2);
        le(out + at + 2, (uint32_t)~k & 0xffff, 2);
        memcpy(out + at + 4, p + done, k);
        at += 4 + k;
        done += k;
    } while (done < n);
    le(out + at, (uint32_t)crc32(0, p, (uInt)n), 4);
    le(out + at + 4, (uint32_t)n, 4);
    return at + 8;
}

static size_t stored_member(uint8_t *out, const uint8_t *p, size_t n, int first)
{
    return named_member(out, p, n, first, NULL);
}

/* The dump's bytes: `members` blocks of pseudo-random data (the last one
 * short), `decoys[m]` member headers planted in block m. */
static uint8_t *dump_bytes(size_t *n, const int *decoys, int members)
{
    size_t len = (size_t)(members - 1) * BLOCK + 1000, i;
    uint8_t *d = malloc(len);
    uint32_t x = 2463534242u;
    int m, k;

    cr_assert_not_null(d);
    for (i = 0; i < len; i++) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        d[i] = (uint8_t)x;
    }
    for (m = 0; m < members; m++)
        for (k = 0; decoys && k < decoys[m]; k++)
            memcpy(d + (size_t)m * BLOCK + 1000 + (size_t)k * 20000, g_head, sizeof g_head);
    *n = len;
    return d;
}

/* The dump as HotSpot's -gz writes it, in a temporary file: its fd. */
static int gz_file(const uint8_t *d, size_t n)
{
    uint8_t *gz = malloc(n + n / 1000 + 4096);
    size_t at = 0, i;
    char path[] = "/tmp/hs-test-input-XXXXXX";
    int fd = mkstemp(path);

    cr_assert_not_null(gz);
    cr_assert_geq(fd, 0);
    unlink(path);
    for (i = 0; i < n; i += BLOCK)
        at += stored_member(gz + at, d + i, n - i < BLOCK ? n - i : BLOCK, i == 0);
    cr_assert_eq(write(fd, gz, at), (ssize_t)at);
    cr_assert_eq(lseek(fd, 0, SEEK_SET), 0);
    free(gz);
    return fd;
}

/* Reads fd, through the reader thread or not: checks every byte against
 * want[0, n), and gives how many members went through the two-at-a-time
 * path. */
static uint64_t read_with(int fd, int threaded, const uint8_t *want, size_t n)
{
    size_t got = 0;
    uint8_t *buf = malloc(100000);
    hs_input *in;
    uint64_t paired;
    long k;

    cr_assert_not_null(buf);
    cr_assert_eq(hs_input_open(&in, fd), 0);
    cr_assert_eq(hs_input_compression(in), HS_COMPRESS_GZIP);
    if (threaded)
        cr_assert_eq(hs_input_start_thread(in), 0);
    while ((k = hs_input_read(in, buf, 100000)) > 0) {
        cr_assert_leq(got + (size_t)k, n, "more bytes out than went in");
        cr_assert(memcmp(buf, want + got, (size_t)k) == 0, "bytes differ after %zu", got);
        got += (size_t)k;
    }
    cr_assert_eq(k, 0, "%s", hs_input_error(in) ? hs_input_error(in) : "read failed");
    cr_assert_eq(got, n);
    cr_assert_null(hs_input_error(in));
    cr_assert_eq(hs_input_damage(in), HS_DAMAGE_NONE);
    paired = hs_input_paired_members(in);
    hs_input_close(in);
    free(buf);
    return paired;
}

static uint64_t read_through(int fd, const uint8_t *want, size_t n)
{
    return read_with(fd, 1, want, n);
}

/* As read_with on the reader thread, but taking its blocks in place
 * (hs_input_borrow). Each block is checked again after the thread has had
 * time to fill every other slot: a block stays the caller's until the next
 * call. The end is given again when asked again. */
static uint64_t borrow_all(int fd, const uint8_t *want, size_t n)
{
    size_t got = 0;
    hs_input *in;
    uint64_t paired;
    const void *p = NULL;
    long k;
    int blocks = 0;

    cr_assert_eq(hs_input_open(&in, fd), 0);
    cr_assert_not(hs_input_lends(in), "lends before its thread is started");
    cr_assert_eq(hs_input_start_thread(in), 0);
    cr_assert(hs_input_lends(in));
    while ((k = hs_input_borrow(in, &p)) > 0) {
        cr_assert_leq(got + (size_t)k, n, "more bytes out than went in");
        cr_assert(memcmp(p, want + got, (size_t)k) == 0, "bytes differ after %zu", got);
        if (++blocks % 4 == 0) {
            struct timespec pause = {0, 20 * 1000 * 1000};
            nanosleep(&pause, NULL);
            cr_assert(memcmp(p, want + got, (size_t)k) == 0,
                      "the block lent at %zu changed before it was given back", got);
        }
        got += (size_t)k;
    }
    cr_assert_eq(k, 0, "%s", hs_input_error(in) ? hs_input_error(in) : "borrow failed");
    cr_assert_eq(hs_input_borrow(in, &p), 0, "the end is not given again");
    cr_assert_eq(got, n);
    cr_assert_eq(hs_input_dump_bytes(in), n, "the bytes given out are miscounted");
    cr_assert_null(hs_input_error(in));
    cr_assert_eq(hs_input_damage(in), HS_DAMAGE_NONE);
    paired = hs_input_paired_members(in);
    hs_input_close(in);
    return paired;
}

static uint8_t *slurp(int fd, size_t *n);
static int compressed_file(const uint8_t *d, size_t n, int zstd, size_t *len);
static uint64_t through_slow_pipe(const uint8_t *gz, size_t n, size_t pause_at, int threaded,
                                  const uint8_t *want, size_t wn);

/* The made-up dump of `members` members with `decoys` planted, written
 * and read back: from the file, mapped (all of it in view), and through a
 * pipe (read in pieces into a buffer that is refilled). Both take the same
 * members two at a time. */
static uint64_t read_back_n(const int *decoys, int members)
{
    size_t n, gn;
    uint8_t *d = dump_bytes(&n, decoys, members);
    int fd = gz_file(d, n);
    uint64_t paired = read_through(fd, d, n);
    uint8_t *gz = slurp(fd, &gn);

    cr_assert_eq(through_slow_pipe(gz, gn, gn, 1, d, n), paired, "a pipe pairs other members");
    close(fd);
    free(gz);
    free(d);
    return paired;
}

static uint64_t read_back(const int *decoys)
{
    return read_back_n(decoys, MEMBERS);
}

Test(input, hotspot_members_all_go_two_at_a_time)
{
    cr_assert_eq(read_back(NULL), MEMBERS);
}

/* Lent in place, the members come out as read, still two at a time; and a
 * single member (the streaming inflater) as well. */
Test(input, the_reader_thread_lends_its_blocks)
{
    size_t n, len;
    uint8_t *d = dump_bytes(&n, NULL, 3 * MEMBERS);
    int fd = gz_file(d, n);

    cr_assert_eq(borrow_all(fd, d, n), 3 * MEMBERS);
    close(fd);
    fd = compressed_file(d, n, 0, &len);
    cr_assert_eq(borrow_all(fd, d, n), 0);
    close(fd);
    free(d);
}

/* A header inside the first of a pair, inside the second, and three in one
 * member: each is passed over, and every member still goes in pairs. */
Test(input, header_bytes_inside_a_member_do_not_end_the_paired_path)
{
    int decoys[MEMBERS] = {1, 0, 0, 1, 0, 3, 0, 0};

    cr_assert_eq(read_back(decoys), MEMBERS);
}

/* More header-like bytes than the budget (8 this near the start): the
 * streaming inflater takes over at the member where it runs out, with the
 * same bytes (read_back checks them). */
Test(input, too_many_header_bytes_hand_over_to_the_streaming_inflater)
{
    int decoys[MEMBERS] = {0, 0, 12, 0, 0, 0, 0, 0};

    cr_assert_eq(read_back(decoys), 2);
}

/* The budget is the input's, not a member's: 5 and 5 run it out in the
 * second member that holds them. */
Test(input, the_header_budget_spans_members)
{
    int decoys[MEMBERS] = {0, 0, 5, 0, 5, 0, 0, 0};

    cr_assert_eq(read_back(decoys), 4);
}

/* More members than the compressed buffer holds: it is refilled as they
 * go, and the rest moved to its front once every member in it is out. A
 * header inside every tenth member, and three in the one that straddles
 * the first refill, are passed over all the same: 7 tries, within the
 * budget of 8. Three more in member 25 make 10, and the streaming
 * inflater takes the rest from that member on. */
Test(input, members_past_the_buffer_and_header_bytes_across_a_refill)
{
    int decoys[MANY] = {0}, m;

    for (m = 0; m < MANY; m += 10)
        decoys[m] = 1;
    decoys[15] = 3; /* 15 * 256 KiB + a header: past 4 MiB */
    cr_assert_eq(read_back_n(decoys, MANY), MANY);
    decoys[25] = 3; /* tries 7, 8 and 9 */
    cr_assert_eq(read_back_n(decoys, MANY), 25);
}

/* Closed after one block, while members are out (one of them at a false
 * start, so some are dropped): the close stops the reader thread and its
 * helper, and returns (a hang is the failure; ASan and TSan see the
 * rest). */
Test(input, closing_while_members_are_out_stops_every_thread, .timeout = 60)
{
    int decoys[MANY] = {0};
    size_t n;
    uint8_t *d, buf[4096];
    hs_input *in;
    int fd, round;

    decoys[2] = 1;
    d = dump_bytes(&n, decoys, MANY);
    fd = gz_file(d, n);
    for (round = 0; round < 20; round++) {
        cr_assert_eq(lseek(fd, 0, SEEK_SET), 0);
        cr_assert_eq(hs_input_open(&in, fd), 0);
        cr_assert_eq(hs_input_start_thread(in), 0);
        cr_assert_eq(hs_input_read(in, buf, sizeof buf), (long)sizeof buf);
        cr_assert(memcmp(buf, d, sizeof buf) == 0);
        hs_input_close(in);
    }
    close(fd);
    free(d);
}

/* A real `jcmd PID GC.heap_dump -gz=1` file (JDK 17; fixtures/README.md),
 * not made up here: all four members go through the two-thread path,
 * and give what zlib gives. */
Test(input, a_real_jcmd_gz_dump_goes_two_members_at_a_time)
{
    const char *path = "fixtures/jvm17-jcmd-gz1.hprof.gz";
    gzFile z = gzopen(path, "rb");
    size_t cap = 8u << 20, n = 0;
    uint8_t *want = malloc(cap);
    int k, fd;

    cr_assert_not_null(z, "%s is missing", path);
    cr_assert_not_null(want);
    while ((k = gzread(z, want + n, (unsigned)(cap - n))) > 0)
        n += (size_t)k;
    cr_assert_eq(k, 0);
    cr_assert(n > 3 * 1048576 && n < cap, "%zu bytes: not the 4-member fixture", n);
    gzclose(z);
    fd = open(path, O_RDONLY);
    cr_assert_geq(fd, 0);
    cr_assert_eq(read_through(fd, want, n), 4);
    close(fd);
    free(want);
}

/* ---- a pipe whose writer pauses: a read ends where the writer paused ---- */

typedef struct {
    int fd;
    const uint8_t *p;
    size_t n, pause_at;
} slow_writer;

static void write_all(int fd, const uint8_t *p, size_t n)
{
    while (n > 0) {
        ssize_t k = write(fd, p, n);
        cr_assert_gt(k, 0, "write to the pipe failed");
        p += k;
        n -= (size_t)k;
    }
}

static void *write_with_a_pause(void *arg)
{
    slow_writer *w = arg;
    struct timespec pause = {0, 50 * 1000000L};

    write_all(w->fd, w->p, w->pause_at);
    nanosleep(&pause, NULL); /* the reader has read up to here, and waits */
    write_all(w->fd, w->p + w->pause_at, w->n - w->pause_at);
    close(w->fd);
    return NULL;
}

/* The gzip bytes in fd (from the start), in memory. */
static uint8_t *slurp(int fd, size_t *n)
{
    off_t end = lseek(fd, 0, SEEK_END);
    uint8_t *p = malloc((size_t)end);

    cr_assert_not_null(p);
    cr_assert_eq(pread(fd, p, (size_t)end, 0), (ssize_t)end);
    *n = (size_t)end;
    return p;
}

/* Reads gz[0, n) through a pipe whose writer pauses after pause_at bytes,
 * as read_with does. */
static uint64_t through_slow_pipe(const uint8_t *gz, size_t n, size_t pause_at, int threaded,
                                  const uint8_t *want, size_t wn)
{
    int fds[2];
    pthread_t t;
    slow_writer w;
    uint64_t paired;

    cr_assert_eq(pipe(fds), 0);
    w.fd = fds[1], w.p = gz, w.n = n, w.pause_at = pause_at;
    cr_assert_eq(pthread_create(&t, NULL, write_with_a_pause, &w), 0);
    paired = read_with(fds[0], threaded, want, wn);
    pthread_join(t, NULL);
    close(fds[0]);
    return paired;
}

/* The first read of a pipe (here 20 bytes) may end inside HotSpot's
 * comment: the whole header is read before the shape is decided, so the
 * members still go two at a time. */
Test(input, a_first_read_inside_the_hotspot_comment_still_pairs_members)
{
    size_t n, gn;
    uint8_t *d = dump_bytes(&n, NULL, MEMBERS);
    int fd = gz_file(d, n);
    uint8_t *gz = slurp(fd, &gn);

    cr_assert_eq(through_slow_pipe(gz, gn, 20, 1, d, n), MEMBERS);
    close(fd);
    free(gz);
    free(d);
}

/* gzip(1)'s members carry the file's name. A read that ends inside one
 * (a pipe's pieces end anywhere) left ISA-L to resume the header with
 * flags it never set, and valid input came out corrupt (found by
 * tests/fuzz/fuzz_gzip.c); the header is now whole before it is read.
 * Cut at bytes of the second member's header, streaming and on the reader
 * thread. */
Test(input, a_member_header_cut_inside_its_name_reads_whole)
{
    const char *name = "java_pid1234.hprof";
    /* inside the fixed 10 bytes, inside the name, at its NUL, after it */
    const size_t cuts[] = {5, 11, 20, 10 + 18, 10 + 19};
    size_t n, at, second, i;
    uint8_t *d = dump_bytes(&n, NULL, 3), *gz = malloc(n + 4096);

    cr_assert_not_null(gz);
    at = named_member(gz, d, BLOCK, 0, name);
    second = at;
    at += named_member(gz + at, d + BLOCK, n - BLOCK, 0, name);
    for (i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        cr_assert_eq(through_slow_pipe(gz, at, second + cuts[i], 0, d, n), 0);
        cr_assert_eq(through_slow_pipe(gz, at, second + cuts[i], 1, d, n), 0);
    }
    free(gz);
    free(d);
}

/* A header field with no end in sight (a name of over 1 MiB, or a flipped
 * FNAME bit over compressed data without a zero byte) is damage, named as
 * such, not a wait for ever more input in memory. */
Test(input, a_member_header_longer_than_the_buffer_is_corrupt)
{
    size_t name_len = (1u << 20) + 100, n;
    uint8_t *d = dump_bytes(&n, NULL, 1), *gz = malloc(name_len + n + 4096), buf[4096];
    char *name = malloc(name_len + 1);
    char path[] = "/tmp/hs-test-input-XXXXXX";
    int fd = mkstemp(path);
    size_t len;
    hs_input *in;
    long k;

    cr_assert(gz && name && fd >= 0);
    unlink(path);
    memset(name, 'x', name_len);
    name[name_len] = 0;
    len = stored_member(gz, d, n, 1);          /* a whole first member */
    len += named_member(gz + len, d, n, 0, name); /* then the long name */
    cr_assert_eq(write(fd, gz, len), (ssize_t)len);
    cr_assert_eq(lseek(fd, 0, SEEK_SET), 0);
    cr_assert_eq(hs_input_open(&in, fd), 0);
    while ((k = hs_input_read(in, buf, sizeof buf)) > 0)
        ;
    cr_assert_eq(k, 0);
    cr_assert_eq(hs_input_dump_bytes(in), n, "the first member is given whole");
    cr_assert_eq(hs_input_damage(in), HS_DAMAGE_CORRUPT);
    cr_assert_not_null(strstr(hs_input_error(in), "a member header too long to hold"), "%s",
                       hs_input_error(in));
    hs_input_close(in);
    close(fd);
    free(name);
    free(gz);
    free(d);
}

/* ---- a compressed regular file: mapped, decoded in place ---------------- */

#define PREFIX 100 /* bytes before the input, as a positioned stdin has */

/* d[0, n) compressed as one gzip member (zlib) or one zstd frame, in a
 * temporary file after PREFIX other bytes, positioned where it starts. */
static int compressed_file(const uint8_t *d, size_t n, int zstd, size_t *len)
{
    size_t cap = n + n / 100 + 65536;
    uint8_t *c = malloc(PREFIX + cap);
    char path[] = "/tmp/hs-test-input-XXXXXX";
    int fd = mkstemp(path);

    cr_assert(c && fd >= 0);
    unlink(path);
    memset(c, 'x', PREFIX);
    if (zstd) {
        *len = ZSTD_compress(c + PREFIX, cap, d, n, 1);
        cr_assert(!ZSTD_isError(*len));
    } else {
        z_stream z;
        memset(&z, 0, sizeof z);
        cr_assert_eq(deflateInit2(&z, 1, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY), Z_OK);
        z.next_in = (Bytef *)(uintptr_t)d;
        z.avail_in = (uInt)n;
        z.next_out = c + PREFIX;
        z.avail_out = (uInt)cap;
        cr_assert_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
        *len = z.total_out;
        deflateEnd(&z);
    }
    cr_assert_eq(write(fd, c, PREFIX + *len), (ssize_t)(PREFIX + *len));
    cr_assert_eq(lseek(fd, PREFIX, SEEK_SET), PREFIX);
    free(c);
    return fd;
}

/* Reads a compressed file through hs_input, on the reader thread or not:
 * the file is mapped (not handed to the filter as plain data), every byte
 * comes out, the compressed bytes counted go up as it goes, not all at once,
 * and end at the file's length; the pages behind are given back. */
static void read_mapped(int zstd, int threaded)
{
    size_t n, len, got = 0;
    int members = 80; /* 20 MiB */
    uint8_t *d = dump_bytes(&n, NULL, members), *buf = malloc(65536);
    int fd = compressed_file(d, n, zstd, &len);
    uint64_t size, before = 0, raw;
    const void *map;
    int partway = 0;
    hs_input *in;
    long k, kib;

    cr_assert_not_null(buf);
    cr_assert_eq(hs_input_open(&in, fd), 0);
    cr_assert_eq(hs_input_compression(in), zstd ? HS_COMPRESS_ZSTD : HS_COMPRESS_GZIP);
    cr_assert_null(hs_input_data(in, &size), "compressed bytes are not the filter's to walk");
    map = hs_input_mapped(in, &size);
    cr_assert_not_null(map, "a compressed regular file is mapped");
    cr_assert_eq(size, len, "the mapping starts where the input does");
    if (threaded)
        cr_assert_eq(hs_input_start_thread(in), 0);
    while ((k = hs_input_read(in, buf, 65536)) > 0) {
        cr_assert_leq(got + (size_t)k, n);
        cr_assert(memcmp(buf, d + got, (size_t)k) == 0, "bytes differ after %zu", got);
        got += (size_t)k;
        raw = hs_input_raw_bytes(in);
        cr_assert_geq(raw, before, "compressed bytes counted went down");
        cr_assert_leq(raw, len);
        partway |= raw > 0 && raw < len / 2;
        before = raw;
    }
    cr_assert_eq(k, 0, "%s", hs_input_error(in) ? hs_input_error(in) : "read failed");
    cr_assert_eq(got, n);
    cr_assert(partway, "the count of compressed bytes jumped to the end");
    cr_assert_eq(hs_input_raw_bytes(in), len);
    /* the pager keeps a few MiB either side; without it, the last step
     * (the POSIX fallback gives no page back: hs_port.h) */
    kib = mapping_resident_kib(map);
    cr_assert_geq(kib, 0, "the mapping is not in /proc/self/smaps");
    cr_assert(kib < 8 * 1024 || !HS_PORT_LINUX, "pages of a %zu-byte file kept mapped", len);
    hs_input_close(in);
    cr_assert_eq(lseek(fd, 0, SEEK_CUR), (off_t)(PREFIX + len), "fd left at the end");
    close(fd);
    free(buf);
    free(d);
}

Test(input, a_gzip_file_is_mapped_and_decoded_in_place)
{
    read_mapped(0, 0);
    read_mapped(0, 1);
}

Test(input, a_zstd_file_is_mapped_and_decoded_in_place)
{
    read_mapped(1, 0);
    read_mapped(1, 1);
}

/* A first member with HotSpot's comment, then one far bigger than any
 * HotSpot writes (6 MiB, past the 4 MiB a read buffer holds): in a mapped
 * file the search for its end stops where a read buffer would, and the
 * streaming inflater gives the rest. */
Test(input, a_member_too_big_for_hotspot_in_a_mapped_file_streams)
{
    size_t n, at = 0;
    uint8_t *whole = dump_bytes(&n, NULL, 26); /* 25 blocks and 1000 bytes */
    uint8_t *gz = malloc(n + 4096);
    char path[] = "/tmp/hs-test-input-XXXXXX";
    int fd = mkstemp(path);

    cr_assert(gz && fd >= 0);
    unlink(path);
    at += stored_member(gz, whole, BLOCK, 1);
    at += stored_member(gz + at, whole + BLOCK, n - BLOCK, 0);
    cr_assert_eq(write(fd, gz, at), (ssize_t)at);
    cr_assert_eq(lseek(fd, 0, SEEK_SET), 0);
    cr_assert_eq(read_through(fd, whole, n), 1, "only the first member pairs");
    close(fd);
    free(gz);
    free(whole);
}
