/* SPDX-License-Identifier: Apache-2.0 */
/*
 * walk.c - the tests' independent reader of a dump (helpers.h, "walk"):
 * a summary of what it holds (walk_dump) and a decoder of instance and
 * static fields (check_fields), written apart from the library on purpose.
 */
#include "helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

/* A small growable hash set of ids, for the string checks. */
typedef struct {
    uint64_t *k;
    uint8_t *used;
    size_t cap, n;
} idset;

static size_t idset_slot(uint64_t id, size_t cap)
{
    return (size_t)((id * 0x9E3779B97F4A7C15ull) >> 20) & (cap - 1);
}

static int idset_has(const idset *s, uint64_t id)
{
    size_t i;
    if (!s->cap)
        return 0;
    for (i = idset_slot(id, s->cap); s->used[i]; i = (i + 1) & (s->cap - 1))
        if (s->k[i] == id)
            return 1;
    return 0;
}

static void idset_add(idset *s, uint64_t id)
{
    size_t i;
    if (idset_has(s, id))
        return;
    if ((s->n + 1) * 2 > s->cap) {
        idset old = *s;
        size_t j;
        s->cap = s->cap ? s->cap * 2 : 1024;
        s->k = calloc(s->cap, sizeof *s->k);
        s->used = calloc(s->cap, 1);
        s->n = 0;
        for (j = 0; j < old.cap; j++)
            if (old.used[j])
                idset_add(s, old.k[j]);
        free(old.k);
        free(old.used);
    }
    for (i = idset_slot(id, s->cap); s->used[i]; i = (i + 1) & (s->cap - 1))
        ;
    s->used[i] = 1;
    s->k[i] = id;
    s->n++;
}

static void idset_free(idset *s)
{
    free(s->k);
    free(s->used);
}

typedef struct {
    uint64_t *v;
    size_t n, cap;
} idvec;

static void idvec_push(idvec *v, uint64_t id)
{
    if (v->n == v->cap) {
        v->cap = v->cap ? v->cap * 2 : 1024;
        v->v = realloc(v->v, v->cap * sizeof *v->v);
    }
    v->v[v->n++] = id;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int ids_contain(const uint64_t *ids, size_t n, uint64_t id)
{
    return n && bsearch(&id, ids, n, sizeof id, cmp_u64) != NULL;
}

typedef struct {
    const uint8_t *p;
    size_t n, at;
    unsigned id;
    walk_result *w;
    XXH3_state_t *h, *happ;
    unsigned flags;
    idset defined, used, string_ids;
    idvec dropped, roots, ends;
} walker;

static void use_string(walker *k, uint64_t id)
{
    if (id && !idset_has(&k->defined, id))
        k->w->string_refs_undefined++;
    idset_add(&k->used, id);
}

static uint64_t rd(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    while (n--)
        v = v << 8 | *p++;
    return v;
}

static int fail(walker *k, const char *what)
{
    snprintf(k->w->error, sizeof k->w->error, "byte %zu: %s", k->at, what);
    return -1;
}

static unsigned tsize(unsigned t, unsigned id)
{
    switch (t) {
    case 1: case 2: return id;
    case 4: case 8: return 1;
    case 5: case 9: return 2;
    case 6: case 10: return 4;
    case 7: case 11: return 8;
    default: return 0;
    }
}

/* Size of the sub-record at p (tag included), or 0 when it is invalid. */
static uint64_t sub_size(const uint8_t *p, size_t avail, unsigned id)
{
    uint64_t k, n, j;
    unsigned w;

#define NEED(x) do { if ((uint64_t)(x) > avail) return 0; } while (0)
    NEED(1);
    switch (p[0]) {
    case 0xFF: case 0x05: case 0x07: case 0x89: case 0x8A: case 0x8B: case 0x8C:
    case 0x8D: case 0x90: return 1 + id;
    case 0x01: return 1 + 2 * id;
    case 0x04: case 0x06: return 1 + id + 4;
    case 0x02: case 0x03: case 0x08: case 0x8E: return 1 + id + 8;
    case 0xFE: return 1 + 4 + id;
    case 0xC3: return 1 + id + 9;
    case 0x21:
        NEED(1 + 2 * id + 8);
        return 1 + 2 * id + 8 + rd(p + 1 + 2 * id + 4, 4);
    case 0x22:
        NEED(1 + 2 * id + 8);
        return 1 + 2 * id + 8 + rd(p + 1 + id + 4, 4) * id;
    case 0x23:
        NEED(1 + id + 9);
        w = tsize(p[1 + id + 8], id);
        if (!w || p[1 + id + 8] < 4)
            return 0;
        return 1 + id + 9 + rd(p + 1 + id + 4, 4) * w;
    case 0x20:
        k = 1 + 7 * id + 8;
        NEED(k + 2);
        n = rd(p + k, 2);
        k += 2;
        for (j = 0; j < n; j++) {
            NEED(k + 3);
            if (!(w = tsize(p[k + 2], id)))
                return 0;
            k += 3 + w;
        }
        NEED(k + 2);
        n = rd(p + k, 2);
        k += 2;
        for (j = 0; j < n; j++) {
            NEED(k + id + 1);
            if (!(w = tsize(p[k + id], id)))
                return 0;
            k += id + 1 + w;
        }
        NEED(k + 2);
        n = rd(p + k, 2);
        k += 2;
        for (j = 0; j < n; j++) {
            NEED(k + id + 1);
            if (!tsize(p[k + id], id))
                return 0;
            k += id + 1;
        }
        return k;
    default: return 0;
    }
#undef NEED
}

static void hash_zeros(XXH3_state_t *h, uint64_t n)
{
    static const uint8_t zeros[4096];
    while (n) {
        size_t k = n < sizeof zeros ? (size_t)n : sizeof zeros;
        XXH3_64bits_update(h, zeros, k);
        n -= k;
    }
}

static int walk_heap(walker *k, size_t end)
{
    walk_result *w = k->w;
    uint32_t heap = 0;
    uint64_t subs = 0;
    size_t start = k->at;

    while (k->at < end) {
        const uint8_t *p = k->p + k->at;
        uint64_t sz = sub_size(p, end - k->at, k->id);
        unsigned tag = p[0];
        uint8_t hb[4];

        if (!sz)
            return fail(k, "bad or overlong sub-record");
        if (sz > end - k->at)
            return fail(k, "sub-record runs past its heap record");
        w->subrecords++;
        if (tag == 0xFE) {
            w->heap_infos++;
            heap = (uint32_t)rd(p + 1, 4);
            use_string(k, rd(p + 5, k->id));
            k->at += (size_t)sz;
            continue;
        }
        if ((k->flags & WALK_COLLECT) && (tag == 0x20 || tag == 0x21 || tag == 0x22 ||
                                          tag == 0x23 || tag == 0xC3))
            idvec_push(&k->ends, k->at + sz);
        if (tag == 0x21 || tag == 0x22 || tag == 0x23 || tag == 0xC3) {
            int slot = heap == 0 ? 0 : heap == 'A' ? 1 : heap == 'Z' ? 2 : heap == 'I' ? 3 : 4;
            w->objects_in_heap[slot]++;
            if ((slot == 2 || slot == 3) && (k->flags & WALK_COLLECT))
                idvec_push(&k->dropped, rd(p + 1, k->id));
            if (slot == 1) {
                size_t hdr = tag == 0x23 ? 1 + k->id + 9 : (size_t)sz;
                XXH3_64bits_update(k->happ, p, hdr);
                if (tag == 0x23 && (k->flags & WALK_ZERO_PAYLOADS))
                    hash_zeros(k->happ, sz - hdr);
                else
                    XXH3_64bits_update(k->happ, p + hdr, (size_t)sz - hdr);
            }
        } else if (tag == 0x20) {
            /* field names: walk the class dump's tables */
            uint64_t q = 1 + 7 * k->id + 8, j, cnt;
            cnt = rd(p + q, 2);
            q += 2;
            for (j = 0; j < cnt; j++)
                q += 3 + tsize(p[q + 2], k->id);
            cnt = rd(p + q, 2);
            q += 2;
            for (j = 0; j < cnt; j++) {
                use_string(k, rd(p + q, k->id));
                q += k->id + 1 + tsize(p[q + k->id], k->id);
            }
            cnt = rd(p + q, 2);
            q += 2;
            for (j = 0; j < cnt; j++) {
                use_string(k, rd(p + q, k->id));
                q += k->id + 1;
            }
        } else if ((k->flags & WALK_COLLECT)) {
            idvec_push(&k->roots, rd(p + 1, k->id));
        }
        subs++;
        hb[0] = (uint8_t)(heap >> 24), hb[1] = (uint8_t)(heap >> 16);
        hb[2] = (uint8_t)(heap >> 8), hb[3] = (uint8_t)heap;
        XXH3_64bits_update(k->h, hb, 4);
        if (tag == 0x23) {
            size_t hdr = 1 + k->id + 9;
            size_t j;
            w->primitive_arrays++;
            w->payload_bytes += sz - hdr;
            for (j = hdr; j < sz; j++)
                w->nonzero_payload_bytes += p[j] != 0;
            if (k->flags & WALK_ZERO_PAYLOADS) {
                XXH3_64bits_update(k->h, p, hdr);
                hash_zeros(k->h, sz - hdr);
            } else {
                XXH3_64bits_update(k->h, p, (size_t)sz);
            }
        } else {
            XXH3_64bits_update(k->h, p, (size_t)sz);
            if (tag == 0x21)
                w->instances++;
            else if (tag == 0x22)
                w->object_arrays++;
            else if (tag == 0x20)
                w->class_dumps++;
            else if (tag == 0xC3)
                w->primitive_arrays++;
            else
                w->roots++;
        }
        k->at += (size_t)sz;
    }
    if (end - start > w->max_segment)
        w->max_segment = end - start;
    if (subs > 1 && end - start > w->max_multi_segment)
        w->max_multi_segment = end - start;
    if (subs == 0)
        w->empty_heap_records++;
    return 0;
}

walk_result walk_dump(const uint8_t *p, size_t n, unsigned flags)
{
    walk_result w;
    walker k;
    const uint8_t *nul;
    unsigned last_tag = 0;

    memset(&w, 0, sizeof w);
    memset(&k, 0, sizeof k);
    k.p = p;
    k.n = n;
    k.w = &w;
    k.flags = flags;
    nul = memchr(p, 0, n < 24 ? n : 24);
    if (!nul || (size_t)(nul - p) + 13 > n) {
        snprintf(w.error, sizeof w.error, "bad header");
        return w;
    }
    memcpy(w.version, p, (size_t)(nul - p));
    k.at = (size_t)(nul - p) + 1;
    k.id = w.idsize = (unsigned)rd(p + k.at, 4);
    k.at += 12;
    k.h = XXH3_createState();
    XXH3_64bits_reset(k.h);
    k.happ = XXH3_createState();
    XXH3_64bits_reset(k.happ);
    XXH3_64bits_update(k.h, p + k.at - 12, 4);
    while (k.at < n) {
        unsigned tag;
        uint64_t len;
        if (n - k.at < 9) {
            fail(&k, "truncated record header");
            goto out;
        }
        tag = p[k.at];
        len = rd(p + k.at + 5, 4);
        if (len > n - k.at - 9) {
            fail(&k, "record runs past the end");
            goto out;
        }
        w.records++;
        last_tag = tag;
        if (tag == 0x0C || tag == 0x1C) {
            size_t end = k.at + 9 + (size_t)len;
            w.heap_records++;
            k.at += 9;
            if (walk_heap(&k, end) != 0)
                goto out;
            continue;
        }
        if (tag == 0x2C) {
            w.heap_dump_ends++;
        } else if (tag == 0x01) {
            w.strings++;
            idset_add(&k.defined, rd(p + k.at + 9, k.id));
            idset_add(&k.string_ids, rd(p + k.at + 9, k.id));
            if (!(flags & WALK_NO_STRINGS))
                XXH3_64bits_update(k.h, p + k.at, 1), XXH3_64bits_update(k.h, p + k.at + 9, (size_t)len);
        } else {
            const uint8_t *b = p + k.at + 9;
            XXH3_64bits_update(k.h, p + k.at, 1);
            XXH3_64bits_update(k.h, b, (size_t)len);
            if (tag == 0x02 && len >= 8 + 2 * k.id)
                use_string(&k, rd(b + 4 + k.id + 4, k.id));
            if (tag == 0x04 && len >= 8 + 4 * k.id)
                use_string(&k, rd(b + k.id, k.id)), use_string(&k, rd(b + 2 * k.id, k.id)),
                    use_string(&k, rd(b + 3 * k.id, k.id));
            if (tag == 0x0A && len >= 8 + 4 * k.id)
                use_string(&k, rd(b + 8 + k.id, k.id)),
                    use_string(&k, rd(b + 8 + 2 * k.id, k.id)),
                    use_string(&k, rd(b + 8 + 3 * k.id, k.id));
        }
        k.at += 9 + (size_t)len;
    }
    w.ok = 1;
    w.ends_with_heap_dump_end = last_tag == 0x2C;
out:
    {
        size_t j;
        for (j = 0; j < k.string_ids.cap; j++)
            if (k.string_ids.used[j] && !idset_has(&k.used, k.string_ids.k[j]))
                w.strings_unused++;
    }
    w.digest = XXH3_64bits_digest(k.h);
    w.digest_app = XXH3_64bits_digest(k.happ);
    XXH3_freeState(k.h);
    XXH3_freeState(k.happ);
    idset_free(&k.defined);
    idset_free(&k.used);
    idset_free(&k.string_ids);
    if (k.dropped.n)
        qsort(k.dropped.v, k.dropped.n, sizeof(uint64_t), cmp_u64);
    w.dropped_heap_ids = k.dropped.v;
    w.n_dropped_heap_ids = k.dropped.n;
    w.root_ids = k.roots.v;
    w.n_root_ids = k.roots.n;
    w.object_ends = k.ends.v;
    w.n_object_ends = k.ends.n;
    return w;
}

void walk_free(walk_result *w)
{
    free(w->dropped_heap_ids);
    free(w->root_ids);
    free(w->object_ends);
    w->dropped_heap_ids = w->root_ids = w->object_ends = NULL;
}

/* ---- fields: an independent decoder of instance and static fields -------- */

typedef struct {
    uint64_t *k, *v;
    size_t cap, n;
} u64map;

static uint64_t *u64map_get(const u64map *m, uint64_t key)
{
    size_t i;
    if (!m->cap)
        return NULL;
    for (i = idset_slot(key, m->cap); m->k[i] != UINT64_MAX; i = (i + 1) & (m->cap - 1))
        if (m->k[i] == key)
            return &m->v[i];
    return NULL;
}

static void u64map_put(u64map *m, uint64_t key, uint64_t val)
{
    size_t i;
    uint64_t *v = u64map_get(m, key);

    if (v) {
        *v = val;
        return;
    }
    if ((m->n + 1) * 2 > m->cap) {
        u64map old = *m;
        size_t j;
        m->cap = m->cap ? m->cap * 2 : 1024;
        m->k = malloc(m->cap * sizeof *m->k);
        m->v = malloc(m->cap * sizeof *m->v);
        memset(m->k, 0xff, m->cap * sizeof *m->k);
        m->n = 0;
        for (j = 0; j < old.cap; j++)
            if (old.k[j] != UINT64_MAX)
                u64map_put(m, old.k[j], old.v[j]);
        free(old.k);
        free(old.v);
    }
    for (i = idset_slot(key, m->cap); m->k[i] != UINT64_MAX; i = (i + 1) & (m->cap - 1))
        ;
    m->k[i] = key;
    m->v[i] = val;
    m->n++;
}

static void u64map_free(u64map *m)
{
    free(m->k);
    free(m->v);
}

typedef struct {
    const uint8_t *p;
    unsigned id;
    u64map strings; /* id -> offset of the STRING record body */
    u64map names;   /* class id -> name string id */
    u64map classes; /* class id -> offset of its CLASS_DUMP */
} fdec;

/* Does string `sid` read as `want` (class names: '/' and '.' alike)? */
static int str_is(const fdec *d, uint64_t sid, const char *want)
{
    const uint64_t *off = u64map_get(&d->strings, sid);
    size_t n, i;
    const uint8_t *t;

    if (!off)
        return 0;
    n = (size_t)rd(d->p + *off - 4, 4) - d->id;
    t = d->p + *off + d->id;
    if (n != strlen(want))
        return 0;
    for (i = 0; i < n; i++)
        if (!(t[i] == (uint8_t)want[i] || (t[i] == '/' && want[i] == '.')))
            return 0;
    return 1;
}

/* The privacy preset's keep list, as tests/../src/lib/rulefile.c documents it. */
static int kept_field(const fdec *d, uint64_t class_id, uint64_t name_id)
{
    const uint64_t *cn = u64map_get(&d->names, class_id);
    if (!cn)
        return 0;
    if (str_is(d, *cn, "java.lang.String"))
        return str_is(d, name_id, "coder");
    if (str_is(d, *cn, "java.lang.Class$Atomic"))
        return str_is(d, name_id, "annotationDataOffset") ||
               str_is(d, name_id, "annotationTypeOffset");
    if (str_is(d, *cn, "java.util.concurrent.FutureTask"))
        return str_is(d, name_id, "runnerOffset") || str_is(d, name_id, "waitersOffset");
    return 0;
}

static uint64_t mix(uint64_t a, uint64_t b, uint64_t c)
{
    uint64_t t[3] = {a, b, c};
    return XXH3_64bits(t, sizeof t);
}

/* Offset of the instance-field table of the class dump at `cd`. */
static size_t inst_table(const fdec *d, size_t cd)
{
    const uint8_t *p = d->p;
    size_t k = cd + 1 + 7 * (size_t)d->id + 8, j, cnt;

    cnt = (size_t)rd(p + k, 2);
    k += 2;
    for (j = 0; j < cnt; j++)
        k += 3 + tsize(p[k + 2], d->id);
    cnt = (size_t)rd(p + k, 2);
    k += 2;
    for (j = 0; j < cnt; j++)
        k += d->id + 1 + tsize(p[k + d->id], d->id);
    return k;
}

static void field_sub(fdec *d, size_t at, fields_result *r)
{
    const uint8_t *p = d->p;
    unsigned id = d->id;

    if (p[at] == 0x20) { /* statics and constants */
        uint64_t cls = rd(p + at + 1, id);
        size_t k = at + 1 + 7 * (size_t)id + 8, j, cnt, b;
        cnt = (size_t)rd(p + k, 2);
        k += 2;
        for (j = 0; j < cnt; j++) {
            unsigned t = p[k + 2], w = tsize(t, id);
            for (b = 0; b < w && t != 2; b++)
                r->nonzero_static_bytes += p[k + 3 + b] != 0;
            k += 3 + w;
        }
        cnt = (size_t)rd(p + k, 2);
        k += 2;
        for (j = 0; j < cnt; j++) {
            uint64_t name = rd(p + k, id);
            unsigned t = p[k + id], w = tsize(t, id);
            if (t == 2)
                r->refs ^= mix(cls, j, rd(p + k + id + 1, id));
            else if (!kept_field(d, cls, name))
                for (b = 0; b < w; b++)
                    r->nonzero_static_bytes += p[k + id + 1 + b] != 0;
            k += id + 1 + w;
        }
    } else if (p[at] == 0x21) {
        uint64_t obj = rd(p + at + 1, id), cls = rd(p + at + 1 + id + 4, id);
        size_t len = (size_t)rd(p + at + 1 + 2 * id + 4, 4), v = at + 1 + 2 * (size_t)id + 8;
        size_t end = v + len, index = 0;
        uint64_t c = cls;
        while (c) { /* own class first, then each superclass */
            const uint64_t *cd = u64map_get(&d->classes, c);
            size_t k, j, cnt, b;
            if (!cd) {
                r->instances_missing_class++;
                return;
            }
            k = inst_table(d, (size_t)*cd);
            cnt = (size_t)rd(p + k, 2);
            k += 2;
            for (j = 0; j < cnt; j++, index++) {
                uint64_t name = rd(p + k, id);
                unsigned t = p[k + id], w = tsize(t, id);
                if (v + w > end) {
                    r->layout_mismatches++;
                    return;
                }
                if (t == 2)
                    r->refs ^= mix(obj, index, rd(p + v, id));
                else if (!kept_field(d, c, name))
                    for (b = 0; b < w; b++)
                        r->nonzero_field_bytes += p[v + b] != 0;
                v += w;
                k += id + 1;
            }
            c = rd(p + (size_t)*cd + 1 + id + 4, id); /* super */
        }
        if (v != end)
            r->layout_mismatches++;
        r->instances++;
    }
}

fields_result check_fields(const uint8_t *p, size_t n)
{
    fields_result r;
    fdec d;
    size_t at, pass;
    const uint8_t *nul = memchr(p, 0, n < 24 ? n : 24);

    memset(&r, 0, sizeof r);
    memset(&d, 0, sizeof d);
    d.p = p;
    d.id = (unsigned)rd(nul + 1, 4);
    for (pass = 0; pass < 2; pass++) {
        for (at = (size_t)(nul - p) + 13; at + 9 <= n;) {
            unsigned tag = p[at];
            size_t len = (size_t)rd(p + at + 5, 4), b = at + 9, e = b + len;
            if (pass == 0 && tag == 0x01)
                u64map_put(&d.strings, rd(p + b, d.id), b);
            if (pass == 0 && tag == 0x02)
                u64map_put(&d.names, rd(p + b + 4, d.id), rd(p + b + 4 + d.id + 4, d.id));
            if (tag == 0x0C || tag == 0x1C)
                while (b < e) {
                    uint64_t sz = sub_size(p + b, e - b, d.id);
                    if (!sz)
                        break;
                    if (pass == 0 && p[b] == 0x20)
                        u64map_put(&d.classes, rd(p + b + 1, d.id), b);
                    if (pass == 1)
                        field_sub(&d, b, &r);
                    b += (size_t)sz;
                }
            at = e;
        }
    }
    u64map_free(&d.strings);
    u64map_free(&d.names);
    u64map_free(&d.classes);
    return r;
}

/* sub_size for the tests' other decoders (tests/unit/cutscan.c), so there is one
 * table of sub-record sizes. */
uint64_t walk_sub_size(const uint8_t *p, size_t avail, unsigned idsize)
{
    return sub_size(p, avail, idsize);
}
