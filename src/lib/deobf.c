/* SPDX-License-Identifier: Apache-2.0 */
/*
 * deobf.c - applying an R8/ProGuard mapping to the stream, in the one pass.
 *
 * What is renamed, and how:
 *
 *  - Class names. STRING records come before the LOAD_CLASS that names
 *    them, so the text of each STRING that spells an obfuscated class (or
 *    member) name is kept, by id, as it passes. At a LOAD_CLASS naming one,
 *    a NEW STRING record with a fresh id holds the original name (in the
 *    dump's own spelling: com/example/Foo and [Lcom/example/Foo; for
 *    HotSpot, com.example.Foo[] for ART), written just before the
 *    LOAD_CLASS, whose name id is pointed at it. The input STRING is not
 *    rewritten in place: it went out (or was held) before any LOAD_CLASS
 *    showed it is a class name, and the same text is often a field or
 *    method name too ("a" is a class, a field and a method in most apps),
 *    which must keep it. When unused strings are dropped, the obfuscated
 *    STRING goes with the others no record uses any more.
 *
 *  - Field names. Obfuscated field names are shared by many classes, so a
 *    field gets a STRING of its original name, one per distinct name, and
 *    the CLASS_DUMP's name id (a fixed-size id: the sub-record keeps its
 *    length) is pointed at it. Every LOAD_CLASS of HotSpot and ART dumps
 *    comes before the heap dump, so the STRINGs of every renamed field of
 *    every loaded class are written before the heap dump starts: no
 *    STRING has to stand between heap segments, which VisualVM's reader
 *    cannot take. A CLASS_DUMP needing one that was not written (a class
 *    loaded after the heap dump began) gets it written then, as a
 *    top-level record (ahead of the held-back stage when there is one).
 *
 *  - Stack frames. A STACK_FRAME's method name (and source file, when R8's
 *    metadata gives it) become the original ones and its line number the
 *    original line, by retrace's rule (hs_mapping_frames). A frame into
 *    which methods were inlined stands for several original frames; one
 *    STACK_FRAME stays one frame, and it takes the OUTERMOST: the method
 *    the class really has, at the line of the call that was inlined, so
 *    that the frame's class (its serial, unchanged) and method still agree.
 *
 * Fresh ids come from the top of the id space ([2^64 - 2^36, ...) for
 * 8-byte ids, [2^32 - 2^24, ...) for 4-byte ones; obfuscation the range
 * just below, [2^64 - 2^37, 2^64 - 2^36) and [2^32 - 2^25, 2^32 - 2^24),
 * so that restoring an obfuscated dump meets none of its own): HotSpot's
 * ids are user-space addresses and ART's small counters, so neither lands
 * there.
 * An input STRING that does anyway is remembered and its id never given
 * out; one that comes after its id was given out is an error that says so.
 *
 * Memory: the mapping, the held texts and the tables all count under
 * max_held as one holder (HS_HOLD_MAPPING).
 */
#include "deobf.h"

#include <string.h>

#include "alloc.h"
#include "be.h"
#include "classdump.h"
#include "format.h"

#define MAX_HELD_NAME HS_NAME_TEXT_MAX /* no class or member name is longer */

/* ---- the mapping as a namer ------------------------------------------------ *
 * The namer's ctx is the hs_deobf: the mapping is read-only (shared by
 * every filter of the rule set), and what its lookups count goes to the
 * filter's own hs_deobf.counts. */

static size_t map_bytes(void *ctx)
{
    const hs_deobf *d = ctx;

    return hs_mapping_bytes(d->m);
}

static size_t map_class(hs_deobf *d, const char *s, size_t n, int art, char *buf, size_t cap)
{
    return art ? hs_mapping_class_art(d->m, &d->counts, s, n, buf, cap)
               : hs_mapping_class_jvm(d->m, &d->counts, s, n, buf, cap);
}

static int map_wants(void *ctx, const char *s, size_t n, int art)
{
    hs_deobf *d = ctx;

    return s[0] == '(' || /* a signature may name obfuscated classes */
           hs_mapping_is_member(d->m, s, n) || map_class(d, s, n, art, NULL, 0);
}

static size_t map_class_name(void *ctx, const char *s, size_t n, int art, char *buf, size_t cap)
{
    return map_class(ctx, s, n, art, buf, cap);
}

static const char *map_field(void *ctx, const char *cls, size_t cn, const char *f, size_t fn,
                             unsigned type)
{
    hs_deobf *d = ctx;

    (void)type;
    return hs_mapping_field(d->m, &d->counts, cls, cn, f, fn);
}

static size_t map_frames(void *ctx, const char *cls, size_t cn, const char *m, size_t mn,
                         const char *sig, size_t sn, const char *src, size_t srcn, uint32_t line,
                         hs_mapping_frame *out, size_t cap)
{
    hs_deobf *d = ctx;

    (void)sig, (void)sn, (void)src, (void)srcn;
    return hs_mapping_frames(d->m, &d->counts, cls, cn, m, mn, line, out, cap);
}

/* Each class Lname; of a descriptor the mapping renames, by its original. */
static size_t map_signature(void *ctx, const char *sig, size_t sn, char *buf, size_t cap)
{
    char t[1100];
    size_t i = 0, at = 0, j, len, changed = 0;

    while (i < sn) {
        const char *p = sig + i;
        size_t pn = 1;
        if (sig[i] == 'L') {
            for (j = i + 1; j < sn && sig[j] != ';'; j++)
                ;
            if (j == sn)
                return 0;
            len = map_class(ctx, sig + i + 1, j - i - 1, 0, t + 1, sizeof t - 2);
            pn = j + 1 - i;
            if (len && len < sizeof t - 3 && !(len == pn - 2 && memcmp(t + 1, p + 1, len) == 0)) {
                t[0] = 'L';
                t[len + 1] = ';';
                p = t;
                pn = len + 2;
                changed = 1;
            }
            i = j + 1;
        } else {
            i++;
        }
        if (at + pn < cap)
            memcpy(buf + at, p, pn);
        at += pn;
    }
    if (!changed)
        return 0;
    if (at < cap)
        buf[at] = 0;
    return at;
}

static size_t map_class_fields(void *ctx, const char *cls, size_t cn, size_t start,
                               const char **orig, const char **obf, size_t cap)
{
    const hs_deobf *d = ctx;

    return hs_mapping_class_fields(d->m, cls, cn, start, orig, obf, cap);
}

void hs_deobf_init(hs_deobf *d, const hs_mapping *m, int obfuscate, hs_ctx *c, hs_enc *e,
                   hs_strings *str)
{
    memset(d, 0, sizeof *d);
    d->m = m;
    if (obfuscate) {
        hs_obf_init(&d->obf, &c->alloc);
        hs_obf_namer(&d->obf, &d->nm);
        d->on = 1;
    } else if (m) {
        d->nm.ctx = d;
        d->nm.bytes = map_bytes;
        d->nm.wants = map_wants;
        d->nm.class_name = map_class_name;
        d->nm.field = map_field;
        d->nm.frames = map_frames;
        d->nm.signature = map_signature;
        d->nm.class_fields = map_class_fields;
        d->on = 1;
    }
    hs_names_init(&d->own, &c->alloc);
    d->c = c;
    d->e = e;
    d->str = str;
    hs_idmap_init(&d->held, &c->alloc);
    hs_idmap_init(&d->classes, &c->alloc);
    hs_idmap_init(&d->serials, &c->alloc);
    hs_idmap_init(&d->loaded, &c->alloc);
    hs_idmap_init(&d->renamed, &c->alloc);
    hs_idmap_init(&d->fresh, &c->alloc);
    hs_idmap_init(&d->reserved, &c->alloc);
}

void hs_deobf_free(hs_deobf *d)
{
    hs_alloc *a;

    if (!d->c) /* never initialised */
        return;
    a = &d->c->alloc;
    hs_idmap_free(&d->held);
    hs_idmap_free(&d->classes);
    hs_idmap_free(&d->serials);
    hs_idmap_free(&d->loaded);
    hs_idmap_free(&d->renamed);
    hs_idmap_free(&d->fresh);
    hs_idmap_free(&d->reserved);
    hs_alloc_free(a, d->text);
    hs_alloc_free(a, d->scratch);
    hs_alloc_free(a, d->frames);
    hs_names_free(&d->own);
    hs_obf_free(&d->obf);
}

static hs_status nomem(hs_deobf *d)
{
    return hs_fail_io(d->c, HS_E_NOMEM, "");
}

static hs_status held_changed(hs_deobf *d)
{
    if (d->obf.nomem) /* an allocation in the generator failed */
        return nomem(d);
    uint64_t b = d->nm.bytes(d->nm.ctx) + hs_names_bytes(&d->own) + d->text_cap + d->scratch_cap +
                 d->frames_cap * sizeof *d->frames + hs_idmap_bytes(&d->held) +
                 hs_idmap_bytes(&d->classes) + hs_idmap_bytes(&d->serials) +
                 hs_idmap_bytes(&d->loaded) +
                 hs_idmap_bytes(&d->renamed) + hs_idmap_bytes(&d->fresh) +
                 hs_idmap_bytes(&d->reserved);
    return hs_hold(d->c, HS_HOLD_MAPPING, b);
}

hs_status hs_deobf_start(hs_deobf *d, int version)
{
    d->version = version;
    /* obfuscation takes the range below deobfuscation's, so that --mapping
     * on an obfuscated dump finds none of its own ids taken */
    if (d->c->idsize == 8) {
        d->base = d->m ? 0xFFFFFFF000000000ull : 0xFFFFFFE000000000ull;
        d->limit = d->m ? UINT64_MAX : 0xFFFFFFF000000000ull;
    } else {
        d->base = d->m ? 0xFF000000ull : 0xFE000000ull;
        d->limit = d->m ? 0xFFFFFFFFull : 0xFF000000ull;
    }
    d->next = d->base;
    return held_changed(d);
}

/* ---- a zero-copy source, read through a copy (unless it may be written) ---- */

static long read_copy(void *ctx, void *buf, size_t cap)
{
    hs_deobf *d = ctx;
    uint64_t left = d->user.size - d->user_pos;
    size_t n = left < cap ? (size_t)left : cap;

    memcpy(buf, (const uint8_t *)d->user.data + d->user_pos, n);
    d->user_pos += n;
    if (d->user.window) /* what was copied is done with */
        d->user.window(d->user.ctx, d->user_pos, d->user_pos);
    return (long)n;
}

static long read_lent(void *ctx, void *buf, size_t cap)
{
    hs_deobf *d = ctx;
    size_t n;

    if (d->user_pos == d->lent_len) {
        const void *p = NULL;
        long got = d->user.borrow(d->user.ctx, &p);
        if (got <= 0)
            return got;
        d->lent = p;
        d->lent_len = (size_t)got;
        d->user_pos = 0;
    }
    n = d->lent_len - (size_t)d->user_pos;
    if (n > cap)
        n = cap;
    memcpy(buf, d->lent + d->user_pos, n);
    d->user_pos += n;
    return (long)n;
}

void hs_deobf_source(hs_deobf *d, const hs_source *in, int writable, hs_source *out)
{
    *out = *in;
    if (!in->data && !in->borrow)
        return;
    /* A file input.c mapped (privately) is patched where it lies: only the
     * pages of the records renamed are copied, on write, where copying all
     * of it cost up to a third more CPU on a small-object dump (issue #38). */
    if (in->data && writable)
        return;
    d->user = *in;
    d->user_pos = 0;
    d->lent = NULL;
    d->lent_len = 0;
    memset(out, 0, sizeof *out);
    out->read = in->data ? read_copy : read_lent;
    out->ctx = d;
}

/* ---- held texts ------------------------------------------------------------- */

static const char *held_text(const hs_deobf *d, uint64_t id, size_t *n)
{
    const uint64_t *v = hs_idmap_get(&d->held, id);

    if (!v)
        return NULL;
    *n = strlen(d->text + *v - 1);
    return d->text + *v - 1;
}

static hs_status keep_text(hs_deobf *d, uint64_t id, const uint8_t *p, size_t n)
{
    if (n + 1 > d->text_cap - d->text_len) {
        size_t cap = d->text_cap ? d->text_cap : 4096;
        char *t;
        while (n + 1 > cap - d->text_len)
            cap *= 2;
        t = hs_realloc(&d->c->alloc, d->text, d->text_len, cap);
        if (!t)
            return nomem(d);
        d->text = t;
        d->text_cap = cap;
    }
    memcpy(d->text + d->text_len, p, n);
    d->text[d->text_len + n] = 0;
    if (hs_idmap_put(&d->held, id, d->text_len + 1) != HS_OK)
        return nomem(d);
    d->text_len += n + 1;
    return held_changed(d);
}

/* Is a class name spelled ART's way (com.example.Foo, Foo[])? ART dumps
 * always; a 1.0.2 dump converted from ART (hprof-conv) keeps the dots. */
static int art_form(const hs_deobf *d, const char *s, size_t n)
{
    return d->version == 3 || (n && s[0] != '[' && !memchr(s, '/', n) && memchr(s, '.', n));
}

/* The original of class name s[n] in the dump's spelling into d->scratch;
 * 0 when the mapping does not rename it. */
static size_t class_original(hs_deobf *d, const char *s, size_t n, hs_status *st)
{
    size_t len;

    *st = HS_OK;
    for (;;) {
        len = d->nm.class_name(d->nm.ctx, s, n, art_form(d, s, n), d->scratch, d->scratch_cap);
        if (d->obf.nomem) {
            *st = nomem(d);
            return 0;
        }
        if (len == 0 || len < d->scratch_cap)
            return len;
        hs_alloc_free(&d->c->alloc, d->scratch);
        d->scratch_cap = len + 64;
        d->scratch = hs_malloc(&d->c->alloc, d->scratch_cap);
        if (!d->scratch) {
            d->scratch_cap = 0;
            *st = nomem(d);
            return 0;
        }
        if ((*st = held_changed(d)) != HS_OK)
            return 0;
    }
}

hs_status hs_deobf_string(hs_deobf *d, uint64_t id, const uint8_t *p, size_t n)
{
    const char *s = (const char *)p;

    if (id >= d->base && id <= d->limit) {
        if (id < d->next && !hs_idmap_get(&d->reserved, id))
            return hs_fail_at(d->c, HS_E_UNSUPPORTED, d->c->rec_off + HS_RECORD_HEADER,
                              "STRING id 0x%llx is one this library already gave to a "
                              "deobfuscated name (it takes ids from 0x%llx up); run without "
                              "the mapping",
                              (unsigned long long)id, (unsigned long long)d->base);
        if (hs_idmap_put(&d->reserved, id, 1) != HS_OK)
            return nomem(d);
        HS_TRY(held_changed(d));
    }
    if (n > MAX_HELD_NAME || n == 0 || memchr(p, 0, n))
        return HS_OK;
    if (d->nm.wants(d->nm.ctx, s, n, art_form(d, s, n)))
        return keep_text(d, id, p, n);
    return HS_OK;
}

/* ---- new STRINGs -------------------------------------------------------------- */

static hs_status fresh_id(hs_deobf *d, uint64_t *id)
{
    while (d->next < d->limit && hs_idmap_get(&d->reserved, d->next))
        d->next++;
    if (d->next >= d->limit)
        return hs_fail_at(d->c, HS_E_LIMIT, hs_ctx_offset(d->c),
                          "no STRING id left for deobfuscated names");
    *id = d->next++;
    return HS_OK;
}

/* Writes STRING `id` holding text[n], a top-level record, and tells those
 * that look names up by id about it: the strings table (strrec.c), and
 * the filter's notice (hs_deobf.named) for the others. */
static hs_status write_string(hs_deobf *d, uint64_t id, const char *text, size_t n)
{
    HS_TRY(hs_str_write(d->str, d->e, id, text, n));
    d->c->st.mapping_strings_added++;
    return d->named ? d->named(d->named_ctx, id, (const uint8_t *)text, n) : HS_OK;
}

/* The id of the STRING holding the mapping's name `orig` (one per distinct
 * name: the mapping interns them), written now if it was not yet. */
static hs_status name_id(hs_deobf *d, const char *orig, uint64_t *id)
{
    const uint64_t key = (uint64_t)(uintptr_t)orig, *v = hs_idmap_get(&d->fresh, key);

    if (v) {
        *id = *v;
        return HS_OK;
    }
    HS_TRY(fresh_id(d, id));
    HS_TRY(write_string(d, *id, orig, strlen(orig)));
    if (hs_idmap_put(&d->fresh, key, *id) != HS_OK)
        return nomem(d);
    return held_changed(d);
}

/* ---- records ------------------------------------------------------------------ */

/* A plain class name (no array): its obfuscated name is what fields and
 * frames are looked up by. */
static int plain_class(const char *s, size_t n)
{
    return n && s[0] != '[' && !(n >= 2 && s[n - 1] == ']');
}

static int obfuscating(const hs_deobf *d)
{
    return d->nm.ctx == &d->obf;
}

static hs_status load_class(hs_deobf *d, uint8_t *b)
{
    const unsigned i = d->c->idsize;
    uint8_t *name_at = b + 4 + i + 4;
    uint64_t name = hs_be_id(name_at, i), id;
    const uint64_t *v = hs_idmap_get(&d->renamed, name);
    size_t n, len;
    const char *s = held_text(d, name, &n);
    hs_status st;

    if (obfuscating(d) && hs_idmap_put(&d->loaded, hs_be32(b), 1) != HS_OK)
        return nomem(d);
    if (!s)
        return HS_OK;
    if (v) {
        id = *v;
    } else {
        len = class_original(d, s, n, &st);
        HS_TRY(st);
        if (!len)
            return HS_OK; /* not in the mapping */
        if (len == n && memcmp(d->scratch, s, n) == 0) {
            id = name; /* kept its name (ProGuard lists those too): members may not have */
        } else {
            HS_TRY(fresh_id(d, &id));
            HS_TRY(write_string(d, id, d->scratch, len));
        }
        if (hs_idmap_put(&d->renamed, name, id) != HS_OK)
            return nomem(d);
    }
    if (plain_class(s, n)) { /* its fields and frames are looked up by this name */
        uint64_t at = (uint64_t)(s - d->text) + 1;
        if (hs_idmap_put(&d->classes, hs_be_id(b + 4, i), at) != HS_OK ||
            hs_idmap_put(&d->serials, hs_be32(b), at) != HS_OK)
            return nomem(d);
    }
    if (id != name) {
        hs_put_be_id(name_at, id, i);
        d->c->st.mapping_classes_renamed++;
    }
    return held_changed(d);
}

/* The frames class `cls`, method `mth` (signature sig, source src, either
 * NULL) at `line` stands for, in d->frames; returns their count. */
static hs_status frames_of(hs_deobf *d, const char *cls, const char *mth, size_t mn,
                           const char *sig, size_t sn, const char *src, size_t srcn,
                           uint32_t line, size_t *count)
{
    size_t n;

    for (;;) {
        n = d->nm.frames(d->nm.ctx, cls, strlen(cls), mth, mn, sig, sn, src, srcn, line,
                         d->frames, d->frames_cap);
        if (d->obf.nomem)
            return nomem(d);
        if (n <= d->frames_cap)
            break;
        hs_alloc_free(&d->c->alloc, d->frames);
        d->frames = hs_malloc(&d->c->alloc, (n + 8) * sizeof *d->frames);
        d->frames_cap = d->frames ? n + 8 : 0;
        if (!d->frames)
            return nomem(d);
        HS_TRY(held_changed(d));
    }
    *count = n;
    return HS_OK;
}

/* The frame's signature sig[sn] with its classes renamed: a STRING of its
 * own (one per distinct text), the frame's signature id pointed at it. */
static hs_status signature(hs_deobf *d, uint8_t *at, const char *sig, size_t sn)
{
    const unsigned i = d->c->idsize;
    size_t len;
    uint32_t ord;
    uint64_t id;

    for (;;) {
        len = d->nm.signature(d->nm.ctx, sig, sn, d->scratch, d->scratch_cap);
        if (d->obf.nomem)
            return nomem(d);
        if (len == 0 || len < d->scratch_cap)
            break;
        hs_alloc_free(&d->c->alloc, d->scratch);
        d->scratch_cap = len + 64;
        if (!(d->scratch = hs_malloc(&d->c->alloc, d->scratch_cap))) {
            d->scratch_cap = 0;
            return nomem(d);
        }
        HS_TRY(held_changed(d));
    }
    if (!len)
        return HS_OK;
    /* interned where it never moves: name_id keys STRINGs by address */
    if (hs_names_intern(&d->own, d->scratch, len, &ord) < 0)
        return nomem(d);
    HS_TRY(held_changed(d));
    HS_TRY(name_id(d, hs_names_text(&d->own, ord, NULL), &id));
    hs_put_be_id(at, id, i);
    return HS_OK;
}

/* STACK_FRAME: id frame, id method, id signature, id source, u4 class
 * serial, i4 line (> 0 a line; 0, -1, -2, -3 none, unknown, compiled,
 * native). */
static hs_status stack_frame(hs_deobf *d, uint8_t *b)
{
    const unsigned i = d->c->idsize;
    const uint64_t *cls = hs_idmap_get(&d->serials, hs_be32(b + 4 * i));
    const int32_t line = (int32_t)hs_be32(b + 4 * i + 4);
    const char *mth, *cname, *sig, *src;
    hs_mapping_frame fr;
    uint64_t id;
    size_t mn, sn = 0, srcn = 0, count = 0;

    sig = held_text(d, hs_be_id(b + 2 * i, i), &sn);
    src = held_text(d, hs_be_id(b + 3 * i, i), &srcn);
    if (sig && d->nm.signature) /* a frame of any class may name renamed ones */
        HS_TRY(signature(d, b + 2 * i, sig, sn));
    if (!(mth = held_text(d, hs_be_id(b + i, i), &mn)))
        return HS_OK;
    if (!cls && obfuscating(d) && !hs_idmap_get(&d->loaded, hs_be32(b + 4 * i))) {
        /* no LOAD_CLASS says whose frame it is: it may be the app's (issue #50) */
        if (!d->frames_cap) { /* room for the one frame it names */
            if (!(d->frames = hs_malloc(&d->c->alloc, 8 * sizeof *d->frames)))
                return nomem(d);
            d->frames_cap = 8;
        }
        count = hs_obf_orphan_frame(&d->obf, hs_be32(b + 4 * i), mth, mn, sig, sn, src, srcn,
                                    line > 0 ? (uint32_t)line : 0, d->frames);
        HS_TRY(held_changed(d)); /* the generator may have grown */
    } else if (!cls) {
        return HS_OK;
    } else {
        cname = d->text + *cls - 1;
        HS_TRY(frames_of(d, cname, mth, mn, sig, sn, src, srcn, line > 0 ? (uint32_t)line : 0,
                         &count));
    }
    HS_TRY(held_changed(d)); /* the generator may have grown */
    if (!count)
        return HS_OK;
    fr = d->frames[count - 1]; /* the outermost: see the top of this file */
    if (strcmp(fr.method, mth) != 0) {
        HS_TRY(name_id(d, fr.method, &id));
        hs_put_be_id(b + i, id, i);
    }
    if (fr.source) {
        HS_TRY(name_id(d, fr.source, &id));
        hs_put_be_id(b + 3 * i, id, i);
    }
    if (line > 0)
        hs_put_be32(b + 4 * i + 4, fr.line);
    d->c->st.mapping_frames_renamed++;
    return HS_OK;
}

hs_status hs_deobf_record(hs_deobf *d, unsigned tag, uint8_t *body)
{
    if (tag == HS_TAG_LOAD_CLASS)
        return load_class(d, body);
    if (tag == HS_TAG_STACK_FRAME)
        return stack_frame(d, body);
    return HS_OK;
}

/* ---- fields --------------------------------------------------------------------- */

hs_status hs_deobf_heap_start(hs_deobf *d)
{
    const char *orig[64], *obf[64];
    size_t k, j, n;
    uint64_t id;

    if (d->heap_started)
        return HS_OK;
    d->heap_started = 1;
    if (!d->nm.class_fields) /* a namer that knows no fields before their dump */
        return HS_OK;
    /* name_id only adds to d->fresh: walking d->classes is safe */
    for (k = 0; k < d->classes.cap; k++) {
        const char *cls;
        size_t done = 0;
        if (!d->classes.used[k])
            continue;
        cls = d->text + d->classes.ents[k].val - 1;
        do { /* a window of 64 fields at a time */
            n = d->nm.class_fields(d->nm.ctx, cls, strlen(cls), done, orig, obf, 64);
            for (j = 0; j < n; j++)
                if (strcmp(orig[j], obf[j]) != 0)
                    HS_TRY(name_id(d, orig[j], &id));
            done += n;
        } while (n == 64);
    }
    return HS_OK;
}

hs_status hs_deobf_class_dump(hs_deobf *d, uint8_t *p, size_t size)
{
    const unsigned i = d->c->idsize;
    const uint64_t *v = hs_idmap_get(&d->classes, hs_be_id(p + HS_CD_CLASS, i));
    const char *cls, *f, *orig;
    hs_cd_walk w;
    hs_cd_entry en;
    size_t fn;
    uint64_t id;

    if (!v)
        return HS_OK;
    cls = d->text + *v - 1;
    hs_cd_start(&w, i);
    while (hs_cd_next(&w, p, size, &en) == HS_CD_ENTRY) {
        if (en.table == HS_CD_CONST || !(f = held_text(d, en.name, &fn)))
            continue;
        orig = d->nm.field(d->nm.ctx, cls, strlen(cls), f, fn, en.type);
        if (d->obf.nomem)
            return nomem(d);
        HS_TRY(held_changed(d));
        if (!orig || strcmp(orig, f) == 0)
            continue;
        HS_TRY(name_id(d, orig, &id));
        hs_put_be_id(p + en.type_at - i, id, i);
        d->c->st.mapping_fields_renamed++;
    }
    return HS_OK;
}
