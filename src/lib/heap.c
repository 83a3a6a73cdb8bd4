/* SPDX-License-Identifier: Apache-2.0 */
/*
 * heap.c - heap-dump records: decoding sub-records and deciding, with the
 * rules' verdicts, what each becomes; the encoder (encoder.c) places it.
 * After each sub-record decided here, the fast path (fastpath.c) walks the
 * run of plain objects that follows, if any, and hands back.
 *
 * Two ways out, chosen once per run (hs_caps.reencode):
 *
 *  - In place. When no rule changes a length, every heap record keeps its
 *    header and its sub-records stream through, payloads zeroed or filled
 *    on the way. Nothing is buffered; unchanged bytes leave straight from
 *    the read window.
 *
 *  - Re-encoded. Input heap records are unwrapped and their surviving
 *    sub-records packed into new HEAP_DUMP_SEGMENTs by the encoder. Input
 *    HEAP_DUMP_INFOs only say which heap the input is in; the encoder
 *    writes one where the output needs it.
 *
 * Threads. With heaps dropped, roots wait for their object (roots.h) and
 * go out next to it. A ROOT_THREAD_OBJ does not wait: it is written where it
 * stands, so it stays ahead of the frame and JNI-local roots that cite its
 * thread serial (jhat and others look the serial up as they read). Its
 * Thread object is kept even in a dropped heap, when the root came before
 * any object was dropped (ART writes every root before the objects). When
 * it came later the Thread object may be gone already, so the root is
 * written with object id 0, as HotSpot's old agent wrote for threads it
 * could not name.
 */
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "be.h"
#include "classdump.h"
#include "core.h"

/* Opens a sub-record of `size` output bytes. */
static inline hs_status begin_sub(F *f, uint64_t size)
{
    return hs_str_sub_begin(&f->str, &f->enc, size);
}

/* ---- bounds ------------------------------------------------------------------ */

static hs_status past_record_end(F *f, uint64_t off, uint64_t size);

/* `size` bytes from `off` lie inside the heap record being read. Checked
 * for every sub-record, so the failure is kept out of line. */
static inline hs_status within(F *f, uint64_t off, uint64_t size)
{
    return size <= f->c.rec_end - off ? HS_OK : past_record_end(f, off, size);
}

#if defined(__GNUC__)
__attribute__((cold, noinline))
#endif
static hs_status past_record_end(F *f, uint64_t off, uint64_t size)
{
    return hs_fail_at(&f->c, HS_E_MALFORMED, off,
                      "%s runs past the end of its %s record (it needs %llu bytes, %llu are "
                      "left)",
                      hs_subtag_name((unsigned)f->c.subtag), hs_tag_name((unsigned)f->c.rec_tag),
                      (unsigned long long)size, (unsigned long long)(f->c.rec_end - off));
}

/* A sub-record copied whole: `hdr` bytes available now, `payload` streamed
 * (the caller has checked that both lie inside the record). */
static hs_status copy_sub(F *f, size_t hdr, uint64_t payload, XXH3_state_t *tap)
{
    assert(hdr + payload <= f->c.rec_end - hs_ctx_offset(&f->c));
    HS_TRY(begin_sub(f, hdr + payload));
    hs_pass(&f->enc, hdr);
    HS_TRY(hs_copy_stream(&f->enc, payload, "a sub-record payload", tap));
    return hs_enc_sub_end(&f->enc);
}

/* ---- heap rules ------------------------------------------------------------- */

/* With heaps dropped every object's id is looked up among the held roots.
 * Starting the load of the next sub-record's filter word now, `size` bytes
 * on, lets that lookup find it in cache. */
#if defined(__GNUC__)
__attribute__((always_inline)) /* else GCC takes it for pure and drops the call */
#endif
static inline void prefetch_next(const F *f, uint64_t size)
{
    if (f->caps.hold_roots && hs_reader_avail(&f->c.rd) >= size + 1 + f->c.idsize)
        hs_rootq_prefetch(&f->roots.q, hs_be_id(hs_cur(&f->enc) + size + 1, f->c.idsize));
}

/* Heap rules for the object whose header is at hs_cur(): sets `*dropped`
 * when its heap is dropped (its roots go with it), else writes the roots
 * held for it. */
static hs_status heap_rules(F *f, int *dropped)
{
    uint64_t id;

    *dropped = 0;
    if (!f->caps.hold_roots)
        return HS_OK;
    id = hs_be_id(hs_cur(&f->enc) + 1, f->c.idsize);
    *dropped = f->cur_heap_dropped;
    if (*dropped && hs_roots_kept_thread(&f->roots, id)) {
        *dropped = 0;
        f->c.st.thread_objects_kept++;
    }
    if (*dropped)
        f->roots.dropped_any = 1;
    return hs_roots_release(&f->roots, &f->str, &f->enc, id, *dropped);
}

/* The histogram's count of the object at hs_cur() (its bytes from its
 * header: hs_histo_object, as fastpath.c's runs count). */
static hs_status histo_count(F *f, int kept)
{
    uint64_t bytes, key = hs_histo_object(hs_cur(&f->enc), f->c.idsize, &bytes);

    return hs_histo_count(&f->histo, &f->c, key, f->version == 3 ? f->cur_heap : 0, bytes, kept);
}

/* An instance or array: dropped with its heap, or copied. */
static hs_status object(F *f, uint64_t off, size_t hdr, uint64_t payload)
{
    int dropped;

    HS_TRY(within(f, off, hdr + payload));
    prefetch_next(f, hdr + payload);
    HS_TRY(heap_rules(f, &dropped));
    if (f->c.opt.histogram)
        HS_TRY(histo_count(f, !dropped));
    if (dropped) {
        f->c.st.objects_dropped++;
        return hs_skip_stream(&f->enc, hdr + payload, "a dropped object", NULL);
    }
    if (f->caps.scrub && *hs_cur(&f->enc) == HS_SUB_INSTANCE_DUMP)
        return hs_scrub_instance(&f->scrub, &f->str, &f->enc, off, hdr, payload);
    return copy_sub(f, hdr, payload, NULL);
}

/* ---- runs of plain objects (fastpath.c) --------------------------------------- */

/* Where the decoder stands, for the fast path: filled field by field in
 * the caller's struct, which is not copied. This runs after every
 * sub-record the slow path takes (on a small-object ART dump, every other
 * one): a memset then a struct returned by value made the copy's wide
 * loads wait on the narrower stores just made, a store-forwarding stall
 * that cost 6 % of a whole -p none run there. */
static inline void fast_at(const F *f, hs_fast_at *at)
{
    at->rec_off = f->c.rec_off;
    at->rec_end = f->c.rec_end;
    at->segment = f->c.rec_tag == HS_TAG_HEAP_DUMP_SEGMENT;
    at->heap = f->cur_heap;
    at->heap_dropped = f->cur_heap_dropped;
    at->segments = 0;
    at->prev_off = at->seg_len = 0;
}

/* The run of plain objects after a sub-record, if any. What it moved comes
 * back: the heap it went on into, and the segments it went on into, for
 * which the record loop's bookkeeping is done here as record() and
 * hs_heap_record() would have done it for each. */
static hs_status fast_run(F *f)
{
    hs_fast_at at;

    fast_at(f, &at);
    HS_TRY(hs_fast_run(&f->fast, &at));
    if (at.segments) {
        f->c.rec_off = at.prev_off; /* the record before the last one */
        hs_record_end(f, HS_TAG_HEAP_DUMP_SEGMENT);
        f->c.rec_off = at.rec_off;
        hs_record_begin(f, HS_TAG_HEAP_DUMP_SEGMENT, at.seg_len);
        f->c.st.records_in += at.segments - 1; /* hs_record_begin counts one */
        f->heap_segments += (int)at.segments;
    }
    f->cur_heap = at.heap;
    f->cur_heap_dropped = at.heap_dropped;
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

/* ---- roots ------------------------------------------------------------------- */

/* True when the sub-record right after a root of `fixed` bytes is, in the
 * same record, the object `id` the root names: ART writes one root just
 * before each zygote and image object. */
static int object_follows(const F *f, size_t fixed, uint64_t id)
{
    const size_t need = fixed + 1 + f->c.idsize;
    const uint8_t *next = hs_cur(&f->enc) + fixed;

    if (hs_reader_avail(&f->c.rd) < need || f->c.rec_end - hs_ctx_offset(&f->c) < need)
        return 0;
    return hs_sub_is_object(next[0]) && hs_be_id(next + 1, f->c.idsize) == id;
}

/* A ROOT_THREAD_OBJ while heaps are dropped: written now (see the top of
 * this file), its Thread object kept, or its id cleared when that object
 * may be gone. */
static hs_status thread_root(F *f, uint8_t *b)
{
    uint64_t id = hs_be_id(b + 1, f->c.idsize);

    if (!id)
        return HS_OK;
    if (f->roots.dropped_any) {
        hs_put_be_id(b + 1, 0, f->c.idsize);
        f->c.st.thread_roots_unlinked++;
        return HS_OK;
    }
    return hs_roots_keep_thread(&f->roots, &f->c, id);
}

/* Writes root b[0..n), which stands for the `fixed` input bytes at hs_cur(). */
static hs_status write_root(F *f, unsigned subtag, const uint8_t *b, size_t n, size_t fixed)
{
    assert(n <= fixed && fixed <= HS_ROOT_MAX && fixed <= hs_reader_avail(&f->c.rd));
    if (n != fixed || b[0] != subtag || memcmp(b, hs_cur(&f->enc), n) != 0) {
        HS_TRY(begin_sub(f, n));
        HS_TRY(hs_drop(&f->enc, fixed));
        HS_TRY(hs_emit(&f->enc, b, n));
        return hs_enc_sub_end(&f->enc);
    }
    return copy_sub(f, fixed, 0, NULL);
}

/* A root while heaps are dropped: decided now when its object follows, or
 * held until the object shows which heap it is in. */
static hs_status held_root(F *f, unsigned subtag, const uint8_t *b, size_t n, size_t fixed)
{
    hs_fast_at at;
    uint64_t id = hs_be_id(b + 1, f->c.idsize);

    fast_at(f, &at);
    if (object_follows(f, fixed, id)) {
        /* its heap is known now: roots of the same object held earlier go
         * first, keeping their order */
        int drop = f->cur_heap_dropped && !hs_roots_kept_thread(&f->roots, id);
        HS_TRY(hs_roots_release(&f->roots, &f->str, &f->enc, id, drop));
        if (drop) {
            f->c.st.roots_dropped++;
            return hs_drop(&f->enc, fixed);
        }
        return write_root(f, subtag, b, n, fixed);
    }
    if (hs_fast_root_dropped_ahead(&f->fast, &at, hs_reader_pos(&f->c.rd) + fixed, id)) {
        /* dropped now rather than held across the record boundary; when
         * the object is kept, the root waits as usual, to go out beside it */
        f->c.st.roots_dropped++;
        return hs_drop(&f->enc, fixed);
    }
    prefetch_next(f, fixed);
    /* ART's block of roots is read here one root at a time, and its loads
     * missed cache (a third of the block's samples stood on this root's
     * first bytes): the bytes some 150 roots on are asked for now */
    __builtin_prefetch((const void *)((uintptr_t)hs_cur(&f->enc) + 2048));
    HS_TRY(hs_roots_hold(&f->roots, &f->enc, id, b, n));
    return hs_drop(&f->enc, fixed);
}

static hs_status root(F *f, unsigned subtag, size_t fixed)
{
    uint8_t b[HS_ROOT_MAX];
    size_t n = fixed;

    f->c.st.roots++;
    if (hs_rules_root_dropped(f->rules, subtag)) {
        f->c.st.roots_dropped++;
        return hs_drop(&f->enc, fixed);
    }
    memcpy(b, hs_cur(&f->enc), fixed);
    if (f->c.opt.to_jvm && hs_sub_is_android_root(subtag)) {
        /* as hprof-conv maps them: ROOT_UNKNOWN with the same object id
         * (a JNI monitor loses its thread serial and frame depth) */
        b[0] = HS_SUB_ROOT_UNKNOWN;
        n = 1 + f->c.idsize;
    }
    if (f->caps.hold_roots && subtag == HS_SUB_ROOT_THREAD_OBJ)
        HS_TRY(thread_root(f, b));
    else if (f->caps.hold_roots)
        return held_root(f, subtag, b, n, fixed);
    return write_root(f, subtag, b, n, fixed);
}

/* ---- arrays ------------------------------------------------------------------ */

/* PRIMITIVE_ARRAY_NODATA names an array whose elements were not dumped.
 * --to-jvm writes it as the PRIMITIVE_ARRAY_DUMP it stands for, elements
 * zero, so its size stays right (hprof-conv keeps the count but writes no
 * elements, and the next sub-record is read as array data). */
static hs_status nodata_to_jvm(F *f, uint64_t off, size_t hdr)
{
    uint8_t b[1 + 8 + 9];
    const unsigned i = f->c.idsize;
    uint64_t payload;
    int dropped;

    memcpy(b, hs_cur(&f->enc), hdr);
    payload = (uint64_t)hs_be32(b + 1 + i + 4) * hs_prim_size(b[1 + i + 8]);
    HS_TRY(within(f, off, hdr));
    HS_TRY(heap_rules(f, &dropped));
    if (f->c.opt.histogram)
        HS_TRY(histo_count(f, !dropped));
    if (dropped) {
        f->c.st.objects_dropped++;
        return hs_drop(&f->enc, hdr);
    }
    b[0] = HS_SUB_PRIM_ARRAY_DUMP;
    HS_TRY(begin_sub(f, hdr + payload));
    HS_TRY(hs_drop(&f->enc, hdr));
    HS_TRY(hs_emit(&f->enc, b, hdr));
    HS_TRY(hs_fill_out(&f->enc, 0, payload));
    return hs_enc_sub_end(&f->enc);
}

/* What the rules do with the PRIMITIVE_ARRAY_DUMP at hs_cur(); `tap` sees
 * every payload byte when it is not NULL. */
static hs_status array_rules(F *f, uint64_t off, size_t hdr, unsigned type, uint64_t count,
                             uint64_t payload, XXH3_state_t *tap)
{
    const uint64_t before = f->c.st.nonzero_array_bytes;
    const hs_arr_verdict v = hs_rules_array(f->rules, type, payload);
    const hs_tally t = {&f->c.st.payload_bytes_zeroed, &f->c.st.nonzero_array_bytes,
                        &f->c.st.first_nonzero_array};
    hs_enc *e = &f->enc;
    uint8_t h[1 + 8 + 9];
    uint64_t keep;

    switch (v.action) {
    case HS_ARR_KEEP:
        return copy_sub(f, hdr, payload, tap);
    case HS_ARR_ZERO:
    case HS_ARR_FILL:
    case HS_ARR_PREFIX:
        keep = v.action != HS_ARR_PREFIX ? 0
               : v.prefix < count        ? v.prefix * hs_prim_size(type)
                                         : payload;
        HS_TRY(begin_sub(f, hdr + payload));
        hs_pass(e, hdr);
        HS_TRY(hs_copy_stream(e, keep, "an array payload", tap));
        HS_TRY(hs_fill_stream(e, v.action == HS_ARR_FILL ? v.fill : 0, payload - keep, &t, tap));
        if (f->caps.findings)
            HS_TRY(hs_findings_add(&f->fd, &f->c, HS_FIND_ARRAY, type, 0,
                                   f->c.st.nonzero_array_bytes - before, off));
        return hs_enc_sub_end(e);
    case HS_ARR_EMPTY:
        memcpy(h, hs_cur(e), hdr);
        hs_put_be32(h + 1 + f->c.idsize + 4, 0);
        HS_TRY(begin_sub(f, hdr));
        HS_TRY(hs_drop(e, hdr));
        HS_TRY(hs_emit(e, h, hdr));
        HS_TRY(hs_skip_stream(e, payload, "an array payload", tap));
        f->c.st.payload_bytes_dropped += payload;
        return hs_enc_sub_end(e);
    case HS_ARR_DROP: /* the tap sees the payload only, never the header */
        f->c.st.arrays_dropped++;
        f->c.st.payload_bytes_dropped += payload;
        HS_TRY(hs_drop(e, hdr));
        return hs_skip_stream(e, payload, "an array payload", tap);
    }
    return HS_OK;
}

static hs_status prim_array(F *f, uint64_t off, size_t hdr)
{
    const uint8_t *p = hs_cur(&f->enc);
    const unsigned i = f->c.idsize, type = p[1 + i + 8];
    const uint64_t count = hs_be32(p + 1 + i + 4);
    const unsigned esize = hs_prim_size(type);
    uint64_t payload, hash = 0;
    XXH3_state_t *tap;

    if (!esize)
        return hs_fail_at(&f->c, HS_E_MALFORMED, off + 1 + i + 8,
                          "PRIMITIVE_ARRAY_DUMP has element type %u", type);
    payload = count * esize;
    HS_TRY(within(f, off, hdr + payload));
    f->c.st.primitive_arrays++;
    if (f->c.opt.histogram) {
        int dropped = 0;
        if (f->caps.hold_roots)
            dropped = f->cur_heap_dropped &&
                      !hs_roots_kept_thread(&f->roots, hs_be_id(p + 1, i));
        HS_TRY(histo_count(f, !dropped &&
                                  hs_rules_array(f->rules, type, payload).action != HS_ARR_DROP));
    }
    if (f->caps.hold_roots) {
        int dropped;
        prefetch_next(f, hdr + payload);
        HS_TRY(heap_rules(f, &dropped));
        if (dropped) {
            f->c.st.objects_dropped++;
            return hs_skip_stream(&f->enc, hdr + payload, "a dropped object", NULL);
        }
    }
    if (!f->caps.hashing)
        return array_rules(f, off, hdr, type, count, payload, NULL);
    if (!hs_dups_wants(&f->dups, payload)) {
        hs_dups_pass(&f->c, payload); /* the counts are lower bounds: the report says so */
        return array_rules(f, off, hdr, type, count, payload, NULL);
    }
    HS_TRY(hs_dups_begin(&f->dups, &f->c, p + hdr, hs_reader_avail(&f->c.rd) - hdr, type, payload,
                         &hash, &tap));
    HS_TRY(array_rules(f, off, hdr, type, count, payload, tap));
    return hs_dups_end(&f->dups, &f->c, type, payload, hash, tap);
}

/* ---- class dumps ------------------------------------------------------------- */

static hs_status bad_field_type(F *f, uint64_t off, const hs_cd_entry *en)
{
    static const char *const table[] = {"constant pool", "static field", "instance field"};

    return hs_fail_at(&f->c, HS_E_MALFORMED, off + en->type_at, "CLASS_DUMP %s entry %u has type %u",
                      table[en->table], en->index, en->type);
}

/* Walks the CLASS_DUMP at `off` (hs_cur()) to find its size, making its
 * bytes available as the walk needs them (at most about 2.4 MB, which the
 * read window can always hold). */
static hs_status class_dump_size(F *f, uint64_t off, size_t *size)
{
    hs_cd_walk w;
    hs_cd_entry en;
    int r;

    hs_cd_start(&w, f->c.idsize);
    w.need = w.k;
    for (;;) {
        HS_TRY(within(f, off, w.need));
        HS_TRY(hs_need(&f->enc, w.need, "a CLASS_DUMP"));
        r = hs_cd_next(&w, hs_cur(&f->enc), hs_reader_avail(&f->c.rd), &en);
        if (r == HS_CD_BAD_TYPE)
            return bad_field_type(f, off, &en);
        if (r == HS_CD_END)
            break;
    }
    HS_TRY(within(f, off, w.k));
    HS_TRY(hs_need(&f->enc, w.k, "a CLASS_DUMP"));
    *size = w.k;
    return HS_OK;
}

/* Writes the field names of the CLASS_DUMP at hs_cur() (whole in the
 * window) if they are held. */
static hs_status class_dump_strings(F *f, size_t size)
{
    hs_cd_walk w;
    hs_cd_entry en;

    assert(size <= hs_reader_avail(&f->c.rd));

    hs_cd_start(&w, f->c.idsize);
    while (hs_cd_next(&w, hs_cur(&f->enc), size, &en) == HS_CD_ENTRY)
        if (en.table != HS_CD_CONST)
            HS_TRY(hs_str_use(&f->str, &f->enc, en.name));
    return HS_OK;
}

static hs_status class_dump(F *f, uint64_t off)
{
    size_t size = 0;

    HS_TRY(class_dump_size(f, off, &size));
    assert(size <= hs_reader_avail(&f->c.rd)); /* whole in the window, from here on */
    f->c.st.class_dumps++;
    if (f->c.opt.salvage) /* whole in the window: it goes out whole */
        hs_cut_class_dump(&f->cut, hs_be_id(hs_cur(&f->enc) + HS_CD_CLASS, f->c.idsize));
    if (f->caps.deobf && f->caps.keep_names) /* keeps go by the dump's names */
        HS_TRY(hs_scrub_names(&f->scrub, &f->c, hs_cur(&f->enc), size));
    if (f->caps.deobf) /* field name ids patched in the window (deobf.h) */
        HS_TRY(hs_deobf_class_dump(&f->deobf, hs_reader_cur_patch(&f->c.rd), size));
    if (f->caps.drop_strings)
        HS_TRY(class_dump_strings(f, size));
    if (f->caps.hold_roots) /* class dumps are never dropped: boot classes live
                               in the image heap, and dropping them orphans Strings */
        HS_TRY(hs_roots_release(&f->roots, &f->str, &f->enc,
                                hs_be_id(hs_cur(&f->enc) + HS_CD_CLASS, f->c.idsize), 0));
    if (f->caps.scrub)
        return hs_scrub_class_dump(&f->scrub, &f->str, &f->enc, size);
    return copy_sub(f, size, 0, NULL);
}

/* ---- sub-records ------------------------------------------------------------- */

static hs_status heap_info(F *f, size_t hdr)
{
    const uint8_t *p = hs_cur(&f->enc);

    hs_set_heap(f, hs_be32(p + 1));
    /* --to-jvm: 1.0.2 has no heaps; the heap still counts for the rules */
    hs_enc_set_heap(&f->enc, f->c.opt.to_jvm ? 0 : f->cur_heap, hs_be_id(p + 5, f->c.idsize));
    if (!f->enc.reencode) {
        f->c.st.subrecords_out++;
        hs_pass(&f->enc, hdr);
        return HS_OK;
    }
    return hs_drop(&f->enc, hdr); /* written again where needed (encoder.c) */
}

static hs_status bad_subtag(F *f, uint64_t off, unsigned subtag)
{
    f->c.subtag = -1;
    return hs_fail_at(&f->c, HS_E_MALFORMED, off,
                      "unknown heap sub-record tag 0x%02x in the %s record at byte %llu "
                      "(sub-records carry no length, so the rest cannot be read)",
                      subtag, hs_tag_name((unsigned)f->c.rec_tag),
                      (unsigned long long)f->c.rec_off);
}

static hs_status sub_record(F *f)
{
    const unsigned i = f->c.idsize;
    uint64_t off = hs_ctx_offset(&f->c);
    const uint8_t *p;
    unsigned subtag;
    size_t fixed;

    HS_TRY(hs_need(&f->enc, 1, "a sub-record tag"));
    subtag = *hs_cur(&f->enc);
    fixed = f->sub_size[subtag];
    if (!fixed)
        return bad_subtag(f, off, subtag);
    f->c.subtag = (int)subtag;
    f->c.st.subrecords_in++;
    HS_TRY(within(f, off, fixed));
    HS_TRY(hs_need(&f->enc, fixed, "a sub-record header"));
    p = hs_cur(&f->enc);
    if (hs_enc_staging(&f->enc) && !f->str.on_demand && hs_sub_is_object(subtag))
        HS_TRY(hs_str_commit(&f->str, &f->enc)); /* the first object: class dumps are over */
    switch (subtag) {
    case HS_SUB_CLASS_DUMP:
        return class_dump(f, off);
    case HS_SUB_INSTANCE_DUMP:
        f->c.st.instances++;
        return object(f, off, fixed, hs_be32(p + 1 + 2 * i + 4));
    case HS_SUB_OBJ_ARRAY_DUMP:
        f->c.st.object_arrays++;
        return object(f, off, fixed, (uint64_t)hs_be32(p + 1 + i + 4) * i);
    case HS_SUB_PRIM_ARRAY_DUMP:
        return prim_array(f, off, fixed);
    case HS_SUB_PRIM_ARRAY_NODATA:
        if (!hs_prim_size(p[1 + i + 8]))
            return hs_fail_at(&f->c, HS_E_MALFORMED, off + 1 + i + 8,
                              "PRIMITIVE_ARRAY_NODATA has element type %u", p[1 + i + 8]);
        f->c.st.primitive_arrays++;
        if (f->c.opt.to_jvm)
            return nodata_to_jvm(f, off, fixed);
        return object(f, off, fixed, 0);
    case HS_SUB_HEAP_DUMP_INFO:
        return heap_info(f, fixed);
    default:
        return root(f, subtag, fixed);
    }
}

hs_status hs_heap_init(F *f)
{
    const hs_fast_parts parts = {&f->c,   &f->enc,  &f->roots, &f->scrub,   &f->histo,
                                 &f->str, f->rules, &f->caps,  f->sub_size, f->version};

    return hs_fast_init(&f->fast, &parts);
}

/* ---- heap records ------------------------------------------------------------- */

/* HotSpot 7/8 leaves a HEAP_DUMP's length at 0 when the dump stops before it
 * seeks back to patch it. A zero-length heap record followed by a byte that
 * can only start a sub-record is read as running to the end of the input. */
static hs_status runs_to_eof(F *f, int *yes)
{
    unsigned next;

    *yes = 0;
    HS_TRY(hs_enc_fill(&f->enc, HS_RECORD_HEADER + 1, "a record header"));
    if (hs_reader_avail(&f->c.rd) < HS_RECORD_HEADER + 1)
        return HS_OK; /* the input ends first */
    next = hs_cur(&f->enc)[HS_RECORD_HEADER];
    *yes = !hs_tag_known(next) && hs_sub_fixed_size(next, f->c.idsize) != 0;
    return HS_OK;
}

/* True when the heap record being read has no sub-record left. */
static hs_status record_done(F *f, int to_eof, int *done)
{
    if (!to_eof) {
        *done = hs_ctx_offset(&f->c) >= f->c.rec_end;
        return HS_OK;
    }
    *done = 0;
    if (hs_reader_avail(&f->c.rd))
        return HS_OK;
    return hs_enc_at_end(&f->enc, done, "a sub-record");
}

/* The record's header: passed on in place, dropped when re-encoding. */
static hs_status heap_record_header(F *f, unsigned tag, int to_eof)
{
    if (!f->enc.reencode) {
        hs_pass(&f->enc, HS_RECORD_HEADER);
        f->c.st.records_out++;
        /* a record running to the end of the input cannot be followed by a
         * HEAP_DUMP_END: it would be read as one of its sub-records */
        if (tag == HS_TAG_HEAP_DUMP_SEGMENT && !to_eof)
            hs_enc_heap_opened(&f->enc, 1);
        return HS_OK;
    }
    HS_TRY(hs_drop(&f->enc, HS_RECORD_HEADER));
    HS_TRY(hs_set_dst(&f->enc, HS_DST_SEG));
    if (f->caps.drop_strings && !f->heap_seen)
        hs_enc_stage_start(&f->enc); /* see strrec.c */
    return HS_OK;
}

hs_status hs_heap_record(F *f, unsigned tag, uint64_t body_len)
{
    int to_eof = 0, done;

    if (body_len == 0)
        HS_TRY(runs_to_eof(f, &to_eof));
    if (to_eof)
        f->c.rec_end = UINT64_MAX;
    if (f->caps.deobf && !f->heap_seen) /* field names' STRINGs, ahead of it */
        HS_TRY(hs_deobf_heap_start(&f->deobf));
    HS_TRY(heap_record_header(f, tag, to_eof));
    /* class names: every LOAD_CLASS came by now, unless the writer makes
     * STRINGs on demand after LOAD_CLASSes (the JVMTI agent) */
    if (f->c.opt.histogram && !(f->seen_load_class && f->str.on_demand && f->version < 3))
        HS_TRY(hs_histo_prune(&f->histo, &f->c));
    f->heap_seen = 1;
    f->heap_segments += tag == HS_TAG_HEAP_DUMP_SEGMENT;
    hs_set_heap(f, 0);
    hs_enc_set_heap(&f->enc, 0, 0);
    for (;;) {
        HS_TRY(record_done(f, to_eof, &done));
        if (done)
            break;
        HS_TRY(sub_record(f));
        f->c.subtag = -1;
        HS_TRY(fast_run(f));
    }
    if (f->enc.reencode && tag == HS_TAG_HEAP_DUMP) {
        /* one 1.0.1 HEAP_DUMP is one whole dump: close it as segments are */
        HS_TRY(hs_heap_finish(f));
        if (hs_enc_heap_is_open(&f->enc))
            HS_TRY(hs_enc_heap_end(&f->enc));
    }
    return HS_OK;
}

hs_status hs_heap_finish(F *f)
{
    HS_TRY(hs_str_commit(&f->str, &f->enc));
    if (f->caps.scrub)
        HS_TRY(hs_scrub_finish(&f->scrub, &f->str, &f->enc));
    /* roots whose object never came: they dangled in the input too */
    hs_enc_set_heap(&f->enc, 0, 0);
    HS_TRY(hs_roots_release_all(&f->roots, &f->str, &f->enc));
    return hs_enc_seg_close(&f->enc);
}

/* --salvage: the input ended inside a record. Undo or complete what is half
 * written, close the heap dump properly, and say what was lost. The filter
 * re-encodes whenever it salvages, so every segment length is still ours to
 * write. */
hs_status hs_salvage(F *f, hs_salvage_why why, const char *kept)
{
    const uint64_t end = hs_reader_end_offset(&f->c.rd);
    const char *what;
    char lost[200];
    uint64_t pad;

    if (f->c.rec_off == UINT64_MAX && !f->c.idsize)
        return f->c.err.code; /* not even a file header */
    HS_TRY(hs_enc_salvage_cut(&f->enc, why, why == HS_SALVAGE_CUT ? end : f->c.err.offset, &pad,
                              &what));
    if (f->heap_segments || f->c.rec_tag == HS_TAG_HEAP_DUMP || !f->heap_seen) {
        /* cut inside a heap dump: the classes it had still to declare
         * (cutclasses.h); cut before it: a heap dump of the classes named,
         * as VisualVM reads no dump without one */
        hs_enc_set_heap(&f->enc, 0, 0);
        HS_TRY(hs_cut_write_missing(&f->cut, &f->enc, f->c.idsize));
    }
    snprintf(lost, sizeof lost, "; salvaged: %s, and the output closed properly",
             kept ? kept : what);
    if (strlen(f->c.err.message) + strlen(lost) < sizeof f->c.err.message)
        strcat(f->c.err.message, lost);
    f->c.subtag = -1;
    HS_TRY(hs_heap_finish(f));
    /* cut before its heap dump (or after one that was empty, or emptied by
     * the rules), with no class to declare: an empty heap dump
     * (HEAP_DUMP_END alone; never an empty segment), so that the output is
     * no dump cut before its heap dump itself (check_end). Salvaging
     * re-encodes: segments_out counts every heap record written. */
    assert(f->enc.reencode);
    if (hs_enc_heap_is_open(&f->enc) || !f->c.st.segments_out)
        HS_TRY(hs_enc_heap_end(&f->enc));
    HS_TRY(hs_enc_flush(&f->enc));
    f->c.st.salvaged_bytes = pad;
    return HS_SALVAGED;
}
