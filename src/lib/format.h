/* SPDX-License-Identifier: Apache-2.0 */
/*
 * format.h - the HPROF vocabulary: tags, basic types and record layouts.
 *
 * Everything is big-endian. "I" below is the identifier size from the file
 * header (4 or 8); every size that depends on it is computed from it, never
 * hard-wired (hprof-conv's fixed 4 is the bug we avoid).
 *
 *   file    := "JAVA PROFILE 1.0.x\0"  u4 idsize  u4 time_hi  u4 time_lo  record*
 *   record  := u1 tag  u4 time  u4 length  body[length]
 *
 *   Heap records (HEAP_DUMP 0x0C, HEAP_DUMP_SEGMENT 0x1C) hold a sequence of
 *   sub-records with no length of their own:
 *
 *   ROOT_*           u1 tag  id object  [fixed fields: HS_ROOT_SUBRECORDS]
 *   CLASS_DUMP       u1 0x20 id class  u4 trace  id super  id loader  id signers
 *                    id domain  id res1  id res2  u4 instance_size
 *                    u2 n_const  {u2 index  u1 type  value}*
 *                    u2 n_static {id name   u1 type  value}*
 *                    u2 n_inst   {id name   u1 type}*
 *   INSTANCE_DUMP    u1 0x21 id object u4 trace  id class  u4 n   bytes[n]
 *   OBJ_ARRAY_DUMP   u1 0x22 id array  u4 trace  u4 count  id class  id[count]
 *   PRIM_ARRAY_DUMP  u1 0x23 id array  u4 trace  u4 count  u1 type  elem[count]
 *   HEAP_DUMP_INFO   u1 0xFE u4 heap_id  id name            (Android)
 *   PRIM_ARRAY_NODATA u1 0xC3 id array u4 trace  u4 count  u1 type  (Android,
 *                    header only)
 *
 * See ../shared/docs/hprof-format.md for who writes what.
 */
#ifndef HS_FORMAT_H
#define HS_FORMAT_H

#include <stddef.h>
#include <stdint.h>

/* ---- the tables -------------------------------------------------------------
 *
 * What the format says of each record, sub-record, basic type and heap is
 * written once, in the X-macro tables below; the enums, the name tables,
 * the layout tables (format.c) and the rule language's names (rules.c) are
 * generated from them. A new record kind is a row here, plus its case in
 * the filter (filter.c, heap.c) and the verifier (verify.c) only when they
 * read more of its body than the table says. Sizes are given as bytes plus
 * ids, an id being I bytes (the header's identifier size). */

/* Top-level records: X(ID, tag, name, kind, body, fixed, count, names).
 *   kind   DUMP: heap dumpers write it; PROFILE: only a profiler (the JVMTI
 *          agent) writes it, so a file with one is whole without a heap
 *          dump; END: closes a heap dump (HEAP_DUMP_END, which alone is an
 *          empty heap dump).
 *   body   FIXED: fixed bytes; COUNTED: fixed, then a u4 count at byte `at`
 *          of so many items; ID_TEXT: an id then any text (at least I);
 *          SUBRECORDS: heap sub-records, any length.
 *   fixed  bytes, ids of the fixed part;
 *   count  at, bytes, ids of one item (COUNTED);
 *   names  n, bytes, ids: the body holds n ids of STRINGs one after the
 *          other, the first at byte bytes + ids x I (the STRINGs a dump's
 *          records use: what dropping unused strings keeps).
 * UNLOAD_CLASS is the agent's alone but counts as DUMP: a file with only
 * it and no heap dump is read as a dump cut before its heap dump. */
#define HS_RECORDS(X)                                                                             \
    /* ID                 tag   name                 kind     body        fixed   count      names    */ \
    X(STRING,            0x01, "STRING",            DUMP,    ID_TEXT,    0, 1,  0,  0, 0,  0, 0, 0) \
    X(LOAD_CLASS,        0x02, "LOAD_CLASS",        DUMP,    FIXED,      8, 2,  0,  0, 0,  1, 8, 1) \
    X(UNLOAD_CLASS,      0x03, "UNLOAD_CLASS",      DUMP,    FIXED,      4, 0,  0,  0, 0,  0, 0, 0) \
    X(STACK_FRAME,       0x04, "STACK_FRAME",       DUMP,    FIXED,      8, 4,  0,  0, 0,  3, 0, 1) \
    X(STACK_TRACE,       0x05, "STACK_TRACE",       DUMP,    COUNTED,   12, 0,  8,  0, 1,  0, 0, 0) \
    X(ALLOC_SITES,       0x06, "ALLOC_SITES",       PROFILE, COUNTED,   34, 0, 30, 25, 0,  0, 0, 0) \
    X(HEAP_SUMMARY,      0x07, "HEAP_SUMMARY",      PROFILE, FIXED,     24, 0,  0,  0, 0,  0, 0, 0) \
    X(START_THREAD,      0x0A, "START_THREAD",      PROFILE, FIXED,      8, 4,  0,  0, 0,  3, 8, 1) \
    X(END_THREAD,        0x0B, "END_THREAD",        PROFILE, FIXED,      4, 0,  0,  0, 0,  0, 0, 0) \
    X(HEAP_DUMP,         0x0C, "HEAP_DUMP",         DUMP,    SUBRECORDS, 0, 0,  0,  0, 0,  0, 0, 0) \
    X(CPU_SAMPLES,       0x0D, "CPU_SAMPLES",       PROFILE, COUNTED,    8, 0,  4,  8, 0,  0, 0, 0) \
    X(CONTROL_SETTINGS,  0x0E, "CONTROL_SETTINGS",  PROFILE, FIXED,      6, 0,  0,  0, 0,  0, 0, 0) \
    X(HEAP_DUMP_SEGMENT, 0x1C, "HEAP_DUMP_SEGMENT", DUMP,    SUBRECORDS, 0, 0,  0,  0, 0,  0, 0, 0) \
    X(HEAP_DUMP_END,     0x2C, "HEAP_DUMP_END",     END,     FIXED,      0, 0,  0,  0, 0,  0, 0, 0)

/* Heap-dump sub-records: X(ID, tag, name, kind, fixed, rule name). They
 * carry no length: `fixed` (bytes, ids, after the tag byte) is what must
 * be read to know a sub-record's size (CLASS_DUMP: through n_const).
 *   kind   ROOT: a GC root, its object id right after the tag byte;
 *          ART_ROOT: a root only Android (1.0.3) writes, which --to-jvm
 *          writes as ROOT_UNKNOWN; CLASS; OBJECT: an instance or array;
 *          HEAP_INFO: Android's switch of heap.
 *   rule   a root kind's name in rules ("roots NAME,... drop"), in this
 *          order (listings, "all"). */
#define HS_ROOT_SUBRECORDS(X)                                                                   \
    /* ID                         tag   name                      kind      fixed   rule */     \
    X(ROOT_UNKNOWN,              0xFF, "ROOT_UNKNOWN",           ROOT,     0, 1, "unknown")      \
    X(ROOT_JNI_GLOBAL,           0x01, "ROOT_JNI_GLOBAL",        ROOT,     0, 2, "jni-global")   \
    X(ROOT_JNI_LOCAL,            0x02, "ROOT_JNI_LOCAL",         ROOT,     8, 1, "jni-local")    \
    X(ROOT_JAVA_FRAME,           0x03, "ROOT_JAVA_FRAME",        ROOT,     8, 1, "java-frame")   \
    X(ROOT_NATIVE_STACK,         0x04, "ROOT_NATIVE_STACK",      ROOT,     4, 1, "native-stack") \
    X(ROOT_STICKY_CLASS,         0x05, "ROOT_STICKY_CLASS",      ROOT,     0, 1, "sticky-class") \
    X(ROOT_THREAD_BLOCK,         0x06, "ROOT_THREAD_BLOCK",      ROOT,     4, 1, "thread-block") \
    X(ROOT_MONITOR_USED,         0x07, "ROOT_MONITOR_USED",      ROOT,     0, 1, "monitor-used") \
    X(ROOT_THREAD_OBJ,           0x08, "ROOT_THREAD_OBJECT",     ROOT,     8, 1, "thread-object") \
    X(ROOT_INTERNED_STRING,      0x89, "ROOT_INTERNED_STRING",   ART_ROOT, 0, 1, "interned-string") \
    X(ROOT_FINALIZING,           0x8A, "ROOT_FINALIZING",        ART_ROOT, 0, 1, "finalizing")   \
    X(ROOT_DEBUGGER,             0x8B, "ROOT_DEBUGGER",          ART_ROOT, 0, 1, "debugger")     \
    X(ROOT_REFERENCE_CLEANUP,    0x8C, "ROOT_REFERENCE_CLEANUP", ART_ROOT, 0, 1, "reference-cleanup") \
    X(ROOT_VM_INTERNAL,          0x8D, "ROOT_VM_INTERNAL",       ART_ROOT, 0, 1, "vm-internal")  \
    X(ROOT_JNI_MONITOR,          0x8E, "ROOT_JNI_MONITOR",       ART_ROOT, 8, 1, "jni-monitor")  \
    X(ROOT_UNREACHABLE,          0x90, "ROOT_UNREACHABLE",       ART_ROOT, 0, 1, "unreachable")
#define HS_OTHER_SUBRECORDS(X)                                                                  \
    X(CLASS_DUMP,                0x20, "CLASS_DUMP",             CLASS,   10, 7, NULL)          \
    X(INSTANCE_DUMP,             0x21, "INSTANCE_DUMP",          OBJECT,   8, 2, NULL)          \
    X(OBJ_ARRAY_DUMP,            0x22, "OBJECT_ARRAY_DUMP",      OBJECT,   8, 2, NULL)          \
    X(PRIM_ARRAY_DUMP,           0x23, "PRIMITIVE_ARRAY_DUMP",   OBJECT,   9, 1, NULL)          \
    /* Android (1.0.3); NODATA is Dalvik's, a PRIM_ARRAY_DUMP header only */                   \
    X(PRIM_ARRAY_NODATA,         0xC3, "PRIMITIVE_ARRAY_NODATA", OBJECT,   9, 1, NULL)          \
    X(HEAP_DUMP_INFO,            0xFE, "HEAP_DUMP_INFO",         HEAP_INFO, 4, 1, NULL)
#define HS_SUBRECORDS(X) HS_ROOT_SUBRECORDS(X) HS_OTHER_SUBRECORDS(X)

/* Basic types (CLASS_DUMP entries, PRIM_ARRAY_DUMP): X(ID, code, name, size,
 * descriptor letter); size 0: an id. Codes 0 and 3 are unused; 1 the spec
 * defines and no writer uses as a field's type. */
#define HS_REFERENCE_TYPES(X)                          \
    X(ARRAY_OBJECT, 1, "array-object", 0, '[')         \
    X(OBJECT,       2, "object",       0, 'L')
#define HS_PRIMITIVE_TYPES(X)                          \
    X(BOOLEAN,      4, "boolean",      1, 'Z')         \
    X(CHAR,         5, "char",         2, 'C')         \
    X(FLOAT,        6, "float",        4, 'F')         \
    X(DOUBLE,       7, "double",       8, 'D')         \
    X(BYTE,         8, "byte",         1, 'B')         \
    X(SHORT,        9, "short",        2, 'S')         \
    X(INT,         10, "int",          4, 'I')         \
    X(LONG,        11, "long",         8, 'J')
#define HS_BASIC_TYPES(X) HS_REFERENCE_TYPES(X) HS_PRIMITIVE_TYPES(X)
/* One more than the highest code (format.c checks it against the table). */
#define HS_TYPE_CODES 12u

/* Android's heaps (HEAP_DUMP_INFO's u4 heap id): X(ID, id, name), in the
 * order messages list them. DEFAULT is the one each segment starts in,
 * never named by a HEAP_DUMP_INFO. */
#define HS_HEAPS(X)                  \
    X(APP,     'A', "app")           \
    X(ZYGOTE,  'Z', "zygote")        \
    X(IMAGE,   'I', "image")         \
    X(DEFAULT, 0,   "default")

/* ---- generated from the tables ---------------------------------------------- */

#define HS_X_ENUM_TAG(id, tag, ...) HS_TAG_##id = tag,
enum { HS_RECORDS(HS_X_ENUM_TAG) };
#undef HS_X_ENUM_TAG
#define HS_X_ENUM_SUB(id, tag, ...) HS_SUB_##id = tag,
enum { HS_SUBRECORDS(HS_X_ENUM_SUB) };
#undef HS_X_ENUM_SUB
#define HS_X_ENUM_TYPE(id, code, ...) HS_TYPE_##id = code,
enum { HS_BASIC_TYPES(HS_X_ENUM_TYPE) };
#undef HS_X_ENUM_TYPE
#define HS_X_ENUM_HEAP(id, heap, ...) HS_HEAP_##id = heap,
enum { HS_HEAPS(HS_X_ENUM_HEAP) };
#undef HS_X_ENUM_HEAP

/* kind (PROFILE and END last: after either a file needs no heap dump) */
enum { HS_REC_NONE, HS_REC_DUMP, HS_REC_PROFILE, HS_REC_END };
enum { HS_BODY_FIXED = 1, HS_BODY_COUNTED, HS_BODY_ID_TEXT, HS_BODY_SUBRECORDS }; /* body */
enum { HS_SUBK_NONE, HS_SUBK_ROOT, HS_SUBK_ART_ROOT, HS_SUBK_CLASS, HS_SUBK_OBJECT,
       HS_SUBK_HEAP_INFO };

/* A row of HS_RECORDS, by tag (format.c); name NULL: no such record. */
typedef struct {
    const char *name;
    uint8_t kind, body;
    uint8_t fixed_bytes, fixed_ids;
    uint8_t count_at, each_bytes, each_ids;
    uint8_t names, names_bytes, names_ids;
} hs_record_kind;
extern const hs_record_kind hs_record_kinds[256];

/* A row of HS_SUBRECORDS, by tag (format.c); name NULL: no such sub-record. */
typedef struct {
    const char *name;
    const char *rule;
    uint8_t kind, fixed_bytes, fixed_ids;
} hs_subrecord_kind;
extern const hs_subrecord_kind hs_subrecord_kinds[256];

/* The header line: "JAVA PROFILE 1.0" (which MAT alone knows, and which
 * the filter reads too), or that and ".x", x from 1 to HS_VERSION_NEWEST.
 * See ../shared/docs/hprof-format.md, section 1, for who writes which. */
#define HS_MAGIC "JAVA PROFILE 1.0"
#define HS_VERSION_LINE(x) HS_MAGIC "." #x
#define HS_VERSION_NEWEST 3
/* What --to-jvm and re-encoding write: segments are 1.0.2's. */
#define HS_VERSION_LINE_JVM HS_VERSION_LINE(2)

/* The file header after the version string: u4 idsize, u4 time hi, u4 time lo. */
#define HS_HEADER_TAIL 12u
/* Longest version string we look for a NUL in before giving up. */
#define HS_VERSION_MAX 32u
/* A top-level record header: u1 tag, u4 time, u4 length. */
#define HS_RECORD_HEADER 9u

/* Width in bytes of a value of basic type `type`, or 0 when the code is not a
 * valid type. Object types take the id size. */
static inline unsigned hs_type_size(unsigned type, unsigned idsize)
{
    switch (type) {
#define HS_X_CASE(id, code, name, size, letter) \
    case code: return (size) ? (size) : idsize;
        HS_BASIC_TYPES(HS_X_CASE)
#undef HS_X_CASE
    default: return 0;
    }
}

/* Element width of a primitive array of `type`, or 0 when `type` is not a
 * primitive type (object arrays are OBJ_ARRAY_DUMPs, never PRIM_ARRAY_DUMPs). */
static inline unsigned hs_prim_size(unsigned type)
{
    /* boolean, char, float, double, byte, short, int, long: 1, 2, 4, 8 twice
     * over (4 to 11), without a branch per element type (format.c checks
     * HS_PRIMITIVE_TYPES against it) */
    return type - HS_TYPE_BOOLEAN <= HS_TYPE_LONG - HS_TYPE_BOOLEAN ? 1u << (type & 3) : 0;
}

/* The primitive type whose JVM descriptor letter is `c` ('Z' boolean, 'J'
 * long, ...), or 0 when none is. */
static inline unsigned hs_type_of_letter(int c)
{
    switch (c) {
#define HS_X_CASE(id, code, name, size, letter) \
    case letter: return code;
        HS_PRIMITIVE_TYPES(HS_X_CASE)
#undef HS_X_CASE
    default: return 0;
    }
}

/* The kind (HS_REC_*) of record `tag`: a switch generated from HS_RECORDS,
 * which the compiler folds where the tag is known (the record loop). */
static inline int hs_tag_kind(unsigned tag)
{
    switch (tag) {
#define HS_X_CASE(id, tag, name, kind, ...) \
    case tag: return HS_REC_##kind;
        HS_RECORDS(HS_X_CASE)
#undef HS_X_CASE
    default: return HS_REC_NONE;
    }
}

static inline const char *hs_tag_name(unsigned tag)
{
    return tag < 256 && hs_record_kinds[tag].name ? hs_record_kinds[tag].name : "unknown record";
}

static inline int hs_tag_known(unsigned tag)
{
    return tag < 256 && hs_record_kinds[tag].name != NULL;
}

static inline const char *hs_subtag_name(unsigned subtag)
{
    return subtag < 256 && hs_subrecord_kinds[subtag].name ? hs_subrecord_kinds[subtag].name
                                                           : "unknown sub-record";
}

const char *hs_type_name(unsigned type);
/* hs_heap_name, the heaps' names, is public (hprof_strip.h). */

/* Size of a sub-record's fixed part (tag byte included) that must be read to
 * know its full size, or 0 for an unknown sub-tag. CLASS_DUMP returns its
 * fixed prefix only: its entries are walked separately. */
static inline size_t hs_sub_fixed_size(unsigned subtag, unsigned idsize)
{
    const hs_subrecord_kind *k;

    if (subtag >= 256 || !(k = &hs_subrecord_kinds[subtag])->name)
        return 0;
    return 1 + k->fixed_bytes + (size_t)k->fixed_ids * idsize;
}

/* True when `subtag` is a GC root; those are fixed-size and carry an object id
 * right after the tag byte. */
static inline int hs_sub_is_root(unsigned subtag)
{
    return subtag < 256 && (hs_subrecord_kinds[subtag].kind == HS_SUBK_ROOT ||
                            hs_subrecord_kinds[subtag].kind == HS_SUBK_ART_ROOT);
}

/* True when `subtag` is one of the roots only Android (1.0.3) writes. */
static inline int hs_sub_is_android_root(unsigned subtag)
{
    return subtag < 256 && hs_subrecord_kinds[subtag].kind == HS_SUBK_ART_ROOT;
}

/* True when `subtag` is an object: an instance or an array. */
static inline int hs_sub_is_object(unsigned subtag)
{
    return subtag < 256 && hs_subrecord_kinds[subtag].kind == HS_SUBK_OBJECT;
}

/* The bytes of record kind `k`'s fixed part, and of one of its items. */
static inline uint64_t hs_record_fixed(const hs_record_kind *k, unsigned idsize)
{
    return k->fixed_bytes + (uint64_t)k->fixed_ids * idsize;
}

static inline uint64_t hs_record_each(const hs_record_kind *k, unsigned idsize)
{
    return k->each_bytes + (uint64_t)k->each_ids * idsize;
}

/* Where, in the body of a record of kind `k`, its first STRING id is. */
static inline unsigned hs_record_names_at(const hs_record_kind *k, unsigned idsize)
{
    return k->names_bytes + k->names_ids * idsize;
}

#endif
