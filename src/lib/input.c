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
 * The codec table (codec.h) tells the format by the first bytes and gives
 * its decoder (in_gzip_stream.c, in_zstd.c); with hs_input_start_thread a slow one
 * runs on a thread of its own, a few MiB ahead of the filter (inthread.c).
 * Other compressed or archived formats (zip, xz, bzip2, lz4, 7z) are
 * recognised by their magic only, to say how to get the dump out of them.
 * The files of the input: input_int.h.
 *
 * A regular file is mapped instead of read, which saves copying every
 * byte through read(2), often the largest single cost of a run. A plain
 * one the filter walks in place (hs_source.data: a mapping may patch it,
 * privately, hs_input_writable); a compressed one is
 * decoded in place, its whole file the compressed buffer (raw_mapped). As
 * the reading moves on, the pages behind it are unmapped (hs_input_window,
 * hs_in_map_done), so memory stays flat; with hs_input_start_thread a pager
 * thread does that, and maps the pages ahead, on the other core (pager.h).
 * A file that shrinks while mapped raises SIGBUS, which the CLI turns into
 * an I/O error (run.c).
 */
#define _POSIX_C_SOURCE 200809L
#include "input_int.h"
#include "hs_port.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* When the first bytes are those of a format a dump arrives in that is not
 * read here (`c`, the codec they name), says so in in->fault, with the
 * command that gets the dump out: 1, else 0. */
static int foreign(hs_input *in, const hs_codec *c)
{
    if (!c || c->dec)
        return 0;
    hs_io_error(&in->fault, HS_E_UNSUPPORTED, UINT64_MAX,
                "this is %s, not a heap dump; decompress it first: %s", c->what, c->how);
    return 1;
}

static hs_status sniff(hs_input *in)
{
    /* the first read decides; a pipe may give fewer bytes at first */
    while (in->raw_len < 8 && !in->raw_eof)
        if (hs_in_raw_append(in) != HS_OK)
            return HS_E_READ;
    return HS_OK;
}

/* Tells the format of what `in` was set up to read (a mapped file or
 * memory, else its descriptor or callback): as hs_input_open returns. */
static hs_status open_input(hs_input *in)
{
    const hs_codec *c;

    if (in->map) {
        uint8_t *p = in->map + in->map_skip;
        size_t n = in->map_len - in->map_skip;
        c = hs_codec_sniff(p, n);
        if (foreign(in, c))
            return HS_E_UNSUPPORTED;
        if (!c)
            return HS_OK; /* plain: read in place */
        /* the whole file is read already, as it were */
        in->raw = p;
        in->raw_len = in->raw_cap = in->raw_total = n;
        in->raw_eof = in->raw_mapped = 1;
    } else {
        in->raw = malloc(HS_IN_RAW_BUFFER);
        if (!in->raw)
            return HS_E_NOMEM;
        in->raw_cap = HS_IN_RAW_BUFFER;
        if (sniff(in) != HS_OK)
            return HS_E_READ;
        c = hs_codec_sniff(in->raw, in->raw_len);
        if (foreign(in, c))
            return HS_E_UNSUPPORTED;
        if (!c)
            return HS_OK;
    }
    in->codec = c;
    return c->dec->open(in);
}

hs_status hs_input_open(hs_input **out, int fd)
{
    hs_input *in = calloc(1, sizeof *in);

    *out = in;
    if (!in)
        return HS_E_NOMEM;
    in->fd = fd;
    try_map(in, fd);
    return open_input(in);
}

hs_status hs_input_open_with(hs_input **out, long (*rd)(void *ctx, void *buf, size_t cap),
                             void *ctx, const void *data, size_t size)
{
    hs_input *in = calloc(1, sizeof *in);
    long page = sysconf(_SC_PAGESIZE);

    *out = in;
    if (!in)
        return HS_E_NOMEM;
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
    return in->codec ? in->codec->id : HS_COMPRESS_NONE;
}


long hs_input_read(void *ctx, void *buf, size_t cap)
{
    hs_input *in = ctx;
    long n = in->threaded ? hs_in_read_threaded(in, buf, cap) : hs_in_decode(in, buf, cap);

    if (n > 0)
        in->out_total += (uint64_t)n;
    if (n > 0 && in->hash && in->codec)
        hs_hasher_put(in->hash, HS_HASH_IN_DUMP, buf, (size_t)n);
    return n;
}


enum hs_input_damage hs_input_damage(const hs_input *in)
{
    return in && hs_in_settled(in) ? in->damage : HS_DAMAGE_NONE;
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

int hs_input_writable(hs_input *in)
{
    /* only a plain file mapped here: memory lent by the caller is the
     * caller's, a compressed file is the decoder's, and a hashed input is
     * hashed from its pages after the filter has been through them */
    if (!in->map || in->lent_map || in->codec || in->hash)
        return 0;
    /* once, on the filter's first asking: PROT_WRITE makes a private
     * mapping count in full against the system's commit limit, which a
     * run that writes nothing need not. ENOMEM (a strict limit, a file
     * larger than memory): left read-only, and read by copy */
    if (!in->writable && mprotect(in->map, in->map_len, PROT_READ | PROT_WRITE) == 0)
        in->writable = 1;
    return in->writable;
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
    hs_in_map_done(in, in->map_skip + (size_t)done, 1);
}

void hs_input_hash(hs_input *in, hs_hasher *h)
{
    assert(!in->hash && in->out_total == 0 && !in->threaded);
    /* hashed as its pages are given back, after the filter: kept as read
     * (hs_input_writable says no from now on; a mapping then reads it
     * through a copy) */
    assert(!in->writable); /* no filter has run on it yet */
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
        hs_in_stop_thread(in);
    if (!in->map)
        return;
    end = in->map_skip + (!in->codec ? (size_t)consumed : in->raw_pos);
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
        hs_in_stop_thread(in);
    in->hash = NULL;
}

int hs_input_shrank(const hs_input *in)
{
    struct stat st;

    return in && in->map && !in->lent_map && fstat(in->fd, &st) == 0 && (uint64_t)st.st_size < in->map_len;
}


const char *hs_input_error(const hs_input *in)
{
    const hs_error *e = hs_input_fault(in);

    return e ? e->message : NULL;
}

const hs_error *hs_input_fault(const hs_input *in)
{
    return in && hs_in_settled(in) && in->fault.code != HS_OK ? &in->fault : NULL;
}

const char *hs_input_warning(const hs_input *in)
{
    return in && hs_in_settled(in) && in->warning[0] ? in->warning : NULL;
}

uint64_t hs_input_paired_members(const hs_input *in)
{
    return hs_in_settled(in) ? in->paired : 0;
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
    if ((n = hs_in_read_some(in, buf, cap)) < 0) {
        hs_in_read_failed(in);
        return -1; /* as hs_source.read */
    }
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
    return in->threaded ? in->raw_seen : hs_in_raw_taken(in);
}

void hs_input_close(hs_input *in)
{
    unsigned i;

    if (!in)
        return;
    if (in->threaded)
        hs_in_stop_thread(in);
    for (i = 0; i < HS_IN_SLOTS; i++)
        free(in->slot[i].buf);
    if (in->codec)
        in->codec->dec->close(in);
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
