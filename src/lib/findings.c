/* SPDX-License-Identifier: Apache-2.0 */
/*
 * findings.c - where the data is (see findings.h).
 */
#include "findings.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "format.h"
#include "hs_limits.h"

/* STRING texts longer than this name no class or field worth keeping. */
#define MAX_NAME HS_NAME_TEXT_MAX

void hs_findings_init(hs_findings *fd, const hs_alloc *a, int on)
{
    memset(fd, 0, sizeof *fd);
    fd->alloc = a;
    fd->on = on;
    hs_idmap_init(&fd->texts, a);
    hs_idmap_init(&fd->str_off, a);
    hs_idmap_init(&fd->class_name, a);
    hs_idmap_init(&fd->field_at, a);
    hs_idmap_init(&fd->row_at, a);
}

void hs_findings_free(hs_findings *fd)
{
    hs_idmap_free(&fd->texts);
    hs_idmap_free(&fd->str_off);
    hs_idmap_free(&fd->class_name);
    hs_idmap_free(&fd->field_at);
    hs_idmap_free(&fd->row_at);
    hs_alloc_free(fd->alloc, fd->fnames);
    hs_alloc_free(fd->alloc, fd->text);
    hs_alloc_free(fd->alloc, fd->rows);
    hs_alloc_free(fd->alloc, fd->out);
    hs_alloc_free(fd->alloc, fd->names);
    fd->fnames = NULL;
    fd->text = NULL;
    fd->rows = NULL;
    fd->out = NULL;
    fd->names = NULL;
}

static hs_status nomem(hs_ctx *c)
{
    return hs_fail_io(c, HS_E_NOMEM, "");
}

static hs_status held_changed(hs_findings *fd, hs_ctx *c)
{
    return hs_hold(c, HS_HOLD_FINDINGS,
                   hs_idmap_bytes(&fd->texts) + hs_idmap_bytes(&fd->str_off) +
                       hs_idmap_bytes(&fd->class_name) + hs_idmap_bytes(&fd->field_at) +
                       hs_idmap_bytes(&fd->row_at) + fd->cap_fnames * sizeof *fd->fnames +
                       fd->text_cap + fd->cap * sizeof *fd->rows);
}

/* Grows `*p` (`len` elements of `elem` bytes, room for `*cap`) to hold
 * `more` more. */
static hs_status grow(hs_findings *fd, hs_ctx *c, void **p, size_t elem, size_t len,
                      size_t *cap, size_t more)
{
    size_t n = *cap ? *cap : 256;
    void *q;

    if (len + more <= *cap)
        return HS_OK;
    while (n < len + more)
        n *= 2;
    q = hs_realloc(fd->alloc, *p, len * elem, n * elem);
    if (!q)
        return nomem(c);
    *p = q;
    *cap = n;
    return held_changed(fd, c);
}

hs_status hs_findings_string(hs_findings *fd, hs_ctx *c, uint64_t id, uint64_t off,
                             const uint8_t *text, size_t n)
{
    if (hs_idmap_put(&fd->str_off, id, off + 1) != HS_OK)
        return nomem(c);
    if (text && n <= MAX_NAME && !memchr(text, 0, n)) {
        HS_TRY(grow(fd, c, (void **)&fd->text, 1, fd->text_len, &fd->text_cap, n + 1));
        memcpy(fd->text + fd->text_len, text, n);
        fd->text[fd->text_len + n] = 0;
        if (hs_idmap_put(&fd->texts, id, fd->text_len + 1) != HS_OK)
            return nomem(c);
        fd->text_len += n + 1;
    }
    return held_changed(fd, c);
}

uint64_t hs_findings_string_off(const hs_findings *fd, uint64_t id)
{
    const uint64_t *v = hs_idmap_get(&fd->str_off, id);

    return v ? *v - 1 : UINT64_MAX;
}

hs_status hs_findings_class(hs_findings *fd, hs_ctx *c, uint64_t cls, uint64_t name)
{
    if (hs_idmap_put(&fd->class_name, cls, name) != HS_OK)
        return nomem(c);
    return held_changed(fd, c);
}

hs_status hs_findings_fields(hs_findings *fd, hs_ctx *c, uint64_t cls, const uint64_t *names,
                             uint32_t n)
{
    if (hs_idmap_get(&fd->field_at, cls)) /* a class seen twice keeps its first layout */
        return HS_OK;
    HS_TRY(grow(fd, c, (void **)&fd->fnames, sizeof *fd->fnames, fd->n_fnames, &fd->cap_fnames,
                (size_t)n + 1));
    if (hs_idmap_put(&fd->field_at, cls, fd->n_fnames + 1) != HS_OK)
        return nomem(c);
    fd->fnames[fd->n_fnames++] = n;
    memcpy(fd->fnames + fd->n_fnames, names, n * sizeof *names);
    fd->n_fnames += n;
    return held_changed(fd, c);
}

/* A key for the row of (kind, id, name): probed on from there when another
 * row has it. */
static uint64_t row_key(int kind, uint64_t id, uint64_t name)
{
    uint64_t k = id * 0x9E3779B97F4A7C15ull;

    k ^= (name + 0x632BE59BD9B4E019ull) * 0xBF58476D1CE4E5B9ull;
    return k ^ (uint64_t)kind;
}

static hs_status new_row(hs_findings *fd, hs_ctx *c, int kind, uint64_t id, uint64_t name,
                         uint64_t off, hs_fnd_row **row)
{
    hs_fnd_row *r;

    HS_TRY(grow(fd, c, (void **)&fd->rows, sizeof *fd->rows, fd->nrows, &fd->cap, 1));
    r = &fd->rows[fd->nrows++];
    memset(r, 0, sizeof *r);
    r->kind = kind;
    r->id = id;
    r->name = name;
    r->first = off;
    *row = r;
    return HS_OK;
}

hs_status hs_findings_add(hs_findings *fd, hs_ctx *c, int kind, uint64_t id, uint64_t name,
                          uint64_t bytes, uint64_t off)
{
    uint64_t k = row_key(kind, id, name), *v;
    hs_fnd_row *r;

    if (!bytes)
        return HS_OK;
    for (;; k++) {
        v = hs_idmap_get(&fd->row_at, k);
        if (!v)
            break;
        r = &fd->rows[*v - 1];
        if (r->kind == kind && r->id == id && r->name == name) {
            r->count++;
            r->bytes += bytes;
            return HS_OK;
        }
    }
    HS_TRY(new_row(fd, c, kind, id, name, off, &r));
    r->count = 1;
    r->bytes = bytes;
    if (hs_idmap_put(&fd->row_at, k, fd->nrows) != HS_OK)
        return nomem(c);
    return held_changed(fd, c);
}

hs_status hs_findings_one(hs_findings *fd, hs_ctx *c, int kind, uint64_t id, uint64_t bytes,
                          uint64_t off)
{
    hs_fnd_row *r;

    HS_TRY(new_row(fd, c, kind, id, 0, off, &r));
    r->count = 1;
    r->bytes = bytes;
    return HS_OK;
}

static uint64_t nonzero(const uint8_t *p, uint64_t n)
{
    uint64_t k = 0, i;

    for (i = 0; i < n; i++)
        k += p[i] != 0;
    return k;
}

hs_status hs_findings_instance(hs_findings *fd, hs_ctx *c, hs_classes *cl, uint64_t cls,
                               const uint8_t *p, uint64_t n, uint64_t off)
{
    uint64_t at = 0, id = cls, *v;
    unsigned guard = 0;

    /* its own fields first, then its superclass's, up to Object */
    while (cl && id && (v = hs_idmap_get(&cl->index, id)) != NULL && guard++ < 4096) {
        const hs_class *k = &cl->classes[*v];
        const uint64_t *names = NULL, *fa = hs_idmap_get(&fd->field_at, id);
        uint32_t j;

        if (fa && fd->fnames[*fa - 1] == k->nfields)
            names = fd->fnames + *fa;
        for (j = 0; j < k->nfields; j++) {
            const unsigned t = cl->fields[k->types + j];
            const unsigned w = hs_type_size(t & 0x7f, c->idsize);
            if (at + w > n)
                break;
            if (!(t & 0x80) && t != HS_TYPE_OBJECT && t != HS_TYPE_ARRAY_OBJECT)
                HS_TRY(hs_findings_add(fd, c, HS_FIND_FIELD, id, names ? names[j] : 0,
                                       nonzero(p + at, w), off));
            at += w;
        }
        id = k->super;
    }
    if (at < n) /* a chain not known whole: the rest against the class */
        HS_TRY(hs_findings_add(fd, c, HS_FIND_CLASS, cls, 0, nonzero(p + at, n - at), off));
    return HS_OK;
}

/* ---- the end: names ------------------------------------------------------ */

static const char *text_of(const hs_findings *fd, uint64_t id)
{
    const uint64_t *v = hs_idmap_get(&fd->texts, id);

    return v ? fd->text + *v - 1 : NULL;
}

/* The class's name in Java's dotted form, into `buf`. */
static void class_name(const hs_findings *fd, uint64_t cls, char *buf, size_t cap)
{
    const uint64_t *v = hs_idmap_get(&fd->class_name, cls);
    const char *t = v ? text_of(fd, *v) : NULL;
    size_t i;

    if (!t) {
        snprintf(buf, cap, "class@0x%llx", (unsigned long long)cls);
        return;
    }
    snprintf(buf, cap, "%s", t);
    for (i = 0; buf[i]; i++)
        if (buf[i] == '/')
            buf[i] = '.';
}

static void row_name(const hs_findings *fd, const hs_fnd_row *r, char *buf, size_t cap)
{
    char cls[600];
    const char *f;

    switch (r->kind) {
    case HS_FIND_FIELD:
    case HS_FIND_STATIC:
        class_name(fd, r->id, cls, sizeof cls);
        f = text_of(fd, r->name);
        if (f)
            snprintf(buf, cap, "%s.%s", cls, f);
        else
            snprintf(buf, cap, "%s.<field 0x%llx>", cls, (unsigned long long)r->name);
        return;
    case HS_FIND_CONSTANT:
        class_name(fd, r->id, cls, sizeof cls);
        snprintf(buf, cap, "%s.<constant pool %llu>", cls, (unsigned long long)r->name);
        return;
    case HS_FIND_CLASS:
        class_name(fd, r->id, cls, sizeof cls);
        snprintf(buf, cap, "%s (no CLASS_DUMP for its fields)", cls);
        return;
    case HS_FIND_ARRAY:
        snprintf(buf, cap, "%s[]", hs_type_name((unsigned)r->id));
        return;
    case HS_FIND_RECORD:
        snprintf(buf, cap, "record tag 0x%02x", (unsigned)r->id);
        return;
    case HS_FIND_RESERVED:
        class_name(fd, r->id, cls, sizeof cls);
        snprintf(buf, cap, "%s (reserved ids)", cls);
        return;
    default:
        snprintf(buf, cap, "STRING 0x%llx", (unsigned long long)r->id);
        return;
    }
}

static int by_kind_then_offset(const void *a, const void *b)
{
    const hs_finding *x = a, *y = b;

    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    if (x->first_offset != y->first_offset)
        return x->first_offset < y->first_offset ? -1 : 1;
    return 0;
}

hs_status hs_findings_finish(hs_findings *fd, hs_ctx *c)
{
    size_t i, len = 0, cap = 0, *at;
    char buf[1400];

    if (!fd->nrows)
        return HS_OK;
    fd->out = hs_calloc(fd->alloc, fd->nrows * sizeof *fd->out);
    at = hs_calloc(fd->alloc, fd->nrows * sizeof *at);
    if (!fd->out || !at) {
        hs_alloc_free(fd->alloc, at);
        return nomem(c);
    }
    for (i = 0; i < fd->nrows; i++) {
        const hs_fnd_row *r = &fd->rows[i];
        size_t n;
        row_name(fd, r, buf, sizeof buf);
        n = strlen(buf) + 1;
        if (len + n > cap) {
            size_t nc = cap ? cap * 2 : 4096;
            char *q;
            while (nc < len + n)
                nc *= 2;
            q = hs_realloc(fd->alloc, fd->names, len, nc);
            if (!q) {
                hs_alloc_free(fd->alloc, at);
                return nomem(c);
            }
            fd->names = q;
            cap = nc;
        }
        memcpy(fd->names + len, buf, n);
        at[i] = len;
        len += n;
        fd->out[i].kind = r->kind;
        fd->out[i].id = r->id;
        fd->out[i].count = r->count;
        fd->out[i].bytes = r->bytes;
        fd->out[i].first_offset = r->first;
    }
    for (i = 0; i < fd->nrows; i++) /* the arena has stopped moving */
        fd->out[i].name = fd->names + at[i];
    hs_alloc_free(fd->alloc, at);
    fd->nout = fd->nrows;
    qsort(fd->out, fd->nout, sizeof *fd->out, by_kind_then_offset);
    return HS_OK;
}
