/* SPDX-License-Identifier: Apache-2.0 */
/*
 * strtab.h - the string table: STRING records held back until something
 * refers to them.
 *
 * Each id is in one of three states. HELD: its text is stored here and has
 * not been written. EMITTED: written (its text is no longer kept). WANTED:
 * referred to before any STRING with that id arrived, so the STRING is
 * written as soon as it comes. Texts live in one arena; space freed by
 * emitted strings is reclaimed by compaction when it is more than half.
 */
#ifndef HS_STRTAB_H
#define HS_STRTAB_H

#include <stddef.h>
#include <stdint.h>

#include "hprof_strip.h"
#include "idmap.h"

enum { HS_STR_UNKNOWN = 0, HS_STR_HELD = 1, HS_STR_EMITTED = 2, HS_STR_WANTED = 3 };

typedef struct {
    const hs_alloc *alloc;
    hs_idmap map; /* id -> arena offset << 2 | state */
    uint8_t *arena;
    size_t len, cap, dead;
    size_t open; /* start of the text being appended */
    uint64_t held_count;
} hs_strtab;

void hs_strtab_init(hs_strtab *t, const hs_alloc *a);
void hs_strtab_free(hs_strtab *t);
int hs_strtab_state(const hs_strtab *t, uint64_t id);
hs_status hs_strtab_set(hs_strtab *t, uint64_t id, int state);
/* Holding a text takes three steps, so the arena grows with the bytes that
 * really arrive, never with a length the input merely claims: begin, append
 * the text in pieces, end (the id then becomes HELD). */
hs_status hs_strtab_begin(hs_strtab *t);
hs_status hs_strtab_append(hs_strtab *t, const uint8_t *p, size_t n);
hs_status hs_strtab_end(hs_strtab *t, uint64_t id);
/* The text of a HELD id. */
const uint8_t *hs_strtab_text(const hs_strtab *t, uint64_t id, uint32_t *len);
/* Marks a HELD id EMITTED and gives its space back. */
void hs_strtab_release(hs_strtab *t, uint64_t id);
static inline size_t hs_strtab_bytes(const hs_strtab *t)
{
    return t->cap + hs_idmap_bytes(&t->map);
}

#endif
