/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pager.c - maps a mapped input's pages ahead of the filter and gives back
 * those behind it, on a thread of its own (see pager.h).
 */
#define _DEFAULT_SOURCE /* madvise */
#include "pager.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

/* How far ahead of the filter pages are mapped, and in what steps: far
 * enough that the filter never catches up between two wake-ups, near
 * enough that the resident set stays a few MiB. */
#define AHEAD (2u << 20)
#define STEP (1u << 20)
/* How far behind the filter pages may stay mapped before it gives them
 * back itself. */
#define BEHIND (4u << 20)

struct hs_pager {
    uint8_t *map;
    size_t len, page;
    /* under mu */
    size_t done;     /* the filter has passed map[0..done) */
    size_t kept;     /* pages before it are given back, or being given */
    size_t mapped;   /* pages before it were mapped by the thread */
    int idle, stop;
    void (*hold)(void *); /* tests: called before each step is mapped */
    void *hold_arg;
    pthread_mutex_t mu;
    pthread_cond_t cv;
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
#define FOLIO_MAX (2u << 20)

void hs_pages_give_back(uint8_t *map, size_t from, size_t to)
{
    from = from / FOLIO_MAX * FOLIO_MAX;
    if (to > from)
        madvise(map + from, to - from, MADV_DONTNEED);
}

static size_t ahead_of(const hs_pager *p, size_t done)
{
    return done + AHEAD < p->len ? done + AHEAD : p->len;
}

/* True when the thread has something to do with the filter at `done`. */
static int work_for(const hs_pager *p, size_t done)
{
    return page_down(p, done) > p->kept || p->mapped + STEP <= ahead_of(p, done);
}

/* Claims the pages from `kept` up to `done` to give back (under mu), so
 * that two callers never give back the same new range (both may go over
 * the folio below it again: hs_pages_give_back); returns their count.
 * The claim may pass a step the thread is still mapping (it was preempted,
 * the filter went on): the thread gives back what it mapped behind `kept`
 * when the step ends, so memory stays flat however the two are scheduled. */
static size_t claim(hs_pager *p, size_t done, size_t *from)
{
    size_t give = page_down(p, done);

    *from = p->kept;
    if (give <= p->kept)
        return 0;
    p->kept = give;
    return give - *from;
}

/* Maps the pages ahead of the filter a step at a time (touching one byte of
 * each: a fault maps a whole page-cache folio, where MADV_POPULATE_READ
 * goes page by page and was measured slower than the filter). Each step
 * starts past what the filter has passed and what was given back. */
static void map_ahead(hs_pager *p)
{
    for (;;) {
        size_t from, to, want, at, back_to = 0;
        pthread_mutex_lock(&p->mu);
        want = ahead_of(p, p->done);
        from = p->mapped;
        if (from < p->kept)
            from = p->kept;
        if (from < p->done)
            from = p->done;
        if (p->stop || from >= want) {
            pthread_mutex_unlock(&p->mu);
            return;
        }
        to = want - from > STEP ? from + STEP : want;
        pthread_mutex_unlock(&p->mu);
        if (p->hold)
            p->hold(p->hold_arg);
        for (at = from; at < to; at += p->page)
            (void)*(volatile const uint8_t *)(p->map + at);
        pthread_mutex_lock(&p->mu);
        p->mapped = to;
        /* the filter gave back part of this step while it was mapped: the
         * pages touched after that, with the rest of their folios, are the
         * thread's to give back */
        if (p->kept > from) {
            size_t end = (to + FOLIO_MAX - 1) / FOLIO_MAX * FOLIO_MAX;
            back_to = p->kept < end ? p->kept : end;
        }
        pthread_mutex_unlock(&p->mu);
        if (back_to)
            hs_pages_give_back(p->map, from, back_to);
    }
}

static void *pager_thread(void *arg)
{
    hs_pager *p = arg;

    for (;;) {
        size_t from, n;
        pthread_mutex_lock(&p->mu);
        while (!p->stop && !work_for(p, p->done)) {
            p->idle = 1;
            pthread_cond_wait(&p->cv, &p->mu);
        }
        p->idle = 0;
        if (p->stop) {
            pthread_mutex_unlock(&p->mu);
            return NULL;
        }
        n = claim(p, p->done, &from);
        pthread_mutex_unlock(&p->mu);
        if (n)
            hs_pages_give_back(p->map, from, from + n);
        map_ahead(p);
    }
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
    p->kept = p->mapped = p->done = kept;
    if (pthread_mutex_init(&p->mu, NULL) != 0)
        goto fail_mu;
    if (pthread_cond_init(&p->cv, NULL) != 0)
        goto fail_cv;
    if (pthread_create(&p->thread, NULL, pager_thread, p) != 0)
        goto fail_thread;
    return p;
fail_thread:
    pthread_cond_destroy(&p->cv);
fail_cv:
    pthread_mutex_destroy(&p->mu);
fail_mu:
    free(p);
    return NULL;
}

void hs_pager_advance(hs_pager *p, size_t done)
{
    size_t from = 0, n = 0;

    pthread_mutex_lock(&p->mu);
    if (done > p->done) {
        p->done = done;
        /* the thread is held up (the machine is busy): memory stays flat */
        if (done - p->kept > BEHIND)
            n = claim(p, done, &from);
        else if (p->idle)
            pthread_cond_signal(&p->cv);
    }
    pthread_mutex_unlock(&p->mu);
    if (n)
        hs_pages_give_back(p->map, from, from + n);
}

void hs_pager_stop(hs_pager *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    pthread_cond_signal(&p->cv);
    pthread_mutex_unlock(&p->mu);
    pthread_join(p->thread, NULL);
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->mu);
    free(p);
}
