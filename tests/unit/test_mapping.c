/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_mapping.c - the R8/ProGuard mapping parser (src/lib/mapping.c): lookups
 * of classes, fields and frames on hand-written mappings of both flavours,
 * class names in the JVM's and ART's spellings, FILE:LINE:COL errors, the
 * memory held, and allocation failures.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "count_alloc.h"
#include "helpers.h"
#include "mapping.h"

#define R8_MAP "tests/data/mapping/r8.txt"
#define PG_MAP "tests/data/mapping/proguard.txt"

static hs_mapping *parse_file(const char *path, hs_error *err)
{
    size_t len;
    uint8_t *text = load_file(path, &len);
    hs_mapping *m;

    cr_assert_not_null(text, "cannot read %s", path);
    m = hs_mapping_parse((const char *)text, len, path, NULL, err);
    free(text); /* the mapping keeps copies */
    return m;
}

static hs_mapping *parse_str(const char *text, hs_error *err)
{
    return hs_mapping_parse(text, strlen(text), "t.txt", NULL, err);
}

#define S(x) x, strlen(x)

/* ---- lookups: R8 ------------------------------------------------------------- */

Test(mapping_r8, classes_and_fields)
{
    hs_error err = {0};
    hs_mapping *m = parse_file(R8_MAP, &err);

    cr_assert_not_null(m, "%s", err.message);
    cr_expect_str_eq(hs_mapping_class(m, NULL, S("a.a")), "com.example.app.Util");
    cr_expect_str_eq(hs_mapping_class(m, NULL, S("a/b")), "com.example.app.Model$Item");
    cr_expect_str_eq(hs_mapping_class(m, NULL, S("com.example.app.MainActivity")),
                     "com.example.app.MainActivity");
    cr_expect_null(hs_mapping_class(m, NULL, S("a.z")));
    cr_expect_null(hs_mapping_class(m, NULL, S("a.")), "a prefix of a name is not the name");
    cr_expect_null(hs_mapping_class(m, NULL, S("a.aa")));
    cr_expect_null(hs_mapping_class(m, NULL, S("com.example.app.Util")), "original names are not keys");

    cr_expect_str_eq(hs_mapping_field(m, NULL, S("a.b"), S("a")), "id");
    cr_expect_str_eq(hs_mapping_field(m, NULL, S("a/b"), S("c")), "children");
    cr_expect_str_eq(hs_mapping_field(m, NULL, S("a.a"), S("a")), "PREFIX");
    cr_expect_str_eq(hs_mapping_field(m, NULL, S("com.example.app.MainActivity"), S("b")), "counter");
    cr_expect_null(hs_mapping_field(m, NULL, S("a.a"), S("b")), "b is a method of a.a, not a field");
    cr_expect_null(hs_mapping_field(m, NULL, S("a.c"), S("a")));
    cr_expect_null(hs_mapping_field(m, NULL, S("a.z"), S("a")));
    hs_mapping_free(m);
}

static void expect_frame(const hs_mapping_frame *f, const char *cls, const char *method,
                         const char *source, uint32_t line)
{
    cr_expect_str_eq(f->class_name, cls);
    cr_expect_str_eq(f->method, method);
    if (source)
        cr_expect_str_eq(f->source, source, "%s.%s", cls, method);
    else
        cr_expect_null(f->source, "%s.%s: source %s", cls, method, f->source);
    cr_expect_eq(f->line, line, "%s.%s: line %u, not %u", cls, method, f->line, line);
}

Test(mapping_r8, frames_with_ranges_and_inlining)
{
    hs_mapping_frame f[4];
    hs_mapping *m = parse_file(R8_MAP, NULL);
    const char *main = "com.example.app.MainActivity";

    cr_assert_not_null(m);
    /* a plain range: 4:9 -> 22:27 */
    cr_assert_eq(hs_mapping_frames(m, NULL, S(main), S("onCreate"), 6, f, 4), 1);
    expect_frame(&f[0], main, "onCreate", "MainActivity.kt", 24);
    cr_assert_eq(hs_mapping_frames(m, NULL, S(main), S("onCreate"), 1, f, 4), 1);
    expect_frame(&f[0], main, "onCreate", "MainActivity.kt", 20);
    /* 2:3 is an inline chain: Util.format inlined into onCreate at line 21 */
    cr_assert_eq(hs_mapping_frames(m, NULL, S(main), S("onCreate"), 3, f, 4), 2);
    expect_frame(&f[0], "com.example.app.Util", "format", "Util.kt", 8);
    expect_frame(&f[1], main, "onCreate", "MainActivity.kt", 21);
    /* a short buffer: the count stays the full one, only cap written */
    memset(f, 0, sizeof f);
    cr_assert_eq(hs_mapping_frames(m, NULL, S(main), S("onCreate"), 2, f, 1), 2);
    expect_frame(&f[0], "com.example.app.Util", "format", "Util.kt", 7);
    cr_expect_null(f[1].method);
    cr_assert_eq(hs_mapping_frames(m, NULL, S(main), S("onCreate"), 2, NULL, 0), 2);

    /* a class in internal form; an inline chain with a single-line caller */
    cr_assert_eq(hs_mapping_frames(m, NULL, S("a/b"), S("c"), 4, f, 4), 2);
    expect_frame(&f[0], "com.example.app.Model$Item", "inlined$lambda", NULL, 43);
    expect_frame(&f[1], "com.example.app.Model$Item", "walk", NULL, 50);
    cr_assert_eq(hs_mapping_frames(m, NULL, S("a.b"), S("c"), 6, f, 4), 1);
    expect_frame(&f[0], "com.example.app.Model$Item", "walk", NULL, 51);
    hs_mapping_free(m);
}

Test(mapping_r8, frames_without_a_usable_line)
{
    hs_mapping_frame f[4];
    hs_mapping *m = parse_file(R8_MAP, NULL);

    cr_assert_not_null(m);
    /* one original method behind the name: known, line unknown */
    cr_assert_eq(hs_mapping_frames(m, NULL, S("a.c"), S("t"), 0, f, 4), 1);
    expect_frame(&f[0], "com.example.app.Clock", "tick", NULL, 0);
    cr_assert_eq(hs_mapping_frames(m, NULL, S("a.c"), S("t"), 9, f, 4), 1, "outside every range");
    expect_frame(&f[0], "com.example.app.Clock", "tick", NULL, 0);
    cr_assert_eq(hs_mapping_frames(m, NULL, S("a.c"), S("t"), 2, f, 4), 1);
    expect_frame(&f[0], "com.example.app.Clock", "tick", NULL, 101);
    /* several original methods behind one name: ambiguous without a line */
    cr_expect_eq(hs_mapping_frames(m, NULL, S("a.a"), S("a"), 0, f, 4), 0);
    cr_expect_eq(hs_mapping_frames(m, NULL, S("a.a"), S("a"), 7, f, 4), 0);
    cr_assert_eq(hs_mapping_frames(m, NULL, S("a.a"), S("a"), 3, f, 4), 1);
    expect_frame(&f[0], "com.example.app.Util", "parse", "Util.kt", 30);
    /* a member line without a range maps the method, the line unchanged */
    cr_assert_eq(hs_mapping_frames(m, NULL, S("a.a"), S("b"), 17, f, 4), 1);
    expect_frame(&f[0], "com.example.app.Util", "helper", "Util.kt", 17);
    /* unknown class or method */
    cr_expect_eq(hs_mapping_frames(m, NULL, S("a.z"), S("a"), 1, f, 4), 0);
    cr_expect_eq(hs_mapping_frames(m, NULL, S("a.a"), S("zz"), 1, f, 4), 0);
    cr_expect_eq(hs_mapping_frames(m, NULL, S("a.c"), S("a"), 1, f, 4), 0,
                 "a name of another class is not this one's");
    hs_mapping_free(m);
}

Test(mapping_r8, counts)
{
    hs_mapping_counts c = {0};
    hs_mapping_frame f[2];
    hs_mapping *m = parse_file(R8_MAP, NULL);

    cr_assert_not_null(m);
    hs_mapping_get_counts(m, &c);
    cr_expect_eq(c.classes, 4);
    cr_expect_eq(c.fields, 6);
    cr_expect_eq(c.methods, 13);
    cr_expect_eq(c.class_lookups + c.field_lookups + c.frame_lookups, 0);
    /* counted into the caller's struct, the mapping read-only */
    hs_mapping_class(m, &c, S("a.a"));
    hs_mapping_class(m, &c, S("x.y"));
    hs_mapping_field(m, &c, S("a.a"), S("a"));
    hs_mapping_field(m, &c, S("a.a"), S("q"));
    hs_mapping_field(m, &c, S("a.a"), S("r"));
    hs_mapping_frames(m, &c, S("a.c"), S("t"), 1, f, 2);
    hs_mapping_class(m, NULL, S("a.a")); /* not counted */
    hs_mapping_get_counts(m, &c);
    cr_expect_eq(c.classes, 4, "the sizes again, the counts kept");
    cr_expect_eq(c.class_lookups, 2);
    cr_expect_eq(c.class_hits, 1);
    cr_expect_eq(c.field_lookups, 3);
    cr_expect_eq(c.field_hits, 1);
    cr_expect_eq(c.frame_lookups, 1);
    cr_expect_eq(c.frame_hits, 1);
    hs_mapping_free(m);
}

/* ---- lookups: ProGuard ------------------------------------------------------- */

Test(mapping_proguard, lookups)
{
    hs_mapping_frame f[4];
    hs_error err = {0};
    hs_mapping *m = parse_file(PG_MAP, &err);
    const char *main = "com.example.Main";

    cr_assert_not_null(m, "%s", err.message);
    cr_expect_str_eq(hs_mapping_class(m, NULL, S("com.example.a")), "com.example.Main$Inner");
    cr_expect_str_eq(hs_mapping_class(m, NULL, S("com/example/b")), "com.example.Other");
    cr_expect_str_eq(hs_mapping_field(m, NULL, S("com.example.a"), S("a")), "this$0");
    cr_expect_str_eq(hs_mapping_field(m, NULL, S("com.example.Main"), S("b")), "counts");
    cr_expect_str_eq(hs_mapping_field(m, NULL, S("com.example.b"), S("a")), "flag");

    /* ProGuard's range without original lines: the lines were kept */
    cr_assert_eq(hs_mapping_frames(m, NULL, S(main), S("main"), 15, f, 4), 1);
    expect_frame(&f[0], main, "main", NULL, 15);
    /* ProGuard's inlining: the inlinee's lines, then the call site */
    cr_assert_eq(hs_mapping_frames(m, NULL, S(main), S("main"), 30, f, 4), 2);
    expect_frame(&f[0], main, "inlinedHelper", NULL, 47);
    expect_frame(&f[1], main, "main", NULL, 27);
    cr_assert_eq(hs_mapping_frames(m, NULL, S("com.example.a"), S("a"), 51, f, 4), 1);
    expect_frame(&f[0], "com.example.Main$Inner", "compute", NULL, 11);
    /* overloads with the same name: known without a line */
    cr_assert_eq(hs_mapping_frames(m, NULL, S("com.example.a"), S("a"), 0, f, 4), 1);
    expect_frame(&f[0], "com.example.Main$Inner", "compute", NULL, 0);
    cr_assert_eq(hs_mapping_frames(m, NULL, S("com.example.b"), S("a"), 0, f, 4), 1);
    expect_frame(&f[0], "com.example.Other", "run", NULL, 0);
    hs_mapping_free(m);
}

/* ---- class names as dumps spell them ------------------------------------------- */

Test(mapping_names, jvm_form)
{
    char buf[64];
    hs_mapping *m = parse_file(R8_MAP, NULL);

    cr_assert_not_null(m);
    cr_expect_eq(hs_mapping_class_jvm(m, NULL, S("a/b"), buf, sizeof buf), 26);
    cr_expect_str_eq(buf, "com/example/app/Model$Item");
    cr_expect_eq(hs_mapping_class_jvm(m, NULL, S("[[La/b;"), buf, sizeof buf), 30);
    cr_expect_str_eq(buf, "[[Lcom/example/app/Model$Item;");
    strcpy(buf, "untouched");
    cr_expect_eq(hs_mapping_class_jvm(m, NULL, S("[[I"), buf, sizeof buf), 0);
    cr_expect_eq(hs_mapping_class_jvm(m, NULL, S("[La/z;"), buf, sizeof buf), 0);
    cr_expect_eq(hs_mapping_class_jvm(m, NULL, S("La/b;"), buf, sizeof buf), 0,
                 "a descriptor outside an array is not a class name");
    cr_expect_eq(hs_mapping_class_jvm(m, NULL, S("[L;"), buf, sizeof buf), 0);
    cr_expect_eq(hs_mapping_class_jvm(m, NULL, S("["), buf, sizeof buf), 0);
    cr_expect_eq(hs_mapping_class_jvm(m, NULL, S("[La/b"), buf, sizeof buf), 0);
    cr_expect_str_eq(buf, "untouched");
    /* too small a buffer: the full length, a cut and terminated name */
    cr_expect_eq(hs_mapping_class_jvm(m, NULL, S("[La/a;"), buf, 8), 23);
    cr_expect_str_eq(buf, "[Lcom/e");
    cr_expect_eq(hs_mapping_class_jvm(m, NULL, S("a/a"), NULL, 0), 20);
    hs_mapping_free(m);
}

Test(mapping_names, art_form)
{
    char buf[64];
    hs_mapping *m = parse_file(R8_MAP, NULL);

    cr_assert_not_null(m);
    cr_expect_eq(hs_mapping_class_art(m, NULL, S("a.b"), buf, sizeof buf), 26);
    cr_expect_str_eq(buf, "com.example.app.Model$Item");
    cr_expect_eq(hs_mapping_class_art(m, NULL, S("a.b[][]"), buf, sizeof buf), 30);
    cr_expect_str_eq(buf, "com.example.app.Model$Item[][]");
    cr_expect_eq(hs_mapping_class_art(m, NULL, S("int[]"), buf, sizeof buf), 0);
    cr_expect_eq(hs_mapping_class_art(m, NULL, S("[]"), buf, sizeof buf), 0);
    cr_expect_eq(hs_mapping_class_art(m, NULL, S("a.b["), buf, sizeof buf), 0);
    cr_expect_eq(hs_mapping_class_art(m, NULL, S("a.a[]"), buf, 5), 22);
    cr_expect_str_eq(buf, "com.");
    hs_mapping_free(m);
}

/* ---- the text itself ------------------------------------------------------------ */

Test(mapping_text, crlf_no_final_newline_and_blank_lines)
{
    const char *text = "\r\n  \t\r\n# header\r\nfoo.Bar -> a:\r\n    int x -> y\r\n"
                       "\t \r\n    1:2:void run():5:6 -> b";
    hs_mapping_frame f;
    hs_error err = {0};
    hs_mapping *m = parse_str(text, &err);

    cr_assert_not_null(m, "%s", err.message);
    cr_expect_str_eq(hs_mapping_class(m, NULL, S("a")), "foo.Bar");
    cr_expect_str_eq(hs_mapping_field(m, NULL, S("a"), S("y")), "x");
    cr_assert_eq(hs_mapping_frames(m, NULL, S("a"), S("b"), 2, &f, 1), 1);
    expect_frame(&f, "foo.Bar", "run", NULL, 6);
    hs_mapping_free(m);
}

Test(mapping_text, empty_text)
{
    hs_mapping *m = hs_mapping_parse("", 0, "e", NULL, NULL);
    hs_mapping_counts c = {0};

    cr_assert_not_null(m);
    cr_expect_null(hs_mapping_class(m, NULL, S("a")));
    cr_expect_null(hs_mapping_field(m, NULL, S("a"), S("b")));
    cr_expect_eq(hs_mapping_frames(m, NULL, S("a"), S("b"), 1, NULL, 0), 0);
    hs_mapping_get_counts(m, &c);
    cr_expect_eq(c.classes + c.fields + c.methods, 0);
    hs_mapping_free(m);
    hs_mapping_free(NULL);
}

Test(mapping_text, source_file_metadata)
{
    const char *text = "a.A -> x:\n"
                       "# {\"id\" : \"sourceFile\", \"fileName\":\"A.kt\"}\n"
                       "    1:1:void f():3 -> f\n"
                       "b.B -> y:\n"
                       "# {\"fileName\":\"B.java\",\"id\":\"sourceFile\"}\n"
                       "c.C -> z:\n"
                       "# {\"id\":\"com.android.tools.r8.synthesized\"}\n"
                       "# {\"id\":\"sourceFile\"}\n"
                       "# {\"id\":\"sourceFile\",\"fileName\":\"unterminated}\n"
                       "    1:1:void g():4 -> g\n"
                       "    1:1:void b.B.h():9 -> g\n";
    hs_mapping_frame f[2];
    hs_mapping *m = parse_str(text, NULL);

    cr_assert_not_null(m);
    cr_assert_eq(hs_mapping_frames(m, NULL, S("x"), S("f"), 1, f, 2), 1);
    expect_frame(&f[0], "a.A", "f", "A.kt", 3);
    /* the inlinee's source is its own class's, found by original name */
    cr_assert_eq(hs_mapping_frames(m, NULL, S("z"), S("g"), 1, f, 2), 2);
    expect_frame(&f[0], "c.C", "g", NULL, 4);
    expect_frame(&f[1], "b.B", "h", "B.java", 9);
    hs_mapping_free(m);
}

/* ---- errors ------------------------------------------------------------------------ */

static void expect_error(const char *text, const char *message)
{
    hs_error err = {0};
    hs_mapping *m = parse_str(text, &err);

    cr_expect_null(m, "parsed: %s", text);
    hs_mapping_free(m);
    cr_expect_eq(err.code, HS_E_MALFORMED, "%s", text);
    cr_expect_str_eq(err.message, message, "for: %s", text);
    /* and the same failure without an hs_error */
    cr_expect_null(parse_str(text, NULL));
}

Test(mapping_errors, class_lines)
{
    expect_error("a -> b\n", "t.txt:1:7: expected ':' at the end of the class line");
    expect_error("a => b:\n", "t.txt:1:3: expected ' -> ', found '=>'");
    expect_error("a->b:\n", "t.txt:1:6: expected ' -> ', found the end of the line");
    expect_error("a ->b:\n", "t.txt:1:5: expected a blank after '->'");
    expect_error("a -> :\n", "t.txt:1:6: expected the obfuscated class name before ':'");
    expect_error("a ->   \n", "t.txt:1:8: expected the obfuscated name after '->'");
    expect_error("com.Foo\n", "t.txt:1:8: expected ' -> ', found the end of the line");
    expect_error("a -> b: c\n", "t.txt:1:9: unexpected 'c' at the end of the line");
    expect_error("a -> b:\nc -> d:\n\ne -> b:\n",
                 "t.txt:4:6: obfuscated class name 'b' already used on line 1");
    expect_error("a -> b:\nc -> a/b:\nd -> a.b:\n",
                 "t.txt:3:6: obfuscated class name 'a.b' already used on line 2");
}

Test(mapping_errors, member_lines)
{
    expect_error("    int x -> a\n", "t.txt:1:5: member line before any class line");
    expect_error("# c\n\tint x -> a\n", "t.txt:2:2: member line before any class line");
    expect_error("a -> b:\n    int x -> \n",
                 "t.txt:2:14: expected the obfuscated name after '->'");
    expect_error("a -> b:\n    int x\n", "t.txt:2:10: expected ' -> ', found the end of the line");
    expect_error("a -> b:\n    int\n", "t.txt:2:8: expected a member name after the type");
    expect_error("a -> b:\n    1:\n", "t.txt:2:7: expected a type");
    expect_error("a -> b:\n    int x -> a b\n", "t.txt:2:16: unexpected 'b' at the end of the line");
    expect_error("a -> b:\n    int x => a\n", "t.txt:2:11: expected ' -> ', found '=>'");
    expect_error("a -> b:\n    void run( -> a\n",
                 "t.txt:2:14: expected ')' closing the argument list");
    expect_error("a -> b:\n    void () -> a\n", "t.txt:2:10: expected a method name before '('");
    expect_error("a -> b:\n    void .f() -> a\n", "t.txt:2:10: expected a method name before '('");
    expect_error("a -> b:\n    void c.() -> a\n", "t.txt:2:12: expected a method name before '('");
    expect_error("a -> b:\n    1:1:int x -> a\n",
                 "t.txt:2:5: a line range on a field (no '(' in 'x')");
}

Test(mapping_errors, numbers)
{
    expect_error("a -> b:\n    1x:5:void run() -> a\n",
                 "t.txt:2:6: expected ':' after the line number, found 'x:5:void'");
    expect_error("a -> b:\n    1:2x:void run() -> a\n",
                 "t.txt:2:8: expected ':' after the line number, found 'x:void'");
    expect_error("a -> b:\n    99999999999:1:void f() -> a\n",
                 "t.txt:2:5: line number 99999999999 is too large");
    expect_error("a -> b:\n    4294967295:void f() -> a\n",
                 "t.txt:2:5: line number 4294967295 is too large");
    expect_error("a -> b:\n    5:3:void f() -> a\n", "t.txt:2:5: line range 5:3 runs backwards");
    expect_error("a -> b:\n    void f():x -> a\n",
                 "t.txt:2:14: expected a line number, found 'x'");
    expect_error("a -> b:\n    void f():1:y -> a\n",
                 "t.txt:2:16: expected a line number, found 'y'");
    expect_error("a -> b:\n    void f():1:2:3 -> a\n",
                 "t.txt:2:17: expected ' -> ' after the original line range");
    expect_error("a -> b:\n    void f()x -> a\n",
                 "t.txt:2:13: expected ':' after ')', found 'x'");
}

Test(mapping_errors, message_is_one_line)
{
    hs_error err = {0};
    const char text[] = "a\x01\x7f => b:\n";

    cr_assert_null(hs_mapping_parse(text, sizeof text - 1, "o", NULL, &err));
    cr_expect_str_eq(err.message, "o:1:5: expected ' -> ', found '=>'");
    cr_assert_null(hs_mapping_parse("a -> b:\n    int x\0 -> y\n", 24, "o", NULL, &err));
    cr_expect_str_eq(err.message, "o:2:10: a NUL byte in the text");
    cr_assert_null(hs_mapping_parse("a -\x02 b:", 7, "o", NULL, &err));
    cr_expect_str_eq(err.message, "o:1:3: expected ' -> ', found '-?'");
}

/* ---- memory ------------------------------------------------------------------------- */

/* An R8-like mapping of `classes` classes, as an app's would read. */
static char *make_mapping(size_t classes, size_t *len)
{
    size_t cap = classes * 2048 + 1024, n = 0, c, k;
    char *t = malloc(cap);

    cr_assert_not_null(t);
    n += (size_t)snprintf(t + n, cap - n, "# compiler: R8\n# pg_map_id: 1\n");
    for (c = 0; c < classes; c++) {
        n += (size_t)snprintf(t + n, cap - n,
                              "com.example.app.feature%zu.ScreenController%zu -> a.b%zu:\n"
                              "# {\"id\":\"sourceFile\",\"fileName\":\"ScreenController.kt\"}\n",
                              c % 40, c, c);
        for (k = 0; k < 4; k++)
            n += (size_t)snprintf(t + n, cap - n, "    java.lang.String field%zu -> %c\n", k,
                                  (char)('a' + k));
        for (k = 0; k < 8; k++)
            n += (size_t)snprintf(t + n, cap - n,
                                  "    %zu:%zu:void handle%zu(android.os.Bundle,int):%zu:%zu -> %c\n",
                                  k * 10 + 1, k * 10 + 5, k, 100 + k * 10, 104 + k * 10,
                                  (char)('e' + k % 3));
        n += (size_t)snprintf(t + n, cap - n,
                              "    41:42:void com.example.app.Util.log(java.lang.String):7:8 -> e\n"
                              "    41:42:void handle0(android.os.Bundle,int):120 -> e\n");
    }
    *len = n;
    return t;
}

Test(mapping_memory, held_is_at_most_the_text)
{
    count_state cnt = {0};
    hs_alloc a = COUNT_ALLOC(&cnt);
    size_t len;
    char *text = make_mapping(5000, &len);
    hs_mapping *m = hs_mapping_parse(text, len, "big", &a, NULL);
    hs_mapping_frame f[2];

    cr_assert_not_null(m);
    cr_expect_leq(hs_mapping_bytes(m), len, "holds %zu bytes for a %zu-byte text",
                  hs_mapping_bytes(m), len);
    cr_expect_eq(hs_mapping_bytes(m), cnt.bytes, "reports %zu bytes, holds %zu",
                 hs_mapping_bytes(m), cnt.bytes);
    /* while parsing: the arrays grow by doubling, the text is not copied whole */
    cr_expect_leq(cnt.peak, len * 3 / 2, "peak %zu bytes for a %zu-byte text",
                  cnt.peak, len);
    cr_expect_str_eq(hs_mapping_class(m, NULL, S("a.b4321")),
                     "com.example.app.feature1.ScreenController4321");
    cr_expect_str_eq(hs_mapping_field(m, NULL, S("a.b4999"), S("c")), "field2");
    cr_assert_eq(hs_mapping_frames(m, NULL, S("a.b17"), S("e"), 42, f, 2), 2);
    expect_frame(&f[0], "com.example.app.Util", "log", NULL, 8);
    expect_frame(&f[1], "com.example.app.feature17.ScreenController17", "handle0",
                 "ScreenController.kt", 120);
    cr_assert_eq(hs_mapping_frames(m, NULL, S("a.b17"), S("e"), 33, f, 2), 1);
    expect_frame(&f[0], "com.example.app.feature17.ScreenController17", "handle3",
                 "ScreenController.kt", 132);
    free(text);
    hs_mapping_free(m);
    cr_expect_eq(cnt.blocks, 0, "%zu allocations left", cnt.blocks);
}

/* Every allocation made to fail in turn: NULL with HS_E_NOMEM, no leak. */
Test(mapping_memory, allocation_failures)
{
    size_t len, n;
    char *text = make_mapping(40, &len);

    for (n = 1;; n++) {
        count_state cnt = {.fail_at = n};
        hs_alloc a = COUNT_ALLOC(&cnt);
        hs_error err = {0};
        hs_mapping *m = hs_mapping_parse(text, len, "oom", &a, &err);

        if (m) {
            cr_expect_str_eq(hs_mapping_class(m, NULL, S("a.b39")),
                             "com.example.app.feature39.ScreenController39");
            hs_mapping_free(m);
            cr_expect_eq(cnt.blocks, 0);
            if (cnt.calls < n)
                break; /* no allocation left to fail */
            continue;  /* a failed trim is not a failure */
        }
        cr_expect_eq(err.code, HS_E_NOMEM, "allocation %zu: %s", n, err.message);
        cr_expect_str_eq(err.message, "oom: out of memory reading the mapping");
        cr_expect_eq(cnt.blocks, 0, "allocation %zu failed: %zu allocations left", n, cnt.blocks);
    }
    cr_expect_gt(n, 10);
    free(text);
}

/* ---- ProGuard's own output ------------------------------------------------------------ */

/* tests/data/mapping/proguard-6.2-shop.txt is what tests/ext/proguard/run.sh
 * gets from ProGuard 6.2.2 (Debian's proguard-cli) for tests/ext/proguard/src:
 * optimised, so Warehouse$Picker.pick and Warehouse.park are inlined into
 * Warehouse.descend (lines 1040 and 1033:1035 of the obfuscated code). */
Test(mapping_proguard, real_output)
{
    hs_mapping_frame f[4];
    hs_error err = {0};
    hs_mapping *m = parse_file("tests/data/mapping/proguard-6.2-shop.txt", &err);
    const char *wh = "com.example.shop.Warehouse";
    char buf[80];

    cr_assert_not_null(m, "%s", err.message);
    cr_assert_eq(hs_mapping_frames(m, NULL, S("com/example/shop/d"), S("a"), 1040, f, 4), 2);
    expect_frame(&f[0], "com.example.shop.Warehouse$Picker", "pick", NULL, 40);
    expect_frame(&f[1], wh, "descend", NULL, 27);
    cr_assert_eq(hs_mapping_frames(m, NULL, S("com/example/shop/d"), S("a"), 1034, f, 4), 2);
    expect_frame(&f[0], wh, "park", NULL, 34);
    expect_frame(&f[1], wh, "descend", NULL, 23);
    cr_assert_eq(hs_mapping_frames(m, NULL, S("com/example/shop/d"), S("a"), 29, f, 4), 1);
    expect_frame(&f[0], wh, "descend", NULL, 29);
    cr_expect_eq(hs_mapping_class_jvm(m, NULL, S("[[Lcom/example/shop/a;"), buf, sizeof buf), 28);
    cr_expect_str_eq(buf, "[[Lcom/example/shop/Product;");
    cr_expect_str_eq(hs_mapping_field(m, NULL, S("com.example.shop.a"), S("e")), "code");
    cr_expect_str_eq(hs_mapping_field(m, NULL, S("com.example.shop.b"), S("c")), "this$0");
    cr_expect_str_eq(hs_mapping_class(m, NULL, S("com.example.shop.b")),
                     "com.example.shop.Product$Review");
    cr_expect_str_eq(hs_mapping_class(m, NULL, S("com.example.shop.Main")), "com.example.shop.Main");
    hs_mapping_free(m);
}
