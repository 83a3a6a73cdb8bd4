/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_shared_rules.c - one rule set holding a mapping serves several
 * filters at once (mapping lookups are read-only, their counts kept in
 * each filter): runs on threads together give what each gives alone.
 */
#include <criterion/criterion.h>

#include "shared_rules.h"

#define MAP_JVM "tests/data/deobf/jvm17-r8.map"
#define MAP_ART "tests/data/deobf/art-r8.map"

Test(shared_rules, mapping_on_threads_at_once, .timeout = 120)
{
    /* the same dump on four threads: the same names looked up at once */
    static const char *const jvm[] = {"fixtures/jvm17-64bit.hprof", "fixtures/jvm17-64bit.hprof",
                                      "fixtures/jvm17-64bit.hprof", "fixtures/jvm17-64bit.hprof"};
    static const char *const art[] = {"fixtures/android-art2025-ahat-test-dump.hprof",
                                      "fixtures/android-art2025-ahat-test-dump.hprof"};
    char why[300];

    cr_expect_eq(shared_rules_check(jvm, 4, MAP_JVM, "default", why, sizeof why), 4, "%s", why);
    cr_expect_eq(shared_rules_check(jvm, 2, MAP_JVM, "privacy", why, sizeof why), 2, "%s", why);
    cr_expect_eq(shared_rules_check(art, 2, MAP_ART, "android-app", why, sizeof why), 2, "%s",
                 why);
}
