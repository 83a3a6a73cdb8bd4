/* SPDX-License-Identifier: Apache-2.0 */
/*
 * format.c - the tables of format.h by tag and by code, for the filter,
 * the verifier and their messages.
 */
#include "format.h"
#include "hprof_strip.h"

#define HS_X_RECORD(id, tag, name, kind, body, fb, fi, at, eb, ei, n, nb, ni) \
    [tag] = {name, HS_REC_##kind, HS_BODY_##body, fb, fi, at, eb, ei, n, nb, ni},
const hs_record_kind hs_record_kinds[256] = {HS_RECORDS(HS_X_RECORD)};
#undef HS_X_RECORD

#define HS_X_SUB(id, tag, name, kind, fb, fi, rule) [tag] = {name, rule, HS_SUBK_##kind, fb, fi},
const hs_subrecord_kind hs_subrecord_kinds[256] = {HS_SUBRECORDS(HS_X_SUB)};
#undef HS_X_SUB

/* A record's string ids fit its fixed part, and only a fixed-size body has
 * them (the filter and the verifier read them from a whole body). */
#define HS_X_CHECK_NAMES(id, tag, name, kind, body, fb, fi, at, eb, ei, n, nb, ni)         \
    _Static_assert((n) == 0 || (HS_BODY_##body == HS_BODY_FIXED && (nb) <= (fb) &&          \
                                (ni) + (n) <= (fi)),                                        \
                   #id ": its string ids lie outside its fixed body");
HS_RECORDS(HS_X_CHECK_NAMES)
#undef HS_X_CHECK_NAMES

/* hs_prim_size() computes what HS_PRIMITIVE_TYPES says: codes 4 to 11,
 * 1 << (code & 3) bytes; an id-sized type is no primitive. */
#define HS_X_CHECK_PRIM(id, code, name, size, letter)                               \
    _Static_assert(code >= HS_TYPE_BOOLEAN && code <= HS_TYPE_LONG &&               \
                       (size) == 1u << ((code) & 3),                                \
                   #id ": hs_prim_size() does not compute this type's size");
HS_PRIMITIVE_TYPES(HS_X_CHECK_PRIM)
#undef HS_X_CHECK_PRIM
#define HS_X_CHECK_REF(id, code, name, size, letter) \
    _Static_assert((size) == 0, #id ": a reference is an id");
HS_REFERENCE_TYPES(HS_X_CHECK_REF)
#undef HS_X_CHECK_REF

#define HS_X_TYPE_NAME(id, code, name, size, letter) [code] = name,
static const char *const type_names[] = {HS_BASIC_TYPES(HS_X_TYPE_NAME)};
#undef HS_X_TYPE_NAME
_Static_assert(sizeof type_names / sizeof type_names[0] == HS_TYPE_CODES,
               "HS_TYPE_CODES is one more than the highest basic type code");

const char *hs_type_name(unsigned type)
{
    if (type < HS_TYPE_CODES && type_names[type])
        return type_names[type];
    return "invalid";
}

HS_API const char *hs_heap_name(uint32_t heap)
{
    switch (heap) {
#define HS_X_HEAP_CASE(id, code, name) \
    case code: return name;
        HS_HEAPS(HS_X_HEAP_CASE)
#undef HS_X_HEAP_CASE
    default: return "other";
    }
}
