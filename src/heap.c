/*
 * heap.c - heap-dump records: walking sub-records, applying array rules,
 * and packing the output into segments.
 *
 * Two ways out, chosen once per run (F.reencode):
 *
 *  - In place. When no rule changes a length, every heap record keeps its
 *    header and its sub-records stream through, payloads zeroed or filled on
 *    the way. Nothing is buffered; unchanged bytes leave straight from the
 *    read window (see the span in filter_impl.h).
 *
 *  - Re-encoded. Input heap records are unwrapped and their surviving
 *    sub-records packed into new HEAP_DUMP_SEGMENTs of at most seg_cap bytes,
 *    staged in `seg` so each length is known before its header is written.
 *    A sub-record larger than seg_cap gets a segment of its own whose length
 *    is computed from the sub-record's header, and streams through unbuffered:
 *    memory never depends on the size of an input record.
 *
 * Android heap context (HEAP_DUMP_INFO) is scoped to one segment and every
 * segment starts in the default heap. When re-encoding, input HEAP_DUMP_INFOs
 * only record the heap the input is in; before each sub-record the output
 * segment is brought to that heap, by writing a HEAP_DUMP_INFO or, to get
 * back to the default heap (which has no HEAP_DUMP_INFO), by starting a new
 * segment. So a heap region split across output segments has its
 * HEAP_DUMP_INFO repeated at the start of each.
 */
#include <stdio.h>
#include <string.h>

#include "alloc.h"
#include "be.h"
#include "filter_impl.h"

/* ---- output segments ------------------------------------------------------- */

/* Most bytes of heap-dump start held back before they are written anyway. */
#define STAGE_CAP (64u << 20)

static void put_record_header(uint8_t *h, unsigned tag, uint32_t len)
{
    h[0] = (uint8_t)tag;
    hs_put_be32(h + 1, 0);
    hs_put_be32(h + 5, len);
}

/* Closed segments go to the output, or to the stage while the start of the
 * heap dump is held back (see hs_heap_commit). */
static hs_status out_write(F *f, const void *p, size_t n)
{
    if (f->staging) {
        if (n > f->stage_cap - f->stage_len) {
            size_t cap = f->stage_cap ? f->stage_cap : 1u << 20;
            uint8_t *b;
            while (n > cap - f->stage_len)
                cap *= 2;
            b = hs_realloc(&f->alloc, f->stage, f->stage_len, cap);
            if (!b)
                return hs_filter_io_fail(f, HS_E_NOMEM, "");
            f->stage = b;
            f->stage_cap = cap;
        }
        memcpy(f->stage + f->stage_len, p, n);
        f->stage_len += n;
        return HS_OK;
    }
    return hs_out_write(&f->out, p, n) == HS_OK ? HS_OK : hs_filter_io_fail(f, HS_E_WRITE, "");
}

/* The start of a heap dump is held back while unused strings are dropped,
 * because VisualVM's reader takes everything from the first heap segment to
 * the last as one run of sub-records: a STRING written between segments
 * breaks it. HotSpot writes every CLASS_DUMP (the records that name field
 * strings) before the first object, so the segments are staged until the
 * first object (or a sub-record too large to stage, a top-level record, the
 * end of the heap dump, or the stage cap); the strings those class dumps
 * name are written to the output as they are met, ahead of the stage.
 * Writers that do otherwise (ART interleaves class dumps with objects; the
 * JVMTI agent writes each STRING on first use, between other records) also
 * write only the strings they use, so for them (a 1.0.3 file, or a STRING
 * after a LOAD_CLASS) every string still held is written at
 * this point too. A string first needed after it goes between segments,
 * which the format allows and MAT, perflib and shark read. */
hs_status hs_heap_commit(F *f)
{
    hs_status s;

    if (!f->staging)
        return HS_OK;
    /* Strings first, written while still staging so that the open segment
     * stays open: it belongs after the stage. */
    if (f->android || f->strings_interleaved)
        HS_TRY(hs_str_flush_held(f));
    f->staging = 0;
    s = out_write(f, f->stage, f->stage_len);
    hs_free(&f->alloc, f->stage);
    f->stage = NULL;
    f->stage_len = f->stage_cap = 0;
    return s;
}

hs_status hs_seg_close(F *f)
{
    uint8_t h[HS_RECORD_HEADER];

    if (!f->seg_open)
        return HS_OK;
    if (f->dst == DST_SEG)
        HS_TRY(hs_span_flush(f));
    if (f->seg_len) { /* never an empty segment: VisualVM rejects them */
        put_record_header(h, HS_TAG_HEAP_DUMP_SEGMENT, (uint32_t)f->seg_len);
        HS_TRY(out_write(f, h, sizeof h));
        HS_TRY(out_write(f, f->seg, f->seg_len));
        f->st.segments_out++;
        f->st.records_out++;
        f->heap_open = 1;
    }
    f->seg_len = 0;
    f->seg_open = 0;
    f->out_heap = 0;
    return HS_OK;
}

hs_status hs_heap_end(F *f)
{
    uint8_t h[HS_RECORD_HEADER];

    put_record_header(h, HS_TAG_HEAP_DUMP_END, 0);
    HS_TRY(hs_set_dst(f, DST_OUT));
    HS_TRY(hs_emit(f, h, sizeof h));
    f->st.records_out++;
    f->heap_open = 0;
    return HS_OK;
}

static size_t info_size(const F *f)
{
    return 1 + 4 + f->idsize;
}

/* Writes a HEAP_DUMP_INFO for the input's current heap to the destination. */
static hs_status write_info(F *f)
{
    uint8_t b[1 + 4 + 8];

    b[0] = HS_SUB_HEAP_DUMP_INFO;
    hs_put_be32(b + 1, f->in_heap);
    hs_put_be_id(b + 5, f->in_heap_name, f->idsize);
    f->out_heap = f->in_heap;
    f->st.subrecords_out++;
    return hs_emit(f, b, info_size(f));
}

/* Makes the destination ready for a sub-record of `size` output bytes
 * (re-encoding only): joins the open segment when it fits and is in the
 * right heap, else starts a new one, or a segment of its own when the
 * sub-record is larger than a segment may be. */
static hs_status place_sub(F *f, uint64_t size)
{
    uint64_t head;

    if (f->in_heap && f->in_heap != f->out_heap)
        HS_TRY(hs_str_use(f, f->in_heap_name)); /* may close the segment */
    if (f->seg_open) {
        uint64_t pending = f->seg_len + (f->dst == DST_SEG ? f->rd.pos - f->span : 0);
        int switch_heap = f->in_heap != f->out_heap;

        head = switch_heap ? info_size(f) : 0;
        if (!(switch_heap && f->in_heap == 0) && pending + head + size <= f->seg_cap) {
            /* a STRING written while staging may have left dst at OUT */
            HS_TRY(hs_set_dst(f, DST_SEG));
            return switch_heap ? write_info(f) : HS_OK;
        }
        HS_TRY(hs_seg_close(f));
    }
    head = f->in_heap ? info_size(f) : 0;
    if (f->staging && (head + size > f->seg_cap || f->stage_len > STAGE_CAP))
        HS_TRY(hs_heap_commit(f)); /* never stage what has no bound */
    if (head + size > f->seg_cap) {
        uint8_t h[HS_RECORD_HEADER];

        if (head + size > UINT32_MAX)
            return hs_filter_fail(f, HS_E_LIMIT, hs_offset(f),
                                  "a %llu-byte sub-record does not fit in a heap-dump "
                                  "segment", (unsigned long long)size);
        put_record_header(h, HS_TAG_HEAP_DUMP_SEGMENT, (uint32_t)(head + size));
        HS_TRY(hs_set_dst(f, DST_OUT));
        HS_TRY(hs_span_flush(f));
        f->huge_seg_pos = f->out.total; /* for --salvage */
        HS_TRY(hs_emit(f, h, sizeof h));
        f->st.segments_out++;
        f->st.records_out++;
        f->heap_open = 1;
        f->out_heap = 0;
        return head ? write_info(f) : HS_OK;
    }
    HS_TRY(hs_set_dst(f, DST_SEG));
    f->seg_open = 1;
    f->out_heap = 0;
    return head ? write_info(f) : HS_OK;
}

/* Opens a sub-record of `size` output bytes. What --salvage needs to undo
 * or complete it is noted: where it starts in the segment, or where its own
 * segment ends in the output. */
static hs_status begin_sub(F *f, uint64_t size)
{
    f->st.subrecords_out++;
    if (!f->reencode)
        return HS_OK;
    HS_TRY(place_sub(f, size));
    f->sub_open = 1;
    f->sub_off = hs_offset(f);
    if (f->dst == DST_OUT) {
        HS_TRY(hs_span_flush(f));
        f->huge_out_end = f->out.total + size;
    } else {
        f->sub_mark = f->seg_len + (f->rd.pos - f->span);
    }
    return HS_OK;
}

hs_status hs_sub_begin(F *f, uint64_t size)
{
    return begin_sub(f, size);
}

/* Back to staging after a sub-record that had a segment of its own. */
static hs_status end_sub(F *f)
{
    f->sub_open = 0;
    if (f->reencode && f->dst == DST_OUT) {
        f->out_heap = 0;
        return hs_set_dst(f, DST_SEG);
    }
    return HS_OK;
}

hs_status hs_sub_end(F *f)
{
    return end_sub(f);
}

/* ---- sub-records ----------------------------------------------------------- */

static hs_status past_record_end(F *f, uint64_t off, uint64_t size);

/* `size` bytes from `off` lie inside the heap record being read. Checked
 * for every sub-record, so the failure is kept out of line. */
static inline hs_status within(F *f, uint64_t off, uint64_t size)
{
    return size <= f->rec_end - off ? HS_OK : past_record_end(f, off, size);
}

#if defined(__GNUC__)
__attribute__((cold, noinline))
#endif
static hs_status past_record_end(F *f, uint64_t off, uint64_t size)
{
    return hs_filter_fail(f, HS_E_MALFORMED, off,
                          "%s runs past the end of its %s record (it needs %llu bytes, "
                          "%llu are left)",
                          hs_subtag_name((unsigned)f->subtag), hs_tag_name((unsigned)f->rec_tag),
                          (unsigned long long)size, (unsigned long long)(f->rec_end - off));
}

/* A sub-record copied whole: `hdr` bytes available now, `payload` streamed
 * (the caller has checked that both lie inside the record). */
static hs_status copy_sub(F *f, size_t hdr, uint64_t payload)
{
    HS_TRY(begin_sub(f, hdr + payload));
    hs_pass(f, hdr);
    HS_TRY(hs_copy_stream(f, payload, "a sub-record payload"));
    return end_sub(f);
}

/* Writes (or, with `drop`, discards) the roots held for object `id`. */
/* Writes (or, with `drop`, discards) a chain of held roots from `ref`,
 * giving each slot back. */
static hs_status write_root_chain(F *f, uint32_t ref, int drop)
{
    while (ref) {
        hs_root_slot *s = hs_rootq_slot(&f->roots, ref);
        uint32_t next = s->next;
        if (drop) {
            f->st.roots_dropped++;
        } else {
            HS_TRY(begin_sub(f, s->len));
            HS_TRY(hs_emit(f, s->bytes, s->len));
            HS_TRY(end_sub(f));
        }
        hs_rootq_put_back(&f->roots, ref);
        ref = next;
    }
    return HS_OK;
}

/* Writes (or, with `drop`, discards) the roots held for object `id`. */
static hs_status release_roots(F *f, uint64_t id, int drop)
{
    return write_root_chain(f, hs_rootq_take(&f->roots, id), drop);
}

/* With heaps dropped every object's id is looked up among the held roots.
 * Starting the load of the next sub-record's filter word now, `size` bytes
 * on, lets that lookup find it in cache. */
#if defined(__GNUC__)
__attribute__((always_inline)) /* else GCC takes it for pure and drops the call */
#endif
static inline void prefetch_next(const F *f, uint64_t size)
{
    if (f->drop_heaps && hs_reader_avail(&f->rd) >= size + 1 + f->idsize)
        hs_rootq_prefetch(&f->roots, hs_be_id(hs_cur(f) + size + 1, f->idsize));
}

/* Heap rules for the object whose header is at hs_cur(): sets `*dropped`
 * when its heap is dropped (its roots go with it), else writes the roots
 * held for it. */
static hs_status heap_rules(F *f, int *dropped)
{
    uint64_t id;

    *dropped = 0;
    if (!f->drop_heaps)
        return HS_OK;
    id = hs_be_id(hs_cur(f) + 1, f->idsize);
    *dropped = f->cur_heap_dropped;
    return release_roots(f, id, *dropped);
}

/* An instance or array: dropped with its heap, or copied. */
static hs_status object(F *f, uint64_t off, size_t hdr, uint64_t payload)
{
    int dropped;

    HS_TRY(within(f, off, hdr + payload));
    prefetch_next(f, hdr + payload);
    HS_TRY(heap_rules(f, &dropped));
    if (dropped) {
        f->st.objects_dropped++;
        return hs_skip_stream(f, hdr + payload, "a dropped object");
    }
    if (f->scrub && *hs_cur(f) == HS_SUB_INSTANCE_DUMP)
        return hs_scrub_instance(f, off, hdr, payload);
    return copy_sub(f, hdr, payload);
}

/* True when the sub-record right after a root of `fixed` bytes is, in the
 * same record, the object `id` the root names: ART writes one root just
 * before each zygote and image object. */
static int object_follows(const F *f, size_t fixed, uint64_t id)
{
    const size_t need = fixed + 1 + f->idsize;
    const uint8_t *next = hs_cur(f) + fixed;

    if (hs_reader_avail(&f->rd) < need || f->rec_end - hs_offset(f) < need)
        return 0;
    switch (next[0]) {
    case HS_SUB_INSTANCE_DUMP:
    case HS_SUB_OBJ_ARRAY_DUMP:
    case HS_SUB_PRIM_ARRAY_DUMP:
    case HS_SUB_PRIM_ARRAY_NODATA:
        return hs_be_id(next + 1, f->idsize) == id;
    default:
        return 0;
    }
}

static int android_root(unsigned subtag)
{
    return subtag >= HS_SUB_ROOT_INTERNED_STRING && subtag <= HS_SUB_ROOT_UNREACHABLE;
}

static hs_status root(F *f, unsigned subtag, size_t fixed)
{
    uint8_t b[HS_ROOT_MAX];
    size_t n = fixed;

    f->st.roots++;
    if (f->rules->drop_root[subtag]) {
        f->st.roots_dropped++;
        return hs_drop(f, fixed);
    }
    memcpy(b, hs_cur(f), fixed);
    if (f->opt.to_jvm && android_root(subtag)) {
        /* as hprof-conv maps them: ROOT_UNKNOWN with the same object id
         * (a JNI monitor loses its thread serial and frame depth) */
        b[0] = HS_SUB_ROOT_UNKNOWN;
        n = 1 + f->idsize;
    }
    if (f->drop_heaps) {
        uint64_t id = hs_be_id(b + 1, f->idsize);
        size_t before;
        if (object_follows(f, fixed, id)) {
            /* its heap is known now: no need to hold it; roots of the
             * same object held earlier go first, keeping their order */
            HS_TRY(release_roots(f, id, f->cur_heap_dropped));
            if (f->cur_heap_dropped) {
                f->st.roots_dropped++;
                return hs_drop(f, fixed);
            }
            goto write;
        }
        /* held until its object shows which heap it is in (rootq.h) */
        prefetch_next(f, fixed);
        before = hs_rootq_bytes(&f->roots);
        if (hs_rootq_add(&f->roots, id, b, n) != HS_OK)
            return hs_filter_io_fail(f, HS_E_NOMEM, "");
        HS_TRY(hs_drop(f, fixed));
        /* held memory changes only when the queue grows */
        return hs_rootq_bytes(&f->roots) == before ? HS_OK : hs_check_held(f);
    }
write:
    if (n != fixed || b[0] != subtag) {
        HS_TRY(begin_sub(f, n));
        HS_TRY(hs_drop(f, fixed));
        HS_TRY(hs_emit(f, b, n));
        return end_sub(f);
    }
    return copy_sub(f, fixed, 0);
}

/* PRIMITIVE_ARRAY_NODATA names an array whose elements were not dumped.
 * --to-jvm writes it as the PRIMITIVE_ARRAY_DUMP it stands for, elements
 * zero, so its size stays right (hprof-conv keeps the count but writes no
 * elements, and the next sub-record is read as array data). */
static hs_status nodata_to_jvm(F *f, uint64_t off, size_t hdr)
{
    uint8_t b[1 + 8 + 9];
    const unsigned i = f->idsize;
    uint64_t payload;
    int dropped;

    memcpy(b, hs_cur(f), hdr);
    payload = (uint64_t)hs_be32(b + 1 + i + 4) * hs_prim_size(b[1 + i + 8]);
    HS_TRY(within(f, off, hdr));
    HS_TRY(heap_rules(f, &dropped));
    if (dropped) {
        f->st.objects_dropped++;
        return hs_drop(f, hdr);
    }
    b[0] = HS_SUB_PRIM_ARRAY_DUMP;
    HS_TRY(begin_sub(f, hdr + payload));
    HS_TRY(hs_drop(f, hdr));
    HS_TRY(hs_emit(f, b, hdr));
    HS_TRY(hs_fill_stream_out(f, 0, payload));
    return end_sub(f);
}

hs_status hs_heap_finish(F *f)
{
    uint32_t ref;

    HS_TRY(hs_heap_commit(f));
    if (f->scrub)
        HS_TRY(hs_scrub_finish(f));
    /* roots whose object never came: they dangled in the input too */
    f->in_heap = 0;
    while ((ref = hs_rootq_take_any(&f->roots)) != 0)
        HS_TRY(write_root_chain(f, ref, 0));
    return hs_seg_close(f);
}

static hs_status array_rules(F *f, size_t hdr, unsigned type, uint64_t count, unsigned esize,
                             uint64_t payload);

static hs_status prim_array(F *f, uint64_t off, size_t hdr)
{
    const uint8_t *p = hs_cur(f);
    unsigned i = f->idsize, type = p[1 + i + 8];
    uint64_t count = hs_be32(p + 1 + i + 4);
    unsigned esize = hs_prim_size(type);
    uint64_t payload;

    if (!esize)
        return hs_filter_fail(f, HS_E_MALFORMED, off + 1 + i + 8,
                              "PRIMITIVE_ARRAY_DUMP has element type %u", type);
    payload = count * esize;
    HS_TRY(within(f, off, hdr + payload));
    f->st.primitive_arrays++;
    if (f->drop_heaps) {
        int dropped;
        prefetch_next(f, hdr + payload);
        HS_TRY(heap_rules(f, &dropped));
        if (dropped) {
            f->st.objects_dropped++;
            return hs_skip_stream(f, hdr + payload, "a dropped object");
        }
    }
    if (f->opt.find_duplicates && payload >= 8) {
        hs_status s;
        HS_TRY(hs_dups_begin(f, hdr, payload));
        s = array_rules(f, hdr, type, count, esize, payload);
        f->hashing = 0;
        return s == HS_OK ? hs_dups_end(f, type, payload) : s;
    }
    return array_rules(f, hdr, type, count, esize, payload);
}

/* What the rules do with the PRIMITIVE_ARRAY_DUMP at hs_cur(). */
static hs_status array_rules(F *f, size_t hdr, unsigned type, uint64_t count, unsigned esize,
                             uint64_t payload)
{
    const uint8_t *p = hs_cur(f);
    const unsigned i = f->idsize;
    hs_arr_verdict v = hs_rules_array(f->rules, type, payload);
    uint64_t keep;

    switch (v.action) {
    case HS_ARR_KEEP:
        return copy_sub(f, hdr, payload);
    case HS_ARR_ZERO:
    case HS_ARR_FILL:
    case HS_ARR_PREFIX:
        keep = v.action == HS_ARR_PREFIX && v.prefix < count ? v.prefix * esize
               : v.action == HS_ARR_PREFIX                  ? payload
                                                            : 0;
        HS_TRY(begin_sub(f, hdr + payload));
        hs_pass(f, hdr);
        HS_TRY(hs_copy_stream(f, keep, "an array payload"));
        HS_TRY(hs_fill_stream_count(f, v.action == HS_ARR_FILL ? v.fill : 0, payload - keep,
                                    &f->st.payload_bytes_zeroed, &f->st.nonzero_array_bytes,
                                    &f->st.first_nonzero_array));
        return end_sub(f);
    case HS_ARR_EMPTY: {
        uint8_t h[1 + 8 + 9];
        memcpy(h, p, hdr);
        hs_put_be32(h + 1 + i + 4, 0);
        HS_TRY(begin_sub(f, hdr));
        HS_TRY(hs_drop(f, hdr));
        HS_TRY(hs_emit(f, h, hdr));
        HS_TRY(hs_skip_stream(f, payload, "an array payload"));
        f->st.payload_bytes_dropped += payload;
        return end_sub(f);
    }
    case HS_ARR_DROP:
        f->st.arrays_dropped++;
        f->st.payload_bytes_dropped += payload;
        return hs_skip_stream(f, hdr + payload, "an array payload");
    }
    return HS_OK;
}

/* Makes the first `k` bytes of the sub-record at `off` available, after
 * checking they lie inside its record. */
static hs_status need_in_record(F *f, uint64_t off, uint64_t k)
{
    HS_TRY(within(f, off, k));
    return hs_need(f, (size_t)k, "a CLASS_DUMP");
}

static hs_status bad_field_type(F *f, uint64_t at, const char *table, unsigned n,
                                unsigned type)
{
    return hs_filter_fail(f, HS_E_MALFORMED, at, "CLASS_DUMP %s entry %u has type %u", table,
                          n, type);
}

/* Writes the field names of the CLASS_DUMP at hs_cur() (whole in the
 * window, and already checked by class_dump) if they are held. */
static hs_status class_dump_strings(F *f)
{
    const unsigned i = f->idsize;
    size_t k = 1 + 7 * (size_t)i + 8;
    unsigned n, j, pass;

    n = hs_be16(hs_cur(f) + k);
    k += 2;
    for (j = 0; j < n; j++)
        k += 3 + hs_type_size(hs_cur(f)[k + 2], i);
    for (pass = 0; pass < 2; pass++) { /* statics, then instance fields */
        n = hs_be16(hs_cur(f) + k);
        k += 2;
        for (j = 0; j < n; j++) {
            unsigned type = hs_cur(f)[k + i];
            HS_TRY(hs_str_use(f, hs_be_id(hs_cur(f) + k, i)));
            k += i + 1 + (pass == 0 ? hs_type_size(type, i) : 0);
        }
    }
    return HS_OK;
}

/* CLASS_DUMP has three variable tables; walk them to find its size (at
 * most about 2.4 MB, which the read window can always hold), then copy it. */
static hs_status class_dump(F *f, uint64_t off)
{
    const unsigned i = f->idsize;
    uint64_t k = 1 + 7 * (uint64_t)i + 8; /* at n_const */
    unsigned n, j, type, w;

    HS_TRY(need_in_record(f, off, k + 2));
    n = hs_be16(hs_cur(f) + k);
    k += 2;
    for (j = 0; j < n; j++) { /* u2 index, u1 type, value */
        HS_TRY(need_in_record(f, off, k + 3));
        type = hs_cur(f)[k + 2];
        if (!(w = hs_type_size(type, i)))
            return bad_field_type(f, off + k + 2, "constant pool", j, type);
        k += 3 + w;
    }
    HS_TRY(need_in_record(f, off, k + 2));
    n = hs_be16(hs_cur(f) + k);
    k += 2;
    for (j = 0; j < n; j++) { /* id name, u1 type, value */
        HS_TRY(need_in_record(f, off, k + i + 1));
        type = hs_cur(f)[k + i];
        if (!(w = hs_type_size(type, i)))
            return bad_field_type(f, off + k + i, "static field", j, type);
        k += i + 1 + w;
    }
    HS_TRY(need_in_record(f, off, k + 2));
    n = hs_be16(hs_cur(f) + k);
    k += 2;
    for (j = 0; j < n; j++) { /* id name, u1 type */
        HS_TRY(need_in_record(f, off, k + i + 1));
        type = hs_cur(f)[k + i];
        if (!hs_type_size(type, i))
            return bad_field_type(f, off + k + i, "instance field", j, type);
        k += i + 1;
    }
    HS_TRY(need_in_record(f, off, k));
    f->st.class_dumps++;
    if (f->rules->drop_unused_strings)
        HS_TRY(class_dump_strings(f));
    if (f->drop_heaps) /* class dumps are never dropped: boot classes live in
                          the image heap, and dropping them orphans Strings */
        HS_TRY(release_roots(f, hs_be_id(hs_cur(f) + 1, i), 0));
    if (f->scrub) {
        uint64_t id = hs_be_id(hs_cur(f) + 1, i);
        HS_TRY(begin_sub(f, k));
        HS_TRY(hs_scrub_class_dump(f, (size_t)k));
        HS_TRY(end_sub(f));
        return hs_scrub_class_arrived(f, id);
    }
    return copy_sub(f, (size_t)k, 0);
}

static hs_status heap_info(F *f, size_t hdr)
{
    const uint8_t *p = hs_cur(f);

    hs_set_heap(f, hs_be32(p + 1));
    /* --to-jvm: 1.0.2 has no heaps; the heap still counts for the rules */
    f->in_heap = f->opt.to_jvm ? 0 : f->cur_heap;
    f->in_heap_name = hs_be_id(p + 5, f->idsize);
    if (!f->reencode) {
        f->st.subrecords_out++;
        hs_pass(f, hdr);
        return HS_OK;
    }
    return hs_drop(f, hdr); /* written again where needed, see begin_sub */
}

static hs_status bad_subtag(F *f, uint64_t off, unsigned subtag)
{
    f->subtag = -1;
    return hs_filter_fail(f, HS_E_MALFORMED, off,
                          "unknown heap sub-record tag 0x%02x in the %s record at byte %llu "
                          "(sub-records carry no length, so the rest cannot be read)",
                          subtag, hs_tag_name((unsigned)f->rec_tag),
                          (unsigned long long)f->rec_off);
}

static hs_status sub_record(F *f)
{
    const unsigned i = f->idsize;
    uint64_t off = hs_offset(f);
    const uint8_t *p;
    unsigned subtag;
    size_t fixed;

    HS_TRY(hs_need(f, 1, "a sub-record tag"));
    subtag = *hs_cur(f);
    fixed = f->sub_size[subtag];
    if (!fixed)
        return bad_subtag(f, off, subtag);
    f->subtag = (int)subtag;
    f->st.subrecords_in++;
    HS_TRY(within(f, off, fixed));
    HS_TRY(hs_need(f, fixed, "a sub-record header"));
    p = hs_cur(f);
    if (f->staging && subtag != HS_SUB_CLASS_DUMP && subtag != HS_SUB_HEAP_DUMP_INFO &&
        !hs_sub_is_root(subtag))
        HS_TRY(hs_heap_commit(f)); /* the first object: class dumps are over */
    switch (subtag) {
    case HS_SUB_CLASS_DUMP:
        return class_dump(f, off);
    case HS_SUB_INSTANCE_DUMP:
        f->st.instances++;
        return object(f, off, fixed, hs_be32(p + 1 + 2 * i + 4));
    case HS_SUB_OBJ_ARRAY_DUMP:
        f->st.object_arrays++;
        return object(f, off, fixed, (uint64_t)hs_be32(p + 1 + i + 4) * i);
    case HS_SUB_PRIM_ARRAY_DUMP:
        return prim_array(f, off, fixed);
    case HS_SUB_PRIM_ARRAY_NODATA:
        if (!hs_prim_size(p[1 + i + 8]))
            return hs_filter_fail(f, HS_E_MALFORMED, off + 1 + i + 8,
                                  "PRIMITIVE_ARRAY_NODATA has element type %u", p[1 + i + 8]);
        f->st.primitive_arrays++;
        if (f->opt.to_jvm)
            return nodata_to_jvm(f, off, fixed);
        return object(f, off, fixed, 0);
    case HS_SUB_HEAP_DUMP_INFO:
        return heap_info(f, fixed);
    default:
        return root(f, subtag, fixed);
    }
}

/* HotSpot 7/8 leaves a HEAP_DUMP's length at 0 when the dump stops before it
 * seeks back to patch it. A zero-length heap record followed by a byte that
 * can only start a sub-record is read as running to the end of the input. */
static hs_status runs_to_eof(F *f, int *yes)
{
    hs_status s;
    unsigned next;

    *yes = 0;
    HS_TRY(hs_span_flush(f));
    s = hs_reader_fill(&f->rd, HS_RECORD_HEADER + 1);
    f->span = f->rd.pos;
    if (s == HS_E_TRUNCATED)
        return HS_OK;
    if (s != HS_OK)
        return hs_filter_io_fail(f, s, "a record header");
    next = hs_cur(f)[HS_RECORD_HEADER];
    *yes = !hs_tag_known(next) && hs_sub_fixed_size(next, f->idsize) != 0;
    return HS_OK;
}

hs_status hs_heap_record(F *f, unsigned tag, uint64_t body_len)
{
    int to_eof = 0;

    if (body_len == 0)
        HS_TRY(runs_to_eof(f, &to_eof));
    if (to_eof)
        f->rec_end = UINT64_MAX;
    if (!f->reencode) {
        hs_pass(f, HS_RECORD_HEADER);
        f->st.records_out++;
        /* a record running to the end of the input cannot be followed by a
         * HEAP_DUMP_END: it would be read as one of its sub-records */
        if (tag == HS_TAG_HEAP_DUMP_SEGMENT && !to_eof)
            f->heap_open = 1;
    } else {
        HS_TRY(hs_drop(f, HS_RECORD_HEADER));
        HS_TRY(hs_set_dst(f, DST_SEG));
    }
    if (f->reencode && f->rules->drop_unused_strings && !f->heap_seen)
        f->staging = 1;
    f->heap_seen = 1;
    f->in_heap = 0;
    hs_set_heap(f, 0);
    f->in_heap_name = 0;
    for (;;) {
        if (to_eof) {
            int at_end = 0;
            if (hs_reader_avail(&f->rd) == 0) {
                hs_status s;
                HS_TRY(hs_span_flush(f));
                s = hs_reader_at_end(&f->rd, &at_end);
                f->span = f->rd.pos;
                if (s != HS_OK)
                    return hs_filter_io_fail(f, s, "a sub-record");
            }
            if (at_end)
                break;
        } else if (hs_offset(f) >= f->rec_end) {
            break;
        }
        HS_TRY(sub_record(f));
        f->subtag = -1;
    }
    if (f->reencode && tag == HS_TAG_HEAP_DUMP) {
        /* one 1.0.1 HEAP_DUMP is one whole dump: close it as segments are */
        HS_TRY(hs_heap_finish(f));
        if (f->heap_open)
            HS_TRY(hs_heap_end(f));
    }
    return HS_OK;
}

/* --salvage completes a record whose first bytes already left with zeros.
 * A dump cut at OOM time inside a big array is the reason; a corrupt length
 * claiming gigabytes is the danger. Up to 64 MiB, or four times what was
 * present, is believed. */
#define MAX_SALVAGE_PAD (64u << 20)

static int too_much_to_pad(uint64_t pad, uint64_t present)
{
    return pad > MAX_SALVAGE_PAD && pad / 4 > present;
}

/* --salvage: the input ended inside a record. Undo or complete what is half
 * written, close the heap dump properly, and say what was lost. The filter
 * re-encodes whenever it salvages, so every segment length is still ours to
 * write. */
hs_status hs_salvage(F *f)
{
    uint64_t end = f->rd.base + f->rd.end, pad = 0;
    const char *what = "nothing was half written";
    char lost[200];

    if (f->rec_off == UINT64_MAX && !f->idsize)
        return HS_E_TRUNCATED; /* not even a file header */
    HS_TRY(hs_span_flush(f));
    if (f->sub_open && f->dst == DST_OUT && f->huge_seg_pos >= f->out.total - f->out.len) {
        /* its own segment has not reached the sink yet: take it back */
        f->out.len -= (size_t)(f->out.total - f->huge_seg_pos);
        f->out.total = f->huge_seg_pos;
        what = "it was left out";
    } else if (f->sub_open && f->dst == DST_OUT) {
        /* its segment header already promised its length: zero-fill, as
         * far as is believable (see too_much_to_pad) */
        uint64_t present = f->out.total - f->huge_seg_pos;
        pad = f->huge_out_end - f->out.total;
        if (too_much_to_pad(pad, present))
            return hs_filter_fail(f, HS_E_TRUNCATED, end,
                                  "input ends %llu bytes short of the end of a %s at byte %llu, "
                                  "too many to fill in: not salvaged",
                                  (unsigned long long)pad,
                                  hs_subtag_name((unsigned)f->subtag),
                                  (unsigned long long)f->sub_off);
        what = "its missing bytes were written as zeros";
    } else if (f->sub_open) {
        f->seg_len = f->sub_mark;
        if (f->seg_len == info_size(f) && f->seg[0] == HS_SUB_HEAP_DUMP_INFO)
            f->seg_len = 0; /* only the heap switch made for it is left */
        what = "it was left out";
    } else if (f->rec_partial && f->rec_out_pos >= f->out.total - f->out.len) {
        /* none of it has reached the sink yet: take it back */
        f->out.len -= (size_t)(f->out.total - f->rec_out_pos);
        f->out.total = f->rec_out_pos;
        what = "it was left out";
    } else if (f->rec_partial) {
        /* it has partly left: complete it, unless its length is past belief
         * (a corrupt length must not turn into gigabytes of zeros) */
        pad = f->rec_end - end;
        if (too_much_to_pad(pad, end - f->rec_off))
            return hs_filter_fail(f, HS_E_TRUNCATED, end,
                                  "input ends %llu bytes short of the end of the %s record at "
                                  "byte %llu, too many to fill in: not salvaged",
                                  (unsigned long long)pad, hs_tag_name((unsigned)f->rec_tag),
                                  (unsigned long long)f->rec_off);
        what = "its missing bytes were written as zeros";
    }
    if (pad && hs_out_fill(&f->out, 0, pad) != HS_OK)
        return hs_filter_io_fail(f, HS_E_WRITE, "");
    snprintf(lost, sizeof lost, "; salvaged: %s, and the output closed properly", what);
    if (strlen(f->err.message) + strlen(lost) < sizeof f->err.message)
        strcat(f->err.message, lost);
    f->sub_open = 0;
    f->rec_partial = 0;
    f->subtag = -1;
    f->dst = DST_SEG;
    f->span = f->rd.pos = f->rd.end;
    HS_TRY(hs_heap_finish(f));
    if (f->heap_open)
        HS_TRY(hs_heap_end(f));
    if (hs_out_flush(&f->out) != HS_OK)
        return hs_filter_io_fail(f, HS_E_WRITE, "");
    f->st.salvaged_bytes = pad;
    return HS_SALVAGED;
}
