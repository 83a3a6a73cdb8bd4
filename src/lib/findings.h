/* SPDX-License-Identifier: Apache-2.0 */
/*
 * findings.h - where the data is (hs_options.findings, what --audit
 * reports): the non-zero bytes the rules zeroed, by class field (instance
 * and static), constant pool and array type; each record of unknown tag;
 * each STRING left unused or too long to examine as a name. A privacy
 * officer can act on "Secret.card: 50 objects", not on "7 bytes at 320100".
 *
 * Names are resolved at the end: every STRING text of a kilobyte or less
 * is kept (field and class names are short), LOAD_CLASS ties class ids to
 * them, and each CLASS_DUMP's instance field names are kept by class, in
 * the order an instance's bytes hold them.
 */
#ifndef HS_FINDINGS_H
#define HS_FINDINGS_H

#include "classes.h"
#include "ctx.h"
#include "hs_limits.h"
#include "idmap.h"

/* Instances up to HS_FINDINGS_INSTANCE_MAX (hs_limits.h) are named field
 * by field. */

typedef struct {
    int kind;          /* enum hs_finding_kind */
    uint64_t id;       /* class id; element type; record tag; string id */
    uint64_t name;     /* field name string id, or constant-pool index */
    uint64_t count, bytes, first;
} hs_fnd_row;

typedef struct {
    const hs_alloc *alloc;
    int on;
    unsigned idsize;
    hs_idmap texts;      /* string id -> offset + 1 in `text` */
    hs_idmap str_off;    /* string id -> input offset of its STRING + 1 */
    hs_idmap class_name; /* class id -> name string id */
    hs_idmap field_at;   /* class id -> index + 1 in `fnames` */
    uint64_t *fnames;    /* per class: its count of instance fields, then
                            their name ids */
    size_t n_fnames, cap_fnames;
    char *text;
    size_t text_len, text_cap;
    hs_idmap row_at; /* key -> row index + 1 (fields, statics, arrays) */
    hs_fnd_row *rows;
    size_t nrows, cap;
    hs_finding *out; /* hs_findings_finish: the public rows */
    char *names;     /* their names */
    size_t nout;
} hs_findings;

void hs_findings_init(hs_findings *fd, const hs_alloc *a, int on);
void hs_findings_free(hs_findings *fd);

/* A STRING record at input byte `off`: `text` (`n` bytes) its text, NULL
 * when it is too long to keep. */
hs_status hs_findings_string(hs_findings *fd, hs_ctx *c, uint64_t id, uint64_t off,
                             const uint8_t *text, size_t n);
/* LOAD_CLASS: class `cls` is named by string `name`. */
hs_status hs_findings_class(hs_findings *fd, hs_ctx *c, uint64_t cls, uint64_t name);
/* A CLASS_DUMP of class `cls`: the name ids of its `n` instance fields. */
hs_status hs_findings_fields(hs_findings *fd, hs_ctx *c, uint64_t cls, const uint64_t *names,
                             uint32_t n);
/* Adds `bytes` non-zero bytes (0: none, nothing is noted) to the finding
 * of `kind`, `id`, `name`, one more object, first met at input byte `off`. */
hs_status hs_findings_add(hs_findings *fd, hs_ctx *c, int kind, uint64_t id, uint64_t name,
                          uint64_t bytes, uint64_t off);
/* The field bytes `p` (`n` of them, all the instance's) of an instance of
 * `cls` at input byte `off`: each non-zero byte of a field the layouts `cl`
 * say is scrubbed is noted against that field; bytes past the classes
 * known (all of them when `cl` is NULL: a class that never came, whose
 * instances are zeroed whole) against the class. */
hs_status hs_findings_instance(hs_findings *fd, hs_ctx *c, hs_classes *cl, uint64_t cls,
                               const uint8_t *p, uint64_t n, uint64_t off);
/* A record or STRING noted by itself (HS_FIND_RECORD, HS_FIND_STRING_*). */
hs_status hs_findings_one(hs_findings *fd, hs_ctx *c, int kind, uint64_t id, uint64_t bytes,
                          uint64_t off);
/* The input offset of STRING `id`'s record (UINT64_MAX: not met). */
uint64_t hs_findings_string_off(const hs_findings *fd, uint64_t id);
/* Names and sorts the rows (kind, then input offset). */
hs_status hs_findings_finish(hs_findings *fd, hs_ctx *c);

#endif
