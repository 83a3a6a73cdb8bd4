/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_mapping.c - libFuzzer harness over the R8/ProGuard mapping parser
 * (src/lib/mapping.c): hs_mapping_parse() on arbitrary text, then lookups with
 * names taken from that text.
 *
 * Input layout: the whole input is mapping text, parsed under the origin
 * "fuzz.map".
 *
 * Invariants checked (any failure aborts with a message naming it):
 *   - the same outcome with and without an hs_error;
 *   - a failure is HS_E_MALFORMED reading "fuzz.map:LINE:COL: what" with
 *     LINE a line of the text, COL a column of it or one past its end, and
 *     one line with no control character (it ends up on a terminal);
 *   - on success, every class line (no indent, not a comment) finds its
 *     original name by its obfuscated one, in dotted and internal form, and
 *     through the JVM and ART spellings (arrays too), with a short buffer
 *     giving the same length and a NUL-terminated prefix;
 *   - lookups of every word of the text as a field and a method, at a few
 *     lines, give NUL-terminated names and the same frame count whatever
 *     the room given for frames; the counts add up;
 *   - what hs_mapping_bytes reports is what is allocated, and no more than
 *     about the text's size (48 bytes a line, plus the text, plus a floor);
 *   - every allocation is freed by hs_mapping_free.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../unit/count_alloc.h"
#include "fuzz_check.h"
#include "mapping.h"

#define ORIGIN "fuzz.map"

/* ---- the text -------------------------------------------------------------------- */

/* What one input's lookups counted (the mapping itself is read-only). */
static hs_mapping_counts g_counts;

static size_t count_lines(const char *t, size_t n)
{
    size_t i, lines = 1;

    for (i = 0; i < n; i++)
        if (t[i] == '\n' && i + 1 < n)
            lines++;
    return lines;
}

/* The length of line `line` (1-based), without "\n" or "\r\n". */
static size_t line_length(const char *t, size_t n, size_t line)
{
    size_t i = 0, k, e;

    for (k = 1; k < line && i < n; i++)
        if (t[i] == '\n')
            k++;
    for (e = i; e < n && t[e] != '\n'; e++)
        ;
    if (e > i && t[e - 1] == '\r' && e < n)
        e--;
    else if (e > i && e == n && t[e - 1] == '\r')
        e--;
    return e - i;
}

static void check_message(const hs_error *err, const char *t, size_t n)
{
    const char *m = err->message, *p;
    size_t line, col, len = strlen(err->message);
    int used = 0;

    CHECK(err->code == HS_E_MALFORMED, "code %d: %s", (int)err->code, m);
    for (p = m; *p; p++)
        CHECK((unsigned char)*p >= 0x20 && *p != 0x7f, "control character in '%s'", m);
    CHECK(sscanf(m, ORIGIN ":%zu:%zu: %n", &line, &col, &used) == 2 && used > 0 &&
              (size_t)used < len,
          "not ORIGIN:LINE:COL: what: '%s'", m);
    CHECK(line >= 1 && line <= count_lines(t, n), "line %zu of %zu: %s", line,
          count_lines(t, n), m);
    CHECK(col >= 1 && col <= line_length(t, n, line) + 1, "column %zu of a %zu-byte line: %s",
          col, line_length(t, n, line), m);
}

/* ---- lookups ------------------------------------------------------------------ */

static void check_forms(hs_mapping *m, const char *obf, size_t on, const char *orig)
{
    char name[300], buf[320], small[6];
    size_t i, n, n2;

    if (on > 250 || memchr(obf, '[', on) || memchr(obf, ';', on))
        return;
    CHECK(strcmp(hs_mapping_class(m, &g_counts, obf, on), orig) == 0, "%.*s", (int)on, obf);
    /* internal form, as an array of it */
    memcpy(name, "[[L", 3);
    for (i = 0; i < on; i++)
        name[3 + i] = obf[i] == '.' ? '/' : obf[i];
    name[3 + on] = ';';
    n = hs_mapping_class_jvm(m, &g_counts, name, on + 4, buf, sizeof buf);
    CHECK(n == strlen(orig) + 4 && strlen(buf) == (n < sizeof buf ? n : sizeof buf - 1),
          "jvm form of %.*s: %zu, '%s'", (int)on, obf, n, buf);
    n2 = hs_mapping_class_jvm(m, &g_counts, name, on + 4, small, sizeof small);
    CHECK(n2 == n && strlen(small) == (n < sizeof small ? n : sizeof small - 1) &&
              strncmp(small, buf, strlen(small)) == 0,
          "short buffer: %zu, '%s'", n2, small);
    /* ART's array form */
    memcpy(name, obf, on);
    memcpy(name + on, "[]", 2);
    n = hs_mapping_class_art(m, &g_counts, name, on + 2, buf, sizeof buf);
    CHECK(n == strlen(orig) + 2, "art form of %.*s: %zu", (int)on, obf, n);
}

/* Every class line's obfuscated name finds its original; the first one's
 * name is left in *first. */
static void check_classes(hs_mapping *m, const char *t, size_t n, const char **first,
                          size_t *first_n)
{
    size_t i = 0;

    while (i < n) {
        const char *nl = memchr(t + i, '\n', n - i);
        size_t e = nl ? (size_t)(nl - t) : n, w, ob, oe;
        if (e > i && t[e - 1] == '\r')
            e--;
        if (e > i && t[i] != ' ' && t[i] != '\t' && t[i] != '#' && t[i] != '\r') {
            char orig[300];
            for (w = i; w < e && t[w] != ' ' && t[w] != '\t'; w++)
                ;
            for (oe = e; t[oe - 1] == ' ' || t[oe - 1] == '\t'; oe--)
                ;
            for (ob = oe; t[ob - 1] != ' ' && t[ob - 1] != '\t'; ob--)
                ;
            if (!*first) {
                *first = t + ob;
                *first_n = oe - 1 - ob;
            }
            if (w - i < sizeof orig) {
                memcpy(orig, t + i, w - i);
                orig[w - i] = 0;
                check_forms(m, t + ob, oe - 1 - ob, orig);
            }
        }
        i = nl ? (size_t)(nl - t) + 1 : n;
    }
}

/* Every word of the text as a field and a method of the first class. */
static void check_words(hs_mapping *m, const char *t, size_t n, const char *cls, size_t cn)
{
    static const uint32_t lines[] = {0, 1, 2, 5, 100, UINT32_MAX - 1};
    hs_mapping_frame f[4];
    size_t i = 0, k, words = 0;

    while (i < n && words < 200) {
        size_t s;
        while (i < n && (t[i] == ' ' || t[i] == '\n' || t[i] == '\t'))
            i++;
        s = i;
        while (i < n && t[i] != ' ' && t[i] != '\n' && t[i] != '\t')
            i++;
        if (i == s)
            break;
        words++;
        (void)hs_mapping_field(m, &g_counts, cls, cn, t + s, i - s);
        for (k = 0; k < sizeof lines / sizeof lines[0]; k++) {
            size_t c0 = hs_mapping_frames(m, &g_counts, cls, cn, t + s, i - s, lines[k], NULL, 0);
            size_t c4 = hs_mapping_frames(m, &g_counts, cls, cn, t + s, i - s, lines[k], f, 4), j;
            CHECK(c0 == c4, "%zu frames, then %zu", c0, c4);
            for (j = 0; j < c4 && j < 4; j++)
                CHECK(f[j].method && f[j].class_name && strlen(f[j].method) < n &&
                          strlen(f[j].class_name) < n && (!f[j].source || strlen(f[j].source) < n),
                      "frame %zu", j);
        }
    }
}

/* ---- the entry point ------------------------------------------------------------ */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *t = (const char *)data;
    count_state cnt = {0};
    hs_alloc a = COUNT_ALLOC(&cnt);
    hs_mapping *m, *m2;
    hs_mapping_counts c = {0};
    hs_error err;
    const char *first = NULL;
    size_t first_n = 0;

    memset(&g_counts, 0, sizeof g_counts);
    memset(&err, 0, sizeof err);
    m = hs_mapping_parse(t, size, ORIGIN, &a, &err);
    m2 = hs_mapping_parse(t, size, ORIGIN, NULL, NULL);
    CHECK(!m == !m2, "parsed %s with an hs_error, %s without", m ? "fine" : "not",
          m2 ? "fine" : "not");
    hs_mapping_free(m2);
    if (getenv("FUZZ_VERBOSE"))
        fprintf(stderr, "fuzz_mapping: %zu bytes: %s\n", size, m ? "parsed" : err.message);
    if (!m) {
        check_message(&err, t, size);
        CHECK(cnt.blocks == 0, "%zu allocations live after a failed parse", cnt.blocks);
        return 0;
    }
    CHECK(hs_mapping_bytes(m) == cnt.bytes, "reports %zu bytes, holds %zu",
          hs_mapping_bytes(m), cnt.bytes);
    CHECK(hs_mapping_bytes(m) <= 2 * size + 128 * count_lines(t, size) + 8192,
          "holds %zu bytes for %zu bytes of text", hs_mapping_bytes(m), size);
    check_classes(m, t, size, &first, &first_n);
    if (first)
        check_words(m, t, size, first, first_n);
    c = g_counts;
    hs_mapping_get_counts(m, &c);
    CHECK(c.class_hits <= c.class_lookups && c.field_hits <= c.field_lookups &&
              c.frame_hits <= c.frame_lookups,
          "more hits than lookups");
    hs_mapping_free(m);
    CHECK(cnt.blocks == 0, "%zu allocations live after hs_mapping_free", cnt.blocks);
    return 0;
}
