/* SPDX-License-Identifier: Apache-2.0 */
/*
 * io.h - output files that appear under their final name only when
 * complete, and the descriptors the process starts with.
 */
#ifndef HS_IO_H
#define HS_IO_H

#include <stddef.h>
#include <sys/types.h>

#include "files.h"
#include "hprof_strip.h"

/* An output file. A regular file (or a name that does not exist yet) is
 * written under a temporary name in the same directory and renamed to the
 * final name by hs_outfile_commit, so a failed or interrupted run never
 * leaves a half-written file there (SIGKILL, which nothing can catch,
 * leaves the temporary file). Anything else (a character or block device,
 * a FIFO, a socket) is opened and written straight into: replacing it
 * would destroy it. A symbolic link is followed to what it names, and that
 * gets the same treatment; the link itself stays. Which files may be
 * written at all is files.h's rule, applied by hs_outfile_open. */
typedef struct {
    const char *path;
    char *target;    /* malloc'd: `path` with its links followed */
    char *tmp;       /* malloc'd temporary path, NULL when written in place or done */
    int fd;
    int may_replace; /* the final rename may replace a file there (-f) */
    int refused;     /* hs_outfile_open failed by the rule: hs_files_why() says why */
    int slot;        /* where a signal handler finds `tmp` (-1: none) */
} hs_outfile;

/* Opens the output. `how`: HS_OUT_FORCE (-f; 1, so a plain force flag
 * works), HS_OUT_REPORT, HS_OUT_POSITIONAL (files.h). `mode`: the input
 * file's permission bits, or -1 (standard input, a pipe); a regular file
 * gets 0666 less the umask, never wider than `mode` nor than the file it
 * replaces. Returns 0, or -1 with errno set; when files.h's rule refuses
 * the file (it exists and -f was not given, it is a directory, an input,
 * another output...), o->refused is set, errno is EEXIST and
 * hs_files_why() gives the reason (a usage error). */
int hs_outfile_open(hs_outfile *o, const char *path, int how, int mode);

/* The `mode` for a file that holds names or keys (the --obfuscate-names
 * key, a report listing Class.field findings): 0600, narrowed to the bits
 * of regular file `in_path` (NULL: standard input) when it has fewer, so
 * that it is never wider than the dump it speaks of (issue #50). */
#define HS_PRIVATE_MODE 0600
int hs_private_mode(const char *in_path);
/* Closes and renames into place; -1 with errno set on failure (the
 * temporary file is removed). EEXIST: a file appeared under the final name
 * while the run went on (without -f), or with -f, what is there now is a
 * file the run reads or not a regular file; it is left as it is. */
int hs_outfile_commit(hs_outfile *o);
/* Closes and removes the temporary file. Safe to call twice. */
void hs_outfile_abort(hs_outfile *o);
/* In a child process (many.c's) that inherited `o` and does not write it:
 * closes its descriptor and forgets its temporary file, which the child's
 * stop must leave to the parent. Nothing is removed. */
void hs_outfile_disown(hs_outfile *o);
/* Removes the temporary files of the open outputs, from a signal handler
 * (stop.c). */
void hs_outfile_remove_on_signal(void);
/* From a signal handler: puts the temporary file (written in full by the
 * handler) in place as hs_outfile_commit would, or removes it when that
 * fails; frees nothing. 0, or -1. */
int hs_outfile_commit_on_signal(hs_outfile *o);

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
