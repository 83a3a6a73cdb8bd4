/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hs_port.h - the library's calls that Linux alone has, each with the POSIX
 * behaviour it falls back to elsewhere (port.c says what each fallback
 * loses). The command-line tool has its own file for its own such calls
 * (src/cli/cli_port.h): it sees the library through hprof_strip.h alone,
 * and the library stays one folder that fuzz, ThreadSanitizer and cross
 * builds compile whole.
 *
 * Building with -DHS_PORT_FORCE_POSIX (make HS_PORT_POSIX=1) takes the
 * fallbacks on Linux too, so that the suite can be run on them here.
 */
#ifndef HS_PORT_H
#define HS_PORT_H

#include <stddef.h>
#include <sys/resource.h>
#include <time.h>

/* 1 where the Linux calls are used, 0 where the POSIX fallbacks are. */
#if defined(__linux__) && !defined(HS_PORT_FORCE_POSIX)
#define HS_PORT_LINUX 1
#else
#define HS_PORT_LINUX 0
#endif

/* The pages of map[0..len) will be read once, in order: read ahead far. */
void hs_port_advise_sequential(void *map, size_t len);
/* The pages of map[0..len) (page-aligned start) are done with: let them go
 * now. On Linux they leave the resident set at once, and a private
 * mapping's written pages lose what was written (hs_input_writable). */
void hs_port_drop_pages(void *map, size_t len);
/* Faults in the whole pages inside p[0..n) ahead of their first writes,
 * where the system can; only a hint. */
void hs_port_populate_write(void *p, size_t n);
/* The CPU time of the calling thread where the system counts it per thread
 * (getrusage(2) semantics); 0, or -1 as getrusage fails. */
int hs_port_thread_rusage(struct rusage *ru);
/* A monotonic clock, as cheap to read as the system has one. */
void hs_port_cheap_clock(struct timespec *now);
/* The system's page size, 4096 when it cannot be told. */
size_t hs_port_page_size(void);

#endif
