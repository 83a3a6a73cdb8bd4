/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_ring.c - the ring of blocks the library's threads share (src/lib/
 * ring.c): blocks arrive in the order posted, with and without workers
 * finishing them out of order; a stop frees a producer waiting for room
 * and workers waiting for blocks; the end of the stream, an error with its
 * message, reaches the consumer after every block before it, and stays.
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
