/*
 * progress.c - see progress.h.
 */
#define _POSIX_C_SOURCE 200809L
#include "progress.h"

#include <stdio.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void hs_progress_start(hs_progress *p, int on, uint64_t total)
{
    p->on = on;
    p->total = total;
    p->start = p->last = now();
}

static void show(const hs_progress *p, uint64_t done, double t, int final)
{
    double secs = t - p->start, rate = secs > 0 ? (double)done / secs : 0;

    fprintf(stderr, "\rhprof-strip: %.1f MB", (double)done / 1e6);
    if (p->total && done <= p->total) {
        fprintf(stderr, " of %.1f MB (%.0f%%)", (double)p->total / 1e6,
                100.0 * (double)done / (double)p->total);
    }
    fprintf(stderr, ", %.0f MB/s", rate / 1e6);
    if (!final && p->total && rate > 0 && done < p->total) {
        double left = (double)(p->total - done) / rate;
        fprintf(stderr, ", %d:%02d left", (int)(left / 60), (int)left % 60);
    } else if (final) {
        fprintf(stderr, " in %.1f s", secs);
    }
    fprintf(stderr, "\033[K%s", final ? "\n" : "");
    fflush(stderr);
}

void hs_progress_update(hs_progress *p, uint64_t done)
{
    double t;

    if (!p->on)
        return;
    t = now();
    if (t - p->last < 0.2)
        return;
    p->last = t;
    show(p, done, t, 0);
}

void hs_progress_end(hs_progress *p, uint64_t done)
{
    if (p->on)
        show(p, done, now(), 1);
}
