/* SPDX-License-Identifier: Apache-2.0 */
/*
 * input.c - the library's byte source: a file descriptor, decompressed on the
 * fly when its first bytes are a zstd frame or a gzip member.
 *
 * Detection needs the first four bytes only, so it works on a pipe. gzip
 * input may hold many members back to back (HotSpot's -gz dumps are one
 * member per block, like `pigz`), and zstd input many frames; both are read
 * to the end. What gzip(1) and zstd(1) take, this takes: zstd input may
 * start with a skippable frame (pzstd's every frame follows one) and hold
 * them anywhere between frames; gzip input may end in zero bytes (tape
 * blocks, some upload paths pad with them), ignored with a warning as
 * gzip -d ignores them (hs_input_warning). Other bytes after the last
 * member are an error, where gzip -d warns: they may be a second file.
 * A compressed stream that ends early or is corrupt is an error
 * of its own layer ("gzip data is truncated at compressed byte N"), so a
 * user can tell a broken download from a broken dump. Such a stream still
 * gives every byte decompressed before the damage, then ends: the filter
 * sees a dump cut there, which --salvage salvages and which otherwise is a
 * truncated dump; the CLI reports both layers (hs_input_damage).
 *
 * gzip is inflated by ISA-L (isal_inflate, streaming, bounded memory):
 * measured at about half zlib's CPU time on heap dumps, and faster than
 * libdeflate, which also needs a whole member in memory (bench/RESULTS.md).
 * It checks each member's header, CRC-32 and length as zlib does, and
 * libzstd a frame's content checksum when it has one (-z writes one). With
 * hs_input_start_thread the decompressing runs on a thread of its own,
 * a few MiB ahead of the filter, its blocks handed over through a ring
 * (ring.h).
 *
 * Other compressed or archived formats (zip, xz, bzip2, lz4, 7z) are
 * recognised by their magic only, to say how to get the dump out of them.
 *
 * A regular file is mapped instead of read, which saves copying every
 * byte through read(2), often the largest single cost of a run. A plain
 * one the filter walks in place (hs_source.data: a mapping may patch it,
 * privately, privmap.h); a compressed one is
 * decoded in place, its whole file the compressed buffer (raw_mapped). As
 * the reading moves on, the pages behind it are unmapped (hs_input_window,
 * map_done), so memory stays flat; with hs_input_start_thread a pager
 * thread does that, and maps the pages ahead, on the other core (pager.h).
 * A file that shrinks while mapped raises SIGBUS, which the CLI turns into
 * an I/O error (run.c).
 */
#define _POSIX_C_SOURCE 200809L
#include "hprof_strip.h"
#include "input.h"
#include "magic.h"
#include "pager.h"
#include "privmap.h"
#include "ring.h"
#include "hasher.h"
#include "hs_port.h"

#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <isa-l/igzip_lib.h>
#include <zstd.h>

#define RAW_BUFFER (1u << 20)
/* Decompressed blocks between the reader thread and the filter: enough to
 * ride out a slow member or a burst of filter work, 5 MiB in all. The
 * filter blocks while the compressor's workers catch up (-z), and the
 * inflater, the thread a run waits on, must not run out of room then:
 * -z on a 1 GB gzip dump is 3 % faster with 5 slots than with 4. 6 were no
 * faster than 5 and took the peak RSS of --zstd=3 on a jcmd -gz dump to
 * 32.5 MiB on a busy machine; 5 stay under 29.1 MiB (bench/RESULTS.md).
 * The filter takes them in place (hs_input_borrow) or by copy
 * (hs_input_read). */
#define SLOTS 5
#define SLOT_SIZE (1u << 20)

/* A block's buffer; which blocks are filled, and how many bytes each
 * holds, the ring says (its status: bytes, or the read's end: 0 the end,
 * -1 an error). */
struct slot {
    uint8_t *buf;
    uint64_t raw;   /* compressed bytes read when it was filled */
};

struct hs_input {
    int fd;               /* -1: memory or a read callback */
    int own_fd;           /* opened by path here: closed here */
    /* a read callback (hs_input_open_read) in place of read(2) on fd */
    long (*rd)(void *ctx, void *buf, size_t cap);
    void *rd_ctx;
    int lent_map;         /* map is the caller's memory: never unmapped, no
                             page given back, no pager */
    hs_source src;        /* hs_input_source's, once made */
    int src_made;
    enum hs_input_format format;
    uint8_t *raw;         /* compressed bytes (or the sniffed prefix) */
    size_t raw_pos, raw_len, raw_cap;
    int raw_eof;
    int raw_mapped;       /* raw is the mapped file, all of it: nothing is read */
    uint64_t raw_total;   /* bytes read from fd (mapped: the file's) */
    int err_no;           /* errno of a failed read */
    char err[200];        /* what failed, for the message */
    char warning[160];    /* what was read past, for the message */
    enum hs_input_damage damage; /* the compressed data ended early or is corrupt */
    uint64_t out_total;   /* decompressed bytes given out */
    /* zstd */
    ZSTD_DStream *zd;
    size_t zret;          /* last ZSTD_decompressStream result: 0 at a frame end */
    /* gzip */
    struct inflate_state *gz, *gz2; /* gz2: the helper's, for HotSpot members */
    size_t block;         /* HotSpot's most bytes in a member */
    int member_done;
    uint64_t paired;      /* members given out by members_parallel */
    uint64_t false_headers; /* header-like bytes it met inside members */
    /* a mapped file: map[0..map_len) is the file, the input starts at
     * map + map_skip (stdin may come positioned); pages before `kept` have
     * been given back */
    uint8_t *map;
    size_t map_len, map_skip, kept, page;
    hs_pager *pager; /* pages it ahead and gives them back, when started */
    /* the reader thread (hs_input_start_thread): it alone decompresses, into
     * slot[] in turn, block k into slot[k % SLOTS], and posts them to the
     * ring; the caller takes them in the same order (ring.h) */
    int threaded;
    pthread_t thread;
    hs_ring *ring;
    struct slot slot[SLOTS];
    long took;            /* the ring's status of the block the caller is in */
    size_t taken;         /* bytes of it already given out */
    uint64_t raw_seen;    /* `raw` of the block the caller is in */
    int lent;             /* that block is lent (hs_input_borrow) */
    int end_seen;         /* the caller took the end: err and damage are final */
    /* hs_input_hash: the bytes as read (mapped: put up to map_hashed,
     * before their pages are given back) and the dump decompressed */
    hs_hasher *hash;
    size_t map_hashed;
    /* a plain file's mapping, known to privmap.c until it is unmapped or
     * hashed: a mapping (deobf.c) may then make it writable and patch it
     * in place, privately */
    hs_privmap pm;
    int pm_known;
    uint64_t file_pos;    /* hs_input_read_file: the next file byte it gives */
};

/* Maps `fd` when it is a non-empty regular file. Failing that, nothing is
 * mapped and the input is read as before: mapping is only a faster way to
 * the same bytes. */
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
    hs_port_advise_sequential(in->map, in->map_len);
}

/* A plain mapped file becomes one the filter may write (privmap.h). */
static void known_map(hs_input *in)
{
    if (!in->map || in->lent_map || in->format != HS_IN_PLAIN || in->raw_mapped)
        return;
    in->pm.map = in->map;
    in->pm.len = in->map_len;
    in->pm.data = in->map + in->map_skip;
    in->pm.size = in->map_len - in->map_skip;
    in->pm.writable = 0;
    hs_privmap_add(&in->pm);
    in->pm_known = 1;
}

static int is_compressed(const uint8_t *p, size_t n);
static int whole_header(hs_input *in);

/* read(2), again when a signal interrupts it; or the caller's callback,
 * whose count past `n` is a failure (it wrote past the buffer, or counts
 * wrong), as hs_source.read's is. */
static ssize_t read_some(hs_input *in, void *buf, size_t n)
{
    ssize_t got;

    if (in->rd) {
        long k;
        errno = 0;
        k = in->rd(in->rd_ctx, buf, n);
        if (k < 0 || (unsigned long)k > n) {
            if (errno == 0)
                errno = EIO;
            return -1;
        }
        return (ssize_t)k;
    }
    do
        got = read(in->fd, buf, n);
    while (got < 0 && errno == EINTR);
    return got;
}

/* A read failed: keeps why for hs_input_error; -1. */
static int read_failed(hs_input *in)
{
    in->err_no = errno;
    snprintf(in->err, sizeof in->err, "reading failed: %s", strerror(errno));
    return -1;
}

/* `n` compressed bytes were read after raw_len (none: the input ended). */
static void raw_got(hs_input *in, size_t n)
{
    if (in->hash)
        hs_hasher_put(in->hash, HS_HASH_IN_FILE, in->raw + in->raw_len, n);
    if (n == 0)
        in->raw_eof = 1;
    in->raw_len += n;
    in->raw_total += n;
}

/* Reads compressed bytes after raw_len, as many as the buffer holds: 0, or
 * -1 on a read error (read_failed). */
static int raw_append(hs_input *in)
{
    ssize_t n = read_some(in, in->raw + in->raw_len, in->raw_cap - in->raw_len);

    if (n < 0)
        return read_failed(in);
    raw_got(in, (size_t)n);
    return 0;
}

/* Moves the bytes not decoded yet to the front of the buffer, to make room
 * after them (raw_at() stays what it was); returns how far they moved. */
static size_t raw_to_front(hs_input *in)
{
    size_t by = in->raw_pos;

    if (by) {
        memmove(in->raw, in->raw + by, in->raw_len - by);
        in->raw_len -= by;
        in->raw_pos = 0;
    }
    return by;
}

/* Grows the buffer to `cap` bytes for what must be held ahead (a mapped
 * file holds everything already): 0, or -1 when it cannot. */
static int raw_grow(hs_input *in, size_t cap)
{
    uint8_t *bigger;

    if (in->raw_mapped)
        return 0;
    if (!(bigger = realloc(in->raw, cap)))
        return -1;
    in->raw = bigger;
    in->raw_cap = cap;
    return 0;
}

/* Refills the buffer once all of it is decoded: 0, or -1 on a read error. */
static int raw_fill(hs_input *in)
{
    in->raw_pos = 0;
    in->raw_len = 0;
    return raw_append(in);
}

/* The offset of the next compressed byte to decode. */
static uint64_t raw_at(const hs_input *in)
{
    return in->raw_total - in->raw_len + in->raw_pos;
}

/* Compressed bytes taken in: read from fd, or, mapped, decoded (all of the
 * file is in the buffer from the start). */
static uint64_t raw_taken(const hs_input *in)
{
    return in->raw_mapped ? raw_at(in) : in->raw_total;
}

/* Bytes before map[at] are done with: the pager gives their pages back
 * (and maps the next ones), or, without one, this thread does once `step`
 * bytes of them have gathered. */
static void map_done(hs_input *in, size_t at, size_t step)
{
    size_t give = at / in->page * in->page;

    /* hashed before the pages can go: they are read once */
    if (in->hash && at > in->map_hashed) {
        hs_hasher_put(in->hash, HS_HASH_IN_FILE, in->map + in->map_hashed, at - in->map_hashed);
        in->map_hashed = at;
    }

    if (in->pager) {
        hs_pager_advance(in->pager, at);
        return;
    }
    if (in->lent_map)
        return; /* the caller's memory: MADV_DONTNEED would zero it */
    if (give >= in->kept + step) {
        hs_pages_give_back(in->map, in->kept, give);
        in->kept = give;
    }
}

/* How many bytes a mapped compressed input decodes between two map_done
 * calls of its own (without a pager). */
#define MAP_STEP (1u << 20)

/* The format `p` starts with (magic.h), 0 for none. */
static int magic_kind(const uint8_t *p, size_t n)
{
    const hs_magic *m = hs_magic_of(p, n);

    return m ? (int)m->kind : 0;
}

static int is_compressed(const uint8_t *p, size_t n)
{
    int k = magic_kind(p, n);

    return k == HS_MAGIC_GZIP || k == HS_MAGIC_ZSTD;
}

/* When `p` starts like a format a dump arrives in that is not read here,
 * says so in in->err, with the command that gets the dump out: 1, else 0. */
static int foreign(hs_input *in, const uint8_t *p, size_t n)
{
    const hs_magic *m = hs_magic_of(p, n);

    if (!m || m->kind != HS_MAGIC_FOREIGN)
        return 0;
    snprintf(in->err, sizeof in->err, "this is %s, not a heap dump; decompress it first: %s",
             m->what, m->how);
    return 1;
}

static int sniff(hs_input *in)
{
    /* the first read decides; a pipe may give fewer bytes at first */
    while (in->raw_len < 8 && !in->raw_eof)
        if (raw_append(in) != 0)
            return -1;
    return 0;
}

/* Tells the format of what `in` was set up to read (a mapped file or
 * memory, else its descriptor or callback): as hs_input_open returns. */
static int open_input(hs_input *in)
{
    if (in->map) {
        uint8_t *p = in->map + in->map_skip;
        size_t n = in->map_len - in->map_skip;
        if (foreign(in, p, n))
            return -2;
        if (!is_compressed(p, n)) {
            in->format = HS_IN_PLAIN;
            return 0;
        }
        /* the whole file is read already, as it were */
        in->raw = p;
        in->raw_len = in->raw_cap = in->raw_total = n;
        in->raw_eof = in->raw_mapped = 1;
    } else {
        in->raw = malloc(RAW_BUFFER);
        if (!in->raw)
            return -1;
        in->raw_cap = RAW_BUFFER;
        if (sniff(in) != 0)
            return -1;
    }
    if (foreign(in, in->raw, in->raw_len))
        return -2;
    if (magic_kind(in->raw, in->raw_len) == HS_MAGIC_ZSTD) {
        in->format = HS_IN_ZSTD;
        in->zd = ZSTD_createDStream();
        if (!in->zd)
            return -1;
        in->zret = 1;
    } else if (magic_kind(in->raw, in->raw_len) == HS_MAGIC_GZIP) {
        in->format = HS_IN_GZIP;
        if (!(in->gz = malloc(sizeof *in->gz)))
            return -1;
        isal_inflate_init(in->gz);
        in->gz->crc_flag = ISAL_GZIP;
        /* the whole first header now: HotSpot's comment is in it */
        if (whole_header(in) == -1)
            return -1;
    } else {
        in->format = HS_IN_PLAIN;
    }
    return 0;
}

int hs_input_open(hs_input **out, int fd)
{
    hs_input *in = calloc(1, sizeof *in);
    int rc;

    *out = in;
    if (!in)
        return -1;
    in->fd = fd;
    try_map(in, fd);
    rc = open_input(in);
    if (rc == 0)
        known_map(in);
    return rc;
}

int hs_input_open_with(hs_input **out, long (*rd)(void *ctx, void *buf, size_t cap), void *ctx,
                       const void *data, size_t size)
{
    hs_input *in = calloc(1, sizeof *in);
    long page = sysconf(_SC_PAGESIZE);

    *out = in;
    if (!in)
        return -1;
    in->fd = -1;
    if (data && size) {
        /* read in place as a mapped file is, its pages left alone */
        in->map = (uint8_t *)(uintptr_t)data;
        in->map_len = size;
        in->page = page > 0 ? (size_t)page : 4096;
        in->lent_map = 1;
    } else {
        in->rd = rd;
        in->rd_ctx = ctx;
    }
    return open_input(in);
}

void hs_input_own_fd(hs_input *in)
{
    in->own_fd = 1;
}

int hs_input_started(const hs_input *in)
{
    return in->src_made || in->threaded || in->out_total;
}

const hs_source *hs_input_source(hs_input *in)
{
    /* decompressing beside the filter pays when there is a core for it
     * (the CLI's rule, for its default thread count) */
    return in ? hs_input_source_threads(in, sysconf(_SC_NPROCESSORS_ONLN) > 1) : NULL;
}

HS_API const hs_source *hs_input_source_ex(hs_input *in, int threads)
{
    if (!in)
        return NULL;
    if (threads <= 0)
        return hs_input_source(in);
    return hs_input_source_threads(in, threads > 1);
}

HS_API const void *hs_input_mapping(const hs_input *in, uint64_t *len)
{
    uint64_t n = 0;
    /* the caller's memory (hs_input_open_memory) is the caller's to know */
    const void *p = in && !in->lent_map ? hs_input_mapped(in, &n) : NULL;

    if (len)
        *len = p ? n : 0;
    return p;
}

const hs_source *hs_input_source_threads(hs_input *in, int threaded)
{
    if (in->src_made)
        return &in->src;
    if (threaded)
        (void)hs_input_start_thread(in);
    memset(&in->src, 0, sizeof in->src);
    in->src.read = hs_input_read;
    in->src.ctx = in;
    in->src.data = hs_input_data(in, &in->src.size);
    if (in->src.data)
        in->src.window = hs_input_window;
    else if (hs_input_lends(in))
        in->src.borrow = hs_input_borrow;
    in->src_made = 1;
    return &in->src;
}

int hs_input_compression(const hs_input *in)
{
    if (!in)
        return -1;
    return in->format == HS_IN_GZIP ? HS_COMPRESS_GZIP
           : in->format == HS_IN_ZSTD ? HS_COMPRESS_ZSTD
                                      : HS_COMPRESS_NONE;
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
    if (in->lent_map) { /* memory read by copy (hs_input_data is the other way) */
        size_t k = in->map_len - (size_t)in->raw_total;
        if (k > cap)
            k = cap;
        memcpy(buf, in->map + in->raw_total, k);
        n = (ssize_t)k;
    } else {
        n = read_some(in, buf, cap); /* then straight into the caller's buffer */
    }
    if (n < 0)
        return read_failed(in);
    if (in->hash)
        hs_hasher_put(in->hash, HS_HASH_IN_FILE, buf, (size_t)n);
    in->raw_total += (uint64_t)n;
    return (long)n;
}

/* The compressed layer is damaged: keeps what for the CLI, and ends the
 * decompressed stream here (the bytes before stay good). */
static void damaged(hs_input *in, enum hs_input_damage d, const char *format, const char *what)
{
    snprintf(in->err, sizeof in->err, "%s data is %s at compressed byte %llu (%s)", format,
             d == HS_DAMAGE_TRUNCATED ? "truncated" : "corrupt", (unsigned long long)raw_at(in),
             what);
    in->damage = d;
}

/* Makes compressed bytes available: 1 when there are some, 0 at the end of
 * the input when it ends between two `unit`s (`between`), -1 on a read
 * error, -2 when it ends inside one (then damaged()). */
static int raw_more(hs_input *in, int between, const char *format, const char *unit)
{
    char what[64];

    if (in->raw_pos < in->raw_len)
        return 1;
    if (!in->raw_eof && raw_fill(in) < 0)
        return -1;
    if (!in->raw_eof)
        return 1;
    if (between)
        return 0;
    snprintf(what, sizeof what, "the input ends inside a %s", unit);
    damaged(in, HS_DAMAGE_TRUNCATED, format, what);
    return -2;
}

static long read_zstd(hs_input *in, uint8_t *buf, size_t cap)
{
    ZSTD_outBuffer o = {buf, cap, 0};

    while (o.pos == 0) { /* until some output, or the end */
        ZSTD_inBuffer i;
        int more = raw_more(in, in->zret == 0, "zstd", "frame");
        if (more == -2)
            return 0;
        if (more <= 0)
            return more;
        i.src = in->raw;
        i.size = in->raw_len;
        i.pos = in->raw_pos;
        in->zret = ZSTD_decompressStream(in->zd, &o, &i);
        in->raw_pos = i.pos;
        if (ZSTD_isError(in->zret)) {
            /* what this call wrote may be half a block: dropped */
            damaged(in, HS_DAMAGE_CORRUPT, "zstd", ZSTD_getErrorName(in->zret));
            return 0;
        }
    }
    return (long)o.pos;
}

static const char *isal_what(int r)
{
    switch (r) {
    case ISAL_INVALID_BLOCK: return "invalid deflate block";
    case ISAL_INVALID_SYMBOL: return "invalid deflate symbol";
    case ISAL_INVALID_LOOKBACK: return "invalid distance too far back";
    case ISAL_INVALID_WRAPPER: return "invalid gzip header";
    case ISAL_UNSUPPORTED_METHOD: return "unknown compression method";
    case ISAL_INCORRECT_CHECKSUM: return "CRC or length check failed";
    }
    return "inflate failed";
}

/* The length of the gzip member header at p[0, n), or 0 when p[0, n) does
 * not hold all of it. Only the lengths of its fields are read here (a
 * header that is not deflate's is left to isal_inflate to refuse). */
static size_t header_len(const uint8_t *p, size_t n)
{
    size_t at = 10;
    const uint8_t *nul;
    int field;

    if (n < at)
        return 0;
    if (p[0] != 0x1f || p[1] != 0x8b || p[2] != 8)
        return at;
    if (p[3] & 0x04) { /* FEXTRA: a length, then that many bytes */
        if (n < at + 2)
            return 0;
        at += 2 + (size_t)(p[at] | p[at + 1] << 8);
    }
    for (field = 0x08; field <= 0x10; field <<= 1) /* FNAME, FCOMMENT */
        if (p[3] & field) {
            if (at >= n || !(nul = memchr(p + at, 0, n - at)))
                return 0;
            at = (size_t)(nul - p) + 1;
        }
    if (p[3] & 0x02) /* FHCRC */
        at += 2;
    return at <= n ? at : 0;
}

/* Makes the member header at raw_pos whole in the buffer before it goes to
 * isal_inflate, reading more (the pieces of a pipe may end anywhere). ISA-L
 * 2.30 resumes a header cut inside its name, comment or extra field with
 * flags it never set, and so misreads what follows: measured, valid input
 * came out "corrupt" (tests/fuzz/fuzz_gzip.c). 1, also when the input ends
 * first (isal_inflate then reports it cut), -1 on a read error, -2 when no
 * header fits the buffer (damaged()). */
static int whole_header(hs_input *in)
{
    /* A mapped file holds any header whole: the buffer's limit applies all
     * the same, so that a file reads as the same file piped in would. */
    if (in->raw_mapped && in->raw_len - in->raw_pos > RAW_BUFFER &&
        !header_len(in->raw + in->raw_pos, RAW_BUFFER)) {
        damaged(in, HS_DAMAGE_CORRUPT, "gzip", "a member header too long to hold");
        return -2;
    }
    while (!header_len(in->raw + in->raw_pos, in->raw_len - in->raw_pos) && !in->raw_eof) {
        raw_to_front(in);
        if (in->raw_len == in->raw_cap) {
            damaged(in, HS_DAMAGE_CORRUPT, "gzip", "a member header too long to hold");
            return -2;
        }
        if (raw_append(in) != 0)
            return -1;
    }
    return 1;
}

/* Reads past the zero bytes at raw_pos: 1 when they run to the end of the
 * input (said in in->warning), 0 when another byte follows them (raw_pos
 * at it), -1 on a read error. A mapped file's pages are given back as the
 * zeros are passed: padding may be long. */
static int zero_tail(hs_input *in)
{
    uint64_t from = raw_at(in);

    for (;;) {
        const uint8_t *p = in->raw + in->raw_pos, *end = in->raw + in->raw_len;
        while (p < end && *p == 0)
            p++;
        in->raw_pos = (size_t)(p - in->raw);
        if (p < end)
            return 0;
        if (in->raw_mapped)
            map_done(in, in->map_skip + in->raw_pos, MAP_STEP);
        if (in->raw_eof)
            break;
        if (raw_fill(in) < 0)
            return -1;
    }
    snprintf(in->warning, sizeof in->warning,
             "%llu zero bytes after the last gzip member, from compressed byte %llu, ignored",
             (unsigned long long)(raw_at(in) - from), (unsigned long long)from);
    return 1;
}

/* Starts the next gzip member at the next byte, its header whole: 1, or 0
 * when the input ends there (also in zero bytes: zero_tail), -1 on a read
 * error, -2 on damage. */
static int next_member(hs_input *in)
{
    int more = raw_more(in, 1, "gzip", "member");

    if (more <= 0)
        return more;
    if (in->raw[in->raw_pos] == 0) {
        if ((more = zero_tail(in)) != 0)
            return more == 1 ? 0 : more;
        /* not padding, then (nor a member after it: gzip -d neither) */
        damaged(in, HS_DAMAGE_CORRUPT, "gzip", "unexpected bytes after a gzip member");
        return -2;
    }
    /* another member follows: it must be gzip too */
    if (in->raw[in->raw_pos] != 0x1f) {
        damaged(in, HS_DAMAGE_CORRUPT, "gzip", "unexpected bytes after a gzip member");
        return -2;
    }
    isal_inflate_reset(in->gz);
    in->gz->crc_flag = ISAL_GZIP;
    in->member_done = 0;
    return whole_header(in);
}

static long read_gzip(hs_input *in, uint8_t *buf, size_t cap)
{
    struct inflate_state *g = in->gz;
    uint32_t want = cap > (1u << 30) ? (1u << 30) : (uint32_t)cap;
    int r;

    do { /* until some output, or the end */
        if (in->member_done && (r = next_member(in)) <= 0)
            return r == -2 ? 0 : r;
        if (in->raw_pos == in->raw_len && !in->raw_eof && raw_fill(in) < 0)
            return -1;
        g->next_in = in->raw + in->raw_pos;
        /* a mapped file may hold more than avail_in counts */
        g->avail_in = in->raw_len - in->raw_pos > UINT32_MAX ? UINT32_MAX
                                                             : (uint32_t)(in->raw_len - in->raw_pos);
        g->next_out = buf;
        g->avail_out = want;
        r = isal_inflate(g);
        in->raw_pos = in->raw_len - g->avail_in;
        if (r < 0) {
            /* what came out before the error is given, as gzip -dc gives
             * it: its last bytes may be inflated from the damage before it
             * showed (only the member's CRC could tell), and how many
             * depends on the room given; the damage is reported either way */
            damaged(in, HS_DAMAGE_CORRUPT, "gzip", isal_what(r));
            return (long)(want - g->avail_out);
        }
        if (g->block_state == ISAL_BLOCK_FINISH)
            in->member_done = 1;
        else if (g->avail_out == want && in->raw_pos == in->raw_len && in->raw_eof) {
            damaged(in, HS_DAMAGE_TRUNCATED, "gzip", "the input ends inside a member");
            return 0;
        }
    } while (g->avail_out == want);
    return (long)(want - g->avail_out);
}

/* Decompressed bytes, on whichever thread decompresses. */
static long decode(hs_input *in, uint8_t *buf, size_t cap)
{
    long n;

    if (in->damage)
        return 0; /* the end of what could be decompressed */
    if (in->err[0])
        return -1;
    switch (in->format) {
    case HS_IN_ZSTD: n = read_zstd(in, buf, cap); break;
    case HS_IN_GZIP: n = read_gzip(in, buf, cap); break;
    default: return read_plain(in, buf, cap);
    }
    /* the decoders keep what they still need of their input */
    if (in->raw_mapped)
        map_done(in, in->map_skip + in->raw_pos, MAP_STEP);
    return n;
}

/* Block k, holding `len` bytes (or the end), to the caller: its slot is
 * filled. */
static void post_block(hs_input *in, unsigned k, long len)
{
    in->slot[k % SLOTS].raw = raw_taken(in);
    hs_ring_post(in->ring, k, len);
}

/* ---- HotSpot's -gz dumps: members on two threads ----
 * `jcmd PID GC.heap_dump -gz=N` writes 1 MiB blocks as independent gzip
 * members, the first with the header comment "HPROF BLOCKSIZE=<bytes>",
 * the most one member holds. Where the next member starts is only known by
 * inflating this one, so members are handed out by their headers, found
 * ahead (member_end), and inflated by the reader thread and a helper, each
 * taking the next one as soon as it is free: two at a time, but never
 * waiting for each other (pairs in lockstep left a core idle whenever the
 * filter took one). They go to the filter in order, each only when the one
 * before ended exactly where it began, so one that began at a false start
 * is never given out.
 *
 * Header-like bytes inside compressed data (a header's first four bytes
 * turn up about once in 2 GB of it) make a member run out of input there:
 * it is handed out again up to the next header along, within a budget
 * (may_try_another_header). Anything else (a member bigger than it says,
 * an empty one, damage, trailing bytes) hands over to the streaming
 * inflater at the first member not given out, which then gives the same
 * bytes and messages as ever. */
#define HOTSPOT_COMMENT "HPROF BLOCKSIZE="
#define PAR_RAW (4u << 20)
#define JOBS SLOTS /* members out at once: each has a slot of its own */

/* The block size a HotSpot first member header at p gives, or 0. */
static size_t hotspot_block(const uint8_t *p, size_t n)
{
    size_t k = 10 + sizeof HOTSPOT_COMMENT - 1, v = 0;

    if (n < k + 2 || memcmp(p, "\x1f\x8b\x08\x10", 4) != 0 ||
        memcmp(p + 10, HOTSPOT_COMMENT, sizeof HOTSPOT_COMMENT - 1) != 0)
        return 0;
    for (; k < n && p[k] >= '0' && p[k] <= '9' && v <= SLOT_SIZE; k++)
        v = v * 10 + (size_t)(p[k] - '0');
    return k < n && p[k] == 0 && v <= SLOT_SIZE ? v : 0;
}

/* A gzip member header as HotSpot writes them: deflate, no name, no extra
 * field (a comment at most). */
static int member_header(const uint8_t *p, size_t n)
{
    return n >= 10 && p[0] == 0x1f && p[1] == 0x8b && p[2] == 8 && (p[3] & ~0x10) == 0;
}

/* The offset of the next member header in raw[from, to), or 0. */
static size_t next_header(const hs_input *in, size_t from, size_t to)
{
    const uint8_t *p = in->raw + from, *end = in->raw + to;

    while ((p = memchr(p, 0x1f, (size_t)(end - p))) != NULL) {
        if (member_header(p, (size_t)(end - p)))
            return (size_t)(p - in->raw);
        p++;
    }
    return 0;
}

/* Where a member may end when it does not end by raw[at]: at the next
 * header after `at`, at the end of the input for the last member, or 0
 * when the buffer holds neither. A mapped file is looked at as far as the
 * buffer would reach (PAR_RAW), so that a member too big for HotSpot's goes
 * to the streaming path as it does when read, not after a scan of the
 * file. */
static size_t member_end(const hs_input *in, size_t at)
{
    size_t to = in->raw_len, e;

    if (at >= in->raw_len)
        return 0;
    if (in->raw_mapped && to - at > PAR_RAW)
        to = at + PAR_RAW;
    e = next_header(in, at + 1, to);
    return !e && in->raw_eof && to == in->raw_len ? in->raw_len : e;
}

/* See above: every try inflates the member again, so input made of such
 * bytes costs a few members' work, then goes to the streaming path. 8 tries,
 * and one more per 64 MiB of input. */
static int may_try_another_header(hs_input *in)
{
    return ++in->false_headers <= 8 + (raw_at(in) >> 26);
}

typedef struct {
    size_t a, b;    /* the member: raw[a, b) */
    unsigned n;     /* its number: it goes to slot[n % SLOTS] */
    size_t got;     /* bytes it gave */
    int r, ok, done;
} member_job;

/* The two threads' shared state, under mu (cv: a member is done, or the
 * reading is). Which member may go in which slot, and when the filter is
 * done with it, is the ring's. Members are numbered from
 * `first`, the first block the reader thread posts here; `given` have been
 * handed out and `posted` of them given to the filter. */
typedef struct {
    hs_input *in;
    member_job job[JOBS];
    unsigned first, given, posted;
    size_t next;    /* the next member to hand out starts at raw[next] */
    size_t past;    /* and ends at the first header after raw[past]: past
                     * is next but for a member handed out again */
    int running;    /* members being inflated */
    int reading;    /* a thread is reading after raw_len, unlocked */
    int failed;     /* member `posted` did not end where the next begins */
    int over;       /* no more members: the streaming path goes on */
    pthread_mutex_t mu;
    pthread_cond_t cv;
} members;

static void wait_on(members *m)
{
    pthread_cond_wait(&m->cv, &m->mu);
}

/* Gives the filter every member inflated, in order, up to the first that
 * is not done or did not end where the next one begins. */
static void post_members(members *m)
{
    hs_input *in = m->in;
    unsigned was = m->posted;

    while (m->posted < m->given && !m->failed) {
        member_job *j = &m->job[m->posted % JOBS];
        if (!j->done)
            break;
        if (!j->ok) {
            m->failed = 1;
            break;
        }
        in->raw_pos = j->b;
        post_block(in, j->n, (long)j->got);
        in->paired++;
        m->posted++;
    }
    if (in->raw_mapped && m->posted != was)
        map_done(in, in->map_skip + in->raw_pos, MAP_STEP);
    /* only on news: two threads waiting here must not wake each other for
     * nothing, over and over */
    if (m->posted != was || m->failed)
        pthread_cond_broadcast(&m->cv);
}

/* Reads more compressed bytes after raw_len, moving the member not handed
 * out yet to the front first when the buffer is full (only once every
 * member is in: they point into it). The read is made without the lock: a
 * pipe may keep it waiting, and the members out go on meanwhile. 1 when
 * there is more to look at, 0 to wait for the other thread, -1 when this
 * path cannot go on. */
static int more_raw(members *m)
{
    hs_input *in = m->in;
    size_t len = in->raw_len, moved;
    ssize_t n;

    if (in->raw_eof)
        return -1; /* a member that cannot end: the streaming path says why */
    if (m->reading)
        return 0;
    if (len == in->raw_cap) {
        if (m->running || m->posted < m->given)
            return 0;
        if (in->raw_pos == 0)
            return -1; /* one member fills the buffer: not HotSpot's */
        moved = raw_to_front(in);
        len = in->raw_len;
        m->next -= moved;
        m->past -= moved;
    }
    m->reading = 1;
    pthread_mutex_unlock(&m->mu);
    n = read_some(in, in->raw + len, in->raw_cap - len);
    pthread_mutex_lock(&m->mu);
    m->reading = 0;
    pthread_cond_broadcast(&m->cv);
    if (n < 0)
        return -1; /* the streaming reader meets it again and says so */
    raw_got(in, (size_t)n);
    return 1;
}

/* The member that did not end where the next began (m->failed): handed
 * out again, up to the next header along, when it ran out of input there
 * and the budget allows; the members after it began at a false start. 0
 * when the streaming path must take over. */
static int try_again(members *m)
{
    member_job *j = &m->job[m->posted % JOBS];

    if (j->r != ISAL_END_INPUT || !may_try_another_header(m->in))
        return 0;
    m->failed = 0;
    m->given = m->posted;
    m->next = j->a;
    m->past = j->b;
    return 1;
}

/* Under m->mu: the next member to inflate, or NULL when there is none
 * (m->over, or the filter stopped the ring). Every wait here is for the
 * other thread, which wakes it when its member is done: also when the
 * ring stopped it before it began. */
static member_job *hand_out(members *m)
{
    hs_input *in = m->in;

    for (;;) {
        member_job *j;
        size_t b;
        int more;
        post_members(m);
        if (m->over || hs_ring_stopped(in->ring))
            return NULL;
        if (m->failed) {
            if (m->running)
                wait_on(m);
            else if (!try_again(m))
                m->over = 1;
            continue;
        }
        if (m->given - m->posted == JOBS) {
            wait_on(m);
            continue;
        }
        if (m->next == in->raw_len && in->raw_eof) { /* every member is out */
            if (m->posted < m->given)
                wait_on(m);
            else
                m->over = 1;
            continue;
        }
        if (!(b = member_end(in, m->past))) {
            if ((more = more_raw(m)) == 0)
                wait_on(m);
            else if (more < 0)
                m->over = 1;
            continue;
        }
        if (!member_header(in->raw + m->next, in->raw_len - m->next)) {
            m->over = 1;
            continue;
        }
        j = &m->job[m->given % JOBS];
        j->a = m->next;
        j->b = b;
        j->n = m->first + m->given++;
        j->done = j->ok = 0;
        m->next = m->past = b;
        m->running++;
        return j;
    }
}

/* One whole member, all of raw[a, b), CRC and length checked, into its
 * slot. */
static void inflate_member(hs_input *in, struct inflate_state *st, member_job *j, uint8_t *out)
{
    isal_inflate_init(st);
    st->next_in = in->raw + j->a;
    st->avail_in = (uint32_t)(j->b - j->a);
    st->next_out = out;
    st->avail_out = (uint32_t)in->block;
    st->crc_flag = ISAL_GZIP;
    j->r = isal_inflate_stateless(st);
    j->got = in->block - st->avail_out;
    j->ok = j->r == ISAL_DECOMP_OK && st->avail_in == 0 && j->got > 0;
}

/* What each of the two threads does: inflate the next member, until there
 * is none. */
static void inflate_members(members *m, struct inflate_state *st)
{
    hs_input *in = m->in;
    member_job *j;

    pthread_mutex_lock(&m->mu);
    while ((j = hand_out(m)) != NULL) {
        pthread_mutex_unlock(&m->mu);
        /* the filter may still be reading the member JOBS back; stopped,
         * the member stays not ok, and hand_out sees the stop */
        if (hs_ring_room(in->ring, j->n) == 0)
            inflate_member(in, st, j, in->slot[j->n % SLOTS].buf);
        pthread_mutex_lock(&m->mu);
        j->done = 1;
        m->running--;
        pthread_cond_broadcast(&m->cv); /* the other may wait for it */
    }
    pthread_cond_broadcast(&m->cv); /* and for m->over */
    pthread_mutex_unlock(&m->mu);
}

static void *helper_thread(void *arg)
{
    members *m = arg;

    inflate_members(m, m->in->gz2);
    return NULL;
}

/* Inflates members on two threads while they are HotSpot's and end where
 * the next begins; returns the next slot to fill. */
static unsigned members_parallel(hs_input *in, unsigned first)
{
    members m;
    pthread_t helper;
    int helped;

    memset(&m, 0, sizeof m);
    m.in = in;
    m.first = first;
    m.next = m.past = in->raw_pos;
    if (pthread_mutex_init(&m.mu, NULL) != 0)
        return first;
    if (pthread_cond_init(&m.cv, NULL) != 0) {
        pthread_mutex_destroy(&m.mu);
        return first; /* the streaming path does it all */
    }
    helped = pthread_create(&helper, NULL, helper_thread, &m) == 0;
    inflate_members(&m, in->gz);
    if (helped)
        pthread_join(helper, NULL);
    pthread_cond_destroy(&m.cv);
    pthread_mutex_destroy(&m.mu);
    return first + m.posted;
}

/* The reader thread: fills the slots in turn, each as full as it goes (the
 * decoders give out a little at a time), until the input ends or fails; the
 * end (0 or -1) goes in a slot of its own. */
static void *reader_thread(void *arg)
{
    hs_input *in = arg;
    long end = 1;
    unsigned i = 0;

    if (in->gz2) {
        i = members_parallel(in, 0);
        /* the streaming inflater goes on from the next member */
        in->member_done = 1;
    }
    for (; end > 0; i++) {
        struct slot *s = &in->slot[i % SLOTS];
        long got = 0, n = 1;
        if (hs_ring_room(in->ring, i) != 0)
            break; /* stopped */
        while (got < (long)SLOT_SIZE && (n = decode(in, s->buf + got, SLOT_SIZE - got)) > 0)
            got += n;
        if (got == 0)
            end = n; /* nothing more: this block says how it ended */
        post_block(in, i, got ? got : n);
    }
    return NULL;
}

/* The slot of the block the caller is in, once the thread has filled it
 * (its length in in->took): it, or NULL at the end (in->took says how the
 * input ended, and it stays the end). */
static struct slot *slot_to_take(hs_input *in)
{
    unsigned k;
    struct slot *s;
    int r = hs_ring_take(in->ring, &k, &in->took);

    /* only hs_input_close stops the ring, and the caller waits no more */
    assert(r == 0);
    (void)r;
    s = &in->slot[k % SLOTS];
    in->raw_seen = s->raw;
    if (in->took <= 0) {
        /* the thread wrote err and damage before this block, and no more */
        in->end_seen = 1;
        return NULL;
    }
    return s;
}

/* Gives the block the caller is in back to the thread once all of it is
 * taken. */
static void give_back_if_taken(hs_input *in)
{
    if (in->taken < (size_t)in->took)
        return;
    hs_ring_release(in->ring);
    in->taken = 0;
}

static long read_threaded(hs_input *in, uint8_t *buf, size_t cap)
{
    struct slot *s = slot_to_take(in);
    size_t k;

    if (!s)
        return in->took;
    k = (size_t)in->took - in->taken;
    if (k > cap)
        k = cap;
    memcpy(buf, s->buf + in->taken, k);
    in->taken += k;
    give_back_if_taken(in);
    return (long)k;
}

long hs_input_borrow(void *ctx, const void **block)
{
    hs_input *in = ctx;
    struct slot *s;
    long n;

    if (in->lent) { /* the block lent last is all taken */
        give_back_if_taken(in);
        in->lent = 0;
    }
    if (!(s = slot_to_take(in)))
        return in->took;
    *block = s->buf + in->taken;
    n = in->took - (long)in->taken;
    in->taken = (size_t)in->took;
    in->lent = 1;
    in->out_total += (uint64_t)n;
    if (in->hash && n > 0 && in->format != HS_IN_PLAIN)
        hs_hasher_put(in->hash, HS_HASH_IN_DUMP, *block, (size_t)n);
    return n;
}

void hs_input_drain(hs_input *in)
{
    uint8_t buf[1u << 16];

    if (!in || in->format == HS_IN_PLAIN)
        return;
    if (!in->threaded) {
        while (decode(in, buf, sizeof buf) > 0)
            ;
        return;
    }
    if (in->lent) {
        give_back_if_taken(in);
        in->lent = 0;
    }
    while (slot_to_take(in) != NULL) {
        in->taken = (size_t)in->took;
        give_back_if_taken(in);
    }
}

int hs_input_start_thread(hs_input *in)
{
    unsigned i;

    /* a mapped file's page-table work goes to a thread (pager.h) */
    if (in->map && !in->lent_map && !in->pager)
        in->pager = hs_pager_start(in->map, in->map_len, in->page, in->kept);
    /* zstd decompresses at several times the filter's speed: a thread
     * there only adds a copy (measured: no faster) */
    if (in->format != HS_IN_GZIP || in->threaded)
        return 0;
    for (i = 0; i < SLOTS; i++)
        if (!(in->slot[i].buf = malloc(SLOT_SIZE)))
            return -1;
    /* members are handed out of the buffer, a few at a time */
    if (in->raw_total == in->raw_len && (in->block = hotspot_block(in->raw, in->raw_len)) != 0 &&
        raw_grow(in, PAR_RAW) == 0)
        in->gz2 = malloc(sizeof *in->gz2);
    if (!(in->ring = hs_ring_new(SLOTS, 0)))
        return -1;
    if (pthread_create(&in->thread, NULL, reader_thread, in) != 0) {
        hs_ring_free(in->ring);
        in->ring = NULL;
        return -1;
    }
    in->threaded = 1;
    return 0;
}

long hs_input_read(void *ctx, void *buf, size_t cap)
{
    hs_input *in = ctx;
    long n = in->threaded ? read_threaded(in, buf, cap) : decode(in, buf, cap);

    if (n > 0)
        in->out_total += (uint64_t)n;
    if (n > 0 && in->hash && in->format != HS_IN_PLAIN)
        hs_hasher_put(in->hash, HS_HASH_IN_DUMP, buf, (size_t)n);
    return n;
}

/* Stops the reader thread: it finishes the block it is decompressing. */
static void stop_thread(hs_input *in)
{
    hs_ring_stop(in->ring);
    pthread_join(in->thread, NULL);
    hs_ring_free(in->ring);
    in->ring = NULL;
    in->threaded = 0;
}

/* With the reader thread, what went wrong is known once the caller has
 * read to the end; before that it is the thread's, still at work. */
static int settled(const hs_input *in)
{
    return !in->threaded || in->end_seen;
}

enum hs_input_damage hs_input_damage(const hs_input *in)
{
    return in && settled(in) ? in->damage : HS_DAMAGE_NONE;
}

uint64_t hs_input_dump_bytes(const hs_input *in)
{
    return in ? in->out_total : 0;
}

hs_status hs_input_damaged(const hs_input *in)
{
    switch (hs_input_damage(in)) {
    case HS_DAMAGE_NONE: break;
    case HS_DAMAGE_TRUNCATED: return HS_E_TRUNCATED;
    case HS_DAMAGE_CORRUPT: return HS_E_MALFORMED;
    }
    return HS_OK;
}

const void *hs_input_mapped(const hs_input *in, uint64_t *size)
{
    *size = in->map ? in->map_len - in->map_skip : 0;
    return in->map ? in->map + in->map_skip : NULL;
}

const void *hs_input_data(const hs_input *in, uint64_t *size)
{
    if (in->raw_mapped) { /* compressed: the decoder's, not the filter's */
        *size = 0;
        return NULL;
    }
    return hs_input_mapped(in, size);
}

void hs_input_window(void *ctx, uint64_t done, uint64_t next)
{
    hs_input *in = ctx;

    /* Unmapping the pages behind keeps the resident set at a window or two;
     * the file stays in the page cache. (Mapping the next window in ahead
     * on this thread, with MADV_POPULATE_READ, was measured slower: a fault
     * already maps a whole page-cache folio. The pager's gain is the other
     * core.) */
    (void)next;
    in->raw_total = done;
    map_done(in, in->map_skip + (size_t)done, 1);
}

void hs_input_hash(hs_input *in, hs_hasher *h)
{
    assert(!in->hash && in->out_total == 0 && !in->threaded);
    /* hashed as its pages are given back, after the filter: kept as read
     * (a mapping then reads it through a copy) */
    if (in->pm_known) {
        int was = hs_privmap_remove(&in->pm);
        assert(!was); /* no filter has run on it yet */
        (void)was;
        in->pm_known = 0;
    }
    in->hash = h;
    if (in->map) {
        in->map_hashed = in->map_skip;
    } else {
        /* what was read to tell the format (and a gzip header) is all still
         * in the buffer */
        assert(in->raw_total == in->raw_len);
        hs_hasher_put(h, HS_HASH_IN_FILE, in->raw, in->raw_len);
    }
}

void hs_input_hash_end(hs_input *in, uint64_t consumed)
{
    size_t end;

    if (!in->hash)
        return;
    /* the thread would put what it still reads into a hasher whose
     * digests are taken next, and ended (an assertion failure, 1 run in
     * 20 of a .gz input stopped by --max-held with a JSON report) */
    if (in->threaded)
        stop_thread(in);
    if (!in->map)
        return;
    end = in->map_skip + (in->format == HS_IN_PLAIN ? (size_t)consumed : in->raw_pos);
    if (end > in->map_len)
        end = in->map_len;
    if (end > in->map_hashed)
        hs_hasher_put(in->hash, HS_HASH_IN_FILE, in->map + in->map_hashed, end - in->map_hashed);
    in->map_hashed = end;
}

void hs_input_unhash(hs_input *in, const hs_hasher *h)
{
    if (!in || !h || in->hash != h)
        return;
    if (in->threaded) /* it puts what it reads ahead */
        stop_thread(in);
    in->hash = NULL;
}

int hs_input_shrank(const hs_input *in)
{
    struct stat st;

    return in && in->map && !in->lent_map && fstat(in->fd, &st) == 0 && (uint64_t)st.st_size < in->map_len;
}

int hs_input_lends(const hs_input *in)
{
    return in->threaded;
}

enum hs_input_format hs_input_format(const hs_input *in)
{
    return in->format;
}

const char *hs_input_error(const hs_input *in)
{
    return in && settled(in) && in->err[0] ? in->err : NULL;
}

const char *hs_input_warning(const hs_input *in)
{
    return in && settled(in) && in->warning[0] ? in->warning : NULL;
}

uint64_t hs_input_paired_members(const hs_input *in)
{
    return settled(in) ? in->paired : 0;
}

/* The file's own bytes, from where the input starts: a mapped file's in
 * place (copied out, the pages behind given back every 64 MiB), else what
 * was sniffed, then the descriptor's or the callback's next bytes. */
long hs_input_read_file(void *ctx, void *buf, size_t cap)
{
    hs_input *in = ctx;
    size_t k;
    ssize_t n;

    in->src_made = 1; /* one run per input */
    if (in->map) {
        size_t at = in->map_skip + (size_t)in->file_pos, step = (size_t)64 << 20;
        k = in->map_len - at < cap ? in->map_len - at : cap;
        memcpy(buf, in->map + at, k);
        in->file_pos += k;
        if (!in->lent_map && at + k >= in->kept + step) {
            size_t give = (at + k) / in->page * in->page;
            hs_pages_give_back(in->map, in->kept, give);
            in->kept = give;
        }
        return (long)k;
    }
    if (in->raw_pos < in->raw_len) {
        k = in->raw_len - in->raw_pos < cap ? in->raw_len - in->raw_pos : cap;
        memcpy(buf, in->raw + in->raw_pos, k);
        in->raw_pos += k;
        in->file_pos += k;
        return (long)k;
    }
    if (in->raw_eof)
        return 0;
    if ((n = read_some(in, buf, cap)) < 0)
        return read_failed(in);
    if (n == 0)
        in->raw_eof = 1;
    in->raw_total += (uint64_t)n;
    in->file_pos += (uint64_t)n;
    return (long)n;
}

uint64_t hs_input_file_bytes(const hs_input *in)
{
    return in->file_pos;
}

uint64_t hs_input_raw_bytes(const hs_input *in)
{
    return in->threaded ? in->raw_seen : raw_taken(in);
}

void hs_input_close(hs_input *in)
{
    unsigned i;

    if (!in)
        return;
    if (in->threaded)
        stop_thread(in);
    for (i = 0; i < SLOTS; i++)
        free(in->slot[i].buf);
    if (in->zd)
        ZSTD_freeDStream(in->zd);
    free(in->gz);
    free(in->gz2);
    if (in->pm_known)
        (void)hs_privmap_remove(&in->pm);
    if (in->map && !in->lent_map) {
        hs_pager_stop(in->pager);
        munmap(in->map, in->map_len);
        /* leave the descriptor where reading it would have: at the end */
        lseek(in->fd, (off_t)in->map_len, SEEK_SET);
    }
    if (!in->raw_mapped)
        free(in->raw);
    if (in->own_fd)
        close(in->fd);
    free(in);
}
