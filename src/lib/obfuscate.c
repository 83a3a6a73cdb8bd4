/* SPDX-License-Identifier: Apache-2.0 */
/*
 * obfuscate.c - the name generator behind --obfuscate-names (the what and
 * why are in obfuscate.h; deobf.c writes the names it gives).
 *
 * Every name is held once (names.c), by ordinal: a class by its dotted
 * original name, a member by (class, kind, name). A name given stays the
 * name of that original all through the run, so two LOAD_CLASS records of
 * one name (two class loaders), two CLASS_DUMPs of one class (two heap
 * dumps) or two frames of one method agree, and the mapping has one line
 * for each.
 */
#include "obfuscate.h"

#include <stdio.h> /* snprintf */
#include <string.h>

#include "alloc.h"
#include "format.h"

#define KIND_FIELD 0
#define KIND_METHOD 1
#define PACKAGE "o." /* the package of every renamed class: see obfuscate.h */
#define NO_IDX UINT32_MAX

void hs_obf_init(hs_obf *o, const hs_alloc *a)
{
    memset(o, 0, sizeof *o);
    o->a = a;
    hs_names_init(&o->names, a);
    hs_idmap_init(&o->by_class, a);
    hs_idmap_init(&o->by_member, a);
}

void hs_obf_free(hs_obf *o)
{
    if (!o->a)
        return;
    hs_names_free(&o->names);
    hs_idmap_free(&o->by_class);
    hs_idmap_free(&o->by_member);
    hs_alloc_free(o->a, o->cls);
    hs_alloc_free(o->a, o->mem);
    hs_alloc_free(o->a, o->buf);
    memset(o, 0, sizeof *o);
}

size_t hs_obf_gen(uint64_t k, char *buf)
{
    char t[16];
    size_t n = 0, i;
    uint64_t v = k;

    /* bijective base 26: a..z, then aa..zz, aaa...; 14 letters take 2^64 */
    do {
        t[n++] = (char)('a' + v % 26);
        v = v / 26;
    } while (v-- > 0);
    for (i = 0; i < n; i++)
        buf[i] = t[n - 1 - i];
    buf[n] = 0;
    return n;
}

static const char *const keep_packages[] = {"java.",    "javax.",  "jdk.",     "sun.",
                                            "com.sun.", "android.", "dalvik.", "libcore."};
static const char *const primitives[] = {"boolean", "byte", "char", "short", "int",
                                         "long",    "float", "double", "void"};

int hs_obf_keep(const char *s, size_t n)
{
    size_t i;

    for (i = 0; i < sizeof keep_packages / sizeof *keep_packages; i++) {
        size_t k = strlen(keep_packages[i]);
        if (n > k && memcmp(s, keep_packages[i], k) == 0)
            return 1;
    }
    for (i = 0; i < sizeof primitives / sizeof *primitives; i++)
        if (n == strlen(primitives[i]) && memcmp(s, primitives[i], n) == 0)
            return 1;
    return 0;
}

/* ---- what a mapping line can carry ------------------------------------------- */

static int plain_chars(const char *s, size_t n, const char *bad)
{
    size_t i;

    if (!n)
        return 0;
    for (i = 0; i < n; i++)
        if ((uint8_t)s[i] < 0x21 || (uint8_t)s[i] == 0x7f || strchr(bad, s[i]))
            return 0;
    return 1;
}

static int writable(hs_obf *o, const char *s, size_t n, const char *bad)
{
    if (plain_chars(s, n, bad))
        return 1;
    o->unwritable++;
    return 0;
}

/* ---- tables --------------------------------------------------------------------- */

static int grow(hs_obf *o, void **p, size_t *cap, size_t n, size_t size)
{
    size_t c;
    void *q;

    if (n < *cap)
        return 0;
    c = *cap ? *cap * 2 : 64;
    if (!(q = hs_realloc(o->a, *p, *cap * size, c * size)))
        return -1;
    *p = q;
    *cap = c;
    return 0;
}

static int intern(hs_obf *o, const char *s, size_t n, uint32_t *ord)
{
    if (hs_names_intern(&o->names, s, n, ord) < 0) {
        o->nomem = 1;
        return -1;
    }
    return 0;
}

static const char *text(const hs_obf *o, uint32_t ord)
{
    return hs_names_text(&o->names, ord, NULL);
}

/* The dotted form of the class s[n] (HotSpot's '/' as '.') in o->buf. */
static const char *dotted(hs_obf *o, const char *s, size_t n)
{
    size_t i;

    if (n + 1 > o->buf_cap) {
        char *b = hs_realloc(o->a, o->buf, 0, n + 64);
        if (!b) {
            o->nomem = 1;
            return NULL;
        }
        o->buf = b;
        o->buf_cap = n + 64;
    }
    for (i = 0; i < n; i++)
        o->buf[i] = s[i] == '/' ? '.' : s[i];
    o->buf[n] = 0;
    return o->buf;
}

/* The index of the renamed class of dotted name s[n], added when new;
 * NO_IDX out of memory. */
static uint32_t class_of(hs_obf *o, const char *s, size_t n)
{
    char name[24];
    uint32_t ord, obf;
    const uint64_t *v;
    hs_obf_class *c;

    if (intern(o, s, n, &ord) != 0)
        return NO_IDX;
    if ((v = hs_idmap_get(&o->by_class, ord)))
        return (uint32_t)*v - 1;
    memcpy(name, PACKAGE, sizeof PACKAGE - 1);
    if (intern(o, name, sizeof PACKAGE - 1 + hs_obf_gen(o->n_cls, name + sizeof PACKAGE - 1),
               &obf) != 0 ||
        o->n_cls >= NO_IDX - 1 ||
        grow(o, (void **)&o->cls, &o->cap_cls, o->n_cls, sizeof *o->cls) != 0 ||
        hs_idmap_put(&o->by_class, ord, o->n_cls + 1) != HS_OK) {
        o->nomem = 1;
        return NO_IDX;
    }
    c = &o->cls[o->n_cls];
    memset(c, 0, sizeof *c);
    c->name = ord;
    c->obf = obf;
    return (uint32_t)o->n_cls++;
}

/* The class s[n] (dump spelling, plain) when it was renamed, else NO_IDX. */
static uint32_t known_class(hs_obf *o, const char *s, size_t n)
{
    const char *d = dotted(o, s, n);
    uint32_t ord;
    const uint64_t *v;

    if (!d || !hs_names_find(&o->names, d, n, &ord) || !(v = hs_idmap_get(&o->by_class, ord)))
        return NO_IDX;
    return (uint32_t)*v - 1;
}

/* The member `kind` named s[n] of class k: its index, added when new
 * (named by the class's next generated name, or `same`: its own). */
static uint32_t member_of(hs_obf *o, uint32_t k, int kind, const char *s, size_t n, int same,
                          uint32_t extra)
{
    hs_obf_class *c = &o->cls[k];
    hs_obf_member *m;
    uint32_t ord, obf;
    uint64_t key;
    const uint64_t *v;
    char name[16];

    if (intern(o, s, n, &ord) != 0)
        return NO_IDX;
    key = (uint64_t)k << 33 | (uint64_t)kind << 32 | ord;
    if ((v = hs_idmap_get(&o->by_member, key)))
        return (uint32_t)*v - 1;
    if (same)
        obf = ord;
    else if (intern(o, name, hs_obf_gen(kind == KIND_FIELD ? c->n_fields++ : c->n_methods++, name),
                    &obf) != 0)
        return NO_IDX;
    if (o->n_mem >= NO_IDX - 1 ||
        grow(o, (void **)&o->mem, &o->cap_mem, o->n_mem, sizeof *o->mem) != 0 ||
        hs_idmap_put(&o->by_member, key, o->n_mem + 1) != HS_OK) {
        o->nomem = 1;
        return NO_IDX;
    }
    m = &o->mem[o->n_mem];
    m->name = ord;
    m->obf = obf;
    m->next = 0;
    m->extra = extra;
    /* appended to the class's list of its kind, for the mapping */
    if (kind == KIND_FIELD) {
        if (c->last_field)
            o->mem[c->last_field - 1].next = (uint32_t)o->n_mem + 1;
        else
            c->first_field = (uint32_t)o->n_mem + 1;
        c->last_field = (uint32_t)o->n_mem + 1;
    } else {
        if (c->last_method)
            o->mem[c->last_method - 1].next = (uint32_t)o->n_mem + 1;
        else
            c->first_method = (uint32_t)o->n_mem + 1;
        c->last_method = (uint32_t)o->n_mem + 1;
    }
    return (uint32_t)o->n_mem++;
}

/* ---- the namer ---------------------------------------------------------------- */

static size_t nm_bytes(void *ctx)
{
    const hs_obf *o = ctx;

    return hs_names_bytes(&o->names) + o->cap_cls * sizeof *o->cls +
           o->cap_mem * sizeof *o->mem + hs_idmap_bytes(&o->by_class) +
           hs_idmap_bytes(&o->by_member) + o->buf_cap;
}

static int nm_wants(void *ctx, const char *s, size_t n, int art)
{
    (void)ctx, (void)s, (void)n, (void)art;
    return 1; /* any short STRING may turn out to be a class or member name */
}

/* Appends s[n] at *at to buf[cap] (written only while it fits). */
static void put(char *buf, size_t cap, size_t *at, const char *s, size_t n)
{
    if (*at + n < cap)
        memcpy(buf + *at, s, n);
    *at += n;
}

static size_t nm_class_name(void *ctx, const char *s, size_t n, int art, char *buf, size_t cap)
{
    hs_obf *o = ctx;
    size_t dims = 0, en, at = 0, i, on;
    const char *e = s, *d, *obf;
    uint32_t k;

    /* no JVM internal name ends with []: ART's spelling, whatever the
     * caller guessed (a dump converted from ART names int[] so) */
    if (n >= 2 && s[n - 2] == '[' && s[n - 1] == ']')
        art = 1;
    if (art) { /* com.example.Foo[][] */
        while (n - 2 * dims >= 2 && s[n - 2 * dims - 2] == '[' && s[n - 2 * dims - 1] == ']')
            dims++;
        en = n - 2 * dims;
    } else { /* com/example/Foo, [[Lcom/example/Foo; ([I: primitive, kept) */
        while (dims < n && s[dims] == '[')
            dims++;
        if (dims && (n < dims + 3 || s[dims] != 'L' || s[n - 1] != ';'))
            return 0;
        e = dims ? s + dims + 1 : s;
        en = dims ? n - dims - 2 : n;
    }
    if (!(d = dotted(o, e, en)) || hs_obf_keep(d, en))
        return 0;
    if (!writable(o, d, en, ""))
        return 0;
    if (d[0] == '#') { /* a class line starting with # would be a comment */
        o->unwritable++;
        return 0;
    }
    if ((k = class_of(o, d, en)) == NO_IDX)
        return 0;
    obf = hs_names_text(&o->names, o->cls[k].obf, &on);
    if (art) {
        put(buf, cap, &at, obf, on);
        for (i = 0; i < dims; i++)
            put(buf, cap, &at, "[]", 2);
    } else {
        for (i = 0; i < dims; i++)
            put(buf, cap, &at, "[", 1);
        if (dims)
            put(buf, cap, &at, "L", 1);
        for (i = 0; i < on; i++)
            put(buf, cap, &at, obf[i] == '.' ? "/" : obf + i, 1);
        if (dims)
            put(buf, cap, &at, ";", 1);
    }
    if (at < cap)
        buf[at] = 0;
    return at;
}

static const char *nm_field(void *ctx, const char *cls, size_t cn, const char *f, size_t fn,
                            unsigned type)
{
    hs_obf *o = ctx;
    uint32_t k = known_class(o, cls, cn), m;

    if (k == NO_IDX || (fn && f[0] == '<') || !writable(o, f, fn, "("))
        return NULL; /* <resolved_references>, <init_lock>: the JVM's own */
    if ((m = member_of(o, k, KIND_FIELD, f, fn, 0, type)) == NO_IDX)
        return NULL;
    return text(o, o->mem[m].obf);
}

/* A source file's name as the mapping's JSON metadata can carry it. */
static int json_plain(const char *s, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        if ((uint8_t)s[i] < 0x20 || s[i] == '"' || s[i] == '\\')
            return 0;
    return n > 0;
}

static size_t nm_frames(void *ctx, const char *cls, size_t cn, const char *m, size_t mn,
                        const char *sig, size_t sn, const char *src, size_t srcn, uint32_t line,
                        hs_mapping_frame *out, size_t cap)
{
    hs_obf *o = ctx;
    uint32_t k = known_class(o, cls, cn), sig_ord = 0, idx, ord;
    int special = mn && m[0] == '<'; /* <init>, <clinit>: the JVM's, kept */
    const char *source = NULL;

    if (k == NO_IDX || !writable(o, m, mn, "().") )
        return 0;
    if (sig && sn && intern(o, sig, sn, &sig_ord) != 0)
        return 0;
    if ((idx = member_of(o, k, KIND_METHOD, m, mn, special, sig ? sig_ord + 1 : 0)) == NO_IDX)
        return 0;
    if (src && srcn) {
        if (!json_plain(src, srcn)) {
            o->unwritable++;
        } else if (intern(o, src, srcn, &ord) == 0) {
            if (!o->cls[k].source)
                o->cls[k].source = ord + 1;
            if (!o->source_file && intern(o, "SourceFile", 10, &ord) == 0)
                o->source_file = ord + 1;
            if (o->source_file)
                source = text(o, o->source_file - 1);
        }
    }
    if (cap) {
        out[0].class_name = text(o, o->cls[k].obf);
        out[0].method = text(o, o->mem[idx].obf);
        out[0].source = source;
        out[0].line = line;
    }
    return 1;
}

size_t hs_obf_orphan_frame(hs_obf *o, uint32_t serial, const char *m, size_t mn,
                           const char *sig, size_t sn, const char *src, size_t srcn,
                           uint32_t line, hs_mapping_frame *out)
{
    char name[40];
    size_t n = (size_t)snprintf(name, sizeof name, "<class serial %lu>", (unsigned long)serial);
    uint32_t k = class_of(o, name, n);

    if (k == NO_IDX)
        return 0;
    o->cls[k].orphan = 1;
    return nm_frames(o, name, n, m, mn, sig, sn, src, srcn, line, out, 1);
}

static size_t nm_signature(void *ctx, const char *sig, size_t sn, char *buf, size_t cap)
{
    hs_obf *o = ctx;
    size_t i = 0, at = 0, j, on, changed = 0, q;
    const char *d, *obf;
    uint32_t k;

    while (i < sn) {
        if (sig[i] != 'L') {
            put(buf, cap, &at, sig + i++, 1);
            continue;
        }
        for (j = i + 1; j < sn && sig[j] != ';'; j++)
            ;
        if (j == sn)
            return 0; /* not a descriptor */
        d = dotted(o, sig + i + 1, j - i - 1);
        if (!d || hs_obf_keep(d, j - i - 1) || !writable(o, d, j - i - 1, "") ||
            (k = class_of(o, d, j - i - 1)) == NO_IDX) {
            put(buf, cap, &at, sig + i, j + 1 - i);
        } else {
            obf = hs_names_text(&o->names, o->cls[k].obf, &on);
            put(buf, cap, &at, "L", 1);
            for (q = 0; q < on; q++)
                put(buf, cap, &at, obf[q] == '.' ? "/" : obf + q, 1);
            put(buf, cap, &at, ";", 1);
            changed = 1;
        }
        i = j + 1;
    }
    if (!changed)
        return 0;
    if (at < cap)
        buf[at] = 0;
    return at;
}

void hs_obf_namer(hs_obf *o, hs_namer *nm)
{
    memset(nm, 0, sizeof *nm);
    nm->ctx = o;
    nm->bytes = nm_bytes;
    nm->wants = nm_wants;
    nm->class_name = nm_class_name;
    nm->field = nm_field;
    nm->frames = nm_frames;
    nm->signature = nm_signature;
    nm->class_fields = NULL; /* fields are named as their CLASS_DUMP comes */
}

/* ---- the mapping ----------------------------------------------------------------- */

typedef struct {
    const hs_sink *dst;
    char b[65536];
    size_t n;
    int failed;
} writer;

static void flush(writer *w)
{
    if (w->n && !w->failed && w->dst->write(w->dst->ctx, w->b, w->n) != 0)
        w->failed = 1;
    w->n = 0;
}

static void out(writer *w, const char *s, size_t n)
{
    while (n) {
        size_t k = sizeof w->b - w->n < n ? sizeof w->b - w->n : n;
        memcpy(w->b + w->n, s, k);
        w->n += k;
        s += k;
        n -= k;
        if (w->n == sizeof w->b)
            flush(w);
    }
}

static void outs(writer *w, const char *s)
{
    out(w, s, strlen(s));
}

static const char *basic_type(unsigned t)
{
    return hs_prim_size(t) ? hs_type_name(t) : "java.lang.Object";
}

/* One Java type of a descriptor at s[*i] (dotted, arrays as []), or 0
 * when the descriptor is not one. */
static int java_type(writer *w, const char *s, size_t n, size_t *i)
{
    size_t dims = 0, j, k;
    const char *p = NULL;

    while (*i < n && s[*i] == '[')
        dims++, (*i)++;
    if (*i >= n)
        return 0;
    switch (s[*i]) {
    case 'V': p = "void"; break;
    case 'L':
        for (j = *i + 1; j < n && s[j] != ';'; j++)
            ;
        if (j == n || j == *i + 1 || !plain_chars(s + *i + 1, j - *i - 1, "(),"))
            return 0;
        for (k = *i + 1; k < j; k++)
            out(w, s[k] == '/' ? "." : s + k, 1);
        *i = j + 1;
        break;
    default:
        if (!hs_type_of_letter(s[*i]))
            return 0;
        p = hs_type_name(hs_type_of_letter(s[*i]));
    }
    if (p) {
        outs(w, p);
        (*i)++;
    }
    while (dims--)
        outs(w, "[]");
    return 1;
}

/* RETURN NAME(ARGS) from the descriptor sig[n]; "void NAME()" when there
 * is none or it does not parse (a member line needs a type and a list). */
static void method_line(writer *w, const char *name, const char *sig, size_t n)
{
    size_t i, r, mark = w->n, first = 1;
    int ok = sig && n > 2 && sig[0] == '(';

    if (ok) {
        r = (size_t)((const char *)memchr(sig, ')', n) ? (const char *)memchr(sig, ')', n) - sig : 0);
        ok = r > 0 && (i = r + 1, java_type(w, sig, n, &i)) && i == n;
        if (ok) {
            outs(w, " ");
            outs(w, name);
            outs(w, "(");
            for (i = 1; ok && i < r; first = 0) {
                if (!first)
                    outs(w, ",");
                ok = java_type(w, sig, r, &i);
            }
            outs(w, ")");
        }
    }
    if (!ok) {
        /* what was built since `mark` is taken back: it never passed a
         * flush, since a member line is far under the buffer */
        w->n = mark;
        outs(w, "void ");
        outs(w, name);
        outs(w, "()");
    }
}

hs_status hs_obf_write(const hs_obf *o, const hs_sink *dst)
{
    writer *w = hs_malloc(o->a, sizeof *w);
    size_t k;
    uint32_t m;
    hs_status s;

    if (!w)
        return HS_E_NOMEM;
    w->dst = dst;
    w->n = 0;
    w->failed = 0;
    outs(w, "# compiler: hprof-strip --obfuscate-names\n"
            "# original -> obfuscated; hprof-strip --mapping THIS_FILE restores the names\n");
    for (k = 0; k < o->n_cls; k++) {
        const hs_obf_class *c = &o->cls[k];
        /* an orphan's lines are comments: a reader of the key sees them,
         * --mapping skips them (no LOAD_CLASS has that name) */
        const char *pre = c->orphan ? "# " : "";
        outs(w, pre);
        outs(w, text(o, c->name));
        outs(w, " -> ");
        outs(w, text(o, c->obf));
        outs(w, ":\n");
        if (c->source) {
            outs(w, pre);
            outs(w, "# {\"id\":\"sourceFile\",\"fileName\":\"");
            outs(w, text(o, c->source - 1));
            outs(w, "\"}\n");
        }
        for (m = c->first_field; m; m = o->mem[m - 1].next) {
            const hs_obf_member *e = &o->mem[m - 1];
            outs(w, pre);
            outs(w, "    ");
            outs(w, basic_type(e->extra));
            outs(w, " ");
            outs(w, text(o, e->name));
            outs(w, " -> ");
            outs(w, text(o, e->obf));
            outs(w, "\n");
        }
        for (m = c->first_method; m; m = o->mem[m - 1].next) {
            const hs_obf_member *e = &o->mem[m - 1];
            size_t sn = 0;
            const char *sig = e->extra ? hs_names_text(&o->names, e->extra - 1, &sn) : NULL;
            if (w->n > sizeof w->b / 2)
                flush(w); /* room for the line method_line may take back */
            outs(w, pre);
            outs(w, "    ");
            method_line(w, text(o, e->name), sig, sn);
            outs(w, " -> ");
            outs(w, text(o, e->obf));
            outs(w, "\n");
        }
    }
    flush(w);
    s = w->failed ? HS_E_WRITE : HS_OK;
    hs_alloc_free(o->a, w);
    return s;
}
