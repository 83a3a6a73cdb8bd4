/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sha256.c - SHA-256 as FIPS 180-4 defines it, with two block functions:
 * portable C, and x86-64's SHA extensions (SHA-NI), chosen once by CPUID.
 * A report hashes every byte it vouches for, so the block function is what
 * a run with a report pays per byte: SHA-NI is about eight times the
 * portable code.
 */
#include "sha256.h"

#include <assert.h>
#include <stdatomic.h>
#include <string.h>

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t rotr(uint32_t x, unsigned n) { return (x >> n) | (x << (32 - n)); }

static uint32_t load_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* One round: d takes t1 and becomes the next e, h becomes the next a. */
#define ROUND(a, b, c, d, e, f, g, h, i)                                                   \
    do {                                                                                   \
        uint32_t t1 = (h) + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) +                     \
                      (((e) & (f)) ^ (~(e) & (g))) + K[i] + w[i];                          \
        (d) += t1;                                                                         \
        (h) = t1 + (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) +                              \
              (((a) & (b)) ^ ((a) & (c)) ^ ((b) & (c)));                                   \
    } while (0)

/* `n` 64-byte blocks into the state. */
static void blocks_portable(uint32_t h[8], const uint8_t *p, size_t n)
{
    for (; n > 0; n--, p += 64) {
        uint32_t w[64], v[8];
        for (int i = 0; i < 16; i++)
            w[i] = load_be32(p + 4 * i);
        for (int i = 16; i < 64; i++) {
            uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
            uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16] + s0 + w[i - 7] + s1;
        }
        memcpy(v, h, sizeof v);
        /* eight rounds a turn, the words renamed rather than moved */
        for (int i = 0; i < 64; i += 8) {
            ROUND(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], i);
            ROUND(v[7], v[0], v[1], v[2], v[3], v[4], v[5], v[6], i + 1);
            ROUND(v[6], v[7], v[0], v[1], v[2], v[3], v[4], v[5], i + 2);
            ROUND(v[5], v[6], v[7], v[0], v[1], v[2], v[3], v[4], i + 3);
            ROUND(v[4], v[5], v[6], v[7], v[0], v[1], v[2], v[3], i + 4);
            ROUND(v[3], v[4], v[5], v[6], v[7], v[0], v[1], v[2], i + 5);
            ROUND(v[2], v[3], v[4], v[5], v[6], v[7], v[0], v[1], i + 6);
            ROUND(v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[0], i + 7);
        }
        for (int i = 0; i < 8; i++)
            h[i] += v[i];
    }
}

typedef void blocks_fn(uint32_t h[8], const uint8_t *p, size_t n);

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>

#define SHANI __attribute__((target("sha,sse4.1,ssse3")))

/* The SHA instructions keep the state as two vectors, ABEF and CDGH (lane
 * 3 first); a round pair takes the message words plus their constants and
 * turns CDGH into the new ABEF, the old ABEF being the new CDGH. */
SHANI static void blocks_shani(uint32_t h[8], const uint8_t *p, size_t n)
{
    const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
    __m128i dcba = _mm_loadu_si128((const __m128i *)(const void *)h);
    __m128i hgfe = _mm_loadu_si128((const __m128i *)(const void *)(h + 4));
    __m128i cdab = _mm_shuffle_epi32(dcba, 0xB1);
    __m128i efgh = _mm_shuffle_epi32(hgfe, 0x1B);
    __m128i abef = _mm_alignr_epi8(cdab, efgh, 8);
    __m128i cdgh = _mm_blend_epi16(efgh, cdab, 0xF0);

    for (; n > 0; n--, p += 64) {
        __m128i w[16];
        __m128i abef0 = abef, cdgh0 = cdgh;
        for (int g = 0; g < 4; g++)
            w[g] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 16 * g)), bswap);
        for (int g = 4; g < 16; g++) {
            __m128i t = _mm_add_epi32(_mm_sha256msg1_epu32(w[g - 4], w[g - 3]),
                                      _mm_alignr_epi8(w[g - 1], w[g - 2], 4));
            w[g] = _mm_sha256msg2_epu32(t, w[g - 1]);
        }
        for (int g = 0; g < 16; g++) {
            __m128i m = _mm_add_epi32(w[g], _mm_loadu_si128((const __m128i *)(const void *)(K + 4 * g)));
            cdgh = _mm_sha256rnds2_epu32(cdgh, abef, m);
            abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(m, 0x0E));
        }
        abef = _mm_add_epi32(abef, abef0);
        cdgh = _mm_add_epi32(cdgh, cdgh0);
    }
    __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
    __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
    _mm_storeu_si128((__m128i *)(void *)h, _mm_blend_epi16(feba, dchg, 0xF0));
    _mm_storeu_si128((__m128i *)(void *)(h + 4), _mm_alignr_epi8(dchg, feba, 8));
}

static int cpu_has_shani(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_SSE4_1) || !(c & bit_SSSE3))
        return 0;
    if (__get_cpuid_max(0, NULL) < 7)
        return 0;
    __cpuid_count(7, 0, a, b, c, d);
    return (b & bit_SHA) != 0;
}
#else
static int cpu_has_shani(void) { return 0; }
#define blocks_shani blocks_portable
#endif

/* 0 not yet asked, 1 portable, 2 SHA-NI: CPUID is asked once, by the
 * first update of any thread (each finds the same answer). */
static atomic_int engine;

static blocks_fn *blocks(void)
{
    int e = atomic_load_explicit(&engine, memory_order_relaxed);
    if (e == 0) {
        e = cpu_has_shani() ? 2 : 1;
        atomic_store_explicit(&engine, e, memory_order_relaxed);
    }
    return e == 2 ? blocks_shani : blocks_portable;
}

const char *hs_sha256_engine(void)
{
    return blocks() == blocks_portable ? "portable" : "sha-ni";
}

void hs_sha256_init(hs_sha256 *s)
{
    static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(s->h, iv, sizeof iv);
    s->bytes = 0;
    s->nparts = 0;
}

void hs_sha256_update(hs_sha256 *s, const void *data, size_t n)
{
    const uint8_t *p = data;
    blocks_fn *f = blocks();

    assert(s->nparts < 64);
    s->bytes += n;
    if (s->nparts) {
        size_t k = 64 - s->nparts < n ? 64 - s->nparts : n;
        memcpy(s->part + s->nparts, p, k);
        s->nparts += k;
        p += k;
        n -= k;
        if (s->nparts < 64)
            return;
        f(s->h, s->part, 1);
        s->nparts = 0;
    }
    if (n >= 64) {
        f(s->h, p, n / 64);
        p += n / 64 * 64;
        n %= 64;
    }
    memcpy(s->part, p, n);
    s->nparts = n;
}

void hs_sha256_final(hs_sha256 *s, uint8_t out[HS_SHA256_BYTES])
{
    uint64_t bits = s->bytes * 8;
    uint8_t pad[72] = {0x80};
    /* 0x80, zeros to 56 mod 64, then the length in bits, big-endian */
    size_t padn = (s->nparts < 56 ? 56 : 120) - s->nparts;

    for (int i = 0; i < 8; i++)
        pad[padn + i] = (uint8_t)(bits >> (56 - 8 * i));
    hs_sha256_update(s, pad, padn + 8);
    assert(s->nparts == 0);
    for (int i = 0; i < 8; i++) {
        out[4 * i] = (uint8_t)(s->h[i] >> 24);
        out[4 * i + 1] = (uint8_t)(s->h[i] >> 16);
        out[4 * i + 2] = (uint8_t)(s->h[i] >> 8);
        out[4 * i + 3] = (uint8_t)s->h[i];
    }
}

void hs_sha256_hex(const uint8_t digest[HS_SHA256_BYTES], char hex[HS_SHA256_HEX])
{
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < HS_SHA256_BYTES; i++) {
        hex[2 * i] = digits[digest[i] >> 4];
        hex[2 * i + 1] = digits[digest[i] & 15];
    }
    hex[2 * HS_SHA256_BYTES] = '\0';
}

void hs_sha256_digest(hs_sha256 *s, hs_digest *d)
{
    uint8_t bin[HS_SHA256_BYTES];

    d->bytes = s->bytes;
    hs_sha256_final(s, bin);
    hs_sha256_hex(bin, d->hex);
}

int hs_sha256_with(const char *name, const void *p, size_t n, uint8_t out[HS_SHA256_BYTES])
{
    blocks_fn *f = strcmp(name, "portable") == 0 ? blocks_portable
                   : strcmp(name, "sha-ni") == 0 && cpu_has_shani() ? blocks_shani
                                                                    : NULL;
    hs_sha256 s;
    if (!f)
        return -1;
    hs_sha256_init(&s);
    f(s.h, p, n / 64);
    s.bytes = n / 64 * 64;
    hs_sha256_update(&s, (const uint8_t *)p + n / 64 * 64, n % 64);
    hs_sha256_final(&s, out);
    return 0;
}
