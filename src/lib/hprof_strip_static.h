/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hprof_strip_static.h - the calls hprof-strip(1) uses beyond hprof_strip.h:
 * what the command writes into a run's report itself (a failure of its own
 * after the run, its rule arguments, warnings, its process's times, that it
 * removed or renamed the output), and the report in two parts for a signal
 * handler. A program that runs jobs and reads their reports needs none of
 * them: hprof_strip.h is the library's interface. They are here so that
 * the command, a program of the library like any other, uses only
 * declared calls, and so that they can follow the command's needs.
 *
 *     #define HS_STATIC_LINKING_ONLY
 *     #include "hprof_strip_static.h"
 *
 * and link libhprofstrip.a (hprof_strip(3), LINKING), which always comes
 * with the header of its own version. Including this header without
 * HS_STATIC_LINKING_ONLY is an error, so that no program depends on these
 * calls by accident (zstd's ZSTD_STATIC_LINKING_ONLY section is the model).
 *
 * Their binary interface is not promised: hprof_strip.h's growth rules do
 * not hold here, and any release may change or remove a call of this
 * header. libhprofstrip.so.0 still exports the calls declared here since
 * 0.8, because the 0.6 and 0.7 headers declared them public and a program
 * built against those keeps working with this library; a call added here
 * later need not be exported (HS_STATIC_API says which are).
 */
#ifndef HPROF_STRIP_STATIC_H
#define HPROF_STRIP_STATIC_H

#ifndef HS_STATIC_LINKING_ONLY
#error "hprof_strip_static.h: define HS_STATIC_LINKING_ONLY first, and link libhprofstrip.a"
#endif

#include "hprof_strip.h"

/* Marks the calls of this header the shared library exports (see above). */
#ifndef HS_STATIC_API
#define HS_STATIC_API HS_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- what the command adds to a run's report (hs_report) ---- */

/* Records a rule argument for the report's "rules" list, in order: a
 * preset's name (is_file 0) or a rule file's (1). `arg` is not copied: it
 * must outlive the report. At most 64. */
HS_STATIC_API void hs_report_note_rules(hs_report *r, int is_file, const char *arg);
/* Records MESSAGE (printf's format) as the run's failure with status
 * `code`, at the place `where` gives (NULL: none), replacing an earlier
 * one, and returns the exit code of `code` (hs_status_exit). */
HS_STATIC_API int hs_report_fail(hs_report *r, hs_status code, const hs_error *where,
                                 const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* Records MESSAGE as a warning (at most 16 kept; each said to the hook). */
HS_STATIC_API void hs_report_warn(hs_report *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Says whether the complete output is under its name (hs_report_output_kept):
 * a caller that removes or renames the output after hs_job_run says so. */
HS_STATIC_API void hs_report_set_output_kept(hs_report *r, int kept);
/* Whether the report is an audit's ("mode": "audit", no output); the job
 * sets it from hs_job.audit, a caller whose run failed before it does. */
HS_STATIC_API void hs_report_set_audit(hs_report *r, int audit);
/* The report's "time": the wall, user and system seconds of the run as the
 * caller counts it (the command's: its whole process); a negative value
 * leaves that one as it is. hs_job_run sets the job's own: its wall time,
 * and the CPU time of the thread that ran it (Linux's RUSAGE_THREAD, so
 * jobs run at once in one process count their own; elsewhere the
 * process's), which leaves out the helper threads (a gzip input's reader,
 * the pager, the hasher, the compressor's workers). */
HS_STATIC_API void hs_report_set_times(hs_report *r, double wall, double user, double sys);
/* A failure of the caller's own that no library status names (the
 * command's --jvm: "jvm-target", "jvm-dump"; a run stopped by a signal:
 * "signal"): recorded as hs_report_fail does, the JSON's error.status
 * `status` (a caller's name, [a-z-]), error.code null, error.retryable
 * `retryable`, error.signal `signal` (NULL: null); hs_report_error's code
 * is HS_OK (no library status), as is the hook's. */
HS_STATIC_API void hs_report_fail_other(hs_report *r, const char *status, int retryable,
                                        const char *signal, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
/* The report as it stands, for a caller that must write it where it may
 * not render it (a signal handler): the document with no exit status and
 * no error, in two parts. The first *head_len bytes end with
 * "exit_status": and the rest starts with the comma after the "error"
 * object: the caller writes the number and the error object (or null)
 * between them. No histogram (it is made at the end). NUL-terminated, to
 * free with hs_free(); NULL when out of memory. */
HS_STATIC_API char *hs_report_json_parts(const hs_report *r, const char *in_name,
                                         const char *out_name, size_t *head_len);

#ifdef __cplusplus
}
#endif
#endif
