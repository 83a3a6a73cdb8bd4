/*
 * io.h - output files that appear under their final name only when
 * complete.
 */
#ifndef HS_IO_H
#define HS_IO_H

#include <stddef.h>

#include "hprof_strip.h"

/* An output file written under a temporary name in the same directory and
 * renamed over `path` by hs_outfile_commit, so a failed or interrupted run
 * never leaves a half-written file under the final name. */
typedef struct {
    const char *path;
    char *tmp; /* malloc'd temporary path, NULL once committed/aborted */
    int fd;
} hs_outfile;

/* Returns 0, or -1 with errno set. With `force` 0, an existing `path` is
 * refused with EEXIST. */
int hs_outfile_open(hs_outfile *o, const char *path, int force);
/* Closes and renames into place; -1 with errno set on failure (the
 * temporary file is removed). */
int hs_outfile_commit(hs_outfile *o);
/* Closes and removes the temporary file. Safe to call twice. */
void hs_outfile_abort(hs_outfile *o);
/* Removes the temporary file of the open output, from a signal handler. */
void hs_outfile_remove_on_signal(void);

/* When `fd` is a pipe, makes its buffer 1 MiB instead of the 64 KiB
 * default: a pipe of 64 KiB makes both ends switch for every 64 KiB, which
 * measured 3x slower than 1 MiB for a 1 GB dump through `| cat`. Returns 1
 * when the buffer was widened. */
int hs_widen_pipe(int fd);

#endif
