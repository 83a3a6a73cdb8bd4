/* SPDX-License-Identifier: Apache-2.0 */
/*
 * strrec.c - dropping unused STRING records in one pass.
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
 *
 * The stage. VisualVM's reader takes everything from the first heap segment
 * to the last as one run of sub-records: a STRING written between segments
 * breaks it. So the start of the heap dump is held back (the encoder's
 * stage) while class dumps may still come, and the strings they name are
 * written to the output as they are met, ahead of the stage. HotSpot
 * writes every CLASS_DUMP before the first object: its stage ends there.
 * A writer that makes STRINGs on demand (on_demand: ART, which interleaves
 * class dumps with objects; the JVMTI agent; --mapping's output, a STRING
 * after LOAD_CLASS) gets a stage that goes on past objects. Either ends
 * early at a sub-record too large to stage, a top-level record, the end of
 * the heap dump, or the stage cap (HS_STAGE_CAP, or a quarter of
 * max_held). What is still held then stays held: no STRING is written
 * before a record that uses it is, so none is ever written unused, and
 * what is held counts toward max_held (past it the run fails). A string
 * first needed after the stage goes between segments, which the format
 * allows and MAT, perflib and shark read, VisualVM not.
 */
#include "strrec.h"

#include <assert.h>

#include "be.h"

void hs_strings_init(hs_strings *s, const hs_alloc *a, int drop_unused)
{
    hs_strtab_init(&s->tab, a);
    s->drop_unused = drop_unused;
    s->on_demand = 0;
    s->emitted = NULL;
    s->emitted_ctx = NULL;
}

void hs_strings_free(hs_strings *s)
{
    hs_strtab_free(&s->tab);
}

static hs_status nomem(hs_enc *e)
{
    return hs_fail_io(e->c, HS_E_NOMEM, "");
}

static hs_status held_changed(hs_strings *s, hs_enc *e)
{
    return hs_hold(e->c, HS_HOLD_STRINGS, hs_strtab_bytes(&s->tab));
}

/* Writes the held STRING `id` to the output, outside any segment. */
static hs_status emit_held(hs_strings *s, hs_enc *e, uint64_t id)
{
    uint8_t b[8];
    uint32_t len;
    const uint8_t *text = hs_strtab_text(&s->tab, id, &len);
    const unsigned i = e->c->idsize;

    HS_TRY(hs_enc_top_level(e));
    HS_TRY(hs_enc_record_header(e, HS_TAG_STRING, i + len));
    hs_put_be_id(b, id, i);
    HS_TRY(hs_emit(e, b, i));
    HS_TRY(hs_emit(e, text, len));
    if (s->emitted)
        HS_TRY(s->emitted(s->emitted_ctx, id, text, len));
    hs_strtab_release(&s->tab, id);
    e->c->st.strings_out++;
    return HS_OK;
}

hs_status hs_str_use(hs_strings *s, hs_enc *e, uint64_t id)
{
    if (!s->drop_unused)
        return HS_OK;
    switch (hs_strtab_state(&s->tab, id)) {
    case HS_STR_HELD:
        return emit_held(s, e, id);
    case HS_STR_UNKNOWN:
        /* used before defined: write the STRING as soon as it comes */
        if (hs_strtab_set(&s->tab, id, HS_STR_WANTED) != HS_OK)
            return nomem(e);
        return held_changed(s, e);
    default:
        return HS_OK;
    }
}

/* Holds the STRING whose header is at hs_cur(), the table growing as the
 * text arrives. */
static hs_status hold(hs_strings *s, hs_enc *e, uint64_t id, uint64_t left)
{
    hs_reader *rd = &e->c->rd;

    if (hs_strtab_begin(&s->tab) != HS_OK)
        return nomem(e);
    HS_TRY(hs_drop(e, HS_RECORD_HEADER + e->c->idsize));
    while (left) {
        size_t k = hs_reader_avail(rd);
        if (!k) {
            HS_TRY(hs_need_slow(e, 1, "a STRING record"));
            k = hs_reader_avail(rd);
        }
        if (k > left)
            k = (size_t)left;
        if (hs_strtab_append(&s->tab, hs_cur(e), k) != HS_OK)
            return nomem(e);
        left -= k;
        HS_TRY(hs_drop(e, k));
        HS_TRY(held_changed(s, e));
    }
    if (hs_strtab_end(&s->tab, id) != HS_OK)
        return nomem(e);
    return held_changed(s, e);
}

/* Writes the STRING at hs_cur() with its text zeroed, counting the
 * non-zero bytes it held. */
static hs_status zero_text(hs_enc *e, uint64_t len)
{
    hs_stats *st = &e->c->st;
    uint64_t zeroed = 0;
    const hs_tally t = {&zeroed, &st->nonzero_string_bytes, &st->first_nonzero_string};
    const unsigned i = e->c->idsize;
    uint64_t left;
    size_t k;

    st->strings_unheld++;
    hs_enc_record_begin(e);
    hs_pass(e, HS_RECORD_HEADER + i);
    /* what the window holds at a time: a cut in the text then leaves the
     * output as long as the input read, which --salvage completes */
    for (left = len - i; left; left -= k) {
        k = hs_reader_avail(&e->c->rd);
        if (!k) {
            HS_TRY(hs_need_slow(e, 1, "a STRING record"));
            k = hs_reader_avail(&e->c->rd);
        }
        if (k > left)
            k = (size_t)left;
        HS_TRY(hs_fill_stream(e, 0, k, &t, NULL));
    }
    hs_enc_record_end(e);
    st->strings_out++;
    return HS_OK;
}

/* What hs_str_record does with STRING `id` of `n` text bytes. */
enum { PASS, UNHELD, WRITTEN, HELD };
static int disposition(const hs_strings *s, uint64_t id, uint64_t n)
{
    int state;

    if (!s->drop_unused)
        return PASS;
    state = hs_strtab_state(&s->tab, id);
    if (n > HS_STRING_HOLD_MAX && state != HS_STR_HELD)
        return UNHELD;
    if (state == HS_STR_WANTED || state == HS_STR_EMITTED)
        return WRITTEN;
    return HELD;
}

int hs_str_will_hold(const hs_strings *s, uint64_t id, uint64_t n)
{
    return disposition(s, id, n) == HELD;
}

const uint8_t *hs_str_held_text(const hs_strings *s, uint64_t id, uint32_t *len)
{
    if (!s->drop_unused || hs_strtab_state(&s->tab, id) != HS_STR_HELD)
        return NULL;
    return hs_strtab_text(&s->tab, id, len);
}

hs_status hs_str_record(hs_strings *s, hs_enc *e, uint64_t len)
{
    const unsigned i = e->c->idsize;
    uint64_t id = 0;
    int how;

    e->c->st.strings_in++;
    if (s->drop_unused) {
        HS_TRY(hs_need(e, HS_RECORD_HEADER + i, "a STRING record"));
        id = hs_be_id(hs_cur(e) + HS_RECORD_HEADER, i);
    }
    how = disposition(s, id, len - i);
    if (how == PASS) {
        e->c->st.strings_out++;
        return hs_enc_copy_record(e, len);
    }
    if (how == UNHELD) {
        /* no name is this long (a class file's names are at most 64 KiB),
         * and holding what a record claims would let one corrupt length
         * take the memory: it goes through unheld, used or not, with its
         * text zeroed (its length and id kept, so that a reference to it
         * still finds it) */
        if (hs_strtab_set(&s->tab, id, HS_STR_EMITTED) != HS_OK)
            return nomem(e);
        return zero_text(e, len);
    }
    if (how == WRITTEN) {
        if (hs_strtab_set(&s->tab, id, HS_STR_EMITTED) != HS_OK)
            return nomem(e);
        e->c->st.strings_out++;
        return hs_enc_copy_record(e, len);
    }
    return hold(s, e, id, len - i);
}

hs_status hs_str_write(hs_strings *s, hs_enc *e, uint64_t id, const void *text, size_t n)
{
    const unsigned i = e->c->idsize;
    uint8_t b[8];

    assert(i == 4 || i == 8);
    assert(n <= UINT32_MAX - i);
    HS_TRY(hs_enc_top_level(e));
    HS_TRY(hs_enc_record_header(e, HS_TAG_STRING, (uint32_t)(i + n)));
    hs_put_be_id(b, id, i);
    HS_TRY(hs_emit(e, b, i));
    HS_TRY(hs_emit(e, text, n));
    e->c->st.strings_out++;
    if (!s->drop_unused)
        return HS_OK;
    /* written: a use of it needs nothing more */
    if (hs_strtab_set(&s->tab, id, HS_STR_EMITTED) != HS_OK)
        return nomem(e);
    return held_changed(s, e);
}

hs_status hs_str_commit(hs_strings *s, hs_enc *e)
{
    (void)s; /* what is held stays held: it goes out only before a user */
    return hs_enc_commit(e);
}

hs_status hs_str_sub_begin_slow(hs_strings *s, hs_enc *e, uint64_t size)
{
    if (!e->reencode)
        return hs_enc_sub_begin(e, size);
    if (hs_enc_heap_switch(e))
        HS_TRY(hs_str_use(s, e, e->in_heap_name)); /* may close the segment */
    if (hs_enc_stage_overflows(e, size))
        HS_TRY(hs_str_commit(s, e)); /* never stage what has no bound */
    return hs_enc_sub_begin(e, size);
}
