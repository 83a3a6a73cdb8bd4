/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_tojvm.c - --to-jvm writes Android dumps as 1.0.2 the way Android's
 * own hprof-conv does: the same sub-records, in the same order (compared
 * decoded, not by segment boundaries), except where hprof-conv is wrong.
 */
#define _GNU_SOURCE /* memmem */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"

#define HPROF_CONV "/usr/lib/android-sdk/platform-tools/hprof-conv"

static run_result to_jvm(const uint8_t *in, size_t len, const char *preset)
{
    hs_options opt;

    memset(&opt, 0, sizeof opt);
    opt.to_jvm = 1;
    return run_filter(in, len, preset, &opt, 0);
}

Test(to_jvm, same_records_as_hprof_conv)
{
    const char *const *p;
    int seen = 0;

    cr_assert_eq(access(HPROF_CONV, X_OK), 0, "hprof-conv is not installed");
    for (p = dump_paths(); *p; p++) {
        size_t len, clen;
        uint8_t *in, *conv;
        char cmd[600];
        run_result r;
        walk_result wo, wc;

        if (!strstr(*p, "android"))
            continue;
        seen++;
        snprintf(cmd, sizeof cmd, HPROF_CONV " '%s' build/tojvm-conv.hprof", *p);
        cr_assert_eq(system(cmd), 0, "%s", cmd);
        conv = load_file("build/tojvm-conv.hprof", &clen);
        in = load_file(*p, &len);
        r = to_jvm(in, len, "none");
        cr_assert_eq(r.status, HS_OK, "%s: %s", *p, r.err.message);
        cr_expect(memcmp(r.out, "JAVA PROFILE 1.0.2", 19) == 0);
        wo = walk_dump(r.out, r.out_len, 0);
        wc = walk_dump(conv, clen, 0);
        cr_expect(wo.ok, "%s", wo.error);
        cr_expect_eq(wo.heap_infos, 0);
        cr_expect_eq(wo.digest, wc.digest, "%s: records differ from hprof-conv's", *p);
        cr_expect_eq(wo.subrecords, wc.subrecords, "%s", *p);
        run_result_free(&r);
        free(in);
        free(conv);
    }
    cr_expect_geq(seen, 1);
}

/* Every Android root kind becomes ROOT_UNKNOWN with its id; a
 * PRIMITIVE_ARRAY_NODATA becomes a zero-filled array of the same size (where
 * hprof-conv writes a count with no elements). */
Test(to_jvm, android_records)
{
    dump d;
    run_result r;
    walk_result w;
    size_t i;
    static const uint8_t nodata_as_array[] = {0x23, 0, 0, 0x50, 0x08, 0, 0, 0, 1, 0, 0, 0, 7, 10};

    dg_everything(&d, 4, 1);
    r = to_jvm(d.p, d.len, "none");
    cr_assert_eq(r.status, HS_OK, "%s", r.err.message);
    w = walk_dump(r.out, r.out_len, 0);
    cr_expect(w.ok, "%s", w.error);
    cr_expect_eq(w.heap_infos, 0);
    cr_expect_eq(w.roots, 16);
    for (i = 0; i + 1 < r.out_len; i++)
        cr_expect(!(r.out[i] >= 0x89 && r.out[i] <= 0x90 && r.out[i + 1] == 0 &&
                    r.out[i + 2] == 0 && r.out[i + 3] == 0x30),
                  "an Android root kind is left at byte %zu", i);
    cr_expect(memmem(r.out, r.out_len, nodata_as_array, sizeof nodata_as_array) != NULL,
              "PRIMITIVE_ARRAY_NODATA not written as an int[7]");
    cr_expect_eq(w.payload_bytes, 5 * (1 + 2 + 4 + 8 + 1 + 2 + 4 + 8) + 7 * 4,
                 "the eight arrays of five, and the int[7] that had no data");
    run_result_free(&r);
    dg_free(&d);
}

/* With android-app, what hprof-conv -z would leave, without the roots it
 * leaves dangling and without empty segments. */
Test(to_jvm, with_android_app)
{
    static const char dialer[] = "../shared/corpus/android-api19-dialer.hprof";
    size_t len;
    uint8_t *in;
    run_result r;
    walk_result w;

    if (!need_shared(dialer, "to_jvm: android-app on the corpus's Android 4.4 dump"))
        return;
    in = load_file(dialer, &len);
    cr_assert(in, "%s does not read", dialer);
    r = to_jvm(in, len, "android-app");
    cr_assert_eq(r.status, HS_OK, "%s", r.err.message);
    w = walk_dump(r.out, r.out_len, 0);
    cr_expect(w.ok, "%s", w.error);
    cr_expect_eq(w.heap_infos, 0);
    cr_expect_eq(w.empty_heap_records, 0);
    cr_expect_gt(r.st.objects_dropped, 0);
    cr_expect_gt(r.st.roots_dropped, 0);
    run_result_free(&r);
    free(in);
}
