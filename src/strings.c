/*
 * strings.c - dropping unused STRING records in one pass.
 *
 * A STRING is written only when a kept record refers to its id, and always
 * before the first such record: readers (MAT, perflib, shark) resolve names
 * as they read. So STRING records are held in the string table as they
 * arrive and each is written just before its first user. Inside a heap dump
 * that means closing the open segment first: a top-level record cannot
 * stand inside a segment.
 *
 * References to strings: LOAD_CLASS (class name), STACK_FRAME (method name,
 * signature, source file), START_THREAD (thread, group and parent group
 * names), CLASS_DUMP (static and instance field names), HEAP_DUMP_INFO (heap
 * name). Unknown top-level records cannot be read, so they refer to nothing.
 */
#include <string.h>

#include "be.h"
#include "filter_impl.h"

hs_status hs_check_held(F *f)
{
    uint64_t held = hs_strtab_bytes(&f->strings) + hs_rootq_bytes(&f->roots) +
                    hs_idmap_bytes(&f->dup_seen) + hs_idmap_bytes(&f->dup_sizes) +
                    f->pending_len + f->cap_holds * sizeof(uint64_t) * 6;

    if (held > f->st.held_bytes_peak)
        f->st.held_bytes_peak = held;
    if (held > f->opt.max_held)
        return hs_filter_fail(f, HS_E_LIMIT, hs_offset(f),
                              "the strings and roots held back need %llu bytes, more than "
                              "the limit of %llu (raise it with --max-held)",
                              (unsigned long long)held, (unsigned long long)f->opt.max_held);
    return HS_OK;
}

static hs_status nomem(F *f)
{
    return hs_filter_io_fail(f, HS_E_NOMEM, "");
}

/* Writes the held STRING `id` to the output, outside any segment. */
static hs_status emit_held(F *f, uint64_t id)
{
    uint8_t h[HS_RECORD_HEADER + 8];
    uint32_t len;
    const uint8_t *text = hs_strtab_text(&f->strings, id, &len);
    const unsigned i = f->idsize;

    if (!f->staging) /* a record cannot stand inside a segment */
        HS_TRY(hs_seg_close(f));
    HS_TRY(hs_set_dst(f, DST_OUT));
    h[0] = HS_TAG_STRING;
    hs_put_be32(h + 1, 0);
    hs_put_be32(h + 5, i + len);
    hs_put_be_id(h + 9, id, i);
    HS_TRY(hs_emit(f, h, HS_RECORD_HEADER + i));
    HS_TRY(hs_emit(f, text, len));
    hs_strtab_release(&f->strings, id);
    f->st.strings_out++;
    f->st.records_out++;
    return HS_OK;
}

hs_status hs_str_use(F *f, uint64_t id)
{
    if (!f->rules->drop_unused_strings)
        return HS_OK;
    switch (hs_strtab_state(&f->strings, id)) {
    case HS_STR_HELD:
        return emit_held(f, id);
    case HS_STR_UNKNOWN:
        /* used before defined: write the STRING as soon as it comes */
        if (hs_strtab_set(&f->strings, id, HS_STR_WANTED) != HS_OK)
            return nomem(f);
        return hs_check_held(f);
    default:
        return HS_OK;
    }
}

hs_status hs_str_record(F *f, uint64_t len)
{
    const unsigned i = f->idsize;
    uint64_t id, left;
    int state;

    f->st.strings_in++;
    HS_TRY(hs_need(f, HS_RECORD_HEADER + i, "a STRING record"));
    id = hs_be_id(hs_cur(f) + HS_RECORD_HEADER, i);
    if (f->rules->n_keep && len - i <= 512) { /* names on the keep list are short */
        HS_TRY(hs_need(f, HS_RECORD_HEADER + (size_t)len, "a STRING record"));
        HS_TRY(hs_scrub_string(f, id, hs_cur(f) + HS_RECORD_HEADER + i, (size_t)(len - i)));
    }
    state = f->rules->drop_unused_strings ? hs_strtab_state(&f->strings, id) : HS_STR_EMITTED;
    if (state == HS_STR_WANTED || state == HS_STR_EMITTED) {
        if (f->rules->drop_unused_strings &&
            hs_strtab_set(&f->strings, id, HS_STR_EMITTED) != HS_OK)
            return nomem(f);
        f->st.strings_out++;
        return hs_copy_record(f, len);
    }
    /* hold it, growing the table as the text arrives */
    left = len - i;
    if (hs_strtab_begin(&f->strings) != HS_OK)
        return nomem(f);
    HS_TRY(hs_drop(f, HS_RECORD_HEADER + i));
    while (left) {
        size_t k = hs_reader_avail(&f->rd);
        if (!k) {
            HS_TRY(hs_need_slow(f, 1, "a STRING record"));
            k = hs_reader_avail(&f->rd);
        }
        if (k > left)
            k = (size_t)left;
        if (hs_strtab_append(&f->strings, hs_cur(f), k) != HS_OK)
            return nomem(f);
        left -= k;
        HS_TRY(hs_drop(f, k));
        HS_TRY(hs_check_held(f));
    }
    if (hs_strtab_end(&f->strings, id) != HS_OK)
        return nomem(f);
    return hs_check_held(f);
}

hs_status hs_str_flush_held(F *f)
{
    size_t i;

    /* emit_held only flips map values, so walking the map is safe */
    for (i = 0; i < f->strings.map.cap; i++)
        if (f->strings.map.used[i] && (f->strings.map.vals[i] & 3u) == HS_STR_HELD)
            HS_TRY(emit_held(f, f->strings.map.keys[i]));
    return HS_OK;
}
