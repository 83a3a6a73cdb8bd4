/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cutclasses.c - the classes a salvaged dump must still declare (see
 * cutclasses.h).
 */
#include "cutclasses.h"

#include "alloc.h"
#include "be.h"
#include "classdump.h"
#include "format.h"

#include <stdio.h>
#include <string.h>

/* Each slot's two spellings: HotSpot's (the JVM's internal name) and ART's
 * (the Java name). */
static const char *const g_names[HS_CUT_SLOTS][2] = {
    {"[Z", "boolean[]"}, {"[C", "char[]"}, {"[F", "float[]"},
    {"[D", "double[]"},  {"[B", "byte[]"}, {"[S", "short[]"},
    {"[I", "int[]"},     {"[J", "long[]"}, {"java/lang/Object", "java.lang.Object"},
};
#define OBJECT (HS_CUT_SLOTS - 1)

void hs_cut_init(hs_cutclasses *c, hs_ctx *ctx)
{
    memset(c, 0, sizeof *c);
    c->c = ctx;
    hs_idmap_init(&c->index, &ctx->alloc);
}

void hs_cut_free(hs_cutclasses *c)
{
    hs_idmap_free(&c->index);
    if (c->list)
        hs_alloc_free(&c->c->alloc, c->list);
    c->list = NULL;
}

void hs_cut_string(hs_cutclasses *c, uint64_t id, const uint8_t *text, size_t n)
{
    unsigned k, s;

    if (n > HS_CUT_NAME_MAX || id == 0)
        return;
    for (k = 0; k < HS_CUT_SLOTS; k++)
        for (s = 0; s < 2; s++)
            if (strlen(g_names[k][s]) == n && memcmp(g_names[k][s], text, n) == 0)
                c->name[k][s] = id;
}

hs_status hs_cut_load_class(hs_cutclasses *c, uint64_t id, uint32_t trace, uint64_t name)
{
    hs_cut_class *k;
    unsigned s;

    if (!id || hs_idmap_get(&c->index, id))
        return HS_OK; /* the first LOAD_CLASS of a class is its name */
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 256;
        hs_cut_class *bigger = hs_realloc(&c->c->alloc, c->list, c->cap * sizeof *c->list,
                                          cap * sizeof *c->list);
        if (!bigger)
            return hs_fail_io(c->c, HS_E_NOMEM, "");
        c->list = bigger;
        c->cap = cap;
    }
    if (hs_idmap_put_new(&c->index, id, c->n) != HS_OK)
        return hs_fail_io(c->c, HS_E_NOMEM, "");
    k = &c->list[c->n++];
    memset(k, 0, sizeof *k);
    k->id = id;
    k->trace = trace;
    for (s = 0; s < HS_CUT_SLOTS && name; s++)
        if (c->name[s][0] == name || c->name[s][1] == name)
            k->slot = (uint8_t)(s + 1);
    if (k->slot == OBJECT + 1 && !c->object)
        c->object = id;
    return hs_hold(c->c, HS_HOLD_CUT, c->cap * sizeof *c->list + hs_idmap_bytes(&c->index));
}

void hs_cut_class_dump(hs_cutclasses *c, uint64_t id)
{
    const uint64_t *at = hs_idmap_get(&c->index, id);

    if (at)
        c->list[*at].dumped = 1;
}

/* Appends the name of slot `s` to c->arrays, in the spelling the dump uses. */
static void say(hs_cutclasses *c, unsigned s)
{
    size_t n = strlen(c->arrays);

    snprintf(c->arrays + n, sizeof c->arrays - n, "%s%s", n ? ", " : "",
             g_names[s][c->name[s][1] && !c->name[s][0]]);
}

hs_status hs_cut_write_missing(hs_cutclasses *c, hs_enc *e, unsigned idsize)
{
    uint8_t b[HS_CD_TABLES(8) + 6];
    const size_t size = HS_CD_TABLES(idsize) + 6;
    size_t j;

    for (j = 0; j < c->n; j++) {
        hs_cut_class *k = &c->list[j];
        if (k->dumped)
            continue;
        /* id, trace, super, then loader, signers, domain and the two
         * reserved ids all 0, instance size 0, and three empty tables */
        memset(b, 0, sizeof b);
        b[0] = HS_SUB_CLASS_DUMP;
        hs_put_be_id(b + HS_CD_CLASS, k->id, idsize);
        hs_put_be32(b + HS_CD_CLASS + idsize, k->trace);
        hs_put_be_id(b + HS_CD_SUPER(idsize), k->id == c->object ? 0 : c->object, idsize);
        HS_TRY(hs_enc_sub(e, b, size));
        k->dumped = 1;
        c->written++;
        if (k->slot && k->slot - 1 < OBJECT)
            say(c, k->slot - 1u);
    }
    return HS_OK;
}
