/* SPDX-License-Identifier: Apache-2.0 */
/*
 * privmap.h - the files the library mapped privately, which it may write.
 *
 * input.c maps a plain input file MAP_PRIVATE and the filter walks it in
 * place (hs_source.data). A mapping (deobf.c) patches names in the read
 * window; a source's bytes are not the filter's to write, except those of
 * such a mapping: made writable, a page written is copied on write, and the
 * file never changes. The filter sees only the hs_source the caller built
 * around the pointer (the CLI and hs_job make their own), so the mappings
 * are known here by address: input.c adds each, and takes it away when it
 * unmaps it or when it must stay as read (a hashed input is hashed as its
 * pages are given back, after the filter has been through them).
 *
 * Below deobf.c in the core's layers (tests/lanes/layers.sh), above nothing.
 */
#ifndef HS_PRIVMAP_H
#define HS_PRIVMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct hs_privmap {
    void *map;             /* what mmap gave: the whole file */
    size_t len;
    const void *data;      /* the input within it, as hs_input_data gives it */
    uint64_t size;
    int writable;          /* made so by hs_privmap_writable */
    struct hs_privmap *next;
} hs_privmap;

/* Makes `m` (its fields set, `writable` 0) known. */
void hs_privmap_add(hs_privmap *m);
/* Forgets `m`: before it is unmapped, or to keep it as read. 0, or 1 when
 * it was already made writable (and may have been written). */
int hs_privmap_remove(hs_privmap *m);

/* 1 when data[size] is the whole input of a known mapping, now writable
 * (once: PROT_READ | PROT_WRITE over the mapping, still private); 0 for any
 * other memory (the caller's is never written), or when the system will
 * not commit what a written private mapping may take. Pages given back
 * (MADV_DONTNEED) lose what was written to them: a filter writes only
 * where it has not given back yet. */
int hs_privmap_writable(const void *data, uint64_t size);

#endif
