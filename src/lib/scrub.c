/* SPDX-License-Identifier: Apache-2.0 */
/*
 * scrub.c - field scrubbing (see scrub.h).
 *
 * Instances are scrubbed through their class's flattened layout
 * (classes.c). HotSpot writes every CLASS_DUMP before the first instance;
 * ART does not, so an instance whose class chain is not complete yet is
 * held here, with the heap it was in, until the missing class dump arrives,
 * and written then. Held bytes count toward --max-held, unless the caller
 * gave a spill store: past opt.hold_in_memory bytes they go there. An
 * instance whose class never comes is written with every field byte zeroed,
 * references included: nothing else can be known about it.
 *
 * Fields on the keep list (keep-field CLASS.FIELD, e.g. String.coder so a
 * string's length stays right) are matched by name: STRING texts are
 * compared with the list as they arrive (rules.c), LOAD_CLASS ties class
 * ids to their names, and CLASS_DUMP field names are looked up by id. The
 * names are the dump's own: STRINGs a mapping writes are never matched
 * (filter.c), so a mapping cannot widen the list. A keep with a declared
 * type applies to a field of that type only (a `long coder` is data), and
 * one of a JDK class (rules.keep_anchored) only in the one class of that
 * name, loaded by the bootstrap loader (CLASS_DUMP loader id 0), as a JVM
 * loads java.lang.String: a fake one an app's loader defined, or a second
 * class of the name, is data. One pass cannot take back a value already
 * kept, so a second class of the name after that is an error (a JVM writes
 * every LOAD_CLASS before its heap dump: it never happens on a real dump).
 */
#include "scrub.h"

#include <string.h>

#include "alloc.h"
#include "be.h"
#include "classdump.h"

/* A held instance: where its bytes are (the arena, or the spill store
 * past opt.hold_in_memory), and what it needs to be written later. */
typedef struct hs_held {
    uint64_t next;      /* index + 1 of the next one waiting on the same class */
    uint64_t loc;       /* offset of its bytes in the arena or the spill store */
    uint64_t off;       /* its input offset */
    uint64_t cls;       /* its class */
    uint64_t heap_name; /* the heap it was in */
    uint32_t heap;
    uint32_t len;       /* sub-record bytes (header and fields) */
    uint32_t spilled;
} held;

void hs_scrub_init(hs_scrub *sc, const hs_rules *rules, const hs_alloc *a)
{
    memset(sc, 0, sizeof *sc);
    sc->rules = rules;
    hs_classes_init(&sc->classes, a);
    hs_idmap_init(&sc->keep_class_names, a);
    hs_idmap_init(&sc->keep_field_names, a);
    hs_idmap_init(&sc->keep_classes, a);
    hs_idmap_init(&sc->waiting, a);
}

void hs_scrub_free(hs_scrub *sc)
{
    const hs_alloc *a = sc->classes.alloc;

    hs_classes_free(&sc->classes);
    hs_idmap_free(&sc->keep_class_names);
    hs_idmap_free(&sc->keep_field_names);
    hs_idmap_free(&sc->keep_classes);
    hs_idmap_free(&sc->waiting);
    hs_alloc_free(a, sc->masks);
    sc->masks = NULL;
    hs_alloc_free(a, sc->own_names);
    sc->own_names = NULL;
    hs_alloc_free(a, sc->holds);
    hs_alloc_free(a, sc->pending);
    sc->holds = NULL;
    sc->pending = NULL;
}

static hs_status nomem(hs_ctx *c)
{
    return hs_fail_io(c, HS_E_NOMEM, "");
}

/* ---- names for the keep list ----------------------------------------------- */

static hs_status names_changed(hs_scrub *sc, hs_ctx *c)
{
    return hs_hold(c, HS_HOLD_NAMES,
                   hs_idmap_bytes(&sc->keep_class_names) +
                       hs_idmap_bytes(&sc->keep_field_names) +
                       hs_idmap_bytes(&sc->keep_classes));
}

static int text_is(const uint8_t *text, size_t n, const char *s)
{
    return n == strlen(s) && memcmp(text, s, n) == 0;
}

hs_status hs_scrub_name(hs_scrub *sc, hs_ctx *c, uint64_t id, const uint8_t *text, size_t n)
{
    uint64_t cls = sc->hide_only ? (uint64_t)(text_is(text, n, "java/lang/String") ||
                                              text_is(text, n, "java.lang.String"))
                                 : hs_rules_keep_class_mask(sc->rules, text, n);
    uint64_t fld = sc->hide_only
                       ? (uint64_t)(text_is(text, n, "hash") || text_is(text, n, "hashIsZero") ||
                                    text_is(text, n, "hashCode")) /* Android before 6 */
                       : hs_rules_keep_field_mask(sc->rules, text, n);

    if ((cls && hs_idmap_put(&sc->keep_class_names, id, cls) != HS_OK) ||
        (fld && hs_idmap_put(&sc->keep_field_names, id, fld) != HS_OK))
        return nomem(c);
    return cls || fld ? names_changed(sc, c) : HS_OK;
}

/* Class `class_id` is named as the JDK classes of entries `m`: the first
 * class of each is its owner; another one makes the entry kept nowhere. */
static hs_status one_class_per_name(hs_scrub *sc, hs_ctx *c, uint64_t class_id, uint64_t m)
{
    unsigned k;

    for (k = 0; k < HS_MAX_KEEP_FIELDS; k++) {
        const uint64_t bit = 1ull << k;
        if (!(m & bit))
            continue;
        if (!(sc->keep_owned & bit)) {
            sc->keep_owned |= bit;
            sc->keep_owner[k] = class_id;
        } else if (sc->keep_owner[k] != class_id) {
            if (sc->keep_applied & bit)
                return hs_fail_at(c, HS_E_MALFORMED, c->rec_off,
                                  "LOAD_CLASS at byte %llu names a second class (0x%llx) as "
                                  "the class of keep-field %s, whose value in the first "
                                  "(0x%llx) was kept already: a JVM loads that class once",
                                  (unsigned long long)c->rec_off,
                                  (unsigned long long)class_id,
                                  hs_rules_keep_name(sc->rules, k),
                                  (unsigned long long)sc->keep_owner[k]);
            sc->keep_ambiguous |= bit;
        }
    }
    return HS_OK;
}

hs_status hs_scrub_load_class(hs_scrub *sc, hs_ctx *c, uint64_t class_id, uint64_t name_id)
{
    uint64_t *mask = hs_idmap_get(&sc->keep_class_names, name_id);

    if (!mask)
        return HS_OK;
    if (!sc->hide_only) /* what is zeroed goes by name alone */
        HS_TRY(one_class_per_name(sc, c, class_id, *mask & hs_rules_keep_anchored(sc->rules)));
    if (hs_idmap_put(&sc->keep_classes, class_id, *mask) != HS_OK)
        return nomem(c);
    return names_changed(sc, c);
}

static int is_reference(unsigned type)
{
    return type == HS_TYPE_OBJECT || type == HS_TYPE_ARRAY_OBJECT;
}

/* True when the keep list keeps a field named `name_id` of `type`, static
 * or not, of a class with entries `class_mask`. Notes the entries that met
 * a field (and a reference field, which is kept anyway), for the
 * end-of-run warnings, and the JDK classes' that kept a value. */
static int kept(hs_scrub *sc, uint64_t class_mask, uint64_t name_id, int is_static,
                unsigned type)
{
    uint64_t *m, hit;

    if (!class_mask)
        return 0;
    m = hs_idmap_get(&sc->keep_field_names, name_id);
    if (sc->hide_only) /* the names of what is zeroed */
        return m && (*m & class_mask) && !is_static;
    hit = m ? *m & class_mask & hs_rules_keep_typed(sc->rules, is_static, type) : 0;
    sc->keep_met |= hit;
    if (is_reference(type))
        sc->keep_refs |= hit;
    else
        sc->keep_applied |= hit & hs_rules_keep_anchored(sc->rules);
    return hit != 0;
}

/* The keep-list entries that may apply to the class of the CLASS_DUMP at
 * p: those naming it, less a JDK class's when the bootstrap loader did not
 * load it or another class has its name. */
static uint64_t class_keeps(const hs_scrub *sc, const uint8_t *p, unsigned i)
{
    const uint64_t *cm = hs_idmap_get(&sc->keep_classes, hs_be_id(p + HS_CD_CLASS, i));
    uint64_t m = cm ? *cm & ~sc->keep_ambiguous : 0;

    if (m && !sc->hide_only && hs_be_id(p + HS_CD_LOADER(i), i) != 0)
        m &= ~hs_rules_keep_anchored(sc->rules);
    return m;
}

static hs_tally field_tally(hs_ctx *c)
{
    hs_tally t = {&c->st.field_bytes_scrubbed, &c->st.nonzero_field_bytes,
                  &c->st.first_nonzero_field};
    return t;
}

/* ---- class dumps ---------------------------------------------------------- */

hs_status hs_scrub_names(hs_scrub *sc, hs_ctx *c, const uint8_t *p, size_t size)
{
    hs_cd_walk w;
    hs_cd_entry en;

    sc->n_own_names = 0;
    hs_cd_start(&w, c->idsize);
    while (hs_cd_next(&w, p, size, &en) == HS_CD_ENTRY) {
        if (en.table == HS_CD_CONST)
            continue;
        if (sc->n_own_names == sc->cap_own_names) {
            size_t cap = sc->cap_own_names ? 2 * sc->cap_own_names : 256;
            uint64_t *n = hs_realloc(&c->alloc, sc->own_names,
                                     sc->cap_own_names * sizeof *n, cap * sizeof *n);
            if (!n)
                return nomem(c);
            sc->own_names = n;
            sc->cap_own_names = cap;
        }
        sc->own_names[sc->n_own_names++] = en.name;
    }
    sc->own_names_set = 1;
    return hs_hold(c, HS_HOLD_CLASSES,
                   hs_classes_bytes(&sc->classes) + sc->cap_own_names * sizeof(uint64_t));
}

static hs_status held_changed(hs_scrub *sc, hs_ctx *c)
{
    return hs_hold(c, HS_HOLD_INSTANCES, sc->pending_cap + sc->cap_holds * sizeof(held));
}

static hs_status class_arrived(hs_scrub *sc, hs_strings *s, hs_enc *e, uint64_t id);

/* Writes the CLASS_DUMP at p (its first byte at hs_cur()) up to its two
 * reserved ids, then zeros for them: HotSpot and ART write 0 there, so
 * anything else is data, counted as a finding (issue #50). */
static hs_status reserved_ids(hs_scrub *sc, hs_enc *e, const uint8_t *p, uint64_t cls,
                              uint64_t off)
{
    const unsigned i = e->c->idsize;
    const size_t at = HS_CD_RESERVED(i);
    uint64_t total = 0; /* not field bytes: field_bytes_scrubbed stays the fields' */
    const hs_tally t = {&total, &e->c->st.nonzero_field_bytes, &e->c->st.first_nonzero_field};
    size_t nz = hs_count_nonzero(p + at, 2 * (size_t)i);

    if (sc->fd && nz)
        HS_TRY(hs_findings_add(sc->fd, e->c, HS_FIND_RESERVED, cls, 0, nz, off));
    hs_pass(e, at);
    return hs_fill_stream(e, 0, 2 * (uint64_t)i, &t, NULL);
}

/* Copies the CLASS_DUMP at p (its first byte at hs_cur()) but for its
 * primitive values, which are zeroed; notes its instance fields' types and
 * keep flags in tp/kp (room for all of them). */
static hs_status scrub_tables(hs_scrub *sc, hs_enc *e, const uint8_t *p, size_t size,
                              uint8_t *tp, uint8_t *kp, uint64_t *names)
{
    const unsigned i = e->c->idsize;
    const uint64_t cls = hs_be_id(p + HS_CD_CLASS, i);
    const uint64_t class_mask = class_keeps(sc, p, i);
    const hs_tally t = field_tally(e->c);
    const uint64_t off = hs_ctx_offset(e->c);
    size_t done = HS_CD_RESERVED(i) + 2 * (size_t)i;
    hs_cd_walk w;
    hs_cd_entry en;

    size_t k = 0;

    if (sc->hide_only) /* no value but String.hash is zeroed */
        done = 0;
    else
        HS_TRY(reserved_ids(sc, e, p, cls, off));
    hs_cd_start(&w, i);
    while (hs_cd_next(&w, p, size, &en) == HS_CD_ENTRY) {
        /* the name the dump gave it: a mapping's never makes a keep */
        const uint64_t own = en.table == HS_CD_CONST ? 0
                             : sc->own_names_set && k < sc->n_own_names ? sc->own_names[k++]
                                                                        : en.name;
        if (en.table == HS_CD_FIELD) {
            tp[en.index] = (uint8_t)en.type;
            kp[en.index] = (uint8_t)(kept(sc, class_mask, own, 0, en.type) != (sc->hide_only != 0));
            if (names)
                names[en.index] = en.name;
            continue;
        }
        if (sc->hide_only || (en.table == HS_CD_STATIC && kept(sc, class_mask, own, 1, en.type)) ||
            is_reference(en.type))
            continue;
        if (sc->fd) {
            uint64_t nz = 0;
            unsigned b;
            for (b = 0; b < en.width; b++)
                nz += p[en.value + b] != 0;
            HS_TRY(hs_findings_add(sc->fd, e->c,
                                   en.table == HS_CD_STATIC ? HS_FIND_STATIC : HS_FIND_CONSTANT,
                                   cls, en.table == HS_CD_STATIC ? en.name : en.index, nz,
                                   off));
        }
        /* pass the bytes up to the value, zero the value: the window does
         * not move, only passes and fills */
        hs_pass(e, en.value - done);
        HS_TRY(hs_fill_stream(e, 0, en.width, &t, NULL));
        done = en.value + en.width;
    }
    hs_pass(e, size - done);
    return HS_OK;
}

/* Records the layout of class `id`, whose CLASS_DUMP is at input byte
 * `at`: a second CLASS_DUMP of it must give the same one. */
static hs_status add_layout(hs_scrub *sc, hs_ctx *c, uint64_t id, uint64_t super,
                            const uint8_t *tp, const uint8_t *kp, unsigned n, uint64_t at)
{
    uint64_t first = 0;
    hs_status st = hs_classes_add(&sc->classes, id, super, tp, kp, n, at, &first);

    if (st == HS_E_MALFORMED)
        return hs_fail_at(c, HS_E_MALFORMED, at,
                          "class 0x%llx is dumped twice with two layouts (CLASS_DUMPs at "
                          "bytes %llu and %llu): its instances cannot be read by both",
                          (unsigned long long)id, (unsigned long long)first,
                          (unsigned long long)at);
    return st == HS_OK ? HS_OK : nomem(c);
}

hs_status hs_scrub_class_dump(hs_scrub *sc, hs_strings *s, hs_enc *e, size_t size)
{
    const unsigned i = e->c->idsize;
    const uint64_t at = hs_ctx_offset(e->c);
    const uint8_t *p = hs_cur(e);
    uint64_t id = hs_be_id(p + HS_CD_CLASS, i), super = hs_be_id(p + HS_CD_SUPER(i), i);
    uint8_t types[256], keep[256], *tp = types, *kp = keep;
    uint64_t *names = NULL;
    unsigned n = 0;
    hs_cd_walk w;
    hs_cd_entry en;
    hs_status st;

    hs_cd_start(&w, i); /* the count of instance fields */
    while (hs_cd_next(&w, p, size, &en) == HS_CD_ENTRY)
        n += en.table == HS_CD_FIELD;
    if (n > sizeof types) {
        tp = hs_malloc(&e->c->alloc, n);
        kp = hs_malloc(&e->c->alloc, n);
    }
    if (sc->fd && !(names = hs_malloc(&e->c->alloc, (n ? n : 1) * sizeof *names)))
        tp = NULL;
    st = !tp || !kp ? nomem(e->c) : hs_str_sub_begin(s, e, size);
    if (st == HS_OK)
        st = scrub_tables(sc, e, p, size, tp, kp, names);
    sc->own_names_set = 0;
    /* the layout checked before the sub-record is ended: a second layout
     * fails with this CLASS_DUMP still open, so --salvage's cut leaves it
     * out rather than writing the two layouts a reader cannot tell apart */
    if (st == HS_OK)
        st = add_layout(sc, e->c, id, super, tp, kp, n, at);
    if (st == HS_OK)
        st = hs_enc_sub_end(e);
    if (st == HS_OK && names)
        st = hs_findings_fields(sc->fd, e->c, id, names, n);
    hs_alloc_free(&e->c->alloc, names);
    if (tp != types)
        hs_alloc_free(&e->c->alloc, tp);
    if (kp != keep)
        hs_alloc_free(&e->c->alloc, kp);
    HS_TRY(st);
    HS_TRY(hs_hold(e->c, HS_HOLD_CLASSES, hs_classes_bytes(&sc->classes)));
    return class_arrived(sc, s, e, id);
}

/* ---- instances ------------------------------------------------------------ */

static hs_status bad_size(hs_ctx *c, uint64_t off, uint64_t cls, uint64_t n, uint64_t want)
{
    return hs_fail_at(c, HS_E_MALFORMED, off,
                      "INSTANCE_DUMP of class 0x%llx has %llu field bytes, but its class "
                      "layout gives %llu",
                      (unsigned long long)cls, (unsigned long long)n, (unsigned long long)want);
}

/* A failed hs_classes_runs: out of memory, or a superclass cycle. */
static hs_status runs_failed(hs_ctx *c, hs_status s, uint64_t off, uint64_t cls)
{
    if (s == HS_E_NOMEM)
        return nomem(c);
    return hs_fail_at(c, HS_E_MALFORMED, off, "class 0x%llx is its own superclass",
                      (unsigned long long)cls);
}

static hs_status new_hold(hs_scrub *sc, hs_ctx *c, held **h)
{
    if (sc->n_holds == sc->cap_holds) {
        size_t cap = sc->cap_holds ? sc->cap_holds * 2 : 1024;
        held *n = hs_realloc(&c->alloc, sc->holds, sc->n_holds * sizeof *n, cap * sizeof *n);
        if (!n)
            return nomem(c);
        sc->holds = n;
        sc->cap_holds = cap;
    }
    *h = &sc->holds[sc->n_holds++];
    memset(*h, 0, sizeof **h);
    return HS_OK;
}

/* Appends `k` bytes to the arena, which grows with the bytes that arrive,
 * not with the length a header claims. */
static hs_status arena_append(hs_scrub *sc, hs_ctx *c, const uint8_t *p, size_t k)
{
    if (k > sc->pending_cap - sc->pending_len) {
        size_t cap = sc->pending_cap ? sc->pending_cap : 1u << 16;
        uint8_t *b;
        while (cap - sc->pending_len < k)
            cap *= 2;
        b = hs_realloc(&c->alloc, sc->pending, sc->pending_len, cap);
        if (!b)
            return nomem(c);
        sc->pending = b;
        sc->pending_cap = cap;
        HS_TRY(held_changed(sc, c));
    }
    memcpy(sc->pending + sc->pending_len, p, k);
    sc->pending_len += k;
    return HS_OK;
}

/* Moves the `len` bytes at hs_cur() into the arena or the spill store. */
static hs_status park(hs_scrub *sc, hs_enc *e, uint64_t len, int spill)
{
    hs_ctx *c = e->c;

    while (len) {
        size_t k = hs_reader_avail(&c->rd);
        if (!k) {
            HS_TRY(hs_need_slow(e, 1, "an INSTANCE_DUMP"));
            k = hs_reader_avail(&c->rd);
        }
        if (k > len)
            k = (size_t)len;
        if (spill) {
            if (c->opt.spill.write(c->opt.spill.ctx, sc->spill_len, hs_cur(e), k) != 0)
                return hs_fail_at(c, HS_E_WRITE, hs_ctx_offset(c),
                                  "writing held instances to the spill file failed");
            sc->spill_len += k;
        } else {
            HS_TRY(arena_append(sc, c, hs_cur(e), k));
        }
        len -= k;
        HS_TRY(hs_drop(e, k));
    }
    return HS_OK;
}

/* Parks the instance at hs_cur() (`len` bytes) until class `missing`
 * arrives: in memory, or in the spill store once opt.hold_in_memory bytes
 * are in memory. */
static hs_status hold(hs_scrub *sc, hs_enc *e, uint64_t len, uint64_t missing, uint64_t cls)
{
    hs_ctx *c = e->c;
    held *h = NULL;
    uint64_t *head, index;
    int spill = c->opt.spill.write && sc->pending_len + len > c->opt.hold_in_memory;

    if (len > UINT32_MAX)
        return hs_fail_at(c, HS_E_LIMIT, hs_ctx_offset(c),
                          "a %llu-byte INSTANCE_DUMP waiting for its CLASS_DUMP is too large "
                          "to hold", (unsigned long long)len);
    HS_TRY(new_hold(sc, c, &h));
    index = sc->n_holds;
    head = hs_idmap_get(&sc->waiting, missing);
    h->next = head ? *head : 0;
    h->cls = cls;
    h->off = hs_ctx_offset(c);
    h->heap = e->in_heap;
    h->heap_name = e->in_heap_name;
    h->len = (uint32_t)len;
    h->spilled = (uint32_t)spill;
    h->loc = spill ? sc->spill_len : sc->pending_len;
    HS_TRY(park(sc, e, len, spill));
    if (hs_idmap_put(&sc->waiting, missing, index) != HS_OK)
        return nomem(c);
    sc->pending_count++;
    c->st.instances_held++;
    if (sc->pending_len + sc->spill_len > c->st.instance_bytes_held_peak)
        c->st.instance_bytes_held_peak = sc->pending_len + sc->spill_len;
    if (sc->spill_len > c->st.instance_bytes_spilled_peak)
        c->st.instance_bytes_spilled_peak = sc->spill_len;
    return held_changed(sc, c);
}

/* Writes field bytes p[0..n), input offset `at`, through `runs` (NULL:
 * scrub all). */
static hs_status emit_fields(hs_enc *e, const uint8_t *p, uint64_t n, uint64_t at,
                             const uint32_t *runs, uint32_t nruns)
{
    const hs_tally t = field_tally(e->c);
    uint32_t r;

    if (!runs)
        return hs_fill_held(e, p, n, at, &t);
    for (r = 0; r < nruns; r++) {
        uint32_t w = HS_RUN_LEN(runs[r]);
        if (runs[r] & HS_RUN_KEEP)
            HS_TRY(hs_emit(e, p, w));
        else
            HS_TRY(hs_fill_held(e, p, w, at, &t));
        p += w;
        at += w;
    }
    return HS_OK;
}

/* Writes held instance `h` (its class chain is complete when `runs` is
 * not NULL), in the heap it came from. */
static hs_status write_held(hs_scrub *sc, hs_strings *s, hs_enc *e, const held *h,
                            const uint32_t *runs, uint32_t nruns)
{
    const size_t hdr = 1 + 2 * (size_t)e->c->idsize + 8;
    const uint32_t save_heap = e->in_heap;
    const uint64_t save_name = e->in_heap_name;
    uint8_t *bytes = NULL, *copy = NULL;
    hs_status st = HS_OK;

    if (h->spilled) {
        bytes = copy = hs_malloc(&e->c->alloc, h->len);
        if (!copy)
            return nomem(e->c);
        if (e->c->opt.spill.read(e->c->opt.spill.ctx, h->loc, copy, h->len) != 0)
            st = hs_fail_at(e->c, HS_E_READ, hs_ctx_offset(e->c),
                            "reading held instances back from the spill file failed");
    } else {
        bytes = sc->pending + h->loc;
    }
    hs_enc_set_heap(e, h->heap, h->heap_name);
    if (st == HS_OK && sc->fd)
        st = hs_findings_instance(sc->fd, e->c, runs ? &sc->classes : NULL, h->cls, bytes + hdr,
                                  h->len - hdr, h->off);
    if (st == HS_OK)
        st = hs_str_sub_begin(s, e, h->len);
    if (st == HS_OK)
        st = hs_emit(e, bytes, hdr);
    if (st == HS_OK)
        st = emit_fields(e, bytes + hdr, h->len - hdr, h->off + hdr, runs, nruns);
    if (st == HS_OK)
        st = hs_enc_sub_end(e);
    hs_enc_set_heap(e, save_heap, save_name);
    sc->pending_count--;
    hs_alloc_free(&e->c->alloc, copy);
    return st;
}

/* Everything held was written: the stores start over. */
static void holds_reset(hs_scrub *sc)
{
    if (!sc->pending_count) {
        sc->pending_len = 0;
        sc->spill_len = 0;
        sc->n_holds = 0;
    }
}

/* A class dump arrived: the instances waiting for it are written, or wait
 * on for the next missing class of their chain. */
static hs_status class_arrived(hs_scrub *sc, hs_strings *s, hs_enc *e, uint64_t id)
{
    const uint64_t hdr = 1 + 2 * (uint64_t)e->c->idsize + 8;
    uint64_t *head = hs_idmap_get(&sc->waiting, id), next;

    if (!head)
        return HS_OK;
    next = *head;
    hs_idmap_remove(&sc->waiting, id);
    while (next) {
        held *h = &sc->holds[next - 1];
        const uint32_t *runs;
        uint32_t nruns;
        uint64_t size, missing;

        hs_status st;

        next = h->next;
        st = hs_classes_runs(&sc->classes, h->cls, e->c->idsize, &runs, &nruns, &size,
                             &missing);
        if (st != HS_OK)
            return runs_failed(e->c, st, hs_ctx_offset(e->c), h->cls);
        if (!runs) { /* wait on for the next missing class */
            uint64_t *w = hs_idmap_get(&sc->waiting, missing);
            h->next = w ? *w : 0;
            if (hs_idmap_put(&sc->waiting, missing, (uint64_t)(h - sc->holds) + 1) != HS_OK)
                return nomem(e->c);
            continue;
        }
        if (size != h->len - hdr)
            return bad_size(e->c, hs_ctx_offset(e->c), h->cls, h->len - hdr, size);
        HS_TRY(write_held(sc, s, e, h, runs, nruns));
    }
    holds_reset(sc);
    return HS_OK;
}

hs_status hs_scrub_finish(hs_scrub *sc, hs_strings *s, hs_enc *e)
{
    size_t i;

    for (i = 0; sc->pending_count && i < sc->waiting.cap; i++) {
        uint64_t next;
        if (!sc->waiting.used[i])
            continue;
        for (next = sc->waiting.ents[i].val; next; next = sc->holds[next - 1].next) {
            HS_TRY(write_held(sc, s, e, &sc->holds[next - 1], NULL, 0));
            e->c->st.instances_unresolved++;
        }
    }
    hs_idmap_free(&sc->waiting);
    hs_idmap_init(&sc->waiting, sc->classes.alloc);
    sc->pending_count = 0;
    holds_reset(sc);
    return HS_OK;
}

hs_status hs_scrub_masks_start(hs_scrub *sc, hs_ctx *c)
{
    if (!sc->masks && !(sc->masks = hs_calloc(sc->classes.alloc, HS_MASKS * sizeof *sc->masks)))
        return nomem(c);
    return HS_OK;
}

/* Caches the layout of class `cls` (its runs, `size` bytes) for runs. */
static void remember(hs_scrub *sc, uint64_t cls, const uint32_t *runs, uint32_t nruns,
                     uint64_t size)
{
    hs_mask *m;
    uint32_t r, at = 0;

    if (!sc->masks || !cls || size > HS_MASK_MAX)
        return;
    m = &sc->masks[(cls >> 3) & (HS_MASKS - 1)];
    if (m->cls == cls)
        return; /* a class's layout never changes once built */
    m->zeroed = 0;
    for (r = 0; r < nruns; r++) {
        uint32_t w = HS_RUN_LEN(runs[r]);
        memset(m->mask + at, runs[r] & HS_RUN_KEEP ? 0xff : 0, w);
        if (!(runs[r] & HS_RUN_KEEP))
            m->zeroed += w;
        at += w;
    }
    m->size = (uint32_t)size;
    m->cls = cls;
}

/* True when some byte the runs scrub in `p` is not zero: only then is the
 * instance worth naming field by field. */
static int scrubs_data(const uint8_t *p, const uint32_t *runs, uint32_t nruns)
{
    uint32_t r, j;

    for (r = 0; r < nruns; r++) {
        const uint32_t w = HS_RUN_LEN(runs[r]);
        if (!(runs[r] & HS_RUN_KEEP))
            for (j = 0; j < w; j++)
                if (p[j])
                    return 1;
        p += w;
    }
    return 0;
}

hs_status hs_scrub_instance(hs_scrub *sc, hs_strings *s, hs_enc *e, uint64_t off, size_t hdr,
                            uint64_t n)
{
    const unsigned i = e->c->idsize;
    const uint64_t cls = hs_be_id(hs_cur(e) + 1 + i + 4, i);
    const hs_tally t = field_tally(e->c);
    uint64_t size, missing;
    const uint32_t *runs;
    uint32_t nruns, r;

    hs_status st = hs_classes_runs(&sc->classes, cls, i, &runs, &nruns, &size, &missing);

    if (st != HS_OK)
        return runs_failed(e->c, st, off, cls);
    if (!runs && sc->hide_only && !hs_idmap_get(&sc->keep_classes, cls)) {
        /* not a String: nothing of it is zeroed, nothing to wait for */
        HS_TRY(hs_str_sub_begin(s, e, hdr + n));
        hs_pass(e, hdr);
        HS_TRY(hs_copy_stream(e, n, "an INSTANCE_DUMP", NULL));
        return hs_enc_sub_end(e);
    }
    if (!runs)
        return hold(sc, e, hdr + n, missing, cls);
    if (size != n)
        return bad_size(e->c, off, cls, n, size);
    remember(sc, cls, runs, nruns, size);
    if (sc->fd && hdr + n <= HS_FINDINGS_INSTANCE_MAX) { /* the bytes, named by field */
        HS_TRY(hs_need(e, hdr + (size_t)n, "an INSTANCE_DUMP"));
        if (scrubs_data(hs_cur(e) + hdr, runs, nruns))
            HS_TRY(hs_findings_instance(sc->fd, e->c, &sc->classes, cls, hs_cur(e) + hdr, n,
                                        off));
    }
    HS_TRY(hs_str_sub_begin(s, e, hdr + n));
    hs_pass(e, hdr);
    for (r = 0; r < nruns; r++) {
        uint32_t w = HS_RUN_LEN(runs[r]);
        if (runs[r] & HS_RUN_KEEP)
            HS_TRY(hs_copy_stream(e, w, "an INSTANCE_DUMP", NULL));
        else
            HS_TRY(hs_fill_stream(e, 0, w, &t, NULL));
    }
    return hs_enc_sub_end(e);
}
