/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_misuse.c - every public function of hprof_strip.h called the wrong
 * way: NULL handles, NULL strings and buffers, a read callback that breaks
 * its contract. None may crash; each says so as its siblings do
 * (HS_E_USAGE, or the NULL/0 return its documentation gives).
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

Test(misuse, rules_functions_take_null)
{
    hs_rules *r = hs_rules_create(NULL);
    hs_error err;
    char buf[64];

    cr_assert_not_null(r);
    memset(&err, 0, sizeof err);
    cr_expect_eq(hs_rules_preset(NULL, "default", &err), HS_E_USAGE);
    cr_expect_eq(err.code, HS_E_USAGE, "err is filled");
    cr_expect_eq(hs_rules_preset(NULL, "default", NULL), HS_E_USAGE);
    cr_expect_eq(hs_rules_preset(r, NULL, &err), HS_E_USAGE);
    cr_expect_eq(hs_rules_preset(r, NULL, NULL), HS_E_USAGE);
    cr_expect_null(hs_preset_summary(NULL));
    cr_expect_not_null(hs_preset_summary("default"));

    cr_expect_eq(hs_rules_parse(r, NULL, 5, "x", &err), HS_E_USAGE);
    cr_expect_eq(hs_rules_parse(NULL, "strings keep\n", 13, "x", &err), HS_E_USAGE);
    cr_expect_eq(hs_rules_parse(r, NULL, 0, "x", &err), HS_OK, "no text is no rule");
    cr_expect_eq(hs_rules_parse(r, "strings keep\n", 13, NULL, NULL), HS_OK);

    memset(buf, 'x', sizeof buf);
    cr_expect_eq(hs_rules_print(NULL, buf, sizeof buf), 0);
    cr_expect_eq(buf[0], 0, "an empty text for no rule set");
    cr_expect_eq(hs_rules_print(NULL, NULL, 0), 0);
    /* a NULL buffer with a size: the length only, as snprintf(NULL, 0) */
    cr_expect_gt(hs_rules_print(r, NULL, 100), 0);
    cr_expect_eq(hs_rules_print(r, NULL, 100), hs_rules_print(r, NULL, 0));

    cr_expect_eq(hs_rules_mapping(NULL, "", 0, "m", &err), HS_E_USAGE);
    cr_expect_eq(hs_rules_mapping(r, NULL, 5, "m", &err), HS_E_USAGE);
    cr_expect_null(hs_rules_mapping_file(NULL));
    cr_expect_eq(hs_rules_mapping_read(NULL, NULL, 0, "m", &err), HS_E_USAGE);
    cr_expect_eq(hs_rules_mapping_read(r, NULL, 0, "m", &err), HS_E_USAGE);
    {
        hs_source none = {0};
        cr_expect_eq(hs_rules_mapping_read(r, &none, 0, "m", &err), HS_E_USAGE);
    }
    hs_rules_free(NULL);
    hs_rules_free(r);
    cr_expect_str_eq(hs_status_str((hs_status)12345), "unknown status");
}

Test(misuse, filter_functions_take_null)
{
    hs_rules *r = hs_rules_create(NULL);
    hs_filter *f;
    hs_stats st;
    const hs_class_count *rows = (const hs_class_count *)1;
    hs_source src = {0};
    hs_sink snk = {0};

    cr_assert_not_null(r);
    cr_expect_null(hs_filter_create(NULL, NULL, NULL));
    hs_filter_free(NULL);
    cr_expect_eq(hs_filter_run(NULL, &src, &snk), HS_E_USAGE);
    cr_expect_null(hs_filter_error(NULL));
    cr_expect_null(hs_filter_warning(NULL, 0));
    hs_filter_stats(NULL, NULL);
    memset(&st, 0xff, sizeof st);
    hs_filter_stats(NULL, &st);
    cr_expect_eq(st.bytes_in, 0);
    cr_expect_eq(hs_filter_histogram(NULL, &rows), 0);
    cr_expect_null(rows);
    cr_expect_eq(hs_filter_histogram(NULL, NULL), 0);

    f = hs_filter_create(r, NULL, NULL);
    cr_assert_not_null(f);
    cr_expect_eq(hs_filter_run(f, NULL, &snk), HS_E_USAGE);
    cr_expect_eq(hs_filter_run(f, &src, NULL), HS_E_USAGE);
    cr_expect_eq(hs_filter_run(f, &src, &snk), HS_E_USAGE, "no read, data nor borrow");
    hs_filter_free(f);
    hs_rules_free(r);
}

/* hs_filter_histogram with no place for the rows, after a histogram run:
 * the count alone. */
Test(misuse, histogram_rows_null_after_a_run)
{
    dump d;
    hs_options opt;
    hs_rules *r = hs_rules_create(NULL);
    hs_filter *f;
    mem_src ms;
    mem_sink sink = {NULL, 0, 0, 0};
    hs_source s = {.read = mem_read, .ctx = &ms};
    hs_sink k = {mem_write, &sink};
    const hs_class_count *rows = NULL;

    dg_init(&d, "JAVA PROFILE 1.0.2", 8);
    dg_everything(&d, 8, 0);
    memset(&ms, 0, sizeof ms);
    ms.data = d.p;
    ms.len = d.len;
    ms.fail_at = -1;
    memset(&opt, 0, sizeof opt);
    opt.histogram = 1;
    cr_assert_not_null(r);
    f = hs_filter_create(r, &opt, NULL);
    cr_assert_not_null(f);
    cr_assert_eq(hs_filter_run(f, &s, &k), HS_OK);
    cr_expect_gt(hs_filter_histogram(f, NULL), 0);
    cr_expect_eq(hs_filter_histogram(f, NULL), hs_filter_histogram(f, &rows));
    cr_expect_not_null(rows);
    hs_filter_free(f);
    hs_rules_free(r);
    free(sink.data);
    dg_free(&d);
}

/* A read callback that says it wrote cap + 1 bytes. */
static long read_too_much(void *ctx, void *buf, size_t cap)
{
    mem_src *m = ctx;
    long got = mem_read(ctx, buf, cap);

    if (got > 0 && m->pos > 64)
        return (long)cap + 1; /* the bytes past cap were never written */
    return got;
}

Test(misuse, read_callback_returning_more_than_cap)
{
    dump d;
    hs_rules *r = hs_rules_create(NULL);
    hs_filter *f;
    mem_src ms;
    mem_sink sink = {NULL, 0, 0, 0};
    hs_source s = {.read = read_too_much, .ctx = &ms};
    hs_sink k = {mem_write, &sink};

    dg_init(&d, "JAVA PROFILE 1.0.2", 8);
    dg_everything(&d, 8, 0);
    memset(&ms, 0, sizeof ms);
    ms.data = d.p;
    ms.len = d.len;
    ms.chunk = 100;
    ms.fail_at = -1;
    cr_assert_not_null(r);
    cr_assert_eq(hs_rules_preset(r, "default", NULL), HS_OK);
    f = hs_filter_create(r, NULL, NULL);
    cr_assert_not_null(f);
    cr_expect_eq(hs_filter_run(f, &s, &k), HS_E_READ);
    cr_assert_not_null(hs_filter_error(f));
    cr_expect_not_null(strstr(hs_filter_error(f)->message, "more bytes than asked"), "%s",
                       hs_filter_error(f)->message);
    hs_filter_free(f);
    hs_rules_free(r);
    free(sink.data);
    dg_free(&d);
}
