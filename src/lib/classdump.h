/* SPDX-License-Identifier: Apache-2.0 */
/*
 * classdump.h - the one walker over a CLASS_DUMP's three tables, used to
 * validate it, to find the strings it names, and to scrub its values.
 *
 *   CLASS_DUMP  u1 0x20  id class  u4 trace  id super  id loader  id signers
 *               id domain  id res1  id res2  u4 instance_size
 *               u2 n_const  {u2 index  u1 type  value}*
 *               u2 n_static {id name   u1 type  value}*
 *               u2 n_inst   {id name   u1 type}*
 *
 * The walker is a cursor over bytes that may not all be there yet: it says
 * how many it needs, and picks up where it stopped once they are.
 */
#ifndef HS_CLASSDUMP_H
#define HS_CLASSDUMP_H

#include <stddef.h>
#include <stdint.h>

/* Offsets in a CLASS_DUMP sub-record (tag byte at 0), for id size `i`. */
#define HS_CD_CLASS 1u
#define HS_CD_SUPER(i) (1u + (i) + 4u)
#define HS_CD_LOADER(i) (1u + 2u * (i) + 4u)
#define HS_CD_RESERVED(i) (1u + 5u * (i) + 4u) /* two ids */
#define HS_CD_INSTANCE_SIZE(i) (1u + 7u * (i) + 4u)
#define HS_CD_TABLES(i) (1u + 7u * (i) + 8u) /* u2 n_const */

enum { HS_CD_CONST, HS_CD_STATIC, HS_CD_FIELD };

typedef struct {
    int table;      /* HS_CD_CONST, HS_CD_STATIC or HS_CD_FIELD */
    unsigned index; /* its place in its table */
    uint64_t name;  /* name string id (statics and fields) */
    unsigned type;  /* basic type */
    size_t type_at; /* offset of the type byte */
    size_t value;   /* offset of the value (constants and statics) */
    unsigned width; /* its width (0 for instance fields) */
} hs_cd_entry;

typedef struct {
    unsigned idsize;
    size_t k;      /* offset of the next thing to read */
    int table;     /* the table being walked, 3 when done */
    unsigned left; /* entries left in it */
    unsigned index;
    size_t need;   /* after HS_CD_MORE: bytes needed from the start */
} hs_cd_walk;

enum { HS_CD_END = 0, HS_CD_ENTRY = 1, HS_CD_MORE = -1, HS_CD_BAD_TYPE = -2 };

void hs_cd_start(hs_cd_walk *w, unsigned idsize);
/* Steps over the next entry of the CLASS_DUMP at p[0..avail): HS_CD_ENTRY
 * with *e filled, HS_CD_END when all three tables are done (w->k is then the
 * sub-record's size), HS_CD_MORE when w->need bytes must be there first
 * (call again with them), or HS_CD_BAD_TYPE with *e naming the entry whose
 * type is not a basic type. Only counts and entry heads are asked for: an
 * entry's value may lie past `avail` until the whole sub-record is there. */
int hs_cd_next(hs_cd_walk *w, const uint8_t *p, size_t avail, hs_cd_entry *e);

#endif
