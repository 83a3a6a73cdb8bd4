/* SPDX-License-Identifier: Apache-2.0 */
/*
 * artdump - turn a HotSpot heap dump into one shaped as Android's ART writes
 * it, so the Android paths can be tested on dumps of any size made on this
 * machine (see `artdump --help` and README.md). Written from the format facts
 * in ../shared/docs/hprof-format.md (section 4, "Android ART specifics").
 *
 *   artdump [--seed N] [--zygote-frac F] [--image-frac F] IN.hprof OUT.hprof
 *
 * IN is read several times (it must be a regular, uncompressed file): once
 * to learn strings, classes and which 64 KiB pages of address space hold
 * objects, then once for the roots and once per heap (image, zygote, app),
 * so each heap's objects come together as ART writes them, space by space.
 * Memory holds the used strings, the class layouts, the page list and the
 * roots, never the objects: about 11 MB for a 1 GB dump.
 * Exit status: 0 done, 1 bad input or a write error (OUT is removed),
 * 2 usage.
 */
#define _POSIX_C_SOURCE 200809L
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ART's segment limits (kMaxObjectsPerSegment, kMaxBytesPerSegment) */
enum { SEG_ITEMS = 128, SEG_BYTES = 4096 };
/* heap ids of HEAP_DUMP_INFO: the letters ART uses */
enum { H_DEFAULT = 0, H_APP = 'A', H_ZYGOTE = 'Z', H_IMAGE = 'I' };
/* new object ids start where ART's heap usually begins; string ids as ART's */
#define ID_BASE 0x12c00000u
#define STR_BASE 0x400000u
#define PAGE_SHIFT 16
/* system objects draw their heap per block of this many bytes of IN (where
 * the object's record starts; for HotSpot that follows the address, and the
 * JVMTI agent's ids are no addresses at all): small enough that the shares
 * come out close to the fractions asked for even on a 30 MB dump, large
 * enough that neighbours mostly share a heap */
#define BLOCK_SHIFT 12

static const char *in_path, *out_path;
static FILE *out;
static int out_regular; /* OUT is a file of ours to remove on failure */

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3), noreturn))
#endif
static void die(int code, const char *fmt, ...);
static void die(int code, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "artdump: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    if (out) {
        fclose(out);
        if (out_regular)
            unlink(out_path); /* never leave a partial OUT */
    }
    exit(code);
}

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p)
        die(1, "out of memory");
    return p;
}

/* ---- hashing: deterministic draws and the maps ----------------------------- */

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15u;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
    return x ^ (x >> 31);
}

static uint64_t seed = 1;
/* a uniform draw in [0,1) for (what, x) under the seed */
static double draw(uint64_t what, uint64_t x)
{
    return (double)(mix(mix(seed ^ what) ^ x) >> 11) / 9007199254740992.0;
}

/* open addressing, u64 key (never ~0) -> u32 value */
typedef struct {
    uint64_t *key;
    uint32_t *val;
    size_t cap, n;
} map;
#define NOKEY UINT64_MAX

static void map_grow(map *m);
static uint32_t *map_slot(map *m, uint64_t k, int add)
{
    size_t i;
    assert(k != NOKEY);
    if (add && (m->n + 1) * 2 > m->cap)
        map_grow(m);
    if (!m->cap)
        return NULL;
    for (i = mix(k) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        if (m->key[i] == k)
            return &m->val[i];
        if (m->key[i] == NOKEY) {
            if (!add)
                return NULL;
            m->key[i] = k;
            m->val[i] = 0;
            m->n++;
            return &m->val[i];
        }
    }
}
static void map_grow(map *m)
{
    map old = *m;
    size_t i;
    m->cap = old.cap ? old.cap * 2 : 1024;
    m->key = xrealloc(NULL, m->cap * sizeof *m->key);
    m->val = xrealloc(NULL, m->cap * sizeof *m->val);
    memset(m->key, 0xff, m->cap * sizeof *m->key);
    m->n = 0;
    for (i = 0; i < old.cap; i++)
        if (old.key[i] != NOKEY)
            *map_slot(m, old.key[i], 1) = old.val[i];
    free(old.key);
    free(old.val);
}

/* ---- input: a buffered reader over the file by offset ---------------------- */

typedef struct {
    int fd;
    uint8_t *buf;
    size_t cap;
    uint64_t start; /* file offset of buf[0] */
    size_t have;    /* valid bytes in buf */
    uint64_t pos;   /* file offset of the next byte */
    uint64_t size;  /* of the file */
} reader;

static reader rd;
static unsigned I; /* IN's id size */

static void rd_seek(uint64_t pos) { rd.pos = pos; }

/* at least n (<= cap) bytes at rd.pos, or a truncation error */
static const uint8_t *rd_need(size_t n)
{
    assert(n <= rd.cap);
    if (rd.pos < rd.start || rd.pos + n > rd.start + rd.have) {
        size_t keep = 0;
        if (rd.pos >= rd.start && rd.pos < rd.start + rd.have) {
            keep = (size_t)(rd.start + rd.have - rd.pos);
            memmove(rd.buf, rd.buf + (rd.pos - rd.start), keep);
        }
        rd.start = rd.pos;
        rd.have = keep;
        while (rd.have < rd.cap) {
            ssize_t got = pread(rd.fd, rd.buf + rd.have, rd.cap - rd.have, (off_t)(rd.start + rd.have));
            if (got < 0 && errno == EINTR)
                continue;
            if (got < 0)
                die(1, "%s: read error at byte %" PRIu64 ": %s", in_path, rd.start + rd.have, strerror(errno));
            if (got == 0)
                break;
            rd.have += (size_t)got;
        }
        if (n > rd.have)
            die(1, "%s: truncated at byte %" PRIu64 " (a record runs past the end of the file)", in_path,
                rd.start + rd.have);
    }
    return rd.buf + (rd.pos - rd.start);
}

static uint64_t be(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    while (n--)
        v = v << 8 | *p++;
    return v;
}
static uint64_t rd_n(unsigned n)
{
    uint64_t v = be(rd_need(n), n);
    rd.pos += n;
    return v;
}
static uint32_t rd_u4(void) { return (uint32_t)rd_n(4); }
static uint64_t rd_id(void) { return rd_n(I); }

/* ---- what pass 1 learns ---------------------------------------------------- */

static unsigned type_size(unsigned t, unsigned idsize)
{
    switch (t) {
    case 2: return idsize;
    case 4: case 8: return 1;
    case 5: case 9: return 2;
    case 6: case 10: return 4;
    case 7: case 11: return 8;
    default: return 0;
    }
}

typedef struct {
    uint64_t id, super, off; /* off: file offset of its CLASS_DUMP sub-record */
    uint32_t dump_len;       /* bytes of that sub-record, tag included */
    uint32_t name;           /* index into strs of its HotSpot name, or ~0 */
    char *types;             /* own instance field types, then the supers' */
    size_t ntypes, nown;
    int flat, system, heap, java_lang, array, is_class;
    int written;       /* its class dump is out */
    int needed;        /* it or a subclass has objects in IN */
    unsigned late, seen; /* a late class dump follows this many of its instances */
    uint64_t in_bytes, out_bytes; /* instance field bytes in IN and OUT */
} klass;

static klass *cls;
static size_t ncls;
static map cls_by_id;

typedef struct {
    uint64_t off;
    uint32_t len;
    uint32_t newid; /* 0: not used */
} string;
static string *strs;
static size_t nstrs;
static map str_by_id;

typedef struct {
    uint64_t cls;
    uint32_t name; /* old string id index, ~0 if none */
} loadclass;
static loadclass *loads;
static size_t nloads;

typedef struct {
    uint64_t off, len;
} region;
static region *heaps;
static size_t nheaps;

static uint64_t *pages;
static size_t npages, cap_pages;
static uint64_t last_page = NOKEY;

static map has_objects; /* classes with instances (or arrays) in IN */
static uint64_t *used_names; /* old string ids the class dumps use, in order */
static size_t nused;

static int first_done;      /* the first heap dump has ended */
static uint64_t later_heaps; /* heap records of later heap dumps, left out */
static uint8_t timestamp[8];
static uint32_t first_thread;
static int have_thread;
/* the objects given ART's debugger and JNI-monitor roots: the 7 smallest draws */
enum { NPICK = 7 };
static uint64_t pick_id[NPICK];
static double pick_d[NPICK];
static size_t npick;

static void note_page(uint64_t id)
{
    uint64_t p = id >> PAGE_SHIFT;
    if (p == last_page)
        return;
    last_page = p;
    if (npages == cap_pages) {
        cap_pages = cap_pages ? cap_pages * 2 : 4096;
        pages = xrealloc(pages, cap_pages * sizeof *pages);
    }
    pages[npages++] = p;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void pages_unique(void)
{
    size_t i, n = 0;
    qsort(pages, npages, sizeof *pages, cmp_u64);
    for (i = 0; i < npages; i++)
        if (n == 0 || pages[n - 1] != pages[i])
            pages[n++] = pages[i];
    npages = n;
}

static void note_pick(uint64_t id)
{
    double d = draw(3, id);
    size_t i;
    if (npick == NPICK && d >= pick_d[NPICK - 1])
        return;
    i = npick < NPICK ? npick++ : NPICK - 1;
    while (i > 0 && pick_d[i - 1] > d) {
        pick_d[i] = pick_d[i - 1];
        pick_id[i] = pick_id[i - 1];
        i--;
    }
    pick_d[i] = d;
    pick_id[i] = id;
}

static void use_name(uint64_t sid)
{
    if (nused % 1024 == 0)
        used_names = xrealloc(used_names, (nused + 1024) * sizeof *used_names);
    used_names[nused++] = sid;
}

/* size of a root sub-record's body in IN, or 0 for a tag that is no root */
static unsigned root_size(unsigned tag)
{
    switch (tag) {
    case 0xff: case 0x05: case 0x07: return I;
    case 0x01: return 2 * I;
    case 0x02: case 0x03: case 0x08: return I + 8;
    case 0x04: case 0x06: return I + 4;
    default: return 0;
    }
}

/* pass 1 over a CLASS_DUMP (tag read): remember its layout and field names */
static void scan_class(uint64_t at)
{
    klass *k;
    unsigned n, i, t;
    uint64_t id = rd_id();

    note_page(id);
    if (map_slot(&cls_by_id, id + 1, 0))
        die(1, "%s: byte %" PRIu64 ": a second class dump of class 0x%" PRIx64, in_path, at, id);
    if (ncls % 256 == 0)
        cls = xrealloc(cls, (ncls + 256) * sizeof *cls);
    k = &cls[ncls];
    memset(k, 0, sizeof *k);
    k->id = id;
    k->off = at;
    k->name = UINT32_MAX;
    *map_slot(&cls_by_id, id + 1, 1) = (uint32_t)ncls++;
    rd.pos += 4;
    k->super = rd_id();
    rd.pos += 5 * I + 4;
    n = (unsigned)rd_n(2); /* constant pool */
    for (i = 0; i < n; i++) {
        rd.pos += 2;
        t = (unsigned)rd_n(1);
        if (!type_size(t, I))
            die(1, "%s: byte %" PRIu64 ": bad constant pool type %u", in_path, rd.pos - 1, t);
        rd.pos += type_size(t, I);
    }
    n = (unsigned)rd_n(2); /* statics */
    for (i = 0; i < n; i++) {
        use_name(rd_id());
        t = (unsigned)rd_n(1);
        if (!type_size(t, I))
            die(1, "%s: byte %" PRIu64 ": bad static field type %u", in_path, rd.pos - 1, t);
        rd.pos += type_size(t, I);
    }
    n = (unsigned)rd_n(2); /* instance fields */
    k->types = xrealloc(NULL, n);
    for (i = 0; i < n; i++) {
        use_name(rd_id());
        t = (unsigned)rd_n(1);
        if (!type_size(t, I))
            die(1, "%s: byte %" PRIu64 ": bad instance field type %u", in_path, rd.pos - 1, t);
        k->types[i] = (char)t;
    }
    k->ntypes = k->nown = n;
    k->dump_len = (uint32_t)(rd.pos - at);
}

/* the size in IN of the sub-record at rd.pos (tag read), leaving rd.pos past it;
 * pass 1 also notes pages, classes and picks */
static void skip_object(unsigned tag, uint64_t at, int scan)
{
    uint64_t id = rd_id(), n = 0, c;
    unsigned t;
    if (scan)
        note_page(id);
    rd.pos += 4;
    switch (tag) {
    case 0x21:
        c = rd_id();
        n = rd_u4();
        if (scan) {
            note_pick(id);
            *map_slot(&has_objects, c + 1, 1) = 1;
        }
        break;
    case 0x22:
        n = rd_u4();
        c = rd_id();
        if (scan)
            *map_slot(&has_objects, c + 1, 1) = 1;
        n *= I;
        break;
    case 0x23:
        n = rd_u4();
        t = (unsigned)rd_n(1);
        if (!type_size(t, I) || t == 2)
            die(1, "%s: byte %" PRIu64 ": bad primitive array type %u", in_path, at, t);
        n *= type_size(t, I);
        break;
    default:
        die(1, "%s: byte %" PRIu64 ": unknown heap sub-record tag 0x%02x", in_path, at, tag);
    }
    rd.pos += n;
}

static void pass1(void)
{
    const uint8_t *h = rd_need(19);
    uint64_t end;

    if (memcmp(h, "JAVA PROFILE 1.0.1", 19) && memcmp(h, "JAVA PROFILE 1.0.2", 19)) {
        if (!memcmp(h, "JAVA PROFILE 1.0.3", 19))
            die(1, "%s: already an Android (1.0.3) dump; artdump reads HotSpot dumps", in_path);
        die(1, "%s: not a HotSpot heap dump (JAVA PROFILE 1.0.1 or 1.0.2)", in_path);
    }
    rd.pos = 19;
    I = rd_u4();
    if (I != 4 && I != 8)
        die(1, "%s: identifier size %u (4 or 8 expected)", in_path, I);
    memcpy(timestamp, rd_need(8), 8);
    rd.pos += 8;
    while (rd.pos < rd.size) {
        uint64_t at = rd.pos;
        unsigned tag = (unsigned)rd_n(1);
        uint32_t len;
        rd.pos += 4;
        len = rd_u4();
        end = rd.pos + len;
        if (end > rd.size)
            die(1, "%s: byte %" PRIu64 ": record 0x%02x runs past the end of the file", in_path, at, tag);
        if (tag == 0x01) {
            uint64_t sid;
            if (len < I)
                die(1, "%s: byte %" PRIu64 ": short STRING record", in_path, at);
            sid = rd_id();
            if (nstrs % 4096 == 0)
                strs = xrealloc(strs, (nstrs + 4096) * sizeof *strs);
            strs[nstrs].off = rd.pos;
            strs[nstrs].len = len - I;
            strs[nstrs].newid = 0;
            *map_slot(&str_by_id, sid + 1, 1) = (uint32_t)nstrs++;
        } else if (tag == 0x02) {
            if (nloads % 1024 == 0)
                loads = xrealloc(loads, (nloads + 1024) * sizeof *loads);
            uint32_t *s;
            rd.pos += 4;
            loads[nloads].cls = rd_id();
            rd.pos += 4;
            s = map_slot(&str_by_id, rd_id() + 1, 0); /* HotSpot writes names first */
            loads[nloads++].name = s ? *s : UINT32_MAX;
        } else if ((tag == 0x0c || tag == 0x1c) && first_done) {
            later_heaps++; /* ART dumps hold one heap dump: the first is kept */
        } else if (tag == 0x2c) {
            first_done = nheaps > 0;
        } else if (tag == 0x0c || tag == 0x1c) {
            first_done = tag == 0x0c;
            if (nheaps % 256 == 0)
                heaps = xrealloc(heaps, (nheaps + 256) * sizeof *heaps);
            heaps[nheaps].off = rd.pos;
            heaps[nheaps++].len = len;
            while (rd.pos < end) {
                uint64_t sat = rd.pos;
                unsigned st = (unsigned)rd_n(1), rs = root_size(st);
                if (rs) {
                    if (st == 0x08 && !have_thread) {
                        rd.pos += I;
                        first_thread = rd_u4();
                        have_thread = 1;
                        rd.pos = sat + 1 + rs;
                    } else
                        rd.pos += rs;
                } else if (st == 0x20)
                    scan_class(sat);
                else
                    skip_object(st, sat, 1);
            }
            if (rd.pos != end)
                die(1, "%s: byte %" PRIu64 ": a sub-record crosses the end of its heap record", in_path, end);
        }
        rd.pos = end;
    }
    if (!nheaps)
        die(1, "%s: holds no heap dump", in_path);
}

/* ---- strings: ART's are sorted by text, ids counted from 0x400000 ---------- */

typedef struct {
    char *text;
    uint32_t len, id;
} text;
static text *texts;
static size_t ntexts;
static map text_by_hash; /* fnv(text) -> index+1; collisions probe the next hash */

static uint64_t fnv(const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325u;
    while (n--)
        h = (h ^ (uint8_t)*s++) * 0x100000001b3u;
    return h == NOKEY ? 0 : h;
}

/* the new id of a text, interned on first use */
static uint32_t intern(const char *s, size_t n)
{
    uint64_t h = fnv(s, n);
    for (;; h = h + 1 == NOKEY ? 0 : h + 1) {
        uint32_t *v = map_slot(&text_by_hash, h, 1);
        if (*v == 0) {
            if (ntexts % 4096 == 0)
                texts = xrealloc(texts, (ntexts + 4096) * sizeof *texts);
            texts[ntexts].text = xrealloc(NULL, n);
            memcpy(texts[ntexts].text, s, n);
            texts[ntexts].len = (uint32_t)n;
            texts[ntexts].id = STR_BASE + (uint32_t)ntexts;
            *v = (uint32_t)++ntexts;
            return texts[ntexts - 1].id;
        }
        if (texts[*v - 1].len == n && !memcmp(texts[*v - 1].text, s, n))
            return texts[*v - 1].id;
    }
}

static char *string_text(uint32_t idx, size_t *n)
{
    char *s;
    assert(idx < nstrs);
    *n = strs[idx].len;
    s = xrealloc(NULL, *n + 1);
    if (pread(rd.fd, s, *n, (off_t)strs[idx].off) != (ssize_t)*n)
        die(1, "%s: read error", in_path);
    s[*n] = 0;
    return s;
}

static int cmp_text(const void *a, const void *b)
{
    const text *x = a, *y = b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->text, y->text, n);
    return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* ---- classes: names, heaps, layouts ----------------------------------------- */

static klass *find_class(uint64_t id)
{
    uint32_t *v = map_slot(&cls_by_id, id + 1, 0);
    return v ? &cls[*v] : NULL;
}

/* HotSpot's name ("java/lang/String", "[I", "[[Ljava/lang/Object;") as ART
 * writes it ("java.lang.String", "int[]", "java.lang.Object[][]") */
static char *pretty(const char *s, size_t n, size_t *outn)
{
    size_t dims = 0, i, o = 0;
    const char *base;
    size_t blen;
    char *r;
    static const struct {
        char c;
        const char *name;
    } prim[] = {{'Z', "boolean"}, {'C', "char"},  {'F', "float"}, {'D', "double"},
                {'B', "byte"},    {'S', "short"}, {'I', "int"},   {'J', "long"}};

    while (dims < n && s[dims] == '[')
        dims++;
    base = s + dims;
    blen = n - dims;
    if (dims && blen == 1) {
        for (i = 0; i < sizeof prim / sizeof *prim; i++)
            if (prim[i].c == *base) {
                base = prim[i].name;
                blen = strlen(base);
            }
    } else if (dims && blen >= 2 && base[0] == 'L' && base[blen - 1] == ';') {
        base++;
        blen -= 2;
    }
    r = xrealloc(NULL, blen + 2 * dims + 1);
    for (i = 0; i < blen; i++)
        r[o++] = base[i] == '/' ? '.' : base[i];
    for (i = 0; i < dims; i++) {
        r[o++] = '[';
        r[o++] = ']';
    }
    r[o] = 0;
    *outn = o;
    return r;
}

static int prefixed(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }

/* the heap a class dump goes to, and whether its instances are "system" */
static void classify(klass *k, const char *pretty_name)
{
    const char *s = pretty_name;
    k->array = strchr(s, '[') != NULL;
    k->is_class = strcmp(s, "java.lang.Class") == 0;
    if (k->array && !strchr(s, '.'))
        k->system = k->java_lang = 1; /* a primitive array class */
    else {
        k->system = prefixed(s, "java.") || prefixed(s, "javax.") || prefixed(s, "sun.") ||
                    prefixed(s, "jdk.") || prefixed(s, "com.sun.");
        k->java_lang = prefixed(s, "java.lang.");
    }
}

static double zygote_frac = 0.2, image_frac = 0.3;

static int system_heap(uint64_t what, uint64_t x)
{
    double d = draw(what, x);
    return d < image_frac ? H_IMAGE : d < image_frac + zygote_frac ? H_ZYGOTE : H_APP;
}

/* own fields, then the superclass's, up the chain (INSTANCE_DUMP order) */
static void flatten(klass *k, unsigned depth)
{
    klass *s;
    if (k->flat)
        return;
    if (depth > 10000)
        die(1, "%s: the superclass chain of class 0x%" PRIx64 " loops", in_path, k->id);
    s = k->super ? find_class(k->super) : NULL;
    if (k->super && !s)
        die(1, "%s: class 0x%" PRIx64 " has a superclass 0x%" PRIx64 " without a class dump", in_path, k->id,
            k->super);
    if (s) {
        flatten(s, depth + 1);
        k->types = xrealloc(k->types, k->nown + s->ntypes);
        memcpy(k->types + k->nown, s->types, s->ntypes);
        k->ntypes = k->nown + s->ntypes;
    }
    k->flat = 1;
}

static void prepare(void)
{
    size_t i;
    pages_unique();
    for (i = 0; i < nloads; i++) {
        klass *k = find_class(loads[i].cls);
        if (k && k->name == UINT32_MAX)
            k->name = loads[i].name;
    }
    for (i = 0; i < ncls; i++) {
        klass *k = &cls[i];
        unsigned depth = 0;
        if (!map_slot(&has_objects, k->id + 1, 0))
            continue;
        for (; k && !k->needed && depth < 10000; k = k->super ? find_class(k->super) : NULL, depth++)
            k->needed = 1;
    }
    for (i = 0; i < ncls; i++) {
        klass *k = &cls[i];
        size_t n = 0, pn;
        char *s = k->name != UINT32_MAX ? string_text(k->name, &n) : NULL;
        char *p = pretty(s ? s : "", n, &pn);
        unsigned j;
        classify(k, p);
        free(s);
        free(p);
        flatten(k, 0);
        k->in_bytes = k->out_bytes = 0;
        for (j = 0; j < k->ntypes; j++) {
            k->in_bytes += type_size((unsigned char)k->types[j], I);
            k->out_bytes += type_size((unsigned char)k->types[j], 4);
        }
        /* System classes with objects live in the boot image, so that no
         * object (whatever heap it draws) comes before its class because of
         * the heap order; those without, and no java.lang one, are drawn. */
        if (!k->system)
            k->heap = H_APP;
        else if (k->java_lang || k->needed)
            k->heap = H_IMAGE;
        else
            k->heap = system_heap(4, k->id);
        /* ART writes some objects before their class (about 3% of instances
         * in real dumps): 10% of the classes come after up to 256 instances
         * (so what a reader holds for them stays bounded) */
        if (draw(7, k->id) < 0.1)
            k->late = 1 + (unsigned)(draw(8, k->id) * 256);
    }
}

/* new string ids: every class name (ART's form) in LOAD_CLASS order, the
 * field names, the heap names */
static uint32_t *load_name; /* per loads[]: new name id */
static uint32_t heap_name_id[3];

static void name_strings(void)
{
    size_t i;
    load_name = xrealloc(NULL, (nloads + 1) * sizeof *load_name);
    for (i = 0; i < nloads; i++) {
        size_t n = 0, pn;
        char *s = loads[i].name != UINT32_MAX ? string_text(loads[i].name, &n) : NULL;
        char *p = pretty(s ? s : "", n, &pn);
        load_name[i] = intern(p, pn);
        free(s);
        free(p);
    }
    for (i = 0; i < nused; i++) {
        uint32_t *v = map_slot(&str_by_id, used_names[i] + 1, 0);
        if (v && !strs[*v].newid) {
            size_t n;
            char *s = string_text(*v, &n);
            strs[*v].newid = intern(s, n);
            free(s);
        }
    }
    heap_name_id[0] = intern("app", 3);
    heap_name_id[1] = intern("zygote", 6);
    heap_name_id[2] = intern("image", 5);
}

static uint32_t heap_name(int heap)
{
    return heap_name_id[heap == H_APP ? 0 : heap == H_ZYGOTE ? 1 : 2];
}

/* ---- ids: 64 KiB pages of address space packed from ID_BASE up ------------- */

static map extra_pages; /* pages of ids no object in IN has: dangling references */

static uint32_t new_id(uint64_t id)
{
    uint64_t p = id >> PAGE_SHIFT, rank;
    size_t lo = 0, hi = npages;
    if (!id)
        return 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (pages[mid] < p)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < npages && pages[lo] == p)
        rank = lo;
    else {
        uint32_t *v = map_slot(&extra_pages, p, 1);
        if (!*v)
            *v = (uint32_t)extra_pages.n; /* 1-based, in first-use order */
        rank = npages + *v - 1;
    }
    if (((rank + 1) << PAGE_SHIFT) > UINT32_MAX - ID_BASE)
        die(1, "%s: the objects spread over more than %u MiB of address space, too much for 4-byte ids",
            in_path, (unsigned)((UINT32_MAX - ID_BASE) >> 20));
    return ID_BASE + (uint32_t)(rank << PAGE_SHIFT) + (uint32_t)(id & ((1u << PAGE_SHIFT) - 1));
}

static uint32_t new_string(uint64_t sid)
{
    uint32_t *v = map_slot(&str_by_id, sid + 1, 0);
    return v ? strs[*v].newid : 0;
}

/* ---- output: ART's segments ------------------------------------------------ */

static struct {
    uint8_t *buf;
    size_t len, cap;
    unsigned items;
    int open, heap, direct;
    uint64_t announced, written; /* of a big item written straight out */
    uint64_t segments, subs, infos;
} seg;
static uint64_t out_bytes;

static void out_write(const void *p, size_t n)
{
    if (n && fwrite(p, 1, n, out) != n)
        die(1, "%s: write error: %s", out_path, strerror(errno));
    out_bytes += n;
}

static void put(const void *p, size_t n)
{
    if (seg.direct) {
        out_write(p, n);
        seg.written += n;
        return;
    }
    if (seg.len + n > seg.cap) {
        while (seg.len + n > seg.cap)
            seg.cap = seg.cap ? seg.cap * 2 : 65536;
        seg.buf = xrealloc(seg.buf, seg.cap);
    }
    memcpy(seg.buf + seg.len, p, n);
    seg.len += n;
}
static void put_n(uint64_t v, unsigned n)
{
    uint8_t b[8];
    unsigned i;
    for (i = 0; i < n; i++)
        b[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
    put(b, n);
}
static void put1(unsigned v) { put_n(v, 1); }
static void put4(uint64_t v) { put_n(v, 4); }

static void record_header(unsigned tag, uint64_t len)
{
    uint8_t h[9] = {(uint8_t)tag, 0, 0, 0, 0};
    assert(len <= UINT32_MAX);
    h[5] = (uint8_t)(len >> 24);
    h[6] = (uint8_t)(len >> 16);
    h[7] = (uint8_t)(len >> 8);
    h[8] = (uint8_t)len;
    out_write(h, 9);
}

static void seg_close(void)
{
    if (!seg.open)
        return;
    record_header(0x1c, seg.len);
    out_write(seg.buf, seg.len);
    seg.len = 0;
    seg.open = 0;
    seg.segments++;
}

/* Start one root or object of `size` bytes in OUT, in `heap` (0 for a root):
 * ART's check before each item, its ROOT_VM_INTERNAL for zygote and image
 * objects (before the heap switch), and HEAP_DUMP_INFO when the heap changes.
 * An item too big to hold goes straight out, ending its segment. */
static void item_begin(uint64_t size, int heap)
{
    int vm = heap == H_ZYGOTE || heap == H_IMAGE;
    uint64_t total;
    assert(!seg.direct);
    if (seg.open && (seg.items >= SEG_ITEMS || 9 + seg.len >= SEG_BYTES))
        seg_close();
    if (!seg.open) {
        seg.open = 1;
        seg.items = 0;
        seg.heap = H_DEFAULT;
    }
    seg.items++;
    seg.subs++;
    total = size + (vm ? 1 + 4 : 0) + (heap && heap != seg.heap ? 9 : 0);
    if (seg.len + total > (1u << 20)) {
        record_header(0x1c, seg.len + total);
        out_write(seg.buf, seg.len);
        seg.len = 0;
        seg.direct = 1;
        seg.announced = total;
        seg.written = 0;
        seg.segments++;
    }
    if (vm) {
        seg.subs++;
        put1(0x8d); /* ROOT_VM_INTERNAL, written id first by item_id */
    }
}
/* the object's id: after its ROOT_VM_INTERNAL, the heap switch, then the record */
static void item_head(int heap, unsigned tag, uint32_t id)
{
    if (heap == H_ZYGOTE || heap == H_IMAGE)
        put4(id);
    if (heap && heap != seg.heap) {
        put1(0xfe);
        put4((uint32_t)heap);
        put4(heap_name(heap));
        seg.heap = heap;
        seg.infos++;
        seg.subs++;
    }
    put1(tag);
    put4(id);
}
static void item_end(void)
{
    if (seg.direct) {
        if (seg.written != seg.announced)
            die(1, "internal error: item of %" PRIu64 " bytes announced as %" PRIu64, seg.written,
                seg.announced);
        seg.direct = 0;
        seg.open = 0;
    }
}

/* ---- pass 2: the header, strings and classes -------------------------------- */

typedef struct {
    uint32_t id, serial, name;
} outclass;
static int cmp_outclass(const void *a, const void *b)
{
    const outclass *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

static void write_front(void)
{
    size_t i, n = 0;
    outclass *oc = xrealloc(NULL, (nloads + 1) * sizeof *oc);
    map seen = {0};
    text *sorted = xrealloc(NULL, (ntexts + 1) * sizeof *sorted);

    out_write("JAVA PROFILE 1.0.3", 19);
    {
        uint8_t h[4] = {0, 0, 0, 4};
        out_write(h, 4);
    }
    out_write(timestamp, 8);
    memcpy(sorted, texts, ntexts * sizeof *sorted);
    qsort(sorted, ntexts, sizeof *sorted, cmp_text);
    for (i = 0; i < ntexts; i++) {
        record_header(0x01, 4 + (uint64_t)sorted[i].len);
        put4(sorted[i].id);
        /* records outside the heap go straight out: put() buffers only in segments */
        out_write(seg.buf, seg.len);
        seg.len = 0;
        out_write(sorted[i].text, sorted[i].len);
    }
    free(sorted);
    /* one LOAD_CLASS per class, serials in IN's order, sorted by class id */
    for (i = 0; i < nloads; i++) {
        uint32_t *v = map_slot(&seen, loads[i].cls + 1, 1);
        if (*v)
            continue;
        *v = 1;
        oc[n].id = new_id(loads[i].cls);
        oc[n].serial = (uint32_t)n + 1;
        oc[n++].name = load_name[i];
    }
    qsort(oc, n, sizeof *oc, cmp_outclass);
    for (i = 0; i < n; i++) {
        record_header(0x02, 16);
        put4(oc[i].serial);
        put4(oc[i].id);
        put4(0);
        put4(oc[i].name);
        out_write(seg.buf, seg.len);
        seg.len = 0;
    }
    free(oc);
    free(seen.key);
    free(seen.val);
    /* the dummy stack trace every object names (serial 0) */
    record_header(0x05, 12);
    put4(0);
    put4(0);
    put4(0);
    out_write(seg.buf, seg.len);
    seg.len = 0;
}

/* ---- pass 2: roots ---------------------------------------------------------- */

static map roots_seen;
static uint64_t nroots;
static klass *string_class;

static void simple_root(unsigned tag, uint32_t id)
{
    uint32_t *v = map_slot(&roots_seen, (uint64_t)tag << 32 | id, 1);
    if (*v)
        return; /* ART keeps one per (kind, object) */
    *v = 1;
    item_begin(1 + 4, 0);
    put1(tag);
    put4(id);
    item_end();
    nroots++;
}

static void write_roots(void)
{
    size_t r, i;
    for (r = 0; r < nheaps; r++) {
        uint64_t end = heaps[r].off + heaps[r].len;
        rd_seek(heaps[r].off);
        while (rd.pos < end) {
            uint64_t at = rd.pos;
            unsigned tag = (unsigned)rd_n(1);
            uint32_t id, a;
            if (!root_size(tag)) {
                if (tag == 0x20)
                    rd.pos = at + cls[*map_slot(&cls_by_id, rd_id() + 1, 0)].dump_len;
                else if (tag == 0x21 && string_class) {
                    uint64_t oid = rd_id(), c;
                    rd.pos += 4;
                    c = rd_id();
                    rd.pos += rd_u4();
                    if (c == string_class->id && draw(5, oid) < 0.1)
                        simple_root(0x89, new_id(oid)); /* ROOT_INTERNED_STRING */
                } else
                    skip_object(tag, at, 0);
                continue;
            }
            id = new_id(rd_id());
            switch (tag) {
            case 0xff: case 0x05: case 0x07:
                simple_root(tag, id);
                continue;
            case 0x01: /* JNI global: ART passes no reference id */
                rd.pos += I;
                item_begin(1 + 8, 0);
                put1(tag);
                put4(id);
                put4(0);
                break;
            case 0x02: case 0x03: /* JNI local, Java frame: depth unknown */
            case 0x08:            /* thread object: no stack trace is written */
                a = rd_u4();
                rd.pos += 4;
                item_begin(1 + 12, 0);
                put1(tag);
                put4(id);
                put4(a);
                put4(UINT32_MAX);
                break;
            case 0x04: case 0x06:
                a = rd_u4();
                item_begin(1 + 8, 0);
                put1(tag);
                put4(id);
                put4(a);
                break;
            default:
                assert(0);
            }
            item_end();
            nroots++;
        }
    }
    /* ART's other root kinds, on objects the seed picks */
    for (i = 0; i < npick && i < 4; i++)
        simple_root(0x8b, new_id(pick_id[i])); /* ROOT_DEBUGGER */
    for (; i < npick && have_thread; i++) {    /* ROOT_JNI_MONITOR */
        item_begin(1 + 12, 0);
        put1(0x8e);
        put4(new_id(pick_id[i]));
        put4(first_thread);
        put4(UINT32_MAX);
        item_end();
        nroots++;
    }
}

/* ---- pass 2: objects and classes, one heap at a time -------------------------- */

static uint64_t count_heap[3], count_cls[3];
static int heap_index(int h) { return h == H_APP ? 0 : h == H_ZYGOTE ? 1 : 2; }

static void write_class(klass *k)
{
    uint8_t *b = xrealloc(NULL, k->dump_len), *p, *end;
    unsigned n, i, t;
    uint64_t size = 1 + 4 + 4 + 6 * 4 + 4 + 2, objsize;
    uint64_t save = rd.pos;

    /* its superclass first, when that is in the same heap and not out yet */
    if (k->super) {
        klass *s = find_class(k->super);
        if (s && !s->written && s->heap == k->heap)
            write_class(s);
    }
    if (pread(rd.fd, b, k->dump_len, (off_t)k->off) != (ssize_t)k->dump_len)
        die(1, "%s: read error", in_path);
    end = b + k->dump_len;
    /* the output size first: fixed part, pool, statics, fields */
    p = b + 1 + 7 * I + 8;
    n = (unsigned)be(p, 2);
    p += 2;
    for (i = 0; i < n; i++, p += 3 + type_size(t, I)) {
        t = p[2];
        size += 3 + type_size(t, 4);
    }
    size += 2;
    n = (unsigned)be(p, 2);
    p += 2;
    for (i = 0; i < n; i++, p += I + 1 + type_size(t, I)) {
        t = p[I];
        size += 4 + 1 + type_size(t, 4);
    }
    size += 2 + (uint64_t)5 * be(p, 2);
    assert(p + 2 + (I + 1) * be(p, 2) == end);

    item_begin(size, k->heap);
    item_head(k->heap, 0x20, new_id(k->id));
    put4(0);
    put4(new_id(k->super));
    put4(new_id(be(b + 1 + 3 * I + 4, I))); /* loader; signers and domain as ART: 0 */
    put4(0);
    put4(0);
    put4(0);
    put4(0);
    /* ART's instance size: the object's bytes in memory, its 8-byte header
     * included; 0 for java.lang.Class and arrays */
    objsize = k->is_class || k->array ? 0 : 8 + k->out_bytes;
    put4(objsize);
    p = b + 1 + 7 * I + 8;
    n = (unsigned)be(p, 2);
    put_n(n, 2);
    p += 2;
    for (i = 0; i < n; i++) {
        t = p[2];
        put(p, 3);
        if (t == 2)
            put4(new_id(be(p + 3, I)));
        else
            put(p + 3, type_size(t, I));
        p += 3 + type_size(t, I);
    }
    n = (unsigned)be(p, 2);
    put_n(n, 2);
    p += 2;
    for (i = 0; i < n; i++) {
        t = p[I];
        put4(new_string(be(p, I)));
        put1(t);
        if (t == 2)
            put4(new_id(be(p + I + 1, I)));
        else
            put(p + I + 1, type_size(t, I));
        p += I + 1 + type_size(t, I);
    }
    n = (unsigned)be(p, 2);
    put_n(n, 2);
    p += 2;
    for (i = 0; i < n; i++, p += I + 1) {
        put4(new_string(be(p, I)));
        put1(p[I]);
    }
    assert(p == end);
    item_end();
    free(b);
    rd.pos = save;
    k->written = 1;
    count_cls[heap_index(k->heap)]++;
}

/* class dumps of one heap, by address, merged into its objects */
static klass **order;
static size_t norder, next_class;

static int cmp_klass_id(const void *a, const void *b)
{
    const klass *x = *(klass *const *)a, *y = *(klass *const *)b;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* copy n bytes of IN to OUT */
static void copy(uint64_t n)
{
    while (n) {
        size_t c = n < rd.cap / 2 ? (size_t)n : rd.cap / 2;
        put(rd_need(c), c);
        rd.pos += c;
        n -= c;
    }
}

static void write_object(unsigned tag, uint64_t at, int heap_wanted)
{
    uint64_t id = rd_id(), n, c = 0;
    klass *k = NULL;
    int heap;
    unsigned t = 0, j;

    rd.pos += 4; /* trace serial */
    if (tag == 0x23) {
        n = rd_u4();
        t = (unsigned)rd_n(1);
        heap = system_heap(6, at >> BLOCK_SHIFT);
        if (heap != heap_wanted) {
            rd.pos += n * type_size(t, I);
            return;
        }
    } else {
        if (tag == 0x21) {
            c = rd_id();
            n = rd_u4();
        } else {
            n = rd_u4();
            c = rd_id();
        }
        k = find_class(c);
        if (!k)
            die(1, "%s: byte %" PRIu64 ": object 0x%" PRIx64 " of class 0x%" PRIx64 " without a class dump",
                in_path, at, id, c);
        heap = k->system ? system_heap(6, at >> BLOCK_SHIFT) : H_APP;
        if (heap != heap_wanted) {
            rd.pos += tag == 0x22 ? n * I : n;
            return;
        }
        if (tag == 0x21 && n != k->in_bytes)
            die(1, "%s: byte %" PRIu64 ": instance of %" PRIu64 " field bytes, its class's layout has %" PRIu64,
                in_path, at, n, k->in_bytes);
    }
    /* the class dumps at lower addresses come first, as ART walks by
     * address; and the class of this object, unless it is a late one */
    while (next_class < norder && order[next_class]->id < id)
        if (!order[next_class++]->written)
            write_class(order[next_class - 1]);
    if (k && k->heap == heap && !k->written && (!k->late || ++k->seen > k->late))
        write_class(k);
    count_heap[heap_index(heap)]++;
    switch (tag) {
    case 0x21:
        item_begin(1 + 4 + 4 + 4 + 4 + k->out_bytes, heap);
        item_head(heap, tag, new_id(id));
        put4(0);
        put4(new_id(c));
        put4(k->out_bytes);
        for (j = 0; j < k->ntypes; j++) {
            t = (unsigned char)k->types[j];
            if (t == 2)
                put4(new_id(rd_id()));
            else {
                put(rd_need(type_size(t, I)), type_size(t, I));
                rd.pos += type_size(t, I);
            }
        }
        break;
    case 0x22:
        item_begin(1 + 4 + 4 + 4 + 4 + 4 * n, heap);
        item_head(heap, tag, new_id(id));
        put4(0);
        put4(n);
        put4(new_id(c));
        for (j = 0; j < n; j++)
            put4(new_id(rd_id()));
        break;
    default:
        item_begin(1 + 4 + 4 + 4 + 1 + n * type_size(t, I), heap);
        item_head(heap, tag, new_id(id));
        put4(0);
        put4(n);
        put1(t);
        copy(n * type_size(t, I));
    }
    item_end();
}

static void write_heap(int heap)
{
    size_t r, i;
    norder = next_class = 0;
    for (i = 0; i < ncls; i++)
        if (cls[i].heap == heap)
            order[norder++] = &cls[i];
    qsort(order, norder, sizeof *order, cmp_klass_id);
    for (r = 0; r < nheaps; r++) {
        uint64_t end = heaps[r].off + heaps[r].len;
        rd_seek(heaps[r].off);
        while (rd.pos < end) {
            uint64_t at = rd.pos;
            unsigned tag = (unsigned)rd_n(1), rs = root_size(tag);
            if (rs)
                rd.pos += rs;
            else if (tag == 0x20)
                rd.pos = at + cls[*map_slot(&cls_by_id, rd_id() + 1, 0)].dump_len;
            else
                write_object(tag, at, heap);
        }
    }
    for (; next_class < norder; next_class++)
        if (!order[next_class]->written)
            write_class(order[next_class]);
}

/* ---- command line ------------------------------------------------------------ */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: artdump [--seed N] [--zygote-frac F] [--image-frac F] IN.hprof OUT.hprof\n"
            "\n"
            "Convert a HotSpot heap dump (JAVA PROFILE 1.0.1/1.0.2, 4- or 8-byte ids; a regular,\n"
            "uncompressed file, read several times) into one shaped as Android's ART writes it:\n"
            "  - JAVA PROFILE 1.0.3, 4-byte ids (packed 64 KiB page by page from 0x12c00000);\n"
            "  - the STRING records in use, sorted by text (ids from 0x400000), LOAD_CLASS records\n"
            "    sorted by class id with ART's names (java.lang.String, int[]), one empty stack\n"
            "    trace (serial 0); stack frames and traces of IN are left out;\n"
            "  - HEAP_DUMP_SEGMENTs cut as ART cuts them (a new one once 128 items or 4096 bytes\n"
            "    are in; a big array ends its segment), then HEAP_DUMP_END;\n"
            "  - roots first, as ART writes them (thread roots with trace -1, frame depths -1,\n"
            "    JNI global refs 0, simple roots once per object), plus ROOT_INTERNED_STRING for\n"
            "    about 10%% of Strings, 4 ROOT_DEBUGGER and 3 ROOT_JNI_MONITOR roots;\n"
            "  - then the image, zygote and app heaps one after another, each segment naming its\n"
            "    heap in a HEAP_DUMP_INFO, a ROOT_VM_INTERNAL before each zygote and image object;\n"
            "  - class dumps by address among the objects of their heap, or right before their\n"
            "    first object, except 10%% of them that come after up to 256 of their objects\n"
            "    (ART writes some objects before their class); a superclass before its subclass;\n"
            "  - ART's instance size in class dumps (8-byte header included; 0 for Class and\n"
            "    arrays), signers and protection domain 0, stack trace serials 0;\n"
            "  - primitive arrays with their data (ART never writes 0xC3).\n"
            "The objects, references and primitive bytes are IN's (only the first heap dump of a\n"
            "file holding several): nothing else is invented.\n"
            "\n"
            "Heaps: objects of system classes (java., javax., sun., jdk., com.sun., primitive\n"
            "arrays) go to the image heap with odds --image-frac and to the zygote heap with odds\n"
            "--zygote-frac, drawn per 4 KiB block of IN; all others are app. Class dumps of system\n"
            "classes with objects (or subclasses with objects) and of java.lang.* are in image,\n"
            "other system classes drawn per class, all others in app.\n"
            "\n"
            "  --seed N         seed of every draw (default 1): OUT depends only on IN and N\n"
            "  --zygote-frac F  share of system objects put in the zygote heap (default 0.2)\n"
            "  --image-frac F   share of system objects put in the image heap (default 0.3)\n"
            "\n"
            "Exit status: 0 done, 1 bad input or write error (OUT is removed), 2 usage.\n");
}

static double frac_arg(const char *opt, const char *s)
{
    char *e;
    double v = strtod(s, &e);
    if (!*s || *e || !(v >= 0 && v <= 1)) {
        fprintf(stderr, "artdump: %s wants a number from 0 to 1, not '%s'\n", opt, s);
        exit(2);
    }
    return v;
}

int main(int argc, char **argv)
{
    int i, npos = 0, fd;
    const char *pos[2];
    struct stat st;

    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if ((!strcmp(a, "--seed") || !strcmp(a, "--zygote-frac") || !strcmp(a, "--image-frac")) &&
                   i + 1 < argc) {
            const char *v = argv[++i];
            if (!strcmp(a, "--seed")) {
                char *e;
                errno = 0;
                seed = strtoull(v, &e, 10);
                if (!*v || *e || errno || *v == '-') {
                    fprintf(stderr, "artdump: --seed wants a whole number, not '%s'\n", v);
                    return 2;
                }
            } else if (!strcmp(a, "--zygote-frac"))
                zygote_frac = frac_arg(a, v);
            else
                image_frac = frac_arg(a, v);
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "artdump: unknown option or missing value: %s\n", a);
            usage(stderr);
            return 2;
        } else if (npos < 2)
            pos[npos++] = a;
        else {
            usage(stderr);
            return 2;
        }
    }
    if (npos != 2) {
        usage(stderr);
        return 2;
    }
    if (zygote_frac + image_frac > 1) {
        fprintf(stderr, "artdump: --zygote-frac and --image-frac add up to more than 1\n");
        return 2;
    }
    in_path = pos[0];
    out_path = pos[1];
    fd = open(in_path, O_RDONLY);
    if (fd < 0)
        die(1, "%s: %s", in_path, strerror(errno));
    if (fstat(fd, &st) || !S_ISREG(st.st_mode))
        die(1, "%s: not a regular file (artdump reads it several times)", in_path);
    rd.fd = fd;
    rd.cap = 4u << 20;
    rd.buf = xrealloc(NULL, rd.cap);
    rd.size = (uint64_t)st.st_size;
    if (rd.size < 31)
        die(1, "%s: too short for an HPROF header", in_path);
    {
        uint8_t gz[2];
        if (pread(fd, gz, 2, 0) == 2 && gz[0] == 0x1f && gz[1] == 0x8b)
            die(1, "%s: compressed; give artdump the uncompressed dump", in_path);
    }

    pass1();
    prepare();
    name_strings();
    {
        size_t k;
        for (k = 0; k < ncls; k++)
            if (cls[k].name != UINT32_MAX) {
                size_t n, pn;
                char *s = string_text(cls[k].name, &n);
                char *p = pretty(s, n, &pn);
                if (!strcmp(p, "java.lang.String"))
                    string_class = &cls[k];
                free(s);
                free(p);
            }
    }

    {
        struct stat os;
        if (stat(out_path, &os) == 0 && os.st_dev == st.st_dev && os.st_ino == st.st_ino) {
            fprintf(stderr, "artdump: %s is the input\n", out_path);
            return 2;
        }
    }
    out = fopen(out_path, "wb");
    if (!out) {
        fprintf(stderr, "artdump: %s: %s\n", out_path, strerror(errno));
        return 1;
    }
    {
        struct stat os;
        out_regular = fstat(fileno(out), &os) == 0 && S_ISREG(os.st_mode);
    }
    setvbuf(out, NULL, _IOFBF, 1u << 20);
    write_front();
    order = xrealloc(NULL, (ncls + 1) * sizeof *order);
    write_roots();
    write_heap(H_IMAGE);
    write_heap(H_ZYGOTE);
    write_heap(H_APP);
    seg_close();
    record_header(0x2c, 0);
    if (fflush(out) || ferror(out) || fclose(out)) {
        out = NULL;
        if (out_regular)
            unlink(out_path);
        fprintf(stderr, "artdump: %s: write error: %s\n", out_path, strerror(errno));
        return 1;
    }
    fprintf(stderr,
            "artdump: %s -> %s: %" PRIu64 " bytes; %zu strings, %zu classes (image %" PRIu64 ", zygote %" PRIu64
            ", app %" PRIu64 "), %" PRIu64 " roots; objects: image %" PRIu64 ", zygote %" PRIu64 ", app %" PRIu64
            "; %" PRIu64 " segments, %" PRIu64 " HEAP_DUMP_INFO\n",
            in_path, out_path, out_bytes, ntexts, ncls, count_cls[2], count_cls[1], count_cls[0], nroots,
            count_heap[2], count_heap[1], count_heap[0], seg.segments, seg.infos);
    if (later_heaps)
        fprintf(stderr, "artdump: %s holds more than one heap dump: only the first is converted (%" PRIu64
                " later heap records left out)\n", in_path, later_heaps);
    return 0;
}
