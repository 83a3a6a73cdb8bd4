/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dups.h - duplicate primitive arrays, found before scrubbing destroys the
 * evidence: analysts look for repeated strings and bitmaps to find waste.
 */
#ifndef HS_DUPS_H
#define HS_DUPS_H

#include <xxhash.h>

#include "ctx.h"
#include "idmap.h"

typedef struct {
    hs_idmap seen;  /* contents key -> 1 */
    hs_idmap sizes; /* type << 56 | length -> extra copies */
    XXH3_state_t *state;
} hs_dups;

void hs_dups_init(hs_dups *d, const hs_alloc *a);
void hs_dups_free(hs_dups *d);

/* Before a payload of `payload` bytes moves: when all of it is at p (`avail`
 * bytes there), hashes it into *hash and sets *tap to NULL; else sets *tap to
 * a state that must see every payload byte as it streams. */
hs_status hs_dups_begin(hs_dups *d, hs_ctx *c, const uint8_t *p, size_t avail,
                        uint64_t payload, uint64_t *hash, XXH3_state_t **tap);
/* After it moved: records it, counting it when it repeats an earlier
 * array's type, length and contents. */
hs_status hs_dups_end(hs_dups *d, hs_ctx *c, unsigned type, uint64_t payload, uint64_t hash,
                      XXH3_state_t *tap);
/* Fills st->dup_top. */
void hs_dups_top(const hs_dups *d, hs_stats *st);

#endif
