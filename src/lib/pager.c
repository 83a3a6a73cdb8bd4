/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pager.c - maps a mapped input's pages ahead of the filter and gives back
 * those behind it, on a thread of its own (see pager.h).
 */
#include "pager.h"
#include "hs_port.h"
#include "hs_limits.h"
#include "ring.h"

#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

/* How far ahead of the filter pages are mapped, in what steps, and how far
 * behind it they may stay mapped (hs_limits.h says why). */
#define AHEAD HS_PAGER_AHEAD
#define STEP HS_PAGER_STEP
#define BEHIND HS_PAGER_BEHIND
/* The filter wakes the thread through a ring (ring.h): block k is "the
 * filter has passed step k" (STEP bytes from where paging began), the
 * filter its producer, the thread its consumer. The filter never waits:
 * when the ring is full the thread is held up (the machine is busy), and
 * the filter gives back pages itself past BEHIND, which the ring's reach
 * matches. What there is to do the thread reads from `done` and `kept`,
 * so a wake-up missed for a full ring costs nothing. */
#define WAKES (BEHIND / STEP)

struct hs_pager {
    uint8_t *map;
    size_t len, page;
    size_t base;            /* where paging began: step k starts at base + k*STEP */
    _Atomic size_t done;    /* the filter has passed map[0..done) */
    _Atomic size_t kept;    /* pages before it are given back, or being given */
    size_t mapped;          /* the thread's: pages before it were mapped by it */
    unsigned posted;        /* the filter's: steps it has woken the thread for */
    hs_ring *ring;
    void (*hold)(void *); /* tests: called before each step is mapped */
    void *hold_arg;
    pthread_t thread;
};

static size_t page_down(const hs_pager *p, size_t at)
{
    return at / p->page * p->page;
}

/* A fault maps the whole page-cache folio of the page it is on (seen on
 * ext4: reading one byte mapped 1 MiB), so the first fault past the point
 * up to which pages were given back maps again the pages of its folio
 * below that point, and a give-back that started there would leave them
 * mapped for good. So every give-back starts at the folio boundary below:
 * 2 MiB, the largest folio with 4 KiB pages (PMD size). Walking page
 * tables already cleared costs little. */
#define FOLIO_MAX HS_FOLIO_MAX

void hs_pages_give_back(uint8_t *map, size_t from, size_t to)
{
    from = from / FOLIO_MAX * FOLIO_MAX;
    if (to > from)
        hs_port_drop_pages(map + from, to - from);
}

static size_t ahead_of(const hs_pager *p, size_t done)
{
    return done + AHEAD < p->len ? done + AHEAD : p->len;
}

/* Claims the pages from `kept` up to `done` to give back, so that two
 * callers never give back the same new range (both may go over the folio
 * below it again: hs_pages_give_back); returns their count. The claim may
 * pass a step the thread is still mapping (it was preempted, the filter
 * went on): the thread gives back what it mapped behind `kept` when the
 * step ends, so memory stays flat however the two are scheduled. */
static size_t claim(hs_pager *p, size_t done, size_t *from)
{
    size_t give = page_down(p, done), was = atomic_load(&p->kept);

    do {
        *from = was;
        if (give <= was)
            return 0;
    } while (!atomic_compare_exchange_weak(&p->kept, &was, give));
    return give - *from;
}

static void give_back_passed(hs_pager *p)
{
    size_t from, n = claim(p, atomic_load(&p->done), &from);

    if (n)
        hs_pages_give_back(p->map, from, from + n);
}

/* Maps the pages ahead of the filter a step at a time (touching one byte of
 * each: a fault maps a whole page-cache folio, where MADV_POPULATE_READ
 * goes page by page and was measured slower than the filter). Each step
 * starts past what the filter has passed and what was given back. */
static void map_ahead(hs_pager *p)
{
    for (;;) {
        size_t from, to, want, at, kept, back_to = 0;
        size_t done = atomic_load(&p->done);
        want = ahead_of(p, done);
        from = p->mapped;
        if (from < (kept = atomic_load(&p->kept)))
            from = kept;
        if (from < done)
            from = done;
        if (from >= want || hs_ring_stopped(p->ring))
            return;
        to = want - from > STEP ? from + STEP : want;
        if (p->hold)
            p->hold(p->hold_arg);
        for (at = from; at < to; at += p->page)
            (void)*(volatile const uint8_t *)(p->map + at);
        p->mapped = to;
        /* the filter gave back part of this step while it was mapped: the
         * pages touched after that, with the rest of their folios, are the
         * thread's to give back (kept is read after the touching: a claim
         * after this reads gives back after the touching too) */
        if ((kept = atomic_load(&p->kept)) > from) {
            size_t end = (to + FOLIO_MAX - 1) / FOLIO_MAX * FOLIO_MAX;
            back_to = kept < end ? kept : end;
        }
        if (back_to)
            hs_pages_give_back(p->map, from, back_to);
    }
}

/* Maps the first steps ahead, then, at each step the filter passes, gives
 * back the pages behind it and maps on; until stopped. */
static void *pager_thread(void *arg)
{
    hs_pager *p = arg;
    unsigned k;
    long passed;

    map_ahead(p);
    while (hs_ring_take(p->ring, &k, &passed) == 0) {
        assert(passed > 0);
        give_back_passed(p);
        hs_ring_release(p->ring);
        map_ahead(p);
    }
    return NULL;
}

hs_pager *hs_pager_start(uint8_t *map, size_t len, size_t page, size_t kept)
{
    return hs_pager_start_held(map, len, page, kept, NULL, NULL);
}

hs_pager *hs_pager_start_held(uint8_t *map, size_t len, size_t page, size_t kept,
                              void (*hold)(void *), void *arg)
{
    hs_pager *p = calloc(1, sizeof *p);

    if (!p)
        return NULL;
    p->hold = hold;
    p->hold_arg = arg;
    p->map = map;
    p->len = len;
    p->page = page;
    p->base = p->mapped = kept;
    atomic_init(&p->kept, kept);
    atomic_init(&p->done, kept);
    if (!(p->ring = hs_ring_new(WAKES, 0)))
        goto fail;
    if (pthread_create(&p->thread, NULL, pager_thread, p) != 0)
        goto fail;
    return p;
fail:
    hs_ring_free(p->ring);
    free(p);
    return NULL;
}

void hs_pager_advance(hs_pager *p, size_t done)
{
    size_t from = 0, n = 0;
    unsigned steps;

    if (done <= atomic_load(&p->done))
        return; /* only the filter stores it: no race to lose */
    atomic_store(&p->done, done);
    steps = (unsigned)((done - p->base) / STEP);
    /* a wake-up for each step passed, while the ring has room */
    while (p->posted != steps && hs_ring_held(p->ring) < WAKES)
        hs_ring_post(p->ring, p->posted++, 1);
    /* the thread is held up (the machine is busy): memory stays flat */
    if (done - atomic_load(&p->kept) > BEHIND)
        n = claim(p, done, &from);
    if (n)
        hs_pages_give_back(p->map, from, from + n);
}

void hs_pager_stop(hs_pager *p)
{
    if (!p)
        return;
    hs_ring_stop(p->ring);
    pthread_join(p->thread, NULL);
    hs_ring_free(p->ring);
    free(p);
}
