/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_oracle.c - every dump the tests read, through rule sets built from
 * every preset and every strings, fields and array setting, --to-jvm and
 * the duplicate finder, each at three read windows: the output must hold
 * exactly what tests/unit/oracle.c works out from the input, hs_stats must say
 * so too, and the window must not change one output byte or counter.
 *
 * The whole cross product runs on hand-built dumps and the fixtures; every
 * dump the suites read (the corpus, build/fresh: a fresh JVM dump and its
 * ART-style copy by build/artdump) gets a sample that varies every setting, so the
 * suite stays within a few minutes.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "count_alloc.h"
#include "helpers.h"
#include "oracle.h"

typedef struct {
    int preset;  /* index into presets[] */
    int strings; /* 0 keep, 1 drop-unused */
    int fields;  /* 0 keep, 1 zero, 2 zero + keep-field String.coder */
    int array;   /* index into actions[] */
    int to_jvm, dups;
    int nonzero; /* hs_options.count_nonzero */
    int typed;   /* and a rule keeping byte and char arrays of 64 bytes up */
} cfg;

static const char *const presets[] = {"none", "default", "privacy", "android-app"};
static const struct {
    const char *text;
    int action;
    uint64_t arg;
} actions[] = {{"keep", OA_KEEP, 0},        {"zero", OA_ZERO, 0},
               {"fill 0x5a", OA_FILL, 0x5a}, {"prefix 3", OA_PREFIX, 3},
               {"empty", OA_EMPTY, 0},       {"drop", OA_DROP, 0}};

/* The windows each configuration runs at; the second reads in place. */
static const size_t windows[] = {64, 4096, 1 << 20};

static size_t rule_text(const cfg *c, char *buf, size_t cap)
{
    return (size_t)snprintf(buf, cap, "preset %s\nstrings %s\nfields %s\n%sarrays all %s\n%s",
                            presets[c->preset], c->strings ? "drop-unused" : "keep",
                            c->fields ? "zero" : "keep",
                            c->fields == 2 ? "keep-field java.lang.String.coder\n" : "",
                            actions[c->array].text,
                            c->typed ? "arrays byte,char keep min 64\n" : "");
}

static void model_of(const cfg *c, o_model *m)
{
    cr_assert(o_model_preset(m, presets[c->preset]));
    m->drop_unused = c->strings;
    m->fields_zero = c->fields != 0;
    if (c->fields == 2)
        m->keep[m->n_keep++] = "java.lang.String.coder";
    m->arr[m->n_arr++] = (o_arr_rule){0x0ff0, 0, actions[c->array].action, actions[c->array].arg};
    if (c->typed)
        m->arr[m->n_arr++] = (o_arr_rule){1u << 5 | 1u << 8, 64, OA_KEEP, 0};
    m->to_jvm = c->to_jvm;
}

static hs_rules *rules_of(const cfg *c)
{
    char text[512];
    size_t n = rule_text(c, text, sizeof text);
    hs_rules *r = hs_rules_create(NULL);
    hs_error e;

    cr_assert_not_null(r);
    cr_assert_eq(hs_rules_parse(r, text, n, "oracle", &e), HS_OK, "%s", e.message);
    return r;
}

static void describe(const cfg *c, char *buf, size_t cap)
{
    char text[512];
    size_t i;

    rule_text(c, text, sizeof text);
    for (i = 0; text[i]; i++)
        if (text[i] == '\n')
            text[i] = ';';
    snprintf(buf, cap, "[%s]%s%s%s", text, c->to_jvm ? " --to-jvm" : "",
             c->dups ? " dups" : "", c->nonzero ? " count-nonzero" : "");
}

/* Names the counters that differ between two runs' stats. */
static void stat_diff(const hs_stats *a, const hs_stats *b, char *buf, size_t cap)
{
    size_t n = 0;

    buf[0] = 0;
#define F(x)                                                                     \
    if (memcmp(&a->x, &b->x, sizeof a->x) != 0 && n < cap)                        \
        n += (size_t)snprintf(buf + n, cap - n, " %s", #x);
    F(bytes_in) F(bytes_out) F(records_in) F(records_out) F(subrecords_in)
    F(subrecords_out) F(segments_out) F(instances) F(object_arrays)
    F(primitive_arrays) F(class_dumps) F(roots) F(payload_bytes_zeroed)
    F(payload_bytes_dropped) F(arrays_dropped) F(strings_in) F(strings_out)
    F(strings_dropped) F(roots_dropped) F(objects_dropped) F(roots_held_peak)
    F(held_bytes_peak) F(salvaged_bytes) F(field_bytes_scrubbed) F(instances_held)
    F(instance_bytes_held_peak) F(instance_bytes_spilled_peak) F(instances_unresolved)
    F(nonzero_array_bytes) F(first_nonzero_array) F(nonzero_field_bytes)
    F(first_nonzero_field) F(dup_arrays) F(dup_bytes) F(dup_top)
#undef F
}

/* One configuration over one dump at every window. Returns 1 when it held. */
static int check_one(const char *name, const uint8_t *in, size_t len, const cfg *c)
{
    hs_rules *rules = rules_of(c);
    o_model m;
    o_summary want, got;
    run_result first = {0};
    hs_stats st[3];
    char what[700], msg[400];
    size_t w;
    int ok = 1, ran = 0;

    model_of(c, &m);
    describe(c, what, sizeof what);
    for (w = 0; w < sizeof windows / sizeof *windows; w++) {
        hs_options opt;
        run_result r;
        memset(&r, 0, sizeof r);
        memset(&opt, 0, sizeof opt);
        opt.read_buffer = windows[w];
        opt.find_duplicates = c->dups;
        opt.count_nonzero = c->nonzero;
        opt.to_jvm = c->to_jvm;
        r = run_with_rules(in, len, rules, &opt, w == 1 ? CHUNK_MAPPED : 0);
        st[w] = r.st;
        if (r.status != HS_OK) {
            cr_expect_fail("%s %s window %zu: %s", name, what, windows[w], r.err.message);
            ok = 0;
            run_result_free(&r);
            break;
        } else if (w == 0) {
            first = r;
            ran = 1;
            continue;
        } else if (r.out_len != first.out_len || memcmp(r.out, first.out, r.out_len) != 0) {
            cr_expect_fail("%s %s: the output at window %zu differs from window %zu", name,
                           what, windows[w], windows[0]);
            ok = 0;
        } else if (memcmp(&r.st, &first.st, sizeof r.st) != 0) {
            char diff[300];
            stat_diff(&r.st, &first.st, diff, sizeof diff);
            cr_expect_fail("%s %s: hs_stats at window %zu differ from window %zu in:%s", name,
                           what, windows[w], windows[0], diff);
            ok = 0;
        }
        run_result_free(&r);
    }
    if (ran) { /* the content too, even when the windows disagree */
        want = o_expect(in, len, &m, c->dups);
        got = o_actual(first.out, first.out_len);
        for (w = 0; w < sizeof windows / sizeof *windows; w++)
            if (o_compare(&want, &got, &m, &st[w], c->dups, c->nonzero, msg, sizeof msg)) {
                cr_expect_fail("%s %s window %zu: %s", name, what, windows[w], msg);
                ok = 0;
                break;
            }
        o_summary_free(&want);
        o_summary_free(&got);
    }
    run_result_free(&first);
    hs_rules_free(rules);
    return ok;
}

/* Failures reported per dump before the rest of its configurations are
 * skipped (one bug fails many configurations the same way); ORACLE_ALL=1
 * in the environment runs them all. */
static int fail_cap(int cap)
{
    const char *all = getenv("ORACLE_ALL");

    return all && *all == '1' ? 1 << 30 : cap;
}

/* Every combination, for one preset (-1: each). */
static void full_matrix(const char *name, const uint8_t *in, size_t len, int preset)
{
    cfg c;
    int fails;

    memset(&c, 0, sizeof c);
    for (c.dups = 0; c.dups < 2; c.dups++) {
        fails = 0;
        for (c.preset = preset < 0 ? 0 : preset; c.preset < (preset < 0 ? 4 : preset + 1);
             c.preset++)
            for (c.strings = 0; c.strings < 2; c.strings++)
                for (c.fields = 0; c.fields < 3; c.fields++)
                    for (c.array = 0; c.array < 6; c.array++)
                        for (c.to_jvm = 0; c.to_jvm < 2 && fails < fail_cap(6); c.to_jvm++) {
                            c.nonzero = c.dups || c.fields;
                            c.typed = c.array == 2;
                            fails += !check_one(name, in, len, &c);
                        }
    }
}

/* A sample of n configurations: the array action cycles with k (six in a
 * row cover them all), the other settings step at other rates and start
 * where `salt` (one per dump) says, so different dumps meet different
 * combinations. The preset is `preset`'s, or (-1) steps with the rest. */
static void sampled(const char *name, const uint8_t *in, size_t len, unsigned salt, unsigned n,
                    int preset)
{
    unsigned k;
    int fails = 0;

    for (k = 0; k < n && fails < fail_cap(4); k++) {
        unsigned x = k * 7 + salt * 5;
        cfg c;
        c.preset = preset >= 0 ? preset : (int)(x % 4);
        c.strings = (int)((x / 4 + k) % 2);
        c.fields = (int)((x / 8 + salt) % 3);
        c.array = (int)((k + salt) % 6);
        c.to_jvm = (int)((k / 2 + salt) % 2);
        c.dups = (int)((k + salt / 2) % 2);
        c.nonzero = (int)((k / 3) % 2);
        c.typed = (int)(k % 3 == 0);
        fails += !check_one(name, in, len, &c);
    }
}

static uint8_t *load_or_skip(const char *path, size_t *len)
{
    uint8_t *p = load_file(path, len);

    if (!p)
        cr_skip_test("%s is missing (make check writes build/fresh)", path);
    return p;
}

Test(oracle, handbuilt_full_matrix, .timeout = 120)
{
    static const struct {
        unsigned idsize;
        int android;
    } v[] = {{4, 0}, {8, 0}, {4, 1}, {8, 1}};
    size_t i;

    for (i = 0; i < 4; i++) {
        dump d;
        char name[40];
        dg_everything(&d, v[i].idsize, v[i].android);
        snprintf(name, sizeof name, "dg_everything(%u,%d)", v[i].idsize, v[i].android);
        full_matrix(name, d.p, d.len, -1);
        dg_free(&d);
    }
}

/* The fixtures' matrix is a long sweep too (144 configurations per
 * fixture and preset): where the sweeps are sampled (HS_TEST_DUMPS=K, make
 * test and the sanitizer lanes) it takes 24 of them, every array action
 * among them, from a start HS_TEST_SEED moves; make test-long runs it
 * whole. */
#define FIXTURE_SAMPLE 24

static void fixture_matrix(const char *path, int preset)
{
    const char *k = getenv("HS_TEST_DUMPS"), *seed = getenv("HS_TEST_SEED");
    size_t len;
    uint8_t *in = load_or_skip(path, &len);

    if (k && strtoul(k, NULL, 10) > 0) {
        unsigned salt = (unsigned)(seed && *seed ? strtoull(seed, NULL, 0) : 0);
        cr_log_info("HS_TEST_DUMPS=%s: %d of the 144 configurations", k, FIXTURE_SAMPLE);
        sampled(path, in, len, salt + (unsigned)preset, FIXTURE_SAMPLE, preset);
    } else {
        full_matrix(path, in, len, preset);
    }
    free(in);
}

/* The fixtures, the whole cross product, a test per fixture and preset so
 * that --jobs spreads them. */
#define FIXTURE_TESTS(tag, path)                                                          \
    Test(oracle, tag##_none, .timeout = 300) { fixture_matrix(path, 0); }                  \
    Test(oracle, tag##_default, .timeout = 300) { fixture_matrix(path, 1); }               \
    Test(oracle, tag##_privacy, .timeout = 300) { fixture_matrix(path, 2); }               \
    Test(oracle, tag##_android_app, .timeout = 300) { fixture_matrix(path, 3); }

FIXTURE_TESTS(jvm7_agent, "fixtures/jvm7-hprof-agent.hprof")
FIXTURE_TESTS(jvm17, "fixtures/jvm17-64bit.hprof")
FIXTURE_TESTS(android, "fixtures/android-art2025-ahat-test-dump.hprof")

/* The corpus and build/fresh: every dump dump_paths_sampled() lists, a few
 * configurations each. */
Test(oracle, every_dump_sampled, .timeout = 400)
{
    const char *const *p = dump_paths_sampled();
    unsigned salt = 3;

    for (; *p; p++, salt++) {
        size_t len;
        uint8_t *in = load_file(*p, &len);
        if (!in)
            continue;
        sampled(*p, in, len, salt, len > (16u << 20) ? 4 : 8, -1);
        free(in);
    }
}

/* ---- the duplicate finder on arrays larger than the read window ------------- */

#define BIG (2u << 20)

/* A dump of byte arrays of BIG bytes, each a copy of one pseudo-random
 * pattern with byte edits[i] (when not -1) changed: equal edits, equal
 * arrays. */
static void big_arrays(dump *d, const long *edits, size_t n)
{
    size_t i, j;
    uint32_t x = 12345;

    dg_init(d, "JAVA PROFILE 1.0.2", 8);
    dg_begin(d, 0x1C);
    for (i = 0; i < n; i++) {
        uint8_t *p;
        dg_prim_array(d, 0x100 + i, 8, BIG, 0);
        p = d->p + d->len - BIG;
        for (x = 12345, j = 0; j < BIG; j++) {
            x = x * 1103515245u + 12345u;
            p[j] = (uint8_t)(x >> 16);
        }
        if (edits[i] >= 0)
            p[edits[i]] ^= 0xff;
    }
    dg_end(d);
    dg_begin(d, 0x2C);
    dg_end(d);
}

static void expect_dups(const long *edits, size_t n, uint64_t copies)
{
    static const size_t win[] = {0, 64, 4096, 1 << 20};
    dump d;
    size_t w;

    big_arrays(&d, edits, n);
    for (w = 0; w < 4; w++) {
        hs_options opt;
        run_result r;
        memset(&opt, 0, sizeof opt);
        opt.find_duplicates = 1;
        opt.read_buffer = win[w];
        r = run_filter(d.p, d.len, "default", &opt, w == 2 ? CHUNK_MAPPED : 0);
        cr_assert_eq(r.status, HS_OK, "%s", r.err.message);
        cr_expect_eq(r.st.dup_arrays[8], copies, "window %zu: %llu duplicate byte arrays, not %llu",
                     win[w], (unsigned long long)r.st.dup_arrays[8], (unsigned long long)copies);
        cr_expect_eq(r.st.dup_bytes[8], copies * BIG, "window %zu", win[w]);
        cr_expect_eq(r.st.dup_top[0].wasted, copies * BIG, "window %zu", win[w]);
        if (copies)
            cr_expect_eq(r.st.dup_top[0].length_bytes, BIG, "window %zu", win[w]);
        run_result_free(&r);
    }
    dg_free(&d);
}

/* Arrays that differ in one byte, at the start, the middle, a window edge
 * or the end, are not duplicates whatever the window. */
Test(oracle_dups, different_large_arrays_are_not_duplicates, .timeout = 60)
{
    const long edits[] = {-1, 0, BIG / 2 + 3, 4096, 1 << 20, BIG - 1};

    expect_dups(edits, 6, 0);
}

Test(oracle_dups, equal_large_arrays_are_duplicates, .timeout = 60)
{
    const long edits[] = {-1, 7, -1, BIG - 1, -1};

    expect_dups(edits, 5, 2);
}

/* ---- keep-field and the non-zero counters on a hand-built String --------- */

/* java/lang/String with a byte `coder` and an int `hash`, and one String
 * (0x500) whose coder is 1 and hash 0x12345678; the instance first when
 * `instance_first` (as ART may write it), in a 1.0.3 dump then. Sets
 * `*hash_at` to the input offset of the hash value. */
static void string_dump(dump *d, int instance_first, size_t *hash_at)
{
    int k;

    dg_init(d, instance_first ? "JAVA PROFILE 1.0.3" : "JAVA PROFILE 1.0.2", 8);
    dg_string(d, 1, "java/lang/String");
    dg_string(d, 2, "coder");
    dg_string(d, 3, "hash");
    dg_string(d, 4, "unused");
    dg_load_class(d, 1, 0x400, 1);
    dg_begin(d, 0x1C);
    for (k = 0; k < 2; k++) {
        if ((k == 0) == (instance_first != 0)) {
            dg_instance(d, 0x500, 0x400, 5, 0);
            d->p[d->len - 5] = 1;
            *hash_at = d->len - 4;
            memcpy(d->p + d->len - 4, "\x12\x34\x56\x78", 4);
            continue;
        }
        dg_u1(d, 0x20);
        dg_id(d, 0x400);
        dg_u4(d, 1);
        dg_id(d, 0); /* super, loader, signers, domain, reserved x2 */
        dg_id(d, 0);
        dg_id(d, 0);
        dg_id(d, 0);
        dg_id(d, 0);
        dg_id(d, 0);
        dg_u4(d, 5);
        dg_u2(d, 0); /* constant pool */
        dg_u2(d, 0); /* statics */
        dg_u2(d, 2);
        dg_id(d, 2);
        dg_u1(d, 8);
        dg_id(d, 3);
        dg_u1(d, 10);
    }
    dg_end(d);
    dg_begin(d, 0x2C);
    dg_end(d);
}

/* The String's five field bytes in `out`, found by its id. */
static const uint8_t *string_fields(const run_result *r)
{
    static const uint8_t head[] = {0x21, 0, 0, 0, 0, 0, 0, 0x05, 0x00};
    size_t i;

    for (i = 0; i + sizeof head + 4 + 8 + 4 + 5 <= r->out_len; i++)
        if (memcmp(r->out + i, head, sizeof head) == 0)
            return r->out + i + sizeof head + 4 + 8 + 4;
    return NULL;
}

/* keep-field holds whatever the strings setting (it did nothing unless
 * unused strings were dropped); the other field is zeroed all the same. */
Test(oracle_fields, keep_field_whatever_the_strings_setting)
{
    static const char *const text[] = {"preset privacy\nstrings keep\n",
                                       "preset privacy\nstrings drop-unused\n",
                                       ("preset none\nfields zero\n"
                                        "keep-field java.lang.String.coder\n")};
    int order, t;

    for (order = 0; order < 2; order++)
        for (t = 0; t < 3; t++) {
            dump d;
            size_t hash_at;
            hs_rules *rules = hs_rules_create(NULL);
            run_result r;
            const uint8_t *f;
            string_dump(&d, order, &hash_at);
            cr_assert_eq(hs_rules_parse(rules, text[t], strlen(text[t]), "t", NULL), HS_OK);
            r = run_with_rules(d.p, d.len, rules, NULL, 0);
            cr_assert_eq(r.status, HS_OK, "%s", r.err.message);
            f = string_fields(&r);
            cr_assert_not_null(f, "the String is missing");
            cr_expect_eq(f[0], 1, "[%s] order %d: String.coder is %u, not 1", text[t], order,
                         f[0]);
            cr_expect(memcmp(f + 1, "\0\0\0\0", 4) == 0, "[%s] order %d: hash not zeroed",
                      text[t], order);
            run_result_free(&r);
            hs_rules_free(rules);
            dg_free(&d);
        }
}

/* count_nonzero says where the first non-zero field byte it zeroed was,
 * whether the instance came after its class or was held for it. */
Test(oracle_fields, first_nonzero_field_is_set)
{
    int order;

    for (order = 0; order < 2; order++) {
        dump d;
        size_t hash_at;
        hs_options opt;
        run_result r;
        string_dump(&d, order, &hash_at);
        memset(&opt, 0, sizeof opt);
        opt.count_nonzero = 1;
        r = run_filter(d.p, d.len, "privacy", &opt, 0);
        cr_assert_eq(r.status, HS_OK, "%s", r.err.message);
        cr_expect_eq(r.st.nonzero_field_bytes, 4, "order %d: %llu", order,
                     (unsigned long long)r.st.nonzero_field_bytes);
        cr_expect_eq(r.st.first_nonzero_field, hash_at, "order %d: first_nonzero_field %llu, "
                     "the hash is at %zu", order,
                     (unsigned long long)r.st.first_nonzero_field, hash_at);
        run_result_free(&r);
        dg_free(&d);
    }
}

/* ---- allocation failures on every path ------------------------------------- */

static char oom_msg[320]; /* the last failed run's message */

/* Builds the rules from `text` and runs them over `in`, everything through
 * the counting allocator, which fails its Nth call when asked. */
static hs_status run_failing(count_state *c, const char *text, const uint8_t *in, size_t len,
                             const hs_options *opt)
{
    hs_alloc a = COUNT_ALLOC(c);
    mem_src src = {in, len, 0, 0, -1, NULL};
    mem_sink sink = {NULL, 0, 0, 0};
    hs_source s = {.read = mem_read, .ctx = &src};
    hs_sink k = {mem_write, &sink};
    hs_rules *rules = hs_rules_create(&a);
    hs_filter *f;
    hs_status st;

    if (!rules)
        return HS_E_NOMEM;
    st = hs_rules_parse(rules, text, strlen(text), "oom", NULL);
    if (st != HS_OK) {
        hs_rules_free(rules);
        return st;
    }
    f = hs_filter_create(rules, opt, &a);
    if (!f) {
        hs_rules_free(rules);
        return HS_E_NOMEM;
    }
    st = hs_filter_run(f, &s, &k);
    cr_expect(st == HS_OK ? hs_filter_error(f) == NULL
                          : hs_filter_error(f) != NULL && hs_filter_error(f)->code == st,
              "the error does not match status %d", st);
    snprintf(oom_msg, sizeof oom_msg, "%s", st == HS_OK ? "" : hs_filter_error(f)->message);
    hs_filter_free(f);
    hs_rules_free(rules);
    free(sink.data);
    return st;
}

/* Fails each allocation in turn: every one gives HS_E_NOMEM, none leaks,
 * and one past the last the run succeeds. */
static void every_allocation(const char *name, const char *text, const uint8_t *in, size_t len,
                             const hs_options *opt)
{
    count_state c = {0};
    size_t n, total;
    int bad = 0;

    cr_assert_eq(run_failing(&c, text, in, len, opt), HS_OK, "%s [%s]", name, text);
    cr_expect_eq(c.blocks, 0, "%s [%s]: leak on success", name, text);
    total = c.calls;
    for (n = 1; n <= total + 1 && bad < 3; n++) {
        hs_status st;
        memset(&c, 0, sizeof c);
        c.fail_at = n;
        st = run_failing(&c, text, in, len, opt);
        if (st != (n <= total ? HS_E_NOMEM : HS_OK) || c.blocks != 0) {
            cr_expect_fail("%s [%s]: failing allocation %zu of %zu gave status %d (%s), %zu "
                           "blocks leaked",
                           name, text, n, total, st, oom_msg, c.blocks);
            bad++;
        }
    }
}

static const char *const oom_rules[] = {
    "preset none\n",
    "preset default\n",
    "preset privacy\n",
    "preset android-app\n",
    "preset privacy\nstrings keep\n",
    ("preset android-app\nfields zero\nkeep-field java.lang.String.coder\n"
     "arrays char prefix 2\narrays byte empty min 4\n"),
};

static void oom_sweep(const char *name, const uint8_t *in, size_t len)
{
    size_t i;
    int mode;

    for (i = 0; i < sizeof oom_rules / sizeof *oom_rules; i++)
        for (mode = 0; mode < 3; mode++) {
            hs_options opt;
            memset(&opt, 0, sizeof opt);
            opt.find_duplicates = mode >= 1;
            opt.count_nonzero = mode >= 1;
            opt.histogram = mode >= 1;
            opt.to_jvm = mode == 2;
            opt.read_buffer = 4096;
            every_allocation(name, oom_rules[i], in, len, &opt);
        }
}

Test(oracle_oom, handbuilt_every_preset, .timeout = 120)
{
    dump d;
    size_t hash_at;
    int android;

    for (android = 0; android < 2; android++) {
        dg_everything(&d, android ? 4 : 8, android);
        oom_sweep(android ? "dg_everything android" : "dg_everything", d.p, d.len);
        dg_free(&d);
    }
    string_dump(&d, 1, &hash_at); /* an instance held for its class */
    oom_sweep("held String", d.p, d.len);
    dg_free(&d);
}

/* The Android fixture: held instances, heaps, NODATA arrays. */
Test(oracle_oom, android_fixture, .timeout = 300)
{
    static const char *const text[] = {"preset android-app\n", "preset privacy\n"};
    size_t len, i;
    uint8_t *in = load_or_skip("fixtures/android-art2025-ahat-test-dump.hprof", &len);

    for (i = 0; i < 2; i++) {
        hs_options opt;
        memset(&opt, 0, sizeof opt);
        opt.find_duplicates = 1;
        opt.histogram = 1;
        opt.to_jvm = 1;
        every_allocation("android fixture", text[i], in, len, &opt);
    }
    free(in);
}

/* ---- the oracle itself -------------------------------------------------------- */

/* It sees a wrong byte in an array, a field or a string, and a rule that
 * was not applied: an oracle that passes everything proves nothing. */
Test(oracle_self, catches_wrong_outputs)
{
    dump d;
    size_t hash_at, i;
    o_model m;
    o_summary want, got;
    run_result r;
    char msg[400];
    uint8_t *copy;

    string_dump(&d, 0, &hash_at);
    cr_assert(o_model_preset(&m, "none"));
    r = run_filter(d.p, d.len, "none", NULL, 0);
    cr_assert_eq(r.status, HS_OK);
    want = o_expect(d.p, d.len, &m, 0);
    got = o_actual(r.out, r.out_len);
    cr_expect_eq(o_compare(&want, &got, &m, &r.st, 0, 0, msg, sizeof msg), 0, "%s", msg);
    o_summary_free(&got);
    /* a field byte changed */
    copy = malloc(r.out_len);
    memcpy(copy, r.out, r.out_len);
    copy[hash_at] ^= 1; /* "none" writes the input as it is */
    got = o_actual(copy, r.out_len);
    cr_expect_eq(o_compare(&want, &got, &m, &r.st, 0, 0, msg, sizeof msg), 1);
    cr_expect(strstr(msg, "instances") != NULL, "%s", msg);
    o_summary_free(&got);
    /* a string's text changed */
    memcpy(copy, r.out, r.out_len);
    for (i = 0; i + 6 < r.out_len && memcmp(copy + i, "unused", 6) != 0; i++)
        ;
    copy[i] = 'U';
    got = o_actual(copy, r.out_len);
    cr_expect_eq(o_compare(&want, &got, &m, &r.st, 0, 0, msg, sizeof msg), 1);
    cr_expect(strstr(msg, "strings") != NULL, "%s", msg);
    o_summary_free(&got);
    o_summary_free(&want);
    /* fields zero expected, none applied */
    m.fields_zero = 1;
    want = o_expect(d.p, d.len, &m, 0);
    got = o_actual(r.out, r.out_len);
    cr_expect_eq(o_compare(&want, &got, &m, &r.st, 0, 0, msg, sizeof msg), 1);
    o_summary_free(&got);
    o_summary_free(&want);
    free(copy);
    run_result_free(&r);
    dg_free(&d);

    /* an array payload byte changed, and a prefix one element short */
    dg_one_array(&d, 10, 16, 0x33);
    cr_assert(o_model_preset(&m, "none"));
    m.arr[m.n_arr++] = (o_arr_rule){0x0ff0, 0, OA_PREFIX, 3};
    r = run_filter(d.p, d.len, "none", NULL, 0);
    cr_assert_eq(r.status, HS_OK);
    want = o_expect(d.p, d.len, &m, 0);
    got = o_actual(r.out, r.out_len);
    cr_expect_eq(o_compare(&want, &got, &m, &r.st, 0, 0, msg, sizeof msg), 1);
    cr_expect(strstr(msg, "primitive arrays") != NULL, "%s", msg);
    o_summary_free(&got);
    o_summary_free(&want);
    run_result_free(&r);
    dg_free(&d);
}

/* The brute-force duplicate count the sweep trusts. */
Test(oracle_self, counts_duplicates)
{
    const long edits[] = {-1, 5, -1, BIG - 1, -1, 5};
    dump d;
    o_model m;
    o_summary s;

    big_arrays(&d, edits, 6);
    cr_assert(o_model_preset(&m, "default"));
    s = o_expect(d.p, d.len, &m, 1);
    cr_expect_eq(s.dup_arrays[8], 3); /* two more of the plain one, one more of edit 5 */
    cr_expect_eq(s.dup_bytes[8], 3ull * BIG);
    cr_expect_eq(s.dup_top_wasted, 3ull * BIG);
    cr_expect_eq(s.bytes_zeroed, 6ull * BIG);
    cr_expect_gt(s.nonzero_arrays, 0);
    o_summary_free(&s);
    dg_free(&d);
}

/* Runs of objects the filter walks in one loop (fastpath.c, hs_fast_run), and
 * every thing that must end a run: a root right before its object in a
 * dropped heap (dropped with it) or before another object, an object with a
 * root held, a Thread object in a dropped heap, a primitive array in a kept
 * heap, a heap switch, the end of a record, a read window of 64 bytes. */
static void run_heap(dump *d, unsigned idsize, uint32_t heap, uint64_t base, unsigned n)
{
    unsigned k;

    dg_heap_info(d, heap, heap == 'A' ? 0x118 : 0x110);
    for (k = 0; k < n; k++) {
        uint64_t id = base + 8 * k;
        if (k % 5 == 0)
            dg_root(d, k % 10 ? 0x8D : 0xFF, id); /* right before its object */
        if (k % 7 == 3)
            dg_root(d, 0x89, id + 8); /* before another object */
        switch (k % 3) {
        case 0: dg_instance(d, id, 0x1000, 4 + idsize, (uint8_t)k); break;
        case 1: dg_obj_array(d, id, 0x1000, k % 4); break;
        default: dg_prim_array(d, id, 4 + k % 8, k % 6, 0xA5); break;
        }
    }
}

static void runs_dump(dump *d, unsigned idsize)
{
    dg_init(d, "JAVA PROFILE 1.0.3", idsize);
    dg_string(d, 0x100, "java.lang.Object");
    dg_string(d, 0x108, "value");
    dg_string(d, 0x110, "zygote");
    dg_string(d, 0x118, "app");
    dg_load_class(d, 1, 0x1000, 0x100);
    dg_begin(d, 0x1C);
    dg_root(d, 0x08, 0x9000 + 8 * 12); /* a Thread object in the zygote heap */
    dg_root(d, 0x01, 0x9000 + 8 * 20); /* held until its object, mid-run */
    dg_root(d, 0x01, 0x8000 + 8 * 9);
    dg_root(d, 0xFF, 0x7777); /* its object never comes */
    dg_class(d, 0x1000, 0, 0x108);
    run_heap(d, idsize, 'Z', 0x9000, 40);
    run_heap(d, idsize, 'A', 0x8000, 30);
    dg_end(d);
    dg_begin(d, 0x1C); /* a second record: runs end with the first */
    run_heap(d, idsize, 'I', 0xA000, 40);
    run_heap(d, idsize, 'A', 0xB000, 10);
    run_heap(d, idsize, 'Z', 0xC000, 12);
    dg_end(d);
    dg_begin(d, 0x2C);
    dg_end(d);
}

Test(oracle, object_runs_full_matrix, .timeout = 120)
{
    unsigned idsize;

    for (idsize = 4; idsize <= 8; idsize += 4) {
        dump d;
        char name[40];
        runs_dump(&d, idsize);
        snprintf(name, sizeof name, "runs_dump(%u)", idsize);
        full_matrix(name, d.p, d.len, -1);
        dg_free(&d);
    }
}
