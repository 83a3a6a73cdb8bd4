/* SPDX-License-Identifier: Apache-2.0 */
/*
 * format.c - names and fixed sizes of HPROF records, for messages and for
 * the heap walker.
 */
#include "format.h"

#include <string.h>

const char *hs_tag_name(unsigned tag)
{
    switch (tag) {
    case HS_TAG_STRING: return "STRING";
    case HS_TAG_LOAD_CLASS: return "LOAD_CLASS";
    case HS_TAG_UNLOAD_CLASS: return "UNLOAD_CLASS";
    case HS_TAG_STACK_FRAME: return "STACK_FRAME";
    case HS_TAG_STACK_TRACE: return "STACK_TRACE";
    case HS_TAG_ALLOC_SITES: return "ALLOC_SITES";
    case HS_TAG_HEAP_SUMMARY: return "HEAP_SUMMARY";
    case HS_TAG_START_THREAD: return "START_THREAD";
    case HS_TAG_END_THREAD: return "END_THREAD";
    case HS_TAG_HEAP_DUMP: return "HEAP_DUMP";
    case HS_TAG_CPU_SAMPLES: return "CPU_SAMPLES";
    case HS_TAG_CONTROL_SETTINGS: return "CONTROL_SETTINGS";
    case HS_TAG_HEAP_DUMP_SEGMENT: return "HEAP_DUMP_SEGMENT";
    case HS_TAG_HEAP_DUMP_END: return "HEAP_DUMP_END";
    default: return "unknown record";
    }
}

int hs_tag_known(unsigned tag)
{
    return strcmp(hs_tag_name(tag), "unknown record") != 0;
}

const char *hs_subtag_name(unsigned subtag)
{
    switch (subtag) {
    case HS_SUB_ROOT_UNKNOWN: return "ROOT_UNKNOWN";
    case HS_SUB_ROOT_JNI_GLOBAL: return "ROOT_JNI_GLOBAL";
    case HS_SUB_ROOT_JNI_LOCAL: return "ROOT_JNI_LOCAL";
    case HS_SUB_ROOT_JAVA_FRAME: return "ROOT_JAVA_FRAME";
    case HS_SUB_ROOT_NATIVE_STACK: return "ROOT_NATIVE_STACK";
    case HS_SUB_ROOT_STICKY_CLASS: return "ROOT_STICKY_CLASS";
    case HS_SUB_ROOT_THREAD_BLOCK: return "ROOT_THREAD_BLOCK";
    case HS_SUB_ROOT_MONITOR_USED: return "ROOT_MONITOR_USED";
    case HS_SUB_ROOT_THREAD_OBJ: return "ROOT_THREAD_OBJECT";
    case HS_SUB_CLASS_DUMP: return "CLASS_DUMP";
    case HS_SUB_INSTANCE_DUMP: return "INSTANCE_DUMP";
    case HS_SUB_OBJ_ARRAY_DUMP: return "OBJECT_ARRAY_DUMP";
    case HS_SUB_PRIM_ARRAY_DUMP: return "PRIMITIVE_ARRAY_DUMP";
    case HS_SUB_ROOT_INTERNED_STRING: return "ROOT_INTERNED_STRING";
    case HS_SUB_ROOT_FINALIZING: return "ROOT_FINALIZING";
    case HS_SUB_ROOT_DEBUGGER: return "ROOT_DEBUGGER";
    case HS_SUB_ROOT_REFERENCE_CLEANUP: return "ROOT_REFERENCE_CLEANUP";
    case HS_SUB_ROOT_VM_INTERNAL: return "ROOT_VM_INTERNAL";
    case HS_SUB_ROOT_JNI_MONITOR: return "ROOT_JNI_MONITOR";
    case HS_SUB_ROOT_UNREACHABLE: return "ROOT_UNREACHABLE";
    case HS_SUB_PRIM_ARRAY_NODATA: return "PRIMITIVE_ARRAY_NODATA";
    case HS_SUB_HEAP_DUMP_INFO: return "HEAP_DUMP_INFO";
    default: return "unknown sub-record";
    }
}

const char *hs_type_name(unsigned type)
{
    static const char *const names[] = {
        [HS_TYPE_ARRAY_OBJECT] = "array-object", [HS_TYPE_OBJECT] = "object",
        [HS_TYPE_BOOLEAN] = "boolean", [HS_TYPE_CHAR] = "char",
        [HS_TYPE_FLOAT] = "float", [HS_TYPE_DOUBLE] = "double",
        [HS_TYPE_BYTE] = "byte", [HS_TYPE_SHORT] = "short",
        [HS_TYPE_INT] = "int", [HS_TYPE_LONG] = "long",
    };
    if (type < sizeof names / sizeof names[0] && names[type])
        return names[type];
    return "invalid";
}

size_t hs_sub_fixed_size(unsigned subtag, unsigned idsize)
{
    size_t i = idsize;
    switch (subtag) {
    case HS_SUB_ROOT_UNKNOWN:
    case HS_SUB_ROOT_STICKY_CLASS:
    case HS_SUB_ROOT_MONITOR_USED:
    case HS_SUB_ROOT_INTERNED_STRING:
    case HS_SUB_ROOT_FINALIZING:
    case HS_SUB_ROOT_DEBUGGER:
    case HS_SUB_ROOT_REFERENCE_CLEANUP:
    case HS_SUB_ROOT_VM_INTERNAL:
    case HS_SUB_ROOT_UNREACHABLE: return 1 + i;
    case HS_SUB_ROOT_JNI_GLOBAL: return 1 + 2 * i;
    case HS_SUB_ROOT_NATIVE_STACK:
    case HS_SUB_ROOT_THREAD_BLOCK: return 1 + i + 4;
    case HS_SUB_ROOT_JNI_LOCAL:
    case HS_SUB_ROOT_JAVA_FRAME:
    case HS_SUB_ROOT_THREAD_OBJ:
    case HS_SUB_ROOT_JNI_MONITOR: return 1 + i + 8;
    case HS_SUB_CLASS_DUMP: return 1 + 7 * i + 4 + 4 + 2; /* through n_const */
    case HS_SUB_INSTANCE_DUMP:
    case HS_SUB_OBJ_ARRAY_DUMP: return 1 + 2 * i + 8;
    case HS_SUB_PRIM_ARRAY_DUMP:
    case HS_SUB_PRIM_ARRAY_NODATA: return 1 + i + 9;
    case HS_SUB_HEAP_DUMP_INFO: return 1 + 4 + i;
    default: return 0;
    }
}

int hs_sub_is_root(unsigned subtag)
{
    switch (subtag) {
    case HS_SUB_ROOT_UNKNOWN:
    case HS_SUB_ROOT_JNI_GLOBAL:
    case HS_SUB_ROOT_JNI_LOCAL:
    case HS_SUB_ROOT_JAVA_FRAME:
    case HS_SUB_ROOT_NATIVE_STACK:
    case HS_SUB_ROOT_STICKY_CLASS:
    case HS_SUB_ROOT_THREAD_BLOCK:
    case HS_SUB_ROOT_MONITOR_USED:
    case HS_SUB_ROOT_THREAD_OBJ:
    case HS_SUB_ROOT_INTERNED_STRING:
    case HS_SUB_ROOT_FINALIZING:
    case HS_SUB_ROOT_DEBUGGER:
    case HS_SUB_ROOT_REFERENCE_CLEANUP:
    case HS_SUB_ROOT_VM_INTERNAL:
    case HS_SUB_ROOT_JNI_MONITOR:
    case HS_SUB_ROOT_UNREACHABLE: return 1;
    default: return 0;
    }
}
