/* SPDX-License-Identifier: Apache-2.0 */
/*
 * idmap.h - an open-addressing hash map from HPROF identifiers (u64) to
 * u64 values, for the string table and the held GC roots.
 *
 * Linear probing with backward-shift deletion (no tombstones, so lookups
 * stay short however many entries come and go). Identifiers are object and
 * symbol addresses, mostly 8-aligned, so they are mixed with a 64-bit
 * multiplicative hash before use.
 */
#ifndef HS_IDMAP_H
#define HS_IDMAP_H

#include <stddef.h>
#include <stdint.h>

#include "hprof_strip.h"

/* A key beside its value: a probe that finds its key reads one cache line
 * for both (the held roots' map misses cache on most probes). */
typedef struct {
    uint64_t key, val;
} hs_idmap_entry;

typedef struct {
    const hs_alloc *alloc;
    hs_idmap_entry *ents;
    uint8_t *used; /* apart, so that probing past taken slots stays dense */
    size_t cap; /* a power of two, or 0 before the first insert */
    size_t count;
    /* Set after hs_idmap_init by an owner that never walks the slots where
     * their order could show (an output, a report): the map then doubles in
     * place, its peak the doubled arrays alone where realloc remaps (the C
     * library's; a caller's allocator still copies), and the order of its
     * slots is another. Every walk that writes something keeps the order
     * the copy gives, as outputs have always had it. */
    int unordered;
} hs_idmap;

void hs_idmap_init(hs_idmap *m, const hs_alloc *a);
void hs_idmap_free(hs_idmap *m);
/* The value stored for `key`, or NULL. The pointer dies at the next insert
 * or remove. */
uint64_t *hs_idmap_get(const hs_idmap *m, uint64_t key);
/* Inserts or replaces. HS_E_NOMEM when growing fails (the map is intact). */
hs_status hs_idmap_put(hs_idmap *m, uint64_t key, uint64_t val);
/* Inserts `key`, which the caller knows is absent (one probe, not two). */
hs_status hs_idmap_put_new(hs_idmap *m, uint64_t key, uint64_t val);
/* Removes `key` if present. */
void hs_idmap_remove(hs_idmap *m, uint64_t key);
/* Removes `key` and sets `*val` to its value if present, in one probe;
 * false when absent. */
int hs_idmap_take(hs_idmap *m, uint64_t key, uint64_t *val);
/* Removes every entry whose value is below `min_val`, in place (the map
 * keeps its size); returns how many went. */
size_t hs_idmap_drop_below(hs_idmap *m, uint64_t min_val);
/* Starts loading the lines a lookup of `key` reads first. */
void hs_idmap_prefetch(const hs_idmap *m, uint64_t key);
/* True when the next insert of a new key doubles the map. */
static inline int hs_idmap_full(const hs_idmap *m)
{
    return (m->count + 1) * 4 > m->cap * 3;
}
/* Bytes the map holds, for memory accounting. */
static inline size_t hs_idmap_bytes(const hs_idmap *m)
{
    return m->cap * (sizeof(hs_idmap_entry) + 1);
}
/* The slots of the first table an insert makes. */
#define HS_IDMAP_FIRST_CAP 1024u
/* Bytes the map will hold once its next growth is made. */
static inline size_t hs_idmap_bytes_grown(const hs_idmap *m)
{
    return (m->cap ? 2 * m->cap : HS_IDMAP_FIRST_CAP) * (sizeof(hs_idmap_entry) + 1);
}

#endif
