/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hprof_strip.h - the hprof-strip library: a single-pass HPROF filter.
 *
 * This is the public header: what a program needs (the command's own
 * calls are apart, in hprof_strip_static.h, for static linking only). A
 * program builds a rule set, creates a filter over it, and runs the filter
 * once over a byte source into a byte sink:
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
 * share one rule set, which is read-only once built (a mapping included:
 * each filter counts its own lookups). The one exception is hs_filter_cancel, callable from any thread or a signal
 * handler while the filter runs.
 *
 * The binary interface grows without breaking (the soname stays
 * libhprofstrip.so.0 through 0.x): a program built against an older header
 * keeps working, unchanged, with a newer library.
 *  - Calls are only ever added, and a call never changes what it does.
 *  - Fields are only ever added at the end of a struct, and only of the
 *    structs a call takes with their size: hs_options through
 *    hs_filter_create_ex and hs_stats through hs_filter_stats_ex, which are
 *    passed `sizeof *p` as the caller knows it, and hs_job, whose first
 *    field is its size. The library reads or fills
 *    only the bytes both sides know; a field the library does not know must
 *    be 0 (HS_E_USAGE otherwise), one the caller does not know reads as 0.
 *    The 0.1 calls hs_filter_create and hs_filter_stats read and fill
 *    exactly the 0.1 fields, forever.
 *  - Every other struct (hs_error, hs_source, hs_sink, hs_alloc, hs_spill,
 *    hs_class_count, hs_finding) is frozen as it is: what more is needed
 *    comes as new calls.
 *  - Enums only gain values, at the end, never renumbered: a caller treats
 *    a status it does not know as a failure (hs_status_str names it).
 *  - Counters are added at the end of hs_stats (HS_STATS_COUNTERS_ADDED)
 *    and of the index hs_counter_name counts: an index never changes
 *    meaning.
 * These rules are this header's; hprof_strip_static.h says what holds of
 * its calls.
 * tests/lanes/abi.sh builds a program against the 0.1 header
 * (tests/lanes/abi/hprof_strip-0.1.h) and runs it against this library.
 */
#ifndef HPROF_STRIP_H
#define HPROF_STRIP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this header; hs_version() and hs_version_number() give the
 * library's, which may be newer (see the growth rules above). The minor
 * number grows with each release that adds calls, the major one (the
 * soname's) would only with a break. */
#define HS_VERSION_MAJOR 0
#define HS_VERSION_MINOR 8
#define HS_VERSION_PATCH 0
#define HS_VERSION_NUMBER (HS_VERSION_MAJOR * 10000 + HS_VERSION_MINOR * 100 + HS_VERSION_PATCH)
#define HS_VERSION_STRING "0.8.0"

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
    HS_E_USAGE = -8,       /* the API was misused (bad argument, bad rule) */
    HS_E_CANCELLED = -9    /* hs_filter_cancel, or the progress callback,
                              stopped the run (0.2) */
} hs_status;

/* A short static description of a status code, e.g. "truncated input". */
HS_API const char *hs_status_str(hs_status status);

/* The library's version at run time (0.2): "0.2.0", and 200 for 0.2.0
 * (major * 10000 + minor * 100 + patch, as HS_VERSION_NUMBER), which may be
 * newer than the header a program was built with. */
HS_API const char *hs_version(void);
HS_API unsigned hs_version_number(void);

/* Everything known about the first error a filter met. */
typedef struct {
    hs_status code;
    uint64_t offset;        /* input byte where the problem was found (a
                               .gz or .zst's compressed byte for damage in
                               it), or UINT64_MAX when it has none (a failed
                               read or write, a bad argument) */
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
 * while it is parsed, and counts toward hs_options.max_held. It is
 * read-only once loaded: filters sharing the rule set may look names up
 * in it at once, on any threads. The `none` preset removes it. */
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

/* The whole message of the failure of the last call on `rules` that takes
 * an hs_error (hs_rules_preset, _parse, _mapping, _mapping_read,
 * _mapping_path, _mapping_input), given or not (0.8): hs_error's message
 * is its first 319 bytes, cut when it names a longer path. NULL when that
 * call succeeded, or when there was no memory for it (err's message is
 * then the one). Valid until the next such call or hs_rules_free. */
HS_API const char *hs_rules_message(const hs_rules *rules);

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
     * earlier one: hs_stats.dup_*. Memory: a table of the distinct arrays
     * of 8 bytes or more, 36 MiB or max_held / 4 at most; when full, its
     * smallest arrays go and smaller ones are no longer compared (0.5):
     * hs_stats.dup_arrays_unchecked and dup_min_bytes say so. */
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

/* The same, the options' size given (0.2): `opt_size` is sizeof *opt as the
 * caller was built with (0 with a NULL `opt`). Fields past it read as 0;
 * bytes past the options this library knows must be 0 (a newer caller
 * asking for what this library cannot do): set the struct up with memset
 * or `= {0}`. hs_filter_create reads the 0.1 fields only. NULL on failure,
 * with `err` (when not NULL) filled: HS_E_USAGE (a NULL `rules`, a NULL
 * `opt` with a size, an unknown option set), HS_E_NOMEM. */
HS_API hs_filter *hs_filter_create_ex(const hs_rules *rules, const hs_options *opt,
                                      size_t opt_size, const hs_alloc *alloc, hs_error *err);
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

/* Asks a run to stop (0.2): safe from any thread, and from a signal handler
 * (it only sets a lock-free atomic flag), before or while hs_filter_run
 * runs. The run checks the flag each time its read window moves on (at
 * least every read_buffer bytes of input, 1 MiB by default, and at each
 * read), stops there and returns HS_E_CANCELLED, hs_filter_error saying at
 * which input byte; what the sink got stays written, as for any error, and
 * the filter can then only be freed. Before the run, the run stops at once;
 * once the input was read whole, the run may end as it would have. A NULL
 * `f` is fine. The caller makes sure the filter is not freed while another
 * thread may still cancel it. */
HS_API void hs_filter_cancel(hs_filter *f);

/* Progress (0.2): `cb` is called on the running thread with the input bytes
 * read and the output bytes handed to the sink so far (hs_stats.bytes_in
 * and bytes_out), as the run moves on: when the read window moves and at least
 * 1 MiB of input came since the last call, never per record; and once more
 * when the run ends, whatever its status, with the final counts, equal to
 * hs_filter_stats's. Both only grow. A non-zero return cancels the run (as
 * hs_filter_cancel; the final call's is ignored). In the callback, only
 * hs_filter_cancel, hs_filter_stats(_ex) and hs_filter_counter may be
 * called on the filter. Set before hs_filter_run (a NULL `cb` removes it);
 * HS_E_USAGE for a NULL `f`, or once the filter ran. */
typedef int (*hs_progress_fn)(void *ctx, uint64_t bytes_in, uint64_t bytes_out);
HS_API hs_status hs_filter_set_progress(hs_filter *f, hs_progress_fn cb, void *ctx);

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
    HS_STATS_COUNTERS_0_1(X)                                                  \
    HS_STATS_COUNTERS_ADDED(X)
#define HS_STATS_COUNTERS_0_1(X)                                              \
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

/* The counters added after 0.1, each at the end (of this list, of hs_stats,
 * of the counter index). HS_STATS_COUNTERS_0_1 must never change, for
 * hs_stats's 0.1 layout is the fields it makes followed by the dup_*
 * fields. 0.5: the two that say how far the duplicate counts are exact
 * (find_duplicates). Then the peak of the STRINGs held (a part of
 * held_bytes_peak). */
#define HS_STATS_COUNTERS_ADDED(X)                                            \
    X(dup_arrays_unchecked, HS_COUNT,                                         \
      "arrays not compared for copies (table full): 0 if dup_* are exact")    \
    X(dup_min_bytes, HS_BYTES,                                                \
      "smallest array compared for copies, all along from that size up")      \
    X(held_strings_peak, HS_BYTES, "most memory held for STRINGs not yet used")

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
    HS_STATS_COUNTERS_0_1(HS_STATS_FIELD_)
    /* find_duplicates: arrays repeating an earlier one's type, length and
     * contents, and the bytes they take, by element type (index: the basic
     * type code); the five element type and length pairs wasting most */
    uint64_t dup_arrays[12], dup_bytes[12];
    struct {
        uint32_t type;
        uint64_t length_bytes, copies, wasted;
    } dup_top[5];
    /* the counters added after 0.1 (none yet), and any later field, here */
    HS_STATS_COUNTERS_ADDED(HS_STATS_FIELD_)
#undef HS_STATS_FIELD_
} hs_stats;

/* The counters of the last run (or so far, from a progress callback): the
 * 0.1 fields only, as a 0.1 program knows them. */
HS_API void hs_filter_stats(const hs_filter *f, hs_stats *out);

/* The same, `size` being sizeof *out as the caller knows hs_stats (0.2):
 * fills the first `size` bytes of *out and never more, fields this library
 * does not have reading 0. Returns how many bytes it filled with counters
 * it has (the smaller of `size` and its own sizeof(hs_stats)). A NULL `f`
 * gives all zeros; a NULL `out` fills nothing and returns 0. */
HS_API size_t hs_filter_stats_ex(const hs_filter *f, hs_stats *out, size_t size);

/* The scalar counters by index, without the header (0.2), for bindings:
 * index i (from 0) is the i-th of HS_STATS_COUNTERS, an index never
 * changing meaning (counters are only added at the end). */
HS_API size_t hs_counter_count(void);
/* "bytes_in"...; NULL past the last. */
HS_API const char *hs_counter_name(size_t i);
/* HS_COUNT, HS_BYTES or HS_OFFSET (enum hs_stat_kind); -1 past the last. */
HS_API int hs_counter_kind(size_t i);
/* The line HS_STATS_COUNTERS gives it, e.g. "HPROF bytes read"; NULL past
 * the last. */
HS_API const char *hs_counter_description(size_t i);
/* The index of the counter named `name`, or -1 for an unknown name (or
 * NULL). */
HS_API int hs_counter_index(const char *name);
/* Counter i of `f` as hs_filter_stats gives it; 0 past the last or for a
 * NULL `f`. */
HS_API uint64_t hs_filter_counter(const hs_filter *f, size_t i);

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
    HS_FIND_STRING_LONG,   /* a STRING over 1 MiB (no name: its text is
                              zeroed): bytes its non-zero text bytes */
    /* 0.7, the audit's verifier (hs_job.audit): */
    HS_FIND_RESERVED,      /* a CLASS_DUMP's two reserved ids non-zero,
                              "pkg.Class (CLASS_DUMP reserved ids)" */
    HS_FIND_CONTAINER      /* what the file's container holds beside the
                              dump: "gzip FNAME", "gzip FCOMMENT", "gzip
                              FEXTRA", "zstd skippable frame", "gzip
                              trailing bytes"...; first_offset a file byte */
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

/* ---- I/O: files, descriptors, memory and callbacks, compressed or not ---- */

/* What follows is the command-line tool's own I/O, for any program: sources
 * that tell plain, gzip and zstd dumps apart and decompress them, sinks that
 * compress on threads, and whole runs (hs_job_run) with the tool's exit
 * codes and its JSON report. Unlike the filter above, these do I/O and
 * start threads. */

typedef enum { HS_COMPRESS_NONE = 0, HS_COMPRESS_ZSTD = 1, HS_COMPRESS_GZIP = 2 } hs_compression;

/* The compressions, from the library's one table of them (0.8), so that a
 * program need not know their magic numbers or names. hs_sniff: what the
 * first `n` bytes at `head` are: HS_COMPRESS_GZIP or _ZSTD (what the input
 * calls decompress), -1 for a format a dump arrives in that is not read
 * here (zip, xz, bzip2, lz4, 7z), else HS_COMPRESS_NONE (HPROF or not).
 * hs_compression_name: "gzip", "zstd" (the report's "compression"), NULL
 * for HS_COMPRESS_NONE or a value this library does not know;
 * hs_compression_of_name its inverse ("none" too), -1 for an unknown name.
 * hs_compression_of_path: what a file name's suffix says (.gz; .zst or
 * .zstd), HS_COMPRESS_NONE for none, with the suffix's length in
 * *suffix_len (may be NULL; 0 for none); hs_compression_suffix: the
 * suffix an output gets (".gz", ".zst"), NULL for none.
 * hs_compression_levels: the range of levels hs_output_open_* take (the
 * command's -z and --gzip ranges): 0, or -1 for none.
 * hs_compression_foreign_of_path: the name of a compression this library
 * does not write when a file name's suffix says one (0.8): "bzip2" (.bz2),
 * "xz" (.xz), "lzma" (.lzma), "lz4" (.lz4), "lzip" (.lz), "zip" (.zip),
 * "7-Zip" (.7z), "brotli" (.br), "compress" (.Z), "snappy" (.sz); NULL
 * for any other name (.gz and .zst ones too), so that a program need not
 * write plain HPROF under such a name. */
HS_API int hs_sniff(const void *head, size_t n);
HS_API const char *hs_compression_name(int c);
HS_API int hs_compression_of_name(const char *name);
HS_API int hs_compression_of_path(const char *path, size_t *suffix_len);
HS_API const char *hs_compression_suffix(int c);
HS_API int hs_compression_levels(int c, int *min, int *max);
HS_API const char *hs_compression_foreign_of_path(const char *path);

typedef struct hs_input hs_input; /* opaque */

/* Each opens a dump and tells plain, gzip (HotSpot's -gz members too) and
 * zstd apart by their magic, decompressing at the CLI's speed (ISA-L, the
 * reader thread). A regular file (by path or descriptor) is mapped and read
 * in place, its pages given back behind the reading. NULL on failure, with
 * `err` (may be NULL) filled: HS_E_READ (cannot open/read), HS_E_UNSUPPORTED
 * (zip, xz, bzip2, lz4, 7z: the message names the command that extracts
 * the dump), HS_E_NOMEM; HS_E_USAGE for a NULL path or callback, a
 * negative descriptor, or NULL data with a size. A descriptor is never
 * closed by the library; memory given to hs_input_open_memory must stay
 * valid and unchanged until hs_input_close. read: as hs_source.read. */
HS_API hs_input *hs_input_open_path(const char *path, hs_error *err);
HS_API hs_input *hs_input_open_fd(int fd, hs_error *err);
/* hs_input_open_path, and on failure *message (when `message` is not NULL)
 * the whole of err's message (0.8), which a path past hs_error's 320 bytes
 * cuts, to give back with hs_free; NULL on success, or with no memory for
 * it (err's is then the one). */
HS_API hs_input *hs_input_open_path_ex(const char *path, hs_error *err, char **message);
HS_API hs_input *hs_input_open_memory(const void *data, size_t size, hs_error *err);
HS_API hs_input *hs_input_open_read(long (*read)(void *ctx, void *buf, size_t cap), void *ctx,
                                    hs_error *err);
/* The source to give hs_filter_run (or hs_rules_mapping_read), valid until
 * hs_input_close: the decompressed dump, read in place when it can be. The
 * first call starts the reader thread of a gzip input and the pager of a
 * mapped one. One run per input. NULL for a NULL `in`. */
HS_API const hs_source *hs_input_source(hs_input *in);
/* hs_input_source with its threads said (0.4): 0 as hs_input_source (the
 * reader thread and the pager when there is more than one online core), 1
 * neither (all in the caller's thread, as the CLI's -T 1), 2 or more both.
 * A negative count reads as 0. The first of the two calls decides. */
HS_API const hs_source *hs_input_source_ex(hs_input *in, int threads);
/* hs_filter_run over hs_input_source(in) (0.8; hs_input_source_ex's
 * source when that was made first), the same bytes out, with one gain:
 * where the filter patches names (a mapping, obfuscate_names), a plain
 * file the input mapped is patched where it lies, privately (a page
 * written is copied on write; the file never changes), where any other
 * source is read through a copy (a caller's memory, hs_input_open_memory's
 * included, is never written). HS_E_USAGE for a NULL `f`, `in` or `dst`,
 * a sink with no write, and as hs_filter_run. */
HS_API hs_status hs_filter_run_input(hs_filter *f, hs_input *in, const hs_sink *dst);
/* What the input is: HS_COMPRESS_NONE, _ZSTD or _GZIP (-1 for NULL). */
HS_API int hs_input_compression(const hs_input *in);
/* The input's own bytes taken so far (0.3), for progress: read from the
 * descriptor or callback (compressed ones, for a .gz or .zst input; a
 * reader thread's count of what it read ahead); of memory or a mapped
 * file, those the run is done with (pages given back), which lag behind
 * what was read by up to a window. Callable on the thread running the
 * filter (from its progress callback, say). 0 for NULL. */
HS_API uint64_t hs_input_bytes_read(const hs_input *in);
/* The input file as mapped (0.4), plain or compressed, from where the
 * input starts, its length in *len (may be NULL); NULL and 0 when the input
 * is no mapped file. A mapped file that shrinks while it is read (another
 * process truncating it) faults the reading thread with SIGBUS: the library
 * installs no handler, and this is the range a program's own handler looks
 * the fault's address up in, to name the byte. */
HS_API const void *hs_input_mapping(const hs_input *in, uint64_t *len);
/* After a run: what went wrong below the dump, or NULL. A gzip or zstd
 * layer cut short or corrupt ends the decompressed stream where the damage
 * is (the filter then sees a dump cut there: HS_E_TRUNCATED, or the
 * complete records with salvage), and this says what and at which
 * compressed byte; a failed read says why. */
HS_API const char *hs_input_error(const hs_input *in);
/* What a run over hs_input_source needs to tell a damaged file from a
 * broken dump (0.4), as hs_job_run and the CLI do. hs_input_damaged: HS_OK,
 * or, once the input was read to its end or its damage, HS_E_TRUNCATED (a
 * .gz or .zst cut short: the dump the filter saw ends there) or
 * HS_E_MALFORMED (corrupt: a bad CRC or checksum, bad compressed data);
 * hs_input_error says what. hs_input_drain reads the rest of a compressed
 * input and drops it, to learn that: where the filter found the dump
 * broken, a zstd checksum or gzip CRC failing at the end of the frame or
 * member says the file broke, not the dump (nothing for a plain input).
 * hs_input_dump_bytes: the decompressed bytes handed out so far (where a
 * damaged file's dump ends), the drained ones not counted.
 * hs_input_shrank: non-zero when the input is a mapped file now shorter
 * than when it was mapped (see hs_input_mapping). hs_input_warning: what
 * was read past and ignored, as gzip(1) does (zero bytes after the last
 * member), or NULL; once the input was read to its end. All take NULL
 * (HS_OK, nothing, 0, 0, NULL). */
HS_API hs_status hs_input_damaged(const hs_input *in);
HS_API void hs_input_drain(hs_input *in);
HS_API uint64_t hs_input_dump_bytes(const hs_input *in);
HS_API int hs_input_shrank(const hs_input *in);
HS_API const char *hs_input_warning(const hs_input *in);
HS_API void hs_input_close(hs_input *in); /* NULL is fine */

typedef struct hs_output hs_output; /* opaque */

/* level 0: the default, the CLI's (zstd: 1 for a dump with 8-byte ids, 3
 * otherwise, chosen from the dump's header; gzip: 1); zstd takes -7 to 19
 * (other numbers are clamped by libzstd), gzip 1 to 12. threads 0: one per
 * online core, as the CLI; 1: compress in the caller's thread for gzip, one
 * zstd worker. NULL on failure, `err` filled: HS_E_NOMEM (or the
 * compressor could not start), HS_E_USAGE for a negative descriptor, a
 * NULL callback, an unknown compression, a gzip level outside 1..12 or a
 * negative thread count. The sink writes all it is given (write: 0, or -1
 * on failure, as hs_sink.write). */
HS_API hs_output *hs_output_open_fd(int fd, hs_compression c, int level, int threads,
                                    hs_error *err);
HS_API hs_output *hs_output_open_write(int (*write)(void *ctx, const void *buf, size_t len),
                                       void *ctx, hs_compression c, int level, int threads,
                                       hs_error *err);
/* The sink to give hs_filter_run, valid until hs_output_close. */
HS_API const hs_sink *hs_output_sink(hs_output *out);
/* Flushes and ends the compressed frame (or the last gzip member): HS_OK,
 * or HS_E_WRITE (a write failed; `err` says why), HS_E_USAGE for NULL. A
 * write that failed before (hs_filter_run's HS_E_WRITE) fails it too. */
HS_API hs_status hs_output_finish(hs_output *out, hs_error *err);
/* Bytes written to the descriptor or callback so far (compressed). */
HS_API uint64_t hs_output_written(const hs_output *out);
HS_API void hs_output_close(hs_output *out); /* NULL is fine; never closes the fd */

/* An output's parameters for hs_output_open_ex (0.4). Sized as hs_job is
 * (its first field; later fields read as 0, bytes past the ones this
 * library knows must be 0), so it can grow. */
typedef struct {
    size_t size;             /* sizeof(hs_output_params) as the caller knows it */
    hs_compression compress; /* of the output */
    int level;               /* as hs_output_open_fd's: 0 the default... */
    int level_as_given;      /* ...unless this is non-zero: then `level` is the
                                format's own, 0 included: zstd's 0 (libzstd's
                                default, 3), gzip's 0 (stored, not compressed),
                                as the CLI's -z0 and --gzip=0 */
    int threads;             /* as hs_output_open_fd's */
} hs_output_params;

/* Opens an output with `p` (0.4): into `fd` when `write` is NULL, else
 * through `write` and `ctx` (fd ignored), as hs_output_open_fd and
 * hs_output_open_write do. NULL on failure, `err` filled: their errors,
 * and HS_E_USAGE for a NULL `p` or a field this library does not have
 * set. */
HS_API hs_output *hs_output_open_ex(int fd, int (*write)(void *ctx, const void *buf, size_t len),
                                    void *ctx, const hs_output_params *p, hs_error *err);
/* Why the output failed, in words (a failed write's strerror, the
 * compressor's message), "unknown error" when it has not; and the errno of
 * the write that failed (EPIPE: the reader went away, as for a pipe to
 * `head`; ENOSPC), 0 when none did or the failure was not a write's
 * (0.4). NULL is fine: "unknown error" and 0. */
HS_API const char *hs_output_error(const hs_output *out);
HS_API int hs_output_errno(const hs_output *out);

/* Loads the mapping file at `path` (plain, .gz or .zst) into `rules`, as
 * hs_rules_mapping_read does with `max_held` (0: 1 GiB): parsed as it is
 * read and decompressed. HS_E_USAGE when the file cannot be opened (it is
 * not there, is a directory, or may not be read: the caller's mistake, as
 * a missing rule file is, never retried; HS_E_READ before 0.7),
 * HS_E_READ when a read fails after (or the .gz/.zst is cut or corrupt),
 * the other statuses as hs_rules_mapping_read; `err` (may be NULL) says
 * which, naming the file. hs_job_run reports any mapping failure but a
 * cap or no memory as HS_E_USAGE (exit 2), as the command does. */
HS_API hs_status hs_rules_mapping_path(hs_rules *rules, const char *path, uint64_t max_held,
                                       hs_error *err);
/* The same from an opened input (any of hs_input_open_*); `origin` names
 * it in messages. The input is read to its end (or the failure). */
HS_API hs_status hs_rules_mapping_input(hs_rules *rules, hs_input *in, uint64_t max_held,
                                        const char *origin, hs_error *err);

/* ---- one whole run, as the CLI makes it ---- */

/* A job's progress (hs_job.progress): called on the thread running
 * hs_job_run as the filter's progress callback is (hs_filter_set_progress:
 * each time at least 1 MiB more input was read, and once more at the end
 * with the final counts, whatever the outcome), with the bytes read from
 * the input as it is (compressed, for a .gz or .zst input: the report's
 * "input.compressed_bytes"; a plain input's are the next count), the
 * HPROF bytes decompressed from it
 * ("input.hprof_bytes", hs_stats.bytes_in) and the HPROF bytes handed to
 * the output ("output.hprof_bytes", bytes_out). All three only grow. A
 * non-zero return cancels the run: hs_job_run returns HS_EXIT_CANCELLED
 * (8) and its report says "cancelled" (the final call's return is
 * ignored). To cancel from another thread, set a flag there that the
 * callback returns. */
typedef int (*hs_job_progress_fn)(void *ctx, uint64_t in_bytes, uint64_t in_hprof_bytes,
                                  uint64_t out_hprof_bytes);

/* ---- a run's report, as an object (0.6) ----
 *
 * What a run learnt, filled as it goes: its counters, its failure (or
 * salvaged cut), warnings, the input's and output's sizes and SHA-256
 * digests, the histogram and audit findings. hs_job_run fills one the
 * caller made (hs_job.report), which the caller then reads, or renders
 * as the JSON document --stats-file writes (hs_report_json). What the
 * command adds to a report of its own (a failure after the run, its rule
 * arguments, its process's times; the document in two parts for a signal
 * handler) is in hprof_strip_static.h. A report belongs to one run at a
 * time and is not thread-safe. */
typedef struct hs_report hs_report; /* opaque */

/* What a message is (hs_message_fn): the run's failure (kept as the
 * report's error), a cut or damage salvaged (kept as its error; the run
 * worked), a warning (kept in "warnings", at most 16), or a note that is
 * said and not kept (what a compressed input's damage added after a
 * failure before it). */
typedef enum {
    HS_MSG_ERROR = 0,
    HS_MSG_SALVAGED = 1,
    HS_MSG_WARNING = 2,
    HS_MSG_NOTE = 3
} hs_message_kind;

/* Called with each message as the report takes it, on the thread that
 * made it (the one running the job), before it is kept: `text` (at most
 * `cap` bytes with its NUL) may be rewritten in place, and what it then
 * says is what the report keeps; a caller names its own options so, or
 * adds what only it knows (a file name). `code`: the status (HS_OK for a
 * warning or note); `where`: the place in the input, or NULL. */
typedef void (*hs_message_fn)(void *ctx, hs_message_kind kind, hs_status code,
                              const hs_error *where, char *text, size_t cap);

/* A new, empty report (NULL: out of memory), and its end (NULL is fine). */
HS_API hs_report *hs_report_create(void);
HS_API void hs_report_free(hs_report *r);
/* Each message from now on goes to `fn` (NULL: none; the library prints
 * nothing of its own). */
HS_API void hs_report_set_messages(hs_report *r, hs_message_fn fn, void *ctx);
/* The run's failure (or salvaged cut), or NULL when there is none. Its
 * `message` holds what fits in 320 bytes; hs_report_message has it all. */
HS_API const hs_error *hs_report_error(const hs_report *r);
/* The bytes of the input and the output as their files hold them (0.8):
 * compressed for a .gz or .zst (the report's "compressed_bytes"), the
 * HPROF bytes for a plain one. Each is set only when known: returns 1 when
 * the input's is, | 2 when the output's is (none for an audit), 0 for
 * NULL. */
HS_API int hs_report_file_bytes(const hs_report *r, uint64_t *in_bytes, uint64_t *out_bytes);
/* The whole message of the run's failure (or salvaged cut), never cut
 * (0.8), valid until the report is reused or freed; NULL: none. */
HS_API const char *hs_report_message(const hs_report *r);
/* The counters as the run left them, sized as hs_filter_stats_ex (`size`
 * is sizeof *st as the caller knows it; returns the bytes filled): all 0
 * before a filter ran. */
HS_API size_t hs_report_stats(const hs_report *r, hs_stats *st, size_t size);
/* Whether the complete output is under its name: hs_job_run sets it (a
 * good or salvaged run's; hs_report_set_output_kept, the command's, when
 * it then removes or renames the output). */
HS_API int hs_report_output_kept(const hs_report *r);
/* Whether a filter ran (the counters are its). */
HS_API int hs_report_ran(const hs_report *r);
/* The histogram rows a run with `histogram` kept (names owned by the
 * report), by input bytes, largest first; *per_heap (may be NULL): the
 * rows are per Android heap. 0 rows: none kept. */
HS_API size_t hs_report_histogram(const hs_report *r, const hs_class_count **rows,
                                  int *per_heap);
/* The findings an audit kept (names owned by the report), in input order. */
HS_API size_t hs_report_findings(const hs_report *r, const hs_finding **rows);
/* The audit's verdict: 1 clean, 0 not clean, -1 none reached (no audit,
 * or it failed before its end). */
HS_API int hs_report_audit_verdict(const hs_report *r);
/* What an audit's verifier found (0.7): the data bytes by kind (none: the
 * file is clean), and the file and the HPROF in it, with their SHA-256
 * (64 hex digits; "" when the audit did not read them). The first_*
 * fields are HPROF offsets (0: none). Sized as hs_report_stats: `size` is
 * sizeof *out as the caller knows it; returns the bytes filled. */
typedef struct {
    uint64_t nonzero_array_bytes, first_nonzero_array;
    uint64_t nonzero_field_bytes, first_nonzero_field; /* instance, static, constant */
    uint64_t unused_strings, unused_string_bytes;      /* STRINGs nothing uses */
    uint64_t long_strings, long_string_bytes;          /* STRINGs over 1 MiB: no name */
    uint64_t unknown_records;                          /* records of unknown tag */
    uint64_t reserved_ids;                             /* CLASS_DUMPs with them non-zero */
    uint64_t container_findings;                       /* gzip fields, zstd frames, tails */
    uint64_t kept_bytes;                               /* non-zero bytes kept on purpose */
    uint64_t file_bytes, hprof_bytes;
    char file_sha256[65], hprof_sha256[65];
} hs_audit_figures;
HS_API size_t hs_report_audit_figures(const hs_report *r, hs_audit_figures *out, size_t size);
/* The JSON document of a run that ended with `exit_status` (hs_job_run's
 * return, or the caller's own after it), the one --stats-file writes, the
 * input and output named `in_name` and `out_name` (NULL: null),
 * NUL-terminated, one line; to free with hs_free(). NULL when out of
 * memory. */
HS_API char *hs_report_json(const hs_report *r, int exit_status, const char *in_name,
                            const char *out_name);

/* A job's snapshot (hs_job.snapshot): the report as it stands while the
 * run goes (its counters so far; no exit status, error or digests yet),
 * made before a read of the input, at most every 10 ms, so that one kept
 * for a signal is never older than that. Only with hs_job.report. */
typedef void (*hs_job_snapshot_fn)(void *ctx, const hs_report *r);
/* A job's start (hs_job.started): the input's source is made (a gzip
 * input's reader thread running) and nothing is read yet. */
typedef void (*hs_job_started_fn)(void *ctx, hs_input *in);
/* A job's end (hs_job.finished): after a filter's run that worked (exit 0
 * or 6; not after an audit, which runs the verifier and no filter, 0.7),
 * with the filter before it is freed (hs_filter_obfuscation_map,
 * hs_filter_histogram...) and the exit code so far; returns the run's exit
 * code, its failure recorded in hs_job.report when it is not 0. */
typedef int (*hs_job_finished_fn)(void *ctx, const hs_filter *filter, int exit_code);

typedef struct {
    size_t size;              /* sizeof(hs_job) as the caller knows it: later fields read as 0 */
    const char *preset;       /* NULL: "default" */
    const char *rules_text;   /* rule-file text applied after the preset, or NULL */
    size_t rules_len;
    const char *mapping_path; /* an R8/ProGuard mapping.txt (.gz/.zst too), or NULL */
    hs_compression compress;  /* 0: the output's, which says its own; or the
                                 output's again (another: HS_EXIT_USAGE) */
    int level;                /* 0: the default */
    int threads;              /* 0: what the cores allow */
    int histogram;            /* non-zero: the class histogram in the report */
    int audit;                /* non-zero: audit the input, write no output (out may be NULL):
                                 since 0.7 by the verifier (hprof-strip-report(5), AUDIT), which
                                 reads the input's own bytes, container included; no
                                 filter runs, so no histogram and no `started` or
                                 `finished` hook */
    int salvage;              /* non-zero: --salvage */
    /* Added in 0.3, after the first hs_job: a caller whose size ends at
     * `salvage` gets none of them, as before. */
    hs_job_progress_fn progress; /* NULL: none; non-zero return: cancel */
    void *progress_ctx;          /* progress's first argument */
    const char *in_name;         /* the input's name in messages and the report */
    const char *out_name;        /* the output's; NULL: "input", "output", null */
    /* Added in 0.4: the whole of what a filter takes, for a run beyond
     * the presets (keep rules, a memory cap, a spill store, --to-jvm). */
    const hs_rules *rules;       /* a rule set the caller made (hs_rules_*), used as
                                    it is and left alone: preset, rules_text and
                                    mapping_path must then be NULL; not with audit.
                                    NULL: the job makes its own */
    const hs_options *options;   /* the filter's options, as hs_filter_create_ex
                                    takes them (NULL: none); the job's salvage,
                                    histogram and audit, and what its report
                                    counts, are turned on over them */
    size_t options_size;         /* sizeof *options as the caller knows it */
    /* Added in 0.6: the report as an object, and a caller's hooks. */
    hs_report *report;           /* filled by the run (hs_report_create), the caller's
                                    to render and free; its message hook says each
                                    message as it is made. Reused for another run,
                                    it holds that run alone: the last run's error,
                                    counters, rows and verdict go (0.7); its hook
                                    and the rules and warnings noted since that run
                                    ended stay, the new run's. NULL: none */
    int full_report;             /* with `report`: all of a JSON report's figures
                                    (both sides' digests, duplicate arrays, non-zero
                                    counts), which cost a hash per byte and per
                                    array; asking for the `report` argument's
                                    document implies it */
    hs_job_snapshot_fn snapshot; /* NULL: none. Only with `report` */
    hs_job_started_fn started;   /* NULL: none */
    hs_job_finished_fn finished; /* NULL: none */
    void *hooks_ctx;             /* the first argument of snapshot, started, finished */
} hs_job;

/* Runs `job` from `in` into `out` and returns the run's exit status, the
 * CLI's exit codes (0 ok, 1 bad input, 2 usage, 3 truncated, 4 I/O, 5 a
 * memory cap, 6 salvaged, 7 audit findings: hprof-strip(1) EXIT STATUS;
 * and 8, HS_EXIT_CANCELLED, when job->progress cancelled it).
 * `out` is opened by the caller (hs_output_open_*), whose compression and
 * level are the output's own (job->compress, when not 0, must be the
 * same; before 0.8 it had to be given); job->threads (0: one per core) also decides
 * whether a gzip input is inflated on a thread of its own. The output is
 * finished (hs_output_finish) after a good run. When `report` is not NULL,
 * *report gets the JSON report of the run, the same document `--stats-file`
 * writes (with its "schema" version; the input's and output's "name" are
 * job->in_name and out_name, null when NULL), NUL-terminated, to free with
 * hs_free(); it is written for failed runs too (NULL only when out of
 * memory). Messages name the input job->in_name ("input" when NULL) and
 * the output job->out_name ("output"). A NULL `job` or `in`, or a NULL
 * `out` without audit, is exit 2. Nothing of the caller's is closed or
 * removed, whatever the outcome: a failed or cancelled run leaves `out`
 * unfinished, what it wrote written. */
HS_API int hs_job_run(const hs_job *job, hs_input *in, hs_output *out, char **report);
HS_API void hs_free(void *p); /* what hs_job_run allocated; NULL is fine */

/* ---- the command's outcomes, for a program that reports as it does ---- */

/* The exit codes of hprof-strip(1) (EXIT STATUS), which hs_job_run returns
 * (0.2). */
enum hs_exit_code {
    HS_EXIT_OK = 0,
    HS_EXIT_BAD_INPUT = 1, /* not HPROF, or breaks the format */
    HS_EXIT_USAGE = 2,     /* bad option, argument or call */
    HS_EXIT_TRUNCATED = 3, /* the input ends inside a record */
    HS_EXIT_IO = 4,        /* reading or writing failed */
    HS_EXIT_LIMIT = 5,     /* a memory cap was reached, or out of memory */
    HS_EXIT_SALVAGED = 6,  /* salvage: truncated input, complete part written */
    HS_EXIT_AUDIT = 7,     /* audit: the dump still holds data */
    HS_EXIT_CANCELLED = 8  /* HS_E_CANCELLED: the library's alone */
};

/* The one table of outcomes the command and the JSON report use (0.2): for
 * each status, its exit code, its report name ("error.status": "ok",
 * "salvaged", "malformed", "unsupported", "usage", "truncated", "read",
 * "write", "limit", "nomem", "cancelled"; stable, pipelines switch on it)
 * and whether running the same job again may succeed (a read or write
 * failure, no memory, a cancel). A status this library does not know reads
 * as HS_E_MALFORMED's row. hs_status_of_exit gives the first status of the
 * table with that exit code (HS_E_MALFORMED for a code not in it). */
HS_API int hs_status_exit(hs_status status);
HS_API const char *hs_status_name(hs_status status);
HS_API int hs_status_retryable(hs_status status);
HS_API hs_status hs_status_of_exit(int exit_code);

/* The name of an HPROF basic type as the report writes it (0.2): "boolean",
 * "char", "float", "double", "byte", "short", "int", "long" for 4..11, ""
 * below 4 and "?" past 11. */
HS_API const char *hs_basic_type_name(unsigned type);

/* The name of an Android heap, a HEAP_DUMP_INFO's heap id, as the report's
 * "heap" and the command's histogram write it (0.8): "app" for 'A',
 * "zygote" for 'Z', "image" for 'I', "default" for 0 (the heap a segment
 * starts in), "other" for any other id. */
HS_API const char *hs_heap_name(uint32_t heap);

/* ---- the push API: a dump handed in as it arrives (0.8) ------------------- */

/* For a dump that comes in pieces the caller is handed (an upload's body,
 * a hook on the runtime's own writes): a push handle runs `job` as
 * hs_job_run does, into `out`, over an input that is the bytes the caller
 * writes, in writes of any size, stripped as they come. The bytes wait in
 * a bounded buffer (`buffer`): a write that finds it full waits until the
 * run has read some, so memory stays flat however long the input. The run
 * is the same run as hs_job_run's over the same bytes (a gzip or zstd
 * input told by its magic, the same output and report).
 *
 *     hs_output *out = hs_output_open_write(my_write, my_ctx, HS_COMPRESS_NONE, 0, 0, &err);
 *     hs_job job = {.size = sizeof job};
 *     hs_push *p = hs_push_new(&job, out, NULL, &err);
 *     while ((n = next_piece(buf)) > 0)
 *         if (hs_push_write(p, buf, n) != HS_OK)
 *             break;                  (the run ended: finish says how)
 *     rc = hs_push_finish(p, NULL);   (hs_job_run's exit code)
 *     hs_push_free(p);
 *     hs_output_close(out);
 *
 * The run is on a thread of the library's (every signal blocked in it):
 * `out`'s sink and the job's hooks are called there, never on the
 * caller's. What `job` points to (names, rules, options, report, hooks'
 * context) and `out` must stay valid until hs_push_finish or hs_push_free
 * returns. A handle is one caller's: its calls are not to be made from two
 * threads at once. */
typedef struct hs_push hs_push;

typedef struct {
    size_t size;     /* sizeof(hs_push_options) as the caller knows it: later fields read as 0 */
    size_t buffer;   /* bytes between the writes and the run; 0: 1 MiB; taken as at
                        least 64 bytes and at most 256 MiB */
    int json_report; /* non-zero: hs_push_finish gives the JSON report (and the run
                        takes all of its figures, as hs_job_run's `report` argument
                        asks) */
    int reserved;    /* 0 (room for an int to come, so the struct ends with no
                        padding a later field would fall in) */
} hs_push_options;

/* Starts the run of `job` (sized, as hs_job_run takes it) into `out`
 * (opened with job->compress, as hs_job_run's; NULL with job->audit), with
 * `opt` (NULL: the defaults). NULL on failure, `err` (may be NULL) filled:
 * HS_E_USAGE for no job, a job without its size, no output, or a field of
 * `job` or `opt` this library does not have set; HS_E_NOMEM. */
HS_API hs_push *hs_push_new(const hs_job *job, hs_output *out, const hs_push_options *opt,
                            hs_error *err);
/* Hands `len` bytes to the run, waiting while the buffer is full. HS_OK:
 * all taken. Once the run has ended (a broken dump, a failing output, a
 * cancel by job->progress), it returns at once, without waiting, the
 * status the run ended with (HS_SALVAGED for a salvaged cut; then
 * hs_push_finish gives the exit code and report): the bytes are not taken.
 * HS_E_USAGE after hs_push_finish or hs_push_try_end, or for NULL `buf`
 * with a `len`. */
HS_API hs_status hs_push_write(hs_push *p, const void *buf, size_t len);
/* The same without ever waiting, for an event loop: takes what fits now,
 * *taken (may be NULL) saying how much (0 or more, all when HS_OK and no
 * wait was needed). When it took less than `len`, hs_push_fd turns
 * readable once there is room again (or the run has ended): wait for that,
 * and write the rest. */
HS_API hs_status hs_push_try_write(hs_push *p, const void *buf, size_t len, size_t *taken);
/* The end of the input, without waiting: 1 when it is handed to the run
 * (or the run had ended), 0 when it waits for room (hs_push_fd turns
 * readable when there is: call it again), -1 for NULL. No write after. */
HS_API int hs_push_try_end(hs_push *p);
/* A descriptor (a pipe's, the handle's own: never to close or read) that
 * is readable after a try found no room and there is some again, and once
 * the run has ended; -1 if no pipe could be made. The next try (or
 * hs_push_done) empties it: wait for it again after that. */
HS_API int hs_push_fd(hs_push *p);
/* 1 once the run has ended (hs_push_finish will not wait), else 0. */
HS_API int hs_push_done(hs_push *p);
/* Ends the input (when hs_push_try_end did not), waits for the run to end
 * and returns its exit code, as hs_job_run's (0 ok, 6 salvaged, 7 audit
 * findings...; 2 for NULL or a second call); *report (may be NULL) gets
 * the JSON report when json_report asked for it, else NULL, to free with
 * hs_free. The output is finished after a good run, as hs_job_run does;
 * it is the caller's to close. */
HS_API int hs_push_finish(hs_push *p, char **report);
/* Frees the handle (NULL is fine). Before hs_push_finish, it stops the
 * run first (its next read fails, HS_E_READ) and waits for its thread:
 * what the run wrote to `out` is a part, the output unfinished. */
HS_API void hs_push_free(hs_push *p);

#ifdef __cplusplus
}
#endif
#endif
