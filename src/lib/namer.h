/* SPDX-License-Identifier: Apache-2.0 */
/*
 * namer.h - what renames the names of a dump, for deobf.c's rename step:
 * given a name the dump spells (a class in the dump's own spelling, a
 * field or a stack frame's method of a class), the new name, or "keep".
 *
 * Two namers: an R8/ProGuard mapping read back (deobfuscation, --mapping:
 * namer_mapping in deobf.c) and a name generator that writes the mapping
 * as it goes (obfuscation, --obfuscate-names: obfuscate.c). deobf.c writes
 * the new names as fresh STRING records and points the records at them,
 * whichever namer gave them.
 *
 * Every name a namer returns as a pointer stays valid, at the same
 * address, until the namer is freed: deobf.c keys the STRINGs it wrote by
 * that address (one per distinct name).
 */
#ifndef HS_NAMER_H
#define HS_NAMER_H

#include <stddef.h>
#include <stdint.h>

#include "mapping.h"

typedef struct {
    void *ctx;
    /* Bytes the namer holds (counted under max_held). */
    size_t (*bytes)(void *ctx);
    /* True when the STRING text s[n] may be a name the namer renames (so
     * that its text is worth keeping); `art`: spelled ART's way. */
    int (*wants)(void *ctx, const char *s, size_t n, int art);
    /* Class name s[n] (dump spelling; `art` as above) -> its new name in
     * the same spelling into buf[cap], NUL-terminated; returns the length
     * (as snprintf: more than cap-1 means call again with more room), 0
     * to keep the name. A namer that lists classes it does not rename
     * (ProGuard's mapping) may return the name itself: deobf.c then keeps
     * it, but still looks its members up. */
    size_t (*class_name)(void *ctx, const char *s, size_t n, int art, char *buf, size_t cap);
    /* Field f[fn] of basic type `type` of the plain class cls[cn] (as the
     * dump spells it; one class_name renamed) -> its new name, or NULL
     * (or f itself) to keep it. */
    const char *(*field)(void *ctx, const char *cls, size_t cn, const char *f, size_t fn,
                         unsigned type);
    /* The stack frame of class cls[cn], method m[mn] with signature
     * sig[sn] and source file src[srcn] (each NULL when the frame names
     * none, or its text was not kept) at `line` -> the frames it stands
     * for, as hs_mapping_frames (deobf.c takes the last). */
    size_t (*frames)(void *ctx, const char *cls, size_t cn, const char *m, size_t mn,
                     const char *sig, size_t sn, const char *src, size_t srcn, uint32_t line,
                     hs_mapping_frame *out, size_t cap);
    /* A method signature sig[sn] ("(Lcom/a/B;I)V") -> the same with its
     * class names renamed, into buf[cap] as class_name; 0 to keep it. */
    size_t (*signature)(void *ctx, const char *sig, size_t sn, char *buf, size_t cap);
    /* The fields the namer renames in class cls[cn] known before its
     * CLASS_DUMP, from the `start`th: as hs_mapping_class_fields (NULL
     * when the namer knows none before the dump). */
    size_t (*class_fields)(void *ctx, const char *cls, size_t cn, size_t start, const char **orig,
                           const char **obf, size_t cap);
} hs_namer;

#endif
