/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_verify.c - issue #50: the audit's verifier (verify.c), on dumps
 * built here record by record: each rule of its table (structure, kept on
 * purpose, data) and each container case, and the errors that are never
 * a verdict (truncated, malformed, past the memory cap).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "helpers.h"
#include "verify.h"

/* ---- building dumps ---------------------------------------------------- */

#define STR_CLASS 0x10
#define STR_FIELD 0x11
#define STR_APP 0x12
#define CLS 0x50

/* A CLASS_DUMP with `n` instance fields (names[i], types[i]), no statics
 * and no constant pool, `loader` and the two reserved ids given. */
static void class_dump(dump *d, uint64_t id, uint64_t super, uint64_t loader, uint64_t reserved,
                       unsigned n, const uint64_t *names, const unsigned *types)
{
    unsigned i;

    dg_u1(d, 0x20);
    dg_id(d, id);
    dg_u4(d, 1);
    dg_id(d, super);
    dg_id(d, loader);
    dg_id(d, 0);
    dg_id(d, 0);
    dg_id(d, reserved);
    dg_id(d, 0);
    dg_u4(d, 0);
    dg_u2(d, 0);
    dg_u2(d, 0);
    dg_u2(d, (unsigned)n);
    for (i = 0; i < n; i++) {
        dg_id(d, names[i]);
        dg_u1(d, types[i]);
    }
}

/* An instance of `cls` with `n` field bytes, `v` in its first byte. */
static void instance(dump *d, uint64_t id, uint64_t cls, unsigned n, uint8_t v)
{
    unsigned i;

    dg_u1(d, 0x21);
    dg_id(d, id);
    dg_u4(d, 1);
    dg_id(d, cls);
    dg_u4(d, n);
    for (i = 0; i < n; i++)
        dg_u1(d, i ? 0 : v);
}

/* A dump of one class `name` with one field `field` of `type` (loader
 * `loader`) and one instance whose first field byte is `v`. */
static void one_field(dump *d, const char *name, const char *field, unsigned type,
                      uint64_t loader, uint8_t v)
{
    static const unsigned sizes[12] = {0, 0, 8, 0, 1, 2, 4, 8, 1, 2, 4, 8};
    uint64_t names[1] = {STR_FIELD};
    unsigned types[1];

    types[0] = type;
    dg_init(d, "JAVA PROFILE 1.0.2", 8);
    dg_string(d, STR_CLASS, name);
    dg_string(d, STR_FIELD, field);
    dg_load_class(d, 1, CLS, STR_CLASS);
    dg_begin(d, 0x1C);
    class_dump(d, CLS, 0, loader, 0, 1, names, types);
    instance(d, 0x1000, CLS, sizes[type], v);
    dg_end(d);
    dg_begin(d, 0x2C);
    dg_end(d);
}

/* ---- running the verifier ------------------------------------------------ */

static hs_verify_result verify(const uint8_t *p, size_t n, uint64_t max_held, size_t chunk)
{
    mem_src src = {p, n, 0, chunk, -1, NULL};
    hs_verify_result r;

    hs_verify_run(mem_read, &src, max_held, &r);
    return r;
}

static hs_verify_result verify_dump(dump *d)
{
    return verify(d->p, d->len, 0, 7); /* small reads: every split */
}

/* The row named `name`, or NULL. */
static const hs_finding *found(const hs_verify_result *r, const char *name)
{
    size_t i;

    for (i = 0; i < r->n_findings; i++)
        if (strcmp(r->findings[i].name, name) == 0)
            return &r->findings[i];
    return NULL;
}

static void expect_clean(hs_verify_result *r, const char *what)
{
    cr_assert_eq(r->status, HS_OK, "%s: %s", what, r->err.message);
    cr_assert(r->clean, "%s: not clean (%zu findings, first %s)", what, r->n_findings,
              r->n_findings ? r->findings[0].name : "-");
    cr_assert_eq(r->n_findings, 0, "%s", what);
}

static void expect_data(hs_verify_result *r, const char *name, const char *what)
{
    cr_assert_eq(r->status, HS_OK, "%s: %s", what, r->err.message);
    cr_assert(!r->clean, "%s: clean", what);
    cr_assert(found(r, name), "%s: no finding %s (first: %s)", what, name,
              r->n_findings ? r->findings[0].name : "-");
}

/* ---- the HPROF rules ------------------------------------------------------- */

Test(verify, zero_values_and_used_names_are_clean)
{
    dump d;
    hs_verify_result r;

    one_field(&d, "com/example/App", "count", 10, 0, 0);
    r = verify_dump(&d);
    expect_clean(&r, "all zero");
    cr_assert_eq(r.hprof_version, 2);
    cr_assert_eq(r.instances, 1);
    cr_assert_eq(r.file_sha.bytes, d.len);
    cr_assert_str_eq(r.file_sha.hex, r.hprof_sha.hex);
    hs_verify_result_free(&r);
    dg_free(&d);
}

Test(verify, a_nonzero_field_is_data_named_by_class_and_field)
{
    dump d;
    hs_verify_result r;
    const hs_finding *f;

    one_field(&d, "com/example/App", "pin", 10, 0, 7);
    r = verify_dump(&d);
    expect_data(&r, "com.example.App.pin", "an int field");
    f = found(&r, "com.example.App.pin");
    cr_assert_eq(f->kind, HS_FIND_FIELD);
    cr_assert_eq(f->count, 1);
    cr_assert_eq(f->bytes, 1);
    cr_assert_eq(r.n.nonzero_field_bytes, 1);
    hs_verify_result_free(&r);
    dg_free(&d);
}

Test(verify, string_coder_is_kept_only_where_anchored)
{
    dump d;
    hs_verify_result r;

    /* the real one: bootstrap loader, byte, one class of the name */
    one_field(&d, "java/lang/String", "coder", 8, 0, 1);
    r = verify_dump(&d);
    expect_clean(&r, "String.coder");
    cr_assert_eq(r.n.kept_bytes, 1);
    hs_verify_result_free(&r);
    dg_free(&d);
    /* a class of that name from another loader */
    one_field(&d, "java/lang/String", "coder", 8, 0x777, 1);
    r = verify_dump(&d);
    expect_data(&r, "java.lang.String.coder", "a loader's String");
    hs_verify_result_free(&r);
    dg_free(&d);
    /* declared int, or long */
    one_field(&d, "java/lang/String", "coder", 10, 0, 1);
    r = verify_dump(&d);
    expect_data(&r, "java.lang.String.coder", "an int coder");
    hs_verify_result_free(&r);
    dg_free(&d);
    one_field(&d, "java/lang/String", "coder", 11, 0, 1);
    r = verify_dump(&d);
    expect_data(&r, "java.lang.String.coder", "a long coder");
    hs_verify_result_free(&r);
    dg_free(&d);
}

Test(verify, two_classes_named_java_lang_string_keep_nothing)
{
    dump d;
    hs_verify_result r;

    one_field(&d, "java/lang/String", "coder", 8, 0, 1);
    dg_load_class(&d, 2, 0x60, STR_CLASS); /* after the heap: the whole file counts */
    r = verify_dump(&d);
    expect_data(&r, "java.lang.String.coder", "a second java/lang/String");
    hs_verify_result_free(&r);
    dg_free(&d);
}

Test(verify, unsafe_offsets_are_kept_as_static_longs_only)
{
    dump d;
    hs_verify_result r;
    unsigned pass;

    for (pass = 0; pass < 2; pass++) {
        dg_init(&d, "JAVA PROFILE 1.0.2", 8);
        dg_string(&d, STR_CLASS, "java/util/concurrent/FutureTask");
        dg_string(&d, STR_FIELD, "runnerOffset");
        dg_load_class(&d, 1, CLS, STR_CLASS);
        dg_begin(&d, 0x1C);
        dg_u1(&d, 0x20);
        dg_id(&d, CLS);
        dg_u4(&d, 1);
        dg_id(&d, 0);
        dg_id(&d, 0);
        dg_id(&d, 0);
        dg_id(&d, 0);
        dg_id(&d, 0);
        dg_id(&d, 0);
        dg_u4(&d, 0);
        dg_u2(&d, 0);
        dg_u2(&d, 1); /* the static: long (pass 0) or int (pass 1) */
        dg_id(&d, STR_FIELD);
        dg_u1(&d, pass ? 10 : 11);
        if (pass)
            dg_u4(&d, 24);
        else
            dg_u8(&d, 24);
        dg_u2(&d, 0);
        dg_end(&d);
        r = verify_dump(&d);
        if (pass)
            expect_data(&r, "java.util.concurrent.FutureTask.runnerOffset", "an int offset");
        else
            expect_clean(&r, "FutureTask.runnerOffset");
        hs_verify_result_free(&r);
        dg_free(&d);
    }
}

Test(verify, a_class_dumped_twice_with_two_layouts_is_malformed)
{
    dump d;
    hs_verify_result r;
    uint64_t names[2] = {STR_FIELD, STR_FIELD};
    unsigned refs[2] = {2, 2}, longs[2] = {11, 2};
    size_t second;

    dg_init(&d, "JAVA PROFILE 1.0.2", 8);
    dg_string(&d, STR_CLASS, "com/example/Twice");
    dg_string(&d, STR_FIELD, "f");
    dg_load_class(&d, 1, CLS, STR_CLASS);
    dg_begin(&d, 0x1C);
    class_dump(&d, CLS, 0, 0, 0, 2, names, refs);
    second = d.len;
    class_dump(&d, CLS, 0, 0, 0, 2, names, longs);
    dg_end(&d);
    r = verify_dump(&d);
    cr_assert_eq(r.status, HS_E_MALFORMED, "%s", r.err.message);
    cr_assert(strstr(r.err.message, "dumped twice"), "%s", r.err.message);
    {
        char at[32];
        snprintf(at, sizeof at, "%zu", second);
        cr_assert(strstr(r.err.message, at), "%s (second at %s)", r.err.message, at);
    }
    hs_verify_result_free(&r);
    dg_free(&d);
    /* the same layout twice is fine */
    dg_init(&d, "JAVA PROFILE 1.0.2", 8);
    dg_string(&d, STR_CLASS, "com/example/Twice");
    dg_string(&d, STR_FIELD, "f");
    dg_load_class(&d, 1, CLS, STR_CLASS);
    dg_begin(&d, 0x1C);
    class_dump(&d, CLS, 0, 0, 0, 2, names, refs);
    class_dump(&d, CLS, 0, 0, 0, 2, names, refs);
    dg_end(&d);
    r = verify_dump(&d);
    expect_clean(&r, "the same layout twice");
    hs_verify_result_free(&r);
    dg_free(&d);
}

Test(verify, reserved_ids_are_data)
{
    dump d;
    hs_verify_result r;
    uint64_t names[1] = {STR_FIELD};
    unsigned types[1] = {2};

    dg_init(&d, "JAVA PROFILE 1.0.2", 8);
    dg_string(&d, STR_CLASS, "com/example/R");
    dg_string(&d, STR_FIELD, "f");
    dg_load_class(&d, 1, CLS, STR_CLASS);
    dg_begin(&d, 0x1C);
    class_dump(&d, CLS, 0, 0, 0x5ec2e7, 1, names, types);
    dg_end(&d);
    r = verify_dump(&d);
    expect_data(&r, "com.example.R (CLASS_DUMP reserved ids)", "reserved ids");
    cr_assert_eq(r.n.reserved_ids, 1);
    hs_verify_result_free(&r);
    dg_free(&d);
}

/* A dump where an unused STRING (0x99, "secret") stands at `where`: 0
 * after LOAD_CLASS, 1 between two heap segments, 2 after the heap dump. */
static void unused_string_at(dump *d, int where)
{
    dg_init(d, "JAVA PROFILE 1.0.2", 8);
    dg_string(d, STR_CLASS, "com/example/App");
    dg_load_class(d, 1, CLS, STR_CLASS);
    if (where == 0)
        dg_string(d, 0x99, "secret");
    dg_begin(d, 0x1C);
    dg_prim_array(d, 0x2000, 8, 4, 0);
    dg_end(d);
    if (where == 1)
        dg_string(d, 0x99, "secret");
    dg_begin(d, 0x1C);
    dg_prim_array(d, 0x3000, 8, 4, 0);
    dg_end(d);
    dg_begin(d, 0x2C);
    dg_end(d);
    if (where == 2)
        dg_string(d, 0x99, "secret");
}

Test(verify, an_unused_string_anywhere_is_data)
{
    int where;

    for (where = 0; where < 3; where++) {
        dump d;
        hs_verify_result r;
        unused_string_at(&d, where);
        r = verify_dump(&d);
        expect_data(&r, "STRING 0x99", "an unused STRING");
        cr_assert_eq(r.n.unused_strings, 1, "where %d", where);
        cr_assert_eq(r.n.unused_string_bytes, 6);
        hs_verify_result_free(&r);
        dg_free(&d);
    }
}

Test(verify, a_string_used_before_it_comes_is_a_name)
{
    dump d;
    hs_verify_result r;

    dg_init(&d, "JAVA PROFILE 1.0.3", 4);
    dg_load_class(&d, 1, CLS, STR_CLASS); /* its name comes after */
    dg_begin(&d, 0x1C);
    dg_heap_info(&d, 'A', STR_APP);
    dg_end(&d);
    dg_string(&d, STR_CLASS, "com.example.App");
    dg_string(&d, STR_APP, "app");
    r = verify_dump(&d);
    expect_clean(&r, "uses before the STRINGs");
    hs_verify_result_free(&r);
    dg_free(&d);
}

Test(verify, an_instance_before_its_class_is_settled_at_the_end)
{
    uint64_t names[1] = {STR_FIELD};
    unsigned types[1] = {10};
    uint8_t v;

    for (v = 0; v < 2; v++) {
        dump d;
        hs_verify_result r;
        dg_init(&d, "JAVA PROFILE 1.0.3", 4);
        dg_string(&d, STR_CLASS, "com.example.Late");
        dg_string(&d, STR_FIELD, "n");
        dg_load_class(&d, 1, CLS, STR_CLASS);
        dg_begin(&d, 0x1C);
        instance(&d, 0x1000, CLS, 4, v);
        dg_end(&d);
        dg_begin(&d, 0x1C);
        class_dump(&d, CLS, 0, 0, 0, 1, names, types);
        dg_end(&d);
        r = verify_dump(&d);
        if (v)
            expect_data(&r, "com.example.Late.n", "a late class, data");
        else
            expect_clean(&r, "a late class, zeros");
        hs_verify_result_free(&r);
        dg_free(&d);
    }
}

Test(verify, an_instance_whose_class_never_comes_is_data)
{
    dump d;
    hs_verify_result r;

    dg_init(&d, "JAVA PROFILE 1.0.3", 4);
    dg_string(&d, STR_CLASS, "com.example.Never");
    dg_load_class(&d, 1, CLS, STR_CLASS);
    dg_begin(&d, 0x1C);
    instance(&d, 0x1000, CLS, 8, 3);
    dg_end(&d);
    r = verify_dump(&d);
    expect_data(&r, "com.example.Never (no CLASS_DUMP for its fields)", "no class");
    hs_verify_result_free(&r);
    dg_free(&d);
}

Test(verify, arrays_unknown_records_and_trailing_bytes)
{
    dump d;
    hs_verify_result r;

    dg_one_array(&d, 5, 3, 'x');
    r = verify_dump(&d);
    expect_data(&r, "char[]", "a char[]");
    cr_assert_eq(r.n.nonzero_array_bytes, 6); /* 3 chars of 2 bytes */
    hs_verify_result_free(&r);
    dg_free(&d);

    unused_string_at(&d, 2);
    d.len -= 9 + 8 + 6; /* drop the STRING: a clean dump */
    dg_begin(&d, 0x7f);
    dg_bytes(&d, "hidden", 6);
    dg_end(&d);
    r = verify_dump(&d);
    expect_data(&r, "record tag 0x7f", "an unknown record");
    hs_verify_result_free(&r);
    /* a few bytes after the last record: cut short, never clean */
    dg_bytes(&d, "xyz", 3);
    r = verify_dump(&d);
    cr_assert_eq(r.status, HS_E_TRUNCATED, "%s", r.err.message);
    hs_verify_result_free(&r);
    dg_free(&d);
}

Test(verify, truncated_malformed_and_capped_are_errors)
{
    dump d;
    hs_verify_result r;

    dg_one_array(&d, 8, 100, 0);
    r = verify(d.p, d.len - 10, 0, 0);
    cr_assert_eq(r.status, HS_E_TRUNCATED, "%s", r.err.message);
    cr_assert(strstr(r.err.message, "HPROF byte"), "%s", r.err.message);
    cr_assert(!r.clean);
    hs_verify_result_free(&r);
    dg_free(&d);

    dg_init(&d, "JAVA PROFILE 1.0.2", 8);
    dg_begin(&d, 0x1C);
    dg_u1(&d, 0x77); /* no such sub-record */
    dg_end(&d);
    r = verify_dump(&d);
    cr_assert_eq(r.status, HS_E_MALFORMED, "%s", r.err.message);
    hs_verify_result_free(&r);
    dg_free(&d);

    r = verify((const uint8_t *)"PK\3\4 not a dump", 16, 0, 0);
    cr_assert_eq(r.status, HS_E_UNSUPPORTED, "%s", r.err.message);
    hs_verify_result_free(&r);

    /* a cap too small for the names: a limit, never a verdict */
    unused_string_at(&d, 0);
    r = verify(d.p, d.len, 4096, 0);
    cr_assert_eq(r.status, HS_E_LIMIT, "%s", r.err.message);
    cr_assert(!r.clean);
    hs_verify_result_free(&r);
    dg_free(&d);
}

/* ---- the container ----------------------------------------------------------- */

/* A gzip member of `p[0, n)` whose header has `flags` and the fields
 * given (NULL: none), from zlib's member (10-byte header, no fields). */
static void gz_member(dump *out, const uint8_t *p, size_t n, const char *name,
                      const char *comment, const char *extra)
{
    size_t len;
    uint8_t *z = gzip_bytes(p, n, &len);
    unsigned flags = (extra ? 4 : 0) | (name ? 8 : 0) | (comment ? 16 : 0);

    cr_assert(z && len > 10 && z[3] == 0);
    dg_bytes(out, z, 3);
    dg_u1(out, flags);
    dg_bytes(out, z + 4, 6);
    if (extra) {
        dg_u1(out, (unsigned)strlen(extra));
        dg_u1(out, 0);
        dg_bytes(out, extra, strlen(extra));
    }
    if (name)
        dg_bytes(out, name, strlen(name) + 1);
    if (comment)
        dg_bytes(out, comment, strlen(comment) + 1);
    dg_bytes(out, z + 10, len - 10);
    free(z);
}

static void clean_dump(dump *d)
{
    dg_one_array(d, 8, 64, 0);
}

Test(verify, gzip_header_fields)
{
    static const struct {
        const char *name, *comment, *extra, *finding;
    } cases[] = {
        {NULL, NULL, NULL, NULL},
        {"card.txt", NULL, NULL, "gzip FNAME"},
        {NULL, "4111 1111 1111 1111", NULL, "gzip FCOMMENT"},
        {NULL, NULL, "AB\2secret", "gzip FEXTRA"},
        {NULL, "HPROF BLOCKSIZE=1048576", NULL, NULL},
        {NULL, "HPROF BLOCKSIZE=1048577", NULL, "gzip FCOMMENT"},
        {NULL, "HPROF BLOCKSIZE=1048576 ", NULL, "gzip FCOMMENT"},
    };
    size_t i;
    dump d;

    clean_dump(&d);
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        dump g;
        hs_verify_result r;
        memset(&g, 0, sizeof g);
        gz_member(&g, d.p, d.len, cases[i].name, cases[i].comment, cases[i].extra);
        r = verify(g.p, g.len, 0, 5);
        if (cases[i].finding)
            expect_data(&r, cases[i].finding, cases[i].finding);
        else
            expect_clean(&r, "gzip");
        cr_assert_eq(r.compression, HS_COMPRESS_GZIP);
        cr_assert_eq(r.hprof_sha.bytes, d.len);
        hs_verify_result_free(&r);
        free(g.p);
    }
    dg_free(&d);
}

Test(verify, gzip_members_comment_only_first_trailing_and_cut)
{
    dump d, g;
    hs_verify_result r;
    size_t n;

    clean_dump(&d);
    memset(&g, 0, sizeof g);
    gz_member(&g, d.p, 40, NULL, "HPROF BLOCKSIZE=1048576", NULL);
    gz_member(&g, d.p + 40, d.len - 40, NULL, NULL, NULL);
    r = verify(g.p, g.len, 0, 3);
    expect_clean(&r, "two members");
    hs_verify_result_free(&r);
    /* an empty member with a comment: it counts */
    n = g.len;
    gz_member(&g, d.p, 0, NULL, "HPROF BLOCKSIZE=1048576", NULL);
    r = verify(g.p, g.len, 0, 0);
    expect_data(&r, "gzip FCOMMENT", "an empty member's comment");
    hs_verify_result_free(&r);
    g.len = n; /* the empty member dropped */
    dg_bytes(&g, "tail", 4);
    r = verify(g.p, g.len, 0, 0);
    expect_data(&r, "gzip trailing bytes", "bytes after the members");
    hs_verify_result_free(&r);
    r = verify(g.p, g.len - 30, 0, 0);
    cr_assert_eq(r.status, HS_E_TRUNCATED, "%s", r.err.message);
    hs_verify_result_free(&r);
    g.p[g.len - 4 - 6] ^= 1; /* the last member's CRC */
    r = verify(g.p, g.len - 4, 0, 0);
    cr_assert_eq(r.status, HS_E_MALFORMED, "%s", r.err.message);
    hs_verify_result_free(&r);
    free(g.p);
    dg_free(&d);
}

Test(verify, zstd_frames_skippable_trailing_and_cut)
{
    dump d, z;
    hs_verify_result r;
    size_t cap, n;
    uint8_t *buf;

    clean_dump(&d);
    cap = ZSTD_compressBound(d.len);
    buf = malloc(cap);
    n = ZSTD_compress(buf, cap, d.p, 50, 3);
    memset(&z, 0, sizeof z);
    dg_bytes(&z, buf, n);
    n = ZSTD_compress(buf, cap, d.p + 50, d.len - 50, 3);
    dg_bytes(&z, buf, n);
    r = verify(z.p, z.len, 0, 3);
    expect_clean(&r, "two zstd frames");
    cr_assert_eq(r.compression, HS_COMPRESS_ZSTD);
    hs_verify_result_free(&r);
    r = verify(z.p, z.len - 3, 0, 0);
    cr_assert_eq(r.status, HS_E_TRUNCATED, "%s", r.err.message);
    hs_verify_result_free(&r);
    dg_bytes(&z, "\x5a\x2a\x4d\x18\x03\x00\x00\x00key", 11);
    r = verify(z.p, z.len, 0, 0);
    expect_data(&r, "zstd skippable frame", "a skippable frame");
    hs_verify_result_free(&r);
    z.len -= 11;
    dg_bytes(&z, "more", 4);
    r = verify(z.p, z.len, 0, 0);
    expect_data(&r, "zstd trailing bytes", "bytes after the frames");
    hs_verify_result_free(&r);
    free(z.p);
    free(buf);
    dg_free(&d);
}
