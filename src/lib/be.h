/* SPDX-License-Identifier: Apache-2.0 */
/*
 * be.h - big-endian loads and stores: the one place byte order lives.
 *
 * memcpy + bswap compiles to a single load and a bswap on every target we
 * build for, and never makes an unaligned access undefined behaviour.
 */
#ifndef HS_BE_H
#define HS_BE_H

#include <stdint.h>
#include <string.h>

/* Byte order must be known: guessing would read every length wrong. */
#if !defined(__BYTE_ORDER__) || !defined(__ORDER_LITTLE_ENDIAN__) ||                        \
    (__BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__ && __BYTE_ORDER__ != __ORDER_BIG_ENDIAN__)
#error "be.h: the compiler does not say the byte order (__BYTE_ORDER__)"
#endif

static inline uint16_t hs_be16(const uint8_t *p)
{
    return (uint16_t)((unsigned)p[0] << 8 | p[1]);
}

static inline uint32_t hs_be32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    v = __builtin_bswap32(v);
#endif
    return v;
}

static inline uint64_t hs_be64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

/* An identifier of `idsize` bytes (4 or 8), widened to 64 bits. */
static inline uint64_t hs_be_id(const uint8_t *p, unsigned idsize)
{
    return idsize == 8 ? hs_be64(p) : hs_be32(p);
}

static inline void hs_put_be32(uint8_t *p, uint32_t v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    v = __builtin_bswap32(v);
#endif
    memcpy(p, &v, 4);
}

static inline void hs_put_be64(uint8_t *p, uint64_t v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    memcpy(p, &v, 8);
}

static inline void hs_put_be_id(uint8_t *p, uint64_t v, unsigned idsize)
{
    if (idsize == 8)
        hs_put_be64(p, v);
    else
        hs_put_be32(p, (uint32_t)v);
}

#endif
