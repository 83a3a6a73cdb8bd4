/* SPDX-License-Identifier: Apache-2.0 */
/*
 * shared_rules.h - filters sharing one rule set that holds a mapping, run
 * at once on threads of their own, against the same runs one at a time.
 * Used by tests/unit/test_shared_rules.c and, under ThreadSanitizer, by
 * tests/unit/tsan_shared_rules.c (make test-tsan).
 */
#ifndef TEST_SHARED_RULES_H
#define TEST_SHARED_RULES_H

#include <stddef.h>

/* Builds one rule set (`preset`, then the mapping at `map_path`) and runs
 * each of the `n` dumps through it twice over: one at a time, then all
 * together, each on a thread of its own (a dump may be named twice). Returns
 * the count of concurrent runs whose output and counters equal their run
 * alone, or -1 with `why` filled on any difference or failure. */
int shared_rules_check(const char *const *dumps, size_t n, const char *map_path,
                       const char *preset, char *why, size_t why_len);

#endif
