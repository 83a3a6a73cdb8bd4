/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_findings.c - bugs found by the damage sweep (test_sweep.c) and the
 * rule-file fuzzer (fuzz/fuzz_rules.c), each reduced to a few bytes: a test
 * fails while its bug is open and guards the fix after. The fuzzer's
 * reproducers are also in fuzz/regress/rules/ (see fuzz/regress/README.md).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

/* ---- the damage sweep ------------------------------------------------------ */

/* A dump whose last record has a tag no HPROF defines and a length running
 * far past the end of the input: what one flipped bit in a record tag does
 * to a real dump (the sweep met it in android-api19-dialer,
 * android-art2025-ahat, jvm-mat-sample and jvm6-64bit). */
static void unknown_record_cut(dump *d, uint32_t claimed)
{
    static const uint8_t body[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

    dg_init(d, "JAVA PROFILE 1.0.2", 8);
    dg_string(d, 0x10, "java.lang.Object");
    dg_u1(d, 0x74);
    dg_u4(d, 0);
    dg_u4(d, claimed);
    dg_bytes(d, body, sizeof body);
}

/* --salvage completed a record cut short with zeros up to its declared
 * length (hs_salvage, heap.c: pad = rec_end - end), so an opaque record
 * whose corrupt length claims 2 GiB turned an 89-byte input into 2 GiB of
 * output and seconds of work (up to 4 GiB per u4 length; 1.8 to 3.1 GB from
 * single bit flips in 3 MB corpus dumps). Fixed in 2ecda0c: a cut record
 * not yet written is taken back, padding is bounded (64 MiB). */
Test(findings, salvage_output_is_bounded, .timeout = 60)
{
    dump d;
    hs_options opt;
    run_result r;

    unknown_record_cut(&d, 0x7FFFFFF0u);
    memset(&opt, 0, sizeof opt);
    opt.salvage = 1;
    r = run_preset_capped(d.p, d.len, "default", &opt, 0, (size_t)64 << 20);
    cr_expect(r.status == HS_SALVAGED && r.out_len <= ((size_t)1 << 20),
              "%zu-byte input: status %d (%s), %zu bytes out%s", d.len, (int)r.status,
              r.err.message, r.out_len,
              r.status == HS_E_WRITE ? " when the 64 MiB cap stopped it" : "");
    if (r.status == HS_SALVAGED) {
        walk_result w = walk_dump(r.out, r.out_len, 0);
        cr_expect(w.ok, "%s", w.error);
        walk_free(&w);
    }
    run_result_free(&r);
    dg_free(&d);
}

/* The truncation message called a record of unknown tag "the unknown
 * record record (tag 0x74)": hs_tag_name() says "unknown record" and
 * describe_place() (filter.c) added " record". Fixed in 2ecda0c. */
Test(findings, unknown_tag_message_says_record_once)
{
    dump d;
    run_result r;

    unknown_record_cut(&d, 1000);
    r = run_preset_capped(d.p, d.len, "default", NULL, 0, (size_t)1 << 20);
    cr_assert_eq(r.status, HS_E_TRUNCATED, "%s", r.err.message);
    cr_expect(strstr(r.err.message, "0x74") != NULL, "%s", r.err.message);
    cr_expect(strstr(r.err.message, "record record") == NULL, "%s", r.err.message);
    run_result_free(&r);
    dg_free(&d);
}

/* The 64 MiB bound on salvage padding covered top-level records only: a
 * primitive array bigger than the segment cap streams out in a segment of
 * its own whose header promises its whole length, and when the input ended
 * inside it hs_salvage (heap.c, `sub_open && dst == DST_OUT`) padded
 * huge_out_end - out.total zeros, unbounded: this 158-byte input (one int[]
 * claiming 2 GiB in a segment claiming as much) came out as 2 GiB of
 * zeros after seconds of work, up to 4 GiB for a u4 segment length. In a
 * dump whose heap record runs to the end of the input (length 0, the
 * HotSpot quirk) one flipped bit in an array's count does it. Fixed in
 * df144f3: the array's own segment is taken back when it has not left. */
Test(findings, salvage_pads_a_cut_array_at_most_64_mib, .timeout = 60)
{
    static const uint8_t payload[100] = {1};
    const uint32_t count = 0x20000000u; /* ints: 2 GiB */
    const size_t bound = ((size_t)64 << 20) + ((size_t)1 << 20);
    dump d;
    hs_options opt;
    run_result r;

    dg_init(&d, "JAVA PROFILE 1.0.2", 8);
    dg_u1(&d, 0x1C);
    dg_u4(&d, 0);
    dg_u4(&d, 1 + 8 + 4 + 4 + 1 + count * 4u);
    dg_u1(&d, 0x23); /* PRIMITIVE_ARRAY_DUMP */
    dg_id(&d, 0x100);
    dg_u4(&d, 0);
    dg_u4(&d, count);
    dg_u1(&d, 10); /* int */
    dg_bytes(&d, payload, sizeof payload);
    memset(&opt, 0, sizeof opt);
    opt.salvage = 1;
    r = run_preset_capped(d.p, d.len, "default", &opt, 0, 2 * bound);
    cr_expect(r.status != HS_E_WRITE && r.out_len <= bound,
              "%zu-byte input: status %d (%s), %zu bytes out%s", d.len, (int)r.status,
              r.err.message, r.out_len,
              r.status == HS_E_WRITE ? " when the 130 MiB cap stopped it" : "");
    cr_expect(r.status == HS_SALVAGED || r.status == HS_E_TRUNCATED, "status %d: %s",
              (int)r.status, r.err.message);
    run_result_free(&r);
    dg_free(&d);
}

/* ---- Valgrind (tests/lanes/valgrind.sh) ------------------------------------------ */

/* A CLASS_DUMP with no fields of any kind and no superclass
 * (java.lang.Object). */
static void fieldless_class(dump *d, uint64_t id)
{
    unsigned k;

    dg_u1(d, 0x20);
    dg_id(d, id);
    dg_u4(d, 1);
    for (k = 0; k < 6; k++)
        dg_id(d, 0); /* super, loader, signers, protection domain, reserved */
    dg_u4(d, 0);      /* instance size */
    dg_u2(d, 0);      /* constant pool */
    dg_u2(d, 0);      /* statics */
    dg_u2(d, 0);      /* instance fields */
}

static void fieldless_dump(dump *d, int instance_first)
{
    dg_init(d, "JAVA PROFILE 1.0.2", 8);
    dg_string(d, 1, "java.lang.Object");
    dg_load_class(d, 1, 0x20, 1);
    dg_begin(d, 0x1C);
    if (instance_first)
        dg_instance(d, 0x10, 0x20, 0, 0);
    fieldless_class(d, 0x20);
    dg_instance(d, 0x11, 0x20, 0, 0);
    dg_end(d);
    dg_begin(d, 0x2C);
    dg_end(d);
}

/* valgrind -p privacy on fixtures/jvm7-hprof-agent.hprof: "Use of
 * uninitialised value of size 8 at hs_idmap_get (idmap.c:40) by
 * hs_scrub_class_arrived (scrub.c:357)". hs_classes_runs (classes.c) gives
 * runs = c->runs + leaf->runs, which is NULL for a class whose chain has no
 * fields as long as no class with fields was laid out (c->runs never
 * allocated), and leaves `missing` unset; hs_scrub_instance and
 * hs_scrub_class_arrived (scrub.c) read NULL runs as "a class is missing"
 * and hold the instance under the uninitialised `missing`. So the
 * instances of java.lang.Object and the like were held to the end of the
 * heap dump (moved there, memory held, spilled past --spill-after) and
 * reported as never finding their class, and the program read an
 * uninitialised variable. Fixed in e2ad0e5. */
Test(findings, fieldless_class_instances_are_not_held)
{
    int first;

    for (first = 0; first <= 1; first++) {
        dump d;
        run_result r;
        walk_result w, wi;

        fieldless_dump(&d, first);
        r = run_preset_capped(d.p, d.len, "privacy", NULL, 0, (size_t)1 << 20);
        cr_assert_eq(r.status, HS_OK, "%s", r.err.message);
        cr_expect_eq(r.st.instances_unresolved, 0,
                     "instance %s its class: %llu instances reported as never finding it",
                     first ? "before" : "after", (unsigned long long)r.st.instances_unresolved);
        if (!first)
            cr_expect_eq(r.st.instances_held, 0,
                         "instance after its class: %llu instances held",
                         (unsigned long long)r.st.instances_held);
        w = walk_dump(r.out, r.out_len, 0);
        wi = walk_dump(d.p, d.len, 0);
        cr_expect(w.ok, "%s", w.error);
        cr_expect_eq(w.instances, 1u + (unsigned)first);
        /* nothing to scrub: the same records in the same order (an
         * instance before its class waits for it, by design, so it moves) */
        if (!first)
            cr_expect_eq(w.digest, wi.digest,
                         "instance after its class: the output's content differs from the "
                         "input's (the instance moved)");
        walk_free(&w);
        walk_free(&wi);
        run_result_free(&r);
        dg_free(&d);
    }
}

/* ---- the rule-file fuzzer ---------------------------------------------------- */

static hs_status parse(hs_rules *r, const char *text, hs_error *err)
{
    return hs_rules_parse(r, text, strlen(text), "t.rules", err);
}

/* fuzz/regress/rules/print-full-array-table: a set holding the most array
 * rules (256), the first not for all types at every size, printed with an
 * "arrays all keep" line first, one rule more than a set can hold, so
 * hs_rules_print's text did not parse back ("too many array rules").
 * Fixed in 55fc861. */
Test(findings, full_array_table_prints_to_text_that_parses)
{
    hs_rules *r = hs_rules_create(NULL), *back = hs_rules_create(NULL);
    char line[64], *text = NULL, *printed;
    size_t len = 0, n;
    hs_error err;
    unsigned i;

    for (i = 1; i <= 256; i++) {
        int k = snprintf(line, sizeof line, "arrays int zero min %u\n", i);
        text = realloc(text, len + (size_t)k + 1);
        memcpy(text + len, line, (size_t)k + 1);
        len += (size_t)k;
    }
    cr_assert_eq(parse(r, text, &err), HS_OK, "%s", err.message);
    n = hs_rules_print(r, NULL, 0);
    printed = malloc(n + 1);
    hs_rules_print(r, printed, n + 1);
    cr_expect_eq(parse(back, printed, &err), HS_OK, "the printed rules: %s", err.message);
    free(printed);
    free(text);
    hs_rules_free(r);
    hs_rules_free(back);
}

/* fuzz/regress/rules/error-message-control-char: a rule-file error message
 * quoted the offending word raw, control characters and all (here an ANSI
 * escape that clears the terminal), where hs_error.message is to be one
 * line of text (the version-string message had the same bug, fixed in
 * 7f0a4b3). Fixed in 55fc861. */
Test(findings, rule_error_message_has_no_control_characters)
{
    hs_rules *r = hs_rules_create(NULL);
    hs_error err;
    const char *p;

    cr_assert_eq(parse(r, "arrays\033[2J all zero\n", &err), HS_E_USAGE);
    for (p = err.message; *p; p++)
        cr_expect((unsigned char)*p >= 0x20 && *p != 0x7f,
                  "byte 0x%02x at %zu of the message", (unsigned char)*p,
                  (size_t)(p - err.message));
    hs_rules_free(r);
}

/* Found reading rulefile.c for the fuzzer: `fill` took any 3-byte word
 * starting with a quote as a quoted character (do_arrays checked the length
 * and the first quote, not the closing one), so `fill 'ab` meant fill 'a'
 * and `fill ''x` fill 0x27, where the grammar has '?' only. Fixed in
 * 55fc861. */
Test(findings, fill_needs_the_closing_quote)
{
    static const char *const bad[] = {"arrays all fill 'ab\n", "arrays all fill ''x\n"};
    size_t i;

    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        hs_rules *r = hs_rules_create(NULL);
        hs_error err;
        hs_status s = parse(r, bad[i], &err);
        cr_expect_eq(s, HS_E_USAGE, "'%.*s' parsed", (int)strlen(bad[i]) - 1, bad[i]);
        hs_rules_free(r);
    }
}
