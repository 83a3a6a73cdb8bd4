/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_ring.c - the ring of blocks the library's threads share (src/lib/
 * ring.c): blocks arrive in the order posted, with and without workers
 * finishing them out of order; a stop frees a producer waiting for room
 * and workers waiting for blocks; the end of the stream, an error with its
 * message, reaches the consumer after every block before it, and stays.
 * The lead: one thread at a time; threads that take turns at it, each
 * handing out, working and taking back (HotSpot's gzip members), get every
 * block in order and never wait for news that came already; what a lead
 * drops (hs_ring_unpost) is posted again from the oldest.
 */
#define _DEFAULT_SOURCE
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "ring.h"

#define SLOTS 4
#define BLOCKS 2000u

static void nap_us(long us)
{
    struct timespec ts = {0, us * 1000};
    nanosleep(&ts, NULL);
}

/* What the threads share besides the ring: one buffer per slot. */
struct fixture {
    hs_ring *r;
    unsigned buf[SLOTS];
    char why[64]; /* the producer's error message */
    _Atomic int room_said; /* what hs_ring_room returned to the blocked producer */
};

static void *produce(void *arg)
{
    struct fixture *f = arg;
    unsigned k;

    for (k = 0; k < BLOCKS; k++) {
        if (hs_ring_room(f->r, k) != 0)
            return NULL;
        f->buf[k % SLOTS] = k * 7 + 1;
        if (k % 97 == 0)
            nap_us(200); /* a slow producer now and then: the consumer waits */
        hs_ring_post(f->r, k, (long)k + 1);
    }
    snprintf(f->why, sizeof f->why, "cut after %u blocks", BLOCKS);
    if (hs_ring_room(f->r, k) == 0)
        hs_ring_post(f->r, k, -1);
    return NULL;
}

/* Takes every block to the end: each in order, holding what was put in
 * its buffer and the status it was posted (or worked) with. */
static void consume_all(struct fixture *f, int worked)
{
    unsigned k, want;
    long st;

    for (want = 0; want < BLOCKS; want++) {
        cr_assert_eq(hs_ring_take(f->r, &k, &st), 0);
        cr_assert_eq(k, want, "block %u came out as block %u", want, k);
        cr_assert_eq(f->buf[k % SLOTS], (worked ? 3 : 1) * (want * 7 + 1),
                     "block %u holds %u", want, f->buf[k % SLOTS]);
        cr_assert_eq(st, worked ? -(long)want - 1000 : (long)want + 1);
        if (want % 89 == 0)
            nap_us(200); /* a slow consumer now and then: the producer waits */
        hs_ring_release(f->r);
    }
}

Test(ring, blocks_come_out_in_the_order_posted, .timeout = 30)
{
    struct fixture f;
    pthread_t t;
    long st;
    unsigned k;

    memset(&f, 0, sizeof f);
    f.r = hs_ring_new(SLOTS, 0);
    cr_assert(f.r);
    cr_assert_eq(pthread_create(&t, NULL, produce, &f), 0);
    consume_all(&f, 0);
    cr_assert_eq(hs_ring_take(f.r, &k, &st), 0);
    cr_assert_eq(st, -1, "the end after the last block");
    pthread_join(t, NULL);
    hs_ring_free(f.r);
}

/* Workers that finish their blocks in any order (the later ones often
 * first): the consumer still gets them in the order posted. */
static void *work(void *arg)
{
    struct fixture *f = arg;
    unsigned k;

    while (hs_ring_work(f->r, &k) == 0) {
        if (k % 3 == 0)
            nap_us(300);
        f->buf[k % SLOTS] *= 3;
        /* a status of <= 0 from a worker is no end: only a post's is */
        hs_ring_worked(f->r, k, -(long)k - 1000);
    }
    return NULL;
}

Test(ring, workers_finish_out_of_order_the_consumer_takes_in_order, .timeout = 30)
{
    struct fixture f;
    pthread_t t, w[3];
    long st;
    unsigned k;
    int i;

    memset(&f, 0, sizeof f);
    f.r = hs_ring_new(SLOTS, 1);
    cr_assert(f.r);
    for (i = 0; i < 3; i++)
        cr_assert_eq(pthread_create(&w[i], NULL, work, &f), 0);
    cr_assert_eq(pthread_create(&t, NULL, produce, &f), 0);
    consume_all(&f, 1);
    pthread_join(t, NULL);
    /* the end went through a worker too: it is the worker's status now */
    cr_assert_eq(hs_ring_take(f.r, &k, &st), 0);
    cr_assert_eq(k, BLOCKS);
    hs_ring_stop(f.r);
    for (i = 0; i < 3; i++)
        pthread_join(w[i], NULL);
    hs_ring_free(f.r);
}

static void *wait_for_room(void *arg)
{
    struct fixture *f = arg;

    f->room_said = hs_ring_room(f->r, SLOTS); /* the ring is full */
    return NULL;
}

static void *wait_for_work(void *arg)
{
    struct fixture *f = arg;
    unsigned k;

    return (void *)(intptr_t)hs_ring_work(f->r, &k);
}

Test(ring, a_stop_frees_a_producer_waiting_for_room_and_idle_workers, .timeout = 10)
{
    struct fixture f;
    pthread_t p, w;
    void *worker_said;
    unsigned k;
    long st;

    memset(&f, 0, sizeof f);
    f.r = hs_ring_new(SLOTS, 1);
    cr_assert(f.r);
    f.room_said = 7;
    for (k = 0; k < SLOTS; k++) {
        cr_assert_eq(hs_ring_room(f.r, k), 0);
        hs_ring_post(f.r, k, 1);
    }
    /* a worker takes every block posted, then waits for more */
    for (k = 0; k < SLOTS; k++) {
        unsigned got;
        cr_assert_eq(hs_ring_work(f.r, &got), 0);
        cr_assert_eq(got, k);
        hs_ring_worked(f.r, got, 5);
    }
    cr_assert_eq(hs_ring_held(f.r), SLOTS);
    cr_assert_eq(pthread_create(&p, NULL, wait_for_room, &f), 0);
    cr_assert_eq(pthread_create(&w, NULL, wait_for_work, &f), 0);
    nap_us(50 * 1000);
    /* nothing was released: the producer still waits */
    cr_assert_eq(f.room_said, 7, "the producer got room in a full ring");
    cr_assert_eq(hs_ring_stopped(f.r), 0);
    hs_ring_stop(f.r);
    pthread_join(p, NULL);
    pthread_join(w, &worker_said);
    cr_assert_eq(f.room_said, -1, "a stopped ring has no room: %d", f.room_said);
    cr_assert_eq((intptr_t)worker_said, -1, "a stopped ring has no work");
    /* the blocks worked before the stop still reach the consumer */
    cr_assert_eq(hs_ring_take(f.r, &k, &st), 0);
    cr_assert_eq(k, 0);
    cr_assert_eq(st, 5);
    hs_ring_release(f.r);
    /* and once stopped, room stays refused however much is free */
    cr_assert_eq(hs_ring_room(f.r, SLOTS), -1);
    hs_ring_free(f.r);
}

/* A producer that finds room only after the consumer releases: the wait
 * ends with room, not early (a ring that let it through would overwrite a
 * block the consumer still reads). */
Test(ring, a_producer_waits_until_the_consumer_releases, .timeout = 10)
{
    struct fixture f;
    pthread_t p;
    unsigned k;
    long st;

    memset(&f, 0, sizeof f);
    f.r = hs_ring_new(SLOTS, 0);
    cr_assert(f.r);
    f.room_said = 7;
    for (k = 0; k < SLOTS; k++) {
        cr_assert_eq(hs_ring_room(f.r, k), 0);
        hs_ring_post(f.r, k, 1);
    }
    cr_assert_eq(pthread_create(&p, NULL, wait_for_room, &f), 0);
    nap_us(50 * 1000);
    cr_assert_eq(f.room_said, 7, "the producer got room in a full ring");
    cr_assert_eq(hs_ring_held(f.r), SLOTS);
    cr_assert_eq(hs_ring_take(f.r, &k, &st), 0);
    hs_ring_release(f.r);
    pthread_join(p, NULL);
    cr_assert_eq(f.room_said, 0);
    hs_ring_free(f.r);
}

/* The end of the stream is an error: every block before it arrives first,
 * then the error, with the message written before it was posted; and it
 * stays the end at every later call. */
static void *fail_after_three(void *arg)
{
    struct fixture *f = arg;
    unsigned k;

    for (k = 0; k < 3; k++) {
        if (hs_ring_room(f->r, k) != 0)
            return NULL;
        f->buf[k % 2] = k; /* the ring of this test has 2 slots */
        hs_ring_post(f->r, k, 100);
    }
    if (hs_ring_room(f->r, 3) == 0) {
        snprintf(f->why, sizeof f->why, "corrupt at compressed byte 42");
        hs_ring_post(f->r, 3, -1);
    }
    return NULL;
}

Test(ring, an_error_reaches_the_consumer_after_the_blocks_before_it, .timeout = 10)
{
    struct fixture f;
    pthread_t p;
    unsigned k, i;
    long st;

    memset(&f, 0, sizeof f);
    f.r = hs_ring_new(2, 0); /* smaller than the stream: the producer waits */
    cr_assert(f.r);
    cr_assert_eq(pthread_create(&p, NULL, fail_after_three, &f), 0);
    for (i = 0; i < 3; i++) {
        cr_assert_eq(hs_ring_take(f.r, &k, &st), 0);
        cr_assert_eq(k, i);
        cr_assert_eq(st, 100, "block %u before the end", i);
        cr_assert_eq(f.buf[k % 2], i);
        hs_ring_release(f.r);
    }
    for (i = 0; i < 3; i++) {
        cr_assert_eq(hs_ring_take(f.r, &k, &st), 0);
        cr_assert_eq(k, 3);
        cr_assert_eq(st, -1, "the error, at call %u", i);
        cr_assert_str_eq(f.why, "corrupt at compressed byte 42");
    }
    pthread_join(p, NULL);
    hs_ring_free(f.r);
}

/* The ring's invariants are assert()s: releasing the end, or posting a
 * block with no room, aborts rather than corrupting a block (assert's
 * message, expected here, is kept out of the suite's output). */
Test(ring, releasing_the_end_aborts, .signal = SIGABRT, .init = cr_redirect_stderr)
{
    hs_ring *r = hs_ring_new(2, 0);
    unsigned k;
    long st;

    cr_assert(r);
    hs_ring_post(r, 0, 0);
    cr_assert_eq(hs_ring_take(r, &k, &st), 0);
    hs_ring_release(r);
}

Test(ring, posting_past_the_room_aborts, .signal = SIGABRT, .init = cr_redirect_stderr)
{
    hs_ring *r = hs_ring_new(2, 0);

    cr_assert(r);
    hs_ring_post(r, 0, 1);
    hs_ring_post(r, 1, 1);
    hs_ring_post(r, 2, 1);
}

/* ---- the lead ---- */

struct turns {
    hs_ring *r;
    _Atomic int inside;   /* threads leading at once: never more than 1 */
    _Atomic int overlaps;
    unsigned plain;       /* written only by the lead, without atomics */
    /* the members' shape in miniature, all the lead's */
    unsigned given, delivered, redone;
    unsigned buf[SLOTS];
    unsigned bad;         /* blocks delivered out of order or wrong */
};

static void enter(struct turns *t)
{
    if (atomic_fetch_add(&t->inside, 1) != 0)
        t->overlaps++;
}

static void leave(struct turns *t)
{
    atomic_fetch_sub(&t->inside, 1);
}

static void *lead_often(void *arg)
{
    struct turns *t = arg;
    int i;

    for (i = 0; i < 20000; i++) {
        hs_ring_lead(t->r, NULL);
        enter(t);
        t->plain++;
        if (i % 1000 == 0)
            nap_us(100);
        leave(t);
        hs_ring_unlead(t->r, 0);
    }
    return NULL;
}

Test(ring, the_lead_is_one_thread_at_a_time, .timeout = 60)
{
    struct turns t;
    pthread_t th[3];
    int i;

    memset(&t, 0, sizeof t);
    t.r = hs_ring_new(SLOTS, 0);
    cr_assert(t.r);
    for (i = 0; i < 3; i++)
        cr_assert_eq(pthread_create(&th[i], NULL, lead_often, &t), 0);
    for (i = 0; i < 3; i++)
        pthread_join(th[i], NULL);
    cr_assert_eq(t.overlaps, 0, "two threads led at once %d times", t.overlaps);
    cr_assert_eq(t.plain, 3 * 20000u, "what only the lead writes: %u", t.plain);
    hs_ring_free(t.r);
}

/* Lets go of the lead until another thread did something. */
static void wait_for_news(struct turns *t, int news)
{
    unsigned seen;

    leave(t);
    seen = hs_ring_unlead(t->r, news);
    hs_ring_lead(t->r, &seen);
    enter(t);
}

/* Leading: gives every worked block, in order, and releases it. Block 37
 * is found wrong the first time it is taken: the lead drops it and the
 * ones after it, once nobody works any, and hands them out again (the
 * members that began at a false start). */
static void deliver(struct turns *t)
{
    unsigned k;
    long st;

    while (hs_ring_try_take(t->r, &k, &st) == 1) {
        if (k != t->delivered || t->buf[k % SLOTS] != k * 7 + 1 || st != (long)k + 5)
            t->bad++;
        if (k == 37 && !t->redone) {
            while (hs_ring_busy(t->r))
                wait_for_news(t, 0);
            hs_ring_unpost(t->r);
            t->given = t->delivered;
            t->redone = 1;
            return;
        }
        t->delivered++;
        hs_ring_release(t->r);
    }
}

/* Each of the threads in turn hands the next block out to itself, works it
 * without the lead, and gives back whatever is worked, in order: the only
 * waits are for the other threads, so a wake-up missed is a hang. */
static void *take_turns(void *arg)
{
    struct turns *t = arg;
    unsigned k, mine;
    int got;

    hs_ring_lead(t->r, NULL);
    enter(t);
    for (;;) {
        deliver(t);
        if (t->delivered == BLOCKS)
            break;
        if (t->given == BLOCKS || t->given - t->delivered == SLOTS) {
            wait_for_news(t, 0);
            continue;
        }
        mine = t->given++;
        hs_ring_post(t->r, mine, 1);
        got = hs_ring_work(t->r, &k);
        if (got != 0 || k != mine)
            t->bad++;
        leave(t);
        hs_ring_unlead(t->r, 1);
        if (mine % 5 == 0)
            nap_us(50 + mine % 7 * 40); /* some finish after later ones */
        t->buf[mine % SLOTS] = mine * 7 + 1;
        hs_ring_worked(t->r, mine, (long)mine + 5);
        hs_ring_lead(t->r, NULL);
        enter(t);
    }
    leave(t);
    hs_ring_unlead(t->r, 1); /* the others may wait for the last block */
    return NULL;
}

Test(ring, threads_taking_turns_get_every_block_in_order, .timeout = 60)
{
    struct turns t;
    pthread_t th[3];
    int i;

    memset(&t, 0, sizeof t);
    t.r = hs_ring_new(SLOTS, 1);
    cr_assert(t.r);
    for (i = 0; i < 3; i++)
        cr_assert_eq(pthread_create(&th[i], NULL, take_turns, &t), 0);
    for (i = 0; i < 3; i++)
        pthread_join(th[i], NULL);
    cr_assert_eq(t.delivered, BLOCKS);
    cr_assert_eq(t.bad, 0, "%u blocks came out wrong", t.bad);
    cr_assert_eq(t.overlaps, 0);
    cr_assert(t.redone, "block 37 was handed out again");
    cr_assert_eq(hs_ring_held(t.r), 0);
    hs_ring_free(t.r);
}

static void *lead_after_news(void *arg)
{
    struct turns *t = arg;
    unsigned seen = t->given; /* the count, set before this thread began */

    hs_ring_lead(t->r, &seen);
    atomic_store(&t->inside, 1);
    hs_ring_unlead(t->r, 0);
    return NULL;
}

Test(ring, a_lead_waiting_for_news_goes_on_at_the_next_change_only, .timeout = 10)
{
    struct turns t;
    pthread_t th;
    unsigned k;

    memset(&t, 0, sizeof t);
    t.r = hs_ring_new(SLOTS, 1);
    cr_assert(t.r);
    hs_ring_lead(t.r, NULL);
    hs_ring_post(t.r, 0, 1);
    cr_assert_eq(hs_ring_work(t.r, &k), 0);
    cr_assert_eq(hs_ring_busy(t.r), 1);
    t.given = hs_ring_unlead(t.r, 0);
    cr_assert_eq(pthread_create(&th, NULL, lead_after_news, &t), 0);
    /* the lead is free, but nothing changed: it waits */
    nap_us(100000);
    hs_ring_lead(t.r, NULL);
    hs_ring_unlead(t.r, 0); /* nothing new either */
    nap_us(100000);
    cr_assert_eq(atomic_load(&t.inside), 0, "it led with no news");
    hs_ring_worked(t.r, 0, 1);
    pthread_join(th, NULL);
    cr_assert_eq(atomic_load(&t.inside), 1);
    cr_assert_eq(hs_ring_busy(t.r), 0);
    hs_ring_free(t.r);
}

Test(ring, unpost_drops_every_block_not_released, .timeout = 10)
{
    hs_ring *r = hs_ring_new(SLOTS, 1);
    unsigned k, i;
    long st;

    cr_assert(r);
    for (i = 0; i < 3; i++) {
        hs_ring_post(r, i, 10 + (long)i);
        cr_assert_eq(hs_ring_work(r, &k), 0);
        hs_ring_worked(r, k, 20 + (long)k);
    }
    cr_assert_eq(hs_ring_try_take(r, &k, &st), 1);
    hs_ring_release(r); /* block 0 is done with */
    cr_assert_eq(hs_ring_try_take(r, &k, &st), 1);
    cr_assert_eq(k, 1);
    hs_ring_unpost(r);  /* 1 (taken, not released) and 2 go */
    cr_assert_eq(hs_ring_held(r), 0);
    cr_assert_eq(hs_ring_try_take(r, &k, &st), 0, "nothing is ready");
    hs_ring_post(r, 1, 31); /* the next to post is the oldest dropped */
    cr_assert_eq(hs_ring_try_take(r, &k, &st), 0, "posted, not worked");
    cr_assert_eq(hs_ring_work(r, &k), 0);
    cr_assert_eq(k, 1);
    hs_ring_worked(r, 1, 41);
    cr_assert_eq(hs_ring_try_take(r, &k, &st), 1);
    cr_assert_eq(k, 1);
    cr_assert_eq(st, 41);
    hs_ring_stop(r);
    cr_assert_eq(hs_ring_try_take(r, &k, &st), 1, "a block ready is given when stopped");
    hs_ring_release(r);
    cr_assert_eq(hs_ring_try_take(r, &k, &st), -1);
    hs_ring_free(r);
}

Test(ring, unposting_a_block_in_a_workers_hands_aborts, .signal = SIGABRT, .init = cr_redirect_stderr)
{
    hs_ring *r = hs_ring_new(2, 1);
    unsigned k;

    cr_assert(r);
    hs_ring_post(r, 0, 1);
    cr_assert_eq(hs_ring_work(r, &k), 0);
    hs_ring_unpost(r);
}
