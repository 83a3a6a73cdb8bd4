/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fastpath.c - runs of plain objects: the heap decoder's fast path (see
 * fastpath.h), beside heap.c's sub-record walk, which it must match byte
 * for byte and count for count.
 *
 * It reads the window and writes the encoder only through their inline
 * calls (reader.h, encoder.h: hs_reader_window, hs_enc_run_*), never their
 * fields, and moves the reader once, where a run ends. Of the filter it
 * sees the parts it was given (hs_fast_parts) and where the decoder stands
 * (hs_fast_at), which it hands back moved.
 */
#include "fastpath.h"

#include <assert.h>
#include <string.h>

#include "be.h"

/* The size of the object sub-record at `p` (its longest header, 1 + 2i + 8
 * bytes, is readable), or 0 when the sub-record walk must take it: not an
 * object, a primitive array in a kept heap (unless `skip`), or one of a bad
 * element type. */
static inline uint64_t run_object_size(const uint8_t *p, unsigned i, int skip)
{
    switch (p[0]) {
    case HS_SUB_INSTANCE_DUMP: return 1 + 2 * i + 8 + (uint64_t)hs_be32(p + 1 + 2 * i + 4);
    case HS_SUB_OBJ_ARRAY_DUMP: return 1 + 2 * i + 8 + (uint64_t)hs_be32(p + 1 + i + 4) * i;
    case HS_SUB_PRIM_ARRAY_DUMP:
        if (!skip || !hs_prim_size(p[1 + i + 8]))
            return 0;
        return 1 + i + 9 + (uint64_t)hs_be32(p + 1 + i + 4) * hs_prim_size(p[1 + i + 8]);
    default: return 0;
    }
}


/* The size of the object sub-record at `p` (`avail` bytes readable), 0 when
 * `p` is not an object or its header is not all there. */
static uint64_t object_size_at(const uint8_t *p, size_t avail, unsigned i)
{
    if (avail < 1 + 2 * (size_t)i + 8)
        return 0;
    if (p[0] == HS_SUB_PRIM_ARRAY_NODATA)
        return hs_prim_size(p[1 + i + 8]) ? 1 + i + 9 : 0;
    return run_object_size(p, i, 1);
}

/* True when a root that ends at window position `at` is to be dropped now
 * because the object `id` it names comes next, in a dropped heap, but for a
 * HEAP_DUMP_INFO or a record boundary between them, its header already in
 * the window. ART writes the root, then the heap switch, then the object,
 * and cuts a segment after 128 items, often between a root and its object:
 * without this look ahead such a root would be held. The object must lie
 * inside its record, as sub_record() checks before it decides the object's
 * roots. */
int hs_fast_root_dropped_ahead(const hs_fast *fp, const hs_fast_at *at, size_t pos, uint64_t id)
{
    const unsigned i = fp->p.c->idsize;
    const size_t info = 1 + 4 + i;
    const hs_reader *rd = &fp->p.c->rd;
    const uint8_t *p = hs_reader_window(rd) + pos;
    size_t avail = hs_reader_end(rd) - pos;
    uint64_t left = at->rec_end - hs_reader_offset_at(rd, pos), size; /* in the record */
    uint32_t heap = at->heap;

    if (left == 0) { /* the next record, if a segment, starts in the default heap */
        if (at->rec_end == UINT64_MAX || avail < HS_RECORD_HEADER ||
            p[0] != HS_TAG_HEAP_DUMP_SEGMENT)
            return 0;
        left = hs_be32(p + 5);
        p += HS_RECORD_HEADER;
        avail -= HS_RECORD_HEADER;
        heap = 0;
    }
    if (avail >= info && left >= info && p[0] == HS_SUB_HEAP_DUMP_INFO) {
        heap = hs_be32(p + 1);
        p += info;
        avail -= info;
        left -= info;
    }
    size = object_size_at(p, avail, i);
    return size && size <= left && hs_be_id(p + 1, i) == id &&
           hs_fast_heap_dropped(fp, heap) && !hs_roots_kept_thread(fp->p.roots, id);
}

/* ---- runs of plain objects --------------------------------------------------- */

/* Most sub-records of a heap dump are objects that need no decision of
 * their own: skipped whole in a dropped heap, copied whole in a kept one.
 * hs_fast_run() walks such a run in one tight loop, doing for each only what
 * heap.c's sub_record() and object() would do for it (the same counts, the same
 * bytes out), and hands back to sub_record() at the first sub-record that
 * needs more: a class dump, a root that must wait for its object, a Thread
 * object kept in a dropped heap, a primitive array in a kept heap that its
 * rules do not zero, a segment that would overflow, the end of the window
 * or of the record. While heaps are dropped, a run also writes or drops the
 * roots held for its objects, and goes on through heap switches and into
 * the next segment (walk_hold). */

/* The run's mode: 0 when the fast path is off, when a feature looks at
 * every object (the held start of a dump whose first object ends it,
 * scrubbing without cached layouts) or the segment is not ready, 1 to skip objects (their heap is
 * dropped), 2 to copy them while roots are held for their objects, 3 to
 * copy objects and roots (none are held), 4 as 3 with instance fields
 * scrubbed. The histogram counts in every mode (run_histo). */
static int run_mode(const hs_fast *fp, const hs_fast_at *at)
{
    /* a stage that goes on past objects (strrec.c) only takes the closed
     * segments, which the slow path closes, and checks, as always */
    if (fp->off || (hs_enc_staging(fp->p.enc) && !fp->p.str->on_demand) ||
        (fp->p.scrub && !fp->p.scrub->masks))
        return 0;
    if (fp->p.caps->hold_roots) /* walk_hold() sees to the segment */
        return at->heap_dropped ? 1 : 2;
    if (hs_enc_reencodes(fp->p.enc) && !hs_enc_run_ready(fp->p.enc))
        return 0;
    return fp->p.scrub ? 4 : 3;
}

/* The size of the PRIMITIVE_ARRAY_DUMP at `p` when a run may zero its
 * payload (hs_heap_init says which), else 0. */
static inline uint64_t run_zero_size(const hs_fast *fp, const uint8_t *p, unsigned i)
{
    const unsigned type = p[1 + i + 8];
    const unsigned esize = hs_prim_size(type);
    uint64_t payload;

    if (!esize)
        return 0;
    payload = (uint64_t)hs_be32(p + 1 + i + 4) * esize;
    return payload < fp->zero_below[type] ? 1 + i + 9 + payload : 0;
}

/* Zeroes the payload of the array at window position `pos` (`size` bytes
 * in all): what comes before it goes to the segment, then its zeros. The
 * run has checked that the segment has room. Returns the payload size. */
static inline uint64_t run_zero(hs_enc *enc, size_t pos, unsigned i, uint64_t size)
{
    const size_t hdr = 1 + i + 9, payload = (size_t)size - hdr;

    hs_enc_run_copy(enc, pos + hdr);
    memset(hs_enc_run_replace(enc, payload), 0, payload);
    return payload;
}

/* Writes the INSTANCE_DUMP at window position `pos` (`hdr` header bytes,
 * then m->size field bytes) with its fields scrubbed by layout `m`, as
 * hs_scrub_instance() would: what comes before its fields goes to the
 * segment, then the fields masked eight bytes at a time. */
static inline void run_scrub(hs_enc *enc, const uint8_t *buf, size_t pos, size_t hdr,
                             const hs_mask *m)
{
    const uint8_t *src = buf + pos + hdr;
    const size_t n = m->size;
    uint8_t *dst;
    size_t j;

    hs_enc_run_copy(enc, pos + hdr);
    dst = hs_enc_run_replace(enc, n);
    for (j = 0; j + 8 <= n; j += 8) {
        uint64_t v, k;
        memcpy(&v, src + j, 8);
        memcpy(&k, m->mask + j, 8);
        v &= k;
        memcpy(dst + j, &v, 8);
    }
    for (; j < n; j++)
        dst[j] = src[j] & m->mask[j];
}

/* True when `subtag` is a root that root() decides by its object alone (a
 * ROOT_THREAD_OBJ is written where it stands, see the top of this file). */
static int run_root(unsigned subtag)
{
    return hs_sub_is_root(subtag) && subtag != HS_SUB_ROOT_THREAD_OBJ;
}

/* The input's heap changes to the one the HEAP_DUMP_INFO at `p` names, as
 * heap_info() would say (the sub-record itself is dropped: the encoder
 * writes one where the output needs it). */
static inline void run_heap_info(const hs_fast *fp, hs_fast_at *at, const uint8_t *p)
{
    at->heap = hs_be32(p + 1);
    at->heap_dropped = hs_fast_heap_dropped(fp, at->heap);
    hs_enc_set_heap(fp->p.enc, fp->p.c->opt.to_jvm ? 0 : at->heap,
                    hs_be_id(p + 5, fp->p.c->idsize));
}

/* The slot of the histogram's row of the object at `p` (`i`-byte ids) in
 * the heap whose hs_histo_key mix is `mix` (the run's, worked out once:
 * its multiply was on every object's way to the slot), and its bytes in
 * *bytes (hs_histo_object, as heap.c counts them). NULL when the class
 * has no row yet: sub_record() makes it (that may fail, a run must not). */
static inline hs_histo_slot *run_histo(hs_histo *histo, const uint8_t *p, unsigned i,
                                       uint64_t mix, uint64_t *bytes)
{
    assert(p[0] == HS_SUB_INSTANCE_DUMP || p[0] == HS_SUB_OBJ_ARRAY_DUMP ||
           p[0] == HS_SUB_PRIM_ARRAY_DUMP);
    return hs_histo_row(histo, hs_histo_object(p, i, bytes) ^ mix);
}

/* What a run did, counted in locals: stores to the counters could alias
 * anything, and would make the compiler reload the parts' fields every
 * object. */
typedef struct {
    uint64_t objects[4]; /* by sub-tag & 3: instances 1, object arrays 2, primitive 3 */
    uint64_t roots, roots_dropped, dropped, out, zeroed, infos, scrubbed;
    uint64_t pairs; /* roots dropped with the object right after them */
} run_counts;

/* The root at window position `pos` (a fast.lead one), not right before its
 * object: dropped when the object is just ahead in a dropped heap (see
 * hs_fast_root_dropped_ahead), and then true; else root() is to hold it. */
static inline int run_drop_root(const hs_fast *fp, const hs_fast_at *at, const int mode,
                                size_t pos, size_t lim, run_counts *n)
{
    const uint8_t *p = hs_reader_window(&fp->p.c->rd) + pos;
    const size_t lead = fp->lead[p[0]];

    if (lim - pos < lead ||
        !hs_fast_root_dropped_ahead(fp, at, pos + lead, hs_be_id(p + 1, fp->p.c->idsize)))
        return 0;
    if (mode == 2) {
        hs_enc_run_copy(fp->p.enc, pos);
        hs_enc_run_drop(fp->p.enc, lead);
    }
    n->roots++;
    n->roots_dropped++;
    return 1;
}

/* The object `id` of `size` bytes at window position `pos` may have roots
 * held (hs_rootq_clear could not rule it out): they go to the segment right before it in a run
 * that copies, or are dropped with it in one that skips, as heap_rules()
 * would do. False when sub_record() must decide instead: a Thread object
 * kept in a dropped heap, or roots and object that would overflow `*room`.
 * The caller then takes the object without asking again. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static int run_release(const hs_fast *fp, const int mode, size_t pos, uint64_t id,
                       uint64_t size, uint64_t *room, run_counts *n)
{
    hs_rootq *q = &fp->p.roots->q;
    hs_enc *enc = fp->p.enc;
    uint64_t need = size;
    uint32_t ref;

    if (mode == 1 && hs_roots_kept_thread(fp->p.roots, id))
        return 0;
    if (mode == 2) {
        for (ref = hs_rootq_peek(q, id); ref; ref = hs_rootq_slot(q, ref)->next)
            need += hs_rootq_slot(q, ref)->len;
        if (need > *room)
            return 0;
        *room -= need - size; /* the caller takes the object's share */
        hs_enc_run_copy(enc, pos);
    }
    for (ref = hs_rootq_take(q, id); ref;) {
        hs_root_slot *slot = hs_rootq_slot(q, ref);
        const uint32_t next = slot->next;
        if (mode == 1) {
            n->roots_dropped++;
        } else {
            memcpy(hs_enc_run_insert(enc, slot->len), slot->bytes, slot->len);
            n->out++;
        }
        hs_rootq_put_back(q, ref);
        ref = next;
    }
    /* the next object finds its own range (the last one was found before
     * this object's roots went) */
    q->win_lo = q->win_hi = 0;
    return 1;
}

/* Walks from window position `pos` up to `lim` and returns where the run
 * ends. `i`, `mode` and `histo` are constants where it is inlined, so the
 * id reads and the mode tests fold away. `room` is what the open segment
 * can take. With `histo`, each object is counted in its histogram row, in
 * or out as heap.c would (out unless its heap is dropped: a run copies
 * only what sub_record() would keep, and zeroes rather than drops). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline size_t run_walk(const hs_fast *fp, const hs_fast_at *at, const unsigned i,
                              const int mode, const int histo, size_t pos, const size_t lim,
                              uint64_t room, run_counts *n)
{
    /* the parts in locals: the copies into the segment may alias the
     * fields they are read from */
    const uint8_t *const buf = hs_reader_window(&fp->p.c->rd);
    hs_enc *const enc = fp->p.enc;
    const hs_scrub *const scrub = fp->p.scrub;
    hs_histo *const histogram = fp->p.histo;
    const size_t head = 1 + 2 * (size_t)i + 8; /* the longest object header */
    const int hold = mode < 3; /* roots are held: every object is looked up */
    hs_rootq *const q = &fp->p.roots->q;
    uint64_t win_lo = q->win_lo, win_len = q->win_hi - q->win_lo; /* see hs_rootq_clear */
    /* a run stays in one heap (walk_hold takes the switches) */
    const uint64_t mix = hs_histo_key(0, histo && fp->p.version == 3 ? at->heap : 0);

    while (lim - pos >= head) {
        const uint8_t *p = buf + pos;
        size_t lead = 0; /* a root right before its object, dropped with it */
        uint64_t size, id, hbytes = 0;
        hs_histo_slot *row = NULL;

        /* Each size is read from the bytes just reached, so the walk is
         * a chain of loads the hardware cannot run ahead of, and its
         * prefetcher stops at every page: asking for the bytes 2 KiB on
         * (some 40 small objects) keeps them coming. */
        __builtin_prefetch((const void *)((uintptr_t)p + 2048));
        if (mode == 4 && p[0] == HS_SUB_INSTANCE_DUMP) {
            const hs_mask *m = hs_scrub_mask(scrub, hs_be_id(p + 1 + i + 4, i));
            size = head + (uint64_t)hs_be32(p + 1 + 2 * i + 4);
            if (!m || m->size != size - head || size > lim - pos || size > room)
                break;
            if (histo && !(row = run_histo(histogram, p, i, mix, &hbytes)))
                break;
            if (histo)
                hs_histo_add(histogram, row, hbytes, 1);
            room -= size;
            run_scrub(enc, buf, pos, head, m);
            n->out++;
            n->objects[1]++;
            n->scrubbed += m->zeroed;
            pos += (size_t)size;
            continue;
        }
        if (mode >= 3 && (lead = fp->copy_root[p[0]]) != 0) {
            /* a root copied as it is (none are held: see hs_heap_init) */
            if (lead > room)
                break;
            room -= lead;
            n->out++;
            n->roots++;
            pos += lead;
            continue;
        }
        if (hold && (lead = fp->lead[p[0]]) != 0 &&
            (mode == 2 || lim - pos < lead + head ||
             hs_be_id(p + lead + 1, i) != hs_be_id(p + 1, i))) {
            /* not right before its object (in a dropped heap) */
            if (!run_drop_root(fp, at, mode, pos, lim, n))
                break;
            pos += lead;
            continue;
        }
        size = run_object_size(p + lead, i, mode == 1);
        if (mode != 1 && !size && p[0] == HS_SUB_PRIM_ARRAY_DUMP)
            size = run_zero_size(fp, p, i);
        if (!size || size > lim - pos - lead) /* heap switches: walk_hold() */
            break;
        if (histo && !(row = run_histo(histogram, p + lead, i, mix, &hbytes)))
            break;
        id = hs_be_id(p + lead + 1, i);
        /* held roots and kept Thread objects: sub_record() decides */
        if (hold && id - win_lo >= win_len) {
            if (!hs_rootq_clear_slow(q, id) &&
                !run_release(fp, mode, pos, id, size + lead, &room, n))
                break;
            win_lo = q->win_lo;
            win_len = q->win_hi - q->win_lo;
        }
        if (mode == 1) {
            n->dropped++;
            n->pairs += lead != 0;
        } else {
            if (size > room)
                break;
            room -= size;
            n->out++;
            if (p[0] == HS_SUB_PRIM_ARRAY_DUMP) /* only zeroed ones get here */
                n->zeroed += run_zero(enc, pos, i, size);
        }
        if (histo)
            hs_histo_add(histogram, row, hbytes, mode != 1);
        n->objects[p[lead] & 3]++;
        pos += lead + (size_t)size;
    }
    /* a root too short for the loop to look at ends the record: its object
     * may open the next one */
    if (hold && pos < lim && fp->lead[buf[pos]] && run_drop_root(fp, at, mode, pos, lim, n))
        pos += fp->lead[buf[pos]];
    assert(pos <= lim); /* a run never reads past its record or the window */
    return pos;
}

/* run_walk() specialised by id size and mode, with the histogram or
 * without. Inlined, so that `n` is always the caller's local (see
 * run_counts). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline size_t walk(const hs_fast *fp, const hs_fast_at *at, int mode, size_t pos,
                          size_t lim, uint64_t room, run_counts *n)
{
    switch ((fp->p.histo ? 64 : 0) + mode * 8 + (int)fp->p.c->idsize) {
    case 1 * 8 + 4: return run_walk(fp, at, 4, 1, 0, pos, lim, room, n);
    case 2 * 8 + 4: return run_walk(fp, at, 4, 2, 0, pos, lim, room, n);
    case 3 * 8 + 4: return run_walk(fp, at, 4, 3, 0, pos, lim, room, n);
    case 4 * 8 + 4: return run_walk(fp, at, 4, 4, 0, pos, lim, room, n);
    case 1 * 8 + 8: return run_walk(fp, at, 8, 1, 0, pos, lim, room, n);
    case 2 * 8 + 8: return run_walk(fp, at, 8, 2, 0, pos, lim, room, n);
    case 3 * 8 + 8: return run_walk(fp, at, 8, 3, 0, pos, lim, room, n);
    case 4 * 8 + 8: return run_walk(fp, at, 8, 4, 0, pos, lim, room, n);
    case 64 + 1 * 8 + 4: return run_walk(fp, at, 4, 1, 1, pos, lim, room, n);
    case 64 + 2 * 8 + 4: return run_walk(fp, at, 4, 2, 1, pos, lim, room, n);
    case 64 + 3 * 8 + 4: return run_walk(fp, at, 4, 3, 1, pos, lim, room, n);
    case 64 + 4 * 8 + 4: return run_walk(fp, at, 4, 4, 1, pos, lim, room, n);
    case 64 + 1 * 8 + 8: return run_walk(fp, at, 8, 1, 1, pos, lim, room, n);
    case 64 + 2 * 8 + 8: return run_walk(fp, at, 8, 2, 1, pos, lim, room, n);
    case 64 + 3 * 8 + 8: return run_walk(fp, at, 8, 3, 1, pos, lim, room, n);
    default: return run_walk(fp, at, 8, 4, 1, pos, lim, room, n);
    }
}

/* The window position where the record being read ends, or the window's
 * end when that comes first; `pos` is a window position inside the record. */
static size_t record_limit(const hs_fast *fp, const hs_fast_at *at, size_t pos)
{
    const hs_reader *rd = &fp->p.c->rd;
    const uint64_t left = at->rec_end - hs_reader_offset_at(rd, pos);

    assert(at->rec_end >= hs_reader_offset_at(rd, pos));
    return left < hs_reader_end(rd) - pos ? pos + (size_t)left : hs_reader_end(rd);
}

/* The HEAP_DUMP_SEGMENT whose header is at window position `pos`, where the
 * segment being read ends, is begun here without a return to the record
 * loop: ART writes a segment every 128 sub-records, and runs go on across
 * them. `at` moves to it (heap.c does the record loop's bookkeeping, as
 * record() and hs_heap_record() would, when the run hands back). False when
 * the next record is not a segment with its header in the window, or is
 * one they must see (a zero length may mean "to the end of the input"). */
static int next_segment(const hs_fast *fp, hs_fast_at *at, size_t pos, size_t *lim)
{
    const hs_reader *rd = &fp->p.c->rd;
    const uint8_t *p = hs_reader_window(rd) + pos;
    uint64_t len;

    if (!at->segment || !hs_enc_to_segment(fp->p.enc) ||
        hs_reader_end(rd) - pos < HS_RECORD_HEADER || p[0] != HS_TAG_HEAP_DUMP_SEGMENT)
        return 0;
    len = hs_be32(p + 5);
    if (!len)
        return 0;
    at->prev_off = at->rec_off;
    at->rec_off = hs_reader_offset_at(rd, pos);
    at->rec_end = at->rec_off + HS_RECORD_HEADER + len;
    at->seg_len = len;
    at->segments++;
    at->heap = 0;
    at->heap_dropped = hs_fast_heap_dropped(fp, 0);
    hs_enc_set_heap(fp->p.enc, 0, 0);
    *lim = record_limit(fp, at, pos);
    return 1;
}

/* A run while heaps are dropped (re-encoding): objects skipped in dropped
 * heaps and copied in kept ones, across heap switches and segment
 * boundaries (ART switches heaps and segments every few dozen objects: a
 * return to sub_record() at each would cost more than the objects). The
 * walks themselves stay specialised; this loop takes the HEAP_DUMP_INFOs and
 * record headers between them, which are dropped. Bytes from the span to
 * `pos` are to be dropped while the heap is, else to be copied. */
static size_t walk_hold(const hs_fast *fp, hs_fast_at *at, size_t pos, size_t lim,
                        run_counts *n)
{
    hs_enc *e = fp->p.enc;
    const uint8_t *const buf = hs_reader_window(&fp->p.c->rd);
    const size_t info = 1 + 4 + fp->p.c->idsize;
    uint64_t room;
    size_t k, to;

    for (;;) {
        const int skip = at->heap_dropped;
        const uint8_t *p = buf + pos;

        if (pos < lim && !(lim - pos >= info && p[0] == HS_SUB_HEAP_DUMP_INFO)) {
            if (skip)
                to = walk(fp, at, 1, pos, lim, UINT64_MAX, n);
            else if (hs_enc_heap_current(e) && hs_enc_run_room(e, pos, &room))
                to = walk(fp, at, 2, pos, lim, room, n);
            else
                break;
            if (to == pos)
                break;
            pos = to;
            continue;
        }
        /* a HEAP_DUMP_INFO or the end of the record: what is before it goes
         * to the segment (or not), then it is passed over */
        if (!skip && !hs_enc_run_room(e, pos, &room))
            break;
        if (pos < lim) {
            k = info;
            n->infos++;
        } else {
            k = HS_RECORD_HEADER;
            if (!next_segment(fp, at, pos, &lim))
                break;
        }
        if (!skip)
            hs_enc_run_copy(e, pos);
        pos += k;
        hs_enc_run_drop_to(e, pos);
        if (k == info)
            run_heap_info(fp, at, p);
    }
    if (at->heap_dropped) /* what the run skipped does not go out */
        hs_enc_run_drop_to(e, pos);
    return pos;
}

hs_status hs_fast_run(hs_fast *fp, hs_fast_at *at)
{
    const int mode = run_mode(fp, at);
    hs_reader *rd = &fp->p.c->rd;
    hs_stats *st = &fp->p.c->st;
    const size_t start = hs_reader_pos(rd);
    run_counts n;
    size_t lim, pos;
    uint64_t room = UINT64_MAX, taken;

    if (!mode || at->rec_end < hs_reader_offset_at(rd, start))
        return HS_OK;
    memset(&n, 0, sizeof n);
    lim = record_limit(fp, at, start);
    if (mode < 3) {
        if (at->heap_dropped) /* what came before the run goes out */
            HS_TRY(hs_span_flush(fp->p.enc));
        pos = walk_hold(fp, at, start, lim, &n);
    } else {
        if (hs_enc_reencodes(fp->p.enc) && !hs_enc_run_room(fp->p.enc, start, &room))
            room = 0;
        pos = walk(fp, at, mode, start, lim, room, &n);
    }
    if (n.dropped)
        fp->p.roots->dropped_any = 1;
    hs_reader_advance_to(rd, pos);
    n.roots += n.pairs;
    n.roots_dropped += n.pairs;
    taken = n.objects[1] + n.objects[2] + n.objects[3] + n.roots + n.infos;
    fp->walked += taken;
    st->subrecords_in += taken;
    st->instances += n.objects[1];
    st->object_arrays += n.objects[2];
    st->primitive_arrays += n.objects[3];
    st->roots += n.roots;
    st->roots_dropped += n.roots_dropped;
    st->objects_dropped += n.dropped;
    st->subrecords_out += n.out;
    st->payload_bytes_zeroed += n.zeroed;
    st->field_bytes_scrubbed += n.scrubbed;
    return HS_OK;
}

hs_status hs_fast_init(hs_fast *fp, const hs_fast_parts *parts)
{
    const hs_caps *caps = parts->caps;
    const hs_rules *rules = parts->rules;
    hs_ctx *c = parts->c;
    unsigned t;

    fp->p = *parts;
    if (!caps->scrub)
        fp->p.scrub = NULL;
    if (!c->opt.histogram)
        fp->p.histo = NULL;
    for (t = 0; t < sizeof fp->heap_dropped; t++)
        fp->heap_dropped[t] = (uint8_t)(caps->hold_roots && hs_rules_heap_dropped(rules, t));
    for (t = 0; t < 256; t++) {
        fp->lead[t] = run_root(t) ? parts->sub_size[t] : 0;
        /* what heap.c's root() would copy as it is (write_root) */
        fp->copy_root[t] = caps->hold_roots || hs_rules_root_dropped(rules, t) ||
                                   (c->opt.to_jvm && hs_sub_is_android_root(t))
                               ? 0
                               : fp->lead[t];
        assert(fp->lead[t] <= HS_ROOT_MAX);
    }
    memset(fp->zero_below, 0, sizeof fp->zero_below);
    fp->walked = 0;
    /* a run writes zeros straight into the segment: only when re-encoding,
     * and when no feature needs to see the bytes it zeroes */
    if (!caps->reencode || c->opt.count_nonzero)
        return HS_OK;
    if (caps->scrub && !caps->hold_roots)
        HS_TRY(hs_scrub_masks_start(fp->p.scrub, c));
    if (caps->hashing)
        return HS_OK;
    for (t = 0; t < 16; t++)
        if (hs_prim_size(t))
            fp->zero_below[t] = hs_rules_zero_below(rules, t);
    return HS_OK;
}
