/* SPDX-License-Identifier: Apache-2.0 */
/*
 * many_status.h - what FILE... -o DIR shows while its jobs run and when
 * they are done: one progress line for the whole batch (the files running
 * and the total), never one per job, and a summary line at the end.
 */
#ifndef HS_MANY_STATUS_H
#define HS_MANY_STATUS_H

#include <stdint.h>

#include "cli.h"

typedef struct {
    const hs_cli *cli;
    int line;           /* the progress line is shown (--progress, or a terminal) */
    int tty;            /* ... rewritten in place */
    int started, done, failed, salvaged;
    uint64_t total;     /* the inputs' sizes, as files */
    uint64_t read;      /* ... of the inputs whose jobs ended */
    uint64_t written;   /* the outputs' sizes, as files */
    char *running;      /* flags: running[i] while input i's job runs */
} hs_many_status;

/* Starts the display for cli->files (the line only when asked, or on a
 * terminal). 0, or -1 out of memory (nothing will be shown). */
int hs_many_status_start(hs_many_status *b, const hs_cli *cli);
/* Input i's job started, or ended with exit code `rc` into `out` (its
 * output's name, NULL: none). */
void hs_many_status_started(hs_many_status *b, int i);
void hs_many_status_ended(hs_many_status *b, int i, int rc, const char *out);
/* The progress line ended, and the summary said (not with -q, not with
 * --stats=json, whose standard error is JSON Lines, nor for an audit). */
void hs_many_status_end(hs_many_status *b);

#endif
