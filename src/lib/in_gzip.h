/* SPDX-License-Identifier: Apache-2.0 */
/*
 * in_gzip.h - the gzip decoder's state (in_gzip_stream.c), shared with the HotSpot
 * members' inflater (in_gzip_members.c), which runs before the streaming one on
 * the reader thread.
 */
#ifndef HS_IN_GZIP_H
#define HS_IN_GZIP_H

#include <stddef.h>
#include <stdint.h>
#include <isa-l/igzip_lib.h>

#include "input_int.h"

typedef struct {
    struct inflate_state st; /* the streaming inflater's */
    struct inflate_state *helper; /* the members helper's: HotSpot's -gz */
    size_t block;         /* HotSpot's most bytes in a member */
    int member_done;
    uint64_t false_headers; /* header-like bytes met inside members */
} hs_gunzip;

/* in_gzip_members.c: the block size a HotSpot first member header at p gives, or
 * 0; and the members inflated two at a time, from block `first` on the
 * reader thread's ring, while they are HotSpot's: returns the next block
 * number (the streaming inflater goes on from there). */
size_t hs_members_block(const uint8_t *p, size_t n);
unsigned hs_members_parallel(hs_input *in, unsigned first);

#endif
