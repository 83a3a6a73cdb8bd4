/* SPDX-License-Identifier: Apache-2.0 */
/*
 * input_int.h - the input's insides, shared by its files (input.h is what
 * the rest of the library sees):
 *
 *   inbuf.c            the bytes as read: the descriptor, the callback or
 *                      the mapping, the compressed buffer, plain reads,
 *                      damage
 *   in_gzip_members.c  HotSpot's -gz members, two at a time (on the reader
 *                      thread)
 *   in_gzip_stream.c   gzip members, streaming (ISA-L)
 *   in_zstd.c          zstd frames (libzstd)
 *   inthread.c         the reader thread, on the ring (ring.h)
 *   input.c            opening (the codec table tells the format), the
 *                      source, hashing, closing
 *
 * Each file calls only the ones before it (tests/lanes/layers.sh; src/lib/io.mk
 * lists them in that order); decoders are reached through the codec table
 * (codec.h).
 */
#ifndef HS_INPUT_INT_H
#define HS_INPUT_INT_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "codec.h"
#include "hasher.h"
#include "hprof_strip.h"
#include "input.h"
#include "ioerr.h"
#include "pager.h"
#include "ring.h"

/* Its sizes (the raw buffer, the reader thread's blocks, the mapped
 * step, the HotSpot members' budget) are hs_limits.h's. */
#include "hs_limits.h"

/* A block's buffer; which blocks are filled, and how many bytes each
 * holds, the ring says (its status: bytes, or the read's end: 0 the end,
 * -1 an error). */
struct hs_in_slot {
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
    const hs_codec *codec; /* NULL: plain */
    void *dec;            /* the codec's decoder's state */
    uint8_t *raw;         /* compressed bytes (or the sniffed prefix) */
    size_t raw_pos, raw_len, raw_cap;
    int raw_eof;
    int raw_mapped;       /* raw is the mapped file, all of it: nothing is read */
    uint64_t raw_total;   /* bytes read from fd (mapped: the file's) */
    hs_error fault;       /* what failed (code HS_OK: nothing), for the
                             message; offset: the compressed byte, or
                             UINT64_MAX (ioerr.h) */
    char warning[160];    /* what was read past, for the message */
    enum hs_input_damage damage; /* the compressed data ended early or is corrupt */
    uint64_t out_total;   /* decompressed bytes given out */
    uint64_t paired;      /* blocks a decoder's `ahead` gave out (in_gzip_members.c) */
    /* a mapped file: map[0..map_len) is the file, the input starts at
     * map + map_skip (stdin may come positioned); pages before `kept` have
     * been given back */
    uint8_t *map;
    size_t map_len, map_skip, kept, page;
    hs_pager *pager; /* pages it ahead and gives them back, when started */
    /* the reader thread (hs_input_start_thread): it alone decompresses, into
     * slot[] in turn, block k into slot[k % HS_IN_SLOTS], and posts them to
     * the ring; the caller takes them in the same order (ring.h) */
    int threaded;
    pthread_t thread;
    hs_ring *ring;
    struct hs_in_slot slot[HS_IN_SLOTS];
    long took;            /* the ring's status of the block the caller is in */
    size_t taken;         /* bytes of it already given out */
    uint64_t raw_seen;    /* `raw` of the block the caller is in */
    int lent;             /* that block is lent (hs_input_borrow) */
    int end_seen;         /* the caller took the end: err and damage are final */
    /* hs_input_hash: the bytes as read (mapped: put up to map_hashed,
     * before their pages are given back) and the dump decompressed */
    hs_hasher *hash;
    size_t map_hashed;
    /* the mapping made writable for a filter that patches names in place,
     * privately (hs_input_writable) */
    int writable;
    uint64_t file_pos;    /* hs_input_read_file: the next file byte it gives */
};

/* ---- inbuf.c: the bytes as read ---- */

/* read(2), again when a signal interrupts it; or the caller's callback,
 * whose count past `n` is a failure (it wrote past the buffer, or counts
 * wrong), as hs_source.read's is. */
ssize_t hs_in_read_some(hs_input *in, void *buf, size_t n);
/* A read failed: keeps why for hs_input_error; HS_E_READ. */
hs_status hs_in_read_failed(hs_input *in);
/* `n` compressed bytes were read after raw_len (none: the input ended). */
void hs_in_raw_got(hs_input *in, size_t n);
/* Reads compressed bytes after raw_len, as many as the buffer holds: HS_OK,
 * or HS_E_READ. */
hs_status hs_in_raw_append(hs_input *in);
/* Moves the bytes not decoded yet to the front of the buffer, to make room
 * after them (hs_in_raw_at() stays what it was); returns how far they
 * moved. */
size_t hs_in_raw_to_front(hs_input *in);
/* Grows the buffer to `cap` bytes for what must be held ahead (a mapped
 * file holds everything already): HS_OK, or HS_E_NOMEM. */
hs_status hs_in_raw_grow(hs_input *in, size_t cap);
/* Refills the buffer once all of it is decoded: HS_OK, or HS_E_READ. */
hs_status hs_in_raw_fill(hs_input *in);
/* The offset of the next compressed byte to decode. */
uint64_t hs_in_raw_at(const hs_input *in);
/* Compressed bytes taken in: read from fd, or, mapped, decoded. */
uint64_t hs_in_raw_taken(const hs_input *in);
/* Bytes before map[at] are done with: the pager gives their pages back
 * (and maps the next ones), or, without one, this thread does once `step`
 * bytes of them have gathered. */
void hs_in_map_done(hs_input *in, size_t at, size_t step);
/* The compressed layer is damaged at the next compressed byte: keeps what
 * for the CLI, and ends the decompressed stream here (the bytes before stay
 * good). `format`: the codec's name. HS_E_TRUNCATED or HS_E_MALFORMED. */
hs_status hs_in_damaged(hs_input *in, enum hs_input_damage d, const char *format, const char *what);
/* Makes compressed bytes available: 1 when there are some, 0 at the end of
 * the input when it ends between two `unit`s (`between`), else why not:
 * HS_E_READ, or HS_E_TRUNCATED when it ends inside one (then damaged). */
int hs_in_raw_more(hs_input *in, int between, const char *format, const char *unit);
/* A plain input's bytes: the sniffed prefix, then the descriptor's, the
 * callback's or the memory's. */
long hs_in_read_plain(hs_input *in, uint8_t *buf, size_t cap);
/* Block k, holding `len` bytes (or the end), to the caller: its slot is
 * filled. */
void hs_in_post_block(hs_input *in, unsigned k, long len);

/* ---- inthread.c: the reader thread ---- */

/* Decompressed bytes, on whichever thread decompresses. */
long hs_in_decode(hs_input *in, uint8_t *buf, size_t cap);
/* Stops the reader thread: it finishes the block it is decompressing. */
void hs_in_stop_thread(hs_input *in);
/* With the reader thread, what went wrong is known once the caller has
 * read to the end; before that it is the thread's, still at work. */
int hs_in_settled(const hs_input *in);
long hs_in_read_threaded(hs_input *in, uint8_t *buf, size_t cap);

#endif
