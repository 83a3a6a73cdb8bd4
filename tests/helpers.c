/* SPDX-License-Identifier: Apache-2.0 */
/*
 * helpers.c - see helpers.h.
 */
#define _POSIX_C_SOURCE 200809L
#include "helpers.h"
#include "fastpath.h"

#include <criterion/criterion.h>
#include <criterion/hooks.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>
#include <zlib.h>

/* ---- memory source and sink -------------------------------------------- */

long mem_read(void *ctx, void *buf, size_t cap)
{
    mem_src *s = ctx;
    size_t n = s->len - s->pos;

    if (s->chunk && n > s->chunk)
        n = s->chunk;
    if (n > cap)
        n = cap;
    if (s->fail_at >= 0 && s->pos + n >= (size_t)s->fail_at && s->pos < s->len)
        return -1;
    memcpy(buf, s->data + s->pos, n);
    s->pos += n;
    return (long)n;
}

long mem_borrow(void *ctx, const void **block)
{
    mem_src *s = ctx;
    size_t n = s->len - s->pos;

    free(s->lent);
    s->lent = NULL;
    if (s->chunk && n > s->chunk)
        n = s->chunk;
    if (s->fail_at >= 0 && s->pos + n >= (size_t)s->fail_at && s->pos < s->len)
        return -1;
    if (n == 0)
        return 0;
    if (!(s->lent = malloc(n)))
        abort();
    memcpy(s->lent, s->data + s->pos, n);
    s->pos += n;
    *block = s->lent;
    return (long)n;
}

void mem_src_free(mem_src *s)
{
    free(s->lent);
    s->lent = NULL;
}

int mem_write(void *ctx, const void *buf, size_t len)
{
    mem_sink *s = ctx;

    if (s->fail_after && s->len + len > s->fail_after)
        return -1;
    if (s->len + len > s->cap) {
        size_t cap = s->cap ? s->cap : 4096;
        while (cap < s->len + len)
            cap *= 2;
        s->data = realloc(s->data, cap);
        if (!s->data)
            abort();
        s->cap = cap;
    }
    memcpy(s->data + s->len, buf, len);
    s->len += len;
    return 0;
}

run_result run_with_rules(const uint8_t *in, size_t len, const hs_rules *rules,
                          const hs_options *opt, size_t chunk)
{
    return run_capped(in, len, rules, opt, chunk, 0);
}

/* The histogram's rows of `f` as text, one line each (malloc'd), or NULL. */
static char *rows_text(const hs_filter *f)
{
    const hs_class_count *rows;
    size_t n = hs_filter_histogram(f, &rows), k, len = 0;
    char *t;

    if (!n)
        return NULL;
    t = malloc(n * 400 + 1);
    if (!t)
        abort();
    t[0] = 0;
    for (k = 0; k < n; k++)
        len += (size_t)snprintf(t + len, 400, "%.300s %u %llu %llu %llu %llu\n", rows[k].name,
                                (unsigned)rows[k].heap, (unsigned long long)rows[k].instances_in,
                                (unsigned long long)rows[k].bytes_in,
                                (unsigned long long)rows[k].instances_out,
                                (unsigned long long)rows[k].bytes_out);
    return t;
}

static run_result run_any(const uint8_t *in, size_t len, const hs_rules *rules,
                          const hs_options *opt, size_t chunk, size_t out_cap, int fast,
                          char **rows);

run_result run_capped(const uint8_t *in, size_t len, const hs_rules *rules,
                      const hs_options *opt, size_t chunk, size_t out_cap)
{
    return run_any(in, len, rules, opt, chunk, out_cap, 1, NULL);
}

run_result run_paths(const uint8_t *in, size_t len, const hs_rules *rules,
                     const hs_options *opt, size_t chunk, int fast, char **rows)
{
    return run_any(in, len, rules, opt, chunk, 0, fast, rows);
}

static run_result run_any(const uint8_t *in, size_t len, const hs_rules *rules,
                          const hs_options *opt, size_t chunk, size_t out_cap, int fast,
                          char **rows)
{
    run_result r;
    mem_src src = {in, len, 0, chunk & ~CHUNK_LENT, -1, NULL};
    mem_sink sink = {NULL, 0, 0, out_cap};
    hs_source s = {.read = mem_read, .ctx = &src};
    hs_sink k = {mem_write, &sink};
    hs_filter *f = hs_filter_create(rules, opt, NULL);

    memset(&r, 0, sizeof r);
    if (!f)
        abort();
    if (chunk == CHUNK_MAPPED) {
        /* any non-NULL pointer will do for an empty input */
        s.data = len ? in : (const void *)"";
        s.size = len;
        s.read = NULL;
    } else if (chunk & CHUNK_LENT) {
        s.borrow = mem_borrow;
        s.read = NULL;
    }
    hs_fast_path(f, fast);
    r.status = hs_filter_run(f, &s, &k);
    mem_src_free(&src);
    if (r.status != HS_OK)
        r.err = *hs_filter_error(f);
    hs_filter_stats_ex(f, &r.st, sizeof r.st);
    if (rows)
        *rows = rows_text(f);
    hs_filter_free(f);
    r.out = sink.data;
    r.out_len = sink.len;
    return r;
}

run_result run_filter(const uint8_t *in, size_t len, const char *preset, const hs_options *opt,
                      size_t chunk)
{
    return run_preset_capped(in, len, preset, opt, chunk, 0);
}

run_result run_preset_capped(const uint8_t *in, size_t len, const char *preset,
                             const hs_options *opt, size_t chunk, size_t out_cap)
{
    run_result r;
    hs_rules *rules = hs_rules_create(NULL);

    memset(&r, 0, sizeof r);
    if (!rules || hs_rules_preset(rules, preset, &r.err) != HS_OK) {
        r.status = HS_E_USAGE;
        hs_rules_free(rules);
        return r;
    }
    r = run_capped(in, len, rules, opt, chunk, out_cap);
    hs_rules_free(rules);
    return r;
}

void run_result_free(run_result *r)
{
    free(r->out);
    r->out = NULL;
}

/* ---- files ------------------------------------------------------------- */

uint8_t *load_file(const char *path, size_t *len)
{
    size_t n = strlen(path), cap = 1 << 20, got = 0;
    int gz = n > 3 && strcmp(path + n - 3, ".gz") == 0;
    FILE *fp;
    uint8_t *buf;

    if (gz) {
        char cmd[4200];
        FILE *probe = fopen(path, "rb");
        if (!probe)
            return NULL;
        fclose(probe);
        snprintf(cmd, sizeof cmd, "gzip -dc '%s'", path);
        fp = popen(cmd, "r");
    } else {
        fp = fopen(path, "rb");
    }
    if (!fp)
        return NULL;
    buf = malloc(cap);
    for (;;) {
        size_t k;
        if (got == cap) {
            cap *= 2;
            buf = realloc(buf, cap);
        }
        k = fread(buf + got, 1, cap - got, fp);
        if (k == 0)
            break;
        got += k;
    }
    if (gz)
        pclose(fp);
    else
        fclose(fp);
    *len = got;
    return buf;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void add_dir(char **list, size_t *n, size_t max, const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    size_t first = *n;

    if (!d)
        return;
    while ((e = readdir(d)) && *n < max) {
        size_t len = strlen(e->d_name);
        int hprof = len > 6 && strcmp(e->d_name + len - 6, ".hprof") == 0;
        int gz = len > 9 && strcmp(e->d_name + len - 9, ".hprof.gz") == 0;
        if ((!hprof && !gz) || strncmp(e->d_name, "bad-", 4) == 0)
            continue;
        list[*n] = malloc(strlen(dir) + len + 2);
        sprintf(list[*n], "%s/%s", dir, e->d_name);
        (*n)++;
    }
    closedir(d);
    qsort(list + first, *n - first, sizeof *list, by_name);
}

/* Criterion runs every test in a process of its own: the runner makes a
 * directory where need_shared marks each WHAT it has said, so the skip line
 * is printed once per run, and removes it at the end. */
static char said_dir[64];

ReportHook(PRE_ALL)(struct criterion_test_set *set)
{
    (void)set;
    strcpy(said_dir, "/tmp/hs-skipped.XXXXXX");
    if (mkdtemp(said_dir))
        setenv("HS_SKIPPED_DIR", said_dir, 1);
    else
        said_dir[0] = 0;
}

ReportHook(POST_ALL)(struct criterion_global_stats *stats)
{
    DIR *d;
    struct dirent *e;
    char path[sizeof said_dir + 300];

    (void)stats;
    if (!said_dir[0] || !(d = opendir(said_dir)))
        return;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.') {
            snprintf(path, sizeof path, "%s/%s", said_dir, e->d_name);
            unlink(path);
        }
    closedir(d);
    rmdir(said_dir);
}

int need_shared(const char *path, const char *what)
{
    const char *ci = getenv("CI"), *dir = getenv("HS_SKIPPED_DIR");
    int first = 1;

    if (access(path, F_OK) == 0)
        return 1;
    if (ci && strcmp(ci, "true") == 0)
        cr_assert_fail("%s needs %s, which CI must have", what, path);
    if (dir) {
        char mark[128];
        int fd;
        snprintf(mark, sizeof mark, "%s/%016llx", dir, (unsigned long long)XXH64(what, strlen(what), 0));
        fd = open(mark, O_WRONLY | O_CREAT | O_EXCL, 0600);
        first = fd >= 0;
        if (fd >= 0)
            close(fd);
    }
    if (first)
        fprintf(stderr, "skipped: %s (needs %s)\n", what, path);
    return 0;
}

/* HS_TEST_DUMPS=K: each test sweeps K of the dumps rather than all, picked
 * by hashing the test's name with HS_TEST_SEED (so tests sweep different
 * ones and, together, the whole list), and says which. The sanitizer and
 * clang runs of the suites use it (the Makefile: test-asan, test-clang),
 * where a sweep of every dump in every test costs more than CI's budget;
 * make test sweeps every dump. */
static size_t sample_dumps(const char *const *all, size_t n, const char **out)
{
    const char *e = getenv("HS_TEST_DUMPS"), *seed = getenv("HS_TEST_SEED");
    const struct criterion_test *t = criterion_current_test;
    size_t k = e && *e ? (size_t)strtoull(e, NULL, 10) : 0, i, kept = 0;
    uint64_t h = seed && *seed ? strtoull(seed, NULL, 0) : 0;
    char said[1024];

    if (k == 0 || k >= n) {
        memcpy(out, all, n * sizeof *out);
        return n;
    }
    if (t) {
        h ^= XXH64(t->category, strlen(t->category), 0);
        h ^= XXH64(t->name, strlen(t->name), 1);
    }
    /* K consecutive dumps of the list from a start the hash picks, so each
     * dump is in as many tests' samples as any other */
    said[0] = '\0';
    for (i = 0; i < k; i++) {
        out[kept++] = all[(h + i) % n];
        if (strlen(said) + strlen(out[i]) + 3 < sizeof said)
            strcat(strcat(said, i ? ", " : ""), out[i]);
    }
    cr_log_info("HS_TEST_DUMPS=%zu: %zu of %zu dumps: %s", k, kept, n, said);
    return kept;
}

const char *const *dump_paths(void)
{
    static char *list[128];
    static int done;
    size_t n = 0;

    if (!done) {
        if (need_shared("../shared/corpus", "the shared corpus's dumps in every sweep of real dumps"))
            add_dir(list, &n, 120, "../shared/corpus");
        add_dir(list, &n, 120, "fixtures");
        add_dir(list, &n, 120, "build/fresh"); /* made by make check */
        done = 1;
    }
    return (const char *const *)list;
}

const char *const *dump_paths_sampled(void)
{
    static const char *list[128];
    static int done;

    if (!done) {
        const char *const *all = dump_paths();
        size_t n = 0;
        while (all[n])
            n++;
        n = sample_dumps(all, n, list);
        list[n] = NULL;
        done = 1;
    }
    return list;
}

long mapping_resident_kib(const void *addr)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    char line[512];
    int here = 0, found = 0;
    long kib = -1;

    if (!f)
        return -1;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        /* a mapping's first line: "lo-hi perms ..."; the others "Name: value" */
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
            here = (uintptr_t)addr >= lo && (uintptr_t)addr < hi;
            found |= here;
        } else if (here && sscanf(line, "Rss: %ld kB", &kib) == 1) {
            break;
        }
    }
    fclose(f);
    return found ? kib : -1;
}

/* ---- dumpgen ----------------------------------------------------------- */

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

/* ---- walk -------------------------------------------------------------- */

/* A small growable hash set of ids, for the string checks. */
typedef struct {
    uint64_t *k;
    uint8_t *used;
    size_t cap, n;
} idset;

static size_t idset_slot(uint64_t id, size_t cap)
{
    return (size_t)((id * 0x9E3779B97F4A7C15ull) >> 20) & (cap - 1);
}

static int idset_has(const idset *s, uint64_t id)
{
    size_t i;
    if (!s->cap)
        return 0;
    for (i = idset_slot(id, s->cap); s->used[i]; i = (i + 1) & (s->cap - 1))
        if (s->k[i] == id)
            return 1;
    return 0;
}

static void idset_add(idset *s, uint64_t id)
{
    size_t i;
    if (idset_has(s, id))
        return;
    if ((s->n + 1) * 2 > s->cap) {
        idset old = *s;
        size_t j;
        s->cap = s->cap ? s->cap * 2 : 1024;
        s->k = calloc(s->cap, sizeof *s->k);
        s->used = calloc(s->cap, 1);
        s->n = 0;
        for (j = 0; j < old.cap; j++)
            if (old.used[j])
                idset_add(s, old.k[j]);
        free(old.k);
        free(old.used);
    }
    for (i = idset_slot(id, s->cap); s->used[i]; i = (i + 1) & (s->cap - 1))
        ;
    s->used[i] = 1;
    s->k[i] = id;
    s->n++;
}

static void idset_free(idset *s)
{
    free(s->k);
    free(s->used);
}

typedef struct {
    uint64_t *v;
    size_t n, cap;
} idvec;

static void idvec_push(idvec *v, uint64_t id)
{
    if (v->n == v->cap) {
        v->cap = v->cap ? v->cap * 2 : 1024;
        v->v = realloc(v->v, v->cap * sizeof *v->v);
    }
    v->v[v->n++] = id;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int ids_contain(const uint64_t *ids, size_t n, uint64_t id)
{
    return n && bsearch(&id, ids, n, sizeof id, cmp_u64) != NULL;
}

typedef struct {
    const uint8_t *p;
    size_t n, at;
    unsigned id;
    walk_result *w;
    XXH3_state_t *h, *happ;
    unsigned flags;
    idset defined, used, string_ids;
    idvec dropped, roots, ends;
} walker;

static void use_string(walker *k, uint64_t id)
{
    if (id && !idset_has(&k->defined, id))
        k->w->string_refs_undefined++;
    idset_add(&k->used, id);
}

static uint64_t rd(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    while (n--)
        v = v << 8 | *p++;
    return v;
}

static int fail(walker *k, const char *what)
{
    snprintf(k->w->error, sizeof k->w->error, "byte %zu: %s", k->at, what);
    return -1;
}

static unsigned tsize(unsigned t, unsigned id)
{
    switch (t) {
    case 1: case 2: return id;
    case 4: case 8: return 1;
    case 5: case 9: return 2;
    case 6: case 10: return 4;
    case 7: case 11: return 8;
    default: return 0;
    }
}

/* Size of the sub-record at p (tag included), or 0 when it is invalid. */
static uint64_t sub_size(const uint8_t *p, size_t avail, unsigned id)
{
    uint64_t k, n, j;
    unsigned w;

#define NEED(x) do { if ((uint64_t)(x) > avail) return 0; } while (0)
    NEED(1);
    switch (p[0]) {
    case 0xFF: case 0x05: case 0x07: case 0x89: case 0x8A: case 0x8B: case 0x8C:
    case 0x8D: case 0x90: return 1 + id;
    case 0x01: return 1 + 2 * id;
    case 0x04: case 0x06: return 1 + id + 4;
    case 0x02: case 0x03: case 0x08: case 0x8E: return 1 + id + 8;
    case 0xFE: return 1 + 4 + id;
    case 0xC3: return 1 + id + 9;
    case 0x21:
        NEED(1 + 2 * id + 8);
        return 1 + 2 * id + 8 + rd(p + 1 + 2 * id + 4, 4);
    case 0x22:
        NEED(1 + 2 * id + 8);
        return 1 + 2 * id + 8 + rd(p + 1 + id + 4, 4) * id;
    case 0x23:
        NEED(1 + id + 9);
        w = tsize(p[1 + id + 8], id);
        if (!w || p[1 + id + 8] < 4)
            return 0;
        return 1 + id + 9 + rd(p + 1 + id + 4, 4) * w;
    case 0x20:
        k = 1 + 7 * id + 8;
        NEED(k + 2);
        n = rd(p + k, 2);
        k += 2;
        for (j = 0; j < n; j++) {
            NEED(k + 3);
            if (!(w = tsize(p[k + 2], id)))
                return 0;
            k += 3 + w;
        }
        NEED(k + 2);
        n = rd(p + k, 2);
        k += 2;
        for (j = 0; j < n; j++) {
            NEED(k + id + 1);
            if (!(w = tsize(p[k + id], id)))
                return 0;
            k += id + 1 + w;
        }
        NEED(k + 2);
        n = rd(p + k, 2);
        k += 2;
        for (j = 0; j < n; j++) {
            NEED(k + id + 1);
            if (!tsize(p[k + id], id))
                return 0;
            k += id + 1;
        }
        return k;
    default: return 0;
    }
#undef NEED
}

static void hash_zeros(XXH3_state_t *h, uint64_t n)
{
    static const uint8_t zeros[4096];
    while (n) {
        size_t k = n < sizeof zeros ? (size_t)n : sizeof zeros;
        XXH3_64bits_update(h, zeros, k);
        n -= k;
    }
}

static int walk_heap(walker *k, size_t end)
{
    walk_result *w = k->w;
    uint32_t heap = 0;
    uint64_t subs = 0;
    size_t start = k->at;

    while (k->at < end) {
        const uint8_t *p = k->p + k->at;
        uint64_t sz = sub_size(p, end - k->at, k->id);
        unsigned tag = p[0];
        uint8_t hb[4];

        if (!sz)
            return fail(k, "bad or overlong sub-record");
        if (sz > end - k->at)
            return fail(k, "sub-record runs past its heap record");
        w->subrecords++;
        if (tag == 0xFE) {
            w->heap_infos++;
            heap = (uint32_t)rd(p + 1, 4);
            use_string(k, rd(p + 5, k->id));
            k->at += (size_t)sz;
            continue;
        }
        if ((k->flags & WALK_COLLECT) && (tag == 0x20 || tag == 0x21 || tag == 0x22 ||
                                          tag == 0x23 || tag == 0xC3))
            idvec_push(&k->ends, k->at + sz);
        if (tag == 0x21 || tag == 0x22 || tag == 0x23 || tag == 0xC3) {
            int slot = heap == 0 ? 0 : heap == 'A' ? 1 : heap == 'Z' ? 2 : heap == 'I' ? 3 : 4;
            w->objects_in_heap[slot]++;
            if ((slot == 2 || slot == 3) && (k->flags & WALK_COLLECT))
                idvec_push(&k->dropped, rd(p + 1, k->id));
            if (slot == 1) {
                size_t hdr = tag == 0x23 ? 1 + k->id + 9 : (size_t)sz;
                XXH3_64bits_update(k->happ, p, hdr);
                if (tag == 0x23 && (k->flags & WALK_ZERO_PAYLOADS))
                    hash_zeros(k->happ, sz - hdr);
                else
                    XXH3_64bits_update(k->happ, p + hdr, (size_t)sz - hdr);
            }
        } else if (tag == 0x20) {
            /* field names: walk the class dump's tables */
            uint64_t q = 1 + 7 * k->id + 8, j, cnt;
            cnt = rd(p + q, 2);
            q += 2;
            for (j = 0; j < cnt; j++)
                q += 3 + tsize(p[q + 2], k->id);
            cnt = rd(p + q, 2);
            q += 2;
            for (j = 0; j < cnt; j++) {
                use_string(k, rd(p + q, k->id));
                q += k->id + 1 + tsize(p[q + k->id], k->id);
            }
            cnt = rd(p + q, 2);
            q += 2;
            for (j = 0; j < cnt; j++) {
                use_string(k, rd(p + q, k->id));
                q += k->id + 1;
            }
        } else if ((k->flags & WALK_COLLECT)) {
            idvec_push(&k->roots, rd(p + 1, k->id));
        }
        subs++;
        hb[0] = (uint8_t)(heap >> 24), hb[1] = (uint8_t)(heap >> 16);
        hb[2] = (uint8_t)(heap >> 8), hb[3] = (uint8_t)heap;
        XXH3_64bits_update(k->h, hb, 4);
        if (tag == 0x23) {
            size_t hdr = 1 + k->id + 9;
            size_t j;
            w->primitive_arrays++;
            w->payload_bytes += sz - hdr;
            for (j = hdr; j < sz; j++)
                w->nonzero_payload_bytes += p[j] != 0;
            if (k->flags & WALK_ZERO_PAYLOADS) {
                XXH3_64bits_update(k->h, p, hdr);
                hash_zeros(k->h, sz - hdr);
            } else {
                XXH3_64bits_update(k->h, p, (size_t)sz);
            }
        } else {
            XXH3_64bits_update(k->h, p, (size_t)sz);
            if (tag == 0x21)
                w->instances++;
            else if (tag == 0x22)
                w->object_arrays++;
            else if (tag == 0x20)
                w->class_dumps++;
            else if (tag == 0xC3)
                w->primitive_arrays++;
            else
                w->roots++;
        }
        k->at += (size_t)sz;
    }
    if (end - start > w->max_segment)
        w->max_segment = end - start;
    if (subs > 1 && end - start > w->max_multi_segment)
        w->max_multi_segment = end - start;
    if (subs == 0)
        w->empty_heap_records++;
    return 0;
}

walk_result walk_dump(const uint8_t *p, size_t n, unsigned flags)
{
    walk_result w;
    walker k;
    const uint8_t *nul;
    unsigned last_tag = 0;

    memset(&w, 0, sizeof w);
    memset(&k, 0, sizeof k);
    k.p = p;
    k.n = n;
    k.w = &w;
    k.flags = flags;
    nul = memchr(p, 0, n < 24 ? n : 24);
    if (!nul || (size_t)(nul - p) + 13 > n) {
        snprintf(w.error, sizeof w.error, "bad header");
        return w;
    }
    memcpy(w.version, p, (size_t)(nul - p));
    k.at = (size_t)(nul - p) + 1;
    k.id = w.idsize = (unsigned)rd(p + k.at, 4);
    k.at += 12;
    k.h = XXH3_createState();
    XXH3_64bits_reset(k.h);
    k.happ = XXH3_createState();
    XXH3_64bits_reset(k.happ);
    XXH3_64bits_update(k.h, p + k.at - 12, 4);
    while (k.at < n) {
        unsigned tag;
        uint64_t len;
        if (n - k.at < 9) {
            fail(&k, "truncated record header");
            goto out;
        }
        tag = p[k.at];
        len = rd(p + k.at + 5, 4);
        if (len > n - k.at - 9) {
            fail(&k, "record runs past the end");
            goto out;
        }
        w.records++;
        last_tag = tag;
        if (tag == 0x0C || tag == 0x1C) {
            size_t end = k.at + 9 + (size_t)len;
            w.heap_records++;
            k.at += 9;
            if (walk_heap(&k, end) != 0)
                goto out;
            continue;
        }
        if (tag == 0x2C) {
            w.heap_dump_ends++;
        } else if (tag == 0x01) {
            w.strings++;
            idset_add(&k.defined, rd(p + k.at + 9, k.id));
            idset_add(&k.string_ids, rd(p + k.at + 9, k.id));
            if (!(flags & WALK_NO_STRINGS))
                XXH3_64bits_update(k.h, p + k.at, 1), XXH3_64bits_update(k.h, p + k.at + 9, (size_t)len);
        } else {
            const uint8_t *b = p + k.at + 9;
            XXH3_64bits_update(k.h, p + k.at, 1);
            XXH3_64bits_update(k.h, b, (size_t)len);
            if (tag == 0x02 && len >= 8 + 2 * k.id)
                use_string(&k, rd(b + 4 + k.id + 4, k.id));
            if (tag == 0x04 && len >= 8 + 4 * k.id)
                use_string(&k, rd(b + k.id, k.id)), use_string(&k, rd(b + 2 * k.id, k.id)),
                    use_string(&k, rd(b + 3 * k.id, k.id));
            if (tag == 0x0A && len >= 8 + 4 * k.id)
                use_string(&k, rd(b + 8 + k.id, k.id)),
                    use_string(&k, rd(b + 8 + 2 * k.id, k.id)),
                    use_string(&k, rd(b + 8 + 3 * k.id, k.id));
        }
        k.at += 9 + (size_t)len;
    }
    w.ok = 1;
    w.ends_with_heap_dump_end = last_tag == 0x2C;
out:
    {
        size_t j;
        for (j = 0; j < k.string_ids.cap; j++)
            if (k.string_ids.used[j] && !idset_has(&k.used, k.string_ids.k[j]))
                w.strings_unused++;
    }
    w.digest = XXH3_64bits_digest(k.h);
    w.digest_app = XXH3_64bits_digest(k.happ);
    XXH3_freeState(k.h);
    XXH3_freeState(k.happ);
    idset_free(&k.defined);
    idset_free(&k.used);
    idset_free(&k.string_ids);
    if (k.dropped.n)
        qsort(k.dropped.v, k.dropped.n, sizeof(uint64_t), cmp_u64);
    w.dropped_heap_ids = k.dropped.v;
    w.n_dropped_heap_ids = k.dropped.n;
    w.root_ids = k.roots.v;
    w.n_root_ids = k.roots.n;
    w.object_ends = k.ends.v;
    w.n_object_ends = k.ends.n;
    return w;
}

void walk_free(walk_result *w)
{
    free(w->dropped_heap_ids);
    free(w->root_ids);
    free(w->object_ends);
    w->dropped_heap_ids = w->root_ids = w->object_ends = NULL;
}

/* ---- fields: an independent decoder of instance and static fields -------- */

typedef struct {
    uint64_t *k, *v;
    size_t cap, n;
} u64map;

static uint64_t *u64map_get(const u64map *m, uint64_t key)
{
    size_t i;
    if (!m->cap)
        return NULL;
    for (i = idset_slot(key, m->cap); m->k[i] != UINT64_MAX; i = (i + 1) & (m->cap - 1))
        if (m->k[i] == key)
            return &m->v[i];
    return NULL;
}

static void u64map_put(u64map *m, uint64_t key, uint64_t val)
{
    size_t i;
    uint64_t *v = u64map_get(m, key);

    if (v) {
        *v = val;
        return;
    }
    if ((m->n + 1) * 2 > m->cap) {
        u64map old = *m;
        size_t j;
        m->cap = m->cap ? m->cap * 2 : 1024;
        m->k = malloc(m->cap * sizeof *m->k);
        m->v = malloc(m->cap * sizeof *m->v);
        memset(m->k, 0xff, m->cap * sizeof *m->k);
        m->n = 0;
        for (j = 0; j < old.cap; j++)
            if (old.k[j] != UINT64_MAX)
                u64map_put(m, old.k[j], old.v[j]);
        free(old.k);
        free(old.v);
    }
    for (i = idset_slot(key, m->cap); m->k[i] != UINT64_MAX; i = (i + 1) & (m->cap - 1))
        ;
    m->k[i] = key;
    m->v[i] = val;
    m->n++;
}

static void u64map_free(u64map *m)
{
    free(m->k);
    free(m->v);
}

typedef struct {
    const uint8_t *p;
    unsigned id;
    u64map strings; /* id -> offset of the STRING record body */
    u64map names;   /* class id -> name string id */
    u64map classes; /* class id -> offset of its CLASS_DUMP */
} fdec;

/* Does string `sid` read as `want` (class names: '/' and '.' alike)? */
static int str_is(const fdec *d, uint64_t sid, const char *want)
{
    const uint64_t *off = u64map_get(&d->strings, sid);
    size_t n, i;
    const uint8_t *t;

    if (!off)
        return 0;
    n = (size_t)rd(d->p + *off - 4, 4) - d->id;
    t = d->p + *off + d->id;
    if (n != strlen(want))
        return 0;
    for (i = 0; i < n; i++)
        if (!(t[i] == (uint8_t)want[i] || (t[i] == '/' && want[i] == '.')))
            return 0;
    return 1;
}

/* The privacy preset's keep list, as tests/../src/lib/rulefile.c documents it. */
static int kept_field(const fdec *d, uint64_t class_id, uint64_t name_id)
{
    const uint64_t *cn = u64map_get(&d->names, class_id);
    if (!cn)
        return 0;
    if (str_is(d, *cn, "java.lang.String"))
        return str_is(d, name_id, "coder");
    if (str_is(d, *cn, "java.lang.Class$Atomic"))
        return str_is(d, name_id, "annotationDataOffset") ||
               str_is(d, name_id, "annotationTypeOffset");
    if (str_is(d, *cn, "java.util.concurrent.FutureTask"))
        return str_is(d, name_id, "runnerOffset") || str_is(d, name_id, "waitersOffset");
    return 0;
}

static uint64_t mix(uint64_t a, uint64_t b, uint64_t c)
{
    uint64_t t[3] = {a, b, c};
    return XXH3_64bits(t, sizeof t);
}

/* Offset of the instance-field table of the class dump at `cd`. */
static size_t inst_table(const fdec *d, size_t cd)
{
    const uint8_t *p = d->p;
    size_t k = cd + 1 + 7 * (size_t)d->id + 8, j, cnt;

    cnt = (size_t)rd(p + k, 2);
    k += 2;
    for (j = 0; j < cnt; j++)
        k += 3 + tsize(p[k + 2], d->id);
    cnt = (size_t)rd(p + k, 2);
    k += 2;
    for (j = 0; j < cnt; j++)
        k += d->id + 1 + tsize(p[k + d->id], d->id);
    return k;
}

static void field_sub(fdec *d, size_t at, fields_result *r)
{
    const uint8_t *p = d->p;
    unsigned id = d->id;

    if (p[at] == 0x20) { /* statics and constants */
        uint64_t cls = rd(p + at + 1, id);
        size_t k = at + 1 + 7 * (size_t)id + 8, j, cnt, b;
        cnt = (size_t)rd(p + k, 2);
        k += 2;
        for (j = 0; j < cnt; j++) {
            unsigned t = p[k + 2], w = tsize(t, id);
            for (b = 0; b < w && t != 2; b++)
                r->nonzero_static_bytes += p[k + 3 + b] != 0;
            k += 3 + w;
        }
        cnt = (size_t)rd(p + k, 2);
        k += 2;
        for (j = 0; j < cnt; j++) {
            uint64_t name = rd(p + k, id);
            unsigned t = p[k + id], w = tsize(t, id);
            if (t == 2)
                r->refs ^= mix(cls, j, rd(p + k + id + 1, id));
            else if (!kept_field(d, cls, name))
                for (b = 0; b < w; b++)
                    r->nonzero_static_bytes += p[k + id + 1 + b] != 0;
            k += id + 1 + w;
        }
    } else if (p[at] == 0x21) {
        uint64_t obj = rd(p + at + 1, id), cls = rd(p + at + 1 + id + 4, id);
        size_t len = (size_t)rd(p + at + 1 + 2 * id + 4, 4), v = at + 1 + 2 * (size_t)id + 8;
        size_t end = v + len, index = 0;
        uint64_t c = cls;
        while (c) { /* own class first, then each superclass */
            const uint64_t *cd = u64map_get(&d->classes, c);
            size_t k, j, cnt, b;
            if (!cd) {
                r->instances_missing_class++;
                return;
            }
            k = inst_table(d, (size_t)*cd);
            cnt = (size_t)rd(p + k, 2);
            k += 2;
            for (j = 0; j < cnt; j++, index++) {
                uint64_t name = rd(p + k, id);
                unsigned t = p[k + id], w = tsize(t, id);
                if (v + w > end) {
                    r->layout_mismatches++;
                    return;
                }
                if (t == 2)
                    r->refs ^= mix(obj, index, rd(p + v, id));
                else if (!kept_field(d, c, name))
                    for (b = 0; b < w; b++)
                        r->nonzero_field_bytes += p[v + b] != 0;
                v += w;
                k += id + 1;
            }
            c = rd(p + (size_t)*cd + 1 + id + 4, id); /* super */
        }
        if (v != end)
            r->layout_mismatches++;
        r->instances++;
    }
}

fields_result check_fields(const uint8_t *p, size_t n)
{
    fields_result r;
    fdec d;
    size_t at, pass;
    const uint8_t *nul = memchr(p, 0, n < 24 ? n : 24);

    memset(&r, 0, sizeof r);
    memset(&d, 0, sizeof d);
    d.p = p;
    d.id = (unsigned)rd(nul + 1, 4);
    for (pass = 0; pass < 2; pass++) {
        for (at = (size_t)(nul - p) + 13; at + 9 <= n;) {
            unsigned tag = p[at];
            size_t len = (size_t)rd(p + at + 5, 4), b = at + 9, e = b + len;
            if (pass == 0 && tag == 0x01)
                u64map_put(&d.strings, rd(p + b, d.id), b);
            if (pass == 0 && tag == 0x02)
                u64map_put(&d.names, rd(p + b + 4, d.id), rd(p + b + 4 + d.id + 4, d.id));
            if (tag == 0x0C || tag == 0x1C)
                while (b < e) {
                    uint64_t sz = sub_size(p + b, e - b, d.id);
                    if (!sz)
                        break;
                    if (pass == 0 && p[b] == 0x20)
                        u64map_put(&d.classes, rd(p + b + 1, d.id), b);
                    if (pass == 1)
                        field_sub(&d, b, &r);
                    b += (size_t)sz;
                }
            at = e;
        }
    }
    u64map_free(&d.strings);
    u64map_free(&d.names);
    u64map_free(&d.classes);
    return r;
}

/* sub_size for the tests' other decoders (tests/cutscan.c), so there is one
 * table of sub-record sizes. */
uint64_t walk_sub_size(const uint8_t *p, size_t avail, unsigned idsize)
{
    return sub_size(p, avail, idsize);
}

uint8_t *gzip_bytes(const uint8_t *p, size_t n, size_t *out_len)
{
    z_stream z;
    size_t cap = n + n / 100 + 1024;
    uint8_t *out = malloc(cap);

    memset(&z, 0, sizeof z);
    cr_assert(out && deflateInit2(&z, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) == Z_OK);
    z.next_in = (uint8_t *)(uintptr_t)p;
    z.avail_in = (uInt)n;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    cr_assert_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
    *out_len = z.total_out;
    deflateEnd(&z);
    return out;
}
