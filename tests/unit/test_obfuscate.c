/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_obfuscate.c - --obfuscate-names' name generator (src/lib/obfuscate.c):
 * the names it makes, the keep list, the namer's answers for classes in
 * both spellings, fields, frames and signatures, the mapping it writes
 * read back by the mapping parser, and a whole run through the library.
 */
#define _GNU_SOURCE /* memmem */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "helpers.h"
#include "mapping.h"
#include "obfuscate.h"

#define S(x) x, strlen(x)

static hs_obf g_o;
static hs_namer g_nm;
static hs_alloc g_a;

static void setup(void)
{
    hs_alloc_init(&g_a, NULL); /* malloc's */
    hs_obf_init(&g_o, &g_a);
    hs_obf_namer(&g_o, &g_nm);
}

static void teardown(void)
{
    hs_obf_free(&g_o);
}

/* ---- names -------------------------------------------------------------------- */

static const char *gen(uint64_t k)
{
    static char b[16];
    size_t n = hs_obf_gen(k, b);
    cr_assert_eq(n, strlen(b));
    return b;
}

Test(obf_gen, base_26_like_r8)
{
    cr_assert_str_eq(gen(0), "a");
    cr_assert_str_eq(gen(1), "b");
    cr_assert_str_eq(gen(25), "z");
    cr_assert_str_eq(gen(26), "aa");
    cr_assert_str_eq(gen(27), "ab");
    cr_assert_str_eq(gen(26 + 26 * 26 - 1), "zz");
    cr_assert_str_eq(gen(26 + 26 * 26), "aaa");
    cr_assert_eq(strlen(gen(UINT64_MAX)), 14); /* the buffer's 16 hold every one */
}

Test(obf_gen, every_name_distinct)
{
    /* shorter first, then in letter order: strictly increasing, so distinct */
    char prev[16], cur[16];
    uint64_t k;

    hs_obf_gen(0, prev);
    for (k = 1; k < 200000; k++) {
        size_t pn = strlen(prev), cn = hs_obf_gen(k, cur);
        cr_assert(cn > pn || (cn == pn && strcmp(cur, prev) > 0), "%s then %s", prev, cur);
        for (size_t i = 0; i < cn; i++)
            cr_assert(cur[i] >= 'a' && cur[i] <= 'z');
        memcpy(prev, cur, sizeof cur);
    }
}

Test(obf_keep, the_documented_list)
{
    static const char *const kept[] = {"java.lang.String", "javax.net.ssl.SSLContext",
                                       "jdk.internal.misc.Unsafe", "sun.misc.Unsafe",
                                       "com.sun.proxy.$Proxy1", "android.app.Activity",
                                       "dalvik.system.VMRuntime", "libcore.io.Memory",
                                       "boolean", "byte", "char", "short", "int", "long",
                                       "float", "double", "void"};
    static const char *const renamed[] = {"com.example.Foo", "javafx.scene.Node", "java",
                                          "javaX.Foo", "kotlin.Unit", "com.android.internal.X",
                                          "com.google.gson.Gson", "Integer", "Main", "a",
                                          "sunny.Day", "android", "libcoreX.Y", ""};
    size_t i;

    for (i = 0; i < sizeof kept / sizeof *kept; i++)
        cr_assert(hs_obf_keep(S(kept[i])), "%s should keep its name", kept[i]);
    for (i = 0; i < sizeof renamed / sizeof *renamed; i++)
        cr_assert(!hs_obf_keep(S(renamed[i])), "%s should be renamed", renamed[i]);
}

/* ---- the namer -------------------------------------------------------------------- */

static const char *cls(const char *s, int art)
{
    static char b[256];
    size_t n = g_nm.class_name(g_nm.ctx, S(s), art, b, sizeof b);
    cr_assert_lt(n, sizeof b);
    return n ? b : NULL;
}

Test(obf_namer, classes_in_both_spellings, .init = setup, .fini = teardown)
{
    char small[4];
    size_t n;

    cr_assert_str_eq(cls("com/example/Foo", 0), "o/a");
    cr_assert_str_eq(cls("[Lcom/example/Foo;", 0), "[Lo/a;");
    cr_assert_str_eq(cls("[[[Lcom/example/Foo;", 0), "[[[Lo/a;");
    cr_assert_str_eq(cls("com.example.Foo[]", 1), "o.a[]", "ART's spelling, the same class");
    cr_assert_str_eq(cls("com.example.Bar", 1), "o.b");
    cr_assert_str_eq(cls("com.example.Bar[][]", 1), "o.b[][]");
    cr_assert_str_eq(cls("com/example/Foo", 0), "o/a", "stable");
    cr_assert_null(cls("java/lang/String", 0));
    cr_assert_null(cls("[Ljava/lang/String;", 0));
    cr_assert_null(cls("[I", 0));
    cr_assert_null(cls("[[J", 0));
    cr_assert_null(cls("int[]", 1));
    cr_assert_null(cls("boolean[]", 0), "ART's spelling in a converted 1.0.2 dump: kept");
    cr_assert_str_eq(cls("com.example.Foo[]", 0), "o.a[]");
    cr_assert_null(cls("java.lang.Object[][]", 1));
    cr_assert_null(cls("[Lbroken", 0), "not a class name: kept");
    /* too small a buffer: the length, nothing written past it */
    memset(small, 'x', sizeof small);
    n = g_nm.class_name(g_nm.ctx, S("[[Lcom/example/Foo;"), 0, small, 3);
    cr_assert_eq(n, strlen("[[Lo/a;"));
    cr_assert_eq(small[3], 'x');
    cr_assert_eq(g_nm.class_name(g_nm.ctx, S("[[Lcom/example/Foo;"), 0, NULL, 0), n);
    /* what a mapping line cannot carry stays, counted */
    cr_assert_null(cls("com/example/With Blank", 0));
    cr_assert_null(cls("#hash", 0));
    cr_assert_eq(g_o.unwritable, 2);
}

Test(obf_namer, fields_per_class, .init = setup, .fini = teardown)
{
    const char *a, *b, *a2, *c;

    cr_assert_not_null(cls("com/example/Foo", 0));
    cr_assert_not_null(cls("com/example/Bar", 0));
    a = g_nm.field(g_nm.ctx, S("com/example/Foo"), S("secret"), 10);
    b = g_nm.field(g_nm.ctx, S("com/example/Foo"), S("card"), 2);
    a2 = g_nm.field(g_nm.ctx, S("com/example/Foo"), S("secret"), 10);
    c = g_nm.field(g_nm.ctx, S("com/example/Bar"), S("card"), 2);
    cr_assert_str_eq(a, "a");
    cr_assert_str_eq(b, "b");
    cr_assert_eq(a, a2, "one name, one address: deobf.c keys its STRINGs by it");
    cr_assert_str_eq(c, "a", "each class counts from a");
    cr_assert_null(g_nm.field(g_nm.ctx, S("com/example/Foo"), S("<resolved_references>"), 2));
    cr_assert_null(g_nm.field(g_nm.ctx, S("java/lang/String"), S("value"), 2), "kept class");
    cr_assert_null(g_nm.field(g_nm.ctx, S("com/example/Foo"), S("odd(name"), 2));
}

Test(obf_namer, frames_and_signatures, .init = setup, .fini = teardown)
{
    hs_mapping_frame fr[2];
    char b[256];
    size_t n;

    cr_assert_not_null(cls("com/example/Foo", 0));
    n = g_nm.frames(g_nm.ctx, S("com/example/Foo"), S("pay"), S("(Lcom/example/Card;)V"),
                    S("Foo.java"), 12, fr, 2);
    cr_assert_eq(n, 1);
    cr_assert_str_eq(fr[0].method, "a");
    cr_assert_str_eq(fr[0].source, "SourceFile");
    cr_assert_eq(fr[0].line, 12);
    n = g_nm.frames(g_nm.ctx, S("com/example/Foo"), S("<init>"), NULL, 0, NULL, 0, 0, fr, 2);
    cr_assert_eq(n, 1);
    cr_assert_str_eq(fr[0].method, "<init>");
    cr_assert_null(fr[0].source, "no source named: none given");
    n = g_nm.frames(g_nm.ctx, S("com/example/Foo"), S("refund"), NULL, 0, NULL, 0, 0, fr, 2);
    cr_assert_str_eq(fr[0].method, "b");
    cr_assert_eq(g_nm.frames(g_nm.ctx, S("java/lang/Thread"), S("run"), NULL, 0, NULL, 0, 0, fr,
                             2),
                 0, "a kept class's frame stays");
    n = g_nm.signature(g_nm.ctx, S("(Lcom/example/Foo;I[Ljava/lang/String;[[Lcom/example/Baz;)Lcom/example/Card;"),
                       b, sizeof b);
    cr_assert_gt(n, 0);
    cr_assert_str_eq(b, "(Lo/a;I[Ljava/lang/String;[[Lo/b;)Lo/c;", "classes named in the order met");
    cr_assert_eq(g_nm.signature(g_nm.ctx, S("(ILjava/lang/String;)V"), b, sizeof b), 0);
    cr_assert_eq(g_nm.signature(g_nm.ctx, S("(Lunterminated"), b, sizeof b), 0);
}

/* ---- the mapping, read back --------------------------------------------------------- */

static int to_buf(void *ctx, const void *p, size_t n)
{
    return mem_write(ctx, p, n);
}

Test(obf_write, the_mapping_parser_reads_it_back, .init = setup, .fini = teardown)
{
    mem_sink out = {0};
    hs_sink sink = {to_buf, &out};
    hs_mapping_frame fr[2];
    hs_mapping *m;
    hs_error err;
    char b[64];

    cr_assert_not_null(cls("com/example/Foo", 0));
    cr_assert_not_null(cls("com.example.Foo$Inner", 1));
    g_nm.field(g_nm.ctx, S("com/example/Foo"), S("secret"), 11);
    g_nm.field(g_nm.ctx, S("com/example/Foo"), S("owner"), 2);
    g_nm.frames(g_nm.ctx, S("com/example/Foo"), S("pay"),
                S("(Lcom/example/Foo$Inner;[IJ)[Ljava/lang/String;"), S("Foo.kt"), 7, fr, 2);
    g_nm.frames(g_nm.ctx, S("com/example/Foo"), S("<init>"), S("()V"), S("Foo.kt"), 3, fr, 2);
    cr_assert_eq(hs_obf_write(&g_o, &sink), HS_OK);
    cr_assert_not_null(memmem(out.data, out.len, S("com.example.Foo -> o.a:\n")));
    cr_assert_not_null(memmem(out.data, out.len, S("    long secret -> a\n")));
    cr_assert_not_null(memmem(out.data, out.len, S("    java.lang.Object owner -> b\n")));
    cr_assert_not_null(memmem(out.data, out.len,
                              S("    java.lang.String[] pay(com.example.Foo$Inner,int[],long) -> a\n")));
    cr_assert_not_null(memmem(out.data, out.len, S("    void <init>() -> <init>\n")));
    m = hs_mapping_parse((const char *)out.data, out.len, "m.txt", NULL, &err);
    cr_assert_not_null(m, "%s", err.message);
    cr_assert_str_eq(hs_mapping_class(m, NULL, S("o.a")), "com.example.Foo");
    cr_assert_str_eq(hs_mapping_class(m, NULL, S("o.b")), "com.example.Foo$Inner");
    cr_assert_eq(hs_mapping_class_jvm(m, NULL, S("[Lo/a;"), b, sizeof b), strlen("[Lcom/example/Foo;"));
    cr_assert_str_eq(b, "[Lcom/example/Foo;");
    cr_assert_str_eq(hs_mapping_field(m, NULL, S("o/a"), S("a")), "secret");
    cr_assert_str_eq(hs_mapping_field(m, NULL, S("o/a"), S("b")), "owner");
    cr_assert_eq(hs_mapping_frames(m, NULL, S("o/a"), S("a"), 7, fr, 2), 1);
    cr_assert_str_eq(fr[0].method, "pay");
    cr_assert_str_eq(fr[0].source, "Foo.kt");
    cr_assert_eq(fr[0].line, 7, "lines are kept");
    cr_assert_eq(hs_mapping_frames(m, NULL, S("o/a"), S("<init>"), 3, fr, 2), 1);
    cr_assert_str_eq(fr[0].source, "Foo.kt", "<init>'s source restored too");
    hs_mapping_free(m);
    free(out.data);
}

Test(obf_write, a_failing_sink, .init = setup, .fini = teardown)
{
    mem_sink out = {0};
    hs_sink sink = {to_buf, &out};

    out.fail_after = 1;
    cr_assert_not_null(cls("com/example/Foo", 0));
    cr_assert_eq(hs_obf_write(&g_o, &sink), HS_E_WRITE);
    free(out.data);
}

/* ---- a run through the library ---------------------------------------------------------- */

Test(obf_run, no_original_name_left_and_the_map_restores)
{
    dump d;
    hs_rules *rules = hs_rules_create(NULL), *back = hs_rules_create(NULL);
    hs_options opt = {0};
    hs_filter *f;
    mem_src src = {0};
    mem_sink out = {0}, map = {0};
    hs_source in;
    hs_sink dst = {to_buf, &out}, mdst = {to_buf, &map};
    run_result r;

    dg_init(&d, "JAVA PROFILE 1.0.2", 8);
    dg_string(&d, 1, "com/example/Secret");
    dg_string(&d, 2, "cardNumber");
    dg_string(&d, 3, "java/lang/Object");
    dg_string(&d, 4, "unusedSecretString");
    dg_load_class(&d, 1, 0x100, 1);
    dg_load_class(&d, 2, 0x200, 3);
    dg_begin(&d, 0x1c);
    dg_class(&d, 0x100, 0x200, 2);
    dg_instance(&d, 0x1000, 0x100, 4 + 8, 0x11);
    dg_end(&d);
    dg_begin(&d, 0x2c);
    dg_end(&d);
    cr_assert(hs_rules_preset(rules, "none", NULL) == HS_OK);
    opt.obfuscate_names = 1;
    f = hs_filter_create(rules, &opt, NULL);
    cr_assert_eq(hs_filter_obfuscation_map(f, &mdst), HS_E_USAGE, "before the run");
    src.data = d.p;
    src.len = d.len;
    src.fail_at = -1;
    in = (hs_source){.read = mem_read, .ctx = &src};
    cr_assert_eq(hs_filter_run(f, &in, &dst), HS_OK, "%s", hs_filter_error(f)->message);
    cr_assert_eq(hs_filter_obfuscation_map(f, &mdst), HS_OK);
    cr_assert_null(memmem(out.data, out.len, S("com/example/Secret")));
    cr_assert_null(memmem(out.data, out.len, S("cardNumber")));
    cr_assert_null(memmem(out.data, out.len, S("unusedSecretString")), "-p none, yet dropped");
    cr_assert_not_null(memmem(out.data, out.len, S("java/lang/Object")));
    cr_assert_not_null(memmem(out.data, out.len, S("o/a")));
    cr_assert_not_null(memmem(map.data, map.len, S("com.example.Secret -> o.a:\n")));
    cr_assert_not_null(memmem(map.data, map.len, S(" cardNumber -> a\n")));
    hs_filter_free(f);
    /* and back */
    cr_assert(hs_rules_mapping(back, (const char *)map.data, map.len, "m.txt", NULL) == HS_OK);
    r = run_with_rules(out.data, out.len, back, NULL, 0);
    cr_assert_eq(r.status, HS_OK, "%s", r.err.message);
    cr_assert_not_null(memmem(r.out, r.out_len, S("com/example/Secret")));
    cr_assert_not_null(memmem(r.out, r.out_len, S("cardNumber")));
    cr_assert_eq(r.st.mapping_classes_renamed, 1);
    cr_assert_eq(r.st.mapping_fields_renamed, 11, "nine statics, two instance fields");
    run_result_free(&r);
    /* not with a mapping */
    opt.obfuscate_names = 1;
    f = hs_filter_create(back, &opt, NULL);
    src.pos = 0;
    cr_assert_eq(hs_filter_run(f, &in, &dst), HS_E_USAGE);
    hs_filter_free(f);
    free(out.data);
    free(map.data);
    dg_free(&d);
    hs_rules_free(rules);
    hs_rules_free(back);
}
