/* SPDX-License-Identifier: Apache-2.0 */
/*
 * files.h - the one rule on which files a run may replace or truncate.
 *
 * A run replaces or truncates no file but its one named output (and the
 * report and the --obfuscate-names mapping it was asked for):
 *   - never a file the run reads (INPUT, a rule file, a mapping), compared
 *     by device and inode with links followed, not by name;
 *   - never what is not a regular file: a character device, a FIFO or a
 *     socket is written into, never replaced (a block device only with -f);
 *   - never a file that is there already, unless -f says so (a report may
 *     replace an earlier report), nor one that appears while the run goes
 *     on (io.c puts the output in place with a rename that replaces
 *     nothing);
 *   - never a heap dump named by a second file name (OUTPUT, not -o: what
 *     a wildcard expands to), nor a heap dump named as the report, even
 *     with -f.
 * Every output goes through hs_files_claim (io.c's hs_outfile_open asks it
 * for each file it opens); standard output through hs_files_claim_stdout.
 * The inputs must be noted before the first claim.
 */
#ifndef HS_FILES_H
#define HS_FILES_H

#include <sys/types.h>

/* How an output was asked for: hs_files_claim's and hs_outfile_open's
 * `how` (1 alone is the -f of old callers). */
enum {
    HS_OUT_FORCE = 1,      /* -f: an existing regular file may be replaced */
    HS_OUT_REPORT = 2,     /* the JSON report: replaces an earlier report */
    HS_OUT_POSITIONAL = 4, /* named as OUTPUT, not with -o */
    HS_OUT_MAPFILE = 8     /* --obfuscate-names' mapping: never over a dump */
};

/* Notes a file the run reads, by identity (`what` is how it was named:
 * "INPUT", "-r", "--mapping"; both strings must outlive the run). A name
 * that cannot be stat'ed is skipped: opening it fails later, and a file
 * that does not exist cannot be replaced. Returns 0, or -1 out of memory. */
int hs_files_note_input(const char *what, const char *path);
/* The same for an input read from a descriptor (standard input). */
int hs_files_note_input_fd(const char *what, int fd);

/* The verdict on one output. */
typedef struct {
    char *target;    /* malloc'd: the name to write (links followed) */
    int in_place;    /* a device, FIFO or socket: opened and written into */
    int may_replace; /* the final rename may replace a file there */
    int old_mode;    /* permission bits of the regular file there, or -1 */
} hs_claim;

/* Applies the rule to the output `path` asked for as `how` says (-o,
 * OUTPUT or --stats-file). Returns 0 with *c filled (the output is then
 * claimed: later claims are checked against it; claiming the same kind of
 * output again is no conflict), 1 when the rule refuses it (a usage error:
 * exit 2), -1 when the file system failed (errno set: exit 4). The reason,
 * a whole sentence without the program's name, is hs_files_why()'s. */
int hs_files_claim(const char *path, int how, hs_claim *c);
/* Standard output as the output `what` ("standard output" for the dump;
 * "--stats-file -" for a report sent there): refused (1) when it is a file
 * the run reads (but a character device or a socket), or a file already
 * claimed by another output (but a character device). */
int hs_files_claim_stdout(const char *what);
/* The last refusal's reason, or an empty string. */
const char *hs_files_why(void);

/* 1 when `path` (links followed) is now one of the inputs noted, or not a
 * regular file: what a rename over it must not replace. */
int hs_files_must_keep(const char *path);

/* Forgets every input and claim (for tests and a second run). */
void hs_files_reset(void);

#endif
