/*
 * filter_impl.h - the filter's state and the byte-moving primitives shared
 * by filter.c (file header and top-level records) and heap.c (heap-dump
 * sub-records and output segments).
 *
 * Moving bytes: input bytes that go out unchanged are never copied one
 * record at a time. The filter keeps a *span*, the run of window bytes
 * rd.buf[span .. rd.pos) that has been consumed and must still be copied to
 * the current destination. Walking an unchanged record is just advancing
 * rd.pos; the span is flushed with one write when something else must be
 * written (a zeroed payload, a new header), when the destination changes,
 * or before the window is refilled. In a dump that passes through unchanged
 * the output is written straight from the read window, a window at a time.
 *
 * Destinations: DST_OUT is the output stream. DST_SEG is the heap-dump
 * segment being built (re-encoding only): its length must be known before
 * its header is written, so its bytes are staged in `seg` until it closes.
 */
#ifndef HS_FILTER_IMPL_H
#define HS_FILTER_IMPL_H

#include <stdint.h>
#include <xxhash.h>

#include "error.h"
#include "format.h"
#include "hprof_strip.h"
#include "out.h"
#include "reader.h"
#include "classes.h"
#include "rootq.h"
#include "rules.h"
#include "strtab.h"

enum hs_dst { DST_OUT, DST_SEG };

struct hs_filter {
    hs_alloc alloc;
    const hs_rules *rules;
    hs_options opt;
    hs_reader rd;
    hs_out out;

    /* the span: rd.buf[span .. rd.pos) is due to `dst` */
    size_t span;
    enum hs_dst dst;

    /* file */
    unsigned idsize;
    uint8_t sub_size[256]; /* hs_sub_fixed_size() of each sub-tag, 0: unknown */
    int reencode;  /* heap records are re-segmented (see heap.c) */
    int heap_open; /* heap records written since the last HEAP_DUMP_END */

    /* the top-level record being read */
    uint64_t rec_off, rec_end;
    int rec_tag;
    int subtag; /* heap sub-record being read, or -1 */
    int prev_unknown_tag; /* tag of the previous record if unknown, else -1 */
    uint64_t prev_off;

    /* the start of the first heap dump, held back (hs_heap_commit) */
    int staging, heap_seen;
    uint8_t *stage;
    size_t stage_len, stage_cap;
    int android;             /* a 1.0.3 file */
    int strings_interleaved; /* a STRING came after a LOAD_CLASS */
    int seen_load_class;

    /* output segment under construction (re-encoding) */
    uint8_t *seg;
    size_t seg_cap, seg_len;
    int seg_open;

    /* Android heap context: the heap the input is in now, and the heap the
     * open output segment is in (both reset to 0, the default heap, at the
     * start of their segments) */
    uint32_t in_heap;
    uint64_t in_heap_name;
    uint32_t cur_heap; /* the input's heap, for the rules (in_heap is 0 with
                          --to-jvm, which writes no heaps) */
    int cur_heap_dropped; /* the rules drop cur_heap's objects (hs_set_heap) */
    uint32_t out_heap;

    /* what the rules must remember */
    hs_strtab strings; /* STRING records held until first use */
    hs_rootq roots;    /* roots held until their object goes by */
    int drop_heaps;    /* some heap's objects are dropped */

    /* duplicate arrays (dups.c): contents hash -> seen; type and length ->
     * bytes wasted */
    hs_idmap dup_seen, dup_sizes;
    XXH3_state_t *dup_state; /* for a payload larger than the window */
    int hashing;             /* chunks of the payload go into dup_state */
    uint64_t dup_hash;

    /* field scrubbing (scrub.c) */
    int scrub;                  /* rules->scrub_fields */
    hs_classes classes;         /* instance layouts */
    hs_idmap keep_class_names;  /* string id -> keep-list entries naming it as a class */
    hs_idmap keep_field_names;  /* string id -> keep-list entries naming it as a field */
    hs_idmap keep_classes;      /* class id -> keep-list entries of its class name */
    hs_idmap waiting;           /* missing class id -> first held instance + 1 */
    struct held *holds;         /* held instances (scrub.c) */
    size_t n_holds, cap_holds;
    uint8_t *pending;           /* their bytes, in memory */
    size_t pending_len, pending_cap;
    uint64_t spill_len;         /* their bytes in the spill store */
    uint64_t pending_count;

    /* for --salvage: the sub-record or record being written */
    int sub_open;          /* a sub-record has begun in the output */
    size_t sub_mark;       /* where it starts in the segment */
    uint64_t huge_out_end; /* where its own segment ends in the output */
    uint64_t huge_seg_pos; /* where that segment starts in the output */
    uint64_t sub_off;      /* its input offset */
    int rec_partial;       /* a top-level record is being copied */
    uint64_t rec_out_pos;  /* where it starts in the output */

    hs_error err;
    int failed, ran;
    hs_stats st;
};

typedef struct hs_filter F;

/* ---- error helpers (filter.c) -------------------------------------------- */

/* Records an error located at input byte `off`, tagged with the current
 * record and sub-record. */
hs_status hs_filter_fail(F *f, hs_status code, uint64_t off, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Turns a failed reader/writer status into a full error. */
hs_status hs_filter_io_fail(F *f, hs_status s, const char *what);

/* ---- byte moving (filter.c) --------------------------------------------- */

hs_status hs_dst_write(F *f, const void *p, size_t n);
hs_status hs_span_flush(F *f);
hs_status hs_need_slow(F *f, size_t n, const char *what);
hs_status hs_copy_stream(F *f, uint64_t n, const char *what);
/* Copies the top-level record whose header is at hs_cur() as it is (body
 * `len` bytes), noting where it starts for --salvage. */
hs_status hs_copy_record(F *f, uint64_t len);
hs_status hs_skip_stream(F *f, uint64_t n, const char *what);
hs_status hs_fill_stream(F *f, uint8_t byte, uint64_t n, const char *what);
size_t hs_count_nonzero(const uint8_t *p, size_t n);
/* hs_fill_stream, adding `n` to *total, the count of non-zero input bytes
 * to *nonzero, and noting the first one's offset in *first (0: none yet). */
hs_status hs_fill_stream_count(F *f, uint8_t byte, uint64_t n, uint64_t *total,
                               uint64_t *nonzero, uint64_t *first);
/* Writes `n` bytes of `byte` that stand for no input. */
hs_status hs_fill_stream_out(F *f, uint8_t byte, uint64_t n);

static inline const uint8_t *hs_cur(const F *f)
{
    return f->rd.buf + f->rd.pos;
}

static inline uint64_t hs_offset(const F *f)
{
    return hs_reader_offset(&f->rd);
}

/* Makes `n` bytes available at hs_cur(); `what` names the data for the
 * truncation message. */
static inline hs_status hs_need(F *f, size_t n, const char *what)
{
    if (hs_reader_avail(&f->rd) >= n)
        return HS_OK;
    return hs_need_slow(f, n, what);
}

/* Consumes `n` available bytes, copying them to the destination. */
static inline void hs_pass(F *f, size_t n)
{
    f->rd.pos += n;
}

/* Consumes `n` available bytes without copying them. */
static inline hs_status hs_drop(F *f, size_t n)
{
    HS_TRY(hs_span_flush(f));
    f->rd.pos += n;
    f->span = f->rd.pos;
    return HS_OK;
}

/* Writes bytes the filter made up (a new header) to the destination. */
static inline hs_status hs_emit(F *f, const void *p, size_t n)
{
    HS_TRY(hs_span_flush(f));
    return hs_dst_write(f, p, n);
}

static inline hs_status hs_set_dst(F *f, enum hs_dst dst)
{
    if (f->dst != dst) {
        HS_TRY(hs_span_flush(f));
        f->dst = dst;
    }
    return HS_OK;
}

/* The input is now in `heap`: looked up in the rules once here, not for
 * every object. */
static inline void hs_set_heap(F *f, uint32_t heap)
{
    f->cur_heap = heap;
    f->cur_heap_dropped = f->drop_heaps && hs_rules_heap_dropped(f->rules, heap);
}

/* ---- strings (strings.c) ------------------------------------------------ */

/* A record about to be written refers to string `id`: write the STRING
 * first if it is held. */
hs_status hs_str_use(F *f, uint64_t id);
/* A STRING record whose header is at hs_cur(): hold it or pass it on. */
hs_status hs_str_record(F *f, uint64_t len);
/* Writes every STRING still held, now. */
hs_status hs_str_flush_held(F *f);
/* Fails with HS_E_LIMIT when held strings and roots pass opt.max_held. */
hs_status hs_check_held(F *f);

/* ---- duplicate arrays (dups.c) ---------------------------------------------- */

/* Before a PRIMITIVE_ARRAY_DUMP's payload moves: hashes it whole when it is
 * in the window, or starts hashing the chunks as they go. */
hs_status hs_dups_begin(F *f, size_t hdr, uint64_t payload);
/* After it moved: records it, counting it when it repeats an earlier one. */
hs_status hs_dups_end(F *f, unsigned type, uint64_t payload);
/* Fills hs_stats.dup_top. */
void hs_dups_top(const F *f, hs_stats *st);

/* ---- field scrubbing (scrub.c) ----------------------------------------------- */

hs_status hs_scrub_string(F *f, uint64_t id, const uint8_t *text, size_t n);
hs_status hs_scrub_load_class(F *f, uint64_t class_id, uint64_t name_id);
hs_status hs_scrub_class_dump(F *f, size_t size);
hs_status hs_scrub_class_arrived(F *f, uint64_t id);
hs_status hs_scrub_instance(F *f, uint64_t off, size_t hdr, uint64_t n);
hs_status hs_scrub_finish(F *f);

/* ---- heap records (heap.c) ---------------------------------------------- */

/* Opens and closes a sub-record of `size` output bytes (see heap.c). */
hs_status hs_sub_begin(F *f, uint64_t size);
hs_status hs_sub_end(F *f);

/* Body of a HEAP_DUMP or HEAP_DUMP_SEGMENT record whose 9-byte header is at
 * hs_cur() and has been validated. */
hs_status hs_heap_record(F *f, unsigned tag, uint64_t body_len);
/* Closes the output segment under construction, if any. */
hs_status hs_seg_close(F *f);
/* Writes a HEAP_DUMP_END record (re-encoding, or a heap dump left open). */
hs_status hs_heap_end(F *f);
/* Before a heap dump ends: writes the roots still held and closes the open
 * segment. */
hs_status hs_heap_finish(F *f);
/* Writes the held-back start of the heap dump (see heap.c), if any. */
hs_status hs_heap_commit(F *f);
/* After a truncation error: completes a valid output (--salvage). Returns
 * HS_SALVAGED, or another error. */
hs_status hs_salvage(F *f);

#endif
