/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/abi/hprof_strip-0.1.h - THE FROZEN 0.1 ABI: src/lib/hprof_strip.h of
 * version 0.1.0 (commit aba5cf6), copied verbatim below this comment and never
 * to be edited. tests/abi.sh builds a program against it alone and runs it
 * against the newly built libhprofstrip.so: a program compiled against 0.1
 * must keep working, unchanged, with every later 0.x library.
 */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hprof_strip.h - the hprof-strip library: a single-pass HPROF filter.
 *
 * This is the only public header. A program builds a rule set, creates a
 * filter over it, and runs the filter once over a byte source into a byte
 * sink:
 *
 *     hs_rules *rules = hs_rules_create(NULL);
 *     hs_rules_preset(rules, "default", NULL);
 *     hs_filter *f = hs_filter_create(rules, NULL, NULL);
 *     hs_source in = {.read = my_read, .ctx = my_ctx};
 *     hs_sink out = {.write = my_write, .ctx = my_ctx};
 *     if (hs_filter_run(f, &in, &out) != HS_OK)
 *         fprintf(stderr, "%s\n", hs_filter_error(f)->message);
 *     hs_filter_free(f);
 *     hs_rules_free(rules);
 *
 * The library does no I/O of its own: it pulls bytes through the source's
 * read callback and pushes bytes through the sink's write callback. It never
 * seeks, never looks at how the input was split into reads, and keeps its
 * memory bounded: a read window (1 MiB, growing to 4 MiB at most for a
 * CLASS_DUMP), a 1 MiB output buffer and a 1 MiB segment buffer, plus what
 * the rules must remember, all of it under one cap (hs_options.max_held,
 * 1 GiB by default): STRING records waiting for their first user, GC roots
 * waiting for their object, instances waiting for their CLASS_DUMP, the
 * held-back start of the heap dump, class layouts, keep-field names and the
 * duplicate tables. No allocation is ever sized from a length found in the
 * input, and no STRING over 1 MiB is ever held.
 *
 * A pull design (the filter calls read) rather than a push design (the
 * caller hands in buffers) keeps the decoder a plain top-down reader of the
 * format that can be audited against the spec in one sitting; a push API can
 * be layered on it with a thread if a caller ever needs one.
 *
 * Objects are not thread-safe; distinct filters may run in parallel and may
 * share one rule set, which is read-only once built (except a rule set
 * holding a mapping, see hs_rules_mapping: one filter at a time).
 */
#ifndef HPROF_STRIP_H
#define HPROF_STRIP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HS_VERSION_STRING "0.1.0"

/* Marks the library's exported functions. The shared library is built with
 * -fvisibility=hidden, so these are its only dynamic symbols and the core's
 * internal hs_* helpers stay private (free to change without a soname bump).
 * Define HS_API before including this header to override it. */
#ifndef HS_API
#if defined(__GNUC__) && __GNUC__ >= 4
#define HS_API __attribute__((visibility("default")))
#else
#define HS_API
#endif
#endif

/* ---- status codes ------------------------------------------------------ */

typedef enum {
    HS_SALVAGED = 1,       /* --salvage: the input was truncated; everything
                              complete was written, as a valid dump */
    HS_OK = 0,
    HS_E_MALFORMED = -1,   /* the input breaks the HPROF format */
    HS_E_TRUNCATED = -2,   /* the input ended inside a record */
    HS_E_UNSUPPORTED = -3, /* not an HPROF we can read (version, id size) */
    HS_E_READ = -4,        /* the source's read callback failed */
    HS_E_WRITE = -5,       /* the sink's write callback failed */
    HS_E_LIMIT = -6,       /* a configured memory cap was reached */
    HS_E_NOMEM = -7,       /* the allocator failed */
    HS_E_USAGE = -8        /* the API was misused (bad argument, bad rule) */
} hs_status;

/* A short static description of a status code, e.g. "truncated input". */
HS_API const char *hs_status_str(hs_status status);

/* Everything known about the first error a filter met. */
typedef struct {
    hs_status code;
    uint64_t offset;        /* input byte where the problem was found */
    uint64_t record_offset; /* start of the enclosing top-level record, or
                               UINT64_MAX outside any record */
    int tag;                /* top-level tag of that record, or -1 */
    int subtag;             /* heap sub-record tag, or -1 */
    char message[320];      /* one line, no program name, no newline, e.g.
                               "input byte 1234: PRIMITIVE_ARRAY_DUMP has
                               element type 13" */
} hs_error;

/* ---- memory ------------------------------------------------------------ */

/* Optional allocator. NULL anywhere an hs_alloc is taken means malloc/free. */
typedef struct {
    void *(*alloc)(void *opaque, size_t size);
    void (*free)(void *opaque, void *ptr);
    void *opaque;
} hs_alloc;

/* ---- byte source and sink ---------------------------------------------- */

/* read: fill at most `cap` bytes of `buf`; return the count (> 0), 0 at the
 * end of the input, or -1 on failure (the filter then fails with HS_E_READ;
 * the caller keeps errno or its own error state). Short reads are fine.
 * A count above `cap` is a broken callback (it wrote past `buf`, or counts
 * wrong): the filter fails with HS_E_READ too, rather than trust it.
 *
 * Or, zero-copy: when `data` is not NULL the input is the `size` bytes at
 * `data` (a mapped file, say), read in place and never copied, and `read`
 * is not called. The filter still moves through it front to back a window
 * at a time, and each time it moves on calls `window` (when not NULL):
 * bytes before `done` will not be looked at again (their pages can be given
 * back, so memory stays flat however large the input), and bytes up to
 * `next` are about to be (they can be faulted in at once).
 *
 * Or, lent blocks: when `borrow` is not NULL (and `data` is NULL) the input
 * comes as blocks the source lends, read where they lie and only the few
 * bytes of a record that spans two blocks copied; `read` is not called.
 * borrow: point *block at the next block and return its length (> 0), or
 * return 0 at the end of the input, -1 on failure. A block stays valid
 * until the next borrow call (or until the filter returns), which also
 * gives the previous block back: a decompressor's output buffers, say. */
typedef struct {
    long (*read)(void *ctx, void *buf, size_t cap);
    void *ctx;
    const void *data;
    uint64_t size;
    void (*window)(void *ctx, uint64_t done, uint64_t next);
    long (*borrow)(void *ctx, const void **block);
} hs_source;

/* write: consume all `len` bytes of `buf`; return 0, or -1 on failure (the
 * filter then fails with HS_E_WRITE). */
typedef struct {
    int (*write)(void *ctx, const void *buf, size_t len);
    void *ctx;
} hs_sink;

/* ---- rules --------------------------------------------------------------- */

typedef struct hs_rules hs_rules;

/* An empty rule set changes nothing (the `none` preset). NULL on no memory. */
HS_API hs_rules *hs_rules_create(const hs_alloc *alloc);
HS_API void hs_rules_free(hs_rules *rules); /* NULL is fine */

/* Applies a built-in preset on top of what `rules` holds: "default" (zero
 * every primitive-array payload, drop unused strings), "none" (clear every
 * rule: change nothing), "android-app" (default, and drop the objects of
 * the zygote and image heaps). Returns HS_OK, or HS_E_USAGE for an unknown
 * name or a NULL `rules` or `name` (and fills `err` when it is not NULL). */
HS_API hs_status hs_rules_preset(hs_rules *rules, const char *name, hs_error *err);

/* One line describing a preset, or NULL for an unknown name (or NULL). */
HS_API const char *hs_preset_summary(const char *name);

/* Applies rule-file text on top of what `rules` holds (the grammar is in
 * the man page and at the top of rulefile.c). `origin` names the text in
 * messages (a file name). On a mistake returns HS_E_USAGE with `err` (when
 * not NULL) saying "ORIGIN:LINE:COL: what"; the rules applied before the
 * bad line stay applied. HS_E_USAGE too for a NULL `rules`, or a NULL
 * `text` with a `len` (NULL and 0 is no text: HS_OK). */
HS_API hs_status hs_rules_parse(hs_rules *rules, const char *text, size_t len,
                                const char *origin, hs_error *err);

/* Writes `rules` as rule-file text that parses back to the same rule set,
 * NUL-terminated, into buf[cap]. Returns the length of the full text (which
 * did not fit when it is >= cap, as with snprintf). A NULL `buf` counts
 * as a `cap` of 0; a NULL `rules` prints nothing and returns 0. */
HS_API size_t hs_rules_print(const hs_rules *rules, char *buf, size_t cap);

/* Loads an R8/ProGuard mapping (mapping.txt: the grammar is in
 * hprof-strip(1), MAPPING FILES) into `rules`, replacing any mapping loaded
 * before: a filter over these rules then writes the original names of the
 * classes, fields and stack frames the mapping renames (DEOBFUSCATION in
 * hprof-strip(1)). `text` is `len` bytes, decompressed; the rule set keeps
 * what it needs, so the text can be freed on return. `origin` (a file
 * name) starts error messages. Returns HS_OK; HS_E_USAGE for text that
 * does not parse (a line over 1 MiB, a NUL byte), `err` (when not NULL)
 * saying "ORIGIN:LINE:COL: what", or for a NULL `rules` or a NULL `text`
 * with a `len`; HS_E_NOMEM, or HS_E_LIMIT when the names kept pass 4 GiB.
 * The mapping takes from about 0.7 to 1.1 times its text (R8's long and
 * short lines; more for a text of very short lines), up to a third more
 * while it is parsed, and counts toward hs_options.max_held. Its
 * lookups count what they matched, so a rule set holding a mapping serves
 * one filter at a time. The `none` preset removes it. */
HS_API hs_status hs_rules_mapping(hs_rules *rules, const char *text, size_t len,
                                  const char *origin, hs_error *err);

/* The same, parsing the text as it is read from `src` (its `read`
 * callback, 64 KiB at a time; or its `data` and `size`, in place), so a
 * mapping is never in memory whole: what the parse holds (the mapping so
 * far and the line being read) never passes `max_held` bytes (0: 1 GiB, as
 * hs_options.max_held), a growth that would pass it being refused before
 * it is made. Returns HS_OK; HS_E_LIMIT past `max_held`, or when the names
 * kept pass 4 GiB; HS_E_USAGE for text that does not parse (a line longer
 * than 1 MiB or a NUL byte included: a binary file stops at its first
 * read), and for a NULL `rules` or `src` or a source with neither `read`
 * nor `data`; HS_E_READ when `read` returns -1, or more than it was asked
 * for; HS_E_NOMEM. `err` (when not NULL) says which line and why. The
 * mapping loaded before stays loaded on failure. */
HS_API hs_status hs_rules_mapping_read(hs_rules *rules, const hs_source *src, uint64_t max_held,
                                       const char *origin, hs_error *err);

/* The file a rule file's `mapping FILE` line named (relative to the rule
 * file's directory when its origin was a path), while no mapping was
 * loaded since: the library opens no files, so the caller reads it and
 * hands its text to hs_rules_mapping. NULL when nothing waits. */
HS_API const char *hs_rules_mapping_file(const hs_rules *rules);

/* ---- filter -------------------------------------------------------------- */

/* A store for instances held back while their class dump is awaited
 * (field scrubbing, see hs_options.hold_in_memory): write `len` bytes at
 * `off`, read them back. Both return 0, or -1 on failure. */
typedef struct {
    int (*write)(void *ctx, uint64_t off, const void *buf, size_t len);
    int (*read)(void *ctx, uint64_t off, void *buf, size_t len);
    void *ctx;
} hs_spill;

typedef struct {
    /* Re-encode heap dumps into fresh segments even when no rule changes a
     * length (normally such records pass through byte for byte). */
    int repack;
    /* Cap, in bytes, of a heap-dump segment built by the filter; 0 means the
     * default (1 MiB, like HotSpot), and more than 256 MiB is taken as 256
     * MiB (the segment is buffered whole). Sub-records larger than the cap
     * get a segment of their own and stream through without buffering. */
    size_t segment_cap;
    /* When the input ends inside a record (or a heap dump ends without its
     * HEAP_DUMP_END), write everything that was complete, close the open
     * segment and end the heap dump, and return HS_SALVAGED instead of
     * HS_E_TRUNCATED; the same when the input turns corrupt (HS_E_MALFORMED):
     * every record before the damage is kept. hs_filter_error() then says
     * what was lost. Each class a LOAD_CLASS named but no CLASS_DUMP
     * declared by then gets a CLASS_DUMP of its own (superclass
     * java.lang.Object, no fields or statics), so that analyzers read the
     * objects before the cut; a warning counts them. Implies re-encoding. */
    int salvage;
    /* Hash every primitive-array payload (XXH3) before any rule changes it,
     * and count the arrays whose type, length and contents repeat an
     * earlier one: hs_stats.dup_*. Memory: 16 bytes per distinct array of
     * 8 bytes or more, under max_held. */
    int find_duplicates;
    /* Count instances and bytes per class, in the input and the output
     * (hs_filter_histogram). Memory: the class names and a row per class
     * and heap, under max_held. */
    int histogram;
    /* Count the non-zero bytes among those the rules zero or fill
     * (hs_stats.nonzero_*, what --audit reports). Off, a zeroed payload is
     * skipped without being read, which is most of the input's bytes. */
    int count_nonzero;
    /* Implies count_nonzero, and says where the non-zero bytes are (what
     * --audit reports, hs_filter_findings): per class field, per array
     * type, and each record of unknown tag and STRING left unused or
     * unexamined. Memory: every STRING text of 1 KiB or less and the field
     * names of every class, under max_held. */
    int findings;
    /* Write an Android (1.0.3) dump as 1.0.2, for readers that know only
     * that (MAT, VisualVM): no HEAP_DUMP_INFO, Android root kinds as
     * ROOT_UNKNOWN, PRIMITIVE_ARRAY_NODATA as a zero-filled
     * PRIMITIVE_ARRAY_DUMP. Heap rules still see the heaps. Implies
     * re-encoding. */
    int to_jvm;
    /* Size of the read buffer (with a zero-copy source, of the window moved
     * through it); 0 means the default (1 MiB). */
    size_t read_buffer;
    /* Most bytes the filter may hold for what the rules must remember
     * (strings, roots, held instances, the held-back start of the heap dump,
     * class layouts, keep-field names, duplicate and histogram tables, the
     * mapping, all together); 0 means the default (1 GiB). What is held
     * never passes it: a growth that would is refused before it is made
     * (while a table is copied, its old and new copies both count), and the
     * run fails with HS_E_LIMIT, the message naming the largest holder. The
     * fixed buffers (read window, output and segment buffers) are not
     * counted. */
    uint64_t max_held;
    /* Field scrubbing holds instances that come before their class dump
     * (Android dumps): past this many bytes (0: 64 MiB) they go to `spill`
     * when it is given, else they count toward max_held. */
    uint64_t hold_in_memory;
    hs_spill spill;
    /* Rename every class outside the keep list (the JDK's and Android's
     * packages, primitive types and their arrays), the fields of the
     * renamed classes, and the methods and source files of their stack
     * frames to short opaque names (o.a, o.b, ...; a, b, ... per class),
     * the same for the same name all through the run; hs_filter_obfuscation_map
     * then writes what was given as an R8/ProGuard mapping, which
     * hs_rules_mapping reads back to restore them. Unused STRINGs are
     * dropped (the original names' among them) whatever the rules say.
     * Fails (HS_E_USAGE) with a rule set holding a mapping. Implies
     * re-encoding. Memory: the names given, under max_held. */
    int obfuscate_names;
} hs_options;

typedef struct hs_filter hs_filter;

/* Creates a filter applying `rules` (which must outlive the filter and stay
 * unchanged while it runs). `opt` and `alloc` may be NULL. NULL on no memory
 * or a NULL `rules`. */
HS_API hs_filter *hs_filter_create(const hs_rules *rules, const hs_options *opt,
                                   const hs_alloc *alloc);
HS_API void hs_filter_free(hs_filter *f); /* NULL is fine */

/* Reads the whole input from `src` and writes the filtered dump to `dst`.
 * Returns HS_OK when the input was read to its end and everything was
 * written; otherwise the error code, with details in hs_filter_error().
 * Output already passed to the sink before an error stays written: callers
 * writing to a file should write to a temporary name and discard it on error.
 * A filter runs once; a second call returns HS_E_USAGE, as do a NULL `f`,
 * `src` or `dst`, a source with no read, data nor borrow, and a sink with
 * no write. */
HS_API hs_status hs_filter_run(hs_filter *f, const hs_source *src, const hs_sink *dst);

/* The error of the last run, or NULL when it succeeded or has not run.
 * After HS_SALVAGED it is the damage that was salvaged (code HS_E_TRUNCATED
 * or HS_E_MALFORMED), its message saying what was done about it. */
HS_API const hs_error *hs_filter_error(const hs_filter *f);

/* The i-th warning of the last run (from 0), or NULL past the last: what
 * the run did that may not be what was meant, such as a keep-field rule
 * that met no field of the dump. One line, no program name, no newline;
 * valid until hs_filter_free. */
HS_API const char *hs_filter_warning(const hs_filter *f, size_t i);

/* After a run with hs_options.obfuscate_names that succeeded (HS_OK or
 * HS_SALVAGED): writes the names given as an R8/ProGuard mapping
 * (original -> obfuscated) to `dst`. HS_E_USAGE without such a run,
 * HS_E_WRITE when the sink fails, HS_E_NOMEM. */
HS_API hs_status hs_filter_obfuscation_map(const hs_filter *f, const hs_sink *dst);

/* Counters filled as the filter runs. The scalar counters are listed once,
 * here: X(name, kind, description), kind being HS_COUNT (a number of
 * things), HS_BYTES (a size) or HS_OFFSET (an input byte offset, 0 when
 * there is none). The struct's fields, the --stats table and the JSON report
 * are all generated from this list, so none can be left out of one. */
enum hs_stat_kind { HS_COUNT, HS_BYTES, HS_OFFSET };
#define HS_STATS_COUNTERS(X)                                                  \
    X(bytes_in, HS_BYTES, "HPROF bytes read")                                 \
    X(bytes_out, HS_BYTES, "HPROF bytes written")                             \
    X(hprof_version, HS_COUNT, "x of the input's JAVA PROFILE 1.0.x")         \
    X(heap_dumps, HS_COUNT, "heap dumps read (0: the input holds none)")      \
    X(records_in, HS_COUNT, "top-level records read")                         \
    X(records_out, HS_COUNT, "top-level records written")                     \
    X(subrecords_in, HS_COUNT, "heap sub-records read")                       \
    X(subrecords_out, HS_COUNT, "heap sub-records written")                   \
    X(segments_out, HS_COUNT, "heap dump records (segments) written")         \
    X(instances, HS_COUNT, "instance dumps read")                             \
    X(object_arrays, HS_COUNT, "object arrays read")                          \
    X(primitive_arrays, HS_COUNT, "primitive arrays read")                    \
    X(class_dumps, HS_COUNT, "class dumps read")                              \
    X(roots, HS_COUNT, "GC roots read")                                       \
    X(payload_bytes_zeroed, HS_BYTES, "array payload bytes zeroed or filled") \
    X(payload_bytes_dropped, HS_BYTES, "array payload bytes dropped")         \
    X(arrays_dropped, HS_COUNT, "arrays dropped")                             \
    X(strings_in, HS_COUNT, "STRING records read")                            \
    X(strings_out, HS_COUNT, "STRING records written")                        \
    X(strings_dropped, HS_COUNT, "STRING records dropped as unused")          \
    X(strings_unheld, HS_COUNT, "STRINGs over 1 MiB: text zeroed (no names)") \
    X(nonzero_string_bytes, HS_BYTES,                                         \
      "STRING text bytes zeroed that held data")                              \
    X(first_nonzero_string, HS_OFFSET, "input byte of the first of those")    \
    X(unknown_records_dropped, HS_COUNT, "records of unknown tag dropped")    \
    X(roots_dropped, HS_COUNT, "GC roots dropped")                            \
    X(objects_dropped, HS_COUNT, "objects dropped by heap rules")             \
    X(thread_objects_kept, HS_COUNT, "Thread objects kept in a dropped heap") \
    X(thread_roots_unlinked, HS_COUNT, "thread roots written with id 0")      \
    X(keep_fields_unmatched, HS_COUNT, "keep-field rules that met no field")  \
    X(keep_fields_reference, HS_COUNT, "keep-field rules naming a reference") \
    X(roots_held_peak, HS_COUNT, "most GC roots held at once")                \
    X(held_bytes_peak, HS_BYTES, "most memory held for what rules remember")  \
    X(salvaged_bytes, HS_BYTES, "zeros written to complete a cut record")     \
    X(field_bytes_scrubbed, HS_BYTES, "primitive field bytes scrubbed")       \
    X(instances_held, HS_COUNT, "instances that waited for their class")      \
    X(instance_bytes_held_peak, HS_BYTES, "most instance bytes held")         \
    X(instance_bytes_spilled_peak, HS_BYTES, "most instance bytes spilled")   \
    X(instances_unresolved, HS_COUNT, "instances whose class never came")     \
    X(nonzero_array_bytes, HS_BYTES,                                          \
      "array bytes the rules zeroed that held data")                          \
    X(first_nonzero_array, HS_OFFSET, "input byte of the first of those")     \
    X(nonzero_field_bytes, HS_BYTES,                                          \
      "field bytes the rules zeroed that held data")                          \
    X(first_nonzero_field, HS_OFFSET, "input byte of the first of those")   \
    X(mapping_classes_renamed, HS_COUNT, "LOAD_CLASS names renamed (mapping, obfuscation)") \
    X(mapping_fields_renamed, HS_COUNT, "CLASS_DUMP field names renamed")      \
    X(mapping_frames_renamed, HS_COUNT, "STACK_FRAMEs renamed")                \
    X(mapping_strings_added, HS_COUNT, "STRINGs written with new names")

/* Notes on some counters: payload_bytes_* count array payloads; the
 * salvaged_bytes are zeros --salvage wrote to complete a record cut short;
 * instances_* are about field scrubbing, which holds instances that come
 * before their CLASS_DUMP (instances_unresolved: class never came, all
 * zeroed). nonzero_* and first_nonzero_* count, among the bytes scrubbing
 * zeroed or filled, those that were not zero, and the input offset of the
 * first (0: none); counted only with hs_options.count_nonzero. --audit
 * reports these. */
typedef struct {
#define HS_STATS_FIELD_(name, kind, what) uint64_t name;
    HS_STATS_COUNTERS(HS_STATS_FIELD_)
#undef HS_STATS_FIELD_
    /* find_duplicates: arrays repeating an earlier one's type, length and
     * contents, and the bytes they take, by element type (index: the basic
     * type code); the five element type and length pairs wasting most */
    uint64_t dup_arrays[12], dup_bytes[12];
    struct {
        uint32_t type;
        uint64_t length_bytes, copies, wasted;
    } dup_top[5];
} hs_stats;

HS_API void hs_filter_stats(const hs_filter *f, hs_stats *out);

/* One row of the class histogram (hs_options.histogram): the instances of
 * one class in one heap, and their bytes as the dump records them (field
 * bytes of an instance, elements of an array), in the input and in the
 * output. */
typedef struct {
    const char *name; /* Java's dotted form, arrays as "int[]" or
                         "java.lang.String[]"; "class@0x1234" when no
                         LOAD_CLASS names it */
    uint32_t heap;    /* Android heap id ('A' app, 'Z' zygote, 'I' image, 0
                         the default heap); 0 in a JVM dump */
    uint64_t instances_in, bytes_in;
    uint64_t instances_out, bytes_out;
} hs_class_count;

/* After a run with hs_options.histogram: the rows, most input bytes first,
 * in *rows (valid until hs_filter_free; `rows` may be NULL: the count
 * alone). Returns their count (0 without the option, or for a NULL `f`). */
HS_API size_t hs_filter_histogram(const hs_filter *f, const hs_class_count **rows);

/* Where the data is (hs_options.findings): one row per finding. */
enum hs_finding_kind {
    HS_FIND_FIELD,         /* instance field "pkg.Class.field": count objects
                              with a non-zero value, bytes non-zero bytes */
    HS_FIND_STATIC,        /* static field "pkg.Class.field": count 1 */
    HS_FIND_CONSTANT,      /* constant-pool entry "pkg.Class.<constant pool N>" */
    HS_FIND_CLASS,         /* instances whose class layout never came:
                              "pkg.Class (no CLASS_DUMP for its fields)" */
    HS_FIND_ARRAY,         /* primitive arrays "byte[]": count arrays, bytes
                              non-zero payload bytes */
    HS_FIND_RECORD,        /* a record of unknown tag, "record tag 0x7f" (id
                              the tag): bytes its body */
    HS_FIND_STRING_UNUSED, /* a STRING nothing uses, "STRING 0x1234" (id the
                              string id): bytes its text */
    HS_FIND_STRING_LONG    /* a STRING over 1 MiB (no name: its text is
                              zeroed): bytes its non-zero text bytes */
};
typedef struct {
    int kind;              /* enum hs_finding_kind */
    const char *name;
    uint64_t id;           /* class id, element type, record tag or string id */
    uint64_t count, bytes;
    uint64_t first_offset; /* input offset of the first record or sub-record
                              holding it */
} hs_finding;

/* After a run with hs_options.findings: the rows, by kind then input
 * offset, in *rows (valid until hs_filter_free; may be NULL). Returns their
 * count. */
HS_API size_t hs_filter_findings(const hs_filter *f, const hs_finding **rows);

#ifdef __cplusplus
}
#endif
#endif
