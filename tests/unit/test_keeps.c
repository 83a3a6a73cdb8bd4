/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_keeps.c - issue #50, the filter's side: what the privacy preset
 * keeps on purpose (String.coder, four Unsafe offsets) applies to the real
 * JDK field only (its declared type, the one class of that name, loaded by
 * the bootstrap loader), never through a mapping; a class dumped twice
 * with two layouts is an error; CLASS_DUMP's reserved ids are zeroed.
 * Each dump is built by hand, with a value planted where it must not
 * survive.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

#define CLASS 0x400
#define OTHER 0x410 /* a second class of the same name */
#define OBJ 0x500

/* The planted value: as many of these bytes as the field is wide. */
static const uint8_t planted[8] = {0xe7, 0xc1, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7};

static unsigned width(unsigned type)
{
    return type == 4 || type == 8 ? 1 : type == 5 || type == 9 ? 2 : type == 6 || type == 10 ? 4 : 8;
}

typedef struct {
    const char *cname;  /* the class's name, HotSpot's spelling */
    const char *fname;  /* its one field's */
    unsigned type;      /* the field's basic type */
    int is_static;      /* a static field, not an instance field */
    uint64_t loader;    /* the CLASS_DUMP's class loader id */
    uint64_t reserved;  /* what both reserved ids hold */
    int second;         /* 1: a second class of the name (OTHER) loaded before
                           the heap dump, 2: after it */
} shape;

/* CLASS_DUMP of `id` per `s`, its one field named by STRING 2. */
static void class_dump(dump *d, uint64_t id, const shape *s)
{
    const unsigned w = width(s->type);

    dg_u1(d, 0x20);
    dg_id(d, id);
    dg_u4(d, 1);
    dg_id(d, 0);         /* super */
    dg_id(d, s->loader); /* loader */
    dg_id(d, 0);         /* signers */
    dg_id(d, 0);         /* protection domain */
    dg_id(d, s->reserved);
    dg_id(d, s->reserved);
    dg_u4(d, s->is_static ? 0 : w);
    dg_u2(d, 0); /* constant pool */
    if (s->is_static) {
        dg_u2(d, 1);
        dg_id(d, 2);
        dg_u1(d, s->type);
        dg_bytes(d, planted, w);
        dg_u2(d, 0);
    } else {
        dg_u2(d, 0);
        dg_u2(d, 1);
        dg_id(d, 2);
        dg_u1(d, s->type);
    }
}

/* An instance `obj` of `cls` whose field holds the planted value. */
static void instance(dump *d, uint64_t obj, uint64_t cls, const shape *s)
{
    const unsigned w = s->is_static ? 0 : width(s->type);

    dg_u1(d, 0x21);
    dg_id(d, obj);
    dg_u4(d, 1);
    dg_id(d, cls);
    dg_u4(d, w);
    dg_bytes(d, planted, w);
}

/* A HotSpot dump (1.0.2, 8-byte ids) of class CLASS per `s` and one
 * instance OBJ; OTHER (same name, same shape) and its instance too when
 * s->second. */
static void build(dump *d, const shape *s)
{
    dg_init(d, "JAVA PROFILE 1.0.2", 8);
    dg_string(d, 1, s->cname);
    dg_string(d, 2, s->fname);
    dg_load_class(d, 1, CLASS, 1);
    if (s->second == 1)
        dg_load_class(d, 2, OTHER, 1);
    dg_begin(d, 0x1C);
    class_dump(d, CLASS, s);
    instance(d, OBJ, CLASS, s);
    dg_end(d);
    if (s->second == 2)
        dg_load_class(d, 2, OTHER, 1);
    if (s->second) {
        dg_begin(d, 0x1C);
        class_dump(d, OTHER, s);
        instance(d, OBJ + 8, OTHER, s);
        dg_end(d);
    }
    dg_begin(d, 0x2C);
    dg_end(d);
}

/* True when the output still holds the planted value of `type`'s width. */
static int holds(const run_result *r, const shape *s)
{
    const unsigned w = width(s->type);
    size_t i;

    for (i = 0; i + w <= r->out_len; i++)
        if (memcmp(r->out + i, planted, w) == 0 && (w > 1 || r->out[i] == planted[0]))
            return 1;
    return 0;
}

/* The control: the real String.coder (a byte, bootstrap loader, one class)
 * and a real offset (static long) are kept, at every window. */
Test(keeps, the_real_fields_are_kept)
{
    static const shape real[] = {
        {"java/lang/String", "coder", 8, 0, 0, 0, 0},
        {"java/util/concurrent/FutureTask", "runnerOffset", 11, 1, 0, 0, 0}};
    static const size_t chunks[] = {0, 1, 7, CHUNK_MAPPED};
    size_t k, c;

    for (k = 0; k < sizeof real / sizeof *real; k++)
        for (c = 0; c < sizeof chunks / sizeof *chunks; c++) {
            dump d;
            run_result r;
            build(&d, &real[k]);
            r = run_filter(d.p, d.len, "privacy", NULL, chunks[c]);
            cr_assert_eq(r.status, HS_OK, "%s", r.err.message);
            cr_expect(holds(&r, &real[k]), "%s.%s was not kept (chunk %zu)", real[k].cname,
                      real[k].fname, chunks[c]);
            run_result_free(&r);
            dg_free(&d);
        }
}

/* Issue #50: what only looks like the real field is data: another type
 * (a long coder, an instance offset, an int offset), a class another
 * loader defined, and two classes of the name. */
Test(keeps, only_the_real_field_is_kept)
{
    static const struct {
        shape s;
        const char *why;
    } fake[] = {
        {{"java/lang/String", "coder", 11, 0, 0, 0, 0}, "a long coder"},
        {{"java/lang/String", "coder", 8, 1, 0, 0, 0}, "a static coder"},
        {{"java/lang/String", "coder", 8, 0, 0x7700, 0, 0}, "an app loader's String"},
        {{"java/lang/String", "coder", 8, 0, 0, 0, 1}, "two classes named String"},
        {{"java/util/concurrent/FutureTask", "runnerOffset", 11, 0, 0, 0, 0},
         "an instance runnerOffset"},
        {{"java/util/concurrent/FutureTask", "runnerOffset", 10, 1, 0, 0, 0},
         "an int runnerOffset"},
        {{"java/util/concurrent/FutureTask", "runnerOffset", 11, 1, 0x7700, 0, 0},
         "an app loader's FutureTask"},
    };
    size_t k;

    for (k = 0; k < sizeof fake / sizeof *fake; k++) {
        hs_options opt = {.count_nonzero = 1};
        dump d;
        run_result r;
        build(&d, &fake[k].s);
        r = run_filter(d.p, d.len, "privacy", &opt, 0);
        cr_assert_eq(r.status, HS_OK, "%s: %s", fake[k].why, r.err.message);
        cr_expect(!holds(&r, &fake[k].s), "%s: its value was kept", fake[k].why);
        cr_expect_gt(r.st.nonzero_field_bytes, 0, "%s: not counted as data", fake[k].why);
        run_result_free(&r);
        dg_free(&d);
    }
}

/* A second class of the name after a value of the first went out: one
 * pass cannot take it back, so the run fails (and says why). */
Test(keeps, a_second_class_after_a_kept_value_fails)
{
    static const shape s = {"java/lang/String", "coder", 8, 0, 0, 0, 2};
    dump d;
    run_result r;

    build(&d, &s);
    r = run_filter(d.p, d.len, "privacy", NULL, 0);
    cr_expect_eq(r.status, HS_E_MALFORMED);
    cr_expect(strstr(r.err.message, "second class") != NULL, "%s", r.err.message);
    run_result_free(&r);
    dg_free(&d);
}

/* A mapping cannot widen the keep list: keeps go by the dump's own names.
 * The app's class a/b is renamed com.example.Keep and its field x count,
 * and the rules keep com.example.Keep.count: the app's x is not kept; a
 * keep of a.b.x (its name in the dump) still is. */
Test(keeps, keeps_go_by_the_names_before_the_mapping)
{
    static const char map[] = "com.example.Keep -> a.b:\n    int count -> x\n";
    static const shape s = {"a/b", "x", 10, 0, 0x7700, 0, 0};
    static const char *const text[] = {"preset privacy\nkeep-field com.example.Keep.count int\n",
                                       "preset privacy\nkeep-field a.b.x int\n"};
    int k;

    for (k = 0; k < 2; k++) {
        hs_rules *rules = hs_rules_create(NULL);
        hs_error e;
        dump d;
        run_result r;
        build(&d, &s);
        cr_assert_eq(hs_rules_parse(rules, text[k], strlen(text[k]), "t", &e), HS_OK);
        cr_assert_eq(hs_rules_mapping(rules, map, sizeof map - 1, "m.map", &e), HS_OK, "%s",
                     e.message);
        r = run_with_rules(d.p, d.len, rules, NULL, 0);
        cr_assert_eq(r.status, HS_OK, "%s", r.err.message);
        cr_expect_gt(r.st.mapping_fields_renamed, 0, "the mapping renamed no field");
        cr_expect_eq(holds(&r, &s), k == 1, "%s", text[k]);
        run_result_free(&r);
        hs_rules_free(rules);
        dg_free(&d);
    }
}

/* Under rules that remove values, a mapping line renaming a class into
 * the JDK's packages is refused, naming the file and line: when it is
 * taken, and when values come to be removed after it was. */
Test(keeps, a_mapping_into_the_jdk_is_refused)
{
    static const char map[] = "# evil\ncom.example.Ok -> a.a:\n"
                              "java.lang.String -> a.b:\n    byte coder -> x\n";
    hs_rules *rules = hs_rules_create(NULL);
    hs_error e;

    memset(&e, 0, sizeof e);
    cr_assert_eq(hs_rules_preset(rules, "privacy", NULL), HS_OK);
    cr_expect_eq(hs_rules_mapping(rules, map, sizeof map - 1, "evil.map", &e), HS_E_USAGE);
    cr_expect(strstr(e.message, "evil.map:3:") != NULL, "%s", e.message);
    cr_expect(strstr(e.message, "java.lang.String") != NULL, "%s", e.message);
    hs_rules_free(rules);

    /* taken under preset none, then values removed: the filter refuses */
    rules = hs_rules_create(NULL);
    cr_assert_eq(hs_rules_preset(rules, "none", NULL), HS_OK);
    cr_assert_eq(hs_rules_mapping(rules, map, sizeof map - 1, "evil.map", &e), HS_OK);
    cr_assert_eq(hs_rules_parse(rules, "fields zero\n", 12, "t", &e), HS_OK);
    memset(&e, 0, sizeof e);
    cr_expect_null(hs_filter_create_ex(rules, NULL, 0, NULL, &e));
    cr_expect_eq(e.code, HS_E_USAGE);
    cr_expect(strstr(e.message, "evil.map:3:") != NULL, "%s", e.message);
    hs_rules_free(rules);

    /* a JDK class's line that renames nothing, as ProGuard lists kept
     * classes, is fine */
    rules = hs_rules_create(NULL);
    cr_assert_eq(hs_rules_preset(rules, "privacy", NULL), HS_OK);
    cr_expect_eq(hs_rules_mapping(rules, "java.lang.Foo -> java.lang.Foo:\n", 32, "ok.map", &e),
                 HS_OK, "%s", e.message);
    hs_rules_free(rules);
}

/* Issue #50: a class dumped twice with two layouts is malformed, both
 * CLASS_DUMPs named; twice with one layout is fine. */
Test(keeps, a_class_dumped_twice_with_two_layouts)
{
    static const shape a = {"p/C", "f", 11, 0, 0, 0, 0}, b = {"p/C", "f", 2, 0, 0, 0, 0};
    int same;

    for (same = 0; same < 2; same++) {
        dump d;
        run_result r;
        size_t first, second;
        char want[80];
        dg_init(&d, "JAVA PROFILE 1.0.2", 8);
        dg_string(&d, 1, "p/C");
        dg_string(&d, 2, "f");
        dg_load_class(&d, 1, CLASS, 1);
        dg_begin(&d, 0x1C);
        first = d.len;
        class_dump(&d, CLASS, same ? &b : &a); /* a long, or a reference */
        dg_end(&d);
        dg_begin(&d, 0x1C);
        second = d.len;
        class_dump(&d, CLASS, &b);
        instance(&d, OBJ, CLASS, &b);
        dg_end(&d);
        dg_begin(&d, 0x2C);
        dg_end(&d);
        r = run_filter(d.p, d.len, "privacy", NULL, 0);
        if (same) {
            cr_expect_eq(r.status, HS_OK, "%s", r.err.message);
        } else {
            cr_expect_eq(r.status, HS_E_MALFORMED, "two layouts were taken");
            snprintf(want, sizeof want, "bytes %zu and %zu", first, second);
            cr_expect(strstr(r.err.message, want) != NULL, "%s (wanted: %s)", r.err.message,
                      want);
        }
        run_result_free(&r);
        dg_free(&d);
    }
}

/* Issue #50: CLASS_DUMP's two reserved ids carry nothing through a rule
 * that zeroes fields, and what they held is a finding. */
Test(keeps, reserved_ids_are_zeroed)
{
    static const shape s = {"p/C", "f", 10, 0, 0, 0xe7c1c2c3c4c5c6c7ull, 0};
    hs_rules *rules = hs_rules_create(NULL);
    hs_options opt = {.findings = 1};
    mem_src src;
    mem_sink sink = {NULL, 0, 0, 0};
    hs_source in = {.read = mem_read, .ctx = &src};
    hs_sink out = {mem_write, &sink};
    const hs_finding *rows;
    hs_filter *f;
    hs_stats st;
    size_t n, i, hit = 0;
    dump d;
    run_result r;

    build(&d, &s);
    memset(&src, 0, sizeof src);
    src.data = d.p;
    src.len = d.len;
    src.fail_at = -1;
    cr_assert_eq(hs_rules_preset(rules, "privacy", NULL), HS_OK);
    f = hs_filter_create(rules, &opt, NULL);
    cr_assert(f);
    cr_assert_eq(hs_filter_run(f, &in, &out), HS_OK, "%s", hs_filter_error(f)->message);
    hs_filter_stats(f, &st);
    r.out = sink.data;
    r.out_len = sink.len;
    cr_expect(!holds(&r, &s), "the reserved ids went out");
    cr_expect_geq(st.nonzero_field_bytes, 16);
    n = hs_filter_findings(f, &rows);
    for (i = 0; i < n; i++)
        if (rows[i].kind == HS_FIND_RESERVED) {
            hit++;
            cr_expect_str_eq(rows[i].name, "p.C (reserved ids)");
            cr_expect_eq(rows[i].bytes, 16);
        }
    cr_expect_eq(hit, 1, "no finding for the reserved ids");
    hs_filter_free(f);
    hs_rules_free(rules);
    free(sink.data);
    dg_free(&d);
}

/* keep-field's declared type: parsed, printed back, checked. */
Test(keeps, typed_keep_field_rules)
{
    static const char two[] = "keep-field p.C.f static long\nkeep-field p.C.g int\n";
    hs_rules *rl = hs_rules_create(NULL);
    char buf[2048];
    hs_error e;

    cr_assert_eq(hs_rules_parse(rl, two, sizeof two - 1, "x", &e), HS_OK, "%s", e.message);
    hs_rules_print(rl, buf, sizeof buf);
    cr_expect(strstr(buf, "keep-field p.C.f static long\nkeep-field p.C.g int\n") != NULL, "%s",
              buf);
    cr_expect_eq(hs_rules_parse(rl, "keep-field p.C.f longer\n", 24, "x", &e), HS_E_USAGE);
    cr_expect(strstr(e.message, "x:1:18: unknown field type 'longer'") != NULL, "%s",
              e.message);
    cr_expect_eq(hs_rules_parse(rl, "keep-field p.C.f final long\n", 28, "x", &e), HS_E_USAGE);
    cr_expect_eq(hs_rules_parse(rl, "keep-field p.C.f static long x\n", 31, "x", &e),
                 HS_E_USAGE);
    hs_rules_free(rl);
}

/* ---- --obfuscate-names ---------------------------------------------------- */

static int to_mem(void *ctx, const void *p, size_t n)
{
    return mem_write(ctx, p, n);
}

/* Runs `preset` with names obfuscated: the output in r->out, the key in
 * *key (malloc'd, its length in *key_len). */
static run_result run_obfuscated(const dump *d, const char *preset, uint8_t **key,
                                 size_t *key_len)
{
    hs_rules *rules = hs_rules_create(NULL);
    hs_options opt = {.obfuscate_names = 1};
    mem_src src = {d->p, d->len, 0, 0, -1, NULL};
    mem_sink out = {NULL, 0, 0, 0}, map = {NULL, 0, 0, 0};
    hs_source in = {.read = mem_read, .ctx = &src};
    hs_sink dst = {to_mem, &out}, mdst = {to_mem, &map};
    hs_filter *f;
    run_result r;

    memset(&r, 0, sizeof r);
    cr_assert_eq(hs_rules_preset(rules, preset, NULL), HS_OK);
    f = hs_filter_create(rules, &opt, NULL);
    cr_assert(f);
    r.status = hs_filter_run(f, &in, &dst);
    if (r.status != HS_OK)
        r.err = *hs_filter_error(f);
    else
        cr_assert_eq(hs_filter_obfuscation_map(f, &mdst), HS_OK);
    hs_filter_stats(f, &r.st);
    hs_filter_free(f);
    hs_rules_free(rules);
    r.out = out.data;
    r.out_len = out.len;
    *key = map.data;
    *key_len = map.len;
    return r;
}

static int has(const uint8_t *p, size_t n, const char *s)
{
    size_t k = strlen(s), i;

    for (i = 0; i + k <= n; i++)
        if (memcmp(p + i, s, k) == 0)
            return 1;
    return 0;
}

/* Issue #50: a frame whose class no LOAD_CLASS names keeps no name of its
 * method or source file; the key lists them, as comments. A frame of a
 * JDK class keeps its names. */
Test(keeps, frames_of_no_loaded_class_are_renamed)
{
    dump d;
    run_result r;
    uint8_t *key;
    size_t key_len;
    int p;

    for (p = 0; p < 2; p++) {
        dg_init(&d, "JAVA PROFILE 1.0.2", 8);
        dg_string(&d, 1, "java/lang/Thread");
        dg_string(&d, 2, "secretMethod");
        dg_string(&d, 3, "SecretSource.java");
        dg_string(&d, 4, "run");
        dg_string(&d, 5, "Thread.java");
        dg_string(&d, 6, "()V");
        dg_load_class(&d, 1, CLASS, 1);
        dg_begin(&d, 0x04); /* a frame of class serial 9: no LOAD_CLASS */
        dg_id(&d, 0x70);
        dg_id(&d, 2);
        dg_id(&d, 6);
        dg_id(&d, 3);
        dg_u4(&d, 9);
        dg_u4(&d, 12);
        dg_end(&d);
        dg_begin(&d, 0x04); /* a frame of java.lang.Thread (serial 1) */
        dg_id(&d, 0x71);
        dg_id(&d, 4);
        dg_id(&d, 6);
        dg_id(&d, 5);
        dg_u4(&d, 1);
        dg_u4(&d, 7);
        dg_end(&d);
        dg_begin(&d, 0x05);
        dg_u4(&d, 1);
        dg_u4(&d, 1);
        dg_u4(&d, 2);
        dg_id(&d, 0x70);
        dg_id(&d, 0x71);
        dg_end(&d);
        dg_begin(&d, 0x1C);
        dg_end(&d);
        dg_begin(&d, 0x2C);
        dg_end(&d);
        r = run_obfuscated(&d, p ? "privacy" : "none", &key, &key_len);
        cr_assert_eq(r.status, HS_OK, "%s", r.err.message);
        cr_expect(!has(r.out, r.out_len, "secretMethod"), "the method name went out");
        cr_expect(!has(r.out, r.out_len, "SecretSource"), "the source name went out");
        cr_expect(has(r.out, r.out_len, "Thread.java"), "a JDK frame's source was renamed");
        cr_expect(has(key, key_len, "# <class serial 9> -> o."), "%.*s", (int)key_len, key);
        cr_expect(has(key, key_len, "#     void secretMethod() -> a"), "%.*s", (int)key_len,
                  key);
        free(key);
        run_result_free(&r);
        dg_free(&d);
    }
}

/* Issue #50: with names obfuscated, String.hash would confirm a guessed
 * class name (hash("com.example.Secret")), so it is zeroed whatever the
 * preset; without obfuscation -p default keeps field values. */
Test(keeps, string_hash_is_zeroed_when_names_are_obfuscated)
{
    static const shape s[] = {{"java/lang/String", "hash", 10, 0, 0, 0, 0},
                              {"java/lang/String", "hashIsZero", 4, 0, 0, 0, 0}};
    static const char *const presets[] = {"none", "default"};
    size_t k, p;

    for (k = 0; k < 2; k++)
        for (p = 0; p < 2; p++) {
            dump d;
            run_result r;
            uint8_t *key;
            size_t key_len;
            build(&d, &s[k]);
            r = run_obfuscated(&d, presets[p], &key, &key_len);
            cr_assert_eq(r.status, HS_OK, "%s", r.err.message);
            cr_expect(!holds(&r, &s[k]), "-p %s --obfuscate-names: String.%s went out",
                      presets[p], s[k].fname);
            free(key);
            run_result_free(&r);
            r = run_filter(d.p, d.len, presets[p], NULL, 0);
            cr_assert_eq(r.status, HS_OK, "%s", r.err.message);
            cr_expect(holds(&r, &s[k]), "-p %s: String.%s was zeroed", presets[p], s[k].fname);
            run_result_free(&r);
            dg_free(&d);
        }
}
