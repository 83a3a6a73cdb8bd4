/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tsan_shared_rules.c - shared_rules_check() alone, for a ThreadSanitizer
 * build (make test-tsan): filters sharing one rule set with a mapping, on
 * threads at once. Usage: tsan_shared_rules MAP DUMP...
 */
#include <stdio.h>

#include "shared_rules.h"

int main(int argc, char **argv)
{
    char why[300];
    int n;

    if (argc < 3) {
        fprintf(stderr, "usage: %s MAP DUMP...\n", argv[0]);
        return 2;
    }
    n = shared_rules_check((const char *const *)argv + 2, (size_t)(argc - 2), argv[1], "default",
                           why, sizeof why);
    if (n < 0) {
        fprintf(stderr, "tsan_shared_rules: %s\n", why);
        return 1;
    }
    printf("tsan_shared_rules: %d filters on threads at once, as alone\n", n);
    return 0;
}
