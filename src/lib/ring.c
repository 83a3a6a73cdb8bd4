/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ring.c - the bounded ring of blocks the library's threads hand their work
 * through (ring.h): the gzip/zstd reader thread to the filter (input.c),
 * the filter to the gzip compressor workers and back to the writer
 * (output.c), the filter's progress to the pager thread (pager.c), and
 * a push API's writes to the run that reads them (push.c).
 *
 * Why a ring and not a pool (in the manner of zstd's pool.c, which owns its
 * threads and queues functions to run): the three users' threads each run
 * a loop of their own (a decoder that keeps state from block to block, a
 * worker with its compressor, a pager walking page tables), and what they
 * share is not how to run a job but how to hand a numbered block on and
 * get it back in order: wait for room, wait for a block, stop, and tell
 * the consumer how the stream ended. That is all this file does; the
 * threads stay their users'. The counters are free-running unsigned
 * numbers (wrapping is harmless: only differences are compared), so block
 * k's slot is k % slots, with no head and tail to keep apart.
 *
 * One lock, two condition variables: `room` for the producers (a release
 * wakes them), `ready` for the workers and the consumer (a post or a
 * worked block wakes them). Blocks are large (1 MiB) and few are in
 * flight, so a broadcast on every change costs nothing measurable and
 * spares any reasoning about who must be woken.
 */
#include "ring.h"

#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

struct hs_ring {
    pthread_mutex_t mu;
    pthread_cond_t room, ready;
    unsigned slots;
    int worked;     /* blocks go through workers */
    /* under mu; taken <= working <= posted, posted - taken <= slots */
    unsigned posted;  /* blocks before it are posted */
    unsigned working; /* blocks before it were taken by a worker */
    unsigned taken;   /* blocks before it are released by the consumer */
    int ended;        /* block posted - 1 is the end of the stream */
    int stop;
    long *status;     /* per slot: what the block's last hand gave with it */
    unsigned char *done; /* per slot: worked (a ring with workers) */
};

static void check(const hs_ring *r)
{
    assert(r->posted - r->taken <= r->slots);
    assert(r->working - r->taken <= r->posted - r->taken);
    assert(r->worked || r->working == r->posted);
    (void)r;
}

hs_ring *hs_ring_new(unsigned slots, int worked)
{
    hs_ring *r = calloc(1, sizeof *r);

    assert(slots >= 1);
    if (!r)
        return NULL;
    r->slots = slots;
    r->worked = worked;
    r->status = calloc(slots, sizeof *r->status);
    r->done = calloc(slots, 1);
    if (!r->status || !r->done)
        goto fail;
    if (pthread_mutex_init(&r->mu, NULL) != 0)
        goto fail;
    if (pthread_cond_init(&r->room, NULL) != 0)
        goto fail_room;
    if (pthread_cond_init(&r->ready, NULL) != 0)
        goto fail_ready;
    return r;
fail_ready:
    pthread_cond_destroy(&r->room);
fail_room:
    pthread_mutex_destroy(&r->mu);
fail:
    free(r->status);
    free(r->done);
    free(r);
    return NULL;
}

void hs_ring_free(hs_ring *r)
{
    if (!r)
        return;
    pthread_cond_destroy(&r->ready);
    pthread_cond_destroy(&r->room);
    pthread_mutex_destroy(&r->mu);
    free(r->status);
    free(r->done);
    free(r);
}

int hs_ring_room(hs_ring *r, unsigned k)
{
    int ok;

    pthread_mutex_lock(&r->mu);
    /* a producer asks for a block not posted yet, within a ring's reach of
     * the posted ones (input.c's two inflaters ask out of turn) */
    assert(k - r->posted < r->slots);
    while (!r->stop && k - r->taken >= r->slots)
        pthread_cond_wait(&r->room, &r->mu);
    ok = r->stop ? -1 : 0;
    pthread_mutex_unlock(&r->mu);
    return ok;
}

int hs_ring_try_room(hs_ring *r, unsigned k)
{
    int ok;

    pthread_mutex_lock(&r->mu);
    assert(k - r->posted < r->slots);
    ok = r->stop ? -1 : k - r->taken < r->slots;
    pthread_mutex_unlock(&r->mu);
    return ok;
}

void hs_ring_post(hs_ring *r, unsigned k, long status)
{
    pthread_mutex_lock(&r->mu);
    assert(k == r->posted && !r->ended);
    assert(k - r->taken < r->slots); /* hs_ring_room said so */
    r->status[k % r->slots] = status;
    r->done[k % r->slots] = 0;
    r->posted = k + 1;
    if (!r->worked)
        r->working = r->posted;
    if (status <= 0)
        r->ended = 1;
    check(r);
    pthread_cond_broadcast(&r->ready);
    pthread_mutex_unlock(&r->mu);
}

int hs_ring_work(hs_ring *r, unsigned *k)
{
    int ok = -1;

    assert(r->worked);
    pthread_mutex_lock(&r->mu);
    while (!r->stop && r->working == r->posted)
        pthread_cond_wait(&r->ready, &r->mu);
    if (!r->stop) {
        *k = r->working++;
        ok = 0;
    }
    check(r);
    pthread_mutex_unlock(&r->mu);
    return ok;
}

void hs_ring_worked(hs_ring *r, unsigned k, long status)
{
    pthread_mutex_lock(&r->mu);
    assert(r->worked && k - r->taken < r->working - r->taken);
    assert(!r->done[k % r->slots]);
    r->status[k % r->slots] = status;
    r->done[k % r->slots] = 1;
    pthread_cond_broadcast(&r->ready);
    pthread_mutex_unlock(&r->mu);
}

/* Under mu: the oldest block is there for the consumer. */
static int ready(const hs_ring *r)
{
    return r->taken != r->posted && (!r->worked || r->done[r->taken % r->slots]);
}

int hs_ring_take(hs_ring *r, unsigned *k, long *status)
{
    int ok = -1;

    pthread_mutex_lock(&r->mu);
    while (!r->stop && !ready(r))
        pthread_cond_wait(&r->ready, &r->mu);
    if (ready(r)) { /* a block ready is given even when stopped */
        *k = r->taken;
        *status = r->status[r->taken % r->slots];
        ok = 0;
    }
    pthread_mutex_unlock(&r->mu);
    return ok;
}

void hs_ring_release(hs_ring *r)
{
    pthread_mutex_lock(&r->mu);
    assert(ready(r));
    /* the end stays: there is nothing after it to move on to */
    assert(!(r->ended && r->taken + 1 == r->posted));
    r->done[r->taken % r->slots] = 0;
    r->taken++;
    check(r);
    pthread_cond_broadcast(&r->room);
    pthread_mutex_unlock(&r->mu);
}

unsigned hs_ring_held(hs_ring *r)
{
    unsigned n;

    pthread_mutex_lock(&r->mu);
    n = r->posted - r->taken;
    pthread_mutex_unlock(&r->mu);
    return n;
}

void hs_ring_stop(hs_ring *r)
{
    pthread_mutex_lock(&r->mu);
    r->stop = 1;
    pthread_cond_broadcast(&r->room);
    pthread_cond_broadcast(&r->ready);
    pthread_mutex_unlock(&r->mu);
}

int hs_ring_stopped(hs_ring *r)
{
    int s;

    pthread_mutex_lock(&r->mu);
    s = r->stop;
    pthread_mutex_unlock(&r->mu);
    return s;
}
