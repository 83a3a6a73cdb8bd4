/* SPDX-License-Identifier: Apache-2.0 */
/*
 * oracle.c - see oracle.h. Written from the format description
 * (docs/hprof-format.md), sharing nothing with the library or helpers.c.
 */
#include "oracle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

/* ---- small containers ----------------------------------------------------- */

static void vpush(o_vec *v, uint64_t x)
{
    if (v->n == v->cap) {
        v->cap = v->cap ? v->cap * 2 : 256;
        v->v = realloc(v->v, v->cap * sizeof *v->v);
        if (!v->v)
            abort();
    }
    v->v[v->n++] = x;
}

static int cmp64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void vsort(o_vec *v)
{
    if (v->n)
        qsort(v->v, v->n, sizeof *v->v, cmp64);
}

/* id -> value, open addressing; key 0 is never stored (ids are not 0) */
typedef struct {
    uint64_t *k, *v;
    size_t cap, n;
} omap;

static size_t oslot(uint64_t k, size_t cap)
{
    return (size_t)((k * 0x9E3779B97F4A7C15ull) >> 7) & (cap - 1);
}

static void oput(omap *m, uint64_t k, uint64_t v)
{
    size_t i;

    if (!k)
        return;
    if ((m->n + 1) * 2 > m->cap) {
        omap g = {NULL, NULL, m->cap ? m->cap * 2 : 1024, 0};
        g.k = calloc(g.cap, sizeof *g.k);
        g.v = calloc(g.cap, sizeof *g.v);
        if (!g.k || !g.v)
            abort();
        for (i = 0; i < m->cap; i++)
            if (m->k[i])
                oput(&g, m->k[i], m->v[i]);
        free(m->k);
        free(m->v);
        *m = g;
    }
    for (i = oslot(k, m->cap); m->k[i] && m->k[i] != k; i = (i + 1) & (m->cap - 1))
        ;
    if (!m->k[i])
        m->n++;
    m->k[i] = k;
    m->v[i] = v;
}

static int oget(const omap *m, uint64_t k, uint64_t *v)
{
    size_t i;

    if (!m->cap || !k)
        return 0;
    for (i = oslot(k, m->cap); m->k[i]; i = (i + 1) & (m->cap - 1))
        if (m->k[i] == k) {
            if (v)
                *v = m->v[i];
            return 1;
        }
    return 0;
}

static void ofree(omap *m)
{
    free(m->k);
    free(m->v);
}

/* ---- the model -------------------------------------------------------------- */

int o_model_preset(o_model *m, const char *name)
{
    static const char *const privacy_keep[] = {
        "java.lang.String.coder", "java.lang.Class$Atomic.annotationDataOffset",
        "java.lang.Class$Atomic.annotationTypeOffset",
        "java.util.concurrent.FutureTask.runnerOffset",
        "java.util.concurrent.FutureTask.waitersOffset"};
    unsigned i;

    memset(m, 0, sizeof *m);
    if (strcmp(name, "none") == 0)
        return 1;
    m->drop_unused = 1;
    m->n_arr = 1;
    m->arr[0] = (o_arr_rule){0x0ff0, 0, OA_ZERO, 0};
    if (strcmp(name, "default") == 0)
        return 1;
    if (strcmp(name, "android-app") == 0) {
        m->drop_zi = 1;
        return 1;
    }
    if (strcmp(name, "privacy") == 0) {
        m->fields_zero = 1;
        for (i = 0; i < 5; i++)
            m->keep[m->n_keep++] = privacy_keep[i];
        return 1;
    }
    return 0;
}

static const o_arr_rule *verdict(const o_model *m, unsigned type, uint64_t bytes)
{
    static const o_arr_rule keep = {0, 0, OA_KEEP, 0};
    const o_arr_rule *v = &keep;
    unsigned i;

    for (i = 0; i < m->n_arr; i++)
        if ((m->arr[i].types >> type & 1) && bytes >= m->arr[i].min)
            v = &m->arr[i];
    return v;
}

/* ---- decoding --------------------------------------------------------------- */

typedef struct {
    uint64_t id, super;
    size_t fields;   /* offset of the instance field list (after its count) */
    unsigned nfields;
    uint64_t keep;   /* bit per instance field (first 64) on the keep list */
    uint64_t skeep;  /* the same for statics */
} oclass;

typedef struct {
    const uint8_t *p;
    size_t n;
    unsigned id;
    const o_model *m;
    o_summary *s;
    omap strings;  /* id -> offset of the STRING record's body */
    omap names;    /* class id -> name string id (LOAD_CLASS) */
    omap cindex;   /* class id -> index in classes + 1 */
    oclass *classes;
    size_t ncls, ccls;
    omap needed;   /* string ids referred to by kept records */
    /* android-app keeps the Thread object a ROOT_THREAD_OBJ names, whatever
     * its heap, when that root came before any object was dropped */
    omap threads;
    int dropped_any;
    uint32_t heap;
    uint8_t *scratch;
    size_t scap;
    /* dups: (type, offset, bytes) of every payload of 8 bytes or more */
    uint64_t (*pay)[3];
    size_t npay, cpay;
    int dups, identity;
} odec;

static uint64_t rd(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    while (n--)
        v = v << 8 | *p++;
    return v;
}

static unsigned tsz(unsigned t, unsigned id)
{
    static const unsigned s[12] = {0, 0, 0, 0, 1, 2, 4, 8, 1, 2, 4, 8};
    return t == 2 ? id : t < 12 ? s[t] : 0;
}

static int bad(odec *d, size_t at, const char *what)
{
    if (d->s->ok) {
        d->s->ok = 0;
        snprintf(d->s->error, sizeof d->s->error, "byte %zu: %s", at, what);
    }
    return -1;
}

static uint8_t *scratch(odec *d, size_t n)
{
    if (n > d->scap) {
        d->scap = n * 2;
        d->scratch = realloc(d->scratch, d->scap);
        if (!d->scratch)
            abort();
    }
    return d->scratch;
}

/* Size of the sub-record at `at` (tag included), 0 when unknown or cut. */
static uint64_t subsize(const odec *d, size_t at, size_t end)
{
    const uint8_t *p = d->p + at;
    const unsigned I = d->id;
    uint64_t k, cnt, j, avail = end - at;
    int part;

#define HAVE(x) do { if ((uint64_t)(x) > avail) return 0; } while (0)
    switch (p[0]) {
    case 0xFF: case 0x05: case 0x07: case 0x89: case 0x8A: case 0x8B: case 0x8C:
    case 0x8D: case 0x90: return 1 + I;
    case 0x01: return 1 + 2 * I;
    case 0x04: case 0x06: return 1 + I + 4;
    case 0x02: case 0x03: case 0x08: case 0x8E: return 1 + I + 8;
    case 0xFE: return 1 + 4 + I;
    case 0xC3: return 1 + I + 9;
    case 0x21: HAVE(1 + 2 * I + 8); return 1 + 2 * I + 8 + rd(p + 1 + 2 * I + 4, 4);
    case 0x22: HAVE(1 + 2 * I + 8); return 1 + 2 * I + 8 + rd(p + 1 + I + 4, 4) * I;
    case 0x23:
        HAVE(1 + I + 9);
        if (p[1 + I + 8] < 4 || !tsz(p[1 + I + 8], I))
            return 0;
        return 1 + I + 9 + rd(p + 1 + I + 4, 4) * tsz(p[1 + I + 8], I);
    case 0x20:
        k = 1 + 7 * I + 8;
        for (part = 0; part < 3; part++) {
            HAVE(k + 2);
            cnt = rd(p + k, 2);
            k += 2;
            for (j = 0; j < cnt; j++) {
                unsigned head = part == 0 ? 3 : I + 1, t;
                HAVE(k + head);
                t = p[k + head - 1];
                if (!tsz(t, I))
                    return 0;
                k += head + (part < 2 ? tsz(t, I) : 0);
            }
        }
        HAVE(k);
        return k;
    default: return 0;
    }
#undef HAVE
}

/* ---- keep-field names ------------------------------------------------------- */

/* The text of STRING `sid`, or NULL. */
static const uint8_t *str_text(const odec *d, uint64_t sid, size_t *len)
{
    uint64_t off;

    if (!oget(&d->strings, sid, &off))
        return NULL;
    *len = (size_t)rd(d->p + off + 5, 4) - d->id;
    return d->p + off + 9 + d->id;
}

/* True when field `fname` of class `cid` is on the model's keep list. Class
 * names come as java/lang/String (HotSpot) or java.lang.String (ART). */
static int kept(const odec *d, uint64_t cid, uint64_t fname)
{
    uint64_t cname;
    const uint8_t *c, *f;
    size_t cn, fn, i;
    unsigned k;

    if (!oget(&d->names, cid, &cname) || !(c = str_text(d, cname, &cn)) ||
        !(f = str_text(d, fname, &fn)))
        return 0;
    for (k = 0; k < d->m->n_keep; k++) {
        const char *full = d->m->keep[k], *dot = strrchr(full, '.');
        size_t want = (size_t)(dot - full);
        if (cn != want || fn != strlen(dot + 1) || memcmp(f, dot + 1, fn) != 0)
            continue;
        for (i = 0; i < cn; i++)
            if ((c[i] == '/' ? '.' : c[i]) != full[i])
                break;
        if (i == cn)
            return 1;
    }
    return 0;
}

/* Offsets of a CLASS_DUMP's static list and instance field list (each at
 * its u2 count). */
static void class_parts(const odec *d, size_t at, size_t *statics, size_t *fields)
{
    const uint8_t *p = d->p;
    const unsigned I = d->id;
    size_t k = at + 1 + 7 * I + 8;
    uint64_t n = rd(p + k, 2), j;

    for (k += 2, j = 0; j < n; j++)
        k += 3 + tsz(p[k + 2], I);
    *statics = k;
    n = rd(p + k, 2);
    for (k += 2, j = 0; j < n; j++)
        k += I + 1 + tsz(p[k + I], I);
    *fields = k;
}

static void add_class(odec *d, size_t at)
{
    const unsigned I = d->id;
    size_t st, fl, j, k;
    oclass c;

    memset(&c, 0, sizeof c);
    c.id = rd(d->p + at + 1, I);
    c.super = rd(d->p + at + 1 + I + 4, I);
    class_parts(d, at, &st, &fl);
    c.nfields = (unsigned)rd(d->p + fl, 2);
    c.fields = fl + 2;
    if (d->m->fields_zero && d->m->n_keep) {
        for (j = 0, k = fl + 2; j < c.nfields && j < 64; j++, k += I + 1)
            if (kept(d, c.id, rd(d->p + k, I)))
                c.keep |= 1ull << j;
        for (j = 0, k = st + 2; j < rd(d->p + st, 2) && j < 64; j++) {
            if (kept(d, c.id, rd(d->p + k, I)))
                c.skeep |= 1ull << j;
            k += I + 1 + tsz(d->p[k + I], I);
        }
    }
    if (d->ncls == d->ccls) {
        d->ccls = d->ccls ? d->ccls * 2 : 256;
        d->classes = realloc(d->classes, d->ccls * sizeof *d->classes);
        if (!d->classes)
            abort();
    }
    d->classes[d->ncls++] = c;
    oput(&d->cindex, c.id, d->ncls);
}

/* ---- the two passes ----------------------------------------------------------- */

typedef int (*sub_fn)(odec *d, size_t at, size_t size);
typedef int (*rec_fn)(odec *d, unsigned tag, size_t body, size_t len);

/* Walks the records (and the sub-records of heap records) of the dump. */
static int walk(odec *d, rec_fn rec, sub_fn sub)
{
    size_t at = 0, end;

    while (at < d->n && d->p[at])
        at++;
    if (at + 13 > d->n)
        return bad(d, at, "no header");
    d->id = (unsigned)rd(d->p + at + 1, 4);
    if (d->id != 4 && d->id != 8)
        return bad(d, at, "id size");
    if (memcmp(d->p, "JAVA PROFILE 1.0.3", 18) == 0)
        d->s->interleaved = 1;
    for (at += 13; at < d->n; at = end) {
        unsigned tag = d->p[at];
        size_t sat;
        if (at + 9 > d->n)
            return bad(d, at, "record header cut");
        end = at + 9 + (size_t)rd(d->p + at + 5, 4);
        if (end > d->n)
            return bad(d, at, "record cut");
        if (rec(d, tag, at + 9, end - at - 9))
            return -1;
        if (tag != 0x0C && tag != 0x1C)
            continue;
        for (sat = at + 9; sat < end;) {
            uint64_t z = subsize(d, sat, end);
            if (!z || z > end - sat)
                return bad(d, sat, "bad sub-record");
            if (sub(d, sat, (size_t)z))
                return -1;
            sat += (size_t)z;
        }
    }
    return 0;
}

static int index_rec(odec *d, unsigned tag, size_t body, size_t len)
{
    if (tag == 0x01 && len >= d->id) {
        oput(&d->strings, rd(d->p + body, d->id), body - 9);
        if (d->s->interleaved == 2)
            d->s->interleaved = 1;
    } else if (tag == 0x02 && len >= 8 + 2 * (size_t)d->id) {
        oput(&d->names, rd(d->p + body + 4, d->id), rd(d->p + body + 8 + d->id, d->id));
        if (!d->s->interleaved)
            d->s->interleaved = 2; /* a STRING after this one makes it 1 */
    }
    return 0;
}

static int index_sub(odec *d, size_t at, size_t size)
{
    (void)size;
    if (d->p[at] == 0x20)
        add_class(d, at);
    return 0;
}

static void need(odec *d, uint64_t sid)
{
    if (sid)
        oput(&d->needed, sid, 1);
}

static uint64_t hash_string(const odec *d, size_t rec)
{
    size_t len = (size_t)rd(d->p + rec + 5, 4);
    return XXH3_64bits(d->p + rec + 9, len) ^ 0x5354u;
}

static int items_rec(odec *d, unsigned tag, size_t body, size_t len)
{
    const uint8_t *b = d->p + body;
    const unsigned I = d->id;

    if (tag == 0x01 && len >= I)
        vpush(&d->s->strings, hash_string(d, body - 9));
    else if (tag == 0x02 && len >= 8 + 2 * (size_t)I)
        need(d, rd(b + 8 + I, I));
    else if (tag == 0x04 && len >= 4 * (size_t)I) {
        need(d, rd(b + I, I));
        need(d, rd(b + 2 * I, I));
        need(d, rd(b + 3 * I, I));
    } else if (tag == 0x0A && len >= 8 + 4 * (size_t)I) {
        need(d, rd(b + 8 + I, I));
        need(d, rd(b + 8 + 2 * I, I));
        need(d, rd(b + 8 + 3 * I, I));
    }
    return 0;
}

/* Counts the non-zero bytes of p[0..n) (at input offset `at`) about to be
 * zeroed or filled, and keeps the offset of the first. */
static void nonzero(uint64_t *count, uint64_t *first, const uint8_t *p, size_t n, size_t at)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (p[i]) {
            if (!*first || at + i < *first)
                *first = at + i;
            ++*count;
        }
}

static void hash_fill(XXH3_state_t *h, unsigned byte, uint64_t n)
{
    uint8_t buf[4096];

    memset(buf, (int)byte, sizeof buf);
    for (; n > sizeof buf; n -= sizeof buf)
        XXH3_64bits_update(h, buf, sizeof buf);
    XXH3_64bits_update(h, buf, (size_t)n);
}

/* An array as the output must hold it: its id, type and count, then its
 * payload after the model's verdict (a NODATA written --to-jvm is an array
 * of zeros, which no array rule touches). */
static void array_item(odec *d, size_t at, size_t size, int nodata)
{
    const unsigned I = d->id;
    const uint8_t *p = d->p + at;
    unsigned type = p[1 + I + 8], es = tsz(type, I);
    uint64_t count = rd(p + 1 + I + 4, 4), pay = nodata ? count * es : size - (1 + I + 9);
    uint64_t head[4], keep = pay;
    const o_arr_rule *v = verdict(d->m, type, pay);
    XXH3_state_t *h = XXH3_createState();

    if (!nodata && d->dups && pay >= 8) {
        if (d->npay == d->cpay) {
            d->cpay = d->cpay ? d->cpay * 2 : 1024;
            d->pay = realloc(d->pay, d->cpay * sizeof *d->pay);
            if (!d->pay)
                abort();
        }
        d->pay[d->npay][0] = type;
        d->pay[d->npay][1] = at + 1 + I + 9;
        d->pay[d->npay++][2] = pay;
    }
    if (nodata)
        v = verdict(&(o_model){0}, type, pay);
    if (v->action == OA_DROP) {
        d->s->arrays_dropped++;
        d->s->bytes_dropped += pay;
        XXH3_freeState(h);
        return;
    }
    if (v->action == OA_EMPTY) {
        d->s->bytes_dropped += pay;
        count = pay = keep = 0;
    }
    if (v->action == OA_ZERO || v->action == OA_FILL)
        keep = 0;
    if (v->action == OA_PREFIX && v->arg < count)
        keep = v->arg * es;
    d->s->bytes_zeroed += pay - keep;
    if (!nodata)
        nonzero(&d->s->nonzero_arrays, &d->s->first_nonzero_array,
                p + 1 + I + 9 + keep, (size_t)(pay - keep), at + 1 + I + 9 + (size_t)keep);
    head[0] = 'A';
    head[1] = rd(p + 1, I);
    head[2] = type;
    head[3] = count;
    XXH3_64bits_reset(h);
    XXH3_64bits_update(h, head, sizeof head);
    if (nodata)
        hash_fill(h, 0, pay);
    else {
        XXH3_64bits_update(h, p + 1 + I + 9, (size_t)keep);
        hash_fill(h, v->action == OA_FILL ? (unsigned)v->arg : 0, pay - keep);
    }
    vpush(&d->s->arrays, XXH3_64bits_digest(h));
    XXH3_freeState(h);
}

/* An instance with its primitive fields scrubbed as the model says; skipped
 * (counted unresolved) when its class chain does not cover its bytes. */
static void instance_item(odec *d, size_t at, size_t size)
{
    const unsigned I = d->id;
    size_t hdr = 1 + 2 * I + 8, len = size - hdr, pos = 0, depth;
    uint8_t *v = scratch(d, size);
    uint64_t cid = rd(d->p + at + 1 + I + 4, I), ix, nz = 0, first = 0;

    memcpy(v, d->p + at, size);
    for (depth = 0; cid && depth < 1000; depth++) {
        const oclass *c;
        size_t j, k;
        if (!oget(&d->cindex, cid, &ix))
            break;
        c = &d->classes[ix - 1];
        for (j = 0, k = c->fields; j < c->nfields; j++, k += I + 1) {
            unsigned t = d->p[k + I], z = tsz(t, I);
            if (pos + z > len)
                break;
            if (t != 2 && d->m->fields_zero && !(j < 64 && (c->keep >> j & 1))) {
                nonzero(&nz, &first, v + hdr + pos, z, at + hdr + pos);
                memset(v + hdr + pos, 0, z);
            }
            pos += z;
        }
        cid = c->super;
    }
    if (cid || pos != len) {
        d->s->unresolved++;
        return;
    }
    d->s->nonzero_fields += nz;
    if (first && (!d->s->first_nonzero_field || first < d->s->first_nonzero_field))
        d->s->first_nonzero_field = first;
    vpush(&d->s->instances, XXH3_64bits(v, size) ^ 'I');
}

/* A CLASS_DUMP: constant pool and static primitive values scrubbed. */
static void class_item(odec *d, size_t at, size_t size)
{
    const unsigned I = d->id;
    uint8_t *v = scratch(d, size);
    size_t st, fl, k;
    uint64_t n, j, ix = 0;
    const oclass *c;

    memcpy(v, d->p + at, size);
    class_parts(d, at, &st, &fl);
    oget(&d->cindex, rd(d->p + at + 1, I), &ix);
    c = ix ? &d->classes[ix - 1] : NULL;
    n = rd(d->p + at + 1 + 7 * I + 8, 2);
    for (k = at + 1 + 7 * I + 10, j = 0; j < n; j++) {
        unsigned t = d->p[k + 2];
        if (t != 2 && d->m->fields_zero) {
            nonzero(&d->s->nonzero_fields, &d->s->first_nonzero_field, v + (k - at) + 3,
                    tsz(t, I), k + 3);
            memset(v + (k - at) + 3, 0, tsz(t, I));
        }
        k += 3 + tsz(t, I);
    }
    n = rd(d->p + st, 2);
    for (k = st + 2, j = 0; j < n; j++) {
        unsigned t = d->p[k + I];
        need(d, rd(d->p + k, I));
        if (t != 2 && d->m->fields_zero && !(c && j < 64 && (c->skeep >> j & 1))) {
            nonzero(&d->s->nonzero_fields, &d->s->first_nonzero_field,
                    v + (k - at) + I + 1, tsz(t, I), k + I + 1);
            memset(v + (k - at) + I + 1, 0, tsz(t, I));
        }
        k += I + 1 + tsz(t, I);
    }
    n = rd(d->p + fl, 2);
    for (k = fl + 2, j = 0; j < n; j++, k += I + 1)
        need(d, rd(d->p + k, I));
    vpush(&d->s->classes, XXH3_64bits(v, size) ^ 'C');
}

static int items_sub(odec *d, size_t at, size_t size)
{
    unsigned tag = d->p[at];
    int dropped = d->m->drop_zi && (d->heap == 'Z' || d->heap == 'I');
    uint64_t id = size > d->id ? rd(d->p + at + 1, d->id) : 0, yes;

    if (tag == 0x08 && d->m->drop_zi && !d->dropped_any && id)
        oput(&d->threads, id, 1);
    if (tag >= 0x21 && tag <= 0x23 ? 1 : tag == 0xC3) {
        if (dropped && oget(&d->threads, id, &yes))
            dropped = 0;
        d->dropped_any |= dropped;
    }
    switch (tag) {
    case 0xFE:
        d->heap = (uint32_t)rd(d->p + at + 1, 4);
        if (!d->m->to_jvm)
            need(d, rd(d->p + at + 5, d->id));
        break;
    case 0x20:
        class_item(d, at, size);
        break;
    case 0x21:
        if (!dropped)
            instance_item(d, at, size);
        break;
    case 0x22:
        if (!dropped)
            vpush(&d->s->obj_arrays, XXH3_64bits(d->p + at, size) ^ 'O');
        break;
    case 0x23:
        if (!dropped)
            array_item(d, at, size, 0);
        break;
    case 0xC3:
        if (dropped)
            break;
        if (d->m->to_jvm)
            array_item(d, at, size, 1);
        else
            vpush(&d->s->arrays, XXH3_64bits(d->p + at, size) ^ 'N');
        break;
    default:
        break;
    }
    return 0;
}

/* ---- duplicates, by brute force --------------------------------------------- */

static const uint8_t *dup_base; /* for the comparator: one test per process */

static int cmp_payload(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;

    if (x[0] != y[0])
        return x[0] < y[0] ? -1 : 1;
    if (x[2] != y[2])
        return x[2] < y[2] ? -1 : 1;
    return memcmp(dup_base + x[1], dup_base + y[1], (size_t)x[2]);
}

/* Sorts the payloads by type, length and contents: equal ones end up next
 * to each other, and every one after the first of its run is a duplicate. */
static void count_dups(odec *d)
{
    size_t i, j;
    uint64_t wasted = 0;

    dup_base = d->p;
    if (d->npay)
        qsort(d->pay, d->npay, sizeof *d->pay, cmp_payload);
    for (i = 0; i < d->npay; i = j) {
        uint64_t w = 0;
        for (j = i + 1; j < d->npay && d->pay[j][0] == d->pay[i][0] &&
                        d->pay[j][2] == d->pay[i][2];
             j++)
            if (cmp_payload(d->pay[j - 1], d->pay[j]) == 0) {
                d->s->dup_arrays[d->pay[i][0]]++;
                d->s->dup_bytes[d->pay[i][0]] += d->pay[i][2];
                w += d->pay[i][2];
            }
        if (w > wasted)
            wasted = w;
    }
    d->s->dup_top_wasted = wasted;
}

/* ---- entry points ---------------------------------------------------------- */

static o_summary summarize(const uint8_t *p, size_t n, const o_model *m, int dups)
{
    o_summary s;
    odec d;
    size_t i;

    memset(&s, 0, sizeof s);
    memset(&d, 0, sizeof d);
    s.ok = 1;
    d.p = p;
    d.n = n;
    d.m = m;
    d.s = &s;
    d.dups = dups;
    if (walk(&d, index_rec, index_sub) == 0 && walk(&d, items_rec, items_sub) == 0) {
        if (s.interleaved == 2)
            s.interleaved = 0;
        s.strings_in = d.strings.n;
        for (i = 0; i < d.needed.cap; i++) {
            uint64_t off;
            if (d.needed.k[i] && oget(&d.strings, d.needed.k[i], &off))
                vpush(&s.needed, hash_string(&d, (size_t)off));
        }
        if (dups)
            count_dups(&d);
    }
    vsort(&s.arrays);
    vsort(&s.instances);
    vsort(&s.classes);
    vsort(&s.obj_arrays);
    vsort(&s.strings);
    vsort(&s.needed);
    ofree(&d.strings);
    ofree(&d.names);
    ofree(&d.cindex);
    ofree(&d.needed);
    ofree(&d.threads);
    free(d.classes);
    free(d.scratch);
    free(d.pay);
    return s;
}

o_summary o_expect(const uint8_t *in, size_t n, const o_model *m, int dups)
{
    return summarize(in, n, m, dups);
}

o_summary o_actual(const uint8_t *out, size_t n)
{
    o_model none;

    o_model_preset(&none, "none");
    return summarize(out, n, &none, 0);
}

void o_summary_free(o_summary *s)
{
    free(s->arrays.v);
    free(s->instances.v);
    free(s->classes.v);
    free(s->obj_arrays.v);
    free(s->strings.v);
    free(s->needed.v);
    memset(s, 0, sizeof *s);
}

/* Items of sorted `a` missing from sorted `b` (as multisets). */
static size_t missing(const o_vec *a, const o_vec *b)
{
    size_t i = 0, j = 0, miss = 0;

    while (i < a->n) {
        if (j < b->n && b->v[j] == a->v[i])
            i++, j++;
        else if (j < b->n && b->v[j] < a->v[i])
            j++;
        else
            i++, miss++;
    }
    return miss;
}

#define DIFF(...) do { snprintf(msg, cap, __VA_ARGS__); return 1; } while (0)

static int same_items(const char *what, const o_vec *w, const o_vec *g, char *msg, size_t cap)
{
    size_t lost = missing(w, g), extra = missing(g, w);

    if (lost || extra)
        DIFF("%s: %zu expected, %zu found; %zu expected ones missing or different, %zu "
             "unexpected",
             what, w->n, g->n, lost, extra);
    return 0;
}

static int check_strings(const o_summary *w, const o_summary *g, const o_model *m, char *msg,
                         size_t cap)
{
    size_t k;

    if ((k = missing(&w->needed, &g->strings)))
        DIFF("strings: %zu in use by kept records missing (or changed)", k);
    if ((k = missing(&g->strings, &w->strings)))
        DIFF("strings: %zu written that the input does not hold", k);
    if (!m->drop_unused)
        return same_items("strings (keep)", &w->strings, &g->strings, msg, cap);
    if (!w->interleaved)
        return same_items("strings (drop-unused)", &w->needed, &g->strings, msg, cap);
    return 0;
}

static int check_stats(const o_summary *w, const o_summary *g, const hs_stats *st, int dups,
                       int count_nonzero, char *msg, size_t cap)
{
    unsigned t;

#define STAT(field, want)                                                            \
    do {                                                                             \
        if (st->field != (want))                                                     \
            DIFF("hs_stats." #field " is %llu, the input says %llu",                 \
                 (unsigned long long)st->field, (unsigned long long)(want));         \
    } while (0)
    STAT(arrays_dropped, w->arrays_dropped);
    STAT(payload_bytes_zeroed, w->bytes_zeroed);
    STAT(payload_bytes_dropped, w->bytes_dropped);
    STAT(strings_in, w->strings_in);
    STAT(strings_out, g->strings.n);
    STAT(strings_dropped, w->strings_in - g->strings.n);
    if (count_nonzero) {
        STAT(nonzero_array_bytes, w->nonzero_arrays);
        STAT(first_nonzero_array, w->first_nonzero_array);
        if (!w->unresolved) {
            STAT(nonzero_field_bytes, w->nonzero_fields);
            STAT(first_nonzero_field, w->first_nonzero_field);
        }
    }
    if (!dups)
        return 0;
    for (t = 0; t < 12; t++)
        if (st->dup_arrays[t] != w->dup_arrays[t] || st->dup_bytes[t] != w->dup_bytes[t])
            DIFF("hs_stats.dup_arrays/dup_bytes[type %u] are %llu/%llu, the input says "
                 "%llu/%llu",
                 t, (unsigned long long)st->dup_arrays[t], (unsigned long long)st->dup_bytes[t],
                 (unsigned long long)w->dup_arrays[t], (unsigned long long)w->dup_bytes[t]);
    STAT(dup_top[0].wasted, w->dup_top_wasted);
#undef STAT
    return 0;
}

int o_compare(const o_summary *want, const o_summary *got, const o_model *m,
              const hs_stats *st, int dups, int count_nonzero, char *msg, size_t cap)
{
    if (!want->ok)
        DIFF("the input: %s", want->error);
    if (!got->ok)
        DIFF("the output: %s", got->error);
    if (want->unresolved != got->unresolved)
        DIFF("instances without their classes: %llu in, %llu out",
             (unsigned long long)want->unresolved, (unsigned long long)got->unresolved);
    if (same_items("primitive arrays", &want->arrays, &got->arrays, msg, cap) ||
        same_items("instances", &want->instances, &got->instances, msg, cap) ||
        same_items("class dumps", &want->classes, &got->classes, msg, cap) ||
        same_items("object arrays", &want->obj_arrays, &got->obj_arrays, msg, cap) ||
        check_strings(want, got, m, msg, cap) || check_stats(want, got, st, dups, count_nonzero, msg, cap))
        return 1;
    msg[0] = 0;
    return 0;
}
