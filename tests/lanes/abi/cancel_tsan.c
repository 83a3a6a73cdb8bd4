/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cancel_tsan.c - hs_filter_cancel from a second thread while hs_filter_run
 * reads an endless dump, for ThreadSanitizer (`make test-tsan`: Criterion's
 * runner does not run under TSan, so tests/unit/test_abi.c's cancel test has
 * this twin of its own, with no library but ours). Also cancels from a
 * progress callback. Exit 0 when every run ends HS_E_CANCELLED promptly.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "hprof_strip.h"

#define MIB (1u << 20)

static unsigned char g_seg[MIB + 4096]; /* one HEAP_DUMP_SEGMENT of byte arrays */
static size_t g_seg_len;
static const unsigned char g_head[31] = "JAVA PROFILE 1.0.2\0\0\0\0\x08";

static void be(unsigned char *p, unsigned long long v, int n)
{
    while (n--)
        *p++ = (unsigned char)(v >> (8 * n));
}

static void make_segment(void)
{
    size_t n = 9, i;

    for (i = 0; i < 250; i++) {
        unsigned char *a = g_seg + n;
        a[0] = 0x23; /* PRIMITIVE_ARRAY_DUMP */
        be(a + 1, 0x1000 + 16 * i, 8);
        be(a + 9, 1, 4);
        be(a + 13, 4096, 4);
        a[17] = 8; /* byte */
        memset(a + 18, (int)i, 4096);
        n += 18 + 4096;
    }
    g_seg[0] = 0x1C;
    be(g_seg + 1, 0, 4);
    be(g_seg + 5, n - 9, 4);
    g_seg_len = n;
}

typedef struct {
    size_t pos; /* in g_head then g_seg, again and again */
    int in_head;
    _Atomic unsigned long long produced;
} endless;

static long endless_read(void *ctx, void *buf, size_t cap)
{
    endless *e = ctx;
    const unsigned char *p = e->in_head ? g_head : g_seg;
    size_t len = e->in_head ? sizeof g_head : g_seg_len, k;

    if (e->pos == len) {
        e->in_head = 0;
        e->pos = 0;
        p = g_seg;
        len = g_seg_len;
    }
    k = len - e->pos < cap ? len - e->pos : cap;
    memcpy(buf, p + e->pos, k);
    e->pos += k;
    atomic_fetch_add(&e->produced, k);
    return (long)k;
}

static int discard(void *ctx, const void *buf, size_t len)
{
    (void)ctx, (void)buf, (void)len;
    return 0;
}

typedef struct {
    endless *src;
    hs_filter *f;
} canceller;

static void *cancel_later(void *arg)
{
    canceller *c = arg;
    const struct timespec ms = {0, 1000000};

    while (atomic_load(&c->src->produced) < 24ull * MIB)
        nanosleep(&ms, NULL);
    hs_filter_cancel(c->f);
    return NULL;
}

static int stop_at_8(void *ctx, uint64_t in, uint64_t out)
{
    (void)ctx, (void)out;
    return in >= 8u * MIB;
}

static int run(const char *preset, int by_progress)
{
    endless e = {0, 1, 0};
    hs_rules *rules = hs_rules_create(NULL);
    hs_filter *f;
    hs_source s = {.read = endless_read, .ctx = &e};
    hs_sink k = {discard, NULL};
    canceller c;
    pthread_t t;
    hs_status st;

    if (!rules || hs_rules_preset(rules, preset, NULL) != HS_OK)
        return 1;
    f = hs_filter_create(rules, NULL, NULL);
    if (!f)
        return 1;
    c.src = &e;
    c.f = f;
    if (by_progress)
        hs_filter_set_progress(f, stop_at_8, NULL);
    else if (pthread_create(&t, NULL, cancel_later, &c) != 0)
        return 1;
    st = hs_filter_run(f, &s, &k);
    if (!by_progress)
        pthread_join(t, NULL);
    printf("%s%s: %s after %llu MiB\n", preset, by_progress ? " (progress)" : "",
           hs_status_str(st), atomic_load(&e.produced) / MIB);
    hs_filter_free(f);
    hs_rules_free(rules);
    return st != HS_E_CANCELLED || atomic_load(&e.produced) > 40ull * MIB;
}

int main(void)
{
    int bad = 0;

    make_segment();
    bad |= run("default", 0);
    bad |= run("none", 0);
    bad |= run("privacy", 1);
    return bad;
}
