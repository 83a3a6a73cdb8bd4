/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hasher.c - copies what is to be hashed into buffers and hashes them on a
 * thread of its own (see hasher.h), the buffers handed over through the
 * ring every library thread runs on (ring.h).
 *
 * Each stream fills a buffer of its own; a full one (or, at the end, what
 * it holds) is swapped into the ring's next slot, whose buffer the thread
 * has hashed, and posted: the thread takes the blocks in order, so each
 * stream's bytes are hashed in the order they were put. One thread for
 * every stream: the four together are what one core can hash, and the
 * filter has the other.
 */
#define _POSIX_C_SOURCE 200809L
#include "hasher.h"
#include "ring.h"
#include "hs_limits.h"

#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define SLOTS HS_HASHER_SLOTS
#define SLOT_SIZE HS_HASHER_SLOT /* with the streams' own, 4 MiB in all */

struct block {
    unsigned char *buf;
    size_t len;
    int stream;
};

struct hs_hasher {
    hs_sha256 sha[HS_HASH_STREAMS];
    int used[HS_HASH_STREAMS];
    int threaded, joined, ended;
    pthread_t thread;
    hs_ring *ring;
    struct block slot[SLOTS];               /* block k in slot[k % SLOTS] */
    struct block filling[HS_HASH_STREAMS];  /* each stream's, being filled */
    /* puts come from the reader thread and the filter's: the next block's
     * number, and its slot, are taken in turn by the ring's lead */
    unsigned next;
};

static void *hash_thread(void *arg)
{
    hs_hasher *h = arg;
    unsigned k;
    long status;

    /* until the end is posted (hs_hasher_digests) or the ring stopped */
    while (hs_ring_take(h->ring, &k, &status) == 0 && status > 0) {
        struct block *b = &h->slot[k % SLOTS];
        hs_sha256_update(&h->sha[b->stream], b->buf, b->len);
        hs_ring_release(h->ring);
    }
    return NULL;
}

hs_hasher *hs_hasher_start(int threaded)
{
    hs_hasher *h = calloc(1, sizeof *h);
    int i;

    if (!h)
        return NULL;
    for (i = 0; i < HS_HASH_STREAMS; i++)
        hs_sha256_init(&h->sha[i]);
    if (!threaded)
        return h;
    for (i = 0; i < SLOTS; i++)
        if (!(h->slot[i].buf = malloc(SLOT_SIZE)))
            return h; /* inline: the buffers are not needed */
    for (i = 0; i < HS_HASH_STREAMS; i++)
        if (!(h->filling[i].buf = malloc(SLOT_SIZE)))
            return h;
    if (!(h->ring = hs_ring_new(SLOTS, 0)))
        return h;
    if (pthread_create(&h->thread, NULL, hash_thread, h) != 0)
        return h;
    h->threaded = 1;
    return h;
}

/* Hands `stream`'s buffer to the thread (`status` > 0), or the end (0), in
 * the next block; leading h->ring. */
static void post(hs_hasher *h, int stream, long status)
{
    unsigned k = h->next++;
    struct block *b = &h->slot[k % SLOTS], was;
    int r = hs_ring_room(h->ring, k);

    /* only hs_hasher_free stops the ring, when nobody puts any more */
    assert(r == 0);
    (void)r;
    if (status > 0) { /* the slot's buffer, hashed, becomes the stream's */
        was = *b;
        *b = h->filling[stream];
        h->filling[stream] = was;
        h->filling[stream].len = 0;
    }
    hs_ring_post(h->ring, k, status);
}

void hs_hasher_put(hs_hasher *h, enum hs_hash_stream stream, const void *p, size_t n)
{
    const unsigned char *at = p;
    struct block *f;

    assert(!h->ended && stream < HS_HASH_STREAMS);
    h->used[stream] = 1;
    if (!h->threaded) {
        hs_sha256_update(&h->sha[stream], p, n);
        return;
    }
    f = &h->filling[stream];
    hs_ring_lead(h->ring, NULL);
    while (n > 0) {
        size_t k = SLOT_SIZE - f->len < n ? SLOT_SIZE - f->len : n;
        /* the copy while leading: a stream's buffer is its own, but the
         * reader thread's puts and the filter's take turns here, and a
         * copy is short */
        memcpy(f->buf + f->len, at, k);
        f->len += k;
        f->stream = (int)stream;
        at += k;
        n -= k;
        if (f->len == SLOT_SIZE)
            post(h, (int)stream, 1);
    }
    hs_ring_unlead(h->ring, 0);
}

int hs_hasher_used(const hs_hasher *h, enum hs_hash_stream stream)
{
    return h->used[stream];
}

void hs_hasher_digests(hs_hasher *h, hs_digest out[HS_HASH_STREAMS])
{
    int i;

    assert(!h->ended);
    if (h->threaded) {
        hs_ring_lead(h->ring, NULL);
        for (i = 0; i < HS_HASH_STREAMS; i++)
            if (h->filling[i].len)
                post(h, i, 1);
        post(h, 0, 0);
        hs_ring_unlead(h->ring, 0);
        /* the thread hashes every block before the end, then returns */
        pthread_join(h->thread, NULL);
        h->joined = 1;
    }
    h->ended = 1;
    for (i = 0; i < HS_HASH_STREAMS; i++)
        hs_sha256_digest(&h->sha[i], &out[i]);
}

void hs_hasher_free(hs_hasher *h)
{
    int i;

    if (!h)
        return;
    if (h->threaded) {
        if (!h->joined) {
            hs_ring_stop(h->ring);
            pthread_join(h->thread, NULL);
        }
    }
    hs_ring_free(h->ring);
    for (i = 0; i < SLOTS; i++)
        free(h->slot[i].buf);
    for (i = 0; i < HS_HASH_STREAMS; i++)
        free(h->filling[i].buf);
    free(h);
}
