/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_api_null.c - every public call that takes a pointer takes NULL for
 * it (issue #51, 14): a table with a row per call, each row run as a test
 * of its own (a crash fails that row alone), and a check that the table
 * lists every call of src/lib/hprof_strip.h and hprof_strip_static.h with
 * a pointer parameter, so a call added later without a row fails here.
 */
#define _DEFAULT_SOURCE
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#define HS_STATIC_LINKING_ONLY
#include "hprof_strip_static.h"

#define HEADER "src/lib/hprof_strip.h"
#define STATIC_HEADER "src/lib/hprof_strip_static.h"

/* Valid objects for the arguments that are not the NULL under test. */
static hs_rules *R;
static hs_filter *F;
static hs_input *I;
static hs_output *O;
static hs_report *P;
static mem_sink S;
static const uint8_t D[] = "JAVA PROFILE 1.0.2";

static void objects(void)
{
    R = hs_rules_create(NULL);
    F = hs_filter_create(R, NULL, NULL);
    I = hs_input_open_memory(D, sizeof D, NULL);
    O = hs_output_open_write(mem_write, &S, HS_COMPRESS_NONE, 0, 1, NULL);
    P = hs_report_create();
    cr_assert(R && F && I && O && P);
}

static void objects_free(void)
{
    hs_report_free(P);
    hs_output_close(O);
    hs_input_close(I);
    hs_filter_free(F);
    hs_rules_free(R);
    free(S.data);
}

/* Each row's calls: NULL in each pointer position in turn (the other
 * arguments valid), and what the header says comes back. */
#define ROW(name) static void null_##name(void)
ROW(hs_rules_create) { hs_rules_free(hs_rules_create(NULL)); }
ROW(hs_rules_free) { hs_rules_free(NULL); }
ROW(hs_rules_preset)
{
    cr_assert_eq(hs_rules_preset(NULL, "default", NULL), HS_E_USAGE);
    cr_assert_eq(hs_rules_preset(R, NULL, NULL), HS_E_USAGE);
}
ROW(hs_preset_summary) { cr_assert_null(hs_preset_summary(NULL)); }
ROW(hs_rules_parse)
{
    cr_assert_eq(hs_rules_parse(NULL, "", 0, NULL, NULL), HS_E_USAGE);
    cr_assert_eq(hs_rules_parse(R, NULL, 0, NULL, NULL), HS_OK);
    cr_assert_eq(hs_rules_parse(R, NULL, 3, NULL, NULL), HS_E_USAGE);
}
ROW(hs_rules_print)
{
    cr_assert_eq(hs_rules_print(NULL, NULL, 0), 0);
    (void)hs_rules_print(R, NULL, 0);
}
ROW(hs_rules_mapping)
{
    cr_assert_eq(hs_rules_mapping(NULL, "", 0, NULL, NULL), HS_E_USAGE);
    cr_assert_eq(hs_rules_mapping(R, NULL, 3, NULL, NULL), HS_E_USAGE);
}
ROW(hs_rules_mapping_read)
{
    hs_source src = {0};
    cr_assert_eq(hs_rules_mapping_read(NULL, &src, 0, NULL, NULL), HS_E_USAGE);
    cr_assert_eq(hs_rules_mapping_read(R, NULL, 0, NULL, NULL), HS_E_USAGE);
}
ROW(hs_rules_mapping_file) { cr_assert_null(hs_rules_mapping_file(NULL)); }
ROW(hs_filter_create)
{
    cr_assert_null(hs_filter_create(NULL, NULL, NULL));
}
ROW(hs_filter_create_ex)
{
    cr_assert_null(hs_filter_create_ex(NULL, NULL, 0, NULL, NULL));
    cr_assert_null(hs_filter_create_ex(R, NULL, 8, NULL, NULL));
}
ROW(hs_filter_free) { hs_filter_free(NULL); }
ROW(hs_filter_run)
{
    hs_sink k = {mem_write, &S};
    cr_assert_eq(hs_filter_run(NULL, hs_input_source(I), &k), HS_E_USAGE);
    cr_assert_eq(hs_filter_run(F, NULL, &k), HS_E_USAGE);
    cr_assert_eq(hs_filter_run(F, hs_input_source(I), NULL), HS_E_USAGE);
}
ROW(hs_filter_run_input)
{
    hs_sink k = {mem_write, &S}, none = {NULL, NULL};
    cr_assert_eq(hs_filter_run_input(NULL, I, &k), HS_E_USAGE);
    cr_assert_eq(hs_filter_run_input(F, NULL, &k), HS_E_USAGE);
    cr_assert_eq(hs_filter_run_input(F, I, NULL), HS_E_USAGE);
    cr_assert_eq(hs_filter_run_input(F, I, &none), HS_E_USAGE);
    /* none of them ran the filter */
    cr_assert_neq(hs_filter_run_input(F, I, &k), HS_E_USAGE);
}
ROW(hs_filter_cancel) { hs_filter_cancel(NULL); }
ROW(hs_filter_set_progress)
{
    cr_assert_eq(hs_filter_set_progress(NULL, NULL, NULL), HS_E_USAGE);
    cr_assert_eq(hs_filter_set_progress(F, NULL, NULL), HS_OK);
}
ROW(hs_filter_error) { cr_assert_null(hs_filter_error(NULL)); }
ROW(hs_filter_warning) { cr_assert_null(hs_filter_warning(NULL, 0)); }
ROW(hs_filter_obfuscation_map)
{
    cr_assert_eq(hs_filter_obfuscation_map(NULL, NULL), HS_E_USAGE);
    cr_assert_eq(hs_filter_obfuscation_map(F, NULL), HS_E_USAGE);
}
ROW(hs_filter_stats)
{
    hs_stats st;
    memset(&st, 0xff, sizeof st);
    hs_filter_stats(NULL, &st);
    cr_assert_eq(st.bytes_in, 0);
    hs_filter_stats(F, NULL);
}
ROW(hs_filter_stats_ex)
{
    hs_stats st;
    (void)hs_filter_stats_ex(NULL, &st, sizeof st);
    cr_assert_eq(hs_filter_stats_ex(F, NULL, sizeof st), 0);
}
ROW(hs_counter_index) { cr_assert_eq(hs_counter_index(NULL), -1); }
ROW(hs_filter_counter) { cr_assert_eq(hs_filter_counter(NULL, 0), 0); }
ROW(hs_filter_histogram)
{
    const hs_class_count *rows = (const hs_class_count *)1;
    cr_assert_eq(hs_filter_histogram(NULL, &rows), 0);
    cr_assert_eq(hs_filter_histogram(NULL, NULL), 0);
    cr_assert_eq(hs_filter_histogram(F, NULL), 0);
}
ROW(hs_filter_findings)
{
    const hs_finding *rows = (const hs_finding *)1;
    cr_assert_eq(hs_filter_findings(NULL, &rows), 0);
    cr_assert_eq(hs_filter_findings(NULL, NULL), 0);
    cr_assert_eq(hs_filter_findings(F, NULL), 0);
}
ROW(hs_input_open_path)
{
    hs_error e;
    cr_assert_null(hs_input_open_path(NULL, NULL));
    cr_assert_null(hs_input_open_path(NULL, &e));
    cr_assert_eq(e.code, HS_E_USAGE);
    cr_assert_null(hs_input_open_path("/nonexistent/x.hprof", NULL));
}
ROW(hs_input_open_path_ex)
{
    hs_error e;
    char *m = (char *)1;
    cr_assert_null(hs_input_open_path_ex(NULL, NULL, NULL));
    cr_assert_null(hs_input_open_path_ex(NULL, &e, &m));
    cr_assert_eq(e.code, HS_E_USAGE);
    cr_assert_str_eq(m, e.message);
    hs_free(m);
}
ROW(hs_input_open_fd) { cr_assert_null(hs_input_open_fd(-1, NULL)); }
ROW(hs_input_open_memory)
{
    hs_input *in = hs_input_open_memory(NULL, 0, NULL);
    cr_assert_null(hs_input_open_memory(NULL, 5, NULL));
    hs_input_close(in);
}
ROW(hs_input_open_read) { cr_assert_null(hs_input_open_read(NULL, NULL, NULL)); }
ROW(hs_input_source) { cr_assert_null(hs_input_source(NULL)); }
ROW(hs_input_source_ex) { cr_assert_null(hs_input_source_ex(NULL, 1)); }
ROW(hs_input_compression) { cr_assert_eq(hs_input_compression(NULL), -1); }
ROW(hs_input_bytes_read) { cr_assert_eq(hs_input_bytes_read(NULL), 0); }
ROW(hs_input_mapping)
{
    uint64_t len = 7;
    cr_assert_null(hs_input_mapping(NULL, &len));
    cr_assert_eq(len, 0);
    cr_assert_null(hs_input_mapping(NULL, NULL));
    cr_assert_null(hs_input_mapping(I, NULL), "memory is no mapped file");
}
ROW(hs_input_error) { cr_assert_null(hs_input_error(NULL)); }
ROW(hs_input_damaged) { cr_assert_eq(hs_input_damaged(NULL), HS_OK); }
ROW(hs_input_drain) { hs_input_drain(NULL); }
ROW(hs_input_dump_bytes) { cr_assert_eq(hs_input_dump_bytes(NULL), 0); }
ROW(hs_input_shrank) { cr_assert_eq(hs_input_shrank(NULL), 0); }
ROW(hs_input_warning) { cr_assert_null(hs_input_warning(NULL)); }
ROW(hs_input_close) { hs_input_close(NULL); }
ROW(hs_output_open_fd) { cr_assert_null(hs_output_open_fd(-1, HS_COMPRESS_NONE, 0, 1, NULL)); }
ROW(hs_output_open_write)
{
    cr_assert_null(hs_output_open_write(NULL, NULL, HS_COMPRESS_NONE, 0, 1, NULL));
}
ROW(hs_output_sink) { cr_assert_null(hs_output_sink(NULL)); }
ROW(hs_output_finish)
{
    hs_error e;
    cr_assert_eq(hs_output_finish(NULL, NULL), HS_E_USAGE);
    cr_assert_eq(hs_output_finish(NULL, &e), HS_E_USAGE);
    cr_assert_eq(hs_output_finish(O, NULL), HS_OK);
}
ROW(hs_output_written) { cr_assert_eq(hs_output_written(NULL), 0); }
ROW(hs_output_close) { hs_output_close(NULL); }
ROW(hs_sniff)
{
    cr_assert_eq(hs_sniff(NULL, 0), HS_COMPRESS_NONE);
    cr_assert_eq(hs_sniff(NULL, 16), HS_COMPRESS_NONE);
}
ROW(hs_compression_of_name) { cr_assert_eq(hs_compression_of_name(NULL), -1); }
ROW(hs_compression_of_path)
{
    size_t k = 7;
    cr_assert_eq(hs_compression_of_path(NULL, NULL), HS_COMPRESS_NONE);
    cr_assert_eq(hs_compression_of_path(NULL, &k), HS_COMPRESS_NONE);
    cr_assert_eq(k, 0);
}
ROW(hs_rules_message)
{
    cr_assert_null(hs_rules_message(NULL));
    cr_assert_null(hs_rules_message(R));
}
ROW(hs_compression_foreign_of_path) { cr_assert_null(hs_compression_foreign_of_path(NULL)); }
ROW(hs_compression_levels)
{
    cr_assert_eq(hs_compression_levels(HS_COMPRESS_ZSTD, NULL, NULL), 0);
    cr_assert_eq(hs_compression_levels(-1, NULL, NULL), -1);
}
ROW(hs_push_new)
{
    hs_error e;
    cr_assert_null(hs_push_new(NULL, NULL, NULL, NULL));
    cr_assert_null(hs_push_new(NULL, NULL, NULL, &e));
    cr_assert_eq(e.code, HS_E_USAGE);
}
ROW(hs_push_write) { cr_assert_eq(hs_push_write(NULL, NULL, 0), HS_E_USAGE); }
ROW(hs_push_try_write)
{
    size_t taken = 9;
    cr_assert_eq(hs_push_try_write(NULL, NULL, 0, NULL), HS_E_USAGE);
    cr_assert_eq(hs_push_try_write(NULL, NULL, 0, &taken), HS_E_USAGE);
    cr_assert_eq(taken, 0);
}
ROW(hs_push_try_end) { cr_assert_eq(hs_push_try_end(NULL), -1); }
ROW(hs_push_fd) { cr_assert_eq(hs_push_fd(NULL), -1); }
ROW(hs_push_done) { cr_assert_eq(hs_push_done(NULL), 1); }
ROW(hs_push_finish)
{
    static char x[] = "x";
    char *rep = x;
    cr_assert_eq(hs_push_finish(NULL, NULL), HS_EXIT_USAGE);
    cr_assert_eq(hs_push_finish(NULL, &rep), HS_EXIT_USAGE);
    cr_assert_null(rep);
}
ROW(hs_push_free) { hs_push_free(NULL); }
ROW(hs_output_open_ex)
{
    hs_output_params p = {sizeof p, HS_COMPRESS_NONE, 0, 0, 1};
    cr_assert_null(hs_output_open_ex(-1, NULL, NULL, &p, NULL));
    cr_assert_null(hs_output_open_ex(1, NULL, NULL, NULL, NULL));
}
ROW(hs_output_error) { cr_assert_str_eq(hs_output_error(NULL), "unknown error"); }
ROW(hs_output_errno) { cr_assert_eq(hs_output_errno(NULL), 0); }
ROW(hs_rules_mapping_path)
{
    cr_assert_eq(hs_rules_mapping_path(NULL, "x", 0, NULL), HS_E_USAGE);
    cr_assert_eq(hs_rules_mapping_path(R, NULL, 0, NULL), HS_E_USAGE);
}
ROW(hs_rules_mapping_input)
{
    cr_assert_eq(hs_rules_mapping_input(NULL, I, 0, NULL, NULL), HS_E_USAGE);
    cr_assert_eq(hs_rules_mapping_input(R, NULL, 0, NULL, NULL), HS_E_USAGE);
}
ROW(hs_report_free) { hs_report_free(NULL); }
ROW(hs_report_set_messages)
{
    hs_report_set_messages(NULL, NULL, NULL);
    hs_report_set_messages(P, NULL, NULL);
}
ROW(hs_report_note_rules)
{
    char *doc;
    hs_report_note_rules(NULL, 0, "x");
    hs_report_note_rules(P, 1, NULL);
    doc = hs_report_json(P, 0, NULL, NULL);
    cr_assert(doc && strstr(doc, "\"rule_files\":[null]"), "%s", doc);
    hs_free(doc);
}
ROW(hs_report_fail)
{
    cr_assert_eq(hs_report_fail(NULL, HS_E_READ, NULL, "x"), HS_EXIT_IO);
    cr_assert_eq(hs_report_fail(P, HS_E_READ, NULL, "x"), HS_EXIT_IO);
}
ROW(hs_report_warn) { hs_report_warn(NULL, "x"); }
ROW(hs_report_error) { cr_assert_null(hs_report_error(NULL)); }
ROW(hs_report_message)
{
    cr_assert_null(hs_report_message(NULL));
    cr_assert_null(hs_report_message(P)); /* no failure in a new report */
}
ROW(hs_report_file_bytes)
{
    uint64_t in = 7, out = 9;
    cr_assert_eq(hs_report_file_bytes(NULL, &in, &out), 0);
    cr_assert_eq(hs_report_file_bytes(P, NULL, NULL), 0);
    cr_assert_eq(hs_report_file_bytes(P, &in, &out), 0);
    cr_assert(in == 7 && out == 9, "unknown sizes are left as they were");
}
ROW(hs_report_stats)
{
    hs_stats st;
    cr_assert_eq(hs_report_stats(NULL, &st, sizeof st), 0);
    cr_assert_eq(hs_report_stats(P, NULL, sizeof st), 0);
}
ROW(hs_report_output_kept) { cr_assert_eq(hs_report_output_kept(NULL), 0); }
ROW(hs_report_set_output_kept) { hs_report_set_output_kept(NULL, 1); }
ROW(hs_report_ran) { cr_assert_eq(hs_report_ran(NULL), 0); }
ROW(hs_report_histogram)
{
    int heaps = 5;
    cr_assert_eq(hs_report_histogram(NULL, NULL, &heaps), 0);
    cr_assert_eq(heaps, 0);
    cr_assert_eq(hs_report_histogram(P, NULL, NULL), 0);
}
ROW(hs_report_findings)
{
    cr_assert_eq(hs_report_findings(NULL, NULL), 0);
    cr_assert_eq(hs_report_findings(P, NULL), 0);
}
ROW(hs_report_audit_verdict) { cr_assert_eq(hs_report_audit_verdict(NULL), -1); }
ROW(hs_report_audit_figures)
{
    hs_audit_figures f;
    memset(&f, 0xff, sizeof f);
    cr_assert_eq(hs_report_audit_figures(NULL, NULL, sizeof f), 0);
    cr_assert_eq(hs_report_audit_figures(P, NULL, sizeof f), 0);
    /* no report: the figures are zero, not what the caller's memory held */
    cr_assert_eq(hs_report_audit_figures(NULL, &f, sizeof f), sizeof f);
    cr_assert_eq(f.nonzero_array_bytes, 0);
}
ROW(hs_report_set_audit) { hs_report_set_audit(NULL, 1); }
ROW(hs_report_set_times) { hs_report_set_times(NULL, 1, 1, 1); }
ROW(hs_report_fail_other)
{
    char *doc;
    hs_report_fail_other(NULL, "x", 0, NULL, "y");
    hs_report_fail_other(P, NULL, 0, NULL, "y");
    doc = hs_report_json(P, 2, NULL, NULL);
    cr_assert_not_null(doc);
    hs_free(doc);
}
ROW(hs_report_json_parts)
{
    size_t head;
    char *doc;
    cr_assert_null(hs_report_json_parts(NULL, NULL, NULL, &head));
    cr_assert_null(hs_report_json_parts(P, NULL, NULL, NULL));
    doc = hs_report_json_parts(P, NULL, NULL, &head);
    cr_assert(doc && strstr(doc, "\"name\":null"));
    hs_free(doc);
}
ROW(hs_report_json)
{
    char *doc = hs_report_json(P, 0, NULL, NULL);
    cr_assert_null(hs_report_json(NULL, 0, NULL, NULL));
    cr_assert_not_null(doc);
    hs_free(doc);
}
ROW(hs_job_run)
{
    hs_job job = {.size = sizeof job};
    char *doc = (char *)1;
    cr_assert_eq(hs_job_run(NULL, NULL, NULL, NULL), HS_EXIT_USAGE);
    cr_assert_eq(hs_job_run(NULL, I, O, &doc), HS_EXIT_USAGE);
    cr_assert(doc && strstr(doc, "no job"), "%s", doc);
    hs_free(doc);
    cr_assert_eq(hs_job_run(&job, NULL, O, NULL), HS_EXIT_USAGE);
    cr_assert_eq(hs_job_run(&job, I, NULL, NULL), HS_EXIT_USAGE);
}
ROW(hs_free) { hs_free(NULL); }

typedef struct {
    const char *name;
    void (*call)(void);
} row;

#define R_(name) {#name, null_##name}
static const row g_rows[] = {
    R_(hs_rules_create), R_(hs_rules_free), R_(hs_rules_preset), R_(hs_preset_summary),
    R_(hs_rules_parse), R_(hs_rules_print), R_(hs_rules_mapping), R_(hs_rules_mapping_read),
    R_(hs_rules_mapping_file), R_(hs_filter_create), R_(hs_filter_create_ex), R_(hs_filter_free),
    R_(hs_filter_run), R_(hs_filter_run_input), R_(hs_filter_cancel), R_(hs_filter_set_progress), R_(hs_filter_error),
    R_(hs_filter_warning), R_(hs_filter_obfuscation_map), R_(hs_filter_stats),
    R_(hs_filter_stats_ex), R_(hs_counter_index), R_(hs_filter_counter),
    R_(hs_filter_histogram), R_(hs_filter_findings), R_(hs_input_open_path),
    R_(hs_input_open_fd), R_(hs_input_open_memory), R_(hs_input_open_read), R_(hs_input_source),
    R_(hs_input_source_ex), R_(hs_input_compression), R_(hs_input_bytes_read),
    R_(hs_input_mapping), R_(hs_input_error), R_(hs_input_damaged), R_(hs_input_drain),
    R_(hs_input_dump_bytes), R_(hs_input_shrank), R_(hs_input_warning), R_(hs_input_close),
    R_(hs_output_open_fd), R_(hs_output_open_write), R_(hs_output_sink), R_(hs_output_finish),
    R_(hs_output_written), R_(hs_output_close), R_(hs_output_open_ex), R_(hs_output_error),
    R_(hs_output_errno), R_(hs_rules_mapping_path), R_(hs_rules_mapping_input),
    R_(hs_report_free), R_(hs_report_set_messages), R_(hs_report_note_rules),
    R_(hs_report_fail), R_(hs_report_warn), R_(hs_report_error), R_(hs_report_message),
    R_(hs_report_file_bytes), R_(hs_report_stats),
    R_(hs_report_output_kept), R_(hs_report_set_output_kept), R_(hs_report_ran),
    R_(hs_report_histogram), R_(hs_report_findings), R_(hs_report_audit_verdict),
    R_(hs_report_audit_figures),
    R_(hs_report_set_audit), R_(hs_report_set_times), R_(hs_report_fail_other),
    R_(hs_report_json_parts), R_(hs_report_json), R_(hs_job_run), R_(hs_free),
    R_(hs_sniff), R_(hs_compression_of_name), R_(hs_compression_of_path),
    R_(hs_compression_levels), R_(hs_compression_foreign_of_path), R_(hs_rules_message),
    R_(hs_input_open_path_ex),
    R_(hs_push_new), R_(hs_push_write), R_(hs_push_try_write),
    R_(hs_push_try_end), R_(hs_push_fd), R_(hs_push_done), R_(hs_push_finish), R_(hs_push_free),
};
#define N_ROWS (sizeof g_rows / sizeof g_rows[0])

/* Rows by index: a test's process may be a fresh image of the program
 * (ASLR), where the addresses in g_rows would not hold. */
ParameterizedTestParameters(api_null, every_pointer_takes_null)
{
    static size_t index[N_ROWS];
    size_t i;

    for (i = 0; i < N_ROWS; i++)
        index[i] = i;
    return cr_make_param_array(size_t, index, N_ROWS);
}

ParameterizedTest(size_t *i, api_null, every_pointer_takes_null, .init = objects,
                  .fini = objects_free)
{
    cr_assert_lt(*i, N_ROWS);
    cr_log_info("%s", g_rows[*i].name);
    g_rows[*i].call();
}

static int in_table(const char *name)
{
    size_t i;

    for (i = 0; i < N_ROWS; i++)
        if (strcmp(g_rows[i].name, name) == 0)
            return 1;
    return 0;
}

/* A header's declarations: "MARKER type name(params);", the parameters
 * maybe over several lines. Each with a '*' in its parameters (a pointer,
 * a callback) must have a row; adds to *calls and *with_pointer. */
static void check_header(const char *header, const char *marker, size_t *calls,
                         size_t *with_pointer)
{
    size_t len;
    char *text = (char *)load_file(header, &len), *p;

    cr_assert(text, "cannot read %s", header);
    for (p = text; (p = strstr(p, marker)) != NULL; p++) {
        char *open = strchr(p, '('), *close, *name, *end;
        char saved;

        cr_assert(open, "a declaration without its parameters at %.60s", p + 1);
        for (end = open; end > p && isspace((unsigned char)end[-1]); end--)
            ;
        for (name = end; name > p && (isalnum((unsigned char)name[-1]) || name[-1] == '_'); name--)
            ;
        close = strstr(open, ");");
        cr_assert(close, "a declaration without its parameters at %.60s", p + 1);
        (*calls)++;
        saved = *close;
        *close = 0;
        if (strchr(open, '*')) {
            char fn[64];
            snprintf(fn, sizeof fn, "%.*s", (int)(end - name), name);
            (*with_pointer)++;
            cr_expect(in_table(fn), "%s takes a pointer and has no row in the table", fn);
        }
        *close = saved;
    }
    free(text);
}

/* Both headers: the public one and the command's (hprof_strip_static.h). */
Test(api_null, the_table_lists_every_call_with_a_pointer)
{
    size_t calls = 0, with_pointer = 0, public_calls;

    check_header(HEADER, "\nHS_API ", &calls, &with_pointer);
    public_calls = calls;
    check_header(STATIC_HEADER, "\nHS_STATIC_API ", &calls, &with_pointer);
    cr_assert_geq(public_calls, 70, "the header's calls were not found (%zu)", public_calls);
    cr_assert_geq(calls - public_calls, 8, "the static header's calls were not found (%zu)",
                  calls - public_calls);
    cr_assert_eq(with_pointer, N_ROWS, "%zu calls take a pointer, the table has %zu rows",
                 with_pointer, N_ROWS);
}
