/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dumpgen.c - dumps built by hand, record by record (helpers.h, "dumpgen").
 */
#include "helpers.h"

#include <stdlib.h>
#include <string.h>

static void grow(dump *d, size_t n)
{
    if (d->len + n > d->cap) {
        while (d->len + n > d->cap)
            d->cap = d->cap ? d->cap * 2 : 256;
        d->p = realloc(d->p, d->cap);
        if (!d->p)
            abort();
    }
}

void dg_bytes(dump *d, const void *p, size_t n)
{
    grow(d, n);
    memcpy(d->p + d->len, p, n);
    d->len += n;
}

void dg_u1(dump *d, unsigned v)
{
    uint8_t b = (uint8_t)v;
    dg_bytes(d, &b, 1);
}

void dg_u2(dump *d, unsigned v)
{
    dg_u1(d, v >> 8);
    dg_u1(d, v);
}

void dg_u4(dump *d, uint32_t v)
{
    dg_u2(d, v >> 16);
    dg_u2(d, v & 0xffff);
}

void dg_u8(dump *d, uint64_t v)
{
    dg_u4(d, (uint32_t)(v >> 32));
    dg_u4(d, (uint32_t)v);
}

void dg_id(dump *d, uint64_t v)
{
    if (d->idsize == 8)
        dg_u8(d, v);
    else
        dg_u4(d, (uint32_t)v);
}

void dg_init(dump *d, const char *version, unsigned idsize)
{
    memset(d, 0, sizeof *d);
    d->idsize = idsize;
    dg_bytes(d, version, strlen(version) + 1);
    dg_u4(d, idsize);
    dg_u8(d, 0x0000018c12345678ull);
}

void dg_free(dump *d)
{
    free(d->p);
    memset(d, 0, sizeof *d);
}

void dg_begin(dump *d, unsigned tag)
{
    d->rec = d->len;
    dg_u1(d, tag);
    dg_u4(d, 0);
    dg_u4(d, 0);
}

void dg_end(dump *d)
{
    uint32_t n = (uint32_t)(d->len - d->rec - 9);
    uint8_t *p = d->p + d->rec + 5;

    p[0] = (uint8_t)(n >> 24);
    p[1] = (uint8_t)(n >> 16);
    p[2] = (uint8_t)(n >> 8);
    p[3] = (uint8_t)n;
}

void dg_string(dump *d, uint64_t id, const char *text)
{
    dg_begin(d, 0x01);
    dg_id(d, id);
    dg_bytes(d, text, strlen(text));
    dg_end(d);
}

void dg_load_class(dump *d, uint32_t serial, uint64_t class_id, uint64_t name_id)
{
    dg_begin(d, 0x02);
    dg_u4(d, serial);
    dg_id(d, class_id);
    dg_u4(d, 1);
    dg_id(d, name_id);
    dg_end(d);
}

void dg_root(dump *d, unsigned subtag, uint64_t obj)
{
    dg_u1(d, subtag);
    dg_id(d, obj);
    switch (subtag) {
    case 0x01: dg_id(d, 0x7777); break;                    /* JNI global: ref id */
    case 0x02: case 0x03: case 0x08: case 0x8E:            /* thread, depth/trace */
        dg_u4(d, 1);
        dg_u4(d, 0xffffffffu);
        break;
    case 0x04: case 0x06: dg_u4(d, 1); break;              /* thread serial */
    default: break;
    }
}

void dg_class(dump *d, uint64_t id, uint64_t super, uint64_t field_name_id)
{
    static const unsigned types[] = {2, 4, 5, 6, 7, 8, 9, 10, 11};
    unsigned j;

    dg_u1(d, 0x20);
    dg_id(d, id);
    dg_u4(d, 1);
    dg_id(d, super);
    dg_id(d, 0); /* loader */
    dg_id(d, 0); /* signers */
    dg_id(d, 0); /* protection domain */
    dg_id(d, 0);
    dg_id(d, 0);
    dg_u4(d, 4 + d->idsize); /* instance size: an int and a reference */
    dg_u2(d, 2);              /* constant pool: an int and an object */
    dg_u2(d, 1);
    dg_u1(d, 10);
    dg_u4(d, 42);
    dg_u2(d, 2);
    dg_u1(d, 2);
    dg_id(d, id);
    dg_u2(d, 9); /* one static of each type */
    for (j = 0; j < 9; j++) {
        unsigned w = types[j] == 2 ? d->idsize : types[j] == 4 || types[j] == 8 ? 1
                     : types[j] == 5 || types[j] == 9                            ? 2
                     : types[j] == 6 || types[j] == 10                           ? 4
                                                                                 : 8;
        dg_id(d, field_name_id);
        dg_u1(d, types[j]);
        while (w--)
            dg_u1(d, 0x5A);
    }
    dg_u2(d, 2); /* instance fields: int, object */
    dg_id(d, field_name_id);
    dg_u1(d, 10);
    dg_id(d, field_name_id);
    dg_u1(d, 2);
}

void dg_instance(dump *d, uint64_t id, uint64_t class_id, uint32_t n, uint8_t fill)
{
    dg_u1(d, 0x21);
    dg_id(d, id);
    dg_u4(d, 1);
    dg_id(d, class_id);
    dg_u4(d, n);
    while (n--)
        dg_u1(d, fill);
}

void dg_obj_array(dump *d, uint64_t id, uint64_t class_id, uint32_t count)
{
    uint32_t j;

    dg_u1(d, 0x22);
    dg_id(d, id);
    dg_u4(d, 1);
    dg_u4(d, count);
    dg_id(d, class_id);
    for (j = 0; j < count; j++)
        dg_id(d, id + 8 * (j + 1));
}

void dg_prim_array(dump *d, uint64_t id, unsigned type, uint32_t count, uint8_t fill)
{
    static const unsigned size[] = {0, 0, 0, 0, 1, 2, 4, 8, 1, 2, 4, 8};
    uint64_t n = (uint64_t)count * (type < 12 ? size[type] : 1);

    dg_u1(d, 0x23);
    dg_id(d, id);
    dg_u4(d, 1);
    dg_u4(d, count);
    dg_u1(d, type);
    grow(d, (size_t)n);
    memset(d->p + d->len, fill, (size_t)n);
    d->len += (size_t)n;
}

void dg_one_array(dump *d, unsigned type, uint32_t count, uint8_t fill)
{
    dg_init(d, "JAVA PROFILE 1.0.2", 8);
    dg_begin(d, 0x1C);
    dg_prim_array(d, 0x10, type, count, fill);
    dg_end(d);
    dg_begin(d, 0x2C);
    dg_end(d);
}

void dg_heap_info(dump *d, uint32_t heap, uint64_t name_id)
{
    dg_u1(d, 0xFE);
    dg_u4(d, heap);
    dg_id(d, name_id);
}

void dg_everything(dump *d, unsigned idsize, int android)
{
    static const unsigned roots[] = {0xFF, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08};
    static const unsigned aroots[] = {0x89, 0x8A, 0x8B, 0x8C, 0x8D, 0x8E, 0x90};
    unsigned j, t;

    dg_init(d, android ? "JAVA PROFILE 1.0.3" : "JAVA PROFILE 1.0.2", idsize);
    dg_begin(d, 0x0E); /* CONTROL_SETTINGS */
    dg_u4(d, 3);
    dg_u2(d, 4);
    dg_end(d);
    dg_string(d, 0x100, "java.lang.Object");
    dg_string(d, 0x108, "value");
    dg_string(d, 0x110, "main");
    dg_string(d, 0x118, "app");
    dg_string(d, 0x120, "");
    dg_load_class(d, 1, 0x1000, 0x100);
    dg_begin(d, 0x04); /* STACK_FRAME */
    dg_id(d, 1);
    dg_id(d, 0x110);
    dg_id(d, 0x108);
    dg_id(d, 0x120);
    dg_u4(d, 1);
    dg_u4(d, 0xfffffffdu);
    dg_end(d);
    dg_begin(d, 0x05); /* STACK_TRACE with one frame */
    dg_u4(d, 1);
    dg_u4(d, 1);
    dg_u4(d, 1);
    dg_id(d, 1);
    dg_end(d);
    dg_begin(d, 0x06); /* ALLOC_SITES with two sites */
    dg_u2(d, 1);
    dg_u4(d, 0);
    dg_u4(d, 100);
    dg_u4(d, 2);
    dg_u8(d, 100);
    dg_u8(d, 2);
    dg_u4(d, 2);
    for (j = 0; j < 2; j++) {
        dg_u1(d, 0);
        dg_u4(d, 1);
        dg_u4(d, 1);
        dg_u4(d, 50);
        dg_u4(d, 1);
        dg_u4(d, 50);
        dg_u4(d, 1);
    }
    dg_end(d);
    dg_begin(d, 0x07); /* HEAP_SUMMARY */
    dg_u4(d, 100);
    dg_u4(d, 2);
    dg_u8(d, 100);
    dg_u8(d, 2);
    dg_end(d);
    dg_begin(d, 0x0A); /* START_THREAD */
    dg_u4(d, 1);
    dg_id(d, 0x2000);
    dg_u4(d, 1);
    dg_id(d, 0x110);
    dg_id(d, 0x110);
    dg_id(d, 0);
    dg_end(d);
    dg_begin(d, 0x0D); /* CPU_SAMPLES with two traces */
    dg_u4(d, 3);
    dg_u4(d, 2);
    dg_u4(d, 2);
    dg_u4(d, 1);
    dg_u4(d, 1);
    dg_u4(d, 1);
    dg_end(d);
    dg_begin(d, 0x42); /* a tag no writer uses: carried by its length (by
                          rules that change no value; dropped by others) */
    dg_bytes(d, "opaque", 6);
    dg_end(d);

    dg_begin(d, 0x1C);
    for (j = 0; j < sizeof roots / sizeof roots[0]; j++)
        dg_root(d, roots[j], 0x3000 + 8 * j);
    if (android)
        for (j = 0; j < sizeof aroots / sizeof aroots[0]; j++)
            dg_root(d, aroots[j], 0x3000 + 8 * j);
    if (android)
        dg_heap_info(d, 'A', 0x118);
    dg_class(d, 0x1000, 0, 0x108);
    dg_instance(d, 0x3000, 0x1000, 4 + idsize, 0x11);
    dg_obj_array(d, 0x3008, 0x1000, 3);
    for (t = 4; t <= 11; t++)
        dg_prim_array(d, 0x4000 + 8 * t, t, 5, 0xA5);
    dg_prim_array(d, 0x5000, 8, 0, 0);
    if (android) { /* PRIMITIVE_ARRAY_NODATA: header only */
        dg_u1(d, 0xC3);
        dg_id(d, 0x5008);
        dg_u4(d, 1);
        dg_u4(d, 7);
        dg_u1(d, 10);
    }
    dg_end(d);
    dg_begin(d, 0x0B); /* END_THREAD */
    dg_u4(d, 1);
    dg_end(d);
    dg_begin(d, 0x03); /* UNLOAD_CLASS */
    dg_u4(d, 1);
    dg_end(d);
    dg_begin(d, 0x2C);
    dg_end(d);
}
