/* SPDX-License-Identifier: Apache-2.0 */
/*
 * encoder.c - the span, the destinations, segments, the stage and the
 * salvage marks (see encoder.h).
 */
#include "encoder.h"

#include <string.h>

#include "alloc.h"
#include "be.h"

hs_status hs_enc_init(hs_enc *e, hs_ctx *c, size_t out_buffer, size_t seg_cap)
{
    memset(e, 0, sizeof *e);
    e->c = c;
    e->seg_cap = seg_cap;
    return hs_out_init(&e->out, &c->raw, out_buffer);
}

void hs_enc_free(hs_enc *e)
{
    hs_out_free(&e->out);
    hs_alloc_free(&e->c->raw, e->seg);
    hs_alloc_free(&e->c->alloc, e->stage);
    e->seg = e->stage = NULL;
}

hs_status hs_enc_start(hs_enc *e, const hs_sink *sink, int reencode)
{
    e->out.sink = *sink;
    e->reencode = reencode;
    e->span = e->c->rd.pos;
    if (reencode) {
        e->seg = hs_malloc(&e->c->raw, e->seg_cap);
        if (!e->seg)
            return hs_fail_io(e->c, HS_E_NOMEM, "");
    }
    return HS_OK;
}

/* ---- moving bytes ----------------------------------------------------------- */

static hs_status out_failed(hs_enc *e)
{
    return hs_fail_io(e->c, HS_E_WRITE, "");
}

/* Room for `n` more bytes in the open segment. A sub-record is placed with
 * room for all of it before its first byte moves, so a miss is a bug of
 * ours, reported rather than written past the buffer. */
static hs_status seg_room(hs_enc *e, uint64_t n)
{
    if (!e->seg_open || n > e->seg_cap - e->seg_len)
        return hs_fail_at(e->c, HS_E_USAGE, hs_ctx_offset(e->c),
                          "internal error: segment overflow");
    return HS_OK;
}

static hs_status dst_write(hs_enc *e, const void *p, size_t n)
{
    if (e->dst == HS_DST_OUT)
        return hs_out_write(&e->out, p, n) == HS_OK ? HS_OK : out_failed(e);
    HS_TRY(seg_room(e, n));
    memcpy(e->seg + e->seg_len, p, n);
    e->seg_len += n;
    return HS_OK;
}

static hs_status dst_fill(hs_enc *e, uint8_t byte, uint64_t n)
{
    if (e->dst == HS_DST_OUT)
        return hs_out_fill(&e->out, byte, n) == HS_OK ? HS_OK : out_failed(e);
    HS_TRY(seg_room(e, n));
    memset(e->seg + e->seg_len, byte, (size_t)n);
    e->seg_len += (size_t)n;
    return HS_OK;
}

hs_status hs_span_write(hs_enc *e)
{
    HS_TRY(dst_write(e, e->c->rd.buf + e->span, e->c->rd.pos - e->span));
    e->span = e->c->rd.pos;
    return HS_OK;
}

hs_status hs_emit(hs_enc *e, const void *p, size_t n)
{
    HS_TRY(hs_span_flush(e));
    return dst_write(e, p, n);
}

hs_status hs_set_dst(hs_enc *e, enum hs_dst dst)
{
    if (e->dst != dst) {
        HS_TRY(hs_span_flush(e));
        e->dst = dst;
    }
    return HS_OK;
}

/* Fills the window (hs_reader_fill) without losing the span: it is
 * written out first, as the bytes before the cursor may move. Returns the
 * reader's status, or the write's failure. */
static hs_status fill_keeping_span(hs_enc *e, size_t n, hs_status *got)
{
    HS_TRY(hs_span_flush(e));
    *got = hs_reader_fill(&e->c->rd, n);
    e->span = e->c->rd.pos;
    return HS_OK;
}

hs_status hs_need_slow(hs_enc *e, size_t n, const char *what)
{
    hs_status s;

    HS_TRY(fill_keeping_span(e, n, &s));
    return s == HS_OK ? HS_OK : hs_fail_io(e->c, s, what);
}

hs_status hs_enc_fill(hs_enc *e, size_t n, const char *what)
{
    hs_status s;

    HS_TRY(fill_keeping_span(e, n, &s));
    return s == HS_OK || s == HS_E_TRUNCATED ? HS_OK : hs_fail_io(e->c, s, what);
}

hs_status hs_enc_at_end(hs_enc *e, int *at_end, const char *what)
{
    hs_status s;

    HS_TRY(hs_span_flush(e));
    s = hs_reader_at_end(&e->c->rd, at_end);
    e->span = e->c->rd.pos;
    return s == HS_OK ? HS_OK : hs_fail_io(e->c, s, what);
}

/* The next chunk of a long payload: at least one byte, at most `n`. */
static hs_status chunk(hs_enc *e, uint64_t n, const char *what, size_t *k)
{
    size_t avail = hs_reader_avail(&e->c->rd);

    if (!avail) {
        HS_TRY(hs_need_slow(e, 1, what));
        avail = hs_reader_avail(&e->c->rd);
    }
    *k = avail < n ? avail : (size_t)n;
    return HS_OK;
}

hs_status hs_copy_stream_slow(hs_enc *e, uint64_t n, const char *what, XXH3_state_t *tap)
{
    while (n) {
        size_t k;
        HS_TRY(chunk(e, n, what, &k));
        if (tap)
            XXH3_64bits_update(tap, hs_cur(e), k);
        hs_pass(e, k);
        n -= k;
    }
    return HS_OK;
}

hs_status hs_skip_stream_slow(hs_enc *e, uint64_t n, const char *what, XXH3_state_t *tap)
{
    while (n) {
        size_t k;
        HS_TRY(chunk(e, n, what, &k));
        if (tap)
            XXH3_64bits_update(tap, hs_cur(e), k);
        HS_TRY(hs_drop(e, k));
        n -= k;
    }
    return HS_OK;
}

/* The count of non-zero bytes in p[0..n), eight at a time: in each byte
 * of ((w & 0x7f..) + 0x7f..) | w the top bit is set exactly when that byte
 * of w is not zero; the multiply adds those bits up. */
size_t hs_count_nonzero(const uint8_t *p, size_t n)
{
    const uint64_t lo7 = 0x7f7f7f7f7f7f7f7full, ones = 0x0101010101010101ull;
    size_t z = 0, i = 0;

    for (; i + 8 <= n; i += 8) {
        uint64_t w, t;
        memcpy(&w, p + i, 8);
        t = (((w & lo7) + lo7) | w) >> 7 & ones;
        z += (size_t)((t * ones) >> 56);
    }
    for (; i < n; i++)
        z += p[i] != 0;
    return z;
}

/* Counts the non-zero bytes of p[0..n), input offset `at`, into `t`. */
static void tally(const hs_enc *e, const uint8_t *p, size_t n, uint64_t at, const hs_tally *t)
{
    size_t z, j;

    *t->total += n;
    if (!e->c->opt.count_nonzero || !(z = hs_count_nonzero(p, n)))
        return;
    /* the first in input order: a held instance comes out after bytes
     * that followed it */
    if (!*t->first || at < *t->first)
        for (j = 0; j < n; j++)
            if (p[j]) {
                if (!*t->first || at + j < *t->first)
                    *t->first = at + j;
                break;
            }
    *t->nonzero += z;
}

hs_status hs_fill_stream(hs_enc *e, uint8_t byte, uint64_t n, const hs_tally *t,
                         XXH3_state_t *tap)
{
    uint64_t left;

    if (!e->c->opt.count_nonzero && !tap) {
        /* nothing needs to see these bytes: never read them */
        *t->total += n;
        HS_TRY(hs_skip_stream(e, n, "scrubbed bytes", NULL));
        return dst_fill(e, byte, n);
    }
    for (left = n; left;) {
        size_t k;
        HS_TRY(chunk(e, left, "scrubbed bytes", &k));
        if (tap)
            XXH3_64bits_update(tap, hs_cur(e), k);
        tally(e, hs_cur(e), k, hs_ctx_offset(e->c), t);
        HS_TRY(hs_drop(e, k));
        left -= k;
    }
    /* written once all are read, as when they are skipped: a cut inside
     * them (--salvage) then leaves the same output whatever reporting is
     * asked for */
    return dst_fill(e, byte, n);
}

hs_status hs_fill_out(hs_enc *e, uint8_t byte, uint64_t n)
{
    HS_TRY(hs_span_flush(e));
    return dst_fill(e, byte, n);
}

hs_status hs_fill_held(hs_enc *e, const uint8_t *p, uint64_t n, uint64_t at,
                       const hs_tally *t)
{
    tally(e, p, (size_t)n, at, t);
    return hs_fill_out(e, 0, n);
}

/* ---- records ------------------------------------------------------------------ */

static void put_record_header(uint8_t *h, unsigned tag, uint32_t len)
{
    h[0] = (uint8_t)tag;
    hs_put_be32(h + 1, 0);
    hs_put_be32(h + 5, len);
}

hs_status hs_enc_copy_record(hs_enc *e, uint64_t len)
{
    hs_enc_record_begin(e);
    hs_pass(e, HS_RECORD_HEADER);
    HS_TRY(hs_copy_stream(e, len, "a record body", NULL));
    hs_enc_record_end(e);
    return HS_OK;
}

hs_status hs_enc_record_header(hs_enc *e, unsigned tag, uint32_t len)
{
    uint8_t h[HS_RECORD_HEADER];

    put_record_header(h, tag, len);
    e->c->st.records_out++;
    return hs_emit(e, h, sizeof h);
}

hs_status hs_enc_top_level(hs_enc *e)
{
    if (!e->staging)
        HS_TRY(hs_enc_seg_close(e));
    return hs_set_dst(e, HS_DST_OUT);
}

/* ---- segments and the stage ----------------------------------------------- */

/* Closed segments go to the output, or to the stage while the start of the
 * heap dump is held back. */
static hs_status out_write(hs_enc *e, const void *p, size_t n)
{
    if (e->staging) {
        if (n > e->stage_cap - e->stage_len) {
            size_t cap = e->stage_cap ? e->stage_cap : HS_STAGE_FIRST;
            uint8_t *b;
            while (n > cap - e->stage_len)
                cap *= 2;
            b = hs_realloc(&e->c->alloc, e->stage, e->stage_len, cap);
            if (!b)
                return hs_fail_io(e->c, HS_E_NOMEM, "");
            e->stage = b;
            e->stage_cap = cap;
            HS_TRY(hs_hold(e->c, HS_HOLD_STAGE, cap));
        }
        memcpy(e->stage + e->stage_len, p, n);
        e->stage_len += n;
        return HS_OK;
    }
    return hs_out_write(&e->out, p, n) == HS_OK ? HS_OK : out_failed(e);
}

hs_status hs_enc_commit(hs_enc *e)
{
    hs_status s;

    if (!e->staging)
        return HS_OK;
    e->staging = 0;
    s = out_write(e, e->stage, e->stage_len);
    hs_alloc_free(&e->c->alloc, e->stage);
    e->stage = NULL;
    e->stage_len = e->stage_cap = 0;
    e->c->held_total -= e->c->held[HS_HOLD_STAGE];
    e->c->held[HS_HOLD_STAGE] = 0;
    return s;
}

hs_status hs_enc_seg_close(hs_enc *e)
{
    uint8_t h[HS_RECORD_HEADER];

    if (!e->seg_open)
        return HS_OK;
    if (e->dst == HS_DST_SEG)
        HS_TRY(hs_span_flush(e));
    if (e->seg_len) { /* never an empty segment: VisualVM rejects them */
        put_record_header(h, HS_TAG_HEAP_DUMP_SEGMENT, (uint32_t)e->seg_len);
        HS_TRY(out_write(e, h, sizeof h));
        HS_TRY(out_write(e, e->seg, e->seg_len));
        e->c->st.segments_out++;
        e->c->st.records_out++;
        e->heap_open = 1;
    }
    e->seg_len = 0;
    e->seg_open = 0;
    e->out_heap = 0;
    return HS_OK;
}

hs_status hs_enc_heap_end(hs_enc *e)
{
    HS_TRY(hs_set_dst(e, HS_DST_OUT));
    HS_TRY(hs_enc_record_header(e, HS_TAG_HEAP_DUMP_END, 0));
    e->heap_open = 0;
    return HS_OK;
}

hs_status hs_enc_flush(hs_enc *e)
{
    HS_TRY(hs_span_flush(e));
    return hs_out_flush(&e->out) == HS_OK ? HS_OK : out_failed(e);
}

static size_t info_size(const hs_enc *e)
{
    return 1 + 4 + e->c->idsize;
}

/* Writes a HEAP_DUMP_INFO for the input's current heap to the destination. */
static hs_status write_info(hs_enc *e)
{
    uint8_t b[1 + 4 + 8];

    b[0] = HS_SUB_HEAP_DUMP_INFO;
    hs_put_be32(b + 1, e->in_heap);
    hs_put_be_id(b + 5, e->in_heap_name, e->c->idsize);
    e->out_heap = e->in_heap;
    e->c->st.subrecords_out++;
    return hs_emit(e, b, info_size(e));
}

/* Bytes in the open segment, the span due to it included. */
static uint64_t seg_pending(const hs_enc *e)
{
    return e->seg_len + (e->dst == HS_DST_SEG ? e->c->rd.pos - e->span : 0);
}

/* True when a sub-record of `size` bytes joins the open segment. */
static int joins_segment(const hs_enc *e, uint64_t size)
{
    int switch_heap = e->in_heap != e->out_heap;
    uint64_t head = switch_heap ? info_size(e) : 0;

    return e->seg_open && !(switch_heap && e->in_heap == 0) &&
           seg_pending(e) + head + size <= e->seg_cap;
}

/* The most the stage holds: HS_STAGE_CAP, or a quarter of the memory cap
 * when that is less, so that staging objects (strrec.c) never makes a run
 * fail that writing them at once would not. */
static uint64_t stage_limit(const hs_enc *e)
{
    const uint64_t quarter = e->c->opt.max_held / 4;
    return quarter < HS_STAGE_CAP ? quarter : HS_STAGE_CAP;
}

int hs_enc_stage_overflows(const hs_enc *e, uint64_t size)
{
    uint64_t head = e->in_heap ? info_size(e) : 0, stage = e->stage_len, pending;

    if (!e->staging || joins_segment(e, size))
        return 0;
    pending = e->seg_open ? seg_pending(e) : 0;
    if (pending) /* the open segment closes into the stage first */
        stage += HS_RECORD_HEADER + pending;
    return head + size > e->seg_cap || stage > stage_limit(e);
}

/* A sub-record larger than a segment may be: a segment of its own, sized
 * from its header, written straight to the output. */
static hs_status own_segment(hs_enc *e, uint64_t head, uint64_t size)
{
    if (head + size > UINT32_MAX)
        return hs_fail_at(e->c, HS_E_LIMIT, hs_ctx_offset(e->c),
                          "a %llu-byte sub-record does not fit in a heap-dump segment",
                          (unsigned long long)size);
    HS_TRY(hs_set_dst(e, HS_DST_OUT));
    HS_TRY(hs_span_flush(e));
    e->huge_seg_pos = e->out.total; /* for --salvage */
    HS_TRY(hs_enc_record_header(e, HS_TAG_HEAP_DUMP_SEGMENT, (uint32_t)(head + size)));
    e->c->st.segments_out++;
    e->heap_open = 1;
    e->out_heap = 0;
    return head ? write_info(e) : HS_OK;
}

/* Makes the destination ready for a sub-record of `size` output bytes
 * (re-encoding only): joins the open segment when it fits and is in the
 * right heap, else starts a new one, or a segment of its own. */
static hs_status place_sub(hs_enc *e, uint64_t size)
{
    uint64_t head;

    if (joins_segment(e, size)) {
        HS_TRY(hs_set_dst(e, HS_DST_SEG));
        return e->in_heap != e->out_heap ? write_info(e) : HS_OK;
    }
    HS_TRY(hs_enc_seg_close(e));
    head = e->in_heap ? info_size(e) : 0;
    if (e->staging && (head + size > e->seg_cap || e->stage_len > stage_limit(e)))
        HS_TRY(hs_enc_commit(e)); /* the caller commits first (strrec.c): a safety net */
    if (head + size > e->seg_cap)
        return own_segment(e, head, size);
    HS_TRY(hs_set_dst(e, HS_DST_SEG));
    e->seg_open = 1;
    e->out_heap = 0;
    return head ? write_info(e) : HS_OK;
}

hs_status hs_enc_sub_begin_slow(hs_enc *e, uint64_t size)
{
    e->c->st.subrecords_out++;
    if (!e->reencode)
        return HS_OK;
    HS_TRY(place_sub(e, size));
    e->sub_open = 1;
    e->sub_off = hs_ctx_offset(e->c);
    if (e->dst == HS_DST_OUT) {
        HS_TRY(hs_span_flush(e));
        e->huge_out_end = e->out.total + size;
    } else {
        e->sub_mark = e->seg_len + (e->c->rd.pos - e->span);
    }
    return HS_OK;
}

hs_status hs_enc_sub_end_slow(hs_enc *e)
{
    /* back to the segment after a sub-record that had one of its own */
    e->out_heap = 0;
    return hs_set_dst(e, HS_DST_SEG);
}

hs_status hs_enc_sub(hs_enc *e, const void *p, size_t n)
{
    HS_TRY(hs_enc_sub_begin(e, n));
    HS_TRY(hs_emit(e, p, n));
    return hs_enc_sub_end(e);
}

/* ---- salvage ------------------------------------------------------------------ */

/* --salvage completes a record whose first bytes already left with zeros.
 * A dump cut at OOM time inside a big array is the reason; a corrupt length
 * claiming gigabytes is the danger. Up to 64 MiB, or four times what was
 * present, is believed. */
#define MAX_SALVAGE_PAD (64u << 20)

static int too_much_to_pad(uint64_t pad, uint64_t present)
{
    return pad > MAX_SALVAGE_PAD && pad / 4 > present;
}

/* True when output from byte `pos` on has not reached the sink yet. */
static int still_buffered(const hs_enc *e, uint64_t pos)
{
    return pos >= e->out.total - e->out.len;
}

/* Forgets the output from byte `pos` on (still buffered). */
static void take_back(hs_enc *e, uint64_t pos)
{
    e->out.len -= (size_t)(e->out.total - pos);
    e->out.total = pos;
}

int hs_enc_take_back(hs_enc *e, uint64_t pos)
{
    if (pos > e->out.total || !still_buffered(e, pos))
        return 0;
    take_back(e, pos);
    return 1;
}

static hs_status too_short(hs_enc *e, uint64_t end, uint64_t pad, int sub)
{
    const hs_ctx *c = e->c;

    return hs_fail_at(e->c, HS_E_TRUNCATED, end,
                      "input ends %llu bytes short of the end of %s %s at byte %llu, too many "
                      "to fill in: not salvaged",
                      (unsigned long long)pad, sub ? "a" : "the",
                      sub ? hs_subtag_name((unsigned)c->subtag) : hs_tag_name((unsigned)c->rec_tag),
                      (unsigned long long)(sub ? e->sub_off : c->rec_off));
}

/* --salvage after damage: a bad sub-record is mostly found before it
 * begins; one found once begun (a class's second layout, known only from
 * its whole CLASS_DUMP) is taken back from the segment it was going into.
 * Anything else half written stays as it is. */
static void damage_cut(hs_enc *e, uint64_t at)
{
    if (e->sub_open && e->dst == HS_DST_SEG && e->sub_off == at)
        e->seg_len = e->sub_mark;
}

hs_status hs_enc_salvage_cut(hs_enc *e, hs_salvage_why why, uint64_t at, uint64_t *pad,
                             const char **what)
{
    const uint64_t end = at;

    *pad = 0;
    *what = "nothing was half written";
    HS_TRY(hs_span_flush(e));
    if (why == HS_SALVAGE_DAMAGE) {
        damage_cut(e, at);
    } else if (e->sub_open && e->dst == HS_DST_OUT && still_buffered(e, e->huge_seg_pos)) {
        take_back(e, e->huge_seg_pos); /* its own segment has not left */
        *what = "it was left out";
    } else if (e->sub_open && e->dst == HS_DST_OUT) {
        /* its segment header already promised its length: zero-fill, as
         * far as is believable */
        *pad = e->huge_out_end - e->out.total;
        if (too_much_to_pad(*pad, e->out.total - e->huge_seg_pos))
            return too_short(e, end, *pad, 1);
        *what = "its missing bytes were written as zeros";
    } else if (e->sub_open) {
        e->seg_len = e->sub_mark;
        if (e->seg_len == info_size(e) && e->seg[0] == HS_SUB_HEAP_DUMP_INFO)
            e->seg_len = 0; /* only the heap switch made for it is left */
        *what = "it was left out";
    } else if (e->rec_partial && still_buffered(e, e->rec_out_pos)) {
        take_back(e, e->rec_out_pos);
        *what = "it was left out";
    } else if (e->rec_partial) {
        /* it has partly left: complete it, unless its length is past belief */
        *pad = e->c->rec_end - end;
        if (too_much_to_pad(*pad, end - e->c->rec_off))
            return too_short(e, end, *pad, 0);
        *what = "its missing bytes were written as zeros";
    }
    if (*pad && hs_out_fill(&e->out, 0, *pad) != HS_OK)
        return out_failed(e);
    e->sub_open = 0;
    e->rec_partial = 0;
    e->dst = HS_DST_SEG;
    hs_reader_skip_all(&e->c->rd);
    e->span = e->c->rd.pos;
    return HS_OK;
}
