/* SPDX-License-Identifier: Apache-2.0 */
/*
 * progress.h - a progress display on stderr: bytes read, rate, and percent
 * and time left when the input size is known. On a terminal it is one line
 * rewritten in place at most five times a second, cut to the terminal's
 * width; elsewhere (--progress 2>log) it is a plain line every few
 * seconds, without carriage returns or escape codes. The CLI turns it on
 * only for a terminal (or when asked with --progress).
 */
#ifndef HS_PROGRESS_H
#define HS_PROGRESS_H

#include <stdint.h>

typedef struct {
    int on;
    int tty;        /* stderr is a terminal: one line, rewritten */
    int showing;    /* a progress line is on the terminal, unfinished */
    unsigned cols;  /* the terminal's width */
    uint64_t total; /* input size in bytes, 0 when unknown */
    double start, last;
} hs_progress;

void hs_progress_start(hs_progress *p, int on, uint64_t total);
/* `done`: input bytes read so far (compressed bytes for compressed input,
 * which is what `total` measures too). */
void hs_progress_update(hs_progress *p, uint64_t done);
/* Ends the display: the final figures on a line of their own. */
void hs_progress_end(hs_progress *p, uint64_t done, uint64_t written);
/* Clears a progress line from the terminal, so that a message can start
 * on a clean line; call before any error or warning. Later updates draw it
 * again; after an error, end with this and not hs_progress_end. */
void hs_progress_clear(hs_progress *p);

#endif
