/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hasher.h - the SHA-256 digests a report carries (the input file, the dump
 * in it, the output file, the dump in that), made on a thread of their own.
 *
 * SHA-256 is serial within a stream and runs at about 1.5 GB/s a core
 * (sha256.h): a plain 1 GB dump in and out is 1.4 s of hashing, more than
 * the filter's own work. The filter's thread only copies the bytes into a
 * few slots (memcpy, about ten times the hash's speed) and a hasher thread
 * hashes them in order, on the other core; a slow hasher makes the copy
 * wait for a free slot, so memory stays at the slots'.
 */
#ifndef HS_HASHER_H
#define HS_HASHER_H

#include <stddef.h>

#include "sha256.h"

enum hs_hash_stream {
    HS_HASH_IN_FILE,   /* the input's bytes as read */
    HS_HASH_IN_DUMP,   /* the HPROF decompressed from them */
    HS_HASH_OUT_FILE,  /* the bytes written */
    HS_HASH_OUT_DUMP,  /* the HPROF before it was compressed */
    HS_HASH_STREAMS
};

typedef struct hs_hasher hs_hasher;

/* `threaded`: hash on a thread of its own (else in the caller's, at each
 * put). NULL when out of memory; a thread that cannot start means inline. */
hs_hasher *hs_hasher_start(int threaded);
/* Adds p[0..n) to `stream`. Any thread may put; puts to one stream must
 * come from one thread at a time, in order. */
void hs_hasher_put(hs_hasher *h, enum hs_hash_stream stream, const void *p, size_t n);
/* Whether anything was put to `stream`. */
int hs_hasher_used(const hs_hasher *h, enum hs_hash_stream stream);
/* Waits for every byte put, and ends the digests (a stream nothing was put
 * to: the digest of no bytes). Once; after it, no put. */
void hs_hasher_digests(hs_hasher *h, hs_digest out[HS_HASH_STREAMS]);
/* Stops the thread (if the digests were not asked for) and frees. */
void hs_hasher_free(hs_hasher *h);

#endif
