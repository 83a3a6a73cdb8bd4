/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mapping.c - R8/ProGuard mapping files: parsing and lookups.
 *
 * The grammar (one line at a time; "\n" or "\r\n" ends a line):
 *
 *   blank            only spaces and tabs
 *   comment          optional indent, '#', anything. After a class line,
 *                    R8's  # {"id":"sourceFile","fileName":"Foo.kt"}  gives
 *                    that class's source file; every other comment (the
 *                    "# compiler: R8" header, "com.android.tools.r8.
 *                    synthesized", residual signatures...) is skipped, as R8
 *                    says readers must skip what they do not know.
 *   class            ORIGINAL -> OBFUSCATED:      (no indent)
 *   field            INDENT TYPE NAME -> OBFUSCATED
 *   method           INDENT [A:[B:]]TYPE [CLASS.]NAME(ARGS)[:OS[:OE]] -> OBFUSCATED
 *
 * where A:B is the obfuscated line range (A alone means A:A), OS:OE the
 * original one, numbers are decimal below 2^32 - 1, and CLASS. names the
 * class a method was inlined from. Member lines with the same obfuscated
 * name and range, in a row, are an inline chain, innermost first.
 *
 * Storage: every name is interned once in one pool of NUL-terminated
 * strings and referred to by a 32-bit offset (offset 0 is "none"); classes,
 * fields and method lines are flat arrays of 32-bit numbers, members of a
 * class contiguous; hash tables (open addressing, keyed by obfuscated name)
 * are built once the text is read, sized to what was found. Arrays are
 * trimmed to their content at the end, so what is held is about the size
 * of the text at most (the text spells every name once per use).
 */
#include "mapping.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h> /* vsnprintf, through error messages only, as fail.c */
#include <string.h>

#include "alloc.h"
#include "fail.h"
#include "hs_limits.h"

#define NONE UINT32_MAX

typedef struct {
    uint32_t obf, orig, source, line;  /* names (pool offsets), line in text */
    uint32_t first_fld, n_fld, first_mth, n_mth;
} map_class;

typedef struct {
    uint32_t obf, orig;
} map_field;

typedef struct {
    uint32_t obf, name, qual; /* qual: class inlined from, 0 when none */
    uint32_t a, b;            /* obfuscated range, NONE when none */
    uint32_t os, oe;          /* original range, NONE when not given */
    uint32_t next;            /* next line with this class and name, NONE */
} map_method;

/* a growable array of fixed-size items */
typedef struct {
    void *p;
    size_t n, cap, size;
} vec;

struct hs_mapping {
    hs_alloc raw;   /* the caller's allocator: the struct itself */
    hs_meter meter; /* everything else: counted, and capped while parsing */
    hs_alloc a;     /* draws on the meter */
    vec pool, cls, fld, mth;
    uint32_t *intern; /* during parsing: pool offsets by string */
    size_t intern_cap, intern_n;
    uint32_t *cls_tab, *orig_tab, *fld_tab, *mth_tab; /* index + 1, 0 empty */
    size_t cls_cap, fld_cap, mth_cap;
    uint32_t *mem_tab; /* obfuscated member names (pool offsets), 0 empty */
    size_t mem_cap;
    int too_big; /* the names would pass 4 GiB: offsets are 32 bits */
};

/* ---- storage --------------------------------------------------------------- */

static int vec_grow(hs_mapping *m, vec *v)
{
    size_t cap = v->cap ? v->cap * 2 : 64;
    void *p = hs_realloc(&m->a, v->p, v->n * v->size, cap * v->size);

    if (!p)
        return -1;
    v->p = p;
    v->cap = cap;
    return 0;
}

/* Gives back the unused tail of a vector once parsing is done. */
static void vec_trim(hs_mapping *m, vec *v)
{
    void *p;

    if (v->n == v->cap || v->n == 0)
        return;
    p = hs_realloc(&m->a, v->p, v->n * v->size, v->n * v->size);
    if (p) {
        v->p = p;
        v->cap = v->n;
    }
}

static void *vec_push(hs_mapping *m, vec *v)
{
    if (v->n == v->cap && vec_grow(m, v) != 0)
        return NULL;
    return (char *)v->p + v->n++ * v->size;
}

/* FNV-1a; '/' hashes as '.' so internal and dotted class names meet. */
static uint32_t hash_name(const char *s, size_t n, uint32_t seed)
{
    uint32_t h = 2166136261u ^ seed;
    size_t i;

    for (i = 0; i < n; i++) {
        h ^= (unsigned char)(s[i] == '/' ? '.' : s[i]);
        h *= 16777619u;
    }
    return h ^ (h >> 15);
}

/* Does the pool string at `off` spell s[n] ('/' read as '.' on both sides)? */
static int same_name(const hs_mapping *m, uint32_t off, const char *s, size_t n)
{
    const char *p = (const char *)m->pool.p + off;
    size_t i;

    for (i = 0; i < n; i++)
        if (p[i] == 0 || (p[i] == '/' ? '.' : p[i]) != (s[i] == '/' ? '.' : s[i]))
            return 0;
    return p[n] == 0;
}

static const char *str_at(const hs_mapping *m, uint32_t off)
{
    return off ? (const char *)m->pool.p + off : NULL;
}

static int intern_rehash(hs_mapping *m)
{
    size_t cap = m->intern_cap ? m->intern_cap * 2 : 1024, i;
    uint32_t *t = hs_calloc(&m->a, cap * sizeof *t);

    if (!t)
        return -1;
    for (i = 0; i < m->intern_cap; i++) {
        uint32_t off = m->intern[i];
        if (off) {
            const char *s = str_at(m, off);
            size_t j = hash_name(s, strlen(s), 0) & (cap - 1);
            while (t[j])
                j = (j + 1) & (cap - 1);
            t[j] = off;
        }
    }
    hs_alloc_free(&m->a, m->intern);
    m->intern = t;
    m->intern_cap = cap;
    return 0;
}

/* The pool offset of s[n], added when new; 0 on no memory. */
static uint32_t intern(hs_mapping *m, const char *s, size_t n)
{
    size_t j;
    uint32_t off;

    if (m->pool.n == 0 && !vec_push(m, &m->pool)) /* offset 0: "none" */
        return 0;
    if (m->intern_n * 2 >= m->intern_cap && intern_rehash(m) != 0)
        return 0;
    j = hash_name(s, n, 0) & (m->intern_cap - 1);
    while ((off = m->intern[j]) != 0) {
        /* strncmp stops at the pool string's end; s holds no NUL */
        if (strncmp(str_at(m, off), s, n) == 0 && str_at(m, off)[n] == 0)
            return off;
        j = (j + 1) & (m->intern_cap - 1);
    }
    if (n + 1 >= (size_t)NONE - m->pool.n) {
        m->too_big = 1;
        return 0;
    }
    while (m->pool.cap - m->pool.n < n + 1)
        if (vec_grow(m, &m->pool) != 0)
            return 0;
    off = (uint32_t)m->pool.n;
    memcpy((char *)m->pool.p + off, s, n);
    ((char *)m->pool.p)[off + n] = 0;
    m->pool.n += n + 1;
    m->intern[j] = off;
    m->intern_n++;
    return off;
}

/* ---- hash tables ------------------------------------------------------------- */

static size_t table_cap(size_t n)
{
    size_t cap = 16;

    while (cap < n * 2 + 2)
        cap *= 2;
    return cap;
}

static map_class *class_at(const hs_mapping *m, uint32_t i)
{
    return (map_class *)m->cls.p + i;
}

static map_field *field_at(const hs_mapping *m, uint32_t i)
{
    return (map_field *)m->fld.p + i;
}

static map_method *method_at(const hs_mapping *m, uint32_t i)
{
    return (map_method *)m->mth.p + i;
}

/* The class whose obfuscated name (byname) or original name is s[n]. */
static uint32_t find_class(const hs_mapping *m, const uint32_t *tab, size_t cap, int orig,
                           const char *s, size_t n)
{
    size_t j;
    uint32_t e;

    if (!tab)
        return NONE;
    j = hash_name(s, n, 0) & (cap - 1);
    while ((e = tab[j]) != 0) {
        const map_class *c = class_at(m, e - 1);
        if (same_name(m, orig ? c->orig : c->obf, s, n))
            return e - 1;
        j = (j + 1) & (cap - 1);
    }
    return NONE;
}

/* Puts class i in `tab` under its obfuscated or original name; returns the
 * class already there under that name, or NONE. */
static uint32_t put_class(hs_mapping *m, uint32_t *tab, size_t cap, int orig, uint32_t i)
{
    const char *s = str_at(m, orig ? class_at(m, i)->orig : class_at(m, i)->obf);
    size_t n = strlen(s), j = hash_name(s, n, 0) & (cap - 1);
    uint32_t e;

    while ((e = tab[j]) != 0) {
        const map_class *c = class_at(m, e - 1);
        if (same_name(m, orig ? c->orig : c->obf, s, n))
            return e - 1;
        j = (j + 1) & (cap - 1);
    }
    tab[j] = i + 1;
    return NONE;
}

/* Grows the obfuscated-name table as classes come (duplicates are found
 * while the line is at hand); -1 on no memory. */
static int grow_class_table(hs_mapping *m)
{
    size_t cap = table_cap(m->cls.n * 2), i;
    uint32_t *t;

    if (m->cls_tab && m->cls.n * 2 + 2 <= m->cls_cap)
        return 0;
    t = hs_calloc(&m->a, cap * sizeof *t);
    if (!t)
        return -1;
    hs_alloc_free(&m->a, m->cls_tab);
    m->cls_tab = t;
    m->cls_cap = cap;
    for (i = 0; i + 1 < m->cls.n; i++) /* all but the newest, which the caller puts */
        put_class(m, t, cap, 0, (uint32_t)i);
    return 0;
}

static uint32_t member_seed(uint32_t cls)
{
    return cls * 0x9e3779b9u + 1;
}

/* Field table: (class, obfuscated name) -> first such field. */
static void put_field(hs_mapping *m, uint32_t c, uint32_t f)
{
    const map_class *k = class_at(m, c);
    const char *s = str_at(m, field_at(m, f)->obf);
    size_t n = strlen(s), j = hash_name(s, n, member_seed(c)) & (m->fld_cap - 1);
    uint32_t e;

    while ((e = m->fld_tab[j]) != 0) {
        if (e - 1 >= k->first_fld && e - 1 < k->first_fld + k->n_fld &&
            field_at(m, e - 1)->obf == field_at(m, f)->obf)
            return; /* the first one stays: names are interned, offsets compare */
        j = (j + 1) & (m->fld_cap - 1);
    }
    m->fld_tab[j] = f + 1;
}

static uint32_t find_field(const hs_mapping *m, uint32_t c, const char *s, size_t n)
{
    const map_class *k = class_at(m, c);
    size_t j;
    uint32_t e;

    if (!m->fld_tab)
        return NONE;
    j = hash_name(s, n, member_seed(c)) & (m->fld_cap - 1);
    while ((e = m->fld_tab[j]) != 0) {
        if (e - 1 >= k->first_fld && e - 1 < k->first_fld + k->n_fld &&
            same_name(m, field_at(m, e - 1)->obf, s, n))
            return e - 1;
        j = (j + 1) & (m->fld_cap - 1);
    }
    return NONE;
}

/* Method table: (class, obfuscated name) -> the first member line with that
 * name; the others follow through `next`, in file order (built from the
 * last line back, each put in front). */
static uint32_t *method_slot(const hs_mapping *m, uint32_t c, const char *s, size_t n)
{
    const map_class *k = class_at(m, c);
    size_t j = hash_name(s, n, member_seed(c)) & (m->mth_cap - 1);
    uint32_t e;

    while ((e = m->mth_tab[j]) != 0) {
        if (e - 1 >= k->first_mth && e - 1 < k->first_mth + k->n_mth &&
            same_name(m, method_at(m, e - 1)->obf, s, n))
            break;
        j = (j + 1) & (m->mth_cap - 1);
    }
    return &m->mth_tab[j];
}

/* The obfuscated-name table grew ahead of the classes (twice their count,
 * so it doubles rarely): once they are all in, size it to them. On no
 * memory the larger one stays, which works as well. */
static void shrink_class_table(hs_mapping *m)
{
    size_t cap = table_cap(m->cls.n);
    uint32_t *t, i;

    if (cap >= m->cls_cap || !(t = hs_calloc(&m->a, cap * sizeof *t)))
        return;
    for (i = 0; i < m->cls.n; i++)
        put_class(m, t, cap, 0, i);
    hs_alloc_free(&m->a, m->cls_tab);
    m->cls_tab = t;
    m->cls_cap = cap;
}

/* The set of obfuscated field and method names, whatever their class: a
 * dump's STRING is worth keeping for deobfuscation only when it is one. */
static void put_member_name(hs_mapping *m, uint32_t off)
{
    const char *s = str_at(m, off);
    size_t j = hash_name(s, strlen(s), 7) & (m->mem_cap - 1);

    while (m->mem_tab[j]) {
        if (m->mem_tab[j] == off) /* interned: one offset per name */
            return;
        j = (j + 1) & (m->mem_cap - 1);
    }
    m->mem_tab[j] = off;
}

static int build_member_names(hs_mapping *m)
{
    size_t i;

    m->mem_cap = table_cap(m->fld.n + m->mth.n);
    m->mem_tab = hs_calloc(&m->a, m->mem_cap * sizeof *m->mem_tab);
    if (!m->mem_tab)
        return -1;
    for (i = 0; i < m->fld.n; i++)
        put_member_name(m, field_at(m, (uint32_t)i)->obf);
    for (i = 0; i < m->mth.n; i++)
        put_member_name(m, method_at(m, (uint32_t)i)->obf);
    return 0;
}

static int build_member_tables(hs_mapping *m)
{
    uint32_t c, i;

    shrink_class_table(m);

    m->fld_cap = table_cap(m->fld.n);
    m->mth_cap = table_cap(m->mth.n);
    m->fld_tab = hs_calloc(&m->a, m->fld_cap * sizeof *m->fld_tab);
    m->mth_tab = hs_calloc(&m->a, m->mth_cap * sizeof *m->mth_tab);
    m->orig_tab = hs_calloc(&m->a, m->cls_cap * sizeof *m->orig_tab);
    if (!m->fld_tab || !m->mth_tab || !m->orig_tab || build_member_names(m) != 0)
        return -1;
    for (c = 0; c < m->cls.n; c++) {
        const map_class *k = class_at(m, c);
        put_class(m, m->orig_tab, m->cls_cap, 1, c);
        for (i = k->first_fld; i < k->first_fld + k->n_fld; i++)
            put_field(m, c, i);
        for (i = k->first_mth + k->n_mth; i-- > k->first_mth;) {
            map_method *me = method_at(m, i);
            const char *s = str_at(m, me->obf);
            uint32_t *slot = method_slot(m, c, s, strlen(s));
            me->next = *slot ? *slot - 1 : NONE;
            *slot = i + 1;
        }
    }
    return 0;
}

/* ---- parsing --------------------------------------------------------------- */

typedef struct {
    hs_mapping *m;
    const char *origin;
    hs_error *err;
    char **whole;            /* NULL, or where the whole message goes too */
    const hs_alloc *whole_a; /* ... allocated from */
    const char *s; /* the current line, without its end */
    size_t n;
    size_t line;   /* 1-based */
    uint32_t cur;  /* the current class, NONE before the first */
    const hs_meter *meter; /* refusals are the limit, not a failing allocator */
} parser;

static hs_status perr(parser *ps, size_t i, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* An error at 0-based index `i` of the current line (column i + 1). */
static hs_status perr(parser *ps, size_t i, const char *fmt, ...)
{
    char msg[200], *p;
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    for (p = msg; *p; p++) /* the text quoted may hold anything: one line */
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    return hs_fail_whole(ps->err, ps->whole, ps->whole_a, HS_E_MALFORMED, "%s:%zu:%zu: %s",
                         ps->origin, ps->line, i + 1, msg);
}

static hs_status nomem(parser *ps)
{
    if (ps->m && ps->m->too_big)
        return hs_fail_whole(ps->err, ps->whole, ps->whole_a, HS_E_LIMIT,
                             "%s:%zu: the mapping's names pass 4 GiB", ps->origin, ps->line);
    if (ps->meter && ps->meter->refused)
        return hs_fail_whole(ps->err, ps->whole, ps->whole_a, HS_E_LIMIT,
                             "%s:%zu: the mapping would hold more than the limit of %llu bytes "
                             "(max_held)",
                             ps->origin, ps->line, (unsigned long long)ps->meter->cap);
    return hs_fail_whole(ps->err, ps->whole, ps->whole_a, HS_E_NOMEM,
                         "%s: out of memory reading the mapping", ps->origin);
}

static int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

static size_t skip_blank(const parser *ps, size_t i)
{
    while (i < ps->n && is_blank(ps->s[i]))
        i++;
    return i;
}

/* The end of the word at i: up to a blank or the end of the line. */
static size_t word_end(const parser *ps, size_t i)
{
    while (i < ps->n && !is_blank(ps->s[i]))
        i++;
    return i;
}

/* What is at i, for a message: a word, or "the end of the line". */
static int shown_len(const parser *ps, size_t i)
{
    size_t e = word_end(ps, i);
    return (int)((e - i > 40 ? 40 : e - i));
}

/* "'word'" at i, or "the end of the line", into buf[48]. */
static const char *found(const parser *ps, size_t i, char *buf)
{
    if (i >= ps->n)
        return "the end of the line";
    snprintf(buf, 48, "'%.*s'", shown_len(ps, i), ps->s + i);
    return buf;
}

/* " -> " between two names: blanks, "->", blanks; i is past the first. */
static hs_status expect_arrow(parser *ps, size_t *i)
{
    char w[48];
    size_t j = skip_blank(ps, *i);

    if (j == *i || j + 2 > ps->n || ps->s[j] != '-' || ps->s[j + 1] != '>')
        return perr(ps, j, "expected ' -> ', found %s", found(ps, j, w));
    *i = skip_blank(ps, j + 2);
    if (*i == j + 2)
        return perr(ps, *i, "expected a blank after '->'");
    if (*i == ps->n)
        return perr(ps, *i, "expected the obfuscated name after '->'");
    return HS_OK;
}

/* Nothing but blanks from i on. */
static hs_status expect_end(parser *ps, size_t i)
{
    i = skip_blank(ps, i);
    if (i < ps->n)
        return perr(ps, i, "unexpected '%.*s' at the end of the line", shown_len(ps, i),
                    ps->s + i);
    return HS_OK;
}

/* A decimal line number below 2^32 - 1 at *i. */
static hs_status number(parser *ps, size_t *i, uint32_t *out)
{
    char w[48];
    size_t j = *i;
    uint64_t v = 0;

    if (j >= ps->n || ps->s[j] < '0' || ps->s[j] > '9')
        return perr(ps, j, "expected a line number, found %s", found(ps, j, w));
    while (j < ps->n && ps->s[j] >= '0' && ps->s[j] <= '9') {
        v = v * 10 + (uint64_t)(ps->s[j] - '0');
        if (v >= NONE) {
            size_t e = j;
            while (e < ps->n && ps->s[e] >= '0' && ps->s[e] <= '9' && e - *i < 40)
                e++;
            return perr(ps, *i, "line number %.*s is too large", (int)(e - *i), ps->s + *i);
        }
        j++;
    }
    *out = (uint32_t)v;
    *i = j;
    return HS_OK;
}

static hs_status expect_colon(parser *ps, size_t i, const char *after)
{
    char w[48];

    if (i >= ps->n || ps->s[i] != ':')
        return perr(ps, i, "expected ':' after %s, found %s", after, found(ps, i, w));
    return HS_OK;
}

/* ORIGINAL -> OBFUSCATED: */
static hs_status class_line(parser *ps)
{
    hs_mapping *m = ps->m;
    size_t e = word_end(ps, 0), i = e, ob, oe;
    map_class *c;
    uint32_t dup, idx;

    HS_TRY(expect_arrow(ps, &i));
    ob = i;
    oe = word_end(ps, ob);
    if (ps->s[oe - 1] != ':')
        return perr(ps, oe, "expected ':' at the end of the class line");
    if (oe - 1 == ob)
        return perr(ps, ob, "expected the obfuscated class name before ':'");
    HS_TRY(expect_end(ps, oe));
    if (m->cls.n >= NONE - 1)
        return perr(ps, 0, "too many classes");
    c = vec_push(m, &m->cls);
    if (!c)
        return nomem(ps);
    idx = (uint32_t)(m->cls.n - 1);
    memset(c, 0, sizeof *c);
    c->orig = intern(m, ps->s, e);
    c->obf = intern(m, ps->s + ob, oe - 1 - ob);
    c->line = ps->line > NONE ? NONE : (uint32_t)ps->line;
    c->first_fld = (uint32_t)m->fld.n;
    c->first_mth = (uint32_t)m->mth.n;
    if (!c->orig || !c->obf || grow_class_table(m) != 0)
        return nomem(ps);
    dup = put_class(m, m->cls_tab, m->cls_cap, 0, idx);
    if (dup != NONE)
        return perr(ps, ob, "obfuscated class name '%.*s' already used on line %lu",
                    (int)(oe - 1 - ob > 80 ? 80 : oe - 1 - ob), ps->s + ob,
                    (unsigned long)class_at(m, dup)->line);
    ps->cur = idx;
    return HS_OK;
}

/* The string value of "key" in a one-line JSON object: the first
 * "key" followed by ':' and a string. Escapes are kept as written. */
static int json_string(const char *s, size_t n, const char *key, const char **v, size_t *vn)
{
    size_t kn = strlen(key), i, j;

    for (i = 0; i + kn + 2 <= n; i++) {
        if (s[i] != '"' || memcmp(s + i + 1, key, kn) != 0 || s[i + kn + 1] != '"')
            continue;
        j = i + kn + 2;
        while (j < n && (s[j] == ' ' || s[j] == '\t'))
            j++;
        if (j >= n || s[j++] != ':')
            continue;
        while (j < n && (s[j] == ' ' || s[j] == '\t'))
            j++;
        if (j >= n || s[j++] != '"')
            continue;
        *v = s + j;
        while (j < n && s[j] != '"')
            j += s[j] == '\\' ? 2 : 1;
        if (j >= n)
            return 0;
        *vn = (size_t)(s + j - *v);
        return 1;
    }
    return 0;
}

/* # ... : R8's sourceFile for the current class; anything else is skipped. */
static hs_status comment_line(parser *ps, size_t i)
{
    const char *id, *file;
    size_t idn, filen;
    uint32_t off;

    if (ps->cur == NONE || !json_string(ps->s + i, ps->n - i, "id", &id, &idn) ||
        idn != 10 || memcmp(id, "sourceFile", 10) != 0 ||
        !json_string(ps->s + i, ps->n - i, "fileName", &file, &filen) || filen == 0)
        return HS_OK;
    off = intern(ps->m, file, filen);
    if (!off)
        return nomem(ps);
    class_at(ps->m, ps->cur)->source = off;
    return HS_OK;
}

/* [A:[B:]] at *i: the obfuscated line range of a method, or none. */
static hs_status line_range(parser *ps, size_t *i, uint32_t *a, uint32_t *b)
{
    size_t start = *i;

    *a = *b = NONE;
    if (*i >= ps->n || ps->s[*i] < '0' || ps->s[*i] > '9')
        return HS_OK;
    HS_TRY(number(ps, i, a));
    HS_TRY(expect_colon(ps, *i, "the line number"));
    (*i)++;
    *b = *a;
    if (*i < ps->n && ps->s[*i] >= '0' && ps->s[*i] <= '9') {
        HS_TRY(number(ps, i, b));
        HS_TRY(expect_colon(ps, *i, "the line number"));
        (*i)++;
    }
    if (*a > *b)
        return perr(ps, start, "line range %lu:%lu runs backwards", (unsigned long)*a,
                    (unsigned long)*b);
    return HS_OK;
}

/* NAME(ARGS)[:OS[:OE]] in [i, e): fills the method's names and original
 * range; the name may be qualified by the class it was inlined from. */
static hs_status method_name(parser *ps, size_t i, size_t e, map_method *me)
{
    const char *s = ps->s;
    size_t open = i, close, dot, k;

    while (s[open] != '(')
        open++;
    for (close = open; close < e && s[close] != ')'; close++)
        ;
    if (close == e)
        return perr(ps, close, "expected ')' closing the argument list");
    for (dot = open; dot > i && s[dot - 1] != '.'; dot--)
        ;
    if (dot == open || (dot > i && dot - 1 == i))
        return perr(ps, dot == open ? open : i, "expected a method name before '('");
    k = close + 1;
    if (k < e) {
        HS_TRY(expect_colon(ps, k, "')'"));
        k++;
        HS_TRY(number(ps, &k, &me->os));
        if (k < e) {
            HS_TRY(expect_colon(ps, k, "the line number"));
            k++;
            HS_TRY(number(ps, &k, &me->oe));
            if (k < e)
                return perr(ps, k, "expected ' -> ' after the original line range");
        }
    }
    me->name = intern(ps->m, s + dot, open - dot);
    me->qual = dot > i ? intern(ps->m, s + i, dot - 1 - i) : 0;
    if (!me->name || (dot > i && !me->qual))
        return nomem(ps);
    return HS_OK;
}

/* The field NAME in [i, ne) -> the obfuscated [ob, oe). */
static hs_status field_line(parser *ps, size_t i, size_t ne, size_t ob, size_t oe)
{
    hs_mapping *m = ps->m;
    map_field *f;
    uint32_t orig = intern(m, ps->s + i, ne - i), obf = intern(m, ps->s + ob, oe - ob);

    if (!orig || !obf)
        return nomem(ps);
    if (m->fld.n >= NONE - 1)
        return perr(ps, 0, "too many fields");
    f = vec_push(m, &m->fld);
    if (!f)
        return nomem(ps);
    f->orig = orig;
    f->obf = obf;
    class_at(m, ps->cur)->n_fld++;
    return HS_OK;
}

/* INDENT [A:[B:]]TYPE NAME[(ARGS)[:OS[:OE]]] -> OBFUSCATED */
static hs_status member_line(parser *ps, size_t i)
{
    hs_mapping *m = ps->m;
    map_method me = {0, 0, 0, NONE, NONE, NONE, NONE, NONE};
    size_t start, te, ne, ob, oe;
    map_class *c;

    if (ps->cur == NONE)
        return perr(ps, i, "member line before any class line");
    start = i;
    HS_TRY(line_range(ps, &i, &me.a, &me.b));
    te = word_end(ps, i);
    if (te == i)
        return perr(ps, i, "expected a type");
    i = skip_blank(ps, te);
    if (i == ps->n || i == te)
        return perr(ps, i, "expected a member name after the type");
    ne = word_end(ps, i);
    ob = ne;
    HS_TRY(expect_arrow(ps, &ob));
    oe = word_end(ps, ob);
    HS_TRY(expect_end(ps, oe));
    c = class_at(m, ps->cur);
    if (memchr(ps->s + i, '(', ne - i)) {
        map_method *slot;
        HS_TRY(method_name(ps, i, ne, &me));
        me.obf = intern(m, ps->s + ob, oe - ob);
        if (!me.obf)
            return nomem(ps);
        if (m->mth.n >= NONE - 1)
            return perr(ps, 0, "too many member lines");
        slot = vec_push(m, &m->mth);
        if (!slot)
            return nomem(ps);
        *slot = me;
        c->n_mth++;
        return HS_OK;
    }
    if (me.a != NONE)
        return perr(ps, start, "a line range on a field (no '(' in '%.*s')",
                    (int)(ne - i > 80 ? 80 : ne - i), ps->s + i);
    return field_line(ps, i, ne, ob, oe);
}

/* One line: blank, comment, class or member. */
static hs_status one_line(parser *ps)
{
    size_t i = skip_blank(ps, 0);

    if (i == ps->n)
        return HS_OK;
    if (ps->s[i] == '#')
        return comment_line(ps, i);
    if (i == 0)
        return class_line(ps);
    return member_line(ps, i);
}

/* The longest line taken (hs_limits.h says why). */
#define MAX_LINE HS_MAPPING_LINE_MAX

struct hs_mapping_parser {
    hs_alloc raw; /* the caller's allocator: the parser itself */
    hs_mapping *m;
    parser ps;
    char *line; /* a line cut by the end of a chunk, until its end comes */
    size_t line_len, line_cap;
    hs_status status; /* the first failure: later chunks are not read */
};

/* Checks a piece of the line being read, columns col0 + 1 on, before it
 * is kept: no NUL, and the line not past MAX_LINE, so text that is not a
 * mapping (binary bytes, one endless line) stops at once. */
static hs_status check_piece(parser *ps, const char *s, size_t n, size_t col0)
{
    const char *nul = memchr(s, 0, n);

    if (!nul && col0 + n <= MAX_LINE)
        return HS_OK;
    ps->line++; /* the line the piece belongs to (the parse stops here) */
    ps->s = s;
    ps->n = n;
    if (nul) /* names are kept NUL-terminated: one would cut a name short */
        return perr(ps, col0 + (size_t)(nul - s), "a NUL byte in the text");
    return perr(ps, MAX_LINE, "a line longer than %zu bytes: not a mapping", MAX_LINE);
}

/* One whole line, without its '\n'. */
static hs_status whole_line(parser *ps, const char *s, size_t n)
{
    HS_TRY(check_piece(ps, s, n, 0));
    ps->s = s;
    ps->n = n;
    if (ps->n && ps->s[ps->n - 1] == '\r')
        ps->n--;
    ps->line++;
    return one_line(ps);
}

/* Keeps s[n], the start (or more) of a line whose end is to come. */
static hs_status keep_piece(hs_mapping_parser *p, const char *s, size_t n)
{
    HS_TRY(check_piece(&p->ps, s, n, p->line_len));
    if (p->line_cap - p->line_len < n) {
        size_t cap = p->line_cap ? p->line_cap : 256;
        char *b;
        while (cap - p->line_len < n)
            cap *= 2;
        b = hs_realloc(&p->m->a, p->line, p->line_len, cap);
        if (!b)
            return nomem(&p->ps);
        p->line = b;
        p->line_cap = cap;
    }
    memcpy(p->line + p->line_len, s, n);
    p->line_len += n;
    return HS_OK;
}

hs_mapping_parser *hs_mapping_begin(const char *origin, const hs_alloc *a, uint64_t max_bytes,
                                    hs_error *err)
{
    hs_alloc raw;
    hs_mapping_parser *p;
    hs_mapping *m;
    parser ps = {0};

    hs_alloc_init(&raw, a);
    ps.origin = origin ? origin : "mapping";
    ps.err = err;
    ps.cur = NONE;
    p = hs_calloc(&raw, sizeof *p);
    if (!p) {
        nomem(&ps);
        return NULL;
    }
    p->raw = raw;
    p->ps = ps;
    m = hs_calloc(&raw, sizeof *m);
    if (!m) {
        nomem(&p->ps);
        hs_alloc_free(&raw, p);
        return NULL;
    }
    p->m = p->ps.m = m;
    m->raw = raw;
    /* the struct itself counts toward the cap too: it is the meter's base */
    hs_meter_init(&m->meter, &raw, max_bytes ? max_bytes : UINT64_MAX);
    m->meter.base = sizeof *m;
    m->a = hs_meter_alloc(&m->meter);
    p->ps.meter = &m->meter;
    m->pool.size = 1;
    m->cls.size = sizeof(map_class);
    m->fld.size = sizeof(map_field);
    m->mth.size = sizeof(map_method);
    if (!vec_push(m, &m->pool) || grow_class_table(m) != 0) {
        p->status = nomem(&p->ps);
        hs_mapping_end(p, 0);
        return NULL;
    }
    ((char *)m->pool.p)[0] = 0;
    return p;
}

hs_status hs_mapping_feed(hs_mapping_parser *p, const char *text, size_t len)
{
    size_t pos = 0;

    while (p->status == HS_OK && pos < len) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - text) : len;
        if (!nl) {
            p->status = keep_piece(p, text + pos, len - pos);
            break;
        }
        if (p->line_len) { /* the end of the line kept */
            p->status = keep_piece(p, text + pos, end - pos);
            if (p->status == HS_OK)
                p->status = whole_line(&p->ps, p->line, p->line_len);
            p->line_len = 0;
        } else
            p->status = whole_line(&p->ps, text + pos, end - pos);
        pos = end + 1;
    }
    return p->status;
}

hs_mapping *hs_mapping_end(hs_mapping_parser *p, int complete)
{
    hs_alloc raw;
    hs_mapping *m;

    if (!p)
        return NULL;
    raw = p->raw;
    m = p->m;
    if (p->status == HS_OK && complete && p->line_len) /* the last line, with no '\n' */
        p->status = whole_line(&p->ps, p->line, p->line_len);
    hs_alloc_free(&m->a, p->line);
    p->line = NULL;
    p->line_cap = p->line_len = 0;
    if (p->status == HS_OK && complete) {
        /* the interning table is only for parsing: give it back first */
        hs_alloc_free(&m->a, m->intern);
        m->intern = NULL;
        m->intern_cap = m->intern_n = 0;
        vec_trim(m, &m->pool);
        vec_trim(m, &m->cls);
        vec_trim(m, &m->fld);
        vec_trim(m, &m->mth);
        if (build_member_tables(m) != 0)
            p->status = nomem(&p->ps);
    }
    if (p->status != HS_OK || !complete) {
        hs_mapping_free(m);
        m = NULL;
    }
    hs_alloc_free(&raw, p);
    return m;
}

void hs_mapping_keep_whole(hs_mapping_parser *p, char **whole, const hs_alloc *a)
{
    p->ps.whole = whole;
    p->ps.whole_a = a;
}

hs_mapping *hs_mapping_parse(const char *text, size_t len, const char *origin,
                             const hs_alloc *a, hs_error *err)
{
    hs_mapping_parser *p = hs_mapping_begin(origin, a, 0, err);

    if (!p)
        return NULL;
    hs_mapping_feed(p, text, len);
    return hs_mapping_end(p, 1);
}

void hs_mapping_free(hs_mapping *m)
{
    hs_alloc a;

    if (!m)
        return;
    a = m->a;
    hs_alloc_free(&a, m->pool.p);
    hs_alloc_free(&a, m->cls.p);
    hs_alloc_free(&a, m->fld.p);
    hs_alloc_free(&a, m->mth.p);
    hs_alloc_free(&a, m->intern);
    hs_alloc_free(&a, m->cls_tab);
    hs_alloc_free(&a, m->orig_tab);
    hs_alloc_free(&a, m->fld_tab);
    hs_alloc_free(&a, m->mth_tab);
    hs_alloc_free(&a, m->mem_tab);
    assert(m->meter.live == 0);
    hs_alloc_free(&m->raw, m);
}

size_t hs_mapping_bytes(const hs_mapping *m)
{
    if (!m)
        return 0;
    /* every block's exact size (the meter's headers included), not an
     * estimate from the capacities */
    return sizeof *m + (size_t)m->meter.live;
}

/* ---- lookups --------------------------------------------------------------- */

const char *hs_mapping_class(const hs_mapping *m, hs_mapping_counts *n, const char *obf,
                             size_t len)
{
    uint32_t c;

    if (n)
        n->class_lookups++;
    c = find_class(m, m->cls_tab, m->cls_cap, 0, obf, len);
    if (c == NONE)
        return NULL;
    if (n)
        n->class_hits++;
    return str_at(m, class_at(m, c)->orig);
}

const char *hs_mapping_field(const hs_mapping *m, hs_mapping_counts *n, const char *obf_class,
                             size_t cn, const char *obf_field, size_t fn)
{
    uint32_t c, f;

    if (n)
        n->field_lookups++;
    c = find_class(m, m->cls_tab, m->cls_cap, 0, obf_class, cn);
    if (c == NONE || (f = find_field(m, c, obf_field, fn)) == NONE)
        return NULL;
    if (n)
        n->field_hits++;
    return str_at(m, field_at(m, f)->orig);
}

int hs_mapping_is_member(const hs_mapping *m, const char *s, size_t n)
{
    size_t j;
    uint32_t off;

    if (!m->mem_tab || memchr(s, 0, n))
        return 0;
    j = hash_name(s, n, 7) & (m->mem_cap - 1);
    while ((off = m->mem_tab[j]) != 0) {
        const char *p = str_at(m, off);
        if (strncmp(p, s, n) == 0 && p[n] == 0) /* exact: '/' is not '.' here */
            return 1;
        j = (j + 1) & (m->mem_cap - 1);
    }
    return 0;
}

size_t hs_mapping_class_fields(const hs_mapping *m, const char *obf_class, size_t cn,
                               size_t start, const char **orig, const char **obf, size_t cap)
{
    uint32_t c = find_class(m, m->cls_tab, m->cls_cap, 0, obf_class, cn);
    const map_class *k;
    size_t i;

    if (c == NONE)
        return 0;
    k = class_at(m, c);
    for (i = 0; start + i < k->n_fld && i < cap; i++) {
        const map_field *f = field_at(m, k->first_fld + (uint32_t)(start + i));
        orig[i] = str_at(m, f->orig);
        obf[i] = str_at(m, f->obf);
    }
    return i;
}

int hs_platform_class(const char *s, size_t n)
{
    static const char *const packages[] = {"java.", "javax.", "jdk.",   "sun.",
                                           "android.", "dalvik.", "libcore."};
    size_t i, j, k;

    for (i = 0; i < sizeof packages / sizeof *packages; i++) {
        k = strlen(packages[i]);
        if (n <= k)
            continue;
        for (j = 0; j < k; j++)
            if (s[j] != packages[i][j] && !(s[j] == '/' && packages[i][j] == '.'))
                break;
        if (j == k)
            return 1;
    }
    return 0;
}

/* True when class c renames itself or one of its fields. */
static int renames(const hs_mapping *m, const map_class *c)
{
    uint32_t i;

    if (strcmp(str_at(m, c->orig), str_at(m, c->obf)) != 0)
        return 1;
    for (i = c->first_fld; i < c->first_fld + c->n_fld; i++)
        if (strcmp(str_at(m, field_at(m, i)->orig), str_at(m, field_at(m, i)->obf)) != 0)
            return 1;
    return 0;
}

size_t hs_mapping_platform_line(const hs_mapping *m, const char **name)
{
    size_t c;

    for (c = 0; m && c < m->cls.n; c++) {
        const map_class *k = class_at(m, (uint32_t)c);
        const char *orig = str_at(m, k->orig);
        if (hs_platform_class(orig, strlen(orig)) && renames(m, k)) {
            *name = orig;
            return k->line;
        }
    }
    return 0;
}

/* One original frame from member line `me` of class c at obfuscated `line`. */
static hs_mapping_frame frame_of(const hs_mapping *m, uint32_t c, const map_method *me,
                                 uint32_t line)
{
    const map_class *k = class_at(m, c);
    hs_mapping_frame f;

    f.method = str_at(m, me->name);
    f.class_name = str_at(m, k->orig);
    f.source = str_at(m, k->source);
    if (me->qual) {
        const char *q = str_at(m, me->qual);
        uint32_t qc = find_class(m, m->orig_tab, m->cls_cap, 1, q, strlen(q));
        f.class_name = q;
        f.source = qc == NONE ? NULL : str_at(m, class_at(m, qc)->source);
    }
    if (me->os == NONE)
        f.line = line; /* no original range: the lines were kept */
    else if (me->a == NONE || me->oe == NONE || me->oe == me->os)
        f.line = me->os; /* one original line: a call site */
    else
        f.line = me->os + (line - me->a);
    return f;
}

/* The inline chain from `first`: the member lines right after it (in the
 * file) with its obfuscated name and range. */
static size_t chain(const hs_mapping *m, uint32_t c, uint32_t first, uint32_t line,
                    hs_mapping_frame *out, size_t cap)
{
    const map_class *k = class_at(m, c);
    const map_method *f = method_at(m, first);
    size_t count = 0;
    uint32_t i;

    for (i = first; i < k->first_mth + k->n_mth; i++) {
        const map_method *me = method_at(m, i);
        if (me->obf != f->obf || me->a != f->a || me->b != f->b)
            break;
        if (count < cap)
            out[count] = frame_of(m, c, me, line);
        count++;
    }
    return count;
}

static size_t frames_in(const hs_mapping *m, uint32_t c, uint32_t head, uint32_t line,
                        hs_mapping_frame *out, size_t cap)
{
    const map_method *h = method_at(m, head);
    uint32_t i;

    if (line)
        for (i = head; i != NONE; i = method_at(m, i)->next) {
            const map_method *me = method_at(m, i);
            if (me->a != NONE && me->a <= line && line <= me->b)
                return chain(m, c, i, line, out, cap);
        }
    for (i = head; i != NONE; i = method_at(m, i)->next)
        if (method_at(m, i)->a == NONE) {
            if (cap)
                out[0] = frame_of(m, c, method_at(m, i), line);
            return 1;
        }
    for (i = head; i != NONE; i = method_at(m, i)->next)
        if (method_at(m, i)->name != h->name || method_at(m, i)->qual != h->qual)
            return 0; /* overloads with different names: ambiguous */
    if (cap) {
        out[0] = frame_of(m, c, h, 0);
        out[0].line = 0;
    }
    return 1;
}

size_t hs_mapping_frames(const hs_mapping *m, hs_mapping_counts *n, const char *obf_class,
                         size_t cn, const char *obf_method, size_t mn, uint32_t line,
                         hs_mapping_frame *out, size_t cap)
{
    uint32_t c, *slot;
    size_t count;

    if (n)
        n->frame_lookups++;
    c = find_class(m, m->cls_tab, m->cls_cap, 0, obf_class, cn);
    if (c == NONE)
        return 0;
    slot = method_slot(m, c, obf_method, mn);
    if (!*slot)
        return 0;
    count = frames_in(m, c, *slot - 1, line, out, cap);
    if (count && n)
        n->frame_hits++;
    return count;
}

/* ---- class names as dumps spell them ------------------------------------------- */

typedef struct {
    char *buf;
    size_t cap, len;
} outbuf;

static void put(outbuf *o, char c)
{
    if (o->len + 1 < o->cap)
        o->buf[o->len] = c;
    o->len++;
}

static size_t finish(outbuf *o)
{
    if (o->cap)
        o->buf[o->len < o->cap ? o->len : o->cap - 1] = 0;
    return o->len;
}

size_t hs_mapping_class_jvm(const hs_mapping *m, hs_mapping_counts *counts, const char *name,
                            size_t n, char *buf, size_t cap)
{
    outbuf o = {buf, cap, 0};
    size_t dims = 0, i;
    const char *orig;

    while (dims < n && name[dims] == '[')
        dims++;
    if (dims) { /* [Lpkg/Name; - other element types are primitive */
        if (n - dims < 3 || name[dims] != 'L' || name[n - 1] != ';')
            return 0;
        orig = hs_mapping_class(m, counts, name + dims + 1, n - dims - 2);
    } else
        orig = hs_mapping_class(m, counts, name, n);
    if (!orig)
        return 0;
    for (i = 0; i < dims; i++)
        put(&o, '[');
    if (dims)
        put(&o, 'L');
    for (i = 0; orig[i]; i++)
        put(&o, orig[i] == '.' ? '/' : orig[i]);
    if (dims)
        put(&o, ';');
    return finish(&o);
}

size_t hs_mapping_class_art(const hs_mapping *m, hs_mapping_counts *counts, const char *name,
                            size_t n, char *buf, size_t cap)
{
    outbuf o = {buf, cap, 0};
    size_t base = n, dims = 0, i;
    const char *orig;

    while (base >= 2 && name[base - 2] == '[' && name[base - 1] == ']') {
        base -= 2;
        dims++;
    }
    if (base == 0 || !(orig = hs_mapping_class(m, counts, name, base)))
        return 0;
    for (i = 0; orig[i]; i++)
        put(&o, orig[i]);
    for (i = 0; i < dims; i++) {
        put(&o, '[');
        put(&o, ']');
    }
    return finish(&o);
}

void hs_mapping_get_counts(const hs_mapping *m, hs_mapping_counts *out)
{
    out->classes = m->cls.n;
    out->fields = m->fld.n;
    out->methods = m->mth.n;
}
