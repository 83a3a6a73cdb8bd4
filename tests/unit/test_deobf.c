/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_deobf.c - a mapping applied to the stream (src/lib/deobf.c): class,
 * array-class, field and frame names on hand-built dumps of both id sizes
 * and both spellings (HotSpot's com/ex/a, ART's com.ex.a[]), the fresh ids
 * and their collisions with the input's, the counters a caller warns from,
 * max_held counting the mapping, zero-copy input left untouched (a file
 * input.c maps is patched in place, privately, by a run on the input:
 * hs_filter_run_input and hs_job_run; the file keeps its bytes),
 * and the API around it (hs_rules_mapping, the rule-file directive).
 */
#define _DEFAULT_SOURCE /* mkstemp */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hasher.h"
#include "helpers.h"
#include "input.h"
#include "sha256.h"

#define MAP                                                                          \
    "# compiler: R8\n"                                                               \
    "# {\"id\":\"com.android.tools.r8.mapping\",\"version\":\"2.2\"}\n"              \
    "com.ex.Orig -> com.ex.a:\n"                                                     \
    "# {\"id\":\"sourceFile\",\"fileName\":\"Orig.kt\"}\n"                           \
    "    int count -> f\n"                                                           \
    "    long total -> s\n"                                                          \
    "    1:9:void work():101:109 -> m\n"                                             \
    "    20:20:void deep():7:7 -> m\n"                                               \
    "    20:20:void outer():55 -> m\n"

#define FRESH8 0xFFFFFFF000000000ull
#define FRESH4 0xFF000000ull

enum { S_CLASS = 0x10, S_FIELD, S_ARRAY, S_METHOD, S_SOURCE, S_STATIC };

/* A dump: the class com.ex.a and its array class, a frame in method m at
 * `line`, and the class's dump with a static `s` and a field `f`. An extra
 * STRING `extra_id` ("x") goes before the LOAD_CLASSes (before = 1) or
 * after them; none when 0. */
static void build(dump *d, unsigned idsize, int art, int line, uint64_t extra_id, int before)
{
    dg_init(d, art ? "JAVA PROFILE 1.0.3" : "JAVA PROFILE 1.0.2", idsize);
    if (extra_id && before)
        dg_string(d, extra_id, "x");
    dg_string(d, S_CLASS, art ? "com.ex.a" : "com/ex/a");
    dg_string(d, S_FIELD, "f");
    dg_string(d, S_ARRAY, art ? "com.ex.a[]" : "[Lcom/ex/a;");
    dg_string(d, S_METHOD, "m");
    dg_string(d, S_SOURCE, "SourceFile");
    dg_string(d, S_STATIC, "s");
    dg_load_class(d, 1, 0x100, S_CLASS);
    dg_load_class(d, 2, 0x101, S_ARRAY);
    if (extra_id && !before)
        dg_string(d, extra_id, "x");
    dg_begin(d, 0x04); /* STACK_FRAME */
    dg_id(d, 0x300);
    dg_id(d, S_METHOD);
    dg_id(d, 0);
    dg_id(d, S_SOURCE);
    dg_u4(d, 1);
    dg_u4(d, (uint32_t)line);
    dg_end(d);
    dg_begin(d, 0x1c);
    dg_u1(d, 0x20);
    dg_id(d, 0x100);
    dg_u4(d, 1);
    for (int k = 0; k < 6; k++)
        dg_id(d, 0);
    dg_u4(d, 4);
    dg_u2(d, 0);
    dg_u2(d, 1); /* static long s */
    dg_id(d, S_STATIC);
    dg_u1(d, 11);
    dg_u8(d, 7);
    dg_u2(d, 1); /* field int f */
    dg_id(d, S_FIELD);
    dg_u1(d, 10);
    dg_end(d);
    dg_begin(d, 0x2c);
    dg_end(d);
}

/* What a deobfuscated dump says, read back here. */
typedef struct {
    char cls[2][64], stat[32], field[32], method[32], source[32];
    int32_t line;
    uint64_t class_name_id, field_id, min_fresh;
    int strings, duplicate_ids, undefined;
} names;

static uint64_t be(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    while (n--)
        v = v << 8 | *p++;
    return v;
}

#define MAX_STR 64
static struct {
    uint64_t id;
    char text[64];
} g_str[MAX_STR];
static int g_nstr;

static const char *text_of(names *r, uint64_t id)
{
    for (int k = 0; k < g_nstr; k++)
        if (g_str[k].id == id)
            return g_str[k].text;
    r->undefined++;
    return "?";
}

static names read_names(const uint8_t *p, size_t n)
{
    names r;
    size_t at = strlen((const char *)p) + 1;
    unsigned i = (unsigned)be(p + at, 4);
    int ncls = 0;

    memset(&r, 0, sizeof r);
    r.min_fresh = UINT64_MAX;
    g_nstr = 0;
    for (at += 12; at + 9 <= n;) {
        const uint8_t *b = p + at + 9;
        uint32_t len = (uint32_t)be(p + at + 5, 4);
        if (p[at] == 0x01 && g_nstr < MAX_STR) {
            uint64_t id = be(b, i);
            for (int k = 0; k < g_nstr; k++)
                r.duplicate_ids += g_str[k].id == id;
            g_str[g_nstr].id = id;
            snprintf(g_str[g_nstr].text, 64, "%.*s", (int)(len - i), (const char *)b + i);
            g_nstr++;
            r.strings++;
            if (id >= FRESH4 && id < r.min_fresh)
                r.min_fresh = id;
        } else if (p[at] == 0x02 && ncls < 2) {
            if (!ncls)
                r.class_name_id = be(b + 4 + i + 4, i);
            snprintf(r.cls[ncls++], 64, "%s", text_of(&r, be(b + 4 + i + 4, i)));
        } else if (p[at] == 0x04) {
            snprintf(r.method, 32, "%s", text_of(&r, be(b + i, i)));
            snprintf(r.source, 32, "%s", text_of(&r, be(b + 3 * i, i)));
            r.line = (int32_t)be(b + 4 * i + 4, 4);
        } else if (p[at] == 0x1c && len) { /* the class dump, alone */
            const uint8_t *c = b + 1 + 7 * i + 8 + 2 + 2;
            snprintf(r.stat, 32, "%s", text_of(&r, be(c, i)));
            c += i + 1 + 8 + 2;
            r.field_id = be(c, i);
            snprintf(r.field, 32, "%s", text_of(&r, r.field_id));
        }
        at += 9 + (size_t)len;
    }
    return r;
}

static hs_rules *rules_with(const char *preset, const char *map)
{
    hs_rules *r = hs_rules_create(NULL);
    hs_error err;

    cr_assert(r);
    cr_assert_eq(hs_rules_preset(r, preset, NULL), HS_OK);
    if (map)
        cr_assert_eq(hs_rules_mapping(r, map, strlen(map), "t.map", &err), HS_OK, "%s",
                     err.message);
    return r;
}

static run_result run_map(const dump *d, const char *preset, const char *map,
                          const hs_options *opt, size_t chunk)
{
    hs_rules *r = rules_with(preset, map);
    run_result res = run_with_rules(d->p, d->len, r, opt, chunk);

    hs_rules_free(r);
    return res;
}

static void check_renamed(unsigned idsize, int art, const char *preset)
{
    dump d;
    run_result res;
    names nm;

    build(&d, idsize, art, 5, 0, 0);
    res = run_map(&d, preset, MAP, NULL, 0);
    cr_assert_eq(res.status, HS_OK, "%s", res.err.message);
    nm = read_names(res.out, res.out_len);
    cr_expect_str_eq(nm.cls[0], art ? "com.ex.Orig" : "com/ex/Orig");
    cr_expect_str_eq(nm.cls[1], art ? "com.ex.Orig[]" : "[Lcom/ex/Orig;");
    cr_expect_str_eq(nm.field, "count");
    cr_expect_str_eq(nm.stat, "total");
    cr_expect_str_eq(nm.method, "work");
    cr_expect_str_eq(nm.source, "Orig.kt");
    cr_expect_eq(nm.line, 105); /* 101 + (5 - 1) */
    cr_expect_eq(nm.undefined, 0);
    cr_expect_eq(nm.duplicate_ids, 0);
    cr_expect_eq(nm.min_fresh, idsize == 8 ? FRESH8 : FRESH4);
    cr_expect_eq(res.st.mapping_classes_renamed, 2);
    cr_expect_eq(res.st.mapping_fields_renamed, 2);
    cr_expect_eq(res.st.mapping_frames_renamed, 1);
    /* 2 class names, count, total, work, Orig.kt */
    cr_expect_eq(res.st.mapping_strings_added, 6);
    run_result_free(&res);
    dg_free(&d);
}

Test(deobf, hotspot_names_8byte_ids)
{
    check_renamed(8, 0, "default");
}

Test(deobf, hotspot_names_4byte_ids)
{
    check_renamed(4, 0, "default");
}

Test(deobf, art_dotted_names)
{
    check_renamed(4, 1, "default");
}

Test(deobf, with_every_preset)
{
    check_renamed(8, 0, "none");
    check_renamed(8, 0, "privacy");
    check_renamed(4, 1, "android-app");
}

/* An inline chain is one STACK_FRAME: the outermost original frame, at the
 * line of the inlined call. */
Test(deobf, inline_chain_takes_the_outermost)
{
    dump d;
    run_result res;
    names nm;

    build(&d, 8, 0, 20, 0, 0);
    res = run_map(&d, "default", MAP, NULL, 0);
    cr_assert_eq(res.status, HS_OK, "%s", res.err.message);
    nm = read_names(res.out, res.out_len);
    cr_expect_str_eq(nm.method, "outer");
    cr_expect_eq(nm.line, 55);
    run_result_free(&res);
    dg_free(&d);
}

/* Unused strings dropped: the obfuscated class name goes (nothing names it
 * now), the original names stay, every name is defined before its use. */
Test(deobf, dropped_strings_keep_the_new_ones)
{
    dump d;
    run_result res;
    walk_result w;

    build(&d, 8, 0, 5, 0, 0);
    res = run_map(&d, "default", MAP, NULL, 0);
    cr_assert_eq(res.status, HS_OK);
    w = walk_dump(res.out, res.out_len, 0);
    cr_assert(w.ok, "%s", w.error);
    cr_expect_eq(w.string_refs_undefined, 0);
    cr_expect_eq(w.strings_unused, 0);
    (void)read_names(res.out, res.out_len); /* fills g_str */
    for (int k = 0; k < g_nstr; k++)
        cr_expect_str_neq(g_str[k].text, "com/ex/a");
    walk_free(&w);
    run_result_free(&res);
    dg_free(&d);
}

/* One field name, one STRING, written before the heap dump. */
Test(deobf, field_strings_before_the_heap_dump)
{
    dump d;
    run_result res;
    size_t at, heap = 0, field_at = 0;
    unsigned i = 8;
    names nm;

    build(&d, 8, 0, 5, 0, 0);
    res = run_map(&d, "none", MAP, NULL, 0);
    cr_assert_eq(res.status, HS_OK);
    nm = read_names(res.out, res.out_len);
    at = strlen((const char *)res.out) + 1 + 12;
    while (at + 9 <= res.out_len) {
        if (res.out[at] == 0x1c && !heap)
            heap = at;
        if (res.out[at] == 0x01 && be(res.out + at + 9, i) == nm.field_id)
            field_at = at;
        at += 9 + (size_t)be(res.out + at + 5, 4);
    }
    cr_expect(field_at && heap && field_at < heap);
    run_result_free(&res);
    dg_free(&d);
}

Test(deobf, input_id_in_the_fresh_range_is_skipped)
{
    dump d;
    run_result res;
    names nm;

    build(&d, 8, 0, 5, FRESH8, 1); /* the input uses the first fresh id first */
    res = run_map(&d, "none", MAP, NULL, 0);
    cr_assert_eq(res.status, HS_OK, "%s", res.err.message);
    nm = read_names(res.out, res.out_len);
    cr_expect_eq(nm.duplicate_ids, 0);
    cr_expect_str_eq(nm.cls[0], "com/ex/Orig");
    cr_expect_eq(nm.class_name_id, FRESH8 + 1);
    run_result_free(&res);
    dg_free(&d);
}

Test(deobf, input_id_given_out_already_fails)
{
    dump d;
    run_result res;

    build(&d, 4, 0, 5, FRESH4, 0); /* after the LOAD_CLASS took FRESH4 */
    res = run_map(&d, "default", MAP, NULL, 0);
    cr_expect_eq(res.status, HS_E_UNSUPPORTED);
    cr_expect(strstr(res.err.message, "STRING id 0xff000000 is one this library already gave"),
              "%s", res.err.message);
    run_result_free(&res);
    dg_free(&d);
}

/* A mapping that matches nothing: the run succeeds, the counters say so,
 * and the output is what it is without the mapping. */
Test(deobf, no_match_counts_zero)
{
    static const char other[] = "com.other.Thing -> zz.y:\n    int q -> f\n";
    dump d;
    run_result a, b;

    build(&d, 8, 0, 5, 0, 0);
    a = run_map(&d, "default", other, NULL, 0);
    b = run_map(&d, "default", NULL, NULL, 0);
    cr_assert_eq(a.status, HS_OK);
    cr_expect_eq(a.st.mapping_classes_renamed + a.st.mapping_fields_renamed +
                     a.st.mapping_frames_renamed + a.st.mapping_strings_added,
                 0);
    cr_expect_eq(a.out_len, b.out_len);
    cr_expect(a.out_len == b.out_len && memcmp(a.out, b.out, a.out_len) == 0);
    run_result_free(&a);
    run_result_free(&b);
    dg_free(&d);
}

Test(deobf, max_held_counts_the_mapping)
{
    hs_options opt;
    dump d;
    run_result a, b;

    memset(&opt, 0, sizeof opt);
    opt.max_held = 2048; /* the mapping's tables alone are more */
    build(&d, 8, 0, 5, 0, 0);
    a = run_map(&d, "none", MAP, &opt, 0);
    b = run_map(&d, "none", NULL, &opt, 0);
    cr_expect_eq(a.status, HS_E_LIMIT);
    cr_expect(strstr(a.err.message, "deobfuscation mapping"), "%s", a.err.message);
    cr_expect_eq(b.status, HS_OK);
    run_result_free(&a);
    run_result_free(&b);
    dg_free(&d);
}

/* Zero-copy input, mapped or lent: the names are patched in a copy, never
 * in the caller's bytes, and the output is the one a read source gets. */
Test(deobf, zero_copy_input_untouched)
{
    dump d;
    run_result a, b, c;
    uint8_t *copy;

    build(&d, 8, 0, 5, 0, 0);
    copy = malloc(d.len);
    memcpy(copy, d.p, d.len);
    a = run_map(&d, "privacy", MAP, NULL, CHUNK_MAPPED);
    b = run_map(&d, "privacy", MAP, NULL, 7);
    c = run_map(&d, "privacy", MAP, NULL, CHUNK_LENT | 5);
    cr_assert_eq(a.status, HS_OK);
    cr_expect(memcmp(copy, d.p, d.len) == 0);
    cr_expect(a.out_len == b.out_len && memcmp(a.out, b.out, a.out_len) == 0);
    cr_expect(c.out_len == b.out_len && memcmp(c.out, b.out, b.out_len) == 0);
    free(copy);
    run_result_free(&a);
    run_result_free(&b);
    run_result_free(&c);
    dg_free(&d);
}

#define TMP_TEMPLATE "/tmp/hs-test-deobf-XXXXXX"

/* `d` in a temporary file, opened by path (mapped); the path in `path`. */
static hs_input *mapped_input(const dump *d, char path[sizeof TMP_TEMPLATE])
{
    int fd;
    hs_error err;
    hs_input *in;

    memcpy(path, TMP_TEMPLATE, sizeof TMP_TEMPLATE);
    fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, d->p, d->len), (ssize_t)d->len);
    close(fd);
    in = hs_input_open_path(path, &err);
    cr_assert_not_null(in, "%s", err.message);
    return in;
}

/* A run over `in` (hs_filter_run_input when `on_input`, else hs_filter_run
 * over its source, as a caller's source) with MAP: its output must be
 * `want`'s. */
static void run_on(hs_input *in, int on_input, const run_result *want)
{
    hs_rules *r = rules_with("privacy", MAP);
    hs_filter *f = hs_filter_create(r, NULL, NULL);
    mem_sink sink = {NULL, 0, 0, 0};
    hs_sink k = {mem_write, &sink};
    hs_status s;

    cr_assert_not_null(f);
    s = on_input ? hs_filter_run_input(f, in, &k) : hs_filter_run(f, hs_input_source(in), &k);
    cr_assert_eq(s, HS_OK, "%s", hs_filter_error(f)->message);
    cr_expect(sink.len == want->out_len && memcmp(sink.data, want->out, want->out_len) == 0,
              "the same bytes as through a read source");
    hs_filter_free(f);
    hs_rules_free(r);
    free(sink.data);
}

/* The input's bytes in place, as mapped (or lent), still there after the
 * run: a dump of a few hundred bytes is one page, never given back. */
static const void *in_place(hs_input *in, size_t len)
{
    uint64_t size = 0;
    const void *data = hs_input_data(in, &size);

    cr_assert_not_null(data, "read in place");
    cr_assert_eq(size, len);
    return data;
}

/* A file input.c mapped is patched where it lies by a run on the input
 * (hs_filter_run_input: copying it all cost up to a third more CPU, issue
 * #38), privately: the output is the one a read source gets, and the file
 * keeps its bytes. The same input given to hs_filter_run as a source, the
 * caller's memory, and a hashed input are never written (read by copy). */
Test(deobf, mapped_file_patched_in_place_privately)
{
    char path[sizeof TMP_TEMPLATE];
    dump d;
    run_result want;
    hs_input *in;
    size_t len;
    uint8_t *after, *copy;

    build(&d, 4, 1, 5, 0, 0);
    want = run_map(&d, "privacy", MAP, NULL, 7);
    cr_assert_eq(want.status, HS_OK, "%s", want.err.message);

    in = mapped_input(&d, path);
    run_on(in, 1, &want);
    cr_expect(memcmp(in_place(in, d.len), d.p, d.len) != 0, "the names patched in the mapping");
    hs_input_close(in);
    after = load_file(path, &len);
    cr_expect(len == d.len && memcmp(after, d.p, d.len) == 0, "the file is as it was");
    free(after);
    unlink(path);

    /* a source the caller hands in: its bytes are not the filter's */
    in = mapped_input(&d, path);
    run_on(in, 0, &want);
    cr_expect(memcmp(in_place(in, d.len), d.p, d.len) == 0, "hs_filter_run: read by copy");
    hs_input_close(in);
    unlink(path);

    /* the caller's memory: never ours to write, on the input or not */
    copy = malloc(d.len);
    cr_assert_not_null(copy);
    memcpy(copy, d.p, d.len);
    in = hs_input_open_memory(copy, d.len, NULL);
    cr_assert_not_null(in);
    cr_expect_eq(hs_input_writable(in), 0, "memory lent by the caller");
    run_on(in, 1, &want);
    cr_expect(memcmp(copy, d.p, d.len) == 0, "the caller's memory as it was");
    hs_input_close(in);
    free(copy);

    /* hashed as its pages are given back (the report's SHA-256), after the
     * filter: left as read */
    in = mapped_input(&d, path);
    {
        hs_hasher *h = hs_hasher_start(0);
        cr_assert_not_null(h);
        hs_input_hash(in, h);
        cr_expect_eq(hs_input_writable(in), 0, "a hashed input");
        run_on(in, 1, &want);
        cr_expect(memcmp(in_place(in, d.len), d.p, d.len) == 0, "a hashed input as read");
        hs_input_hash_end(in, d.len);
        hs_input_close(in);
        hs_hasher_free(h);
    }
    unlink(path);
    run_result_free(&want);
    dg_free(&d);
}

/* The CLI's run (hs_job_run, --mapping) patches a mapped input in place,
 * as hs_filter_run_input does; with a report, whose SHA-256 of the input
 * is taken from the pages the filter went through, it leaves them as read,
 * and the digest is the file's. */
Test(deobf, job_patches_in_place_unless_hashed)
{
    char path[sizeof TMP_TEMPLATE], map_path[] = "/tmp/hs-test-deobf-map-XXXXXX";
    dump d;
    run_result want;
    int fd, hashed;

    build(&d, 8, 0, 5, 0, 0);
    want = run_map(&d, "privacy", MAP, NULL, 7);
    cr_assert_eq(want.status, HS_OK, "%s", want.err.message);
    fd = mkstemp(map_path);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, MAP, strlen(MAP)), (ssize_t)strlen(MAP));
    close(fd);
    for (hashed = 0; hashed < 2; hashed++) {
        hs_job job;
        mem_sink sink = {NULL, 0, 0, 0};
        hs_output *out = hs_output_open_write(mem_write, &sink, HS_COMPRESS_NONE, 0, 1, NULL);
        hs_input *in = mapped_input(&d, path);
        char *report = NULL, hex[HS_SHA256_HEX], want_sha[32 + HS_SHA256_HEX];
        uint8_t digest[HS_SHA256_BYTES];
        hs_sha256 sha;
        int rc;

        cr_assert_not_null(out);
        memset(&job, 0, sizeof job);
        job.size = sizeof job;
        job.preset = "privacy";
        job.mapping_path = map_path;
        job.threads = 1;
        rc = hs_job_run(&job, in, out, hashed ? &report : NULL);
        cr_assert_eq(rc, 0, "%.400s", report ? report : "");
        cr_expect(sink.len == want.out_len && memcmp(sink.data, want.out, want.out_len) == 0,
                  "the same bytes as through a read source");
        if (!hashed) {
            cr_expect(memcmp(in_place(in, d.len), d.p, d.len) != 0, "patched in the mapping");
        } else {
            cr_expect(memcmp(in_place(in, d.len), d.p, d.len) == 0, "hashed: left as read");
            hs_sha256_init(&sha);
            hs_sha256_update(&sha, d.p, d.len);
            hs_sha256_final(&sha, digest);
            hs_sha256_hex(digest, hex);
            snprintf(want_sha, sizeof want_sha, "\"sha256\":{\"file\":\"%s\"", hex);
            cr_expect(report && strstr(report, want_sha), "the file's digest: %.600s", report);
        }
        hs_free(report);
        hs_input_close(in);
        hs_output_close(out);
        free(sink.data);
        unlink(path);
    }
    unlink(map_path);
    run_result_free(&want);
    dg_free(&d);
}

Test(deobf, histogram_names_the_original_class)
{
    hs_options opt;
    dump d;
    hs_rules *r;
    hs_filter *f;
    const hs_class_count *rows;
    mem_src src;
    mem_sink sink = {NULL, 0, 0, 0};
    hs_source s = {.read = mem_read, .ctx = &src};
    hs_sink k = {mem_write, &sink};
    int found = 0;

    memset(&opt, 0, sizeof opt);
    opt.histogram = 1;
    dg_init(&d, "JAVA PROFILE 1.0.2", 8);
    dg_string(&d, S_CLASS, "com/ex/a");
    dg_load_class(&d, 1, 0x100, S_CLASS);
    dg_begin(&d, 0x1c);
    dg_instance(&d, 0x500, 0x100, 4, 0);
    dg_end(&d);
    dg_begin(&d, 0x2c);
    dg_end(&d);
    src = (mem_src){d.p, d.len, 0, 0, -1, NULL};
    r = rules_with("default", MAP);
    f = hs_filter_create(r, &opt, NULL);
    cr_assert_eq(hs_filter_run(f, &s, &k), HS_OK);
    for (size_t j = hs_filter_histogram(f, &rows); j-- > 0;)
        found += strcmp(rows[j].name, "com.ex.Orig") == 0 && rows[j].instances_in == 1;
    cr_expect_eq(found, 1);
    hs_filter_free(f);
    hs_rules_free(r);
    free(sink.data);
    dg_free(&d);
}

/* ---- the API around it -------------------------------------------------------- */

Test(deobf, malformed_mapping_is_a_usage_error)
{
    hs_rules *r = hs_rules_create(NULL);
    hs_error err;
    static const char bad[] = "a.B -> a:\n    int x y\n";

    cr_expect_eq(hs_rules_mapping(r, bad, strlen(bad), "m.txt", &err), HS_E_USAGE);
    cr_expect(strncmp(err.message, "m.txt:2:", 8) == 0, "%s", err.message);
    cr_expect_null(hs_rules_mapping_file(r));
    hs_rules_free(r);
}

Test(deobf, rule_file_directive)
{
    hs_rules *r = hs_rules_create(NULL);
    hs_error err;
    char buf[512];
    static const char rel[] = "preset default\nmapping maps/app map.txt # comment\n";
    static const char abs[] = "mapping /abs/m.txt\n";

    cr_assert_eq(hs_rules_parse(r, rel, strlen(rel), "conf/r.rules", &err), HS_OK, "%s",
                 err.message);
    cr_expect_str_eq(hs_rules_mapping_file(r), "conf/maps/app map.txt");
    hs_rules_print(r, buf, sizeof buf);
    cr_expect(strstr(buf, "mapping conf/maps/app map.txt\n"), "%s", buf);
    cr_assert_eq(hs_rules_parse(r, abs, strlen(abs), "conf/r.rules", &err), HS_OK);
    cr_expect_str_eq(hs_rules_mapping_file(r), "/abs/m.txt");
    cr_assert_eq(hs_rules_mapping(r, MAP, strlen(MAP), "/abs/m.txt", &err), HS_OK);
    cr_expect_null(hs_rules_mapping_file(r)); /* loaded: nothing waits */
    cr_expect_eq(hs_rules_parse(r, "mapping\n", 8, "x", &err), HS_E_USAGE);
    cr_assert_eq(hs_rules_preset(r, "none", NULL), HS_OK); /* none drops the mapping */
    hs_rules_print(r, buf, sizeof buf);
    cr_expect_null(strstr(buf, "mapping"), "%s", buf);
    hs_rules_free(r);
}

/* A class the mapping lists under its own name (ProGuard lists every kept
 * class) keeps its STRING, but its renamed members are still renamed. */
Test(deobf, class_kept_by_name_members_renamed)
{
    static const char kept[] = "com.ex.a -> com.ex.a:\n    int count -> f\n"
                               "    1:9:void work():101:109 -> m\n";
    dump d;
    run_result res;
    names nm;

    build(&d, 8, 0, 5, 0, 0);
    res = run_map(&d, "none", kept, NULL, 0);
    cr_assert_eq(res.status, HS_OK, "%s", res.err.message);
    nm = read_names(res.out, res.out_len);
    cr_expect_str_eq(nm.cls[0], "com/ex/a");
    cr_expect_eq(nm.class_name_id, S_CLASS);
    cr_expect_str_eq(nm.field, "count");
    cr_expect_str_eq(nm.method, "work");
    cr_expect_eq(res.st.mapping_classes_renamed, 0);
    cr_expect_eq(res.st.mapping_fields_renamed, 1);
    cr_expect_eq(res.st.mapping_frames_renamed, 1);
    cr_expect_eq(res.st.mapping_strings_added, 2);
    run_result_free(&res);
    dg_free(&d);
}
