/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_abi.c - the interface that grows (issue #36): the version at run
 * time, the sized calls (hs_filter_create_ex, hs_filter_stats_ex) beside
 * the 0.1 ones that read and fill only the 0.1 layouts, the counters by
 * index and name, hs_filter_cancel (before a run, from another thread, from
 * a signal handler, by the progress callback), the progress callback, and
 * library messages that name no option of the command line. tests/lanes/abi.sh
 * checks the same from a program built against the 0.1 header.
 */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "helpers.h"

#define MIB (1u << 20)

static uint8_t *fixture(size_t *len)
{
    uint8_t *p = load_file("fixtures/jvm17-64bit.hprof", len);

    cr_assert_not_null(p, "fixtures/jvm17-64bit.hprof");
    return p;
}

static hs_rules *preset(const char *name)
{
    hs_rules *r = hs_rules_create(NULL);

    cr_assert_not_null(r);
    cr_assert_eq(hs_rules_preset(r, name, NULL), HS_OK, "%s", name);
    return r;
}

/* ---- an endless dump: a header, then the same ~1 MiB heap segment of byte
 * arrays again and again, made as it is read, for runs that go on until
 * they are stopped ---------------------------------------------------------- */

typedef struct {
    dump d;
    size_t head;              /* the header's bytes, at the start of d */
    size_t pos;               /* in d: head..d.len repeat */
    int started;
    _Atomic uint64_t produced; /* bytes handed to the filter, read by other threads */
    uint64_t raise_at;        /* raise SIGUSR1 once past this many bytes (0: never) */
} endless;

static void endless_init(endless *e)
{
    unsigned i;

    memset(e, 0, sizeof *e);
    dg_init(&e->d, "JAVA PROFILE 1.0.2", 8);
    e->head = e->d.len;
    dg_begin(&e->d, 0x1C); /* HEAP_DUMP_SEGMENT */
    for (i = 0; i < 256; i++)
        dg_prim_array(&e->d, 0x1000 + 16 * i, 8, 4096, (uint8_t)i);
    dg_end(&e->d);
    atomic_init(&e->produced, 0);
}

static long endless_read(void *ctx, void *buf, size_t cap)
{
    endless *e = ctx;
    size_t k;

    if (!e->started) {
        e->started = 1;
        e->pos = 0;
    } else if (e->pos == e->d.len) {
        e->pos = e->head;
    }
    k = e->d.len - e->pos;
    if (k > cap)
        k = cap;
    memcpy(buf, e->d.p + e->pos, k);
    e->pos += k;
    if (e->raise_at && atomic_load(&e->produced) + k > e->raise_at) {
        e->raise_at = 0;
        raise(SIGUSR1);
    }
    atomic_fetch_add(&e->produced, k);
    return (long)k;
}

static int discard(void *ctx, const void *buf, size_t len)
{
    (void)ctx, (void)buf, (void)len;
    return 0;
}

static double seconds(const struct timespec *a, const struct timespec *b)
{
    return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

/* ---- version ---------------------------------------------------------------- */

Test(abi, version_at_run_time)
{
    char s[32];
    unsigned n = hs_version_number();

    cr_expect_str_eq(hs_version(), HS_VERSION_STRING);
    cr_expect_eq(n, HS_VERSION_NUMBER);
    cr_expect_eq(n, HS_VERSION_MAJOR * 10000u + HS_VERSION_MINOR * 100u + HS_VERSION_PATCH);
    snprintf(s, sizeof s, "%u.%u.%u", n / 10000, n / 100 % 100, n % 100);
    cr_expect_str_eq(s, hs_version(), "the string and the number agree");
    /* new calls, same soname: a minor version past 0.1 */
    cr_expect_eq(HS_VERSION_MAJOR, 0);
    cr_expect_geq(n, 200u);
}

/* ---- the frozen 0.1 layouts and the sized calls ----------------------------- */

Test(abi, layouts_0_1_are_where_they_were)
{
    /* what a 0.1 program's structs are (tests/lanes/abi/hprof_strip-0.1.h, LP64) */
    if (sizeof(void *) != 8)
        cr_skip_test("LP64 numbers");
    cr_expect_eq(offsetof(hs_options, obfuscate_names) + sizeof(int), 92);
    cr_expect_eq(offsetof(hs_stats, bytes_in), 0);
    cr_expect_eq(offsetof(hs_stats, mapping_strings_added), 45 * 8);
    cr_expect_eq(offsetof(hs_stats, dup_arrays), 46 * 8);
    cr_expect_eq(offsetof(hs_stats, dup_top) + sizeof(((hs_stats *)0)->dup_top), 720);
    cr_expect_eq(sizeof(hs_error), 352);
    cr_expect_eq(HS_E_USAGE, -8, "no status renumbered");
    cr_expect_eq(HS_E_CANCELLED, -9);
}

/* hs_filter_stats fills the 0.1 struct and not a byte more; the sized call
 * fills what it is told, zeroes what it does not know. */
Test(abi, stats_fill_only_what_the_caller_knows)
{
    size_t len, i;
    uint8_t *in = fixture(&len);
    hs_rules *rules = preset("default");
    hs_filter *f = hs_filter_create(rules, NULL, NULL);
    mem_src src = {in, len, 0, 0, -1, NULL};
    hs_source s = {.read = mem_read, .ctx = &src};
    hs_sink k = {discard, NULL};
    struct {
        hs_stats st;
        unsigned char guard[256];
    } big;
    hs_stats full;
    const size_t st01 = offsetof(hs_stats, dup_top) + sizeof(((hs_stats *)0)->dup_top);

    cr_assert_eq(hs_filter_run(f, &s, &k), HS_OK);
    cr_assert_eq(hs_filter_stats_ex(f, &full, sizeof full), sizeof full);
    cr_expect_gt(full.bytes_in, 0);
    cr_expect_eq(full.bytes_in, len);

    memset(&big, 0xA5, sizeof big);
    hs_filter_stats(f, &big.st);
    cr_expect_eq(memcmp(&big.st, &full, st01), 0, "the 0.1 fields");
    for (i = st01; i < sizeof big; i++)
        cr_assert_eq(((unsigned char *)&big)[i], 0xA5, "byte %zu past the 0.1 struct written", i);

    /* a caller that knows only bytes_in and bytes_out */
    memset(&big, 0xA5, sizeof big);
    cr_expect_eq(hs_filter_stats_ex(f, &big.st, 2 * sizeof(uint64_t)), 16);
    cr_expect_eq(big.st.bytes_in, full.bytes_in);
    cr_expect_eq(big.st.bytes_out, full.bytes_out);
    for (i = 16; i < sizeof big; i++)
        cr_assert_eq(((unsigned char *)&big)[i], 0xA5, "byte %zu written", i);

    /* a caller built with a newer header: what this library lacks reads 0 */
    memset(&big, 0xA5, sizeof big);
    cr_expect_eq(hs_filter_stats_ex(f, &big.st, sizeof big), sizeof(hs_stats));
    cr_expect_eq(memcmp(&big.st, &full, sizeof full), 0);
    for (i = 0; i < sizeof big.guard; i++)
        cr_assert_eq(big.guard[i], 0, "byte %zu past this library's stats", i);
    cr_expect_eq(hs_filter_stats_ex(f, NULL, sizeof full), 0);
    /* no filter: zeros */
    memset(&big, 0xA5, sizeof big);
    cr_expect_eq(hs_filter_stats_ex(NULL, &big.st, sizeof big.st), sizeof big.st);
    cr_expect_eq(big.st.bytes_in, 0);
    cr_expect_eq(big.guard[0], 0xA5);
    hs_filter_free(f);
    hs_rules_free(rules);
    free(in);
}

/* Runs `opt`, given as `size` bytes, over a dump cut short: HS_SALVAGED
 * when the run saw salvage set. */
static hs_status cut_run(const hs_options *opt, size_t size, hs_error *err)
{
    size_t len;
    uint8_t *in = fixture(&len);
    hs_rules *rules = preset("default");
    hs_filter *f = hs_filter_create_ex(rules, opt, size, NULL, err);
    mem_src src = {in, len / 2, 0, 0, -1, NULL};
    hs_source s = {.read = mem_read, .ctx = &src};
    hs_sink k = {discard, NULL};
    hs_status st = HS_E_NOMEM;

    if (f) {
        st = hs_filter_run(f, &s, &k);
        hs_filter_free(f);
    } else if (err) {
        st = err->code;
    }
    hs_rules_free(rules);
    free(in);
    return st;
}

Test(abi, create_ex_reads_what_the_caller_knows)
{
    struct {
        hs_options o;
        unsigned char later[64]; /* options of a newer header */
    } big;
    hs_error err;

    memset(&big, 0, sizeof big);
    big.o.salvage = 1;
    cr_expect_eq(cut_run(&big.o, sizeof big.o, NULL), HS_SALVAGED);
    /* an older caller that did not know `salvage`: the bytes past its size
     * are not read, whatever they hold */
    cr_expect_eq(cut_run(&big.o, offsetof(hs_options, salvage), NULL), HS_E_TRUNCATED);
    /* a newer caller: options this library does not have, all 0, are fine */
    cr_expect_eq(cut_run(&big.o, sizeof big, NULL), HS_SALVAGED);
    /* ... one of them set is refused, said in err */
    big.later[10] = 1;
    memset(&err, 0, sizeof err);
    cr_expect_eq(cut_run(&big.o, sizeof big, &err), HS_E_USAGE);
    cr_expect_eq(err.code, HS_E_USAGE);
    cr_expect(strstr(err.message, "option this library version does not have"), "%s",
              err.message);
    /* NULL options, with and without a size */
    cr_expect_eq(cut_run(NULL, 0, NULL), HS_E_TRUNCATED);
    memset(&err, 0, sizeof err);
    cr_expect_null(hs_filter_create_ex(NULL, NULL, 0, NULL, &err));
    cr_expect_eq(err.code, HS_E_USAGE);
    {
        hs_rules *r = preset("none");
        memset(&err, 0, sizeof err);
        cr_expect_null(hs_filter_create_ex(r, NULL, sizeof big.o, NULL, &err));
        cr_expect_eq(err.code, HS_E_USAGE);
        hs_rules_free(r);
    }
}

/* ---- counters by index ------------------------------------------------------ */

static const struct {
    const char *name;
    int kind;
    size_t offset;
} header_counters[] = {
#define C_(name, kind, what) {#name, kind, offsetof(hs_stats, name)},
    HS_STATS_COUNTERS(C_)
#undef C_
};
#define N_HEADER (sizeof header_counters / sizeof header_counters[0])

Test(abi, counters_by_index_agree_with_stats)
{
    size_t len, i;
    uint8_t *in = fixture(&len);
    hs_rules *rules = preset("privacy");
    hs_options opt;
    hs_filter *f;
    mem_src src = {in, len, 0, 0, -1, NULL};
    hs_source s = {.read = mem_read, .ctx = &src};
    hs_sink k = {discard, NULL};
    hs_stats st;
    size_t nonzero = 0;

    memset(&opt, 0, sizeof opt);
    opt.count_nonzero = 1;
    opt.find_duplicates = 1;
    f = hs_filter_create_ex(rules, &opt, sizeof opt, NULL, NULL);
    cr_assert_not_null(f);
    cr_assert_eq(hs_filter_run(f, &s, &k), HS_OK);
    hs_filter_stats_ex(f, &st, sizeof st);
    cr_assert_eq(hs_counter_count(), N_HEADER);
    cr_expect_eq(hs_counter_count(), 49,
                 "the 0.1 counters, the two of 0.5 and held_strings_peak");
    /* the added ones come after the 0.1 ones, whose indexes never change */
    cr_expect_eq(hs_counter_index("dup_arrays_unchecked"), 46);
    cr_expect_eq(hs_counter_index("dup_min_bytes"), 47);
    cr_expect_eq(hs_filter_counter(f, 47), 8, "the fixture fills no table: from 8 bytes up");
    cr_expect_eq(hs_filter_counter(f, 46), 0);
    for (i = 0; i < N_HEADER; i++) {
        uint64_t v;
        memcpy(&v, (const unsigned char *)&st + header_counters[i].offset, sizeof v);
        cr_assert_not_null(hs_counter_name(i), "%zu", i);
        cr_expect_str_eq(hs_counter_name(i), header_counters[i].name);
        cr_expect_eq(hs_counter_kind(i), header_counters[i].kind, "%s", header_counters[i].name);
        cr_expect_eq(hs_counter_index(header_counters[i].name), (int)i);
        cr_expect_not_null(hs_counter_description(i));
        cr_expect_gt(strlen(hs_counter_description(i)), 5);
        cr_expect_eq(hs_filter_counter(f, i), v, "%s: %llu, stats %llu",
                     header_counters[i].name, (unsigned long long)hs_filter_counter(f, i),
                     (unsigned long long)v);
        nonzero += v != 0;
    }
    cr_expect_gt(nonzero, 10, "a run that counts: %zu counters not 0", nonzero);
    cr_expect_eq(hs_filter_counter(f, hs_counter_index("bytes_in")), len);
    cr_expect_eq(hs_counter_kind(hs_counter_index("first_nonzero_array")), HS_OFFSET);
    cr_expect_eq(hs_counter_kind(hs_counter_index("bytes_out")), HS_BYTES);
    cr_expect_eq(hs_counter_kind(hs_counter_index("roots")), HS_COUNT);
    /* past the end, unknown names, no filter */
    cr_expect_null(hs_counter_name(N_HEADER));
    cr_expect_null(hs_counter_name((size_t)-1));
    cr_expect_null(hs_counter_description(N_HEADER));
    cr_expect_eq(hs_counter_kind(N_HEADER), -1);
    cr_expect_eq(hs_counter_index("nosuch"), -1);
    cr_expect_eq(hs_counter_index(""), -1);
    cr_expect_eq(hs_counter_index(NULL), -1);
    cr_expect_eq(hs_counter_index("bytes_in "), -1);
    cr_expect_eq(hs_filter_counter(f, N_HEADER), 0);
    cr_expect_eq(hs_filter_counter(NULL, 0), 0);
    hs_filter_free(f);
    hs_rules_free(rules);
    free(in);
}

/* ---- cancel ------------------------------------------------------------------- */

Test(abi, cancel_before_the_run)
{
    size_t len;
    uint8_t *in = fixture(&len);
    const size_t chunks[] = {0, 4096, CHUNK_MAPPED, CHUNK_LENT | 65536};
    size_t c;

    for (c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
        hs_rules *rules = preset("default");
        hs_options opt;
        hs_filter *f;
        mem_src src = {in, len, 0, chunks[c] & ~CHUNK_LENT, -1, NULL};
        mem_sink sink = {NULL, 0, 0, 0};
        hs_source s = {.read = mem_read, .ctx = &src};
        hs_sink k = {mem_write, &sink};
        const hs_error *e;

        memset(&opt, 0, sizeof opt);
        opt.salvage = 1; /* a cancelled run is no cut dump to salvage */
        f = hs_filter_create(rules, &opt, NULL);
        cr_assert_not_null(f);
        if (chunks[c] == CHUNK_MAPPED) {
            s.data = in;
            s.size = len;
            s.read = NULL;
        } else if (chunks[c] & CHUNK_LENT) {
            s.borrow = mem_borrow;
            s.read = NULL;
        }
        hs_filter_cancel(f);
        hs_filter_cancel(f); /* twice is once */
        cr_expect_eq(hs_filter_run(f, &s, &k), HS_E_CANCELLED, "chunk %zx", chunks[c]);
        e = hs_filter_error(f);
        cr_assert_not_null(e);
        cr_expect_eq(e->code, HS_E_CANCELLED);
        cr_expect(strstr(e->message, "cancelled"), "%s", e->message);
        cr_expect_eq(e->offset, 0);
        cr_expect_eq(sink.len, 0, "nothing written");
        cr_expect_eq(hs_filter_counter(f, hs_counter_index("bytes_in")), 0);
        /* it ran: no second run */
        cr_expect_eq(hs_filter_run(f, &s, &k), HS_E_USAGE);
        hs_filter_free(f);
        hs_rules_free(rules);
        mem_src_free(&src);
        free(sink.data);
    }
    hs_filter_cancel(NULL);
    cr_expect_str_eq(hs_status_str(HS_E_CANCELLED), "cancelled");
    free(in);
}

/* After the run, a cancel changes nothing. */
Test(abi, cancel_after_the_run)
{
    size_t len;
    uint8_t *in = fixture(&len);
    hs_rules *rules = preset("default");
    hs_filter *f = hs_filter_create(rules, NULL, NULL);
    mem_src src = {in, len, 0, 0, -1, NULL};
    hs_source s = {.read = mem_read, .ctx = &src};
    hs_sink k = {discard, NULL};

    cr_assert_eq(hs_filter_run(f, &s, &k), HS_OK);
    hs_filter_cancel(f);
    cr_expect_null(hs_filter_error(f));
    cr_expect_eq(hs_filter_counter(f, 0), len);
    hs_filter_free(f);
    hs_rules_free(rules);
    free(in);
}

typedef struct {
    endless *src;
    hs_filter *f;
    uint64_t at_bytes; /* cancel once the source gave this many */
    uint64_t produced; /* ... and it had given these */
    struct timespec at;
} canceller;

static void *cancel_later(void *arg)
{
    canceller *c = arg;
    const struct timespec ms = {0, 1000000};

    while (atomic_load(&c->src->produced) < c->at_bytes)
        nanosleep(&ms, NULL);
    c->produced = atomic_load(&c->src->produced);
    clock_gettime(CLOCK_MONOTONIC, &c->at);
    hs_filter_cancel(c->f);
    return NULL;
}

/* The input never ends: only the cancel from another thread ends the run,
 * promptly, and the filter is then freed as ever. */
Test(abi, cancel_from_another_thread, .timeout = 120)
{
    static endless e;
    hs_rules *rules = preset("default");
    hs_filter *f = hs_filter_create(rules, NULL, NULL);
    hs_source s = {.read = endless_read, .ctx = &e};
    hs_sink k = {discard, NULL};
    canceller c;
    pthread_t t;
    struct timespec done;
    hs_stats st;
    hs_status r;

    endless_init(&e);
    memset(&c, 0, sizeof c);
    c.src = &e;
    c.f = f;
    c.at_bytes = 48u * MIB;
    cr_assert_eq(pthread_create(&t, NULL, cancel_later, &c), 0);
    r = hs_filter_run(f, &s, &k);
    clock_gettime(CLOCK_MONOTONIC, &done);
    cr_assert_eq(pthread_join(t, NULL), 0);
    cr_expect_eq(r, HS_E_CANCELLED, "%s", hs_status_str(r));
    cr_assert_not_null(hs_filter_error(f));
    cr_expect(strstr(hs_filter_error(f)->message, "cancelled"), "%s",
              hs_filter_error(f)->message);
    hs_filter_stats(f, &st);
    cr_expect_geq(st.bytes_in, 48u * MIB - 2 * MIB);
    /* stopped at the next move of the window: a read or two after */
    cr_expect_leq(atomic_load(&e.produced) - c.produced, 3u * MIB, "%llu bytes read after",
                  (unsigned long long)(atomic_load(&e.produced) - c.produced));
    cr_expect_lt(seconds(&c.at, &done), 5.0, "%.3f s from the cancel", seconds(&c.at, &done));
    hs_filter_free(f);
    hs_rules_free(rules);
    dg_free(&e.d);
}

static hs_filter *volatile g_cancel_me;

static void on_usr1(int sig)
{
    (void)sig;
    hs_filter_cancel(g_cancel_me);
}

Test(abi, cancel_from_a_signal_handler, .timeout = 120)
{
    static endless e;
    hs_rules *rules = preset("privacy");
    hs_filter *f = hs_filter_create(rules, NULL, NULL);
    hs_source s = {.read = endless_read, .ctx = &e};
    hs_sink k = {discard, NULL};
    struct sigaction sa, old;

    endless_init(&e);
    e.raise_at = 8u * MIB;
    g_cancel_me = f;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sigemptyset(&sa.sa_mask);
    cr_assert_eq(sigaction(SIGUSR1, &sa, &old), 0);
    cr_expect_eq(hs_filter_run(f, &s, &k), HS_E_CANCELLED);
    cr_expect_leq(atomic_load(&e.produced), 12u * MIB);
    sigaction(SIGUSR1, &old, NULL);
    g_cancel_me = NULL;
    hs_filter_free(f);
    hs_rules_free(rules);
    dg_free(&e.d);
}

/* ---- progress ----------------------------------------------------------------- */

typedef struct {
    uint64_t in[4096], out[4096];
    size_t n;
    size_t stop_after; /* return 1 from this call (1-based; 0: never) */
} progress_log;

static int log_progress(void *ctx, uint64_t in, uint64_t out)
{
    progress_log *p = ctx;

    if (p->n < 4096) {
        p->in[p->n] = in;
        p->out[p->n] = out;
    }
    p->n++;
    return p->stop_after && p->n == p->stop_after;
}

/* A ~24 MiB dump of byte arrays, some of them dropped (preset privacy keeps
 * them, default zeroes them: the output is a fraction of the input in no
 * case), in memory. */
static void big_dump(dump *d)
{
    unsigned i, j;

    dg_init(d, "JAVA PROFILE 1.0.2", 8);
    for (j = 0; j < 24; j++) {
        dg_begin(d, 0x1C);
        for (i = 0; i < 256; i++)
            dg_prim_array(d, 0x1000 + 16 * (256 * j + i), 8, 4096, (uint8_t)i);
        dg_end(d);
    }
    dg_begin(d, 0x2C);
    dg_end(d);
}

Test(abi, progress_is_told_and_ends_with_the_stats)
{
    static progress_log p;
    dump d;
    const size_t chunks[] = {0, 1000, CHUNK_MAPPED, CHUNK_LENT | 300000};
    size_t c, i;

    big_dump(&d);
    for (c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
        hs_rules *rules = preset("default");
        hs_filter *f = hs_filter_create(rules, NULL, NULL);
        mem_src src = {d.p, d.len, 0, chunks[c] & ~CHUNK_LENT, -1, NULL};
        hs_source s = {.read = mem_read, .ctx = &src};
        hs_sink k = {discard, NULL};
        hs_stats st;

        if (chunks[c] == CHUNK_MAPPED) {
            s.data = d.p;
            s.size = d.len;
            s.read = NULL;
        } else if (chunks[c] & CHUNK_LENT) {
            s.borrow = mem_borrow;
            s.read = NULL;
        }
        memset(&p, 0, sizeof p);
        cr_assert_eq(hs_filter_set_progress(f, log_progress, &p), HS_OK);
        cr_assert_eq(hs_filter_run(f, &s, &k), HS_OK, "chunk %zx", chunks[c]);
        hs_filter_stats(f, &st);
        cr_assert_geq(p.n, 10, "chunk %zx: %zu calls for %zu bytes", chunks[c], p.n, d.len);
        /* at most one per MiB of input, and the last */
        cr_expect_leq(p.n, d.len / MIB + 1, "chunk %zx: %zu calls", chunks[c], p.n);
        for (i = 1; i < p.n; i++) {
            cr_expect_geq(p.in[i], p.in[i - 1], "call %zu", i);
            cr_expect_geq(p.out[i], p.out[i - 1], "call %zu", i);
            if (i < p.n - 1)
                cr_expect_geq(p.in[i] - p.in[i - 1], MIB, "call %zu: a step under 1 MiB", i);
        }
        cr_expect_eq(p.in[p.n - 1], st.bytes_in);
        cr_expect_eq(p.out[p.n - 1], st.bytes_out);
        cr_expect_eq(st.bytes_in, d.len);
        cr_expect_gt(p.out[p.n / 2], 0, "output told as it goes");
        /* once it ran, no more setting */
        cr_expect_eq(hs_filter_set_progress(f, NULL, NULL), HS_E_USAGE);
        hs_filter_free(f);
        hs_rules_free(rules);
        mem_src_free(&src);
    }
    cr_expect_eq(hs_filter_set_progress(NULL, log_progress, &p), HS_E_USAGE);
    dg_free(&d);
}

/* A non-zero return cancels; the last call still comes, with the stats. */
Test(abi, progress_cancels)
{
    static progress_log p;
    dump d;
    hs_rules *rules = preset("default");
    hs_options opt;
    hs_filter *f;
    hs_source s;
    hs_sink k = {discard, NULL};
    hs_stats st;

    big_dump(&d);
    memset(&opt, 0, sizeof opt);
    opt.salvage = 1;
    f = hs_filter_create(rules, &opt, NULL);
    memset(&s, 0, sizeof s);
    s.data = d.p;
    s.size = d.len;
    memset(&p, 0, sizeof p);
    p.stop_after = 3;
    cr_assert_eq(hs_filter_set_progress(f, log_progress, &p), HS_OK);
    cr_expect_eq(hs_filter_run(f, &s, &k), HS_E_CANCELLED);
    cr_expect_eq(p.n, 4, "three, and the last");
    hs_filter_stats(f, &st);
    cr_expect_eq(p.in[3], st.bytes_in);
    cr_expect_eq(p.out[3], st.bytes_out);
    cr_expect_lt(st.bytes_in, 5u * MIB);
    cr_expect_eq(hs_filter_error(f)->code, HS_E_CANCELLED);
    hs_filter_free(f);
    hs_rules_free(rules);
    dg_free(&d);
}

/* ---- messages name no option of the command line ------------------------------ */

static void no_option(const char *what, const char *msg)
{
    cr_expect(msg && msg[0], "%s: no message", what);
    cr_expect(!strstr(msg, "--"), "%s: %s", what, msg);
    cr_expect(!strstr(msg, "hprof-strip"), "%s: %s", what, msg);
}

typedef struct {
    uint64_t left;
} lines_src;

/* A mapping of `left` classes, each renamed. */
static long read_mapping_lines(void *ctx, void *buf, size_t cap)
{
    lines_src *z = ctx;
    char line[96];
    size_t k = 0;
    int n;

    while (z->left) {
        n = snprintf(line, sizeof line, "com.example.SomeLongClassName%llu -> a%llu:\n",
                     (unsigned long long)z->left, (unsigned long long)z->left);
        if (cap - k < (size_t)n)
            break;
        memcpy((char *)buf + k, line, (size_t)n);
        k += (size_t)n;
        z->left--;
    }
    return (long)k;
}

Test(abi, messages_name_no_option)
{
    size_t len, i;
    uint8_t *in = fixture(&len);
    hs_rules *rules = hs_rules_create(NULL);
    hs_error err;
    hs_options opt;
    run_result r;

    /* an unknown preset: no "--preset:1:1" */
    memset(&err, 0, sizeof err);
    cr_expect_eq(hs_rules_preset(rules, "nosuch", &err), HS_E_USAGE);
    no_option("unknown preset", err.message);
    cr_expect(strstr(err.message, "unknown preset 'nosuch'"), "%s", err.message);
    cr_expect(!strstr(err.message, ":1:1"), "%s", err.message);

    /* the memory cap, when a holder passes it and when the meter refuses */
    const uint64_t caps[] = {100000, 10000, 1000};
    for (i = 0; i < sizeof caps / sizeof caps[0]; i++) {
        memset(&opt, 0, sizeof opt);
        opt.max_held = caps[i];
        r = run_filter(in, len, "default", &opt, 0);
        cr_expect_eq(r.status, HS_E_LIMIT, "cap %llu", (unsigned long long)caps[i]);
        no_option("max_held", r.err.message);
        cr_expect(strstr(r.err.message, "(max_held)"), "%s", r.err.message);
        run_result_free(&r);
    }

    /* a mapping past its cap */
    {
        lines_src z = {200000};
        hs_source s = {.read = read_mapping_lines, .ctx = &z};
        memset(&err, 0, sizeof err);
        cr_expect_eq(hs_rules_mapping_read(rules, &s, 100000, "m.txt", &err), HS_E_LIMIT);
        no_option("mapping cap", err.message);
        cr_expect(strstr(err.message, "(max_held)"), "%s", err.message);
    }

    /* cancelled, and hs_filter_create_ex's refusals */
    {
        hs_filter *f;
        struct {
            hs_options o;
            int later;
        } big;
        memset(&big, 0, sizeof big);
        big.later = 1;
        cr_assert_eq(hs_rules_preset(rules, "default", NULL), HS_OK);
        memset(&err, 0, sizeof err);
        cr_expect_null(hs_filter_create_ex(rules, &big.o, sizeof big, NULL, &err));
        no_option("create_ex", err.message);
        memset(&err, 0, sizeof err);
        cr_expect_null(hs_filter_create_ex(NULL, NULL, 0, NULL, &err));
        no_option("create_ex NULL", err.message);
        f = hs_filter_create(rules, NULL, NULL);
        {
            mem_src src = {in, len, 0, 0, -1, NULL};
            hs_source s = {.read = mem_read, .ctx = &src};
            hs_sink k = {discard, NULL};
            hs_filter_cancel(f);
            cr_expect_eq(hs_filter_run(f, &s, &k), HS_E_CANCELLED);
            no_option("cancelled", hs_filter_error(f)->message);
        }
        hs_filter_free(f);
    }

    /* every preset and option on the fixture, cut and whole: errors and
     * warnings */
    {
        static const char *const presets[] = {"none", "default", "privacy", "android-app"};
        size_t p, cut;
        for (p = 0; p < 4; p++)
            for (cut = 0; cut < 2; cut++) {
                hs_rules *pr = preset(presets[p]);
                hs_filter *f;
                mem_src src = {in, cut ? len / 3 : len, 0, 0, -1, NULL};
                hs_source s = {.read = mem_read, .ctx = &src};
                hs_sink k = {discard, NULL};
                hs_status st;
                const char *w;
                size_t j;
                cr_assert_eq(hs_rules_parse(pr, "keep-field no.Such.field\n", 25, "x.rules", NULL),
                             HS_OK);
                memset(&opt, 0, sizeof opt);
                opt.findings = 1;
                opt.salvage = (int)cut;
                opt.histogram = 1;
                opt.obfuscate_names = p == 1;
                f = hs_filter_create_ex(pr, &opt, sizeof opt, NULL, NULL);
                st = hs_filter_run(f, &s, &k);
                if (st != HS_OK)
                    no_option(presets[p], hs_filter_error(f)->message);
                for (j = 0; (w = hs_filter_warning(f, j)) != NULL; j++)
                    no_option("warning", w);
                if (!cut) /* warned at the end of a whole run */
                    cr_expect_gt(j, 0, "%s: a warning at least (keep-field)", presets[p]);
                hs_filter_free(f);
                hs_rules_free(pr);
            }
    }
    hs_rules_free(rules);
    free(in);
}
