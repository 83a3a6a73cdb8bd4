/* SPDX-License-Identifier: Apache-2.0 */
/*
 * classdump.c - the CLASS_DUMP walker (see classdump.h).
 */
#include "classdump.h"

#include "be.h"
#include "format.h"

void hs_cd_start(hs_cd_walk *w, unsigned idsize)
{
    w->idsize = idsize;
    w->k = HS_CD_TABLES(idsize);
    w->table = -1; /* the count of the first table comes next */
    w->left = 0;
    w->index = 0;
    w->need = 0;
}

static int more(hs_cd_walk *w, size_t n)
{
    w->need = w->k + n;
    return HS_CD_MORE;
}

int hs_cd_next(hs_cd_walk *w, const uint8_t *p, size_t avail, hs_cd_entry *e)
{
    const unsigned i = w->idsize;
    size_t head;

    while (w->left == 0) { /* the next table's count */
        if (w->table == HS_CD_FIELD)
            return HS_CD_END;
        if (avail < w->k + 2)
            return more(w, 2);
        w->left = hs_be16(p + w->k);
        w->k += 2;
        w->table++;
        w->index = 0;
    }
    /* constants: u2 index, u1 type; statics and fields: id name, u1 type */
    head = w->table == HS_CD_CONST ? 3 : (size_t)i + 1;
    if (avail < w->k + head)
        return more(w, head);
    e->table = w->table;
    e->index = w->index;
    e->name = w->table == HS_CD_CONST ? 0 : hs_be_id(p + w->k, i);
    e->type_at = w->k + head - 1;
    e->type = p[e->type_at];
    e->value = w->k + head;
    e->width = hs_type_size(e->type, i);
    if (!e->width)
        return HS_CD_BAD_TYPE;
    if (w->table == HS_CD_FIELD)
        e->width = 0;
    /* a value's bytes are not asked for here: the caller makes the whole
     * sub-record available (w->k at HS_CD_END) before it reads one */
    w->k += head + e->width;
    w->left--;
    w->index++;
    return HS_CD_ENTRY;
}
