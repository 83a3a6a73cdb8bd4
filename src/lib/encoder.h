/* SPDX-License-Identifier: Apache-2.0 */
/*
 * encoder.h - everything that writes: the span of input bytes due to go
 * out unchanged, the destination, the heap-dump segment being built, the
 * held-back start of the heap dump (the stage), the output buffer, and what
 * --salvage needs to undo or complete a record cut short.
 *
 * Moving bytes. Input bytes that go out unchanged are never copied one
 * record at a time. The encoder keeps a *span*: the run of window bytes
 * rd.buf[span .. rd.pos) consumed and still to be copied to the current
 * destination. Walking an unchanged record is just advancing rd.pos
 * (hs_pass); the span is flushed with one write when something else must
 * be written (a zeroed payload, a new header), when the destination
 * changes, or before the window moves. A dump that passes through
 * unchanged leaves straight from the read window, a window at a time.
 *
 * Cursors. The reader owns rd.pos and the encoder the span: only reader.c/h
 * and encoder.c/h write them (tests/lanes/layers.sh checks). The decoders move
 * them through the calls below: hs_pass, hs_drop and the streams consume,
 * hs_need and hs_enc_fill make bytes available without losing the span,
 * hs_enc_record_begin/end mark a record for --salvage.
 *
 * Destinations. HS_DST_OUT is the output stream. HS_DST_SEG is the heap-
 * dump segment being built (re-encoding only): its length must be known
 * before its header is written, so its bytes are staged in `seg` until it
 * closes. A sub-record larger than a segment may be gets a segment of its
 * own, sized from its header, and streams through unbuffered.
 *
 * Heaps. Android heap context (HEAP_DUMP_INFO) is scoped to one segment and
 * every segment starts in the default heap. The decoder says which heap the
 * input is in (hs_enc_set_heap); before each sub-record the encoder brings
 * the output segment to that heap, by writing a HEAP_DUMP_INFO or, to get
 * back to the default heap (which has no HEAP_DUMP_INFO), by starting a new
 * segment.
 *
 * The encoder writes what it is told and knows nothing of rules, strings
 * or roots: the features above it decide, it places.
 */
#ifndef HS_ENCODER_H
#define HS_ENCODER_H

#include <assert.h>
#include <stdint.h>
#include <string.h>
#include <xxhash.h>

#include "ctx.h"
#include "format.h"
#include "hs_limits.h"
#include "out.h"

enum hs_dst { HS_DST_OUT, HS_DST_SEG };

/* The start of a heap dump is held back at most HS_STAGE_CAP (hs_limits.h;
 * see strrec.c), or a quarter of max_held when that is less. */

/* What counting fills report into: the bytes filled, the non-zero input
 * bytes among them (with opt.count_nonzero), and the input offset of the
 * first (0: none yet). */
typedef struct {
    uint64_t *total, *nonzero, *first;
} hs_tally;

typedef struct {
    hs_ctx *c;
    hs_out out;

    /* the span: rd.buf[span .. rd.pos) is due to `dst` */
    size_t span;
    enum hs_dst dst;
    int reencode;  /* heap records are re-segmented */
    int heap_open; /* heap records written since the last HEAP_DUMP_END */

    /* the output segment under construction (re-encoding) */
    uint8_t *seg;
    size_t seg_cap, seg_len;
    int seg_open;

    /* the held-back start of the first heap dump */
    int staging;
    uint8_t *stage;
    size_t stage_len, stage_cap;

    /* heaps: the one the input is in, and the one the open segment is in */
    uint32_t in_heap, out_heap;
    uint64_t in_heap_name;

    /* for --salvage: the sub-record or record being written */
    int sub_open;          /* a sub-record has begun in the output */
    size_t sub_mark;       /* where it starts in the segment */
    uint64_t huge_out_end; /* where its own segment ends in the output */
    uint64_t huge_seg_pos; /* where that segment starts in the output */
    uint64_t sub_off;      /* its input offset */
    int rec_partial;       /* a top-level record is being copied */
    uint64_t rec_out_pos;  /* where it starts in the output */
} hs_enc;

hs_status hs_enc_init(hs_enc *e, hs_ctx *c, size_t out_buffer, size_t seg_cap);
void hs_enc_free(hs_enc *e);
/* Starts writing to `sink`; with `reencode`, heap records are re-segmented. */
hs_status hs_enc_start(hs_enc *e, const hs_sink *sink, int reencode);

/* ---- moving bytes ------------------------------------------------------- */

hs_status hs_span_write(hs_enc *e);
hs_status hs_need_slow(hs_enc *e, size_t n, const char *what);
hs_status hs_copy_stream_slow(hs_enc *e, uint64_t n, const char *what, XXH3_state_t *tap);
hs_status hs_skip_stream_slow(hs_enc *e, uint64_t n, const char *what, XXH3_state_t *tap);

/* Writes the span to the destination, when there is one. */
static inline hs_status hs_span_flush(hs_enc *e)
{
    return e->c->rd.pos != e->span ? hs_span_write(e) : HS_OK;
}

/* Copies or skips the next `n` input bytes as they stream; `tap` (may be
 * NULL) sees every input byte (duplicate hashing). What is in the window
 * already (most sub-records) is inline. */
static inline hs_status hs_copy_stream(hs_enc *e, uint64_t n, const char *what,
                                       XXH3_state_t *tap)
{
    if (tap || hs_reader_avail(&e->c->rd) < n)
        return hs_copy_stream_slow(e, n, what, tap);
    hs_reader_skip(&e->c->rd, (size_t)n);
    return HS_OK;
}

static inline hs_status hs_skip_stream(hs_enc *e, uint64_t n, const char *what,
                                       XXH3_state_t *tap)
{
    if (tap || hs_reader_avail(&e->c->rd) < n)
        return hs_skip_stream_slow(e, n, what, tap);
    HS_TRY(hs_span_flush(e));
    hs_reader_skip(&e->c->rd, (size_t)n);
    e->span = e->c->rd.pos;
    return HS_OK;
}

hs_status hs_fill_stream(hs_enc *e, uint8_t byte, uint64_t n, const hs_tally *t,
                         XXH3_state_t *tap);
/* Writes `n` bytes of `byte` that stand for no input. */
hs_status hs_fill_out(hs_enc *e, uint8_t byte, uint64_t n);
/* Writes bytes held in memory, `n` of them scrubbed to zero: counts the
 * non-zero ones into `t`, `at` being their input offset. */
hs_status hs_fill_held(hs_enc *e, const uint8_t *p, uint64_t n, uint64_t at,
                       const hs_tally *t);
size_t hs_count_nonzero(const uint8_t *p, size_t n);

static inline const uint8_t *hs_cur(const hs_enc *e)
{
    return hs_reader_cur(&e->c->rd);
}

/* Makes `n` bytes available at hs_cur(); `what` names the data for the
 * truncation message. */
static inline hs_status hs_need(hs_enc *e, size_t n, const char *what)
{
    if (hs_reader_avail(&e->c->rd) >= n)
        return HS_OK;
    return hs_need_slow(e, n, what);
}

/* Makes up to `n` bytes available at hs_cur() as hs_need does, but the
 * input may end first: HS_OK then too, with fewer bytes available (the
 * caller looks). Any other failure of the reader is the run's error, `what`
 * naming what was being read. */
hs_status hs_enc_fill(hs_enc *e, size_t n, const char *what);
/* True in `*at_end` when no input byte is left (the reader's
 * hs_reader_at_end), the span kept as by hs_enc_fill. */
hs_status hs_enc_at_end(hs_enc *e, int *at_end, const char *what);

/* Consumes `n` available bytes, copying them to the destination. */
static inline void hs_pass(hs_enc *e, size_t n)
{
    hs_reader_skip(&e->c->rd, n);
}

/* Consumes `n` available bytes without copying them. */
static inline hs_status hs_drop(hs_enc *e, size_t n)
{
    assert(n <= hs_reader_avail(&e->c->rd));
    HS_TRY(hs_span_flush(e));
    hs_reader_skip(&e->c->rd, n);
    e->span = e->c->rd.pos;
    return HS_OK;
}

/* Writes bytes the filter made up (a new header) to the destination. */
hs_status hs_emit(hs_enc *e, const void *p, size_t n);
hs_status hs_set_dst(hs_enc *e, enum hs_dst dst);

/* ---- records and segments ------------------------------------------------ */

/* Copies the top-level record whose header is at hs_cur() as it is (body
 * `len` bytes), noting where it starts for --salvage. */
hs_status hs_enc_copy_record(hs_enc *e, uint64_t len);
/* Writes the 9-byte header of a top-level record made up here. */
hs_status hs_enc_record_header(hs_enc *e, unsigned tag, uint32_t len);
/* Makes the output ready for a top-level record: a record cannot stand
 * inside a segment (while staging it goes ahead of the stage instead). */
hs_status hs_enc_top_level(hs_enc *e);

/* The output offset the next input byte goes to when it is copied to the
 * output stream (the span due there counted). */
static inline uint64_t hs_enc_out_next(const hs_enc *e)
{
    return e->out.total + (e->c->rd.pos - e->span);
}
/* A top-level record whose header is at hs_cur() is being copied to the
 * output stream, to be taken back or completed should the input end inside
 * it (--salvage), until hs_enc_record_end. */
static inline void hs_enc_record_begin(hs_enc *e)
{
    e->rec_out_pos = hs_enc_out_next(e);
    e->rec_partial = 1;
}
static inline void hs_enc_record_end(hs_enc *e)
{
    e->rec_partial = 0;
    e->c->st.records_out++;
}

/* A heap dump's records are being written, to be closed by a
 * HEAP_DUMP_END (open), or it was closed (0). */
static inline void hs_enc_heap_opened(hs_enc *e, int open)
{
    e->heap_open = open;
}
static inline int hs_enc_heap_is_open(const hs_enc *e)
{
    return e->heap_open;
}
/* Starts holding back the start of the heap dump (see strrec.c). */
static inline void hs_enc_stage_start(hs_enc *e)
{
    e->staging = 1;
}

/* The input is now in heap `heap` (0: the default heap), named by the
 * string `name`. */
static inline void hs_enc_set_heap(hs_enc *e, uint32_t heap, uint64_t name)
{
    e->in_heap = heap;
    e->in_heap_name = name;
}
/* True when the next sub-record needs a HEAP_DUMP_INFO (whose name must be
 * written first). */
static inline int hs_enc_heap_switch(const hs_enc *e)
{
    return e->in_heap && e->in_heap != e->out_heap;
}
/* True when a sub-record of `size` bytes cannot join the stage: the stage
 * must be committed first (see strrec.c). */
int hs_enc_stage_overflows(const hs_enc *e, uint64_t size);

/* Opens and closes a sub-record of `size` output bytes. Called for every
 * sub-record: joining the open segment in the same heap is inline. */
hs_status hs_enc_sub_begin_slow(hs_enc *e, uint64_t size);
hs_status hs_enc_sub_end_slow(hs_enc *e);

static inline hs_status hs_enc_sub_begin(hs_enc *e, uint64_t size)
{
    const hs_reader *rd = &e->c->rd;
    uint64_t pending;

    if (!e->reencode) {
        e->c->st.subrecords_out++;
        return HS_OK;
    }
    pending = e->seg_len + (rd->pos - e->span);
    if (!e->seg_open || e->dst != HS_DST_SEG || e->in_heap != e->out_heap ||
        pending + size > e->seg_cap)
        return hs_enc_sub_begin_slow(e, size);
    e->c->st.subrecords_out++;
    e->sub_open = 1;
    e->sub_off = hs_reader_offset(rd);
    e->sub_mark = (size_t)pending;
    return HS_OK;
}

static inline hs_status hs_enc_sub_end(hs_enc *e)
{
    e->sub_open = 0;
    return e->reencode && e->dst == HS_DST_OUT ? hs_enc_sub_end_slow(e) : HS_OK;
}
/* A sub-record made up here, whole. */
hs_status hs_enc_sub(hs_enc *e, const void *p, size_t n);

/* ---- runs of objects (fastpath.c) --------------------------------------- *
 * A run writes the open segment directly, having checked beforehand that it
 * has room for the whole run (hs_enc_run_room), and moves the reader only
 * when it ends: these take the window position the run has reached. */

/* Heap records keep their layout after all (decided at the header, before
 * any is written): --to-jvm alone on a dump that is a JVM's already. */
static inline void hs_enc_keep_layout(hs_enc *e)
{
    e->reencode = 0;
}

static inline int hs_enc_reencodes(const hs_enc *e)
{
    return e->reencode;
}
/* The start of the heap dump is held back (see strrec.c). */
static inline int hs_enc_staging(const hs_enc *e)
{
    return e->staging;
}
static inline int hs_enc_to_segment(const hs_enc *e)
{
    return e->dst == HS_DST_SEG;
}
/* The open segment is in the heap the input is in. */
static inline int hs_enc_heap_current(const hs_enc *e)
{
    return e->in_heap == e->out_heap;
}
/* True when a run may copy into the open segment now: one is open, is the
 * destination, and is in the input's heap. */
static inline int hs_enc_run_ready(const hs_enc *e)
{
    return e->seg_open && e->dst == HS_DST_SEG && e->in_heap == e->out_heap;
}
/* The bytes the open segment can still take when a run stands at window
 * position `pos` (the span up to there being due to it): false when no
 * segment is open to take them. */
static inline int hs_enc_run_room(const hs_enc *e, size_t pos, uint64_t *room)
{
    uint64_t pending;

    if (!e->seg_open || e->dst != HS_DST_SEG)
        return 0;
    assert(pos >= e->span);
    pending = e->seg_len + (pos - e->span);
    if (pending > e->seg_cap)
        return 0;
    *room = e->seg_cap - pending;
    return 1;
}

/* The span up to window position `to` goes to the segment. */
static inline void hs_enc_run_copy(hs_enc *e, size_t to)
{
    assert(to >= e->span && e->seg_len + (to - e->span) <= e->seg_cap);
    memcpy(e->seg + e->seg_len, e->c->rd.buf + e->span, to - e->span);
    e->seg_len += to - e->span;
    e->span = to;
}
/* The next `n` input bytes (the span is empty) stand replaced by the `n`
 * bytes the caller writes at the place returned. */
static inline uint8_t *hs_enc_run_replace(hs_enc *e, size_t n)
{
    uint8_t *at = e->seg + e->seg_len;

    assert(n <= e->seg_cap - e->seg_len);

    e->seg_len += n;
    e->span += n;
    return at;
}
/* `n` bytes that stand for no input (the span is empty), which the caller
 * writes at the place returned. */
static inline uint8_t *hs_enc_run_insert(hs_enc *e, size_t n)
{
    uint8_t *at = e->seg + e->seg_len;

    assert(n <= e->seg_cap - e->seg_len);

    e->seg_len += n;
    return at;
}
/* The next `n` input bytes (the span is empty) are dropped. */
static inline void hs_enc_run_drop(hs_enc *e, size_t n)
{
    e->span += n;
}
/* The input bytes from the span up to window position `to` are dropped. */
static inline void hs_enc_run_drop_to(hs_enc *e, size_t to)
{
    assert(to >= e->span);
    e->span = to;
}

/* Closes the output segment under construction, if any. */
hs_status hs_enc_seg_close(hs_enc *e);
/* Writes the stage out and stops staging. */
hs_status hs_enc_commit(hs_enc *e);
/* Writes a HEAP_DUMP_END record. */
hs_status hs_enc_heap_end(hs_enc *e);
/* Writes what is buffered to the sink. */
hs_status hs_enc_flush(hs_enc *e);

/* Forgets the output from byte `pos` on, when none of it has reached the
 * sink yet; returns 0 when some has. */
int hs_enc_take_back(hs_enc *e, uint64_t pos);

/* Why --salvage stops the output: the input was cut (it ended inside a
 * record), or is damaged (a record or sub-record is malformed). */
typedef enum { HS_SALVAGE_CUT, HS_SALVAGE_DAMAGE } hs_salvage_why;

/* --salvage: the input was cut at `at` inside a record, or is damaged at
 * `at`. What is half written is taken back or, after a cut, completed;
 * `*pad` is the count of zeros written, `*what` says which. Every input byte
 * left in the window is consumed. */
hs_status hs_enc_salvage_cut(hs_enc *e, hs_salvage_why why, uint64_t at, uint64_t *pad,
                             const char **what);

#endif
