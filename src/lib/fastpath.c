/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fastpath.c - runs of plain objects: the heap decoder's fast path (see
 * fastpath.h), beside heap.c's sub-record walk, which it must match byte
 * for byte and count for count.
 *
 * It reads the window and writes the encoder only through their inline
 * calls (reader.h, encoder.h: hs_reader_window, hs_enc_run_*), never their
 * fields, and moves the reader once, where a run ends.
 */
#include <assert.h>
#include <string.h>

#include "be.h"
#include "core.h"

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
int hs_fast_root_dropped_ahead(const F *f, size_t at, uint64_t id)
{
    const unsigned i = f->c.idsize;
    const size_t info = 1 + 4 + i;
    const hs_reader *rd = &f->c.rd;
    const uint8_t *p = hs_reader_window(rd) + at;
    size_t avail = hs_reader_end(rd) - at;
    uint64_t left = f->c.rec_end - hs_reader_offset_at(rd, at), size; /* in the record */
    uint32_t heap = f->cur_heap;

    if (left == 0) { /* the next record, if a segment, starts in the default heap */
        if (f->c.rec_end == UINT64_MAX || avail < HS_RECORD_HEADER ||
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
           hs_heap_dropped(f, heap) && !hs_roots_kept_thread(&f->roots, id);
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
static int run_mode(const F *f)
{
    /* a stage that goes on past objects (strrec.c) only takes the closed
     * segments, which the slow path closes, and checks, as always */
    if (f->fast.off || (hs_enc_staging(&f->enc) && !f->str.on_demand) ||
        (f->caps.scrub && !f->scrub.masks))
        return 0;
    if (f->caps.hold_roots) /* walk_hold() sees to the segment */
        return f->cur_heap_dropped ? 1 : 2;
    if (hs_enc_reencodes(&f->enc) && !hs_enc_run_ready(&f->enc))
        return 0;
    return f->caps.scrub ? 4 : 3;
}

/* The size of the PRIMITIVE_ARRAY_DUMP at `p` when a run may zero its
 * payload (hs_heap_init says which), else 0. */
static inline uint64_t run_zero_size(const F *f, const uint8_t *p, unsigned i)
{
    const unsigned type = p[1 + i + 8];
    const unsigned esize = hs_prim_size(type);
    uint64_t payload;

    if (!esize)
        return 0;
    payload = (uint64_t)hs_be32(p + 1 + i + 4) * esize;
    return payload < f->fast.zero_below[type] ? 1 + i + 9 + payload : 0;
}

/* Zeroes the payload of the array at window position `pos` (`size` bytes
 * in all): what comes before it goes to the segment, then its zeros. The
 * run has checked that the segment has room. Returns the payload size. */
static inline uint64_t run_zero(F *f, size_t pos, unsigned i, uint64_t size)
{
    const size_t hdr = 1 + i + 9, payload = (size_t)size - hdr;

    hs_enc_run_copy(&f->enc, pos + hdr);
    memset(hs_enc_run_replace(&f->enc, payload), 0, payload);
    return payload;
}

/* Writes the INSTANCE_DUMP at window position `pos` (`hdr` header bytes,
 * then m->size field bytes) with its fields scrubbed by layout `m`, as
 * hs_scrub_instance() would: what comes before its fields goes to the
 * segment, then the fields masked eight bytes at a time. */
static inline void run_scrub(F *f, size_t pos, size_t hdr, const hs_mask *m)
{
    const uint8_t *src = hs_reader_window(&f->c.rd) + pos + hdr;
    const size_t n = m->size;
    uint8_t *dst;
    size_t j;

    hs_enc_run_copy(&f->enc, pos + hdr);
    dst = hs_enc_run_replace(&f->enc, n);
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
static inline void run_heap_info(F *f, const uint8_t *p)
{
    hs_set_heap(f, hs_be32(p + 1));
    hs_enc_set_heap(&f->enc, f->c.opt.to_jvm ? 0 : f->cur_heap, hs_be_id(p + 5, f->c.idsize));
}

/* The slot of the histogram's row of the object at `p` (`i`-byte ids) in
 * the heap whose hs_histo_key mix is `mix` (the run's, worked out once:
 * its multiply was on every object's way to the slot), and its bytes in
 * *bytes (hs_histo_object, as heap.c counts them). NULL when the class
 * has no row yet: sub_record() makes it (that may fail, a run must not). */
static inline hs_histo_slot *run_histo(F *f, const uint8_t *p, unsigned i, uint64_t mix,
                                       uint64_t *bytes)
{
    assert(p[0] == HS_SUB_INSTANCE_DUMP || p[0] == HS_SUB_OBJ_ARRAY_DUMP ||
           p[0] == HS_SUB_PRIM_ARRAY_DUMP);
    return hs_histo_row(&f->histo, hs_histo_object(p, i, bytes) ^ mix);
}

/* What a run did, counted in locals: stores to f's counters could alias
 * anything, and would make the compiler reload f's fields every object. */
typedef struct {
    uint64_t objects[4]; /* by sub-tag & 3: instances 1, object arrays 2, primitive 3 */
    uint64_t roots, roots_dropped, dropped, out, zeroed, infos, scrubbed;
    uint64_t pairs; /* roots dropped with the object right after them */
} run_counts;

/* The root at window position `pos` (a fast.lead one), not right before its
 * object: dropped when the object is just ahead in a dropped heap (see
 * hs_fast_root_dropped_ahead), and then true; else root() is to hold it. */
static inline int run_drop_root(F *f, const int mode, size_t pos, size_t lim, run_counts *n)
{
    const uint8_t *p = hs_reader_window(&f->c.rd) + pos;
    const size_t lead = f->fast.lead[p[0]];

    if (lim - pos < lead ||
        !hs_fast_root_dropped_ahead(f, pos + lead, hs_be_id(p + 1, f->c.idsize)))
        return 0;
    if (mode == 2) {
        hs_enc_run_copy(&f->enc, pos);
        hs_enc_run_drop(&f->enc, lead);
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
static int run_release(F *f, const int mode, size_t pos, uint64_t id, uint64_t size,
                       uint64_t *room, run_counts *n)
{
    hs_rootq *q = &f->roots.q;
    uint64_t need = size;
    uint32_t ref;

    if (mode == 1 && hs_roots_kept_thread(&f->roots, id))
        return 0;
    if (mode == 2) {
        for (ref = hs_rootq_peek(q, id); ref; ref = hs_rootq_slot(q, ref)->next)
            need += hs_rootq_slot(q, ref)->len;
        if (need > *room)
            return 0;
        *room -= need - size; /* the caller takes the object's share */
        hs_enc_run_copy(&f->enc, pos);
    }
    for (ref = hs_rootq_take(q, id); ref;) {
        hs_root_slot *slot = hs_rootq_slot(q, ref);
        const uint32_t next = slot->next;
        if (mode == 1) {
            n->roots_dropped++;
        } else {
            memcpy(hs_enc_run_insert(&f->enc, slot->len), slot->bytes, slot->len);
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
static inline size_t run_walk(F *f, const unsigned i, const int mode, const int histo, size_t pos,
                              const size_t lim, uint64_t room, run_counts *n)
{
    const uint8_t *const buf = hs_reader_window(&f->c.rd);
    const size_t head = 1 + 2 * (size_t)i + 8; /* the longest object header */
    const int hold = mode < 3; /* roots are held: every object is looked up */
    hs_rootq *const q = &f->roots.q;
    uint64_t win_lo = q->win_lo, win_len = q->win_hi - q->win_lo; /* see hs_rootq_clear */
    /* a run stays in one heap (walk_hold takes the switches) */
    const uint64_t mix = hs_histo_key(0, histo && f->version == 3 ? f->cur_heap : 0);

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
            const hs_mask *m = hs_scrub_mask(&f->scrub, hs_be_id(p + 1 + i + 4, i));
            size = head + (uint64_t)hs_be32(p + 1 + 2 * i + 4);
            if (!m || m->size != size - head || size > lim - pos || size > room)
                break;
            if (histo && !(row = run_histo(f, p, i, mix, &hbytes)))
                break;
            if (histo)
                hs_histo_add(&f->histo, row, hbytes, 1);
            room -= size;
            run_scrub(f, pos, head, m);
            n->out++;
            n->objects[1]++;
            n->scrubbed += m->zeroed;
            pos += (size_t)size;
            continue;
        }
        if (mode >= 3 && (lead = f->fast.copy_root[p[0]]) != 0) {
            /* a root copied as it is (none are held: see hs_heap_init) */
            if (lead > room)
                break;
            room -= lead;
            n->out++;
            n->roots++;
            pos += lead;
            continue;
        }
        if (hold && (lead = f->fast.lead[p[0]]) != 0 &&
            (mode == 2 || lim - pos < lead + head ||
             hs_be_id(p + lead + 1, i) != hs_be_id(p + 1, i))) {
            /* not right before its object (in a dropped heap) */
            if (!run_drop_root(f, mode, pos, lim, n))
                break;
            pos += lead;
            continue;
        }
        size = run_object_size(p + lead, i, mode == 1);
        if (mode != 1 && !size && p[0] == HS_SUB_PRIM_ARRAY_DUMP)
            size = run_zero_size(f, p, i);
        if (!size || size > lim - pos - lead) /* heap switches: walk_hold() */
            break;
        if (histo && !(row = run_histo(f, p + lead, i, mix, &hbytes)))
            break;
        id = hs_be_id(p + lead + 1, i);
        /* held roots and kept Thread objects: sub_record() decides */
        if (hold && id - win_lo >= win_len) {
            if (!hs_rootq_clear_slow(q, id) &&
                !run_release(f, mode, pos, id, size + lead, &room, n))
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
                n->zeroed += run_zero(f, pos, i, size);
        }
        if (histo)
            hs_histo_add(&f->histo, row, hbytes, mode != 1);
        n->objects[p[lead] & 3]++;
        pos += lead + (size_t)size;
    }
    /* a root too short for the loop to look at ends the record: its object
     * may open the next one */
    if (hold && pos < lim && f->fast.lead[buf[pos]] && run_drop_root(f, mode, pos, lim, n))
        pos += f->fast.lead[buf[pos]];
    assert(pos <= lim); /* a run never reads past its record or the window */
    return pos;
}

/* run_walk() specialised by id size and mode, with the histogram or
 * without. Inlined, so that `n` is always the caller's local (see
 * run_counts). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline size_t walk(F *f, int mode, size_t pos, size_t lim, uint64_t room, run_counts *n)
{
    switch ((f->c.opt.histogram ? 64 : 0) + mode * 8 + (int)f->c.idsize) {
    case 1 * 8 + 4: return run_walk(f, 4, 1, 0, pos, lim, room, n);
    case 2 * 8 + 4: return run_walk(f, 4, 2, 0, pos, lim, room, n);
    case 3 * 8 + 4: return run_walk(f, 4, 3, 0, pos, lim, room, n);
    case 4 * 8 + 4: return run_walk(f, 4, 4, 0, pos, lim, room, n);
    case 1 * 8 + 8: return run_walk(f, 8, 1, 0, pos, lim, room, n);
    case 2 * 8 + 8: return run_walk(f, 8, 2, 0, pos, lim, room, n);
    case 3 * 8 + 8: return run_walk(f, 8, 3, 0, pos, lim, room, n);
    case 4 * 8 + 8: return run_walk(f, 8, 4, 0, pos, lim, room, n);
    case 64 + 1 * 8 + 4: return run_walk(f, 4, 1, 1, pos, lim, room, n);
    case 64 + 2 * 8 + 4: return run_walk(f, 4, 2, 1, pos, lim, room, n);
    case 64 + 3 * 8 + 4: return run_walk(f, 4, 3, 1, pos, lim, room, n);
    case 64 + 4 * 8 + 4: return run_walk(f, 4, 4, 1, pos, lim, room, n);
    case 64 + 1 * 8 + 8: return run_walk(f, 8, 1, 1, pos, lim, room, n);
    case 64 + 2 * 8 + 8: return run_walk(f, 8, 2, 1, pos, lim, room, n);
    case 64 + 3 * 8 + 8: return run_walk(f, 8, 3, 1, pos, lim, room, n);
    default: return run_walk(f, 8, 4, 1, pos, lim, room, n);
    }
}

/* The window position where the record being read ends, or the window's
 * end when that comes first; `pos` is a window position inside the record. */
static size_t record_limit(const F *f, size_t pos)
{
    const hs_reader *rd = &f->c.rd;
    const uint64_t left = f->c.rec_end - hs_reader_offset_at(rd, pos);

    assert(f->c.rec_end >= hs_reader_offset_at(rd, pos));
    return left < hs_reader_end(rd) - pos ? pos + (size_t)left : hs_reader_end(rd);
}

/* The HEAP_DUMP_SEGMENT whose header is at window position `pos`, where the
 * segment being read ends, is begun here without a return to the record
 * loop, as record() and hs_heap_record() would begin it: ART writes a
 * segment every 128 sub-records, and runs go on across them. False when the
 * next record is not a segment with its header in the window, or is one
 * they must see (a zero length may mean "to the end of the input"). */
static int next_segment(F *f, size_t pos, size_t *lim)
{
    const hs_reader *rd = &f->c.rd;
    const uint8_t *p = hs_reader_window(rd) + pos;
    uint64_t len;

    if (f->c.rec_tag != HS_TAG_HEAP_DUMP_SEGMENT || !hs_enc_to_segment(&f->enc) ||
        hs_reader_end(rd) - pos < HS_RECORD_HEADER || p[0] != HS_TAG_HEAP_DUMP_SEGMENT)
        return 0;
    len = hs_be32(p + 5);
    if (!len)
        return 0;
    hs_record_end(f, HS_TAG_HEAP_DUMP_SEGMENT);
    f->c.rec_off = hs_reader_offset_at(rd, pos);
    hs_record_begin(f, HS_TAG_HEAP_DUMP_SEGMENT, len);
    f->heap_segments++;
    hs_set_heap(f, 0);
    hs_enc_set_heap(&f->enc, 0, 0);
    *lim = record_limit(f, pos);
    return 1;
}

/* A run while heaps are dropped (re-encoding): objects skipped in dropped
 * heaps and copied in kept ones, across heap switches and segment
 * boundaries (ART switches heaps and segments every few dozen objects: a
 * return to sub_record() at each would cost more than the objects). The
 * walks themselves stay specialised; this loop takes the HEAP_DUMP_INFOs and
 * record headers between them, which are dropped. Bytes from the span to
 * `pos` are to be dropped while the heap is, else to be copied. */
static size_t walk_hold(F *f, size_t pos, size_t lim, run_counts *n)
{
    hs_enc *e = &f->enc;
    const uint8_t *const buf = hs_reader_window(&f->c.rd);
    const size_t info = 1 + 4 + f->c.idsize;
    uint64_t room;
    size_t k, to;

    for (;;) {
        const int skip = f->cur_heap_dropped;
        const uint8_t *p = buf + pos;

        if (pos < lim && !(lim - pos >= info && p[0] == HS_SUB_HEAP_DUMP_INFO)) {
            if (skip)
                to = walk(f, 1, pos, lim, UINT64_MAX, n);
            else if (hs_enc_heap_current(e) && hs_enc_run_room(e, pos, &room))
                to = walk(f, 2, pos, lim, room, n);
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
            if (!next_segment(f, pos, &lim))
                break;
        }
        if (!skip)
            hs_enc_run_copy(e, pos);
        pos += k;
        hs_enc_run_drop_to(e, pos);
        if (k == info)
            run_heap_info(f, p);
    }
    if (f->cur_heap_dropped) /* what the run skipped does not go out */
        hs_enc_run_drop_to(e, pos);
    return pos;
}

hs_status hs_fast_run(F *f)
{
    const int mode = run_mode(f);
    hs_reader *rd = &f->c.rd;
    hs_stats *st = &f->c.st;
    const size_t start = hs_reader_pos(rd);
    run_counts n;
    size_t lim, pos;
    uint64_t room = UINT64_MAX, taken;

    if (!mode || f->c.rec_end < hs_reader_offset_at(rd, start))
        return HS_OK;
    memset(&n, 0, sizeof n);
    lim = record_limit(f, start);
    if (mode < 3) {
        if (f->cur_heap_dropped) /* what came before the run goes out */
            HS_TRY(hs_span_flush(&f->enc));
        pos = walk_hold(f, start, lim, &n);
    } else {
        if (hs_enc_reencodes(&f->enc) && !hs_enc_run_room(&f->enc, start, &room))
            room = 0;
        pos = walk(f, mode, start, lim, room, &n);
    }
    if (n.dropped)
        f->roots.dropped_any = 1;
    hs_reader_advance_to(rd, pos);
    n.roots += n.pairs;
    n.roots_dropped += n.pairs;
    taken = n.objects[1] + n.objects[2] + n.objects[3] + n.roots + n.infos;
    f->fast.walked += taken;
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

hs_status hs_fast_init(F *f)
{
    hs_fast *fp = &f->fast;
    unsigned t;

    for (t = 0; t < 256; t++) {
        fp->lead[t] = run_root(t) ? f->sub_size[t] : 0;
        /* what heap.c's root() would copy as it is (write_root) */
        fp->copy_root[t] = f->caps.hold_roots || hs_rules_root_dropped(f->rules, t) ||
                                   (f->c.opt.to_jvm && hs_sub_is_android_root(t))
                               ? 0
                               : fp->lead[t];
        assert(fp->lead[t] <= HS_ROOT_MAX);
    }
    memset(fp->zero_below, 0, sizeof fp->zero_below);
    fp->walked = 0;
    /* a run writes zeros straight into the segment: only when re-encoding,
     * and when no feature needs to see the bytes it zeroes */
    if (!f->caps.reencode || f->c.opt.count_nonzero)
        return HS_OK;
    if (f->caps.scrub && !f->caps.hold_roots)
        HS_TRY(hs_scrub_masks_start(&f->scrub, &f->c));
    if (f->caps.hashing)
        return HS_OK;
    for (t = 0; t < 16; t++)
        if (hs_prim_size(t))
            fp->zero_below[t] = hs_rules_zero_below(f->rules, t);
    return HS_OK;
}

void hs_fast_path(F *f, int on)
{
    f->fast.off = !on;
}

uint64_t hs_fast_walked(const F *f)
{
    return f->fast.walked;
}
