/* SPDX-License-Identifier: Apache-2.0 */
/*
 * scrub.h - field scrubbing: the primitive values of instance fields,
 * static fields and constant pools are zeroed; every reference stays as it
 * was (analyzers follow them, and a zeroed reference breaks the graph).
 */
#ifndef HS_SCRUB_H
#define HS_SCRUB_H

#include "classes.h"
#include "findings.h"
#include "rules.h"
#include "strrec.h"

struct hs_held;

/* An instance layout as runs of objects apply it (heap.c): one byte per
 * field byte, 0xff where it is kept and 0 where it is zeroed, for classes
 * whose instances are at most HS_MASK_MAX bytes. A small cache indexed by
 * class id, filled when an instance of the class is written the slow way. */
#define HS_MASK_MAX 240
#define HS_MASKS 512
typedef struct {
    uint64_t cls;    /* 0: empty */
    uint32_t size;   /* field bytes of an instance */
    uint32_t zeroed; /* how many of them are zeroed */
    uint8_t mask[HS_MASK_MAX];
} hs_mask;

typedef struct {
    const hs_rules *rules;
    hs_classes classes;        /* instance layouts */
    hs_idmap keep_class_names; /* string id -> keep-list entries naming it as a class */
    hs_idmap keep_field_names; /* string id -> keep-list entries naming it as a field */
    hs_idmap keep_classes;     /* class id -> keep-list entries of its class name */
    hs_idmap waiting;          /* missing class id -> first held instance + 1 */
    struct hs_held *holds;     /* held instances */
    size_t n_holds, cap_holds;
    uint8_t *pending; /* their bytes, in memory */
    size_t pending_len, pending_cap;
    uint64_t spill_len; /* their bytes in the spill store */
    uint64_t pending_count;
    uint64_t keep_met;  /* keep-list entries that matched a field */
    uint64_t keep_refs; /* ... that matched a reference field (kept anyway) */
    /* a JDK class's keep (rules.keep_anchored) applies in the one class of
     * its name: the class each entry met first, the entries that met a
     * second one (kept nowhere from then on), and those that kept a value */
    uint64_t keep_owner[HS_MAX_KEEP_FIELDS];
    uint64_t keep_owned, keep_ambiguous, keep_applied;
    /* the next CLASS_DUMP's static and field name ids as the dump gave
     * them, before a mapping pointed them at its names (hs_scrub_names) */
    uint64_t *own_names;
    size_t n_own_names, cap_own_names;
    int own_names_set;
    /* fields are not zeroed, but names are obfuscated: String.hash (and
     * hashIsZero) would let anyone confirm a guessed class name, so those
     * two are zeroed and every other value kept. The keep maps then hold
     * those two names instead of the keep list. */
    int hide_only;
    hs_mask *masks;     /* HS_MASKS of them, or NULL (hs_scrub_masks_start) */
    hs_findings *fd;    /* where non-zero values were (NULL: not asked) */
} hs_scrub;

void hs_scrub_init(hs_scrub *sc, const hs_rules *rules, const hs_alloc *a);
void hs_scrub_free(hs_scrub *sc);

/* A STRING's text: is it a class or field name on the keep list? */
hs_status hs_scrub_name(hs_scrub *sc, hs_ctx *c, uint64_t id, const uint8_t *text, size_t n);
/* A LOAD_CLASS: class `class_id` is named by string `name_id` (the dump's
 * own name, before any mapping). A second class named as a JDK class of
 * the keep list is kept nowhere; HS_E_MALFORMED when a value of the first
 * was kept already (a JVM loads such a class once). */
hs_status hs_scrub_load_class(hs_scrub *sc, hs_ctx *c, uint64_t class_id, uint64_t name_id);
/* Notes the name ids of the CLASS_DUMP at p (`size` bytes, whole), before
 * a mapping renames its fields: keeps go by the dump's own names. */
hs_status hs_scrub_names(hs_scrub *sc, hs_ctx *c, const uint8_t *p, size_t size);
/* Writes the CLASS_DUMP at hs_cur() (`size` bytes, all in the window and
 * checked) with its primitive values and its two reserved ids zeroed,
 * records its instance layout, and writes the instances that were waiting
 * for it. A class dumped again with another layout is HS_E_MALFORMED. */
hs_status hs_scrub_class_dump(hs_scrub *sc, hs_strings *s, hs_enc *e, size_t size);
/* An INSTANCE_DUMP at hs_cur() at input byte `off`: `hdr` header bytes, `n`
 * field bytes, written with its primitive fields scrubbed, or held. */
hs_status hs_scrub_instance(hs_scrub *sc, hs_strings *s, hs_enc *e, uint64_t off, size_t hdr,
                            uint64_t n);
/* Starts caching instance layouts for runs (HS_MASKS * 256 bytes). */
hs_status hs_scrub_masks_start(hs_scrub *sc, hs_ctx *c);
/* The layout of class `cls` if it is cached, else NULL. */
static inline const hs_mask *hs_scrub_mask(const hs_scrub *sc, uint64_t cls)
{
    const hs_mask *m = &sc->masks[(cls >> 3) & (HS_MASKS - 1)];

    return m->cls == cls ? m : NULL;
}
/* The heap dump ends: instances whose class never came are written with
 * every byte zeroed. */
hs_status hs_scrub_finish(hs_scrub *sc, hs_strings *s, hs_enc *e);

#endif
