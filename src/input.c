/*
 * input.c - the CLI's byte source: a file descriptor, decompressed on the
 * fly when its first bytes are a zstd frame or a gzip member.
 *
 * Detection needs the first four bytes only, so it works on a pipe. gzip
 * input may hold many members back to back (HotSpot's -gz dumps are one
 * member per block, like `pigz`), and zstd input many frames; both are read
 * to the end. A compressed stream that ends early or is corrupt is an error
 * of its own layer ("gzip data is truncated"), so a user can tell a broken
 * download from a broken dump.
 *
 * A plain regular file is mapped instead of read: the filter then walks
 * the file's pages in place (hs_source.data), which saves copying every
 * byte through read(2), often the largest single cost of a run. As the
 * filter moves on, the pages behind it are unmapped (hs_input_window), so
 * memory stays flat. A file that shrinks while mapped raises SIGBUS, which
 * the CLI turns into an I/O error (run.c).
 */
#define _DEFAULT_SOURCE /* madvise */
#define _POSIX_C_SOURCE 200809L
#include "input.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#define RAW_BUFFER (1u << 20)

struct hs_input {
    int fd;
    enum hs_input_format format;
    uint8_t *raw;         /* compressed bytes (or the sniffed prefix) */
    size_t raw_pos, raw_len;
    int raw_eof;
    uint64_t raw_total;   /* bytes read from fd */
    int err_no;           /* errno of a failed read */
    char err[200];        /* what failed, for the message */
    /* zstd */
    ZSTD_DStream *zd;
    size_t zret;          /* last ZSTD_decompressStream result: 0 at a frame end */
    /* gzip */
    z_stream zs;
    int zs_ready, member_done;
    /* a mapped plain file: map[0..map_len) is the file, the input starts at
     * map + map_skip (stdin may come positioned); pages before `kept` have
     * been given back */
    uint8_t *map;
    size_t map_len, map_skip, kept, page;
};

/* Maps `fd` when it is a non-empty regular file whose first bytes are not a
 * compression magic. Failing that, nothing is mapped and the input is read
 * as before: mapping is only a faster way to the same bytes. */
static void try_map(hs_input *in, int fd)
{
    struct stat st;
    off_t at = lseek(fd, 0, SEEK_CUR);
    long page = sysconf(_SC_PAGESIZE);
    void *m;

    if (at < 0 || page <= 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
        st.st_size <= at || (uint64_t)st.st_size > SIZE_MAX)
        return;
    m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED)
        return;
    in->map = m;
    in->map_len = (size_t)st.st_size;
    in->map_skip = (size_t)at;
    in->page = (size_t)page;
    in->kept = in->map_skip / in->page * in->page;
    /* read-ahead in large steps: the pages are used once, in order */
    madvise(in->map, in->map_len, MADV_SEQUENTIAL);
}

static int is_compressed(const uint8_t *p, size_t n);

static long raw_fill(hs_input *in)
{
    ssize_t n;

    in->raw_pos = 0;
    in->raw_len = 0;
    for (;;) {
        n = read(in->fd, in->raw, RAW_BUFFER);
        if (n >= 0)
            break;
        if (errno != EINTR) {
            in->err_no = errno;
            snprintf(in->err, sizeof in->err, "reading failed: %s", strerror(errno));
            return -1;
        }
    }
    if (n == 0)
        in->raw_eof = 1;
    in->raw_len = (size_t)n;
    in->raw_total += (uint64_t)n;
    return (long)n;
}

static int starts(const uint8_t *p, size_t n, const char *magic, size_t mn)
{
    return n >= mn && memcmp(p, magic, mn) == 0;
}

#define ZSTD_MAGIC "\x28\xb5\x2f\xfd"
#define GZIP_MAGIC "\x1f\x8b"

static int is_compressed(const uint8_t *p, size_t n)
{
    return starts(p, n, ZSTD_MAGIC, 4) || starts(p, n, GZIP_MAGIC, 2);
}

int hs_input_open(hs_input **out, int fd)
{
    hs_input *in = calloc(1, sizeof *in);

    *out = in;
    if (!in)
        return -1;
    in->fd = fd;
    try_map(in, fd);
    if (in->map && !is_compressed(in->map + in->map_skip, in->map_len - in->map_skip)) {
        in->format = HS_IN_PLAIN;
        return 0;
    }
    if (in->map) {
        munmap(in->map, in->map_len);
        in->map = NULL;
    }
    in->raw = malloc(RAW_BUFFER);
    if (!in->raw)
        return -1;
    /* the first read decides; a pipe may give fewer than 4 bytes at first */
    while (in->raw_len < 4 && !in->raw_eof) {
        ssize_t n = read(fd, in->raw + in->raw_len, RAW_BUFFER - in->raw_len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            in->err_no = errno;
            snprintf(in->err, sizeof in->err, "reading failed: %s", strerror(errno));
            return -1;
        }
        if (n == 0)
            in->raw_eof = 1;
        in->raw_len += (size_t)n;
        in->raw_total += (uint64_t)n;
    }
    if (starts(in->raw, in->raw_len, ZSTD_MAGIC, 4)) {
        in->format = HS_IN_ZSTD;
        in->zd = ZSTD_createDStream();
        if (!in->zd)
            return -1;
        in->zret = 1;
    } else if (starts(in->raw, in->raw_len, GZIP_MAGIC, 2)) {
        in->format = HS_IN_GZIP;
        if (inflateInit2(&in->zs, 16 + MAX_WBITS) != Z_OK)
            return -1;
        in->zs_ready = 1;
    } else {
        in->format = HS_IN_PLAIN;
    }
    return 0;
}

static long read_plain(hs_input *in, uint8_t *buf, size_t cap)
{
    ssize_t n;

    if (in->raw_pos < in->raw_len) { /* the sniffed prefix first */
        size_t k = in->raw_len - in->raw_pos;
        if (k > cap)
            k = cap;
        memcpy(buf, in->raw + in->raw_pos, k);
        in->raw_pos += k;
        return (long)k;
    }
    if (in->raw_eof)
        return 0;
    for (;;) { /* then straight into the caller's buffer */
        n = read(in->fd, buf, cap);
        if (n >= 0)
            break;
        if (errno != EINTR) {
            in->err_no = errno;
            snprintf(in->err, sizeof in->err, "reading failed: %s", strerror(errno));
            return -1;
        }
    }
    in->raw_total += (uint64_t)n;
    return (long)n;
}

/* Makes compressed bytes available: 1 when there are some, 0 at the end of
 * the input when it ends between two `unit`s (`between`), -1 on a read
 * error or when it ends inside one ("zstd data is truncated ..."). */
static int raw_more(hs_input *in, int between, const char *format, const char *unit)
{
    if (in->raw_pos < in->raw_len)
        return 1;
    if (!in->raw_eof && raw_fill(in) < 0)
        return -1;
    if (!in->raw_eof)
        return 1;
    if (between)
        return 0;
    snprintf(in->err, sizeof in->err,
             "%s data is truncated (the input ends inside a %s, after %llu compressed bytes)",
             format, unit, (unsigned long long)in->raw_total);
    return -1;
}

static long read_zstd(hs_input *in, uint8_t *buf, size_t cap)
{
    ZSTD_outBuffer o = {buf, cap, 0};

    while (o.pos == 0) { /* until some output, or the end */
        ZSTD_inBuffer i;
        int more = raw_more(in, in->zret == 0, "zstd", "frame");
        if (more <= 0)
            return more;
        i.src = in->raw;
        i.size = in->raw_len;
        i.pos = in->raw_pos;
        in->zret = ZSTD_decompressStream(in->zd, &o, &i);
        in->raw_pos = i.pos;
        if (ZSTD_isError(in->zret)) {
            snprintf(in->err, sizeof in->err, "zstd data is corrupt near compressed byte %llu: %s",
                     (unsigned long long)(in->raw_total - in->raw_len + in->raw_pos),
                     ZSTD_getErrorName(in->zret));
            return -1;
        }
    }
    return (long)o.pos;
}

static long read_gzip(hs_input *in, uint8_t *buf, size_t cap)
{
    uInt want = cap > (1u << 30) ? (1u << 30) : (uInt)cap;

    in->zs.next_out = buf;
    in->zs.avail_out = want;
    while (in->zs.avail_out == want) { /* until some output, or the end */
        int r, more = raw_more(in, in->member_done, "gzip", "member");
        if (more <= 0)
            return more;
        if (in->member_done) {
            /* another member follows: it must be gzip too */
            if (in->raw[in->raw_pos] != 0x1f) {
                snprintf(in->err, sizeof in->err,
                         "unexpected bytes after a gzip member at compressed byte %llu",
                         (unsigned long long)(in->raw_total - in->raw_len + in->raw_pos));
                return -1;
            }
            inflateReset(&in->zs);
            in->member_done = 0;
        }
        in->zs.next_in = in->raw + in->raw_pos;
        in->zs.avail_in = (uInt)(in->raw_len - in->raw_pos);
        r = inflate(&in->zs, Z_NO_FLUSH);
        in->raw_pos = in->raw_len - in->zs.avail_in;
        if (r == Z_STREAM_END) {
            in->member_done = 1;
        } else if (r != Z_OK && r != Z_BUF_ERROR) {
            snprintf(in->err, sizeof in->err, "gzip data is corrupt near compressed byte %llu: %s",
                     (unsigned long long)(in->raw_total - in->raw_len + in->raw_pos),
                     in->zs.msg ? in->zs.msg : "inflate failed");
            return -1;
        }
    }
    return (long)(want - in->zs.avail_out);
}

long hs_input_read(void *ctx, void *buf, size_t cap)
{
    hs_input *in = ctx;

    if (in->err[0])
        return -1;
    switch (in->format) {
    case HS_IN_ZSTD: return read_zstd(in, buf, cap);
    case HS_IN_GZIP: return read_gzip(in, buf, cap);
    case HS_IN_PLAIN: break;
    }
    return read_plain(in, buf, cap);
}

const void *hs_input_data(const hs_input *in, uint64_t *size)
{
    *size = in->map ? in->map_len - in->map_skip : 0;
    return in->map ? in->map + in->map_skip : NULL;
}

void hs_input_window(void *ctx, uint64_t done, uint64_t next)
{
    hs_input *in = ctx;
    size_t give = (in->map_skip + (size_t)done) / in->page * in->page;

    /* Unmapping the pages behind keeps the resident set at a window or two;
     * the file stays in the page cache. (Mapping the next window in ahead
     * with MADV_POPULATE_READ was measured slower: a fault already maps a
     * whole page-cache folio, about 80 pages on average here.) */
    (void)next;
    if (give > in->kept) {
        madvise(in->map + in->kept, give - in->kept, MADV_DONTNEED);
        in->kept = give;
    }
    in->raw_total = done;
}

int hs_input_shrank(const hs_input *in)
{
    struct stat st;

    return in && in->map && fstat(in->fd, &st) == 0 && (uint64_t)st.st_size < in->map_len;
}

enum hs_input_format hs_input_format(const hs_input *in)
{
    return in->format;
}

const char *hs_input_error(const hs_input *in)
{
    return in->err[0] ? in->err : NULL;
}

uint64_t hs_input_raw_bytes(const hs_input *in)
{
    return in->raw_total;
}

void hs_input_close(hs_input *in)
{
    if (!in)
        return;
    if (in->zd)
        ZSTD_freeDStream(in->zd);
    if (in->zs_ready)
        inflateEnd(&in->zs);
    if (in->map) {
        munmap(in->map, in->map_len);
        /* leave the descriptor where reading it would have: at the end */
        lseek(in->fd, (off_t)in->map_len, SEEK_SET);
    }
    free(in->raw);
    free(in);
}
