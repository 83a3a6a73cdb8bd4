/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rules.h - the in-memory rule set and its pure verdict functions.
 *
 * A rule set is built once (from presets and rule files, rulefile.c) and
 * then only read. Array rules are kept in the order they were given and the
 * last one that matches an array wins; heap, root and string settings are
 * simply overwritten. Either way "later lines override earlier ones".
 */
#ifndef HS_RULES_H
#define HS_RULES_H

#include <stddef.h>
#include <stdint.h>

#include "hprof_strip.h"
#include "hs_limits.h"
#include "mapping.h"

typedef enum {
    HS_ARR_KEEP,   /* payload untouched */
    HS_ARR_ZERO,   /* payload bytes set to 0, length kept */
    HS_ARR_FILL,   /* payload bytes set to `fill`, length kept */
    HS_ARR_PREFIX, /* first `prefix` elements kept, the rest zeroed */
    HS_ARR_EMPTY,  /* array kept with length 0 */
    HS_ARR_DROP    /* array record removed */
} hs_arr_action;

typedef struct {
    hs_arr_action action;
    uint8_t fill;
    uint64_t prefix; /* elements, for HS_ARR_PREFIX */
} hs_arr_verdict;

typedef struct {
    uint16_t types;     /* bit (1 << basic type) for each type it covers */
    uint64_t min_bytes; /* applies to payloads of at least this many bytes */
    hs_arr_verdict verdict;
} hs_arr_rule;

#define HS_MAX_ARRAY_RULES 256
#define HS_MAX_HEAP_RULES 16
#define HS_MAX_KEEP_FIELDS 64 /* a u64 mask per name in scrub.c */
/* HS_MAX_NAME, a keep-field name's room: hs_limits.h */
#define HS_MAX_PATH 4096 /* a rule file's `mapping FILE` */
#define HS_ALL_PRIMITIVES ((uint16_t)0x0ff0) /* types 4 (boolean) .. 11 (long) */

typedef struct {
    uint32_t heap; /* heap id from HEAP_DUMP_INFO: 'A' app, 'Z' zygote, ... */
    int drop;
} hs_heap_rule;

struct hs_rules {
    hs_alloc alloc;
    hs_arr_rule arr[HS_MAX_ARRAY_RULES];
    unsigned n_arr;
    int drop_unused_strings;
    uint8_t drop_root[256]; /* by sub-record tag */
    hs_heap_rule heaps[HS_MAX_HEAP_RULES];
    unsigned n_heaps;
    int scrub_fields; /* zero primitive instance/static/constant values */
    char keep[HS_MAX_KEEP_FIELDS][HS_MAX_NAME]; /* "java.lang.String.coder" */
    /* each entry's length and its class part's ("java.lang.String"): every
     * STRING record of the dump is matched against the list, so the split
     * is made once, when the entry is added */
    uint16_t keep_len[HS_MAX_KEEP_FIELDS], keep_class_len[HS_MAX_KEEP_FIELDS];
    /* each entry's declared type (0: any primitive) and, with a type,
     * whether it is a static field: a keep applies to that field only */
    uint8_t keep_type[HS_MAX_KEEP_FIELDS], keep_static[HS_MAX_KEEP_FIELDS];
    unsigned n_keep;
    uint64_t keep_anchored; /* entries of a JDK class (hs_platform_class):
                               kept only in the one class of that name,
                               loaded by the bootstrap loader (scrub.c) */
    uint64_t keep_asked; /* entries given outside a preset: worth a warning
                            when they keep nothing */
    /* deobfuscation: the mapping loaded (hs_rules_mapping), and the file a
     * rule file's `mapping` line named, for the caller to load (the core
     * opens no files); pending while named and not loaded since */
    hs_mapping *mapping;
    char mapping_file[HS_MAX_PATH];
    int mapping_pending;
    /* the whole message of the last failed call (hs_rules_message), from
     * `alloc`; NULL when the last call succeeded */
    char *message;
};

/* Each public call that takes an hs_error begins by forgetting the last
 * call's message, and ends, when it failed, keeping `e`'s unless the whole
 * of it was kept on the way (hs_fail_whole into r->message: `e` holds its
 * start); hs_rules_end_call returns `s`. */
void hs_rules_begin_call(hs_rules *r);
hs_status hs_rules_end_call(hs_rules *r, hs_status s, const hs_error *e);

/* What a rule set needs of the filter, worked out once before a run: the
 * filter sets up only what these ask for, and nothing but rules.c reads the
 * rule fields themselves. */
typedef struct {
    int reencode;     /* heap records are re-segmented (lengths change, or
                         records are reordered or inserted) */
    int reencode_for_jvm; /* ... for --to-jvm alone: not on a JVM's dump */
    int drop_strings; /* STRING records held until their first user */
    int scrub;        /* primitive field values zeroed: class layouts kept,
                         instances held until their class dump */
    int keep_names;   /* STRING texts matched against keep-field names */
    int hold_roots;   /* some heap is dropped: roots wait for their object */
    int hashing;      /* payloads hashed for the duplicate report */
    int deobf;        /* a mapping, or obfuscation, renames classes, fields
                         and frames (deobf.c) */
    int strict;       /* values are removed (hs_rules_remove_values): what the
                         filter cannot examine is not copied either */
    int findings;     /* where the non-zero values are (hs_options.findings) */
} hs_caps;

hs_caps hs_rules_caps(const hs_rules *r, const hs_options *opt);

/* True when primitive field values are zeroed (`fields zero`). */
int hs_rules_remove_fields(const hs_rules *r);

/* Under rules that remove values, a mapping may not rename a class into
 * the JDK's or Android's packages (hs_mapping_platform_line), nor rename
 * such a class's fields: HS_E_USAGE naming the file and line, else HS_OK.
 * Checked when a mapping is taken and when a filter is created. */
hs_status hs_rules_check_mapping(const hs_rules *r, hs_error *err);
/* hs_rules_check_mapping's refusal whole, from the rules' allocator (free
 * it with hs_alloc_free(&r->alloc, ...)), or NULL when there is none or no
 * memory: hs_job_run reports it so when its filter is refused. */
char *hs_rules_mapping_refusal(const hs_rules *r);

/* True when roots of kind `subtag` are dropped. */
int hs_rules_root_dropped(const hs_rules *r, unsigned subtag);

/* The keep-field entries (a bit each) whose class is named `text`, in
 * HotSpot's java/lang/String or ART's java.lang.String form; and those whose
 * field is named `text`. */
uint64_t hs_rules_keep_class_mask(const hs_rules *r, const uint8_t *text, size_t n);
uint64_t hs_rules_keep_field_mask(const hs_rules *r, const uint8_t *text, size_t n);

/* The keep-field entries that may keep a field of basic type `type`,
 * static or not: those that declare no type, and those that declare this
 * one (issue #50: a `long coder` is not String.coder). */
uint64_t hs_rules_keep_typed(const hs_rules *r, int is_static, unsigned type);
/* The entries of JDK classes (rules.keep_anchored). */
uint64_t hs_rules_keep_anchored(const hs_rules *r);

/* The keep-field entries given outside a preset (a bit each), and the
 * text of entry k. */
uint64_t hs_rules_keep_asked(const hs_rules *r);
const char *hs_rules_keep_name(const hs_rules *r, unsigned k);

/* What to do with a primitive array of `type` whose payload is `nbytes`. */
hs_arr_verdict hs_rules_array(const hs_rules *r, unsigned type, uint64_t nbytes);
/* The payload size under which every PRIMITIVE_ARRAY_DUMP of basic type
 * `type` is zeroed (HS_ARR_ZERO): 0 when none is, UINT64_MAX when all are. */
uint64_t hs_rules_zero_below(const hs_rules *r, unsigned type);

/* True when the objects of heap `heap` are to be dropped. */
int hs_rules_heap_dropped(const hs_rules *r, uint32_t heap);
/* True when some heap's objects are dropped. */
int hs_rules_drop_any_heap(const hs_rules *r);

/* True when the rules remove values: primitive fields zeroed, some array
 * payload zeroed, filled, emptied or dropped, or unused strings dropped.
 * Then a record of unknown tag is dropped rather than copied, and a STRING
 * too long to hold and not known to be used has its text zeroed (issue
 * #35: no byte goes out unexamined). */
int hs_rules_remove_values(const hs_rules *r);

/* True when some rule can change the length of a heap record (or must
 * insert records between segments), so heap records must be re-encoded
 * rather than passed through in place. */
int hs_rules_change_lengths(const hs_rules *r);

/* Building blocks for rulefile.c. Return 0, or -1 when a table is full. */
int hs_rules_add_array(hs_rules *r, uint16_t types, uint64_t min_bytes, hs_arr_verdict v);
int hs_rules_set_heap(hs_rules *r, uint32_t heap, int drop);
void hs_rules_reset(hs_rules *r);

/* rulefile.c: the name of built-in preset `i` (from 0, in the order they
 * are listed to users), NULL past the last. The presets' one list: the
 * parser's message and the tests take their names from it. */
const char *hs_preset_name(size_t i);

/* Names for heaps and root kinds, shared by the parser and the printer. */
typedef struct {
    const char *name;
    unsigned code;
} hs_name;
extern const hs_name hs_heap_names[];   /* terminated by a NULL name */
extern const hs_name hs_root_names[];   /* terminated by a NULL name */
extern const hs_name hs_type_names[];   /* primitive types; NULL-terminated */

#endif
