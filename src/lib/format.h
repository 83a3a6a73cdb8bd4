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
 *   ROOT_*           u1 tag  id object  [fixed extra fields, see root sizes]
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

/* Top-level record tags. */
enum {
    HS_TAG_STRING = 0x01,
    HS_TAG_LOAD_CLASS = 0x02,
    HS_TAG_UNLOAD_CLASS = 0x03,
    HS_TAG_STACK_FRAME = 0x04,
    HS_TAG_STACK_TRACE = 0x05,
    HS_TAG_ALLOC_SITES = 0x06,
    HS_TAG_HEAP_SUMMARY = 0x07,
    HS_TAG_START_THREAD = 0x0A,
    HS_TAG_END_THREAD = 0x0B,
    HS_TAG_HEAP_DUMP = 0x0C,
    HS_TAG_CPU_SAMPLES = 0x0D,
    HS_TAG_CONTROL_SETTINGS = 0x0E,
    HS_TAG_HEAP_DUMP_SEGMENT = 0x1C,
    HS_TAG_HEAP_DUMP_END = 0x2C
};

/* Heap-dump sub-record tags. */
enum {
    HS_SUB_ROOT_JNI_GLOBAL = 0x01,
    HS_SUB_ROOT_JNI_LOCAL = 0x02,
    HS_SUB_ROOT_JAVA_FRAME = 0x03,
    HS_SUB_ROOT_NATIVE_STACK = 0x04,
    HS_SUB_ROOT_STICKY_CLASS = 0x05,
    HS_SUB_ROOT_THREAD_BLOCK = 0x06,
    HS_SUB_ROOT_MONITOR_USED = 0x07,
    HS_SUB_ROOT_THREAD_OBJ = 0x08,
    HS_SUB_CLASS_DUMP = 0x20,
    HS_SUB_INSTANCE_DUMP = 0x21,
    HS_SUB_OBJ_ARRAY_DUMP = 0x22,
    HS_SUB_PRIM_ARRAY_DUMP = 0x23,
    /* Android (1.0.3) additions */
    HS_SUB_ROOT_INTERNED_STRING = 0x89,
    HS_SUB_ROOT_FINALIZING = 0x8A,
    HS_SUB_ROOT_DEBUGGER = 0x8B,
    HS_SUB_ROOT_REFERENCE_CLEANUP = 0x8C,
    HS_SUB_ROOT_VM_INTERNAL = 0x8D,
    HS_SUB_ROOT_JNI_MONITOR = 0x8E,
    HS_SUB_ROOT_UNREACHABLE = 0x90,
    HS_SUB_PRIM_ARRAY_NODATA = 0xC3,
    HS_SUB_HEAP_DUMP_INFO = 0xFE,
    HS_SUB_ROOT_UNKNOWN = 0xFF
};

/* Basic type codes used in CLASS_DUMP entries and PRIM_ARRAY_DUMP. */
enum {
    HS_TYPE_ARRAY_OBJECT = 1, /* defined by the spec, never written as a field */
    HS_TYPE_OBJECT = 2,
    HS_TYPE_BOOLEAN = 4,
    HS_TYPE_CHAR = 5,
    HS_TYPE_FLOAT = 6,
    HS_TYPE_DOUBLE = 7,
    HS_TYPE_BYTE = 8,
    HS_TYPE_SHORT = 9,
    HS_TYPE_INT = 10,
    HS_TYPE_LONG = 11
};

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
    case HS_TYPE_ARRAY_OBJECT:
    case HS_TYPE_OBJECT: return idsize;
    case HS_TYPE_BOOLEAN:
    case HS_TYPE_BYTE: return 1;
    case HS_TYPE_CHAR:
    case HS_TYPE_SHORT: return 2;
    case HS_TYPE_FLOAT:
    case HS_TYPE_INT: return 4;
    case HS_TYPE_DOUBLE:
    case HS_TYPE_LONG: return 8;
    default: return 0;
    }
}

/* Element width of a primitive array of `type`, or 0 when `type` is not a
 * primitive type (object arrays are OBJ_ARRAY_DUMPs, never PRIM_ARRAY_DUMPs). */
static inline unsigned hs_prim_size(unsigned type)
{
    /* boolean, char, float, double, byte, short, int, long: 1, 2, 4, 8 twice
     * over (4 to 11), without a branch per element type */
    return type - HS_TYPE_BOOLEAN <= HS_TYPE_LONG - HS_TYPE_BOOLEAN ? 1u << (type & 3) : 0;
}

const char *hs_tag_name(unsigned tag);
int hs_tag_known(unsigned tag);
const char *hs_subtag_name(unsigned subtag);
const char *hs_type_name(unsigned type);

/* Size of a sub-record's fixed part (tag byte included) that must be read to
 * know its full size, or 0 for an unknown sub-tag. CLASS_DUMP returns its
 * fixed prefix only: its entries are walked separately. */
size_t hs_sub_fixed_size(unsigned subtag, unsigned idsize);

/* True when `subtag` is a GC root; those are fixed-size and carry an object id
 * right after the tag byte. */
int hs_sub_is_root(unsigned subtag);

/* True when `subtag` is one of the roots only Android (1.0.3) writes. */
static inline int hs_sub_is_android_root(unsigned subtag)
{
    return subtag >= HS_SUB_ROOT_INTERNED_STRING && subtag <= HS_SUB_ROOT_UNREACHABLE;
}

#endif
