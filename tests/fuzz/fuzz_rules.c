/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_rules.c - libFuzzer harness over the rule-file parser and printer:
 * hs_rules_parse() on arbitrary text, then hs_rules_print() and back.
 *
 * Input layout: the whole input is rule-file text, parsed under the origin
 * "fuzz.rules" into an empty rule set (the `none` preset).
 *
 * Invariants checked (any failure aborts with a message naming it):
 *   - hs_rules_parse returns HS_OK or HS_E_USAGE, and the same with a NULL
 *     hs_error (leaving the same rule set behind);
 *   - on HS_E_USAGE the error's code is HS_E_USAGE and its message reads
 *     "fuzz.rules:LINE:COL: what": LINE names a line of the text (1 .. the
 *     number of lines), COL a column of that line or one past its end,
 *     "what" is not empty, and the whole message is one line with no
 *     control character (it ends up on a terminal);
 *   - whatever the status (the lines before a bad one stay applied), the
 *     set prints to NUL-terminated text of the length hs_rules_print
 *     returns, and a short buffer gets the same length back and a
 *     NUL-terminated prefix of the same text (snprintf-like);
 *   - the printed text parses with HS_OK into a fresh set, which prints
 *     identically (the printer's output is a fixed point), and which decides
 *     every question the filter asks exactly as the parsed set does: the
 *     verdict for each array type at each size bound any rule names (and
 *     around it), each heap any rule names, each root kind, strings, fields
 *     and the keep-field names (this uses the library's internal rules.h);
 *   - every allocation made through hs_alloc is freed by hs_rules_free,
 *     and none asks for 64 MiB or more.
 *
 * FUZZ_KNOWN, a comma-separated list of ids in the environment, relaxes the
 * checks for bugs already reported (see regress/README.md; both fixed in
 * 55fc861):
 *   rules-full   a set holding HS_MAX_ARRAY_RULES array rules, the first
 *                not one for all types at every size, prints as one rule
 *                more ("arrays all keep" first), which does not parse back
 *                ("too many array rules"); the round trip is then skipped
 */
#define _POSIX_C_SOURCE 200809L /* strnlen */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../unit/count_alloc.h"
#include "hprof_strip.h"
#include "rules.h"
#include "fuzz_check.h"

#define ORIGIN "fuzz.rules"
#define PRINT_CAP ((size_t)1 << 17) /* 256 array rules of ~100 bytes fit */

static int known(const char *id)
{
    const char *k = getenv("FUZZ_KNOWN"), *p;
    size_t n = strlen(id);

    if (!k)
        return 0;
    for (p = k; (p = strstr(p, id)) != NULL; p += n)
        if ((p == k || p[-1] == ',') && (p[n] == 0 || p[n] == ','))
            return 1;
    return 0;
}

/* ---- checks ------------------------------------------------------------------ */

/* Lines in the text as the parser counts them: one more than its newlines,
 * except that a final newline ends the last line. */
static size_t count_lines(const uint8_t *p, size_t n)
{
    size_t i, lines = 0;

    for (i = 0; i < n; i++)
        lines += p[i] == '\n';
    return lines + (n > 0 && p[n - 1] != '\n');
}

/* Length of line `line` (1-based) of the text. */
static size_t line_length(const uint8_t *p, size_t n, size_t line)
{
    size_t i = 0, at = 1, start;

    while (at < line && i < n) {
        if (p[i++] == '\n')
            at++;
    }
    for (start = i; i < n && p[i] != '\n'; i++)
        ;
    return i - start;
}

static void check_message(const hs_error *e, const uint8_t *text, size_t len)
{
    const char *m = e->message, *q;
    size_t n = strnlen(m, sizeof e->message), lines = count_lines(text, len), line, col;
    char *end;

    CHECK(e->code == HS_E_USAGE, "error code %d after HS_E_USAGE", (int)e->code);
    CHECK(n > 0 && n < sizeof e->message, "empty or unterminated message");
    CHECK(strchr(m, '\n') == NULL && strchr(m, '\r') == NULL, "message of several lines: %s",
          m);
    if (!known("rules-ctrl"))
        for (q = m; *q; q++)
            CHECK((unsigned char)*q >= 0x20 && *q != 0x7f,
                  "message holds control character 0x%02x at %zu: %s", (unsigned char)*q,
                  (size_t)(q - m), m);
    CHECK(strncmp(m, ORIGIN ":", sizeof ORIGIN) == 0, "message does not start with the origin: %s",
          m);
    q = m + sizeof ORIGIN;
    CHECK(*q >= '1' && *q <= '9', "no line number: %s", m);
    line = (size_t)strtoull(q, &end, 10);
    CHECK(*end == ':' && end[1] >= '1' && end[1] <= '9', "no column: %s", m);
    col = (size_t)strtoull(end + 1, &end, 10);
    CHECK(end[0] == ':' && end[1] == ' ' && end[2] != 0 && end[2] != ' ',
          "no ': what' after the column: %s", m);
    CHECK(line >= 1 && line <= lines, "line %zu of a %zu-line text: %s", line, lines, m);
    CHECK(col >= 1 && col <= line_length(text, len, line) + 1,
          "column %zu of a %zu-byte line: %s", col, line_length(text, len, line), m);
}

/* Prints `r`, checking the snprintf-like contract; the caller frees. */
static char *print_rules(const hs_rules *r, size_t *len_out)
{
    char *buf, small[24];
    size_t len, len2;

    /* the length first, then exactly that plus the NUL, then one short */
    len = hs_rules_print(r, NULL, 0);
    CHECK(len > 0 && len < PRINT_CAP, "printed rules of %zu bytes", len);
    buf = malloc(len + 2);
    CHECK(buf != NULL, "out of memory");
    memset(buf, 0x55, len + 2);
    len2 = hs_rules_print(r, buf, len);
    CHECK(len2 == len && buf[len - 1] == 0 && (len < 2 || buf[len - 2] != 0),
          "a buffer one byte short: returned %zu of %zu, not cut just before the end", len2,
          len);
    memset(buf, 0x55, len + 2);
    len2 = hs_rules_print(r, buf, len + 1);
    CHECK(len2 == len, "hs_rules_print returned %zu, then %zu", len, len2);
    CHECK(buf[len + 1] == 0x55, "hs_rules_print wrote past the buffer it was given");
    CHECK(strlen(buf) == len, "hs_rules_print returned %zu, wrote %zu bytes", len, strlen(buf));
    CHECK(buf[len - 1] == '\n', "printed rules do not end with a newline");

    memset(small, 0x55, sizeof small);
    len2 = hs_rules_print(r, small, sizeof small);
    CHECK(len2 == len, "with a short buffer hs_rules_print returned %zu, not %zu", len2, len);
    CHECK(memchr(small, 0, sizeof small) != NULL, "short buffer left unterminated");
    CHECK(strncmp(small, buf, strlen(small)) == 0 &&
              strlen(small) == (len < sizeof small ? len : sizeof small - 1),
          "short buffer holds '%s', not a prefix of the text", small);
    *len_out = len;
    return buf;
}

static int holds_name(const hs_rules *r, const char *name)
{
    unsigned i;

    for (i = 0; i < r->n_keep; i++)
        if (strcmp(r->keep[i], name) == 0)
            return 1;
    return 0;
}

static void same_verdicts(const hs_rules *a, const hs_rules *b, const char *text)
{
    uint64_t sizes[3 * 2 * HS_MAX_ARRAY_RULES + 4];
    uint32_t heaps[2 * HS_MAX_HEAP_RULES + 4];
    size_t ns = 0, nh = 0, i, j;
    unsigned type, k;

    CHECK(a->drop_unused_strings == b->drop_unused_strings, "strings differ after printing:\n%.600s",
          text);
    CHECK(a->scrub_fields == b->scrub_fields, "fields %s before printing, %s after:\n%.600s",
          a->scrub_fields ? "zero" : "keep", b->scrub_fields ? "zero" : "keep", text);
    CHECK(a->n_keep == b->n_keep, "%u keep-field names before printing, %u after:\n%.600s",
          a->n_keep, b->n_keep, text);
    for (k = 0; k < a->n_keep; k++)
        CHECK(holds_name(b, a->keep[k]), "keep-field %s lost in printing:\n%.600s", a->keep[k],
              text);
    for (k = 0; k < 256; k++)
        CHECK(a->drop_root[k] == b->drop_root[k],
              "root kind 0x%02x: %s before printing, %s after:\n%.600s", k,
              a->drop_root[k] ? "drop" : "keep", b->drop_root[k] ? "drop" : "keep", text);

    sizes[ns++] = 0;
    sizes[ns++] = 1;
    sizes[ns++] = UINT64_MAX;
    for (i = 0; i < a->n_arr; i++) {
        uint64_t m = a->arr[i].min_bytes;
        sizes[ns++] = m;
        sizes[ns++] = m - 1;
        sizes[ns++] = m + 1;
    }
    for (i = 0; i < b->n_arr; i++) {
        uint64_t m = b->arr[i].min_bytes;
        sizes[ns++] = m;
        sizes[ns++] = m - 1;
        sizes[ns++] = m + 1;
    }
    /* with many rules, every few bounds is enough (and keeps inputs fast) */
    if (ns > 96) {
        size_t stride = ns / 96 + 1;
        for (i = j = 0; i < ns; i += stride)
            sizes[j++] = sizes[i];
        sizes[j++] = sizes[ns - 1];
        ns = j;
    }
    for (type = 0; type < 16; type++)
        for (i = 0; i < ns; i++) {
            hs_arr_verdict va = hs_rules_array(a, type, sizes[i]);
            hs_arr_verdict vb = hs_rules_array(b, type, sizes[i]);
            int same = va.action == vb.action &&
                       (va.action != HS_ARR_FILL || va.fill == vb.fill) &&
                       (va.action != HS_ARR_PREFIX || va.prefix == vb.prefix);
            CHECK(same,
                  "array type %u of %llu bytes: action %d (fill %u, prefix %llu) before "
                  "printing, %d (fill %u, prefix %llu) after:\n%.600s",
                  type, (unsigned long long)sizes[i], (int)va.action, va.fill,
                  (unsigned long long)va.prefix, (int)vb.action, vb.fill,
                  (unsigned long long)vb.prefix, text);
        }

    heaps[nh++] = 0;
    heaps[nh++] = 'A';
    heaps[nh++] = 'Z';
    heaps[nh++] = 'I';
    for (i = 0; i < a->n_heaps; i++)
        heaps[nh++] = a->heaps[i].heap;
    for (i = 0; i < b->n_heaps; i++)
        heaps[nh++] = b->heaps[i].heap;
    for (j = 0; j < nh; j++)
        CHECK(hs_rules_heap_dropped(a, heaps[j]) == hs_rules_heap_dropped(b, heaps[j]),
              "heap %u: %s before printing, %s after:\n%.600s", (unsigned)heaps[j],
              hs_rules_heap_dropped(a, heaps[j]) ? "drop" : "keep",
              hs_rules_heap_dropped(b, heaps[j]) ? "drop" : "keep", text);
    CHECK(hs_rules_change_lengths(a) == hs_rules_change_lengths(b),
          "the printed rules differ in changing lengths:\n%.600s", text);
}

/* ---- the entry point ----------------------------------------------------------- */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    count_state cnt = {0};
    hs_alloc a = COUNT_ALLOC(&cnt);
    hs_rules *r1, *r2, *r3;
    hs_error err;
    hs_status s, s2, s3;
    char *text1, *text2, *text3;
    size_t len1, len2, len3;

    r1 = hs_rules_create(&a);
    r2 = hs_rules_create(&a);
    CHECK(r1 && r2, "hs_rules_create failed");

    memset(&err, 0, sizeof err);
    s = hs_rules_parse(r1, (const char *)data, size, ORIGIN, &err);
    CHECK(s == HS_OK || s == HS_E_USAGE, "hs_rules_parse returned %d", (int)s);
    if (s == HS_E_USAGE)
        check_message(&err, data, size);
    if (getenv("FUZZ_VERBOSE"))
        fprintf(stderr, "fuzz_rules: %zu bytes: %s%s%s\n", size, hs_status_str(s),
                s == HS_OK ? "" : ": ", s == HS_OK ? "" : err.message);

    /* the same without an hs_error */
    s2 = hs_rules_parse(r2, (const char *)data, size, ORIGIN, NULL);
    CHECK(s2 == s, "status %d with an hs_error, %d without", (int)s, (int)s2);
    text1 = print_rules(r1, &len1);
    text2 = print_rules(r2, &len2);
    CHECK(len1 == len2 && memcmp(text1, text2, len1) == 0,
          "different rules with and without an hs_error:\n%.600s---\n%.600s", text1, text2);
    free(text2);

    /* the printed text parses back to the same rules and prints the same */
    r3 = hs_rules_create(&a);
    CHECK(r3 != NULL, "hs_rules_create failed");
    memset(&err, 0, sizeof err);
    s3 = hs_rules_parse(r3, text1, len1, "printed", &err);
    if (s3 != HS_OK && known("rules-full") && r1->n_arr == HS_MAX_ARRAY_RULES &&
        strstr(err.message, "too many array rules")) {
        free(text1);
        hs_rules_free(r1);
        hs_rules_free(r2);
        hs_rules_free(r3);
        return 0;
    }
    CHECK(s3 == HS_OK, "printed rules do not parse: %s\n%.600s", err.message, text1);
    text3 = print_rules(r3, &len3);
    CHECK(len3 == len1 && memcmp(text3, text1, len1) == 0,
          "printed rules print differently once parsed:\n%.600s---\n%.600s", text1, text3);
    same_verdicts(r1, r3, text1);
    free(text3);
    free(text1);

    hs_rules_free(r1);
    hs_rules_free(r2);
    hs_rules_free(r3);
    CHECK(cnt.blocks == 0, "%zu allocations live after hs_rules_free", cnt.blocks);
    CHECK(cnt.largest < ((size_t)64 << 20), "hs_alloc asked for %zu bytes", cnt.largest);
    return 0;
}
