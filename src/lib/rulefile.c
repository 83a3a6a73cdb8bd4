/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rulefile.c - rule files and presets: parsing text into a rule set, and
 * printing a rule set back as text.
 *
 * The grammar, one directive a line, '#' to the end of a line a comment:
 *
 *   arrays TYPES ACTION [min SIZE]
 *       TYPES  all | a comma list of boolean char float double byte short
 *              int long
 *       ACTION keep | zero | fill BYTE | prefix COUNT | empty | drop
 *       BYTE   0..255 (decimal or 0x hex) or a character in quotes: '?'
 *       SIZE   payload bytes, with an optional K, M or G (binary) suffix
 *   strings keep | drop-unused
 *   heap NAME keep | drop          NAME: app zygote image default, or a number
 *   roots KINDS keep | drop        KINDS: all | a comma list of root kinds
 *   fields zero | keep             primitive field values (instance, static,
 *                                  constant pool); references always stay
 *   keep-field CLASS.FIELD [[static] TYPE]
 *                                  a primitive field left as it is: of
 *                                  that type (and static) when one is
 *                                  given; a JDK class's only in the one
 *                                  class of that name the bootstrap
 *                                  loader loaded (scrub.c)
 *   preset NAME                    the rules of a built-in preset, here
 *   mapping FILE                   an R8/ProGuard mapping to deobfuscate
 *                                  with: recorded for the caller to load
 *                                  (hs_rules_mapping_file), relative to
 *                                  the rule file's directory
 *
 * Presets are rule texts parsed by the same code, so --print-rules shows
 * exactly what a preset does.
 */
#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fail.h"
#include "format.h"
#include "rules.h"

typedef struct {
    const char *name, *summary, *text;
} preset;

static const preset presets[] = {
    {"none", "change nothing: the output is the input, byte for byte",
     "strings keep\n"
     "arrays all keep\n"},
    {"default", "zero every primitive-array payload, drop unused strings",
     "strings drop-unused\n"
     "arrays all zero\n"},
    {"privacy",
     "default, and zero every primitive field value too (references and String.coder stay)",
     "preset default\n"
     "fields zero\n"
     "# String's length is value.length >> coder: keep it right\n"
     "keep-field java.lang.String.coder byte\n"
     "# Unsafe field offsets, from which VisualVM tells compressed oops\n"
     "# (and so every object's size): JVM layout, not data\n"
     "keep-field java.lang.Class$Atomic.annotationDataOffset static long\n"
     "keep-field java.lang.Class$Atomic.annotationTypeOffset static long\n"
     "keep-field java.util.concurrent.FutureTask.runnerOffset static long\n"
     "keep-field java.util.concurrent.FutureTask.waitersOffset static long\n"},
    {"android-app",
     "default, and drop the zygote and image heaps' objects (and the roots naming them)",
     "preset default\n"
     "heap zygote drop\n"
     "heap image drop\n"},
    {NULL, NULL, NULL}};

/* ---- parsing --------------------------------------------------------------- */

typedef struct {
    const char *p; /* token start */
    size_t n;      /* token length */
    size_t col;    /* 1-based column */
} token;

#define MAX_TOKENS 8

typedef struct {
    hs_rules *rules;
    const char *origin;
    size_t line;
    hs_error *err;
    int depth; /* preset nesting */
} parser;

static hs_status perr(parser *ps, size_t col, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static hs_status perr(parser *ps, size_t col, const char *fmt, ...)
{
    char msg[300], *p; /* room for the list of root kinds */
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    for (p = msg; *p; p++) /* the offending text may hold anything: one line */
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    /* a long origin (a path) passes hs_error's room: the whole is kept */
    return hs_fail_whole(ps->err, &ps->rules->message, &ps->rules->alloc, HS_E_USAGE,
                         "%s:%zu:%zu: %s", ps->origin, ps->line, col, msg);
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

static int tok_is(const token *t, const char *s)
{
    return strlen(s) == t->n && memcmp(t->p, s, t->n) == 0;
}

/* Splits one line into tokens; a quoted character ('x', even ' ' or '#')
 * is one token. Returns the count, or -1 with `*bad` set past MAX_TOKENS. */
static int tokenize(const char *line, size_t len, token *t, size_t *bad)
{
    size_t i = 0;
    int n = 0;

    while (i < len) {
        size_t start;
        while (i < len && is_space(line[i]))
            i++;
        if (i == len || line[i] == '#')
            break;
        start = i;
        if (line[i] == '\'' && i + 2 < len && line[i + 2] == '\'')
            i += 3;
        else
            for (;;) {
                size_t k;
                while (i < len && !is_space(line[i]) && line[i] != '#')
                    i++;
                /* a comma list may have spaces around its commas
                 * ("char,  byte"): one token still */
                for (k = i; k < len && is_space(line[k]); k++)
                    ;
                if (k == i || k == len || line[k] == '#' ||
                    (line[i - 1] != ',' && line[k] != ','))
                    break;
                i = k;
            }
        if (n == MAX_TOKENS) {
            *bad = start + 1;
            return -1;
        }
        t[n].p = line + start;
        t[n].n = i - start;
        t[n].col = start + 1;
        n++;
    }
    return n;
}

/* An unsigned number: decimal or 0x hex, optional K/M/G suffix when
 * `suffix` is set. Returns 0 on success. */
static int parse_number(const token *t, int suffix, uint64_t *out)
{
    char buf[32], *end;
    unsigned long long v;
    uint64_t mul = 1;
    size_t n = t->n;

    if (n == 0 || n >= sizeof buf || t->p[0] == '-' || t->p[0] == '+')
        return -1;
    memcpy(buf, t->p, n);
    buf[n] = 0;
    if (suffix && n > 1) {
        switch (buf[n - 1]) {
        case 'k': case 'K': mul = 1ull << 10; buf[--n] = 0; break;
        case 'm': case 'M': mul = 1ull << 20; buf[--n] = 0; break;
        case 'g': case 'G': mul = 1ull << 30; buf[--n] = 0; break;
        default: break;
        }
    }
    v = strtoull(buf, &end, 0);
    if (*end || end == buf || v > UINT64_MAX / mul)
        return -1;
    *out = (uint64_t)v * mul;
    return 0;
}

static const hs_name *find_name(const hs_name *names, const char *p, size_t n)
{
    for (; names->name; names++)
        if (strlen(names->name) == n && memcmp(names->name, p, n) == 0)
            return names;
    return NULL;
}

/* The names a comma list may hold, for an error message: "a, b, c". */
static void name_list(const hs_name *names, char *buf, size_t cap)
{
    size_t at = 0;

    buf[0] = 0;
    for (; names->name && at < cap; names++) {
        int k = snprintf(buf + at, cap - at, "%s%s", at ? ", " : "", names->name);
        if (k < 0)
            break;
        at += (size_t)k;
    }
}

/* Comma list of names (or "all") into a bit set over codes. */
static hs_status parse_set(parser *ps, const token *t, const hs_name *names,
                           const char *what, uint8_t *set, size_t setn)
{
    size_t i = 0;

    if (tok_is(t, "all")) {
        for (; names->name; names++)
            if (names->code < setn)
                set[names->code] = 1;
        return HS_OK;
    }
    while (i <= t->n) {
        size_t j = i;
        const hs_name *nm;
        size_t e;
        while (i < t->n && is_space(t->p[i]))
            i++;
        j = i;
        while (j < t->n && t->p[j] != ',')
            j++;
        for (e = j; e > i && is_space(t->p[e - 1]); e--)
            ;
        nm = find_name(names, t->p + i, e - i);
        if (!nm) {
            char list[512];
            name_list(names, list, sizeof list);
            return perr(ps, t->col + i, "unknown %s '%.*s' (all, or a list of: %s)", what,
                        (int)(e - i), t->p + i, list);
        }
        set[nm->code] = 1;
        i = j + 1;
    }
    return HS_OK;
}

static hs_status keep_or_drop(parser *ps, const token *t, int *drop)
{
    if (tok_is(t, "keep"))
        *drop = 0;
    else if (tok_is(t, "drop"))
        *drop = 1;
    else
        return perr(ps, t->col, "expected 'keep' or 'drop', found '%.*s'", (int)(t->n), t->p);
    return HS_OK;
}

static hs_status need_args(parser *ps, const token *t, int n, int want, const char *usage)
{
    if (n < want)
        return perr(ps, t[n - 1].col + t[n - 1].n, "missing words: the form is '%.*s'", (int)(strlen(usage)), usage);
    if (n > want)
        return perr(ps, t[want].col, "unexpected '%.*s' at the end of the line", (int)(t[want].n), t[want].p);
    return HS_OK;
}

static hs_status do_arrays(parser *ps, const token *t, int n)
{
    static const char usage[] = "arrays TYPES keep|zero|fill BYTE|prefix COUNT|empty|drop "
                                "[min SIZE]";
    uint8_t set[16];
    uint16_t types = 0;
    hs_arr_verdict v;
    uint64_t min = 0, num;
    int k = 3;
    unsigned i;

    if (n < 3)
        return need_args(ps, t, n, 3, usage);
    memset(set, 0, sizeof set);
    memset(&v, 0, sizeof v);
    HS_TRY(parse_set(ps, &t[1], hs_type_names, "array type", set, sizeof set));
    for (i = 0; i < 16; i++)
        if (set[i])
            types |= (uint16_t)(1u << i);
    if (tok_is(&t[2], "keep")) {
        v.action = HS_ARR_KEEP;
    } else if (tok_is(&t[2], "zero")) {
        v.action = HS_ARR_ZERO;
    } else if (tok_is(&t[2], "empty")) {
        v.action = HS_ARR_EMPTY;
    } else if (tok_is(&t[2], "drop")) {
        v.action = HS_ARR_DROP;
    } else if (tok_is(&t[2], "fill") || tok_is(&t[2], "prefix")) {
        int fill = tok_is(&t[2], "fill");
        if (n < 4)
            return perr(ps, t[2].col + t[2].n, "'%.*s' needs a value", (int)(t[2].n), t[2].p);
        if (fill && t[3].n == 3 && t[3].p[0] == '\'' && t[3].p[2] == '\'') {
            num = (unsigned char)t[3].p[1];
        } else if (parse_number(&t[3], 0, &num) != 0 || (fill && num > 255) ||
                   num > UINT32_MAX) { /* an array's length is a u4 */
            return perr(ps, t[3].col,
                        fill ? "fill takes a byte (0..255, 0x.., or a quoted character), "
                               "not '%.*s'"
                             : "prefix takes a number of elements (0 to 4294967295), "
                               "not '%.*s'", (int)(t[3].n), t[3].p);
        }
        v.action = fill ? HS_ARR_FILL : HS_ARR_PREFIX;
        if (fill)
            v.fill = (uint8_t)num;
        else
            v.prefix = num;
        k = 4;
    } else {
        return perr(ps, t[2].col,
                    "unknown array action '%.*s' (keep, zero, fill, prefix, empty, drop)", (int)(t[2].n), t[2].p);
    }
    if (n > k) {
        if (!tok_is(&t[k], "min"))
            return perr(ps, t[k].col, "expected 'min SIZE' or the end of the line, found '%.*s'", (int)(t[k].n), t[k].p);
        if (n == k + 1)
            return perr(ps, t[k].col + t[k].n, "'min' needs a size");
        if (parse_number(&t[k + 1], 1, &min) != 0)
            return perr(ps, t[k + 1].col, "bad size '%.*s' (bytes, optionally with K, M or G)", (int)(t[k + 1].n), t[k + 1].p);
        if (n > k + 2)
            return perr(ps, t[k + 2].col, "unexpected '%.*s' at the end of the line", (int)(t[k + 2].n), t[k + 2].p);
    }
    if (hs_rules_add_array(ps->rules, types, min, v) != 0)
        return perr(ps, t[0].col, "too many array rules");
    return HS_OK;
}

static hs_status apply_preset(parser *ps, const char *name, size_t n, size_t col);

/* mapping FILE: the rest of the line (a path may hold blanks), taken
 * relative to the directory of the rule file (its origin) unless absolute.
 * The core opens no file: the caller loads it (hs_rules_mapping_file). */
static hs_status do_mapping(parser *ps, const token *t, int n)
{
    hs_rules *r = ps->rules;
    const char *path = t[1].p, *slash = strrchr(ps->origin, '/');
    size_t len, dir = 0;

    if (n < 2)
        return perr(ps, t[0].col + t[0].n, "expected: mapping FILE");
    len = (size_t)(t[n - 1].p + t[n - 1].n - path);
    if (path[0] != '/' && slash && ps->depth == 0)
        dir = (size_t)(slash - ps->origin) + 1;
    if (dir + len >= sizeof r->mapping_file)
        return perr(ps, t[1].col, "the mapping file's path is too long");
    memcpy(r->mapping_file, ps->origin, dir);
    memcpy(r->mapping_file + dir, path, len);
    r->mapping_file[dir + len] = 0;
    r->mapping_pending = 1;
    return HS_OK;
}

static hs_status do_strings(parser *ps, const token *t, int n)
{
    HS_TRY(need_args(ps, t, n, 2, "strings keep|drop-unused"));
    if (tok_is(&t[1], "keep"))
        ps->rules->drop_unused_strings = 0;
    else if (tok_is(&t[1], "drop-unused"))
        ps->rules->drop_unused_strings = 1;
    else
        return perr(ps, t[1].col, "expected 'keep' or 'drop-unused', found '%.*s'",
                    (int)(t[1].n), t[1].p);
    return HS_OK;
}

static hs_status do_heap(parser *ps, const token *t, int n)
{
    const hs_name *nm;
    char list[64];
    uint64_t id;
    int drop;

    HS_TRY(need_args(ps, t, n, 3, "heap NAME keep|drop"));
    nm = find_name(hs_heap_names, t[1].p, t[1].n);
    if (nm)
        id = nm->code;
    else if (parse_number(&t[1], 0, &id) != 0 || id > UINT32_MAX) {
        name_list(hs_heap_names, list, sizeof list);
        return perr(ps, t[1].col, "unknown heap '%.*s' (%s, or a heap id)", (int)(t[1].n), t[1].p,
                    list);
    }
    HS_TRY(keep_or_drop(ps, &t[2], &drop));
    if (hs_rules_set_heap(ps->rules, (uint32_t)id, drop) != 0)
        return perr(ps, t[0].col, "too many heap rules");
    return HS_OK;
}

static hs_status do_roots(parser *ps, const token *t, int n)
{
    uint8_t set[256];
    unsigned i;
    int drop;

    HS_TRY(need_args(ps, t, n, 3, "roots KINDS keep|drop"));
    memset(set, 0, sizeof set);
    HS_TRY(parse_set(ps, &t[1], hs_root_names, "root kind", set, sizeof set));
    HS_TRY(keep_or_drop(ps, &t[2], &drop));
    for (i = 0; i < 256; i++)
        if (set[i])
            ps->rules->drop_root[i] = (uint8_t)drop;
    return HS_OK;
}

static hs_status do_fields(parser *ps, const token *t, int n)
{
    HS_TRY(need_args(ps, t, n, 2, "fields zero|keep"));
    if (tok_is(&t[1], "zero"))
        ps->rules->scrub_fields = 1;
    else if (tok_is(&t[1], "keep"))
        ps->rules->scrub_fields = 0;
    else
        return perr(ps, t[1].col, "expected 'zero' or 'keep', found '%.*s'", (int)t[1].n,
                    t[1].p);
    return HS_OK;
}

/* keep-field's optional declared type: [static] TYPE after the name. */
static hs_status keep_type(parser *ps, const token *t, int n, unsigned *type, int *is_static)
{
    const hs_name *nm;
    char list[128];
    int at = 2;

    *type = 0;
    *is_static = 0;
    if (n == 2)
        return HS_OK;
    if (n == 4) {
        if (!tok_is(&t[2], "static"))
            return perr(ps, t[2].col, "expected 'static' or a type, found '%.*s'", (int)t[2].n,
                        t[2].p);
        *is_static = 1;
        at = 3;
    }
    for (nm = hs_type_names; nm->name; nm++)
        if (tok_is(&t[at], nm->name)) {
            *type = nm->code;
            return HS_OK;
        }
    name_list(hs_type_names, list, sizeof list);
    return perr(ps, t[at].col, "unknown field type '%.*s' (%s)", (int)t[at].n, t[at].p, list);
}

static hs_status do_keep_field(parser *ps, const token *t, int n)
{
    hs_rules *r = ps->rules;
    const char *dot;
    unsigned k, type;
    int is_static;
    static const char usage[] = "keep-field CLASS.FIELD [[static] TYPE]";

    HS_TRY(need_args(ps, t, n, n < 2 ? 2 : n > 4 ? 4 : n, usage));
    HS_TRY(keep_type(ps, t, n, &type, &is_static));
    dot = memchr(t[1].p, '.', t[1].n) ? t[1].p + t[1].n : NULL;
    while (dot && dot > t[1].p && dot[-1] != '.')
        dot--;
    if (!dot || dot - 1 == t[1].p || dot == t[1].p + t[1].n || t[1].n >= HS_MAX_NAME)
        return perr(ps, t[1].col, "expected a class and field name such as "
                    "java.lang.Thread.priority, found '%.*s'", (int)t[1].n, t[1].p);
    for (k = 0; k < r->n_keep; k++)
        if (strlen(r->keep[k]) == t[1].n && memcmp(r->keep[k], t[1].p, t[1].n) == 0)
            break;
    if (k == HS_MAX_KEEP_FIELDS)
        return perr(ps, t[0].col, "too many keep-field rules");
    if (k == r->n_keep) {
        memcpy(r->keep[k], t[1].p, t[1].n);
        r->keep[k][t[1].n] = 0;
        r->keep_len[k] = (uint16_t)t[1].n;
        r->keep_class_len[k] = (uint16_t)(dot - 1 - t[1].p);
        r->n_keep++;
    }
    r->keep_type[k] = (uint8_t)type;
    r->keep_static[k] = (uint8_t)is_static;
    if (hs_platform_class(r->keep[k], r->keep_class_len[k]))
        r->keep_anchored |= 1ull << k;
    if (ps->depth == 0) /* a preset's entries may not apply to every dump */
        r->keep_asked |= 1ull << k;
    return HS_OK;
}

static hs_status directive(parser *ps, const token *t, int n)
{
    if (tok_is(&t[0], "arrays"))
        return do_arrays(ps, t, n);
    if (tok_is(&t[0], "strings"))
        return do_strings(ps, t, n);
    if (tok_is(&t[0], "heap"))
        return do_heap(ps, t, n);
    if (tok_is(&t[0], "roots"))
        return do_roots(ps, t, n);
    if (tok_is(&t[0], "fields"))
        return do_fields(ps, t, n);
    if (tok_is(&t[0], "keep-field"))
        return do_keep_field(ps, t, n);
    if (tok_is(&t[0], "mapping"))
        return do_mapping(ps, t, n);
    if (tok_is(&t[0], "preset")) {
        HS_TRY(need_args(ps, t, n, 2, "preset NAME"));
        return apply_preset(ps, t[1].p, t[1].n, t[1].col);
    }
    return perr(ps, t[0].col,
                "unknown directive '%.*s' (arrays, strings, heap, roots, fields, keep-field, "
                "mapping, preset)", (int)(t[0].n), t[0].p);
}

static hs_status parse_text(parser *ps, const char *text, size_t len)
{
    size_t at = 0;

    ps->line = 0;
    while (at < len) {
        const char *line = text + at;
        const char *nl = memchr(line, '\n', len - at);
        size_t n = nl ? (size_t)(nl - line) : len - at, bad = 0;
        token t[MAX_TOKENS];
        int k;

        ps->line++;
        at += n + (nl != NULL);
        if (memchr(line, 0, n))
            return perr(ps, (size_t)((const char *)memchr(line, 0, n) - line) + 1,
                        "NUL byte in rule text");
        k = tokenize(line, n, t, &bad);
        if (k < 0)
            return perr(ps, bad, "too many words on one line");
        if (k > 0)
            HS_TRY(directive(ps, t, k));
    }
    return HS_OK;
}

static hs_status apply_preset(parser *ps, const char *name, size_t n, size_t col)
{
    const preset *p;

    for (p = presets; p->name; p++)
        if (strlen(p->name) == n && memcmp(p->name, name, n) == 0) {
            parser sub = *ps;
            hs_status s;
            char origin[64];
            if (ps->depth > 4)
                return perr(ps, col, "presets nest too deep at '%.*s'", (int)(n), name);
            if (strcmp(p->name, "none") == 0)
                hs_rules_reset(ps->rules); /* none means none, whatever came before */
            snprintf(origin, sizeof origin, "preset %s", p->name);
            sub.origin = origin;
            sub.depth++;
            s = parse_text(&sub, p->text, strlen(p->text));
            return s;
        }
    {
        char list[80] = ""; /* the presets' names, as the table lists them */
        for (p = presets; p->name; p++) {
            assert(strlen(list) + strlen(p->name) + 3 <= sizeof list);
            if (p != presets)
                strcat(list, ", ");
            strcat(list, p->name);
        }
        return perr(ps, col, "unknown preset '%.*s' (%s)", (int)(n), name, list);
    }
}

/* A public function called with a NULL it cannot work with: the caller's
 * mistake, said in `err` (when given), as hs_filter_run's HS_E_USAGE. */
static hs_status usage(hs_error *err, const char *what)
{
    if (err)
        hs_fail_plain(err, HS_E_USAGE, "%s", what);
    return HS_E_USAGE;
}

static hs_status parse_rules(hs_rules *rules, const char *text, size_t len, const char *origin,
                             hs_error *err)
{
    parser ps;

    if (!text && len)
        return usage(err, "hs_rules_parse: no rule set, or no text for a length");
    if (!text)
        return HS_OK; /* no text: no rule */
    memset(&ps, 0, sizeof ps);
    ps.rules = rules;
    ps.origin = origin ? origin : "rules";
    ps.err = err;
    /* a UTF-8 byte-order mark, as some Windows editors write, is no text */
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
        text += 3, len -= 3;
    return parse_text(&ps, text, len);
}

hs_status hs_rules_parse(hs_rules *rules, const char *text, size_t len, const char *origin,
                         hs_error *err)
{
    hs_error e, *to = err ? err : &e; /* made either way, for hs_rules_message */

    if (!rules)
        return usage(err, "hs_rules_parse: no rule set, or no text for a length");
    hs_rules_begin_call(rules);
    return hs_rules_end_call(rules, parse_rules(rules, text, len, origin, to), to);
}

static hs_status apply_named_preset(hs_rules *rules, const char *name, hs_error *err)
{
    parser ps;

    if (!name)
        return usage(err, "hs_rules_preset: no rule set, or no preset name");
    if (!hs_preset_summary(name)) /* said as such: the name is no rule text */
        return hs_fail_plain(err, HS_E_USAGE,
                             "unknown preset '%.200s' (none, default, privacy, android-app)",
                             name);
    memset(&ps, 0, sizeof ps);
    ps.rules = rules;
    ps.origin = "preset"; /* for a nested preset's mistake, which is ours */
    ps.line = 1;
    ps.err = err;
    return apply_preset(&ps, name, strlen(name), 1);
}

hs_status hs_rules_preset(hs_rules *rules, const char *name, hs_error *err)
{
    hs_error e, *to = err ? err : &e;

    if (!rules)
        return usage(err, "hs_rules_preset: no rule set, or no preset name");
    hs_rules_begin_call(rules);
    return hs_rules_end_call(rules, apply_named_preset(rules, name, to), to);
}

const char *hs_preset_summary(const char *name)
{
    const preset *p;

    if (!name)
        return NULL;
    for (p = presets; p->name; p++)
        if (strcmp(p->name, name) == 0)
            return p->summary;
    return NULL;
}

const char *hs_preset_name(size_t i)
{
    return i < sizeof presets / sizeof presets[0] - 1 ? presets[i].name : NULL;
}

/* ---- printing -------------------------------------------------------------- */

typedef struct {
    char *buf;
    size_t cap, len;
} sbuf;

static void put(sbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void put(sbuf *b, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(b->len < b->cap ? b->buf + b->len : NULL,
                  b->len < b->cap ? b->cap - b->len : 0, fmt, ap);
    va_end(ap);
    if (n > 0)
        b->len += (size_t)n;
}

static void put_set(sbuf *b, const hs_name *names, const uint8_t *set)
{
    const hs_name *nm;
    int all = 1, first = 1;

    for (nm = names; nm->name; nm++)
        all &= set[nm->code] != 0;
    if (all) {
        put(b, "all");
        return;
    }
    for (nm = names; nm->name; nm++)
        if (set[nm->code]) {
            put(b, "%s%s", first ? "" : ",", nm->name);
            first = 0;
        }
}

size_t hs_rules_print(const hs_rules *r, char *buf, size_t cap)
{
    sbuf b = {buf, cap, 0};
    unsigned i, j;
    const hs_name *nm;
    uint8_t set[256];

    if (!buf)
        b.cap = cap = 0; /* as snprintf(NULL, 0, ...): only the length */
    if (cap)
        buf[0] = 0;
    if (!r)
        return 0;
    put(&b, "strings %s\n", r->drop_unused_strings ? "drop-unused" : "keep");
    if (r->n_arr == 0 || (r->arr[0].types & HS_ALL_PRIMITIVES) != HS_ALL_PRIMITIVES ||
        r->arr[0].min_bytes)
        put(&b, "arrays all keep\n");
    for (i = 0; i < r->n_arr; i++) {
        const hs_arr_rule *a = &r->arr[i];
        static const char *const action[] = {"keep", "zero", "fill", "prefix", "empty", "drop"};
        memset(set, 0, sizeof set);
        for (j = 0; j < 16; j++)
            set[j] = (uint8_t)(a->types >> j & 1u);
        put(&b, "arrays ");
        put_set(&b, hs_type_names, set);
        put(&b, " %s", action[a->verdict.action]);
        if (a->verdict.action == HS_ARR_FILL) {
            if (a->verdict.fill > 0x20 && a->verdict.fill < 0x7f && a->verdict.fill != '\'')
                put(&b, " '%c'", a->verdict.fill);
            else
                put(&b, " 0x%02x", a->verdict.fill);
        }
        if (a->verdict.action == HS_ARR_PREFIX)
            put(&b, " %llu", (unsigned long long)a->verdict.prefix);
        if (a->min_bytes)
            put(&b, " min %llu", (unsigned long long)a->min_bytes);
        put(&b, "\n");
    }
    for (i = 0; i < r->n_heaps; i++) {
        const char *name = NULL;
        for (nm = hs_heap_names; nm->name; nm++)
            if (nm->code == r->heaps[i].heap)
                name = nm->name;
        if (name)
            put(&b, "heap %s %s\n", name, r->heaps[i].drop ? "drop" : "keep");
        else
            put(&b, "heap %u %s\n", (unsigned)r->heaps[i].heap,
                r->heaps[i].drop ? "drop" : "keep");
    }
    if (r->scrub_fields)
        put(&b, "fields zero\n");
    for (i = 0; i < r->n_keep; i++)
        put(&b, "keep-field %s%s%s%s\n", r->keep[i], r->keep_type[i] ? " " : "",
            r->keep_static[i] ? "static " : "", r->keep_type[i] ? hs_type_name(r->keep_type[i]) : "");
    memcpy(set, r->drop_root, sizeof set);
    for (j = 0, nm = hs_root_names; nm->name; nm++)
        j += set[nm->code] != 0;
    if (j)
        put(&b, "roots "), put_set(&b, hs_root_names, set), put(&b, " drop\n");
    if (r->mapping_file[0])
        put(&b, "mapping %s\n", r->mapping_file);
    return b.len;
}
