/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sha256.h - SHA-256 (FIPS 180-4), what binds a report to the bytes it
 * describes: `sha256sum FILE` gives the same digest. Streaming: update with
 * any split of the bytes gives the digest of their concatenation. On x86-64
 * with the SHA extensions the blocks go through them (1.57 GB/s on one core
 * here), else through portable C (0.28 GB/s): hashing is serial, so one
 * stream hashes no faster than that, whatever the cores.
 */
#ifndef HS_SHA256_H
#define HS_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define HS_SHA256_BYTES 32
#define HS_SHA256_HEX (2 * HS_SHA256_BYTES + 1)

typedef struct hs_sha256 {
    uint32_t h[8];     /* the chaining state, a to h */
    uint64_t bytes;    /* message length so far */
    uint8_t part[64];  /* a block begun and not yet whole */
    size_t nparts;     /* bytes of part in use, < 64 */
} hs_sha256;

void hs_sha256_init(hs_sha256 *s);
void hs_sha256_update(hs_sha256 *s, const void *p, size_t n);
/* The digest of everything updated so far; `s` must be initialised again
 * before further use. */
void hs_sha256_final(hs_sha256 *s, uint8_t out[HS_SHA256_BYTES]);
/* `digest` as 64 lower-case hex digits and a NUL, as sha256sum prints it. */
void hs_sha256_hex(const uint8_t digest[HS_SHA256_BYTES], char hex[HS_SHA256_HEX]);
/* A digest as a report gives it: the hex and how many bytes it covers. */
typedef struct hs_digest {
    char hex[HS_SHA256_HEX];
    uint64_t bytes;
} hs_digest;

/* Ends `s` into `d` (as hs_sha256_final). */
void hs_sha256_digest(hs_sha256 *s, hs_digest *d);

/* Which block function runs here: "sha-ni" or "portable". */
const char *hs_sha256_engine(void);
/* For tests: the digest of `p`, its whole blocks through the engine named
 * ("portable" or "sha-ni"); -1 when that engine cannot run here. */
int hs_sha256_with(const char *engine, const void *p, size_t n, uint8_t out[HS_SHA256_BYTES]);

#endif
