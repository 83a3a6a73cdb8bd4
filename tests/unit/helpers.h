/* SPDX-License-Identifier: Apache-2.0 */
/*
 * helpers.h - what the test suites share: memory sources and sinks, running
 * a filter over a buffer, loading corpus files, building dumps by hand
 * (dumpgen) and an independent reader that summarizes a dump (walk).
 *
 * The walker is written separately from the library on purpose: a test that
 * checks the library's output with the library's own decoder proves little.
 */
#ifndef TEST_HELPERS_H
#define TEST_HELPERS_H

#include <stddef.h>
#include <stdint.h>

#include "hprof_strip.h"

/* ---- memory source and sink -------------------------------------------- */

typedef struct {
    const uint8_t *data;
    size_t len, pos;
    size_t chunk;   /* most bytes returned per read; 0 = all */
    int fail_at;    /* fail the read that would pass this offset; -1 = never */
    uint8_t *lent;  /* mem_borrow: the block lent last, a copy of its own */
} mem_src;

long mem_read(void *ctx, void *buf, size_t cap);
/* hs_source.borrow over a mem_src: blocks of `chunk` bytes (0 = all), each
 * a fresh copy freed (and so poisoned under ASan) at the next call, so that
 * a reader that keeps a pointer into a block given back is caught. */
long mem_borrow(void *ctx, const void **block);
void mem_src_free(mem_src *s);

typedef struct {
    uint8_t *data;
    size_t len, cap;
    size_t fail_after; /* fail once this many bytes were written; 0 = never */
} mem_sink;

int mem_write(void *ctx, const void *buf, size_t len);

typedef struct {
    hs_status status;
    uint8_t *out;
    size_t out_len;
    hs_error err;
    hs_stats st;
} run_result;

/* As a `chunk` below: the input is handed over in place (hs_source.data)
 * instead of being read. */
#define CHUNK_MAPPED ((size_t)-1)

/* As a `chunk` below, or'ed with a block size: the input is lent in blocks
 * of that many bytes (hs_source.borrow; 0 = one block). */
#define CHUNK_LENT ((size_t)1 << 40)

/* Runs a filter with `preset` (and optional `opt`) over `in`, reading
 * `chunk` bytes at a time (0 = all at once, CHUNK_MAPPED = zero-copy,
 * CHUNK_LENT | n = lent blocks). */
run_result run_filter(const uint8_t *in, size_t len, const char *preset, const hs_options *opt,
                      size_t chunk);
/* The same with a rule set of the caller's. */
run_result run_with_rules(const uint8_t *in, size_t len, const hs_rules *rules,
                          const hs_options *opt, size_t chunk);
/* Both with a sink that fails once more than `out_cap` bytes (0: no cap)
 * were written, so a run that would write gigabytes stops fast. */
run_result run_capped(const uint8_t *in, size_t len, const hs_rules *rules,
                      const hs_options *opt, size_t chunk, size_t out_cap);
run_result run_preset_capped(const uint8_t *in, size_t len, const char *preset,
                             const hs_options *opt, size_t chunk, size_t out_cap);
/* As run_with_rules, with fastpath.c's runs on or off (`fast`, see
 * hs_fast_path), and the histogram's rows (hs_options.histogram) as text
 * in *rows when `rows` is not NULL: one line each, name, heap and counts
 * (malloc'd; NULL when there are none). */
run_result run_paths(const uint8_t *in, size_t len, const hs_rules *rules,
                     const hs_options *opt, size_t chunk, int fast, char **rows);
void run_result_free(run_result *r);

/* ---- files ------------------------------------------------------------- */

/* Whole file in memory (gzip files decompressed through `gzip -dc`). NULL
 * when missing. */
uint8_t *load_file(const char *path, size_t *len);

/* `n` bytes as one gzip member, made with zlib (not the library): to free. */
uint8_t *gzip_bytes(const uint8_t *p, size_t n, size_t *out_len);

/* 1 when `path` (under ../shared, beside the repository) exists. Otherwise
 * prints one line to stderr, once per `what` in a run of the suites,
 *   skipped: WHAT (needs PATH)
 * and returns 0, so the caller skips the check; under CI (CI=true), where
 * ../shared is always there, a missing one fails the test instead. */
int need_shared(const char *path, const char *what);

/* The corpus files (every .hprof and .hprof.gz of ../shared/corpus, the corrupt
 * ones excluded), the fixtures, and the fresh JVM dump that make check
 * writes to build/fresh; NULL-terminated, static. */
const char *const *dump_paths(void);

/* The same for the long sweeps (every dump, many runs each): with
 * HS_TEST_DUMPS=K in the environment, K of them, a sample that depends on
 * the test and is logged (see sample_dumps in helpers.c). */
const char *const *dump_paths_sampled(void);
/* dump_paths_sampled() for a test that skips dumps over `max_bytes` (as
 * load_file reads them: a .gz inflated, dump_size_upto): when the sample holds none that small (HS_TEST_DUMPS=1 may pick
 * only the corpus's 500 MB dump), the first of all the dumps that is, said
 * in the log, so that a sampled run of the test still reads one. */
const char *const *dump_paths_sampled_upto(size_t max_bytes);
/* The length of the dump load_file reads from `path` (a .gz inflated),
 * counting no further than cap + 1 bytes, so a huge one is not inflated
 * just to be skipped; 0 when it cannot be read. */
size_t dump_size_upto(const char *path, size_t cap);

/* The resident KiB of the mapping that holds `addr`, from /proc/self/smaps
 * (a mapped file's pages this process has mapped), or -1 when no mapping
 * holds it. */
long mapping_resident_kib(const void *addr);

/* ---- dumpgen: dumps built by hand ---------------------------------------- */

typedef struct {
    uint8_t *p;
    size_t len, cap;
    unsigned idsize;
    size_t rec; /* start of the open record, for dg_end */
} dump;

void dg_init(dump *d, const char *version, unsigned idsize);
void dg_free(dump *d);
void dg_u1(dump *d, unsigned v);
void dg_u2(dump *d, unsigned v);
void dg_u4(dump *d, uint32_t v);
void dg_u8(dump *d, uint64_t v);
void dg_id(dump *d, uint64_t v);
void dg_bytes(dump *d, const void *p, size_t n);
void dg_begin(dump *d, unsigned tag); /* opens a record, length patched by dg_end */
void dg_end(dump *d);
void dg_string(dump *d, uint64_t id, const char *text);
void dg_load_class(dump *d, uint32_t serial, uint64_t class_id, uint64_t name_id);

/* Sub-records, written into the open heap record. */
void dg_root(dump *d, unsigned subtag, uint64_t obj); /* extra fields zeroed */
void dg_class(dump *d, uint64_t id, uint64_t super, uint64_t field_name_id);
void dg_instance(dump *d, uint64_t id, uint64_t class_id, uint32_t n, uint8_t fill);
void dg_obj_array(dump *d, uint64_t id, uint64_t class_id, uint32_t count);
void dg_prim_array(dump *d, uint64_t id, unsigned type, uint32_t count, uint8_t fill);
/* A whole 1.0.2 dump (ids of 8) of one primitive array and HEAP_DUMP_END. */
void dg_one_array(dump *d, unsigned type, uint32_t count, uint8_t fill);
void dg_heap_info(dump *d, uint32_t heap, uint64_t name_id);

/* A complete dump that uses every top-level tag and every sub-record tag
 * the format defines (Android ones when `android`). */
void dg_everything(dump *d, unsigned idsize, int android);

/* ---- walk: an independent reader --------------------------------------- */

typedef struct {
    int ok;
    char error[200];
    char version[24];
    unsigned idsize;
    uint64_t records, heap_records, subrecords, strings, heap_dump_ends;
    uint64_t instances, object_arrays, primitive_arrays, class_dumps, roots, heap_infos;
    uint64_t empty_heap_records;
    uint64_t max_segment;         /* largest heap record body */
    uint64_t max_multi_segment;   /* largest heap record holding 2+ sub-records
                                     other than HEAP_DUMP_INFO */
    uint64_t nonzero_payload_bytes;
    uint64_t payload_bytes;
    int ends_with_heap_dump_end;
    /* XXH3 of the dump's content, blind to segmentation and to where
     * HEAP_DUMP_INFOs stand: every non-heap record (tag and body) and every
     * sub-record (its bytes and the heap it is in), in order. */
    uint64_t digest;
    /* the same over the instances and arrays of the app heap ('A') only */
    uint64_t digest_app;
    /* instances and arrays per heap: default, app, zygote, image, other */
    uint64_t objects_in_heap[5];
    /* string references (LOAD_CLASS, STACK_FRAME, START_THREAD, CLASS_DUMP
     * field names, HEAP_DUMP_INFO) to a non-zero id with no STRING before
     * them, and STRING records nothing refers to */
    uint64_t string_refs_undefined;
    uint64_t strings_unused;
    /* with WALK_COLLECT: ids of zygote/image objects, and of root targets;
     * the end offset of every instance, array and class dump */
    uint64_t *dropped_heap_ids, *root_ids, *object_ends;
    size_t n_dropped_heap_ids, n_root_ids, n_object_ends;
} walk_result;

enum {
    WALK_ZERO_PAYLOADS = 1, /* hash primitive-array payloads as zeros */
    WALK_NO_STRINGS = 2,    /* leave STRING records out of the digest */
    WALK_COLLECT = 4        /* fill dropped_heap_ids and root_ids */
};

walk_result walk_dump(const uint8_t *p, size_t n, unsigned flags);

/* Decodes every instance's fields through its class chain, and every
 * class's statics (a valid dump only: check it with walk_dump first). */
typedef struct {
    uint64_t instances, instances_missing_class, layout_mismatches;
    /* XOR of a hash of each reference (object id, field index, value), so
     * the order objects come in does not matter */
    uint64_t refs;
    /* non-zero bytes of primitive values, leaving out the privacy preset's
     * keep list (String.coder and the Unsafe offsets VisualVM reads) */
    uint64_t nonzero_field_bytes, nonzero_static_bytes;
} fields_result;

fields_result check_fields(const uint8_t *p, size_t n);
/* Size of the sub-record at `p` (tag included) as the walker reads it, or 0
 * when its tag is unknown or its fixed part runs past `avail`; the size may
 * be larger than `avail` (an array cut short). */
uint64_t walk_sub_size(const uint8_t *p, size_t avail, unsigned idsize);
void walk_free(walk_result *w);
/* True when sorted `ids` holds `id`. */
int ids_contain(const uint64_t *ids, size_t n, uint64_t id);

#endif
