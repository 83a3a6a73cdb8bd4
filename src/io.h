/* SPDX-License-Identifier: Apache-2.0 */
/*
 * io.h - output files that appear under their final name only when
 * complete, and the descriptors the process starts with.
 */
#ifndef HS_IO_H
#define HS_IO_H

#include <stddef.h>
#include <sys/types.h>

#include "hprof_strip.h"

/* An output file. A regular file (or a name that does not exist yet) is
 * written under a temporary name in the same directory and renamed over
 * the final name by hs_outfile_commit, so a failed or interrupted run never
 * leaves a half-written file there. Anything else (a character or block
 * device, a FIFO) is opened and written straight into: replacing it would
 * destroy it. A symbolic link is followed to what it names, and that gets
 * the same treatment; the link itself stays. */
typedef struct {
    const char *path;
    char *target; /* malloc'd: `path` with its links followed */
    char *tmp;    /* malloc'd temporary path, NULL when written in place or done */
    int fd;
} hs_outfile;

/* Opens the output. `mode`: the permission bits for a file made anew (the
 * input file's, or -1 for the umask default; a replaced file keeps its own
 * when `mode` is -1). Returns 0, or -1 with errno set: EEXIST when `path`
 * exists and `force` is 0 (a character device such as /dev/null, or a FIFO,
 * needs no force: it is written into), EISDIR for a directory. */
int hs_outfile_open(hs_outfile *o, const char *path, int force, int mode);
/* Closes and renames into place; -1 with errno set on failure (the
 * temporary file is removed). */
int hs_outfile_commit(hs_outfile *o);
/* Closes and removes the temporary file. Safe to call twice. */
void hs_outfile_abort(hs_outfile *o);
/* Removes the temporary file of the open output, from a signal handler. */
void hs_outfile_remove_on_signal(void);
/* Makes the signals that end the process by default remove the temporary
 * file first (then die of the same signal). */
void hs_outfile_catch_signals(void);

/* Opens /dev/null on any of descriptors 0, 1, 2 that is closed, so that no
 * file opened later takes its number (a dump written as fd 2 would get the
 * messages). Descriptor 1 gets it read-only: writing a dump or a report to
 * a closed standard output must fail, not vanish. */
void hs_fill_std_fds(void);

/* When `fd` is a pipe, makes its buffer 1 MiB instead of the 64 KiB
 * default: a pipe of 64 KiB makes both ends switch for every 64 KiB, which
 * measured 3x slower than 1 MiB for a 1 GB dump through `| cat`. Returns 1
 * when the buffer was widened. */
int hs_widen_pipe(int fd);

#endif
