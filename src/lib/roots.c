/* SPDX-License-Identifier: Apache-2.0 */
/*
 * roots.c - roots held until their object's heap is known (see roots.h).
 */
#include <string.h>

#include "roots.h"

void hs_roots_init(hs_roots *r, const hs_alloc *a)
{
    hs_rootq_init(&r->q, a);
    hs_idmap_init(&r->threads, a);
    memset(r->thread_bits, 0, sizeof r->thread_bits);
    r->dropped_any = 0;
}

void hs_roots_free(hs_roots *r)
{
    hs_rootq_free(&r->q);
    hs_idmap_free(&r->threads);
}

hs_status hs_roots_keep_thread(hs_roots *r, hs_ctx *c, uint64_t id)
{
    if (hs_idmap_put(&r->threads, id, 1) != HS_OK || hs_rootq_watch(&r->q, id) != HS_OK)
        return hs_fail_io(c, HS_E_NOMEM, "");
    r->thread_bits[(id >> 9) & 63] |= (uint64_t)1 << ((id >> 3) & 63);
    return hs_hold(c, HS_HOLD_ROOTS, hs_rootq_bytes(&r->q) + hs_idmap_bytes(&r->threads));
}

hs_status hs_roots_hold(hs_roots *r, hs_enc *e, uint64_t id, const uint8_t *bytes, size_t n)
{
    size_t before = hs_rootq_bytes(&r->q);

    if (hs_rootq_add(&r->q, id, bytes, n) != HS_OK)
        return hs_fail_io(e->c, HS_E_NOMEM, "");
    /* held memory changes only when the queue grows */
    if (hs_rootq_bytes(&r->q) == before)
        return HS_OK;
    return hs_hold(e->c, HS_HOLD_ROOTS, hs_rootq_bytes(&r->q) + hs_idmap_bytes(&r->threads));
}

/* Gives each slot back as it goes. */
hs_status hs_roots_write_chain(hs_roots *r, hs_strings *s, hs_enc *e, uint32_t ref, int drop)
{
    while (ref) {
        hs_root_slot *slot = hs_rootq_slot(&r->q, ref);
        uint32_t next = slot->next;
        if (drop) {
            e->c->st.roots_dropped++;
        } else {
            HS_TRY(hs_str_sub_begin(s, e, slot->len));
            HS_TRY(hs_emit(e, slot->bytes, slot->len));
            HS_TRY(hs_enc_sub_end(e));
        }
        hs_rootq_put_back(&r->q, ref);
        ref = next;
    }
    return HS_OK;
}

hs_status hs_roots_release_all(hs_roots *r, hs_strings *s, hs_enc *e)
{
    uint32_t ref;

    while ((ref = hs_rootq_take_any(&r->q)) != 0)
        HS_TRY(hs_roots_write_chain(r, s, e, ref, 0));
    return HS_OK;
}
