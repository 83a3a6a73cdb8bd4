/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_sha256.c - the digests reports carry: FIPS 180-4's examples, every
 * split of a message, both block engines, and sha256sum(1) on bytes it
 * has never seen.
 */
#define _POSIX_C_SOURCE 200809L /* mkstemp, popen */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sha256.h"

static void digest_hex(const void *p, size_t n, char hex[HS_SHA256_HEX])
{
    hs_sha256 s;
    uint8_t d[HS_SHA256_BYTES];
    hs_sha256_init(&s);
    hs_sha256_update(&s, p, n);
    hs_sha256_final(&s, d);
    hs_sha256_hex(d, hex);
}

Test(sha256, fips_examples)
{
    static const struct {
        const char *msg, *hex;
    } v[] = {
        {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
        {"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"},
    };
    char hex[HS_SHA256_HEX];
    for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
        digest_hex(v[i].msg, strlen(v[i].msg), hex);
        cr_assert_str_eq(hex, v[i].hex, "message %zu", i);
    }
}

Test(sha256, million_a_in_odd_pieces)
{
    static char a[1000000];
    hs_sha256 s;
    uint8_t d[HS_SHA256_BYTES];
    char hex[HS_SHA256_HEX];
    size_t at = 0, step = 1;

    memset(a, 'a', sizeof a);
    hs_sha256_init(&s);
    while (at < sizeof a) { /* 1, 2, 3 ... bytes: every offset within a block */
        size_t k = step < sizeof a - at ? step : sizeof a - at;
        hs_sha256_update(&s, a + at, k);
        at += k;
        step = step % 131 + 1;
    }
    hs_sha256_final(&s, d);
    hs_sha256_hex(d, hex);
    cr_assert_str_eq(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

Test(sha256, engines_agree_on_every_length)
{
    uint8_t buf[1100], p[HS_SHA256_BYTES], n[HS_SHA256_BYTES];
    int have_ni = 1;

    srand(7);
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)rand();
    for (size_t len = 0; len <= sizeof buf; len++) {
        cr_assert_eq(hs_sha256_with("portable", buf, len, p), 0);
        if (hs_sha256_with("sha-ni", buf, len, n) < 0) {
            have_ni = 0;
            break;
        }
        cr_assert_eq(memcmp(p, n, sizeof p), 0, "length %zu", len);
    }
    if (!have_ni)
        cr_log_info("sha256: no SHA extensions on this CPU; the portable engine alone was checked");
    cr_assert_eq(hs_sha256_with("no-such", buf, 1, p), -1);
}

Test(sha256, matches_sha256sum)
{
    size_t len = (3 << 20) + 37;
    uint8_t *buf = malloc(len);
    char path[] = "/tmp/hs-sha-XXXXXX", cmd[64], want[HS_SHA256_HEX] = "", hex[HS_SHA256_HEX];
    int fd = mkstemp(path);
    FILE *f;

    cr_assert(buf && fd >= 0);
    for (size_t i = 0; i < len; i++)
        buf[i] = (uint8_t)(i * 2654435761u >> 13);
    cr_assert_eq(write(fd, buf, len), (ssize_t)len);
    close(fd);
    snprintf(cmd, sizeof cmd, "sha256sum %s", path);
    f = popen(cmd, "r");
    cr_assert(f);
    cr_assert_eq(fscanf(f, "%64s", want), 1);
    pclose(f);
    unlink(path);
    digest_hex(buf, len, hex);
    cr_assert_str_eq(hex, want);
    free(buf);
}

/* The hasher (src/lib/hasher.c): its thread's digests equal the inline ones,
 * for four streams put in interleaved pieces of every size, from two
 * threads at once (as the reader thread and the filter put). */
#include <pthread.h>

#include "hasher.h"

struct putter {
    hs_hasher *h;
    int first; /* puts streams first and first + 1 */
    const uint8_t *buf;
    size_t len;
};

static void *put_two(void *arg)
{
    struct putter *p = arg;
    size_t at = 0, step = 1;

    while (at < p->len) {
        size_t k = step < p->len - at ? step : p->len - at;
        hs_hasher_put(p->h, (enum hs_hash_stream)p->first, p->buf + at, k);
        hs_hasher_put(p->h, (enum hs_hash_stream)(p->first + 1), p->buf + p->len - at - k, k);
        at += k;
        step = step * 3 % 1000003 + 1; /* 1 byte up to about 1 MiB: slots fill and split */
    }
    return NULL;
}

static void digests_of(int threaded, const uint8_t *buf, size_t len, hs_digest d[HS_HASH_STREAMS])
{
    hs_hasher *h = hs_hasher_start(threaded);
    struct putter a = {h, HS_HASH_IN_FILE, buf, len}, b = {h, HS_HASH_OUT_FILE, buf, len / 2};
    pthread_t t;

    cr_assert(h);
    cr_assert_eq(pthread_create(&t, NULL, put_two, &a), 0);
    put_two(&b);
    pthread_join(t, NULL);
    hs_hasher_digests(h, d);
    hs_hasher_free(h);
}

Test(hasher, threaded_equals_inline)
{
    size_t len = (9 << 20) + 4097;
    uint8_t *buf = malloc(len);
    hs_digest one[HS_HASH_STREAMS], two[HS_HASH_STREAMS];
    char hex[HS_SHA256_HEX];

    cr_assert(buf);
    for (size_t i = 0; i < len; i++)
        buf[i] = (uint8_t)(i * 7919u >> 5);
    digests_of(0, buf, len, one);
    digests_of(1, buf, len, two);
    for (int i = 0; i < HS_HASH_STREAMS; i++) {
        cr_assert_str_eq(one[i].hex, two[i].hex, "stream %d", i);
        cr_assert_eq(one[i].bytes, two[i].bytes, "stream %d", i);
    }
    /* and they are the digests of the bytes: stream 0 is buf in order */
    digest_hex(buf, len, hex);
    cr_assert_str_eq(two[HS_HASH_IN_FILE].hex, hex);
    cr_assert_eq(two[HS_HASH_OUT_FILE].bytes, len / 2);
    free(buf);
}

Test(hasher, nothing_put)
{
    hs_hasher *h = hs_hasher_start(1);
    hs_digest d[HS_HASH_STREAMS];

    cr_assert(h);
    cr_assert_not(hs_hasher_used(h, HS_HASH_IN_FILE));
    hs_hasher_digests(h, d);
    cr_assert_str_eq(d[HS_HASH_OUT_DUMP].hex,
                     "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    cr_assert_eq(d[HS_HASH_OUT_DUMP].bytes, 0);
    hs_hasher_free(h);
}
