/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cutclasses.h - the classes a salvaged dump must still declare.
 *
 * Every writer names its classes first (STRING, LOAD_CLASS), but ART writes
 * each CLASS_DUMP late, after objects of the class, and the primitive array
 * classes (byte[], int[], ...) after most of the arrays: at 63 % of the
 * fixture's file, 77 % of another's. Salvaged, a dump cut before them held
 * objects whose class no CLASS_DUMP declared, and analyzers refused the
 * whole file: VisualVM's parser, which finds a primitive array's class by
 * its name among the class dumps ("Invalid type 8"), and ahat, on any
 * instance of such a class (a NullPointerException).
 *
 * With --salvage, every LOAD_CLASS is noted as it passes, and so is each
 * CLASS_DUMP; at the cut, each class named but not dumped gets a CLASS_DUMP
 * of its own: superclass java.lang.Object, no fields, no statics, instance
 * size 0, as HotSpot and ART write an array class. What they left out (a
 * class's fields and statics, its real superclass) was after the cut; the
 * objects before it stay as they were, their field bytes undecoded.
 */
#ifndef HS_CUTCLASSES_H
#define HS_CUTCLASSES_H

#include <stddef.h>
#include <stdint.h>

#include "ctx.h"
#include "encoder.h"
#include "idmap.h"

/* one slot per primitive element type (4 boolean .. 11 long), then
 * java.lang.Object */
#define HS_CUT_SLOTS 9

typedef struct {
    uint64_t id;
    uint32_t trace;  /* its LOAD_CLASS's stack-trace serial */
    uint8_t dumped;  /* a CLASS_DUMP of it went out */
    uint8_t slot;    /* 1 + its slot among the named ones, 0 for others */
} hs_cut_class;

typedef struct {
    hs_ctx *c;
    hs_idmap index;                 /* class id -> its place in `list` */
    hs_cut_class *list;             /* in LOAD_CLASS order */
    size_t n, cap;
    uint64_t name[HS_CUT_SLOTS][2]; /* STRING ids of each slot's two spellings */
    uint64_t object;                /* java.lang.Object's class id, 0: none */
    uint64_t written;               /* CLASS_DUMPs written at the cut */
    char arrays[80];                /* the primitive array classes among them */
} hs_cutclasses;

/* The longest name looked for is HS_CUT_NAME_MAX (hs_limits.h). */

/* Its memory is counted under --max-held (HS_HOLD_CUT). */
void hs_cut_init(hs_cutclasses *c, hs_ctx *ctx);
void hs_cut_free(hs_cutclasses *c);
/* A STRING record: `id` and its text. */
void hs_cut_string(hs_cutclasses *c, uint64_t id, const uint8_t *text, size_t n);
/* A LOAD_CLASS record: its class id, stack-trace serial and name id. */
hs_status hs_cut_load_class(hs_cutclasses *c, uint64_t id, uint32_t trace, uint64_t name);
/* A CLASS_DUMP of class `id`, whole, went out. */
void hs_cut_class_dump(hs_cutclasses *c, uint64_t id);
/* Writes a CLASS_DUMP for every class a LOAD_CLASS named and no CLASS_DUMP
 * declared, as sub-records of the open heap dump (c->written, c->arrays). */
hs_status hs_cut_write_missing(hs_cutclasses *c, hs_enc *e, unsigned idsize);

#endif
