/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_check.h - CHECK(cond, format, ...): an invariant of a fuzz harness.
 * When it fails, it says which, where and why on stderr, then aborts, which
 * libFuzzer and replay.c report as a failing input.
 */
#ifndef FUZZ_CHECK_H
#define FUZZ_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond, ...)                                                        \
    do {                                                                        \
        if (!(cond)) {                                                          \
            fprintf(stderr, "invariant failed: %s (%s:%d)\n  ", #cond, __FILE__, \
                    __LINE__);                                                  \
            fprintf(stderr, __VA_ARGS__);                                       \
            fputc('\n', stderr);                                                \
            abort();                                                            \
        }                                                                       \
    } while (0)

#endif
