/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_audit.c - issue #35: no byte goes out unexamined under rules that
 * remove values (records of unknown tag dropped, STRINGs too long to be
 * names zeroed), and the findings say where the data is: Class.field with
 * its objects and bytes, the array type, the record and the string.
 */
#define _GNU_SOURCE /* memmem */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

static const char secret[] = "creditcard=4111111111111111";

/* A record of tag 0x7f holding the secret. */
static void unknown_record(dump *d)
{
    dg_begin(d, 0x7f);
    dg_bytes(d, secret, sizeof secret - 1);
    dg_end(d);
}

/* A STRING of `id` a little over 1 MiB, the secret at its start and end. */
static void long_string(dump *d, uint64_t id)
{
    size_t n = (1u << 20) + 64, i;

    dg_begin(d, 0x01);
    dg_id(d, id);
    dg_bytes(d, secret, sizeof secret - 1);
    for (i = 0; i < n - 2 * (sizeof secret - 1); i++)
        dg_u1(d, 'x');
    dg_bytes(d, secret, sizeof secret - 1);
    dg_end(d);
}

/* class com/example/Secret (0x50): instance fields long card, int pin, a
 * reference owner; a static long KEY; `n` instances, card non-zero in all
 * of them, pin in every other one. Secrets in unknown records before the
 * heap dump and between its segments, and two long STRINGs, one used as
 * a frame's method name (0x30) and one used by nothing (0x31). */
static void secret_dump(dump *d, unsigned n)
{
    unsigned k;

    dg_init(d, "JAVA PROFILE 1.0.2", 8);
    dg_string(d, 0x10, "com/example/Secret");
    dg_string(d, 0x11, "card");
    dg_string(d, 0x12, "pin");
    dg_string(d, 0x13, "owner");
    dg_string(d, 0x14, "KEY");
    long_string(d, 0x30);
    long_string(d, 0x31);
    dg_load_class(d, 1, 0x50, 0x10);
    dg_begin(d, 0x04); /* STACK_FRAME: its method name is 0x30 */
    dg_id(d, 0x900);
    dg_id(d, 0x30);
    dg_id(d, 0x11);
    dg_id(d, 0x11);
    dg_u4(d, 1);
    dg_u4(d, 7);
    dg_end(d);
    unknown_record(d);
    dg_begin(d, 0x1C);
    dg_u1(d, 0x20); /* CLASS_DUMP */
    dg_id(d, 0x50);
    dg_u4(d, 1);
    dg_id(d, 0); /* super */
    dg_id(d, 0);
    dg_id(d, 0);
    dg_id(d, 0);
    dg_id(d, 0);
    dg_id(d, 0);
    dg_u4(d, 8 + 4 + 8);
    dg_u2(d, 0); /* constant pool */
    dg_u2(d, 1); /* statics: long KEY */
    dg_id(d, 0x14);
    dg_u1(d, 11);
    dg_u8(d, 0x5ec2e7a15ec2e7a1ull);
    dg_u2(d, 3); /* instance fields */
    dg_id(d, 0x11);
    dg_u1(d, 11);
    dg_id(d, 0x12);
    dg_u1(d, 10);
    dg_id(d, 0x13);
    dg_u1(d, 2);
    dg_end(d);
    unknown_record(d); /* between the segments */
    dg_begin(d, 0x1C);
    for (k = 0; k < n; k++) {
        dg_u1(d, 0x21);
        dg_id(d, 0x1000 + 8 * k);
        dg_u4(d, 1);
        dg_id(d, 0x50);
        dg_u4(d, 20);
        dg_u8(d, 0x4111111111111111ull); /* card: 8 non-zero bytes */
        dg_u4(d, k % 2 ? 0 : 0x00000707); /* pin: 2 non-zero bytes, or none */
        dg_id(d, 0x777);                  /* owner: a reference, kept */
    }
    dg_prim_array(d, 0x2000, 8, 16, 'S'); /* byte[16] of data */
    dg_end(d);
    dg_begin(d, 0x2C);
    dg_end(d);
}

/* A run with findings, the rows copied out (names included). */
typedef struct {
    run_result r;
    hs_finding *rows;
    size_t n;
} found;

static found run_found(const uint8_t *in, size_t len, const char *preset)
{
    hs_rules *rules = hs_rules_create(NULL);
    hs_options opt = {.findings = 1};
    mem_src src = {in, len, 0, 0, -1, NULL};
    mem_sink sink = {NULL, 0, 0, 0};
    hs_source s = {.read = mem_read, .ctx = &src};
    hs_sink k = {mem_write, &sink};
    hs_filter *f;
    const hs_finding *rows;
    found x;
    size_t i;

    memset(&x, 0, sizeof x);
    cr_assert_eq(hs_rules_preset(rules, preset, NULL), HS_OK);
    f = hs_filter_create(rules, &opt, NULL);
    cr_assert(f);
    x.r.status = hs_filter_run(f, &s, &k);
    if (x.r.status != HS_OK)
        x.r.err = *hs_filter_error(f);
    hs_filter_stats(f, &x.r.st);
    x.n = hs_filter_findings(f, &rows);
    x.rows = calloc(x.n + 1, sizeof *x.rows);
    for (i = 0; i < x.n; i++) {
        x.rows[i] = rows[i];
        x.rows[i].name = strdup(rows[i].name);
    }
    hs_filter_free(f);
    hs_rules_free(rules);
    x.r.out = sink.data;
    x.r.out_len = sink.len;
    return x;
}

static void found_free(found *x)
{
    size_t i;

    for (i = 0; i < x->n; i++)
        free((char *)(uintptr_t)x->rows[i].name);
    free(x->rows);
    run_result_free(&x->r);
}

static const hs_finding *find(const found *x, int kind, const char *name)
{
    size_t i;

    for (i = 0; i < x->n; i++)
        if (x->rows[i].kind == kind && strcmp(x->rows[i].name, name) == 0)
            return &x->rows[i];
    return NULL;
}

static size_t count_kind(const found *x, int kind)
{
    size_t i, n = 0;

    for (i = 0; i < x->n; i++)
        n += x->rows[i].kind == kind;
    return n;
}

/* -p privacy leaves none of the secrets, and says what it dropped. These
 * failed on the main of issue #35: the unknown records and the long
 * STRINGs went through as they were. */
Test(audit, privacy_leaves_no_secret)
{
    static const char *const presets[] = {"privacy", "default", "android-app"};
    dump d;
    size_t k;

    secret_dump(&d, 5);
    for (k = 0; k < 3; k++) {
        run_result r = run_filter(d.p, d.len, presets[k], NULL, 4096);
        walk_result w;
        cr_assert_eq(r.status, HS_OK, "%s: %s", presets[k], r.err.message);
        cr_expect(memmem(r.out, r.out_len, secret, sizeof secret - 1) == NULL,
                  "-p %s left the secret", presets[k]);
        cr_expect_eq(r.st.unknown_records_dropped, 2, "%s", presets[k]);
        cr_expect_eq(r.st.strings_unheld, 2, "%s", presets[k]);
        w = walk_dump(r.out, r.out_len, 0);
        cr_expect(w.ok, "%s: %s", presets[k], w.error);
        cr_expect_eq(w.string_refs_undefined, 0, "%s: the used long STRING is still there",
                     presets[k]);
        walk_free(&w);
        run_result_free(&r);
    }
    dg_free(&d);
}

/* Rules that change no value copy every byte as it was: -p none is the
 * identity, unknown records and long STRINGs included. */
Test(audit, none_is_still_the_identity)
{
    dump d;
    run_result r;

    secret_dump(&d, 5);
    r = run_filter(d.p, d.len, "none", NULL, 0);
    cr_assert_eq(r.status, HS_OK, "%s", r.err.message);
    cr_expect(r.out_len == d.len && memcmp(r.out, d.p, d.len) == 0);
    cr_expect_eq(r.st.unknown_records_dropped, 0);
    run_result_free(&r);
    dg_free(&d);
}

/* The findings name the field, its objects and bytes exactly; the static;
 * the array type; each record with its offset; each long STRING by id. */
Test(audit, findings_say_where)
{
    dump d;
    found x;
    const hs_finding *card, *pin, *key, *arr;
    size_t i;

    secret_dump(&d, 5);
    x = run_found(d.p, d.len, "privacy");
    cr_assert_eq(x.r.status, HS_OK, "%s", x.r.err.message);
    card = find(&x, HS_FIND_FIELD, "com.example.Secret.card");
    pin = find(&x, HS_FIND_FIELD, "com.example.Secret.pin");
    key = find(&x, HS_FIND_STATIC, "com.example.Secret.KEY");
    arr = find(&x, HS_FIND_ARRAY, "byte[]");
    cr_assert(card && pin && key && arr, "card %d pin %d KEY %d byte[] %d", card != NULL,
              pin != NULL, key != NULL, arr != NULL);
    cr_expect_eq(card->count, 5);
    cr_expect_eq(card->bytes, 40);
    cr_expect_eq(pin->count, 3);
    cr_expect_eq(pin->bytes, 6);
    cr_expect_eq(key->bytes, 8);
    cr_expect_eq(arr->count, 1);
    cr_expect_eq(arr->bytes, 16);
    cr_expect(find(&x, HS_FIND_FIELD, "com.example.Secret.owner") == NULL,
              "a reference is no finding");
    cr_expect_eq(x.r.st.nonzero_field_bytes, card->bytes + pin->bytes + key->bytes);
    /* the two records, each at its own offset, in input order */
    cr_expect_eq(count_kind(&x, HS_FIND_RECORD), 2);
    for (i = 0; i < x.n; i++)
        if (x.rows[i].kind == HS_FIND_RECORD) {
            cr_expect_eq(x.rows[i].id, 0x7f);
            cr_expect_eq(x.rows[i].bytes, sizeof secret - 1);
            cr_expect_eq(d.p[x.rows[i].first_offset], 0x7f, "offset %llu",
                         (unsigned long long)x.rows[i].first_offset);
            cr_expect_str_eq(x.rows[i].name, "record tag 0x7f");
        }
    cr_expect(find(&x, HS_FIND_STRING_LONG, "STRING 0x30") != NULL);
    cr_expect(find(&x, HS_FIND_STRING_LONG, "STRING 0x31") != NULL);
    cr_expect_eq(x.r.st.nonzero_string_bytes, 2 * ((1u << 20) + 64));
    /* unused: "owner"'s name is used by the class dump; 0x31 is long */
    cr_expect_eq(count_kind(&x, HS_FIND_STRING_UNUSED), 0);
    found_free(&x);
    dg_free(&d);
}

/* What -p privacy writes has nothing left to find. */
Test(audit, privacy_output_is_clean)
{
    dump d;
    run_result r;
    found x;

    secret_dump(&d, 5);
    r = run_filter(d.p, d.len, "privacy", NULL, 0);
    cr_assert_eq(r.status, HS_OK, "%s", r.err.message);
    x = run_found(r.out, r.out_len, "privacy");
    cr_assert_eq(x.r.status, HS_OK, "%s", x.r.err.message);
    cr_expect_eq(x.n, 0, "first finding: %s", x.n ? x.rows[0].name : "");
    cr_expect_eq(x.r.st.nonzero_field_bytes + x.r.st.nonzero_array_bytes +
                     x.r.st.nonzero_string_bytes + x.r.st.unknown_records_dropped,
                 0);
    found_free(&x);
    run_result_free(&r);
    dg_free(&d);
}

/* An unused STRING is named by its id and offset. */
Test(audit, unused_string_by_id)
{
    dump d;
    found x;
    const hs_finding *u;

    dg_init(&d, "JAVA PROFILE 1.0.2", 4);
    dg_string(&d, 0x44, "SECRET-UNUSED");
    dg_begin(&d, 0x1C);
    dg_end(&d);
    dg_begin(&d, 0x2C);
    dg_end(&d);
    x = run_found(d.p, d.len, "privacy");
    cr_assert_eq(x.r.status, HS_OK, "%s", x.r.err.message);
    u = find(&x, HS_FIND_STRING_UNUSED, "STRING 0x44");
    cr_assert(u);
    cr_expect_eq(u->id, 0x44);
    cr_expect_eq(u->bytes, 13);
    cr_expect_eq(u->first_offset, 31); /* right after the 1.0.2 header */
    found_free(&x);
    dg_free(&d);
}

/* No filter, or a run without the option: no rows. */
Test(audit, no_findings_without_the_option)
{
    const hs_finding *rows = (const hs_finding *)&rows;
    dump d;
    run_result r;

    cr_expect_eq(hs_filter_findings(NULL, &rows), 0);
    cr_expect_null(rows);
    cr_expect_eq(hs_filter_findings(NULL, NULL), 0);
    secret_dump(&d, 2);
    r = run_filter(d.p, d.len, "privacy", NULL, 0); /* counts, without places */
    cr_assert_eq(r.status, HS_OK, "%s", r.err.message);
    cr_expect_eq(r.st.nonzero_field_bytes, 0, "count_nonzero is off");
    cr_expect_eq(r.st.unknown_records_dropped, 2);
    run_result_free(&r);
    dg_free(&d);
}
