/*
 * scrub.c - field scrubbing: the primitive values of instance fields,
 * static fields and constant pools are zeroed; every reference stays as it
 * was (analyzers follow them, and a zeroed reference breaks the graph).
 *
 * Instances are scrubbed through their class's flattened layout
 * (classes.c). HotSpot writes every CLASS_DUMP before the first instance;
 * ART does not, so an instance whose class chain is not complete yet is
 * held here, with the heap it was in, until the missing class dump arrives,
 * and written then. Held bytes count toward the --max-held limit, unless the
 * caller gave a spill store: past opt.hold_in_memory bytes they go there. An
 * instance whose class never comes is written with every field byte zeroed,
 * references included: nothing else can be known about it.
 *
 * Fields on the keep list (keep-field CLASS.FIELD, e.g. String.coder so a
 * string's length stays right) are matched by name: STRING texts are
 * compared with the list as they arrive, LOAD_CLASS ties class ids to their
 * names, and CLASS_DUMP field names are looked up by id.
 */
#include <string.h>

#include "alloc.h"
#include "be.h"
#include "filter_impl.h"

/* A held instance: where its bytes are (the arena, or the spill store
 * past opt.hold_in_memory), and what it needs to be written later. */
typedef struct held {
    uint64_t next;      /* index + 1 of the next one waiting on the same class */
    uint64_t loc;       /* offset of its bytes in the arena or the spill store */
    uint64_t cls;       /* its class */
    uint64_t heap_name; /* the heap it was in */
    uint32_t heap, cur_heap;
    uint32_t len;       /* sub-record bytes (header and fields) */
    uint32_t spilled;
} held;

/* ---- names for the keep list ----------------------------------------------- */

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

hs_status hs_scrub_string(F *f, uint64_t id, const uint8_t *text, size_t n)
{
    const hs_rules *r = f->rules;
    uint64_t cls = 0, fld = 0;
    unsigned k;

    for (k = 0; k < r->n_keep; k++) {
        const char *full = r->keep[k];
        const char *dot = strrchr(full, '.');
        size_t cn = (size_t)(dot - full), fn = strlen(dot + 1);
        if (same_class_name(text, n, full, cn))
            cls |= 1ull << k;
        if (n == fn && memcmp(text, dot + 1, fn) == 0)
            fld |= 1ull << k;
    }
    if ((cls && hs_idmap_put(&f->keep_class_names, id, cls) != HS_OK) ||
        (fld && hs_idmap_put(&f->keep_field_names, id, fld) != HS_OK))
        return hs_filter_io_fail(f, HS_E_NOMEM, "");
    return HS_OK;
}

hs_status hs_scrub_load_class(F *f, uint64_t class_id, uint64_t name_id)
{
    uint64_t *mask = hs_idmap_get(&f->keep_class_names, name_id);

    if (mask && hs_idmap_put(&f->keep_classes, class_id, *mask) != HS_OK)
        return hs_filter_io_fail(f, HS_E_NOMEM, "");
    return HS_OK;
}

/* Keep-list entries a field named `name_id` of a class with entries
 * `class_mask` matches. */
static int kept(F *f, uint64_t class_mask, uint64_t name_id)
{
    uint64_t *m;

    if (!class_mask)
        return 0;
    m = hs_idmap_get(&f->keep_field_names, name_id);
    return m && (*m & class_mask);
}

/* ---- class dumps ---------------------------------------------------------- */

/* Writes the CLASS_DUMP at hs_cur() (`size` bytes, all in the window and
 * checked) with the primitive values of its constant pool and statics
 * zeroed, and records its instance layout. The caller has opened the
 * sub-record. */
hs_status hs_scrub_class_dump(F *f, size_t size)
{
    const unsigned i = f->idsize;
    const uint8_t *p = hs_cur(f);
    uint64_t id = hs_be_id(p + 1, i), *cm = hs_idmap_get(&f->keep_classes, id);
    uint64_t class_mask = cm ? *cm : 0;
    size_t k = 1 + 7 * (size_t)i + 8, done = 0;
    unsigned n, j, pass;
    uint8_t types[256], keep[256];
    uint8_t *tp = types, *kp = keep;
    hs_status s = HS_OK;

    /* copy everything but primitive values: walk the tables, passing the
     * bytes before each value and scrubbing the value */
#define SCRUB(at, w)                                                                           \
    do {                                                                                       \
        hs_pass(f, (at)-done);                                                                 \
        HS_TRY(hs_fill_stream_count(f, 0, (w), &f->st.field_bytes_scrubbed,                    \
                                    &f->st.nonzero_field_bytes, &f->st.first_nonzero_field));  \
        done = (at) + (w);                                                                     \
        p = hs_cur(f) - done; /* the window did not move: only passes and fills */            \
    } while (0)
    n = hs_be16(p + k);
    k += 2;
    for (j = 0; j < n; j++) { /* u2 index, u1 type, value */
        unsigned type = p[k + 2], w = hs_type_size(type, i);
        if (type != HS_TYPE_OBJECT && type != HS_TYPE_ARRAY_OBJECT)
            SCRUB(k + 3, w);
        k += 3 + w;
    }
    for (pass = 0; pass < 2; pass++) { /* statics, then instance fields */
        n = hs_be16(p + k);
        k += 2;
        if (pass == 1 && n > sizeof types) {
            tp = hs_malloc(&f->alloc, n);
            kp = hs_malloc(&f->alloc, n);
            if (!tp || !kp) {
                s = HS_E_NOMEM;
                break;
            }
        }
        for (j = 0; j < n; j++) {
            uint64_t name = hs_be_id(p + k, i);
            unsigned type = p[k + i], w = pass == 0 ? hs_type_size(type, i) : 0;
            if (pass == 0 && type != HS_TYPE_OBJECT && type != HS_TYPE_ARRAY_OBJECT &&
                !kept(f, class_mask, name))
                SCRUB(k + i + 1, w);
            if (pass == 1) {
                tp[j] = (uint8_t)type;
                kp[j] = (uint8_t)kept(f, class_mask, name);
            }
            k += i + 1 + w;
        }
    }
#undef SCRUB
    if (s == HS_OK) {
        hs_pass(f, size - done);
        s = hs_classes_add(&f->classes, id, hs_be_id(p + 1 + i + 4, i), tp, kp, n, i);
    }
    if (tp != types)
        hs_free(&f->alloc, tp);
    if (kp != keep)
        hs_free(&f->alloc, kp);
    return s == HS_OK ? HS_OK : hs_filter_io_fail(f, s, "");
}

/* ---- instances ------------------------------------------------------------ */

static hs_status bad_size(F *f, uint64_t off, uint64_t cls, uint64_t n, uint64_t want)
{
    return hs_filter_fail(f, HS_E_MALFORMED, off,
                          "INSTANCE_DUMP of class 0x%llx has %llu field bytes, but its class "
                          "layout gives %llu",
                          (unsigned long long)cls, (unsigned long long)n,
                          (unsigned long long)want);
}

static hs_status new_hold(F *f, held **h)
{
    if (f->n_holds == f->cap_holds) {
        size_t cap = f->cap_holds ? f->cap_holds * 2 : 1024;
        held *n = hs_realloc(&f->alloc, f->holds, f->n_holds * sizeof *n, cap * sizeof *n);
        if (!n)
            return hs_filter_io_fail(f, HS_E_NOMEM, "");
        f->holds = n;
        f->cap_holds = cap;
    }
    *h = &f->holds[f->n_holds++];
    memset(*h, 0, sizeof **h);
    return HS_OK;
}

/* Parks the instance at hs_cur() (`len` bytes) until class `missing`
 * arrives: in memory, or in the spill store once opt.hold_in_memory bytes
 * are in memory. */
static hs_status hold(F *f, uint64_t len, uint64_t missing, uint64_t cls)
{
    held *h = NULL;
    uint64_t *head, left = len;
    int spill = f->opt.spill.write && f->pending_len + len > f->opt.hold_in_memory;

    if (len > UINT32_MAX || (!spill && f->pending_len + len > f->opt.max_held))
        return hs_filter_fail(f, HS_E_LIMIT, hs_offset(f),
                              "instances waiting for their CLASS_DUMP need more than the "
                              "limit of %llu bytes (raise it with --max-held)",
                              (unsigned long long)f->opt.max_held);
    HS_TRY(new_hold(f, &h));
    head = hs_idmap_get(&f->waiting, missing);
    h->next = head ? *head : 0;
    h->cls = cls;
    h->heap = f->in_heap;
    h->cur_heap = f->cur_heap;
    h->heap_name = f->in_heap_name;
    h->len = (uint32_t)len;
    h->spilled = (uint32_t)spill;
    h->loc = spill ? f->spill_len : f->pending_len;
    while (left) { /* the bytes, as they arrive */
        size_t k = hs_reader_avail(&f->rd);
        if (!k) {
            HS_TRY(hs_need_slow(f, 1, "an INSTANCE_DUMP"));
            k = hs_reader_avail(&f->rd);
        }
        if (k > left)
            k = (size_t)left;
        if (spill) {
            if (f->opt.spill.write(f->opt.spill.ctx, f->spill_len, hs_cur(f), k) != 0)
                return hs_filter_fail(f, HS_E_WRITE, hs_offset(f),
                                      "writing held instances to the spill file failed");
            f->spill_len += k;
        } else {
            /* the arena grows with the bytes that arrive, not with the
             * length the header claims */
            if (k > f->pending_cap - f->pending_len) {
                size_t cap = f->pending_cap ? f->pending_cap : 1u << 16;
                uint8_t *b;
                while (cap - f->pending_len < k)
                    cap *= 2;
                b = hs_realloc(&f->alloc, f->pending, f->pending_len, cap);
                if (!b)
                    return hs_filter_io_fail(f, HS_E_NOMEM, "");
                f->pending = b;
                f->pending_cap = cap;
            }
            memcpy(f->pending + f->pending_len, hs_cur(f), k);
            f->pending_len += k;
        }
        left -= k;
        HS_TRY(hs_drop(f, k));
    }
    if (hs_idmap_put(&f->waiting, missing, f->n_holds) != HS_OK)
        return hs_filter_io_fail(f, HS_E_NOMEM, "");
    f->pending_count++;
    f->st.instances_held++;
    if (f->pending_len + f->spill_len > f->st.instance_bytes_held_peak)
        f->st.instance_bytes_held_peak = f->pending_len + f->spill_len;
    if (f->spill_len > f->st.instance_bytes_spilled_peak)
        f->st.instance_bytes_spilled_peak = f->spill_len;
    return hs_check_held(f);
}

/* Writes field bytes `p[0..n)` through `runs` (NULL: scrub all). */
static hs_status emit_fields(F *f, const uint8_t *p, uint64_t n, const uint32_t *runs,
                             uint32_t nruns)
{
    uint32_t r;

    if (!runs) {
        if (f->opt.count_nonzero)
            f->st.nonzero_field_bytes += hs_count_nonzero(p, (size_t)n);
        f->st.field_bytes_scrubbed += n;
        return hs_fill_stream_out(f, 0, n);
    }
    for (r = 0; r < nruns; r++) {
        uint32_t w = HS_RUN_LEN(runs[r]);
        if (runs[r] & HS_RUN_KEEP) {
            HS_TRY(hs_emit(f, p, w));
        } else {
            if (f->opt.count_nonzero)
                f->st.nonzero_field_bytes += hs_count_nonzero(p, w);
            f->st.field_bytes_scrubbed += w;
            HS_TRY(hs_fill_stream_out(f, 0, w));
        }
        p += w;
    }
    return HS_OK;
}

/* Writes held instance `h` (its class chain is complete when `runs` is
 * not NULL), in the heap it came from. */
static hs_status write_held(F *f, const held *h, const uint32_t *runs, uint32_t nruns)
{
    const size_t hdr = 1 + 2 * (size_t)f->idsize + 8;
    uint32_t save_heap = f->in_heap, save_cur = f->cur_heap;
    uint64_t save_name = f->in_heap_name;
    uint8_t *bytes = f->pending + h->loc, *copy = NULL;
    hs_status s = HS_OK;

    if (h->spilled) {
        copy = hs_malloc(&f->alloc, h->len);
        if (!copy)
            return hs_filter_io_fail(f, HS_E_NOMEM, "");
        if (f->opt.spill.read(f->opt.spill.ctx, h->loc, copy, h->len) != 0)
            s = hs_filter_fail(f, HS_E_READ, hs_offset(f),
                               "reading held instances back from the spill file failed");
        bytes = copy;
    }
    f->in_heap = h->heap;
    hs_set_heap(f, h->cur_heap);
    f->in_heap_name = h->heap_name;
    if (s == HS_OK)
        s = hs_sub_begin(f, h->len);
    if (s == HS_OK)
        s = hs_emit(f, bytes, hdr);
    if (s == HS_OK)
        s = emit_fields(f, bytes + hdr, h->len - hdr, runs, nruns);
    if (s == HS_OK)
        s = hs_sub_end(f);
    f->in_heap = save_heap;
    hs_set_heap(f, save_cur);
    f->in_heap_name = save_name;
    f->pending_count--;
    hs_free(&f->alloc, copy);
    return s;
}

/* Everything held was written: the stores start over. */
static void holds_reset(F *f)
{
    if (!f->pending_count) {
        f->pending_len = 0;
        f->spill_len = 0;
        f->n_holds = 0;
    }
}

/* A class dump arrived: the instances waiting for it are written, or wait
 * on for the next missing class of their chain. */
hs_status hs_scrub_class_arrived(F *f, uint64_t id)
{
    uint64_t *head = hs_idmap_get(&f->waiting, id), next;

    if (!head)
        return HS_OK;
    next = *head;
    hs_idmap_remove(&f->waiting, id);
    while (next) {
        held *h = &f->holds[next - 1];
        const uint32_t *runs;
        uint32_t nruns;
        uint64_t size, missing;
        const uint64_t fields = h->len - (1 + 2 * (uint64_t)f->idsize + 8);

        next = h->next;
        if (hs_classes_runs(&f->classes, h->cls, f->idsize, &runs, &nruns, &size, &missing) !=
            HS_OK)
            return hs_filter_fail(f, HS_E_MALFORMED, hs_offset(f),
                                  "class 0x%llx is its own superclass",
                                  (unsigned long long)h->cls);
        if (!runs) { /* wait on for the next missing class */
            uint64_t *w = hs_idmap_get(&f->waiting, missing);
            h->next = w ? *w : 0;
            if (hs_idmap_put(&f->waiting, missing, (uint64_t)(h - f->holds) + 1) != HS_OK)
                return hs_filter_io_fail(f, HS_E_NOMEM, "");
            continue;
        }
        if (size != fields)
            return bad_size(f, hs_offset(f), h->cls, fields, size);
        HS_TRY(write_held(f, h, runs, nruns));
    }
    holds_reset(f);
    return HS_OK;
}

/* The heap dump ends: instances whose class never came are written with
 * every byte zeroed. */
hs_status hs_scrub_finish(F *f)
{
    size_t i;

    for (i = 0; f->pending_count && i < f->waiting.cap; i++) {
        uint64_t next;
        if (!f->waiting.used[i])
            continue;
        for (next = f->waiting.vals[i]; next; next = f->holds[next - 1].next) {
            HS_TRY(write_held(f, &f->holds[next - 1], NULL, 0));
            f->st.instances_unresolved++;
        }
    }
    hs_idmap_free(&f->waiting);
    hs_idmap_init(&f->waiting, &f->alloc);
    f->pending_count = 0;
    holds_reset(f);
    return HS_OK;
}

/* An INSTANCE_DUMP at hs_cur(): `hdr` header bytes, `n` field bytes,
 * written with its primitive fields scrubbed, or held. */
hs_status hs_scrub_instance(F *f, uint64_t off, size_t hdr, uint64_t n)
{
    const unsigned i = f->idsize;
    uint64_t cls = hs_be_id(hs_cur(f) + 1 + i + 4, i), size, missing;
    const uint32_t *runs;
    uint32_t nruns, r;

    if (hs_classes_runs(&f->classes, cls, i, &runs, &nruns, &size, &missing) != HS_OK)
        return hs_filter_fail(f, HS_E_MALFORMED, off, "class 0x%llx is its own superclass",
                              (unsigned long long)cls);
    if (!runs)
        return hold(f, hdr + n, missing, cls);
    if (size != n)
        return bad_size(f, off, cls, n, size);
    HS_TRY(hs_sub_begin(f, hdr + n));
    hs_pass(f, hdr);
    for (r = 0; r < nruns; r++) {
        uint32_t w = HS_RUN_LEN(runs[r]);
        if (runs[r] & HS_RUN_KEEP)
            HS_TRY(hs_copy_stream(f, w, "an INSTANCE_DUMP"));
        else
            HS_TRY(hs_fill_stream_count(f, 0, w, &f->st.field_bytes_scrubbed,
                                        &f->st.nonzero_field_bytes,
                                        &f->st.first_nonzero_field));
    }
    return hs_sub_end(f);
}
