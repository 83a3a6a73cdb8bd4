/* SPDX-License-Identifier: Apache-2.0 */
/*
 * progress.c - see progress.h.
 */
#define _DEFAULT_SOURCE /* TIOCGWINSZ */
#include "progress.h"

#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The terminal's width, read once: a line as wide as the terminal or
 * wider wraps, and "\r" then rewrites only the last row of it. */
static unsigned term_cols(void)
{
    struct winsize ws;

    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    return 80;
}

void hs_progress_start(hs_progress *p, int on, uint64_t total)
{
    memset(p, 0, sizeof *p);
    p->on = on;
    p->tty = on && isatty(STDERR_FILENO);
    p->cols = p->tty ? term_cols() : 0;
    p->total = total;
    p->start = p->last = now();
}

/* Appends `part` to line[] when it still fits in `room` columns (the
 * figures are ASCII: one byte, one column). */
static void add(char *line, size_t room, const char *part)
{
    size_t n = strlen(line), k = strlen(part);

    if (n + k <= room)
        memcpy(line + n, part, k + 1);
}

static void show(hs_progress *p, uint64_t done, uint64_t written, double t, int final)
{
    double secs = t - p->start, rate = secs > 0 ? (double)done / secs : 0;
    char line[256], part[96];
    /* on a terminal, one column short of its width: a full row wraps */
    size_t room = p->tty ? (p->cols > 1 ? p->cols - 1 : 1) : sizeof line - 1;

    if (room > sizeof line - 1)
        room = sizeof line - 1;
    line[0] = 0;
    snprintf(part, sizeof part, "hprof-strip: %.1f MB", (double)done / 1e6);
    add(line, room, part);
    if (!line[0]) /* not even that fits: the bare figure */
        snprintf(line, room + 1, "%.1f MB", (double)done / 1e6);
    if (p->total && done <= p->total) {
        snprintf(part, sizeof part, " of %.1f MB (%.0f%%)", (double)p->total / 1e6,
                 100.0 * (double)done / (double)p->total);
        add(line, room, part);
    }
    snprintf(part, sizeof part, ", %.0f MB/s", rate / 1e6);
    add(line, room, part);
    if (!final && p->total && rate > 0 && done < p->total) {
        double left = (double)(p->total - done) / rate;
        snprintf(part, sizeof part, ", %d:%02d left", (int)(left / 60), (int)left % 60);
        add(line, room, part);
    } else if (final) {
        snprintf(part, sizeof part, " in %.1f s", secs);
        add(line, room, part);
        if (written != UINT64_MAX) { /* the file as it lies on disk */
            snprintf(part, sizeof part, ", %.1f MB written (%.1f%%)", (double)written / 1e6,
                     done ? 100.0 * (double)written / (double)done : 0.0);
            add(line, room, part);
        }
    }
    if (p->tty)
        fprintf(stderr, "\r%s\033[K%s", line, final ? "\n" : "");
    else
        fprintf(stderr, "%s\n", line);
    p->showing = p->tty && !final;
    fflush(stderr);
}

void hs_progress_update(hs_progress *p, uint64_t done)
{
    double t;

    if (!p->on)
        return;
    t = now();
    /* a log file gets a line every few seconds, a terminal five a second */
    if (t - p->last < (p->tty ? 0.2 : 5.0))
        return;
    p->last = t;
    show(p, done, UINT64_MAX, t, 0);
}

void hs_progress_end(hs_progress *p, uint64_t done, uint64_t written)
{
    if (p->on)
        show(p, done, written, now(), 1);
    p->on = 0;
}

void hs_progress_clear(hs_progress *p)
{
    if (!p->showing)
        return;
    fputs("\r\033[K", stderr);
    fflush(stderr);
    p->showing = 0;
}
