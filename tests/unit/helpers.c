/* SPDX-License-Identifier: Apache-2.0 */
/*
 * helpers.c - see helpers.h: memory sources and sinks, running a filter
 * over a buffer, loading files and listing the real dumps. The dumps built
 * by hand are in dumpgen.c, the independent reader in walk.c.
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
#include <sys/stat.h>
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

size_t dump_size_upto(const char *path, size_t cap)
{
    size_t n = strlen(path), total = 0, k;
    struct stat st;
    char cmd[4200], buf[65536];
    FILE *fp;

    if (!(n > 3 && strcmp(path + n - 3, ".gz") == 0))
        return stat(path, &st) == 0 ? (size_t)st.st_size : 0;
    /* inflated, not the trailer's ISIZE: a jcmd -gz dump is many members,
     * and the last one's size says nothing of the whole */
    snprintf(cmd, sizeof cmd, "gzip -dc '%s' 2>/dev/null", path);
    if (!(fp = popen(cmd, "r")))
        return 0;
    while (total <= cap && (k = fread(buf, 1, sizeof buf, fp)) > 0)
        total += k;
    pclose(fp);
    return total;
}

static int dump_fits(const char *path, size_t max_bytes)
{
    size_t len = dump_size_upto(path, max_bytes);

    return len > 0 && len <= max_bytes;
}

const char *const *dump_paths_sampled_upto(size_t max_bytes)
{
    static const char *one[2];
    const char *const *sampled = dump_paths_sampled(), *const *q;

    for (q = sampled; *q; q++)
        if (dump_fits(*q, max_bytes))
            return sampled;
    for (q = dump_paths(); *q; q++)
        if (dump_fits(*q, max_bytes)) {
            cr_log_info("the sample holds no dump of %zu bytes or less: %s instead", max_bytes,
                        *q);
            one[0] = *q;
            return one;
        }
    return sampled;
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

/* `n` bytes as one gzip member, made with zlib, not the library. */
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
