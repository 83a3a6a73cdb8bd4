/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rules.c - rule set lifecycle and verdicts.
 */
#include "rules.h"

#include <stdint.h>
#include <string.h>

#include "alloc.h"
#include "fail.h"
#include "format.h"

/* The rule language's names of heaps, root kinds and primitive types:
 * format.h's, in its tables' order. */
#define HS_X_HEAP_NAME(id, heap, name) {name, heap},
const hs_name hs_heap_names[] = {HS_HEAPS(HS_X_HEAP_NAME){NULL, 0}};
#undef HS_X_HEAP_NAME
#define HS_X_TYPE_NAME(id, code, name, size, letter) {name, code},
const hs_name hs_type_names[] = {HS_PRIMITIVE_TYPES(HS_X_TYPE_NAME){NULL, 0}};
#undef HS_X_TYPE_NAME
#define HS_X_ROOT_NAME(id, tag, name, kind, fb, fi, rule) {rule, tag},
const hs_name hs_root_names[] = {HS_ROOT_SUBRECORDS(HS_X_ROOT_NAME){NULL, 0}};
#undef HS_X_ROOT_NAME

hs_rules *hs_rules_create(const hs_alloc *alloc)
{
    hs_alloc a;
    hs_rules *r;

    hs_alloc_init(&a, alloc);
    r = hs_calloc(&a, sizeof *r);
    if (r)
        r->alloc = a;
    return r;
}

void hs_rules_free(hs_rules *r)
{
    if (r) {
        hs_alloc a = r->alloc;
        hs_mapping_free(r->mapping);
        hs_alloc_free(&a, r->message);
        hs_alloc_free(&a, r);
    }
}

void hs_rules_reset(hs_rules *r)
{
    hs_alloc a = r->alloc;
    char *message = r->message; /* the call's, not a rule */

    hs_mapping_free(r->mapping); /* a rule like the others: none drops it */
    memset(r, 0, sizeof *r);
    r->alloc = a;
    r->message = message;
}

void hs_rules_begin_call(hs_rules *r)
{
    hs_alloc_free(&r->alloc, r->message);
    r->message = NULL;
}

hs_status hs_rules_end_call(hs_rules *r, hs_status s, const hs_error *e)
{
    if (s == HS_OK)
        hs_rules_begin_call(r); /* a message kept on the way is no failure's */
    else if (!r->message || strncmp(r->message, e->message, strlen(e->message)) != 0)
        hs_keep_whole(&r->message, &r->alloc, "%s", e->message); /* no whole of e's */
    return s;
}

HS_API const char *hs_rules_message(const hs_rules *r)
{
    return r ? r->message : NULL;
}

int hs_rules_add_array(hs_rules *r, uint16_t types, uint64_t min_bytes, hs_arr_verdict v)
{
    hs_arr_rule *ar;
    unsigned i;

    /* A rule for every type with no size bound hides all before it; when
     * it keeps, it is what an empty table means already. */
    if ((types & HS_ALL_PRIMITIVES) == HS_ALL_PRIMITIVES && min_bytes == 0) {
        r->n_arr = 0;
        if (v.action == HS_ARR_KEEP)
            return 0;
    }
    /* an identical condition is replaced in place */
    for (i = 0; i < r->n_arr; i++)
        if (r->arr[i].types == types && r->arr[i].min_bytes == min_bytes) {
            memmove(r->arr + i, r->arr + i + 1, (r->n_arr - i - 1) * sizeof r->arr[0]);
            r->n_arr--;
            break;
        }
    if (r->n_arr == HS_MAX_ARRAY_RULES)
        return -1;
    ar = &r->arr[r->n_arr++];
    ar->types = types;
    ar->min_bytes = min_bytes;
    ar->verdict = v;
    return 0;
}

int hs_rules_set_heap(hs_rules *r, uint32_t heap, int drop)
{
    unsigned i;

    for (i = 0; i < r->n_heaps; i++)
        if (r->heaps[i].heap == heap) {
            r->heaps[i].drop = drop;
            return 0;
        }
    if (r->n_heaps == HS_MAX_HEAP_RULES)
        return -1;
    r->heaps[r->n_heaps].heap = heap;
    r->heaps[r->n_heaps].drop = drop;
    r->n_heaps++;
    return 0;
}

hs_arr_verdict hs_rules_array(const hs_rules *r, unsigned type, uint64_t nbytes)
{
    unsigned i = r->n_arr;
    hs_arr_verdict keep = {HS_ARR_KEEP, 0, 0};

    while (i--) {
        const hs_arr_rule *ar = &r->arr[i];
        if ((ar->types >> type & 1u) && nbytes >= ar->min_bytes)
            return ar->verdict;
    }
    return keep;
}

uint64_t hs_rules_zero_below(const hs_rules *r, unsigned type)
{
    uint64_t below = UINT64_MAX;
    unsigned i = r->n_arr;

    /* the rules are tried from the last: those before the first one that
     * covers every size decide nothing; those after it take over from
     * their own size on */
    while (i--) {
        const hs_arr_rule *ar = &r->arr[i];
        if (!(ar->types >> type & 1u))
            continue;
        if (ar->min_bytes == 0)
            return ar->verdict.action == HS_ARR_ZERO ? below : 0;
        if (ar->min_bytes < below)
            below = ar->min_bytes;
    }
    return 0; /* kept */
}

int hs_rules_heap_dropped(const hs_rules *r, uint32_t heap)
{
    unsigned i;

    for (i = 0; i < r->n_heaps; i++)
        if (r->heaps[i].heap == heap)
            return r->heaps[i].drop;
    return 0;
}

int hs_rules_drop_any_heap(const hs_rules *r)
{
    unsigned i;

    for (i = 0; i < r->n_heaps; i++)
        if (r->heaps[i].drop)
            return 1;
    return 0;
}

int hs_rules_change_lengths(const hs_rules *r)
{
    unsigned i;

    if (r->drop_unused_strings || hs_rules_drop_any_heap(r))
        return 1;
    for (i = 0; i < 256; i++)
        if (r->drop_root[i])
            return 1;
    for (i = 0; i < r->n_arr; i++)
        if (r->arr[i].verdict.action == HS_ARR_EMPTY ||
            r->arr[i].verdict.action == HS_ARR_DROP)
            return 1;
    return 0;
}

int hs_rules_remove_values(const hs_rules *r)
{
    unsigned i;

    if (r->scrub_fields || r->drop_unused_strings)
        return 1;
    for (i = 0; i < r->n_arr; i++)
        if (r->arr[i].verdict.action != HS_ARR_KEEP)
            return 1;
    return 0;
}

hs_caps hs_rules_caps(const hs_rules *r, const hs_options *opt)
{
    hs_caps c;

    /* obfuscation: the original names' STRINGs, used no more, must go
     * whatever the preset says of unused strings */
    c.drop_strings = r->drop_unused_strings || opt->obfuscate_names;
    /* obfuscated names: String.hash would confirm a guessed one, so it is
     * zeroed whatever the rules say of fields (scrub.c, hide_only) */
    c.scrub = r->scrub_fields || opt->obfuscate_names;
    c.keep_names = (r->scrub_fields && r->n_keep > 0) || (c.scrub && !r->scrub_fields);
    c.hold_roots = hs_rules_drop_any_heap(r);
    c.hashing = opt->find_duplicates;
    c.deobf = r->mapping != NULL || opt->obfuscate_names; /* one rename step, two namers */
    c.strict = hs_rules_remove_values(r);
    c.findings = opt->findings;
    /* scrubbing may hold instances back for their class: that reorders */
    c.reencode = opt->repack || opt->salvage || r->scrub_fields || hs_rules_change_lengths(r) ||
                 c.deobf; /* deobf: new STRINGs */
    /* --to-jvm re-segments a 1.0.3 dump only: the filter drops it for a
     * JVM's, which has nothing to convert and is left as it is */
    c.reencode_for_jvm = !c.reencode && opt->to_jvm;
    c.reencode |= opt->to_jvm;
    return c;
}

/* The refusal of a mapping that renames a platform class where values are
 * removed: its start in `err` (may be NULL), the whole in *whole from `a`
 * when `whole` is not NULL (the file's name may pass hs_error's room). */
static hs_status refuse_platform_mapping(const hs_rules *r, hs_error *err, char **whole,
                                         const hs_alloc *a)
{
    const char *name = NULL;
    size_t line;

    if (!r->mapping || !hs_rules_remove_values(r) ||
        !(line = hs_mapping_platform_line(r->mapping, &name)))
        return HS_OK;
    return hs_fail_whole(err, whole, a, HS_E_USAGE,
                         "%s:%zu: renames %.200s, a class of the JDK's or Android's own "
                         "packages: refused where values are removed, since a mapping may not "
                         "name the fields kept on purpose (issue #50)",
                         r->mapping_file, line, name);
}

/* The mapping `m` parsed (or NULL, `e` saying why) becomes the rules'. */
static hs_status take_mapping(hs_rules *r, hs_mapping *m, hs_error *e, const char *origin,
                              hs_error *err)
{
    size_t n;

    if (!m) {
        /* a mapping that does not parse is a bad argument, as a bad rule */
        if (e->code == HS_E_MALFORMED)
            e->code = HS_E_USAGE;
        if (err)
            *err = *e;
        return e->code;
    }
    hs_mapping_free(r->mapping);
    r->mapping = m;
    r->mapping_pending = 0;
    origin = origin ? origin : "mapping";
    n = strlen(origin) < sizeof r->mapping_file ? strlen(origin) : sizeof r->mapping_file - 1;
    memcpy(r->mapping_file, origin, n);
    r->mapping_file[n] = 0;
    if (refuse_platform_mapping(r, err, &r->message, &r->alloc) != HS_OK) {
        hs_mapping_free(r->mapping);
        r->mapping = NULL;
        return HS_E_USAGE;
    }
    return HS_OK;
}

int hs_rules_remove_fields(const hs_rules *r)
{
    return r->scrub_fields;
}

hs_status hs_rules_check_mapping(const hs_rules *r, hs_error *err)
{
    return refuse_platform_mapping(r, err, NULL, NULL);
}

char *hs_rules_mapping_refusal(const hs_rules *r)
{
    char *whole = NULL;

    refuse_platform_mapping(r, NULL, &whole, &r->alloc);
    return whole;
}

static hs_status usage(hs_error *err, const char *what)
{
    if (err)
        hs_fail_plain(err, HS_E_USAGE, "%s", what);
    return HS_E_USAGE;
}

static hs_status mapping_text(hs_rules *r, const char *text, size_t len, const char *origin,
                              hs_error *err)
{
    hs_mapping_parser *p;
    hs_error e;

    memset(&e, 0, sizeof e);
    if (!text && len)
        return usage(err, "hs_rules_mapping: no rule set, or no text for a length");
    p = hs_mapping_begin(origin, &r->alloc, 0, &e);
    if (p) { /* hs_mapping_parse, with the whole message kept */
        hs_mapping_keep_whole(p, &r->message, &r->alloc);
        hs_mapping_feed(p, text ? text : "", len);
    }
    return take_mapping(r, hs_mapping_end(p, 1), &e, origin, err);
}

hs_status hs_rules_mapping(hs_rules *r, const char *text, size_t len, const char *origin,
                           hs_error *err)
{
    hs_error e, *to = err ? err : &e; /* made either way, for hs_rules_message */

    if (!r)
        return usage(err, "hs_rules_mapping: no rule set, or no text for a length");
    hs_rules_begin_call(r);
    return hs_rules_end_call(r, mapping_text(r, text, len, origin, to), to);
}

/* The read buffer of hs_rules_mapping_read: the parse keeps no more than
 * a line of it, so its size only sets how often read is called. */
#define MAPPING_CHUNK ((size_t)64 << 10)

static hs_status mapping_read(hs_rules *r, const hs_source *src, uint64_t max_held,
                              const char *origin, hs_error *err)
{
    hs_mapping_parser *p;
    hs_error e;
    char *buf;
    long got = 0;

    memset(&e, 0, sizeof e);
    if (!src || (!src->read && !src->data))
        return usage(err, "hs_rules_mapping_read: no rule set, or no source to read");
    origin = origin ? origin : "mapping";
    buf = src->data ? NULL : hs_malloc(&r->alloc, MAPPING_CHUNK);
    p = src->data || buf ? hs_mapping_begin(origin, &r->alloc,
                                            max_held ? max_held : HS_DEFAULT_MAX_HELD, &e)
                         : NULL;
    if (!p) {
        hs_alloc_free(&r->alloc, buf);
        if (!buf && !src->data)
            hs_fail_plain(&e, HS_E_NOMEM, "%s: out of memory reading the mapping", origin);
        return take_mapping(r, NULL, &e, origin, err);
    }
    hs_mapping_keep_whole(p, &r->message, &r->alloc);
    if (src->data) { /* the text in place: one piece */
        hs_mapping_feed(p, src->data, (size_t)src->size);
        got = 0;
    }
    while (!src->data) {
        got = src->read(src->ctx, buf, MAPPING_CHUNK);
        if (got <= 0 || got > (long)MAPPING_CHUNK ||
            hs_mapping_feed(p, buf, (size_t)got) != HS_OK)
            break;
    }
    if (got < 0 || got > (long)MAPPING_CHUNK) /* the parse's error, else the read's */
        hs_fail_whole(&e, &r->message, &r->alloc, HS_E_READ, "%s: %s", origin,
                      got < 0 ? "reading the mapping failed"
                              : "the read callback returned more bytes than asked for");
    hs_alloc_free(&r->alloc, buf);
    return take_mapping(r, hs_mapping_end(p, got == 0), &e, origin, err);
}

hs_status hs_rules_mapping_read(hs_rules *r, const hs_source *src, uint64_t max_held,
                                const char *origin, hs_error *err)
{
    hs_error e, *to = err ? err : &e;

    if (!r)
        return usage(err, "hs_rules_mapping_read: no rule set, or no source to read");
    hs_rules_begin_call(r);
    return hs_rules_end_call(r, mapping_read(r, src, max_held, origin, to), to);
}

const char *hs_rules_mapping_file(const hs_rules *r)
{
    return r && r->mapping_pending ? r->mapping_file : NULL;
}

int hs_rules_root_dropped(const hs_rules *r, unsigned subtag)
{
    return r->drop_root[subtag & 0xff];
}

/* Does `text` (a class name in HotSpot's java/lang/String or ART's
 * java.lang.String form) equal `name` (dotted)? */
static int same_class_name(const uint8_t *text, size_t n, const char *name, size_t nn)
{
    size_t i;

    if (n != nn)
        return 0;
    for (i = 0; i < n; i++)
        if (!(text[i] == (uint8_t)name[i] || (text[i] == '/' && name[i] == '.')))
            return 0;
    return 1;
}

uint64_t hs_rules_keep_class_mask(const hs_rules *r, const uint8_t *text, size_t n)
{
    uint64_t m = 0;
    unsigned k;

    for (k = 0; k < r->n_keep; k++)
        if (same_class_name(text, n, r->keep[k], r->keep_class_len[k]))
            m |= 1ull << k;
    return m;
}

uint64_t hs_rules_keep_typed(const hs_rules *r, int is_static, unsigned type)
{
    uint64_t m = 0;
    unsigned k;

    for (k = 0; k < r->n_keep; k++)
        if (!r->keep_type[k] || (r->keep_type[k] == type && r->keep_static[k] == !!is_static))
            m |= 1ull << k;
    return m;
}

uint64_t hs_rules_keep_anchored(const hs_rules *r)
{
    return r->keep_anchored;
}

uint64_t hs_rules_keep_asked(const hs_rules *r)
{
    return r->keep_asked;
}

const char *hs_rules_keep_name(const hs_rules *r, unsigned k)
{
    return k < r->n_keep ? r->keep[k] : NULL;
}

uint64_t hs_rules_keep_field_mask(const hs_rules *r, const uint8_t *text, size_t n)
{
    uint64_t m = 0;
    unsigned k;

    for (k = 0; k < r->n_keep; k++) {
        size_t at = r->keep_class_len[k] + 1u; /* past the dot */
        if (n == r->keep_len[k] - at && memcmp(text, r->keep[k] + at, n) == 0)
            m |= 1ull << k;
    }
    return m;
}
