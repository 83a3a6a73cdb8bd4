/* SPDX-License-Identifier: Apache-2.0 */
/*
 * strrec.h - STRING records: dropping the unused ones in one pass, and
 * writing each kept one before its first user.
 */
#ifndef HS_STRREC_H
#define HS_STRREC_H

#include "encoder.h"
#include "hs_limits.h"
#include "strtab.h"

/* A STRING longer than HS_STRING_HOLD_MAX (hs_limits.h) is never held. */

typedef struct {
    hs_strtab tab;
    int drop_unused;     /* hold STRINGs until their first user */
    int on_demand;       /* the writer makes STRINGs on demand (ART, the
                            JVMTI agent, --mapping's output): class dumps may
                            follow objects, so the stage goes on past them */
    /* told each held STRING's text as it is written, when its text leaves
     * the table (filter.c: the histogram's class names); NULL: nobody */
    hs_status (*emitted)(void *ctx, uint64_t id, const uint8_t *text, size_t n);
    void *emitted_ctx;
} hs_strings;

void hs_strings_init(hs_strings *s, const hs_alloc *a, int drop_unused);
void hs_strings_free(hs_strings *s);

/* A record about to be written refers to string `id`: write the STRING
 * first if it is held. */
hs_status hs_str_use(hs_strings *s, hs_enc *e, uint64_t id);
/* Whether hs_str_record will hold STRING `id` of `n` text bytes read now:
 * its text then stays here (hs_str_held_text) until it is written, and
 * goes to `emitted` then. Ask before hs_str_record. */
int hs_str_will_hold(const hs_strings *s, uint64_t id, uint64_t n);
/* The text of STRING `id` while it is held, else NULL. */
const uint8_t *hs_str_held_text(const hs_strings *s, uint64_t id, uint32_t *len);
/* A STRING record whose header is at hs_cur(): hold it or pass it on. */
hs_status hs_str_record(hs_strings *s, hs_enc *e, uint64_t len);
/* Writes STRING `id` holding text[n], a record made up here (a name
 * deobf.c gives), as a top-level record: counted, and marked written so
 * that its users need nothing more. The table is strrec.c's alone. */
hs_status hs_str_write(hs_strings *s, hs_enc *e, uint64_t id, const void *text, size_t n);
/* Writes the held-back start of the heap dump (see strrec.c), if any: the
 * STRINGs still held stay held. */
hs_status hs_str_commit(hs_strings *s, hs_enc *e);
/* Opens a sub-record of `size` output bytes, first writing what must come
 * before it: the name of the heap it switches to, and the stage when the
 * sub-record cannot join it. */
hs_status hs_str_sub_begin_slow(hs_strings *s, hs_enc *e, uint64_t size);
static inline hs_status hs_str_sub_begin(hs_strings *s, hs_enc *e, uint64_t size)
{
    if (e->staging || hs_enc_heap_switch(e))
        return hs_str_sub_begin_slow(s, e, size);
    return hs_enc_sub_begin(e, size);
}
/* The count of STRING records held and never used. */
static inline uint64_t hs_str_unused(const hs_strings *s)
{
    return s->tab.held_count;
}

#endif
