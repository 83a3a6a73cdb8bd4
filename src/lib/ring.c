/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ring.c - the bounded ring of blocks the library's threads hand their work
 * through (ring.h): the gzip/zstd reader thread to the filter (input.c),
 * the filter to the gzip compressor workers and back to the writer
 * (output.c), HotSpot's gzip members between their two inflaters and to
 * the reader (in_gzip_members.c), the filter's progress to the pager
 * thread (pager.c), what is hashed to the digest thread (hasher.c), and a
 * push API's writes to the run that reads them (push.c).
 *
 * Why a ring and not a pool (in the manner of zstd's pool.c, which owns its
 * threads and queues functions to run): the users' threads each run
 * a loop of their own (a decoder that keeps state from block to block, a
 * worker with its compressor, a pager walking page tables), and what they
 * share is not how to run a job but how to hand a numbered block on and
 * get it back in order: wait for room, wait for a block, stop, and tell
 * the consumer how the stream ended. That is all this file does; the
 * threads stay their users'. The counters are free-running unsigned
 * numbers (wrapping is harmless: only differences are compared), so block
 * k's slot is k % slots, with no head and tail to keep apart.
 *
 * One lock, three condition variables: `room` for the producers (a release
 * wakes them), `ready` for the workers and the consumer (a post or a
 * worked block wakes them), `turn` for threads waiting to lead (a free
 * lead wakes them, and every change those waiting for news). Blocks are
 * large (1 MiB) and few are in flight, so a broadcast on every change
 * costs nothing measurable and spares any reasoning about who must be
 * woken; the one exception is a thread waiting for the lead alone, which
 * every block woke for nothing (2 % of a run with the hasher busy).
 *
 * The lead is the ring's and not a mutex of its users' so that every wait
 * of the library's threads is here, and a lead that waits for news cannot
 * miss one: the count it waits on is kept under the same lock as the
 * blocks whose changes it counts.
 */
#include "ring.h"

#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

struct hs_ring {
    pthread_mutex_t mu;
    pthread_cond_t room, ready, turn;
    unsigned slots;
    int worked;     /* blocks go through workers */
    /* under mu; taken <= working <= posted, posted - taken <= slots */
    unsigned posted;  /* blocks before it are posted */
    unsigned working; /* blocks before it were taken by a worker */
    unsigned taken;   /* blocks before it are released by the consumer */
    int ended;        /* block posted - 1 is the end of the stream */
    int stop;
    unsigned busy;     /* blocks taken by a worker and not worked yet */
    int leading;       /* a thread leads (hs_ring_lead) */
    unsigned waiting;  /* threads waiting to lead */
    unsigned for_news; /* of them, those waiting for a change too */
    unsigned changes;  /* what a waiting lead waits for, counted */
    long *status;     /* per slot: what the block's last hand gave with it */
    unsigned char *done; /* per slot: worked (a ring with workers) */
};

static void check(const hs_ring *r)
{
    assert(r->posted - r->taken <= r->slots);
    assert(r->working - r->taken <= r->posted - r->taken);
    assert(r->worked || r->working == r->posted);
    assert(r->busy <= r->working - r->taken);
    (void)r;
}

/* Under mu: something a waiting lead may wait for happened (those waiting
 * for the lead alone are woken when it is free, not at every block). */
static void changed(hs_ring *r)
{
    r->changes++;
    if (r->for_news)
        pthread_cond_broadcast(&r->turn);
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
    if (pthread_cond_init(&r->turn, NULL) != 0)
        goto fail_turn;
    return r;
fail_turn:
    pthread_cond_destroy(&r->ready);
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
    pthread_cond_destroy(&r->turn);
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
     * the posted ones (HotSpot's two member inflaters ask for their
     * members' slots out of turn: in_gzip_members.c) */
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
    changed(r);
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
        r->busy++;
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
    assert(!r->done[k % r->slots] && r->busy > 0);
    r->status[k % r->slots] = status;
    r->done[k % r->slots] = 1;
    r->busy--;
    changed(r);
    pthread_cond_broadcast(&r->ready);
    pthread_mutex_unlock(&r->mu);
}

/* Under mu: the oldest block is there for the consumer. */
static int ready(const hs_ring *r)
{
    return r->taken != r->posted && (!r->worked || r->done[r->taken % r->slots]);
}

/* Under mu: 1 with the oldest block in *k and its status, when it is
 * ready (even when stopped), else 0. */
static int oldest(const hs_ring *r, unsigned *k, long *status)
{
    if (!ready(r))
        return 0;
    *k = r->taken;
    *status = r->status[r->taken % r->slots];
    return 1;
}

int hs_ring_take(hs_ring *r, unsigned *k, long *status)
{
    int ok;

    pthread_mutex_lock(&r->mu);
    while (!r->stop && !ready(r))
        pthread_cond_wait(&r->ready, &r->mu);
    ok = oldest(r, k, status) ? 0 : -1;
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
    changed(r);
    pthread_cond_broadcast(&r->room);
    pthread_mutex_unlock(&r->mu);
}

int hs_ring_try_take(hs_ring *r, unsigned *k, long *status)
{
    int ok;

    pthread_mutex_lock(&r->mu);
    ok = oldest(r, k, status) ? 1 : r->stop ? -1 : 0;
    pthread_mutex_unlock(&r->mu);
    return ok;
}

void hs_ring_lead(hs_ring *r, const unsigned *seen)
{
    pthread_mutex_lock(&r->mu);
    r->waiting++;
    r->for_news += seen != NULL;
    while (r->leading || (seen && *seen == r->changes))
        pthread_cond_wait(&r->turn, &r->mu);
    r->waiting--;
    r->for_news -= seen != NULL;
    r->leading = 1;
    pthread_mutex_unlock(&r->mu);
}

unsigned hs_ring_unlead(hs_ring *r, int news)
{
    unsigned n;

    pthread_mutex_lock(&r->mu);
    assert(r->leading);
    r->leading = 0;
    if (news)
        r->changes++;
    /* the lead is free: a thread waiting for it alone may go on */
    if (r->waiting)
        pthread_cond_broadcast(&r->turn);
    n = r->changes;
    pthread_mutex_unlock(&r->mu);
    return n;
}

unsigned hs_ring_busy(hs_ring *r)
{
    unsigned n;

    pthread_mutex_lock(&r->mu);
    n = r->busy;
    pthread_mutex_unlock(&r->mu);
    return n;
}

void hs_ring_unpost(hs_ring *r)
{
    unsigned k;

    pthread_mutex_lock(&r->mu);
    assert(r->busy == 0 && !r->ended);
    for (k = r->taken; k != r->posted; k++)
        r->done[k % r->slots] = 0;
    r->posted = r->working = r->taken;
    check(r);
    changed(r);
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
    changed(r);
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
