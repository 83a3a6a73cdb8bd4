/* SPDX-License-Identifier: Apache-2.0 */
/*
 * names.h - a table of interned names whose texts never move: each
 * distinct text is stored once, NUL-terminated, in chunks that are never
 * reallocated, so a pointer to it stays valid until the table is freed
 * (namer.h's promise), and numbered in the order it came (its ordinal).
 */
#ifndef HS_NAMES_H
#define HS_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "hprof_strip.h"

typedef struct {
    const char *s;
    size_t n;
} hs_name_ref;

typedef struct {
    const hs_alloc *a;
    char **chunks; /* each HS_NAMES_CHUNK bytes, or a name's own when larger */
    size_t n_chunks, chunks_cap, chunk_used, chunk_size, text_bytes;
    hs_name_ref *ents; /* by ordinal */
    size_t n, cap;
    uint32_t *slots; /* ordinal + 1, 0 empty; a power of two of them */
    size_t slot_cap;
} hs_names;

void hs_names_init(hs_names *t, const hs_alloc *a);
void hs_names_free(hs_names *t);

/* The ordinal of s[n] in *ord, added when new: returns 1 when it was
 * added, 0 when it was there, -1 out of memory (or past 2^32 names). */
int hs_names_intern(hs_names *t, const char *s, size_t n, uint32_t *ord);
/* 1 with *ord when s[n] is in the table, else 0. */
int hs_names_find(const hs_names *t, const char *s, size_t n, uint32_t *ord);
/* The text of ordinal `ord` (NUL-terminated), its length in *n. */
const char *hs_names_text(const hs_names *t, uint32_t ord, size_t *n);
/* Bytes held. */
size_t hs_names_bytes(const hs_names *t);

#endif
