/* SPDX-License-Identifier: Apache-2.0 */
/*
 * classes.h - instance-field layouts learned from CLASS_DUMPs, so the
 * primitive values inside INSTANCE_DUMPs can be scrubbed while every
 * reference stays as it was.
 *
 * An INSTANCE_DUMP's field bytes are its own class's instance fields, then
 * its superclass's, up to java.lang.Object. Once every class of a chain is
 * known, the chain is flattened into runs ("copy N bytes", "scrub N
 * bytes"), cached on the class, so an instance is scrubbed with a handful of
 * bulk copies and fills.
 */
#ifndef HS_CLASSES_H
#define HS_CLASSES_H

#include <stddef.h>
#include <stdint.h>

#include "hprof_strip.h"
#include "idmap.h"

/* A run: bit 31 set means keep (a reference, or a field on the keep list),
 * clear means scrub; the low bits are the byte count. */
#define HS_RUN_KEEP 0x80000000u
#define HS_RUN_LEN(r) ((r)&0x7fffffffu)

typedef struct {
    uint64_t super;     /* superclass id, 0 for none */
    uint32_t types;     /* offset of this class's field bytes in `fields` */
    uint32_t nfields;
    uint32_t runs;      /* offset of the flattened runs in `runs`, once built */
    uint32_t nruns;     /* UINT32_MAX until built */
    uint64_t size;      /* field bytes of an instance, once built */
    uint64_t at;        /* input offset of its first CLASS_DUMP */
} hs_class;

typedef struct {
    const hs_alloc *alloc;
    hs_idmap index; /* class id -> index into `classes` */
    hs_class *classes;
    size_t n, cap;
    /* per field of every class: its basic type, with bit 7 set when the
     * field is on the keep list */
    uint8_t *fields;
    size_t fields_len, fields_cap;
    uint32_t *runs;
    size_t runs_len, runs_cap;
} hs_classes;

void hs_classes_init(hs_classes *c, const hs_alloc *a);
void hs_classes_free(hs_classes *c);

/* Records a class, whose CLASS_DUMP is at input byte `at`: its super and
 * its instance fields' types (`keep[i]` set for a field to be kept whole).
 * A class seen again with the same layout is fine; with another one
 * (super, fields, or what is kept) it is HS_E_MALFORMED, with *first set
 * to the first CLASS_DUMP's offset: instances cannot be read by two
 * layouts, and taking either one could copy a long as if references. */
hs_status hs_classes_add(hs_classes *c, uint64_t id, uint64_t super, const uint8_t *types,
                         const uint8_t *keep, uint32_t nfields, uint64_t at, uint64_t *first);

/* The runs of class `id`'s instances. Returns HS_OK with *runs set, or
 * HS_OK with *runs NULL and *missing set to the first class of the chain
 * not known yet; HS_E_MALFORMED for a cycle. */
hs_status hs_classes_runs(hs_classes *c, uint64_t id, unsigned idsize, const uint32_t **runs,
                          uint32_t *nruns, uint64_t *size, uint64_t *missing);

size_t hs_classes_bytes(const hs_classes *c);

#endif
