/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cli_port.h - the command's calls that Linux alone has, each with the
 * POSIX behaviour it falls back to elsewhere (port.c says what each
 * fallback loses). The library has its own file for its own such calls
 * (src/lib/hs_port.h): the command sees the library through hprof_strip.h
 * alone, so the two cannot share one.
 *
 * Building with -DHS_PORT_FORCE_POSIX (make HS_PORT_POSIX=1) takes the
 * fallbacks on Linux too, so that the suite can be run on them here.
 * Reading /proc (jvm.c) is not here: it is a file read that fails where
 * there is no /proc, and jvm.c takes that path already (jcmd alone tells).
 */
#ifndef HS_CLI_PORT_H
#define HS_CLI_PORT_H

/* 1 where the Linux calls are used, 0 where the POSIX fallbacks are. */
#if defined(__linux__) && !defined(HS_PORT_FORCE_POSIX)
#define HS_PORT_LINUX 1
#else
#define HS_PORT_LINUX 0
#endif

/* The calling thread, when it runs under the default policy, goes on under
 * SCHED_BATCH: the same share of the CPU, but it no longer preempts the
 * thread running when it wakes. Threads it starts afterwards inherit the
 * policy; those started before keep theirs. A thread under any other
 * policy (a run started under chrt) is left as it is. 1 when changed; 0
 * always where there is no SCHED_BATCH. */
int hs_run_as_batch(void);

/* Renames `from` to `to` unless `to` exists (EEXIST then), in one step.
 * -1 with errno EINVAL or ENOSYS where the system or the file system has
 * no such rename: the caller falls back to link(2). Async-signal-safe. */
int hs_port_rename_noreplace(const char *from, const char *to);

/* A new read-write file that no name reaches and that exec does not pass
 * on, for a child to write and its parent to read; -1 (errno) when none
 * can be made. `name` is for the system's eyes only (debuggers, /proc). */
int hs_port_memory_file(const char *name);

/* The cores this process may run on (a cpuset or taskset narrows them
 * where the system tells), at least 1. */
int hs_port_cores(void);

/* Asks for a pipe buffer of `bytes` on pipe `fd`; 1 when given, 0 when the
 * system has no such call or refused. */
int hs_port_pipe_buffer(int fd, int bytes);

#endif
