/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mapping.h - an R8/ProGuard mapping file (mapping.txt), parsed once and
 * looked up by obfuscated name: classes, fields, and stack frames (method
 * plus line, through R8's line ranges and inline chains).
 *
 * The grammar accepted is in the man page (MAPPING FILES) and at the top of
 * mapping.c. The caller hands the text in memory (decompressed), whole or
 * in pieces as it is read; the mapping copies what it keeps (the names,
 * interned once each, and the line ranges), so the text can be freed as
 * soon as it was handed. What it holds (hs_mapping_bytes) depends on how
 * the text spells it: less than the text for ProGuard's long lines, up to
 * about twice it for R8's short ones.
 *
 * Class names may be given in dotted form (com.example.a) or in the JVM's
 * internal form (com/example/a); both find the same class. Names are taken
 * as (pointer, length), not NUL-terminated, since they come straight out of
 * HPROF STRING records.
 *
 * Lookups never change the mapping: once parsed it is read-only, and any
 * number of filters (on any threads) may look names up in it at once. How
 * many lookups were asked and how many hit (hs_mapping_counts, so that a
 * caller can tell a mapping that matches nothing in a dump) is counted
 * into a struct of the caller's, given to each lookup (NULL: not counted).
 */
#ifndef HS_MAPPING_H
#define HS_MAPPING_H

#include "hprof_strip.h"

typedef struct hs_mapping hs_mapping;

/* Parses `len` bytes of mapping text; `origin` (a file name) starts error
 * messages. Returns NULL on failure with `err` (when not NULL) filled:
 * HS_E_MALFORMED with "ORIGIN:LINE:COL: what was expected", HS_E_NOMEM when
 * an allocation failed, HS_E_LIMIT when the names it keeps pass 4 GiB. */
hs_mapping *hs_mapping_parse(const char *text, size_t len, const char *origin,
                             const hs_alloc *a, hs_error *err);
void hs_mapping_free(hs_mapping *m); /* NULL is fine */

/* The same, as the text streams: begin, feed each piece as it comes
 * (pieces may cut lines anywhere), end. Everything the parse holds (the
 * mapping so far, and a line cut by a piece's end) is allocated under
 * `max_bytes` (0: no cap): a growth that would pass it is refused, and the
 * parse fails with HS_E_LIMIT. A line longer than 1 MiB, or a NUL byte,
 * fails at once (HS_E_MALFORMED), so a binary file stops at its first
 * chunk. `origin` and `err` must outlive the parser. hs_mapping_begin
 * returns NULL on no memory; hs_mapping_feed returns the first failure
 * (and ignores text after it); hs_mapping_end, given `complete` (the text
 * ended, not the read failed), parses a last line with no newline and
 * returns the mapping, or NULL on any failure, and frees the parser. */
typedef struct hs_mapping_parser hs_mapping_parser;
hs_mapping_parser *hs_mapping_begin(const char *origin, const hs_alloc *a, uint64_t max_bytes,
                                    hs_error *err);
hs_status hs_mapping_feed(hs_mapping_parser *p, const char *text, size_t len);
hs_mapping *hs_mapping_end(hs_mapping_parser *p, int complete);
/* Keeps the whole of the parse's error message in *whole (from `a`, as
 * hs_fail_whole does) as well as in its hs_error, whose room a long origin
 * (a path) passes: hs_rules_message's. */
void hs_mapping_keep_whole(hs_mapping_parser *p, char **whole, const hs_alloc *a);

/* Bytes of memory the mapping holds (the caller counts them as held). */
size_t hs_mapping_bytes(const hs_mapping *m);

/* What the lookups count into (`n` below), and what the mapping holds. */
typedef struct {
    size_t classes, fields, methods; /* member lines of methods */
    uint64_t class_lookups, class_hits;
    uint64_t field_lookups, field_hits;
    uint64_t frame_lookups, frame_hits;
} hs_mapping_counts;

/* Obfuscated class name -> original (dotted, NUL-terminated), or NULL. */
const char *hs_mapping_class(const hs_mapping *m, hs_mapping_counts *n, const char *obf,
                             size_t len);

/* The field `obf_field` of the class whose obfuscated name is `obf_class`
 * -> the field's original name, or NULL (unknown class or field). */
const char *hs_mapping_field(const hs_mapping *m, hs_mapping_counts *n, const char *obf_class,
                             size_t cn, const char *obf_field, size_t fn);

/* One original frame. */
typedef struct {
    const char *class_name; /* original class, dotted: the mapped class, or
                               the class a method was inlined from */
    const char *method;     /* original method name */
    const char *source;     /* source file from R8's metadata, or NULL */
    uint32_t line;          /* original line, 0 when unknown */
} hs_mapping_frame;

/* A stack frame of obfuscated class `obf_class`, method `obf_method`, at
 * line `line` (0 when unknown) -> the original frames it stands for, the
 * innermost first (more than one when methods were inlined into it).
 * Writes at most `cap` of them to `out` and returns how many there are (as
 * snprintf: a return above `cap` means `out` was too small); 0 when the
 * mapping does not know the frame. The rule, retrace's:
 *   - the first member line whose obfuscated range a:b holds `line`, and
 *     the lines right after it with the same name and range, form the
 *     chain; each maps the line to origStart + (line - a) when its original
 *     is a range origStart:origEnd, to origStart when it is one line (a
 *     call site), to `line` itself when it gives no original line;
 *   - else a member line with no range at all maps the method (its line:
 *     `line` unchanged);
 *   - else, when every member line with that obfuscated name names the same
 *     original method, that method with line 0; else 0 (ambiguous). */
size_t hs_mapping_frames(const hs_mapping *m, hs_mapping_counts *n, const char *obf_class,
                         size_t cn, const char *obf_method, size_t mn, uint32_t line,
                         hs_mapping_frame *out, size_t cap);

/* Class names as HotSpot's dumps spell them (JVM internal form:
 * "com/example/a", "[Lcom/example/a;"; "[[I" and other primitive arrays
 * are never mapped) and as ART's do ("com.example.a", "com.example.a[][]"):
 * writes the original name in the same form, NUL-terminated, into
 * buf[cap] and returns its length (the full length, as snprintf, when it
 * did not fit: call again with a larger buffer). Returns 0 when the name
 * is not mapped (the caller keeps it as it is). */
size_t hs_mapping_class_jvm(const hs_mapping *m, hs_mapping_counts *n, const char *name,
                            size_t len, char *buf, size_t cap);
size_t hs_mapping_class_art(const hs_mapping *m, hs_mapping_counts *n, const char *name,
                            size_t len, char *buf, size_t cap);

/* True when s[n] is the obfuscated name of some field or method, of any
 * class (not counted as a lookup): what a dump's STRING must spell to be
 * worth keeping for a later field or frame lookup. */
int hs_mapping_is_member(const hs_mapping *m, const char *s, size_t n);

/* The fields the mapping lists for the class whose obfuscated name is
 * obf_class, in file order from the `start`th: at most `cap` of them, the
 * original names into `orig` and the obfuscated ones into `obf`. Returns
 * how many were written (0 past the last, or for an unknown class). Not
 * counted as lookups. */
size_t hs_mapping_class_fields(const hs_mapping *m, const char *obf_class, size_t cn,
                               size_t start, const char **orig, const char **obf, size_t cap);

/* True when the class s[n] (dotted, or HotSpot's java/lang/String) is in
 * a package of the JDK or Android: java., javax., jdk., sun., android.,
 * dalvik., libcore. The keep list's classes are there (rules.c), so a
 * mapping may not name them where values are removed (issue #50). */
int hs_platform_class(const char *s, size_t n);

/* The first class line (1-based line number, 0 when none) that renames a
 * class into such a package, or renames a field of a class there; its
 * original name in *name. */
size_t hs_mapping_platform_line(const hs_mapping *m, const char **name);

/* What the mapping holds: sets out->classes, fields and methods, and
 * leaves the lookup counts (the caller's) as they are. */
void hs_mapping_get_counts(const hs_mapping *m, hs_mapping_counts *out);

#endif
