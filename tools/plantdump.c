/* SPDX-License-Identifier: Apache-2.0 */
/*
 * plantdump - write small HPROF files, record by record, with secrets
 * planted in every place a value can hide, for tests/cli/audit_adversarial.sh
 * (issue #50). Written from ../shared/docs/hprof-format.md alone; it shares
 * no code with hprof-strip, so its files are a second reading of the format.
 *
 *   plantdump --list
 *   plantdump [--mapping-out FILE] VARIANT OUT.hprof
 *
 * Beside OUT it writes OUT.manifest, one planted marker a line:
 *
 *   variant NAME                 the variant written
 *   unused_strings N             STRING records nothing uses
 *   required HEX PLACE           bytes that are data: `-p privacy` must
 *                                remove them and --audit must see them
 *   kept HEX PLACE               bytes kept on purpose (names in use)
 *   anchored ANCHOR SKIP HEX PLACE
 *                                a value narrower than a marker: it follows
 *                                the bytes ANCHOR (a sub-record's tag and
 *                                id, which every rule keeps) after SKIP
 *                                bytes; it is still there when a byte of HEX
 *                                that is not zero is found in its place
 *
 * Every marker is a byte string no dump holds by chance: "PLANTED-<place>"
 * text, or 0x5EC2E7A1 followed by a running number for 8-byte values.
 * --mapping-out writes an R8 mapping for the dump: a harmless one renaming
 * an app class, except for the variant evil-mapping, whose mapping renames
 * app classes into the JDK's kept fields (java.lang.String.coder).
 * Exit status: 0 written, 1 write error, 2 usage.
 */
#define _POSIX_C_SOURCE 200809L
#include <assert.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* basic type codes (hprof-format.md 3.4) */
enum { T_OBJECT = 2, T_BOOLEAN = 4, T_CHAR = 5, T_FLOAT = 6, T_DOUBLE = 7,
       T_BYTE = 8, T_SHORT = 9, T_INT = 10, T_LONG = 11 };
static const int prim_types[8] = { T_BOOLEAN, T_CHAR, T_FLOAT, T_DOUBLE,
                                   T_BYTE, T_SHORT, T_INT, T_LONG };
/* top-level tags and sub-record tags used here */
enum { R_STRING = 0x01, R_LOAD_CLASS = 0x02, R_STACK_TRACE = 0x05,
       R_START_THREAD = 0x0a, R_HEAP_DUMP = 0x0c, R_CONTROL = 0x0e,
       R_SEGMENT = 0x1c, R_END = 0x2c, R_UNKNOWN = 0x55 };
enum { S_ROOT_UNKNOWN = 0xff, S_ROOT_THREAD_OBJ = 0x08, S_CLASS_DUMP = 0x20,
       S_INSTANCE = 0x21, S_PRIM_ARRAY = 0x23, S_HEAP_INFO = 0xfe };
/* what a world plants (the rest of its values are zero) */
enum { P_FIELDS = 1, P_STATICS = 2, P_POOL = 4, P_ARRAYS = 8, P_RESERVED = 16 };

static const char *out_path;
static FILE *man;
static unsigned char *buf;
static size_t len, cap;
static unsigned idsz = 8;
static int art;             /* Android names (dotted) and ids */
static unsigned marks;      /* markers so far: each one's number */
static unsigned unused;     /* unused STRING records written */
static uint64_t next_string, next_object;
static char mapping[1024];  /* the mapping --mapping-out writes */

static void die(const char *what)
{
    fprintf(stderr, "plantdump: %s\n", what);
    exit(1);
}

/* ---- bytes ------------------------------------------------------------------ */

static void put(const void *p, size_t n)
{
    if (len + n > cap) {
        cap = (len + n) * 2 + 4096;
        buf = realloc(buf, cap);
        if (!buf)
            die("out of memory");
    }
    memcpy(buf + len, p, n);
    len += n;
}
static void u1(unsigned v) { unsigned char b = (unsigned char)v; put(&b, 1); }
static void be(uint64_t v, unsigned n)
{
    unsigned char b[8];
    for (unsigned i = 0; i < n; i++)
        b[i] = (unsigned char)(v >> (8 * (n - 1 - i)));
    put(b, n);
}
static void u2(unsigned v) { be(v, 2); }
static void u4(uint32_t v) { be(v, 4); }
static void u8(uint64_t v) { be(v, 8); }
static void id(uint64_t v) { be(v, idsz); }

static size_t rec_open(unsigned tag)
{
    u1(tag);
    u4(0);  /* time */
    u4(0);  /* length, set by rec_close */
    return len;
}
static void rec_close(size_t body)
{
    uint64_t n = len - body;
    for (unsigned i = 0; i < 4; i++)
        buf[body - 4 + i] = (unsigned char)(n >> (8 * (3 - i)));
}

/* ---- the manifest ----------------------------------------------------------- */

static void hex(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        fprintf(man, "%02x", p[i]);
}
static void manifest(const char *kind, const void *p, size_t n, const char *place)
{
    fprintf(man, "%s ", kind);
    hex(p, n);
    fprintf(man, " %s\n", place);
}
/* the value at buf[value_at], value_len bytes, found again after the
 * anchor_len kept bytes at buf[anchor_at] */
static void anchored(const char *place, size_t anchor_at, size_t anchor_len,
                     size_t value_at, size_t value_len)
{
    assert(value_at >= anchor_at + anchor_len && value_at + value_len <= len);
    fprintf(man, "anchored ");
    hex(buf + anchor_at, anchor_len);
    fprintf(man, " %zu ", value_at - anchor_at - anchor_len);
    hex(buf + value_at, value_len);
    fprintf(man, " %s\n", place);
}

static uint64_t mark64(void) { return 0x5ec2e7a100000000u | ++marks; }

static size_t type_size(int type)
{
    switch (type) {
    case T_OBJECT: return idsz;
    case T_BOOLEAN: case T_BYTE: return 1;
    case T_CHAR: case T_SHORT: return 2;
    case T_FLOAT: case T_INT: return 4;
    default: assert(type == T_DOUBLE || type == T_LONG); return 8;
    }
}
static const char *type_name(int type)
{
    static const char *names[] = { "", "", "object", "", "boolean", "char", "float",
                                   "double", "byte", "short", "int", "long" };
    assert(type >= 0 && type < 12);
    return names[type];
}

/* a value of TYPE: zero, or when planted a marker (8 bytes: one of the
 * running numbers, also a required marker by itself; narrower: a fixed
 * non-zero pattern, found by its anchor) */
static void value(int type, int plant, const char *place, size_t anchor_at, size_t anchor_len)
{
    size_t at = len, n = type_size(type);
    char where[160];
    if (!plant || type == T_OBJECT) {
        be(0, (unsigned)n);
        return;
    }
    if (n == 8) {
        u8(mark64());
        manifest("required", buf + at, 8, place);
    } else {
        be(n == 1 ? (type == T_BOOLEAN ? 0x01 : 0x5e) : 0x5ec2e7a1u >> (8 * (4 - n)), (unsigned)n);
    }
    snprintf(where, sizeof where, "%s (%s)", place, type_name(type));
    anchored(where, anchor_at, anchor_len, at, n);
}

/* ---- records ---------------------------------------------------------------- */

static void header(const char *version, unsigned ids)
{
    idsz = ids;
    put(version, strlen(version) + 1);
    u4(ids);
    u8(0x0000018c00000000u);  /* a timestamp: bookkeeping, kept */
}

/* a class or member name as this dump's writer spells it */
static const char *spelled(const char *name, char *tmp, size_t n)
{
    snprintf(tmp, n, "%s", name);
    if (art)
        for (char *p = tmp; *p; p++)
            if (*p == '/')
                *p = '.';
    return tmp;
}

static uint64_t string(const char *text)
{
    char tmp[128];
    uint64_t sid = next_string++;
    size_t body = rec_open(R_STRING);
    id(sid);
    spelled(text, tmp, sizeof tmp);
    put(tmp, strlen(tmp));
    rec_close(body);
    return sid;
}

/* a STRING nothing refers to, its text a marker */
static void unused_string(const char *place)
{
    char text[96];
    size_t body;
    snprintf(text, sizeof text, "PLANTED-%s-%u", place, ++marks);
    body = rec_open(R_STRING);
    id(next_string++);
    put(text, strlen(text));
    rec_close(body);
    manifest("required", text, strlen(text), place);
    unused++;
}

static void load_class(uint32_t serial, uint64_t cls, uint64_t name)
{
    size_t body = rec_open(R_LOAD_CLASS);
    u4(serial);
    id(cls);
    u4(art ? 0 : 1);
    id(name);
    rec_close(body);
}

static void stack_trace(uint32_t serial)
{
    size_t body = rec_open(R_STACK_TRACE);
    u4(serial);
    u4(0);
    u4(0);
    rec_close(body);
}

/* a class as CLASS_DUMP declares it */
typedef struct {
    const char *name;
    uint64_t cls, super, loader, name_id;
    uint64_t reserved[2];               /* non-zero: planted */
    int n_pool, n_static, n_field;
    const int *pool_types, *static_types, *field_types;
    uint64_t static_names[8], field_names[9];
} klass;

static void class_dump(const klass *k, int plant)
{
    size_t at = len, anchor = 1 + idsz;
    char place[128];
    u1(S_CLASS_DUMP);
    id(k->cls);
    u4(art ? 0 : 1);
    id(k->super);
    id(k->loader);
    id(0);  /* signers */
    id(0);  /* protection domain */
    for (int i = 0; i < 2; i++) {
        size_t v = len;
        id(k->reserved[i]);
        if (k->reserved[i]) {
            snprintf(place, sizeof place, "%s.reserved%d", k->name, i + 1);
            if (idsz == 8)
                manifest("required", buf + v, 8, place);
            anchored(place, at, anchor, v, idsz);
        }
    }
    u4(0);  /* instance size: lengths are kept, and never a marker */
    u2((unsigned)k->n_pool);
    for (int i = 0; i < k->n_pool; i++) {
        snprintf(place, sizeof place, "%s.pool%d", k->name, i);
        u2((unsigned)(0x100 + i));
        u1((unsigned)k->pool_types[i]);
        value(k->pool_types[i], plant & P_POOL, place, at, anchor);
    }
    u2((unsigned)k->n_static);
    for (int i = 0; i < k->n_static; i++) {
        snprintf(place, sizeof place, "%s.static%d", k->name, i);
        id(k->static_names[i]);
        u1((unsigned)k->static_types[i]);
        value(k->static_types[i], plant & P_STATICS, place, at, anchor);
    }
    u2((unsigned)k->n_field);
    for (int i = 0; i < k->n_field; i++) {
        id(k->field_names[i]);
        u1((unsigned)k->field_types[i]);
    }
}

/* an instance of K (no superclass fields: K's super declares none) */
static uint64_t instance(const klass *k, int plant)
{
    uint64_t obj = next_object;
    size_t at = len, nbytes = 0;
    char place[128];
    next_object += 0x20;
    for (int i = 0; i < k->n_field; i++)
        nbytes += type_size(k->field_types[i]);
    u1(S_INSTANCE);
    id(obj);
    u4(art ? 0 : 1);
    id(k->cls);
    u4((uint32_t)nbytes);
    for (int i = 0; i < k->n_field; i++) {
        snprintf(place, sizeof place, "%s field %d of object %#" PRIx64, k->name, i, obj);
        value(k->field_types[i], plant, place, at, 1 + idsz);
    }
    return obj;
}

/* a primitive array of TYPE: text markers in byte[] (ASCII) and char[]
 * (UTF-16BE), numbers in the others */
static uint64_t prim_array(int type, int plant, const char *what)
{
    uint64_t arr = next_object;
    char text[96], place[128];
    size_t at = len, n = 4, data;
    next_object += 0x20;
    snprintf(text, sizeof text, "PLANTED-%s-%u", what, ++marks);
    snprintf(place, sizeof place, "%s[] %s", type_name(type), what);
    if (type == T_BYTE || type == T_CHAR)
        n = strlen(text);
    u1(S_PRIM_ARRAY);
    id(arr);
    u4(art ? 0 : 1);
    u4((uint32_t)n);
    u1((unsigned)type);
    data = len;
    for (size_t i = 0; i < n; i++) {
        if (!plant)
            be(0, (unsigned)type_size(type));
        else if (type == T_BYTE)
            u1((unsigned char)text[i]);
        else if (type == T_CHAR)
            u2((unsigned char)text[i]);
        else if (type == T_BOOLEAN)
            u1(1);
        else if (type_size(type) == 8)
            u8(mark64());
        else
            be(0x5ec2e7a1u + i, (unsigned)type_size(type));
    }
    if (plant) {
        if (type == T_BYTE || type == T_CHAR || type_size(type) == 8)
            manifest("required", buf + data, len - data, place);
        anchored(place, at, 1 + idsz, data, len - data);
    }
    return arr;
}

static void heap_info(uint32_t heap, uint64_t name)
{
    u1(S_HEAP_INFO);
    u4(heap);
    id(name);
}

/* the heap's last sub-record: an array of zeros, which the salvage mode's
 * cut (12 bytes before the end) falls in, so every planted value is before
 * the cut */
static void filler(void)
{
    prim_array(T_INT, 0, "filler");
}

/* ---- the world: a few classes, their objects and arrays --------------------- */

static const int no_types[1];
static const int field_types[9] = { T_BOOLEAN, T_CHAR, T_FLOAT, T_DOUBLE, T_BYTE,
                                    T_SHORT, T_INT, T_LONG, T_OBJECT };
static klass k_object, k_prims, k_statics, k_pool;

static void world_init(unsigned ids, int android)
{
    art = android;
    idsz = ids;
    next_string = ids == 8 ? 0x00007f5100000010u : 0x400000u;
    next_object = ids == 8 ? 0x00000007c0000000u : 0x12c00000u;
    k_object = (klass){ .name = "java/lang/Object", .cls = ids == 8 ? 0x7b0000100u : 0x70000100u,
                        .pool_types = no_types, .static_types = no_types, .field_types = no_types };
    k_prims = k_object;
    k_prims.name = "com/plant/Prims";
    k_prims.cls += 0x100;
    k_prims.super = k_object.cls;
    k_prims.n_field = 9;
    k_prims.field_types = field_types;
    k_statics = k_object;
    k_statics.name = "com/plant/Statics";
    k_statics.cls += 0x200;
    k_statics.super = k_object.cls;
    k_statics.n_static = 8;
    k_statics.static_types = prim_types;
    k_pool = k_statics;
    k_pool.name = "com/plant/Pool";
    k_pool.cls += 0x100;
    k_pool.n_static = 0;
    k_pool.n_pool = 8;
    k_pool.pool_types = prim_types;
    snprintf(mapping, sizeof mapping,
             "# a harmless mapping: one app class and one of its fields renamed\n"
             "com.plant.OriginalPrims -> com.plant.Prims:\n"
             "    int originalInt -> i_int\n");
}

static void world_class_names(void)
{
    klass *all[] = { &k_object, &k_prims, &k_statics, &k_pool };
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        all[i]->name_id = string(all[i]->name);
}

static void world_member_names(void)
{
    static const char *fields[9] = { "z_bool", "c_char", "f_float", "d_double", "b_byte",
                                     "s_short", "i_int", "j_long", "ref" };
    static const char *statics[8] = { "S_BOOL", "S_CHAR", "S_FLOAT", "S_DOUBLE", "S_BYTE",
                                      "S_SHORT", "S_INT", "S_LONG" };
    for (int i = 0; i < 9; i++)
        k_prims.field_names[i] = string(fields[i]);
    for (int i = 0; i < 8; i++)
        k_statics.static_names[i] = string(statics[i]);
}

static void world_load_classes(void)
{
    load_class(1, k_object.cls, k_object.name_id);
    load_class(2, k_prims.cls, k_prims.name_id);
    load_class(3, k_statics.cls, k_statics.name_id);
    load_class(4, k_pool.cls, k_pool.name_id);
}

static void world_class_dumps(int plant)
{
    klass prims = k_prims;
    if (plant & P_RESERVED) {
        prims.reserved[0] = idsz == 8 ? mark64() : 0x5ec2e7b0u + ++marks;
        prims.reserved[1] = idsz == 8 ? mark64() : 0x5ec2e7b0u + ++marks;
    }
    class_dump(&k_object, 0);
    class_dump(&prims, plant);
    class_dump(&k_statics, plant);
    class_dump(&k_pool, plant);
}

static void world_objects(int plant)
{
    instance(&k_prims, plant & P_FIELDS);
    for (int i = 0; i < 8; i++)
        prim_array(prim_types[i], plant & P_ARRAYS, "array");
}

/* the HotSpot shape: STRINGs, LOAD_CLASS, a trace, one segment, the end */
static void hotspot(int plant)
{
    size_t seg;
    world_init(8, 0);
    header("JAVA PROFILE 1.0.2", 8);
    world_class_names();
    world_member_names();
    world_load_classes();
    stack_trace(1);
    seg = rec_open(R_SEGMENT);
    world_class_dumps(plant);
    world_objects(plant);
    filler();
    rec_close(seg);
    rec_close(rec_open(R_END));
}

/* ---- the variants ----------------------------------------------------------- */

static void v_clean(void) { hotspot(0); }
static void v_fields(void) { hotspot(P_FIELDS); }
static void v_statics(void) { hotspot(P_STATICS); }
static void v_constpool(void) { hotspot(P_POOL); }
static void v_arrays(void) { hotspot(P_ARRAYS); }
static void v_reserved(void) { hotspot(P_RESERVED); }

static void v_unused_first(void)
{
    size_t seg;
    world_init(8, 0);
    header("JAVA PROFILE 1.0.2", 8);
    for (int i = 0; i < 5; i++)
        unused_string("unused-first");
    world_class_names();
    world_member_names();
    world_load_classes();
    stack_trace(1);
    seg = rec_open(R_SEGMENT);
    world_class_dumps(0);
    world_objects(0);
    filler();
    rec_close(seg);
    rec_close(rec_open(R_END));
}

/* unused STRINGs before and after LOAD_CLASS, the members' names after it
 * (the order a --mapping output has) */
static void v_unused_after_loadclass(void)
{
    size_t seg;
    world_init(8, 0);
    header("JAVA PROFILE 1.0.2", 8);
    unused_string("unused-before-loadclass");
    world_class_names();
    world_load_classes();
    unused_string("unused-after-loadclass");
    world_member_names();
    unused_string("unused-after-loadclass");
    stack_trace(1);
    seg = rec_open(R_SEGMENT);
    world_class_dumps(0);
    world_objects(0);
    filler();
    rec_close(seg);
    rec_close(rec_open(R_END));
}

static void v_unused_between_segments(void)
{
    size_t seg;
    world_init(8, 0);
    header("JAVA PROFILE 1.0.2", 8);
    world_class_names();
    world_member_names();
    world_load_classes();
    stack_trace(1);
    seg = rec_open(R_SEGMENT);
    world_class_dumps(0);
    rec_close(seg);
    unused_string("unused-between-segments");
    unused_string("unused-between-segments");
    seg = rec_open(R_SEGMENT);
    world_objects(0);
    filler();
    rec_close(seg);
    rec_close(rec_open(R_END));
}

static void v_unused_after_end(void)
{
    hotspot(0);
    unused_string("unused-after-end");
    unused_string("unused-after-end");
    unused_string("unused-after-end");
}

/* the old agent's 1.0.1: CONTROL_SETTINGS first, each STRING written on its
 * first use between the LOAD_CLASS records, one HEAP_DUMP, no end */
static void v_agent_interleaved(void)
{
    size_t rec;
    world_init(4, 0);
    header("JAVA PROFILE 1.0.1", 4);
    rec = rec_open(R_CONTROL);
    u4(0);
    u2(4);
    rec_close(rec);
    k_object.name_id = string(k_object.name);
    load_class(1, k_object.cls, k_object.name_id);
    unused_string("agent-unused");
    k_prims.name_id = string(k_prims.name);
    load_class(2, k_prims.cls, k_prims.name_id);
    unused_string("agent-unused");
    k_statics.name_id = string(k_statics.name);
    load_class(3, k_statics.cls, k_statics.name_id);
    k_pool.name_id = string(k_pool.name);
    load_class(4, k_pool.cls, k_pool.name_id);
    world_member_names();
    unused_string("agent-unused");
    stack_trace(1);
    rec = rec_open(R_HEAP_DUMP);
    world_class_dumps(P_FIELDS);
    world_objects(P_FIELDS);
    filler();
    rec_close(rec);
}

/* ART's order: 1.0.3, 4-byte ids, every STRING first (unused ones among
 * them), LOAD_CLASS, the dummy trace, small segments each naming its heap
 * (HEAP_DUMP_INFO), objects before their classes, classes interleaved
 * with objects, an object in the zygote heap */
static void art_shape(int between)
{
    uint64_t app, zygote, image;
    size_t seg;
    world_init(4, 1);
    header("JAVA PROFILE 1.0.3", 4);
    app = string("app");
    unused_string("art-unused");
    world_class_names();
    image = string("image");
    world_member_names();
    unused_string("art-unused");
    zygote = string("zygote");
    world_load_classes();
    stack_trace(0);
    seg = rec_open(R_SEGMENT);
    u1(S_ROOT_UNKNOWN);
    id(next_object);
    heap_info('A', app);
    instance(&k_prims, 1);  /* before its CLASS_DUMP, as ART writes */
    class_dump(&k_object, 0);
    class_dump(&k_prims, 0);
    rec_close(seg);
    if (between)
        unused_string("art-between-segments");
    seg = rec_open(R_SEGMENT);
    heap_info('Z', zygote);
    instance(&k_prims, 1);
    class_dump(&k_statics, P_STATICS);
    heap_info('I', image);
    prim_array(T_LONG, 1, "art-image-array");
    heap_info('A', app);
    class_dump(&k_pool, 0);
    prim_array(T_BYTE, 1, "art-app-array");
    prim_array(T_CHAR, 1, "art-app-array");
    filler();
    rec_close(seg);
    rec_close(rec_open(R_END));
    if (between)
        unused_string("art-after-end");
}
static void v_art_order(void) { art_shape(0); }
static void v_art_between_segments(void) { art_shape(1); }

/* one class id, two CLASS_DUMPs: a reference, then a long, in the same 8
 * bytes; an instance after each */
static void v_class_twice(void)
{
    static const int ref[1] = { T_OBJECT }, lng[1] = { T_LONG };
    klass twice;
    size_t seg;
    uint64_t fname;
    world_init(8, 0);
    header("JAVA PROFILE 1.0.2", 8);
    world_class_names();
    world_member_names();
    twice = k_prims;
    twice.name = "com/plant/Twice";
    twice.cls = k_pool.cls + 0x100;
    twice.name_id = string(twice.name);
    fname = string("slot");
    twice.n_field = 1;
    twice.field_names[0] = fname;
    world_load_classes();
    load_class(5, twice.cls, twice.name_id);
    stack_trace(1);
    seg = rec_open(R_SEGMENT);
    world_class_dumps(0);
    twice.field_types = ref;
    class_dump(&twice, 0);
    instance(&twice, 0);
    twice.field_types = lng;
    class_dump(&twice, 0);
    instance(&twice, 1);
    filler();
    rec_close(seg);
    rec_close(rec_open(R_END));
}

/* classes named java/lang/String that are not the JDK's: FAKES of them,
 * each with the LOADER, and a coder of CODER_TYPE holding a marker */
static void fake_strings(int fakes, uint64_t loader, int coder_type)
{
    int types[2] = { T_OBJECT, coder_type };
    klass s;
    size_t seg;
    world_init(8, 0);
    header("JAVA PROFILE 1.0.2", 8);
    world_class_names();
    world_member_names();
    s = k_object;
    s.name = "java/lang/String";
    s.super = k_object.cls;
    s.loader = loader;
    s.name_id = string(s.name);
    s.n_field = 2;
    s.field_types = types;
    s.field_names[0] = string("value");
    s.field_names[1] = string("coder");
    world_load_classes();
    for (int i = 0; i < fakes; i++)
        load_class((uint32_t)(10 + i), s.cls + 0x1000 * (unsigned)(i + 1), s.name_id);
    stack_trace(1);
    seg = rec_open(R_SEGMENT);
    world_class_dumps(0);
    for (int i = 0; i < fakes; i++) {
        klass f = s;
        f.cls = s.cls + 0x1000 * (unsigned)(i + 1);
        class_dump(&f, 0);
        instance(&f, 1);
    }
    filler();
    rec_close(seg);
    rec_close(rec_open(R_END));
}
static void v_fake_string_loader(void) { fake_strings(1, 0x7c0000f00u, T_BYTE); }
static void v_fake_string_twice(void) { fake_strings(2, 0, T_BYTE); }
static void v_fake_string_long_coder(void) { fake_strings(1, 0, T_LONG); }

/* app classes a/a (a byte b) and a/c (a static long d), and a mapping that
 * names them java.lang.String (b: coder) and FutureTask (d: runnerOffset) */
static void v_evil_mapping(void)
{
    static const int byte_type[1] = { T_BYTE }, long_type[1] = { T_LONG };
    klass a, c;
    size_t seg;
    world_init(8, 0);
    header("JAVA PROFILE 1.0.2", 8);
    world_class_names();
    world_member_names();
    a = k_prims;
    a.name = "a/a";
    a.cls = k_pool.cls + 0x100;
    a.name_id = string("a/a");
    a.n_field = 1;
    a.field_types = byte_type;
    a.field_names[0] = string("b");
    c = k_statics;
    c.name = "a/c";
    c.cls = a.cls + 0x100;
    c.name_id = string("a/c");
    c.n_static = 1;
    c.static_types = long_type;
    c.static_names[0] = string("d");
    world_load_classes();
    load_class(5, a.cls, a.name_id);
    load_class(6, c.cls, c.name_id);
    stack_trace(1);
    seg = rec_open(R_SEGMENT);
    world_class_dumps(0);
    class_dump(&a, 0);
    class_dump(&c, P_STATICS);
    instance(&a, 1);
    filler();
    rec_close(seg);
    rec_close(rec_open(R_END));
    snprintf(mapping, sizeof mapping,
             "# renames app classes into the JDK's kept fields\n"
             "java.lang.String -> a.a:\n"
             "    byte coder -> b\n"
             "java.util.concurrent.FutureTask -> a.c:\n"
             "    long runnerOffset -> d\n");
}

static void unknown_record(const char *place)
{
    char text[96];
    size_t body = rec_open(R_UNKNOWN);
    snprintf(text, sizeof text, "PLANTED-%s-%u", place, ++marks);
    put(text, strlen(text));
    rec_close(body);
    manifest("required", text, strlen(text), place);
}

static void v_unknown_record(void)
{
    size_t seg;
    world_init(8, 0);
    header("JAVA PROFILE 1.0.2", 8);
    unknown_record("unknown-record-top");
    world_class_names();
    world_member_names();
    world_load_classes();
    stack_trace(1);
    seg = rec_open(R_SEGMENT);
    world_class_dumps(0);
    rec_close(seg);
    unknown_record("unknown-record-heap");
    seg = rec_open(R_SEGMENT);
    world_objects(0);
    filler();
    rec_close(seg);
    rec_close(rec_open(R_END));
}

static void v_trailing(void)
{
    static const char text[] = "PLANTED-trailing-data";
    hotspot(0);
    put(text, sizeof text - 1);
    manifest("required", text, sizeof text - 1, "trailing data");
}

/* a thread: its name in START_THREAD is a name (kept), its value in the
 * Thread object (a char[]) and its tid are data */
static void v_threads(void)
{
    static const int thread_types[2] = { T_OBJECT, T_LONG };
    static const char tname[] = "KEPT-thread-name", gname[] = "KEPT-thread-group";
    klass t;
    size_t rec;
    uint64_t obj, tn, gn;
    world_init(8, 0);
    header("JAVA PROFILE 1.0.2", 8);
    world_class_names();
    world_member_names();
    t = k_prims;
    t.name = "java/lang/Thread";
    t.cls = k_pool.cls + 0x100;
    t.name_id = string(t.name);
    t.n_field = 2;
    t.field_types = thread_types;
    t.field_names[0] = string("name");
    t.field_names[1] = string("tid");
    tn = string(tname);
    gn = string(gname);
    manifest("kept", tname, sizeof tname - 1, "thread name (START_THREAD)");
    manifest("kept", gname, sizeof gname - 1, "thread group name (START_THREAD)");
    world_load_classes();
    load_class(5, t.cls, t.name_id);
    stack_trace(1);
    obj = next_object;
    rec = rec_open(R_START_THREAD);
    u4(1);
    id(obj);
    u4(1);
    id(tn);
    id(gn);
    id(gn);
    rec_close(rec);
    rec = rec_open(R_SEGMENT);
    world_class_dumps(0);
    class_dump(&t, 0);
    instance(&t, 1);
    u1(S_ROOT_THREAD_OBJ);
    id(obj);
    u4(1);
    u4(1);
    prim_array(T_CHAR, 1, "thread-name-value");
    filler();
    rec_close(rec);
    rec_close(rec_open(R_END));
}

static const struct {
    const char *name;
    void (*write)(void);
    const char *what;
} variants[] = {
    { "clean", v_clean, "nothing planted: every value zero, every STRING used" },
    { "fields", v_fields, "instance fields of every primitive type" },
    { "statics", v_statics, "static fields of every primitive type" },
    { "constpool", v_constpool, "constant-pool values of every primitive type" },
    { "arrays", v_arrays, "primitive arrays of every type" },
    { "reserved-ids", v_reserved, "CLASS_DUMP's two reserved ids" },
    { "unused-first", v_unused_first, "five unused STRINGs before everything" },
    { "unused-after-loadclass", v_unused_after_loadclass,
      "unused STRINGs before and after LOAD_CLASS, names after it" },
    { "unused-between-segments", v_unused_between_segments, "unused STRINGs between heap segments" },
    { "unused-after-end", v_unused_after_end, "unused STRINGs after HEAP_DUMP_END" },
    { "agent-interleaved", v_agent_interleaved,
      "1.0.1, 4-byte ids, STRINGs between LOAD_CLASSes, one HEAP_DUMP, fields" },
    { "art-order", v_art_order,
      "1.0.3 in ART's order: unused STRINGs first, HEAP_DUMP_INFO, objects before classes" },
    { "art-between-segments", v_art_between_segments,
      "art-order with unused STRINGs between segments and after HEAP_DUMP_END" },
    { "class-twice", v_class_twice, "a class dumped twice, a reference then a long" },
    { "fake-string-loader", v_fake_string_loader,
      "a java/lang/String of a class loader, its byte coder holding data" },
    { "fake-string-twice", v_fake_string_twice,
      "two classes named java/lang/String, their byte coders holding data" },
    { "fake-string-long-coder", v_fake_string_long_coder, "a java/lang/String with a long coder" },
    { "evil-mapping", v_evil_mapping,
      "app classes a mapping names java.lang.String (coder) and FutureTask (runnerOffset)" },
    { "unknown-record", v_unknown_record, "records of unknown tag, at the top and between segments" },
    { "trailing", v_trailing, "bytes after the last record" },
    { "threads", v_threads, "a thread: its names (kept), its tid and name chars (data)" },
};

static void write_file(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(p, 1, n, f) != n || fclose(f) != 0)
        die(path);
}

int main(int argc, char **argv)
{
    const char *mapping_out = NULL, *name;
    char man_path[4096];
    size_t v, nv = sizeof variants / sizeof *variants;
    int a = 1;
    if (argc == 2 && strcmp(argv[1], "--list") == 0) {
        for (v = 0; v < nv; v++)
            printf("%s\t%s\n", variants[v].name, variants[v].what);
        return 0;
    }
    if (argc >= 3 && strcmp(argv[1], "--mapping-out") == 0) {
        mapping_out = argv[2];
        a = 3;
    }
    if (argc - a != 2) {
        fprintf(stderr, "usage: plantdump --list\n"
                        "       plantdump [--mapping-out FILE] VARIANT OUT.hprof\n");
        return 2;
    }
    name = argv[a];
    out_path = argv[a + 1];
    for (v = 0; v < nv && strcmp(variants[v].name, name) != 0; v++)
        ;
    if (v == nv) {
        fprintf(stderr, "plantdump: no variant %s (--list names them)\n", name);
        return 2;
    }
    snprintf(man_path, sizeof man_path, "%s.manifest", out_path);
    man = fopen(man_path, "w");
    if (!man)
        die(man_path);
    fprintf(man, "variant %s\n", name);
    variants[v].write();
    fprintf(man, "unused_strings %u\n", unused);
    if (fclose(man) != 0)
        die(man_path);
    write_file(out_path, buf, len);
    if (mapping_out)
        write_file(mapping_out, mapping, strlen(mapping));
    free(buf);
    return 0;
}
