/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hasher.c - copies what is to be hashed into slots and hashes them on a
 * thread of its own (see hasher.h).
 *
 * Each stream fills a slot of its own; a full slot (or one left for
 * another stream's) joins a queue the thread takes in order, so each
 * stream's bytes are hashed in the order they were put. One thread for
 * every stream: the four together are what one core can hash, and the
 * filter has the other.
 */
#include "hasher.h"
#include "hs_limits.h"

#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define SLOTS HS_HASHER_SLOTS
#define SLOT_SIZE HS_HASHER_SLOT /* 4 MiB in all */

struct slot {
    unsigned char *buf;
    size_t len;
    int stream;
};

struct hs_hasher {
    hs_sha256 sha[HS_HASH_STREAMS];
    int used[HS_HASH_STREAMS];
    int threaded, stop, ended;
    /* under mu: free slots; each stream's slot being filled (-1: none);
     * the queue of full ones, oldest first */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t thread;
    struct slot slot[SLOTS];
    int free_list[SLOTS], nfree;
    int filling[HS_HASH_STREAMS];
    int queue[SLOTS], qhead, qlen;
    int busy; /* the thread is hashing a slot taken off the queue */
};

static void *hash_thread(void *arg)
{
    hs_hasher *h = arg;

    pthread_mutex_lock(&h->mu);
    for (;;) {
        struct slot *s;
        int i;
        while (h->qlen == 0 && !h->stop)
            pthread_cond_wait(&h->cv, &h->mu);
        if (h->qlen == 0)
            break; /* stopped, and nothing left */
        i = h->queue[h->qhead];
        h->qhead = (h->qhead + 1) % SLOTS;
        h->qlen--;
        h->busy = 1;
        pthread_mutex_unlock(&h->mu);
        s = &h->slot[i];
        hs_sha256_update(&h->sha[s->stream], s->buf, s->len);
        pthread_mutex_lock(&h->mu);
        h->busy = 0;
        h->free_list[h->nfree++] = i;
        pthread_cond_broadcast(&h->cv);
    }
    pthread_mutex_unlock(&h->mu);
    return NULL;
}

hs_hasher *hs_hasher_start(int threaded)
{
    hs_hasher *h = calloc(1, sizeof *h);
    int i;

    if (!h)
        return NULL;
    for (i = 0; i < HS_HASH_STREAMS; i++) {
        hs_sha256_init(&h->sha[i]);
        h->filling[i] = -1;
    }
    if (!threaded)
        return h;
    for (i = 0; i < SLOTS; i++) {
        if (!(h->slot[i].buf = malloc(SLOT_SIZE)))
            return h; /* inline: the slots are not needed */
        h->free_list[h->nfree++] = i;
    }
    if (pthread_mutex_init(&h->mu, NULL) != 0)
        return h;
    if (pthread_cond_init(&h->cv, NULL) != 0) {
        pthread_mutex_destroy(&h->mu);
        return h;
    }
    if (pthread_create(&h->thread, NULL, hash_thread, h) != 0) {
        pthread_cond_destroy(&h->cv);
        pthread_mutex_destroy(&h->mu);
        return h;
    }
    h->threaded = 1;
    return h;
}

/* Queues slot i (under mu). */
static void enqueue(hs_hasher *h, int i)
{
    assert(h->qlen < SLOTS);
    h->queue[(h->qhead + h->qlen) % SLOTS] = i;
    h->qlen++;
    pthread_cond_broadcast(&h->cv);
}

void hs_hasher_put(hs_hasher *h, enum hs_hash_stream stream, const void *p, size_t n)
{
    const unsigned char *at = p;

    assert(!h->ended && stream < HS_HASH_STREAMS);
    h->used[stream] = 1;
    if (!h->threaded) {
        hs_sha256_update(&h->sha[stream], p, n);
        return;
    }
    pthread_mutex_lock(&h->mu);
    while (n > 0) {
        struct slot *s;
        size_t k;
        int i = h->filling[stream];
        if (i < 0) {
            while (h->nfree == 0)
                pthread_cond_wait(&h->cv, &h->mu);
            i = h->free_list[--h->nfree];
            h->slot[i].len = 0;
            h->slot[i].stream = (int)stream;
            h->filling[stream] = i;
        }
        s = &h->slot[i];
        k = SLOT_SIZE - s->len < n ? SLOT_SIZE - s->len : n;
        /* the copy under the lock: a slot being filled is no one else's,
         * but the reader thread's puts and the filter's take turns here,
         * and a copy is short */
        memcpy(s->buf + s->len, at, k);
        s->len += k;
        at += k;
        n -= k;
        if (s->len == SLOT_SIZE) {
            h->filling[stream] = -1;
            enqueue(h, i);
        }
    }
    pthread_mutex_unlock(&h->mu);
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
        pthread_mutex_lock(&h->mu);
        for (i = 0; i < HS_HASH_STREAMS; i++)
            if (h->filling[i] >= 0) {
                enqueue(h, h->filling[i]);
                h->filling[i] = -1;
            }
        while (h->qlen > 0 || h->busy)
            pthread_cond_wait(&h->cv, &h->mu);
        pthread_mutex_unlock(&h->mu);
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
        pthread_mutex_lock(&h->mu);
        h->stop = 1;
        pthread_cond_broadcast(&h->cv);
        pthread_mutex_unlock(&h->mu);
        pthread_join(h->thread, NULL);
        pthread_cond_destroy(&h->cv);
        pthread_mutex_destroy(&h->mu);
    }
    for (i = 0; i < SLOTS; i++)
        free(h->slot[i].buf);
    free(h);
}
