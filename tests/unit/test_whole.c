/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_whole.c - messages that name a path never cut (issue #55): hs_error
 * holds 320 bytes, so a path past them is said whole through the calls
 * made for it (hs_input_open_path_ex, hs_rules_message, the report's
 * message and warnings).
 */
#define _DEFAULT_SOURCE /* mkdtemp */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "hprof_strip.h"
/* hs_report_warn (the suite links libhprofstrip.a) */
#define HS_STATIC_LINKING_ONLY
#include "hprof_strip_static.h"

/* A directory under the temporary one whose path is over 400 bytes: made
 * one 60-byte level at a time (NAME_MAX is 255). */
static void long_dir(char *path, size_t cap)
{
    char level[61];
    int i;

    snprintf(path, cap, "/tmp/hs-whole-XXXXXX");
    cr_assert_not_null(mkdtemp(path));
    memset(level, 'd', sizeof level - 1);
    level[sizeof level - 1] = 0;
    for (i = 0; i < 7; i++) {
        size_t n = strlen(path);
        snprintf(path + n, cap - n, "/%s", level);
        cr_assert_eq(mkdir(path, 0700), 0, "%s", path);
    }
    cr_assert_gt(strlen(path), 400);
}

static void write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");

    cr_assert_not_null(f, "%s", path);
    cr_assert_eq(fwrite(data, 1, n, f), n);
    cr_assert_eq(fclose(f), 0);
}

static void remove_tree(const char *path)
{
    char cmd[1024];

    snprintf(cmd, sizeof cmd, "rm -rf '%.20s'", path); /* /tmp/hs-whole-XXXXXX */
    cr_assert_eq(system(cmd), 0);
}

static const char XZ[] = "\xfd" "7zXZ\x00 and more";

Test(whole, an_input_open_under_a_long_path)
{
    char dir[1024], path[1100], want[1200], *m = NULL;
    hs_error err;

    long_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/x.hprof.xz", dir);
    write_file(path, XZ, sizeof XZ);
    cr_assert_null(hs_input_open_path_ex(path, &err, &m));
    cr_assert_eq(err.code, HS_E_UNSUPPORTED);
    cr_assert_eq(strlen(err.message), sizeof err.message - 1, "cut in hs_error");
    cr_assert_not_null(m);
    snprintf(want, sizeof want, "%s: ", path);
    cr_assert(strncmp(m, want, strlen(want)) == 0 && strstr(m + strlen(want), "xz"), "%s", m);
    cr_assert(strncmp(m, err.message, strlen(err.message)) == 0, "err holds its start");
    hs_free(m);
    cr_assert_null(hs_input_open_path_ex(dir, &err, &m)); /* a directory */
    cr_assert_eq(err.code, HS_E_READ);
    snprintf(want, sizeof want, "%s: %s", dir, strerror(EISDIR));
    cr_assert_str_eq(m, want);
    hs_free(m);
    snprintf(path, sizeof path, "%s/missing.hprof", dir);
    cr_assert_null(hs_input_open_path_ex(path, NULL, &m));
    snprintf(want, sizeof want, "%s: %s", path, strerror(ENOENT));
    cr_assert_str_eq(m, want);
    hs_free(m);
    remove_tree(dir);
}

Test(whole, a_mapping_under_a_long_path_that_is_xz)
{
    hs_rules *r = hs_rules_create(NULL);
    char dir[1024], path[1100], want[1200];
    hs_error err;

    long_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/mapping.txt.xz", dir);
    write_file(path, XZ, sizeof XZ);
    cr_assert_eq(hs_rules_mapping_path(r, path, 0, &err), HS_E_USAGE);
    snprintf(want, sizeof want, "mapping %s: ", path);
    cr_assert_not_null(hs_rules_message(r));
    cr_assert(strncmp(hs_rules_message(r), want, strlen(want)) == 0 &&
                  strstr(hs_rules_message(r) + strlen(want), "xz"),
              "%s", hs_rules_message(r));
    hs_rules_free(r);
    remove_tree(dir);
}

#define EVIL "java.lang.String -> com.company.MyTask:\n    byte coder -> x\n"
#define REFUSED "renames java.lang.String, a class of the JDK's or Android's own packages: " \
                "refused where values are removed, since a mapping may not name the fields " \
                "kept on purpose (issue #50)"

Test(whole, a_mapping_refused_where_it_is_taken)
{
    hs_rules *r = hs_rules_create(NULL);
    char origin[600], want[1200];
    hs_error err;

    memset(origin, 'p', sizeof origin - 1);
    origin[sizeof origin - 1] = 0;
    cr_assert_eq(hs_rules_preset(r, "privacy", NULL), HS_OK);
    cr_assert_eq(hs_rules_mapping(r, EVIL, strlen(EVIL), origin, &err), HS_E_USAGE);
    snprintf(want, sizeof want, "%s:1: " REFUSED, origin);
    cr_assert_str_eq(hs_rules_message(r), want);
    hs_rules_free(r);
}

/* The rules remove values only after the mapping was taken: the filter
 * refuses them, and hs_job_run's report says it whole. */
static int discard(void *ctx, const void *buf, size_t len)
{
    (void)ctx;
    (void)buf;
    (void)len;
    return 0;
}

Test(whole, a_mapping_refused_by_the_job)
{
    hs_rules *r = hs_rules_create(NULL);
    hs_report *rep = hs_report_create();
    char origin[600], want[1200];
    hs_input *in = hs_input_open_path("fixtures/jvm17-64bit.hprof", NULL);
    hs_output *out = hs_output_open_write(discard, NULL, HS_COMPRESS_NONE, 0, 1, NULL);
    hs_job job;

    cr_assert(in && out && r && rep);
    memset(origin, 'p', sizeof origin - 1);
    origin[sizeof origin - 1] = 0;
    cr_assert_eq(hs_rules_mapping(r, EVIL, strlen(EVIL), origin, NULL), HS_OK);
    cr_assert_eq(hs_rules_preset(r, "privacy", NULL), HS_OK);
    memset(&job, 0, sizeof job);
    job.size = sizeof job;
    job.rules = r;
    job.report = rep;
    cr_assert_eq(hs_job_run(&job, in, out, NULL), 2);
    snprintf(want, sizeof want, "%s:1: " REFUSED, origin);
    cr_assert_str_eq(hs_report_message(rep), want);
    hs_input_close(in);
    hs_output_close(out);
    hs_report_free(rep);
    hs_rules_free(r);
}

Test(whole, a_warning_in_the_json)
{
    hs_report *rep = hs_report_create();
    char path[1000], *json;

    memset(path, 'w', sizeof path - 1);
    path[sizeof path - 1] = 0;
    hs_report_warn(rep, "%s holds no heap dump", path);
    json = hs_report_json(rep, 0, NULL, NULL);
    cr_assert_not_null(json);
    cr_assert_not_null(strstr(json, path), "the warning is cut in %s", json);
    cr_assert_not_null(strstr(json, " holds no heap dump\"]"), "%s", json);
    hs_free(json);
    hs_report_free(rep);
}
