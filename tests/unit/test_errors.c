/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_errors.c - bad input gets a clear error naming the byte, and the
 * right status; nothing crashes, hangs or allocates from a bad length.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

static run_result run_bytes(const void *p, size_t n)
{
    return run_filter(p, n, "none", NULL, 0);
}

static void expect_error(run_result *r, hs_status code, uint64_t offset, const char *text)
{
    cr_expect_eq(r->status, code, "status %d, message: %s", r->status, r->err.message);
    cr_expect_eq(r->err.offset, offset, "offset %llu, message: %s",
                 (unsigned long long)r->err.offset, r->err.message);
    cr_expect(strstr(r->err.message, text) != NULL, "message '%s' lacks '%s'",
              r->err.message, text);
    run_result_free(r);
}

Test(not_hprof, empty)
{
    run_result r = run_bytes("", 0);
    expect_error(&r, HS_E_UNSUPPORTED, 0, "empty");
}

Test(not_hprof, text)
{
    static const char t[] = "Hello, this is a text file\nwith lines\n";
    run_result r = run_bytes(t, sizeof t - 1);
    expect_error(&r, HS_E_UNSUPPORTED, 0, "text");
}

Test(not_hprof, gzip)
{
    static const uint8_t t[] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 1, 2, 3};
    run_result r = run_bytes(t, sizeof t);
    expect_error(&r, HS_E_UNSUPPORTED, 0, "gzip");
}

Test(not_hprof, zstd)
{
    static const uint8_t t[] = {0x28, 0xb5, 0x2f, 0xfd, 0, 0, 0, 0};
    run_result r = run_bytes(t, sizeof t);
    expect_error(&r, HS_E_UNSUPPORTED, 0, "zstd");
}

/* what pzstd writes: a skippable frame, then the zstd frame */
Test(not_hprof, zstd_skippable_frame_first)
{
    static const uint8_t t[] = {0x50, 0x2a, 0x4d, 0x18, 4,    0,    0,    0,
                                1,    2,    3,    4,    0x28, 0xb5, 0x2f, 0xfd};
    run_result r = run_bytes(t, sizeof t);
    expect_error(&r, HS_E_UNSUPPORTED, 0, "zstd");
}

Test(not_hprof, ibm_phd)
{
    static const uint8_t t[] = "\x00\x12portable heap dump\x00\x00\x00\x06";
    run_result r = run_bytes(t, sizeof t - 1);
    expect_error(&r, HS_E_UNSUPPORTED, 0, "portable heap dump");
}

Test(not_hprof, binary_garbage)
{
    static const uint8_t t[] = {0x00, 0x01, 0xfe, 0x80, 0x99};
    run_result r = run_bytes(t, sizeof t);
    expect_error(&r, HS_E_UNSUPPORTED, 0, "not an HPROF");
}

Test(header, unknown_version)
{
    static const char t[] = "JAVA PROFILE 1.0.9\0\0\0\0\4\0\0\0\0\0\0\0\0";
    run_result r = run_bytes(t, sizeof t - 1);
    expect_error(&r, HS_E_UNSUPPORTED, 0, "1.0.9");
}

Test(header, bad_id_size)
{
    static const char t[] = "JAVA PROFILE 1.0.2\0\0\0\0\2\0\0\0\0\0\0\0\0";
    run_result r = run_bytes(t, sizeof t - 1);
    expect_error(&r, HS_E_UNSUPPORTED, 19, "identifier size 2");
}

Test(header, truncated_everywhere)
{
    static const char t[] = "JAVA PROFILE 1.0.2\0\0\0\0\4\0\0\0\0\0\0\0\0";
    size_t n;

    for (n = 1; n < sizeof t - 1; n++) {
        run_result r = run_bytes(t, n);
        cr_expect_eq(r.status, HS_E_TRUNCATED, "%zu bytes: %s", n, r.err.message);
        cr_expect_eq(r.err.offset, n);
        run_result_free(&r);
    }
}

/* The header alone is a dump cut before its heap dump (no writer stops
 * there); with a profiler's CONTROL_SETTINGS record it is a valid (empty)
 * profile. */
Test(header, header_only_is_cut)
{
    static const char t[] = "JAVA PROFILE 1.0.2\0\0\0\0\4\0\0\0\0\0\0\0\0";
    static const char p[] = "JAVA PROFILE 1.0.2\0\0\0\0\4\0\0\0\0\0\0\0\0"
                            "\x0e\0\0\0\0\0\0\0\6\0\0\0\2\0\4";
    run_result r = run_bytes(t, sizeof t - 1);
    cr_expect_eq(r.status, HS_E_TRUNCATED, "%s", r.err.message);
    run_result_free(&r);
    r = run_bytes(p, sizeof p - 1);
    cr_expect_eq(r.status, HS_OK, "%s", r.err.message);
    cr_expect_eq(r.out_len, sizeof p - 1);
    run_result_free(&r);
}

/* Cut a dump with every tag at every byte: a truncation error whose offset
 * is where the data ends, never a crash, except where the cut falls between
 * two records, which leaves a shorter valid dump unless a heap dump was left
 * open (segments and no HEAP_DUMP_END: that too is a cut dump). */
Test(truncated, every_cut_of_every_tag)
{
    unsigned idsize;

    for (idsize = 4; idsize <= 8; idsize += 4) {
        dump d;
        size_t n, hdr, next_record;
        int heap_open = 0;
        dg_everything(&d, idsize, 1);
        hdr = strlen("JAVA PROFILE 1.0.3") + 1 + 12;
        next_record = hdr;
        for (n = hdr + 1; n < d.len; n++) {
            hs_options opt;
            run_result r;
            int boundary = 0;
            if (n > next_record + 9 - 1) {
                const uint8_t *p = d.p + next_record + 5;
                size_t len = (size_t)p[0] << 24 | (size_t)p[1] << 16 | (size_t)p[2] << 8 | p[3];
                if (n == next_record + 9 + len) {
                    boundary = 1;
                    if (d.p[next_record] == 0x1C || d.p[next_record] == 0x2C)
                        heap_open = d.p[next_record] == 0x1C;
                    next_record = n;
                }
            }
            memset(&opt, 0, sizeof opt);
            opt.repack = n & 1;
            r = run_filter(d.p, n, "none", &opt, n % 7);
            {
                /* zero-copy input ends the same way */
                run_result m = run_filter(d.p, n, "none", &opt, CHUNK_MAPPED);
                cr_expect_eq(m.status, r.status, "cut at %zu, in place: %s", n,
                             m.err.message);
                cr_expect_eq(m.err.offset, r.err.offset, "cut at %zu, in place", n);
                cr_expect_str_eq(m.err.message, r.err.message);
                cr_expect(m.out_len == r.out_len &&
                              (!m.out_len || memcmp(m.out, r.out, m.out_len) == 0),
                          "cut at %zu: in-place output differs", n);
                run_result_free(&m);
            }
            if (boundary && heap_open) {
                cr_expect_eq(r.status, HS_E_TRUNCATED, "cut at record boundary %zu", n);
                cr_expect_eq(r.err.offset, n, "cut at %zu: %s", n, r.err.message);
                cr_expect(strstr(r.err.message, "no HEAP_DUMP_END") != NULL, "%s",
                          r.err.message);
            } else if (boundary) {
                cr_expect_eq(r.status, HS_OK, "cut at record boundary %zu: %s", n,
                             r.err.message);
            } else {
                cr_expect_eq(r.status, HS_E_TRUNCATED, "cut at %zu: status %d %s", n,
                             r.status, r.err.message);
                cr_expect_eq(r.err.offset, n, "cut at %zu: %s", n, r.err.message);
                cr_expect(strstr(r.err.message, "input ends inside") != NULL, "%s",
                          r.err.message);
            }
            run_result_free(&r);
        }
        cr_expect_eq(next_record + 9, d.len, "the walk over record boundaries went astray");
        dg_free(&d);
    }
}

Test(truncated, names_the_record)
{
    dump d;
    run_result r;

    dg_init(&d, "JAVA PROFILE 1.0.2", 8);
    dg_string(&d, 1, "hello");
    dg_begin(&d, 0x1C);
    dg_prim_array(&d, 0x10, 8, 1000, 1);
    dg_end(&d);
    r = run_bytes(d.p, d.len - 500);
    expect_error(&r, HS_E_TRUNCATED, d.len - 500, "PRIMITIVE_ARRAY_DUMP sub-record of the "
                                                  "HEAP_DUMP_SEGMENT record at byte 53");
    dg_free(&d);
}

Test(malformed, primitive_array_element_type)
{
    dump d;
    run_result r;

    dg_init(&d, "JAVA PROFILE 1.0.2", 4);
    dg_begin(&d, 0x1C);
    dg_prim_array(&d, 0x10, 13, 4, 0);
    dg_end(&d);
    r = run_bytes(d.p, d.len);
    expect_error(&r, HS_E_MALFORMED, 53, "input byte 53: PRIMITIVE_ARRAY_DUMP has element type 13");
    dg_free(&d);
}

Test(malformed, unknown_subtag)
{
    dump d;
    run_result r;

    dg_init(&d, "JAVA PROFILE 1.0.2", 8);
    dg_begin(&d, 0x1C);
    dg_root(&d, 0xFF, 1);
    dg_u1(&d, 0x55);
    dg_end(&d);
    r = run_bytes(d.p, d.len);
    expect_error(&r, HS_E_MALFORMED, 31 + 9 + 9, "unknown heap sub-record tag 0x55");
    dg_free(&d);
}

Test(malformed, subrecord_past_record_end)
{
    dump d;
    run_result r;

    dg_init(&d, "JAVA PROFILE 1.0.2", 4);
    dg_begin(&d, 0x1C);
    dg_instance(&d, 0x10, 0x20, 100, 0);
    d.len -= 50; /* the record now ends inside the instance */
    dg_end(&d);
    dg_begin(&d, 0x2C);
    dg_end(&d);
    r = run_bytes(d.p, d.len);
    expect_error(&r, HS_E_MALFORMED, 40, "INSTANCE_DUMP runs past the end of its "
                                         "HEAP_DUMP_SEGMENT record");
    dg_free(&d);
}

Test(malformed, class_dump_field_type)
{
    dump d;
    run_result r;
    size_t at;

    dg_init(&d, "JAVA PROFILE 1.0.2", 4);
    dg_begin(&d, 0x1C);
    at = d.len;
    dg_class(&d, 0x10, 0, 1);
    dg_end(&d);
    /* first static field's type byte: after the fixed part, the constant
     * pool (2 entries: 3+4 and 3+4 bytes), the static count and its name */
    at += 1 + 7 * 4 + 8 + 2 + 7 + 7 + 2 + 4;
    d.p[at] = 3;
    r = run_bytes(d.p, d.len);
    expect_error(&r, HS_E_MALFORMED, at, "CLASS_DUMP static field entry 0 has type 3");
    dg_free(&d);
}

Test(malformed, fixed_record_length)
{
    dump d;
    run_result r;

    dg_init(&d, "JAVA PROFILE 1.0.2", 8);
    dg_begin(&d, 0x02); /* LOAD_CLASS with a body one byte short */
    dg_u4(&d, 1);
    dg_id(&d, 2);
    dg_u4(&d, 1);
    dg_u4(&d, 0);
    dg_u2(&d, 0);
    dg_u1(&d, 0);
    dg_end(&d);
    r = run_bytes(d.p, d.len);
    expect_error(&r, HS_E_MALFORMED, 31 + 5, "LOAD_CLASS record has length 23 (expected 24)");
    dg_free(&d);
}

Test(malformed, counted_record_length)
{
    dump d;
    run_result r;

    dg_init(&d, "JAVA PROFILE 1.0.2", 4);
    dg_begin(&d, 0x05); /* STACK_TRACE claiming 1000 frames, holding 1 */
    dg_u4(&d, 1);
    dg_u4(&d, 1);
    dg_u4(&d, 1000);
    dg_id(&d, 7);
    dg_end(&d);
    r = run_bytes(d.p, d.len);
    expect_error(&r, HS_E_MALFORMED, 31 + 5, "STACK_TRACE record has length 16");
    dg_free(&d);
}

/* The corpus's corrupt files: a stray byte shifts every header after it;
 * the error points at the stray byte, not at the record it garbles. */
Test(malformed, corpus_corrupt_files)
{
    static const struct {
        const char *name;
        uint64_t offset;
        const char *text;
    } cases[] = {
        {"../shared/corpus/bad-corrupt-length-1.hprof", 304367, "unknown record tag 0x73"},
        {"../shared/corpus/bad-corrupt-length-2.hprof", 1057472, "unknown record tag 0x65"},
    };
    size_t i;

    for (i = 0; i < 2; i++) {
        size_t len;
        uint8_t *in;
        run_result r;
        if (!need_shared(cases[i].name, "malformed: the corrupt corpus dumps' error offsets"))
            continue;
        in = load_file(cases[i].name, &len);
        cr_assert(in, "%s does not read", cases[i].name);
        r = run_filter(in, len, "none", NULL, 0);
        expect_error(&r, HS_E_MALFORMED, cases[i].offset, cases[i].text);
        r = run_filter(in, len, "default", NULL, 4096);
        expect_error(&r, HS_E_MALFORMED, cases[i].offset, cases[i].text);
        r = run_filter(in, len, "default", NULL, CHUNK_MAPPED);
        expect_error(&r, HS_E_MALFORMED, cases[i].offset, cases[i].text);
        free(in);
    }
}

Test(io, read_failure)
{
    dump d;
    mem_src src;
    mem_sink sink = {NULL, 0, 0, 0};
    hs_source s = {.read = mem_read, .ctx = &src};
    hs_sink k = {mem_write, &sink};
    hs_rules *rules = hs_rules_create(NULL);
    hs_filter *f = hs_filter_create(rules, NULL, NULL);

    dg_everything(&d, 8, 0);
    src = (mem_src){d.p, d.len, 0, 100, 250, NULL};
    cr_expect_eq(hs_filter_run(f, &s, &k), HS_E_READ);
    cr_expect(strstr(hs_filter_error(f)->message, "reading the input failed") != NULL);
    hs_filter_free(f);
    hs_rules_free(rules);
    free(sink.data);
    dg_free(&d);
}

Test(io, write_failure)
{
    dump d;
    mem_src src;
    mem_sink sink = {NULL, 0, 0, 1};
    hs_source s = {.read = mem_read, .ctx = &src};
    hs_sink k = {mem_write, &sink};
    hs_rules *rules = hs_rules_create(NULL);
    hs_filter *f = hs_filter_create(rules, NULL, NULL);

    dg_everything(&d, 8, 0);
    src = (mem_src){d.p, d.len, 0, 0, -1, NULL};
    cr_expect_eq(hs_filter_run(f, &s, &k), HS_E_WRITE);
    cr_expect(strstr(hs_filter_error(f)->message, "writing the output failed") != NULL);
    hs_filter_free(f);
    hs_rules_free(rules);
    free(sink.data);
    dg_free(&d);
}

/* One table of magic numbers (src/lib/magic.c) serves the filter's header
 * check and the input's detection: each foreign format is named the same
 * way by both, with the command that gets the dump out. Before the table,
 * the filter called xz "xz-compressed data" and knew no lz4 or 7-Zip. */
Test(not_hprof, foreign_formats_named_alike_by_filter_and_input)
{
    static const struct {
        const char *bytes;
        size_t len;
        const char *what, *how;
    } t[] = {
        {"PK\x03\x04 member", 11, "a zip archive", "unzip -p"},
        {"\xfd" "7zXZ\x00 block", 12, "xz data", "xz -dc"},
        {"BZh91AY&SY", 10, "bzip2 data", "bzip2 -dc"},
        {"\x04\x22\x4d\x18 frame", 10, "lz4 data", "lz4 -dc"},
        {"7z\xbc\xaf\x27\x1c then", 11, "a 7-Zip archive", "7z x -so"},
    };
    size_t i;

    for (i = 0; i < sizeof t / sizeof t[0]; i++) {
        run_result r = run_bytes(t[i].bytes, t[i].len);
        hs_error err;
        hs_input *in;

        cr_expect_eq(r.status, HS_E_UNSUPPORTED, "%s: status %d", t[i].what, r.status);
        cr_expect(strstr(r.err.message, t[i].what) && strstr(r.err.message, t[i].how),
                  "filter: '%s' lacks '%s' or '%s'", r.err.message, t[i].what, t[i].how);
        run_result_free(&r);
        memset(&err, 0, sizeof err);
        in = hs_input_open_memory(t[i].bytes, t[i].len, &err);
        cr_expect_null(in, "%s opened", t[i].what);
        hs_input_close(in);
        cr_expect_eq(err.code, HS_E_UNSUPPORTED, "%s: input status %d", t[i].what, err.code);
        cr_expect(strstr(err.message, t[i].what) && strstr(err.message, t[i].how),
                  "input: '%s' lacks '%s' or '%s'", err.message, t[i].what, t[i].how);
    }
}

/* The filter given gzip or zstd of its own source says which call reads
 * it, rather than naming a command. */
Test(not_hprof, compressed_source_names_the_input_calls)
{
    static const uint8_t gz[] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 1, 2, 3};
    run_result r = run_bytes(gz, sizeof gz);

    cr_expect(strstr(r.err.message, "gzip data") && strstr(r.err.message, "hs_input_open"), "%s",
              r.err.message);
    run_result_free(&r);
}
