/*
 * progress.h - a one-line progress display on stderr: bytes read, rate,
 * and percent and time left when the input size is known. Updated at most
 * five times a second; the CLI turns it on only for a terminal (or when
 * asked with --progress).
 */
#ifndef HS_PROGRESS_H
#define HS_PROGRESS_H

#include <stdint.h>

typedef struct {
    int on;
    uint64_t total; /* input size in bytes, 0 when unknown */
    double start, last;
} hs_progress;

void hs_progress_start(hs_progress *p, int on, uint64_t total);
/* `done`: input bytes read so far (compressed bytes for compressed input,
 * which is what `total` measures too). */
void hs_progress_update(hs_progress *p, uint64_t done);
/* Ends the line: the final figures, then a newline. */
void hs_progress_end(hs_progress *p, uint64_t done);

#endif
