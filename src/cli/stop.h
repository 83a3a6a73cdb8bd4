/* SPDX-License-Identifier: Apache-2.0 */
/*
 * stop.h - a run stopped by a signal: the temporary files removed, and the
 * JSON report written all the same, as a whole document naming the signal
 * (the man page's STATISTICS promises it for every end short of SIGKILL).
 *
 * The run keeps a rendering of its report ready (hs_stop_publish, from the
 * main thread: before the run, then every fraction of a second from the
 * read callbacks); a signal's handler writes that rendering, with the exit
 * status and the error object it alone knows, to the report's descriptors,
 * puts a report file in place, removes the dump's temporary file and dies
 * of the signal. stop.c says why that is safe in a handler.
 */
#ifndef HS_STOP_H
#define HS_STOP_H

#include <stddef.h>
#include <sys/types.h>

#include "io.h"

/* Catches the signals sent from outside whose default ends the process
 * (HUP, INT, QUIT, ALRM, TERM, USR1, USR2, XCPU, VTALRM, PROF, POLL, PWR,
 * STKFLT); one ignored from the start (nohup) stays ignored. Call before
 * any temporary file exists. SIGPIPE and SIGXFSZ stay ignored (run.c): a
 * write then fails, and the run reports it (hs_stop_now for EPIPE). */
void hs_stop_catch(void);
/* The report is open and published (or there is none): a stop that came
 * since hs_stop_catch, and held until now, is taken (the report names
 * it, and the process dies of it); later ones are taken as they come.
 * Without this, a signal in that moment ended the run with no report. */
void hs_stop_ready(void);

/* A destination of the report: `fd` (a temporary file when `of` is given,
 * which is then put in place; else standard output or error, written
 * into). At most two. */
void hs_stop_report_to(int fd, hs_outfile *of);

/* The report as it stands: `doc` is a whole document but for what goes
 * between its first `head` bytes (ending in "exit_status":) and the rest
 * (starting with the comma after "error"). Copied; main thread only. */
void hs_stop_publish(const char *doc, size_t head, size_t len);

/* What a handler does, for a stop that is not one: writes the reports as
 * stopped by `sig` (exit 128+sig), or, `sig` 0, as failed with exit status
 * `exit_status`, library status `code` and `message` (the SIGBUS of a
 * mapped input that shrank); puts the report files in place and removes
 * every temporary file. Async-signal-safe. Returns 1, or 0 when another
 * stop or the run's own end got there first (then nothing is done). */
int hs_stop_write(int sig, int exit_status, int code, const char *message);
/* In a handler whose hs_stop_write returned 0: when a stop by a signal is
 * at work (on another thread), waits for it to end the process, never
 * returning; when it was the run's own end, returns. Async-signal-safe. */
void hs_stop_wait_for_other(void);

/* --timeout: in `seconds` (> 0; `arg` as the command line said it, and
 * `in_name` the input, for the message) the run stops as a signal would
 * stop it (the temporary files removed, the reports written), with exit
 * status HS_EXIT_TIMEOUT and error.status "timeout". Call after
 * hs_stop_catch; before hs_stop_ready, a deadline passed is held as a stop
 * is (hs_stop_ready takes it). 0, or -1 with errno set. */
int hs_stop_timeout(const char *arg, double seconds, const char *in_name);
/* --jvm (jvm.c): the private directory `dir`, the one file `file` in it
 * and the child `child` (jcmd; 0: none) a stop removes, and tells to
 * end; NULLs and 0 when they are gone. The strings must stay put. */
void hs_stop_jvm(const char *dir, const char *file, pid_t child);

/* Dies of `sig` (its default action), the reports written first. */
void hs_stop_now(int sig)
#if defined(__GNUC__)
    __attribute__((noreturn))
#endif
    ;

/* Blocks the signals (one pending already is taken now: it ends the
 * process as any other), for what must not be cut in two: a commit, the
 * report published after it. Nests; hs_stop_release unblocks them at the
 * outermost, and one that came meanwhile ends the process then. */
void hs_stop_hold(void);
void hs_stop_release(void);
/* The run's end, held, with no other thread left: from here the reports
 * are the run's to write and put in place (a signal no longer writes its
 * own; after hs_stop_release it only ends the process). */
void hs_stop_finish(void);
/* After hs_stop_finish: writes the final document `doc` into a stream
 * (standard output or error, a FIFO), which may wait long for its reader:
 * a signal meanwhile writes the rest of it, then ends the process. 0, or
 * -1 with errno set. */
int hs_stop_stream(int fd, const char *doc, size_t len);

#endif
