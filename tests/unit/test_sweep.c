/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_sweep.c - every real dump (dump_paths_sampled(): the corpus, the fixtures and
 * the fresh JVM dump) damaged many ways: cut at 500 offsets spread through
 * the file, and with 500 single bit flips (SWEEP_N), each damaged dump run
 * through the "default" preset with --salvage off and on.
 *
 * Whatever the damage, the filter must not crash or hang, and must answer
 * with HS_OK, HS_SALVAGED (salvage on only), or a negative status carrying
 * a one-line message and an offset inside the input. A cut past the file
 * header must come back as truncated input, or with salvage on as
 * salvaged (either may be HS_OK, on a record boundary). Every output the
 * filter calls good (HS_OK, HS_SALVAGED) must read cleanly with the
 * independent walker; with salvage on it must leave no heap dump open, end
 * with HEAP_DUMP_END when the cut fell inside one, and hold every object
 * that was complete before the cut. No single run may take SWEEP_RUN_LIMIT
 * seconds.
 *
 * The sink is capped (out_cap: twice the input, plus 1 MiB, plus the 64 MiB
 * salvage may pad a cut record with): no damage may make the filter write
 * more (a corrupt length once made --salvage write gigabytes of zeros:
 * test_findings.c).
 *
 * The damage is chosen by a deterministic PRNG from a seed each test logs
 * (SWEEP_SEED=N in the environment picks another one). Cut i falls in the
 * i-th of SWEEP_N equal steps of the file (cut 0 in its first 64 bytes).
 * Even flips land anywhere; odd flips within 32 bytes after the end of an
 * object, where the next sub-record's tag, id and length fields stand;
 * every 16th in the file header or the first record. A failure names the
 * seed, the file, the kind and index of the damage, its byte offset and the
 * read size; damage i runs in test cuts_(i % 8) or flips_(i % 8), so
 * `SWEEP_SEED=N build/run-tests --filter 'sweep/flips_2'` reproduces it.
 *
 * Work is split into SWEEP_SHARDS tests per kind, each taking every
 * SWEEP_SHARDS-th damage of every dump, so `--jobs 2` runs them side by
 * side and no test runs long (under ASan, with the shared corpus, a flips
 * shard of 4 took 100-120 s on 2 cores, at the 120 s timeout: 8 shards
 * keep each near a minute there). Dumps over SWEEP_FULL_BYTES get fewer damages
 * (SWEEP_N * SWEEP_FULL_BYTES / size, at least SWEEP_MIN_N); dumps over
 * SWEEP_MAX_BYTES (uncompressed) are skipped; a dump whose bytes were
 * already swept under another name (a fixture copied from the corpus) is
 * swept once. A flip whose output is byte for byte the intact dump's
 * (a flip in an array payload, which the preset zeroes) is not walked again.
 */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "helpers.h"

/* Damages of each kind per dump: SWEEP_N in the environment, or 500 (150
 * under AddressSanitizer, which runs the suite three to four times slower:
 * make test-asan). */
#if defined(__SANITIZE_ADDRESS__)
#define SWEEP_N_DEFAULT 150
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SWEEP_N_DEFAULT 150
#endif
#endif
#ifndef SWEEP_N_DEFAULT
#define SWEEP_N_DEFAULT 500
#endif
#define SWEEP_MIN_N 60
#define SWEEP_SHARDS 8
#define SWEEP_FULL_BYTES ((size_t)5 << 20)
#define SWEEP_MAX_BYTES ((size_t)64 << 20)
#define SWEEP_RUN_LIMIT 5.0 /* seconds, one run_filter call */
#define SWEEP_DEFAULT_SEED 0x5eed0f5ee9ull

/* ---- the damage, chosen by hashing (seed, file, kind, index) -------------- */

static uint64_t mix(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint64_t hash_name(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    const char *base = strrchr(s, '/');

    /* by base name, so a fixture and its corpus original draw alike */
    for (s = base ? base + 1 : s; *s; s++)
        h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
    return h;
}

static uint64_t hash_bytes(const uint8_t *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull ^ n;
    size_t i, step = n / 4096 + 1;

    /* a sample is enough to tell the corpus's files apart */
    for (i = 0; i < n; i += step)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return mix(h ^ p[n ? n - 1 : 0]);
}

static size_t sweep_n(void)
{
    const char *e = getenv("SWEEP_N");
    size_t n = e && *e ? (size_t)strtoull(e, NULL, 0) : SWEEP_N_DEFAULT;
    return n ? n : 1;
}

static uint64_t sweep_seed(void)
{
    const char *e = getenv("SWEEP_SEED");
    return e && *e ? strtoull(e, NULL, 0) : SWEEP_DEFAULT_SEED;
}

static uint64_t draw(uint64_t seed, uint64_t file, unsigned kind, size_t i, unsigned k)
{
    return mix(seed ^ mix(file ^ mix(((uint64_t)kind << 56) ^ ((uint64_t)k << 48) ^ i)));
}

/* ---- the inputs ------------------------------------------------------------ */

typedef struct {
    const char *path;
    uint8_t *data;
    size_t len;
    size_t header; /* bytes of the file header: version, NUL, id size, time */
    size_t n;      /* damages of each kind for this dump */
    uint64_t fhash;
    walk_result w; /* of the intact dump, with object_ends */
    /* the intact dump's output with salvage off and on (flips only): a
     * damaged dump giving the same bytes (a flip in an array payload, which
     * the default preset zeroes) needs no second walk */
    uint8_t *ref[2];
    size_t ref_len[2];
} input;

/* Loads the next dump to sweep from `*pp` on; 0 when there is none left. */
static int next_input(const char *const **pp, input *in, uint64_t *seen, size_t *n_seen)
{
    for (; **pp; (*pp)++) {
        const char *path = **pp;
        size_t size = dump_size_upto(path, SWEEP_MAX_BYTES), j;
        const uint8_t *nul;
        uint64_t h;

        if (size == 0 || size > SWEEP_MAX_BYTES) {
            cr_log_info("sweep: %s skipped (%s)", path, size ? "over 64 MB" : "unreadable");
            continue;
        }
        memset(in, 0, sizeof *in);
        in->path = path;
        in->data = load_file(path, &in->len);
        cr_assert(in->data != NULL && in->len > 0, "%s: cannot load", path);
        h = hash_bytes(in->data, in->len);
        for (j = 0; j < *n_seen && seen[j] != h; j++)
            ;
        if (j < *n_seen) {
            free(in->data);
            continue; /* same bytes as a dump already swept */
        }
        seen[(*n_seen)++] = h;
        nul = memchr(in->data, 0, in->len < 32 ? in->len : 32);
        cr_assert(nul != NULL, "%s: no HPROF header", path);
        in->header = (size_t)(nul - in->data) + 1 + 4 + 8;
        in->n = sweep_n();
        if (in->len > SWEEP_FULL_BYTES) {
            size_t least = in->n < SWEEP_MIN_N ? in->n : SWEEP_MIN_N;
            in->n = (size_t)((double)in->n * SWEEP_FULL_BYTES / in->len);
            if (in->n < least)
                in->n = least;
        }
        in->fhash = hash_name(path);
        in->w = walk_dump(in->data, in->len, WALK_COLLECT);
        cr_assert(in->w.ok, "%s: the intact dump does not walk: %s", path, in->w.error);
        (*pp)++;
        return 1;
    }
    return 0;
}

static void input_free(input *in)
{
    free(in->ref[0]);
    free(in->ref[1]);
    walk_free(&in->w);
    free(in->data);
}

/* ---- one run and its checks ---------------------------------------------- */


/* The most zeros --salvage may write to complete a record cut short
 * (MAX_SALVAGE_PAD in heap.c; past it, it gives up rather than amplify a
 * corrupt length). */
#define SALVAGE_PAD_MAX ((size_t)64 << 20)

/* The most output a run may write: re-encoding adds segment headers,
 * HEAP_DUMP_ENDs and HEAP_DUMP_INFOs; salvage completes a cut record. */
static size_t out_cap(size_t len)
{
    return 2 * len + ((size_t)1 << 20) + SALVAGE_PAD_MAX;
}

/* True when no heap dump is left open in `p[0..n)`: a HEAP_DUMP_END follows
 * the last HEAP_DUMP_SEGMENT, and the last HEAP_DUMP (1.0.1: one record, one
 * dump) is complete. Top-level records only; the walker checks the rest. */
static int heap_closed(const uint8_t *p, size_t n)
{
    const uint8_t *nul = memchr(p, 0, n < 32 ? n : 32);
    size_t i;
    int open = 0;

    if (!nul)
        return 0;
    for (i = (size_t)(nul - p) + 1 + 12; i + 9 <= n;) {
        size_t len = (size_t)p[i + 5] << 24 | (size_t)p[i + 6] << 16 |
                     (size_t)p[i + 7] << 8 | p[i + 8];
        if (p[i] == 0x0C)
            open = len > n - i - 9;
        else if (p[i] == 0x1C)
            open = 1;
        else if (p[i] == 0x2C)
            open = 0;
        i += 9 + len;
    }
    return !open;
}

typedef struct {
    uint64_t seed;
    double max_run;     /* seconds */
    char max_what[160]; /* the run that took max_run */
    size_t runs, ok, salvaged, errors, walked, same;
} tally;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static size_t complete_objects(const walk_result *w, size_t cut)
{
    size_t j, n = 0;

    for (j = 0; j < w->n_object_ends; j++)
        n += w->object_ends[j] <= cut;
    return n;
}

/* Runs `p[0..n)` (the damaged dump) once; `cut` is the cut offset for a
 * truncation, SIZE_MAX for a flip. `what` names the damage in messages. */
static void sweep_run(tally *t, const input *in, const uint8_t *p, size_t n, size_t cut,
                      int salvage, size_t chunk, const char *what)
{
    hs_options opt;
    run_result r;
    double t0, dt;
    int good;

    memset(&opt, 0, sizeof opt);
    opt.salvage = salvage;
    t0 = now();
    r = run_preset_capped(p, n, "default", &opt, chunk, out_cap(n));
    dt = now() - t0;
    t->runs++;
    if (dt > t->max_run) {
        t->max_run = dt;
        snprintf(t->max_what, sizeof t->max_what, "%s, salvage %s", what,
                 salvage ? "on" : "off");
    }
    cr_assert(dt < SWEEP_RUN_LIMIT, "seed %#llx, %s, salvage %s: one run took %.2f s",
              (unsigned long long)t->seed, what, salvage ? "on" : "off", dt);

    /* the status and the error */
    cr_assert(r.status == HS_OK || r.status == HS_SALVAGED ||
                  (r.status <= HS_E_MALFORMED && r.status >= HS_E_USAGE),
              "seed %#llx, %s, salvage %s: status %d", (unsigned long long)t->seed, what,
              salvage ? "on" : "off", (int)r.status);
    if (r.status != HS_OK) {
        size_t mlen = strnlen(r.err.message, sizeof r.err.message);
        cr_assert(mlen > 0 && mlen < sizeof r.err.message,
                  "seed %#llx, %s, salvage %s: status %d with an empty or unterminated "
                  "message", (unsigned long long)t->seed, what, salvage ? "on" : "off",
                  (int)r.status);
        cr_assert(strchr(r.err.message, '\n') == NULL,
                  "seed %#llx, %s: message of more than one line: %s",
                  (unsigned long long)t->seed, what, r.err.message);
        /* after HS_SALVAGED the error is the damage that was salvaged: a
         * truncation, or corrupt data everything before which was kept */
        cr_assert(r.status == HS_SALVAGED
                      ? r.err.code == HS_E_TRUNCATED || r.err.code == HS_E_MALFORMED
                      : r.err.code == r.status,
                  "seed %#llx, %s: error code %d, status %d", (unsigned long long)t->seed,
                  what, (int)r.err.code, (int)r.status);
        /* (a write error names no input byte: UINT64_MAX) */
        cr_assert(r.err.offset <= n || (r.status == HS_E_WRITE && r.err.offset == UINT64_MAX),
                  "seed %#llx, %s, salvage %s: error offset %llu past the %zu-byte input: %s",
                  (unsigned long long)t->seed, what, salvage ? "on" : "off",
                  (unsigned long long)r.err.offset, n, r.err.message);
    }
    if (r.status == HS_SALVAGED)
        cr_assert(salvage, "seed %#llx, %s: HS_SALVAGED with salvage off: %s",
                  (unsigned long long)t->seed, what, r.err.message);
    /* only out_cap makes the sink fail */
    cr_assert(r.status != HS_E_WRITE,
              "seed %#llx, %s, salvage %s: more than %zu bytes of output from a %zu-byte input",
              (unsigned long long)t->seed, what, salvage ? "on" : "off", out_cap(n), n);
    if (r.status == HS_OK)
        t->ok++;
    else if (r.status == HS_SALVAGED)
        t->salvaged++;
    else
        t->errors++;

    /* a cut of a valid dump: truncated, or salvaged, or a record boundary */
    if (cut != SIZE_MAX && cut >= in->header) {
        if (salvage)
            cr_assert(r.status == HS_OK || r.status == HS_SALVAGED,
                      "seed %#llx, %s, salvage on: status %d: %s",
                      (unsigned long long)t->seed, what, (int)r.status, r.err.message);
        else
            cr_assert(r.status == HS_OK || r.status == HS_E_TRUNCATED,
                      "seed %#llx, %s, salvage off: status %d: %s",
                      (unsigned long long)t->seed, what, (int)r.status, r.err.message);
    }

    /* what the filter calls good reads cleanly */
    good = r.status == HS_OK || r.status == HS_SALVAGED;
    if (good && in->ref[salvage] && r.out_len == in->ref_len[salvage] &&
        memcmp(r.out, in->ref[salvage], r.out_len) == 0) {
        t->same++; /* the intact dump's output, walked once already */
    } else if (good) {
        walk_result wo = walk_dump(r.out, r.out_len, 0);
        t->walked++;
        cr_assert(wo.ok, "seed %#llx, %s, salvage %s: status %d, but the output (%zu bytes) "
                         "does not walk: %s",
                  (unsigned long long)t->seed, what, salvage ? "on" : "off", (int)r.status,
                  r.out_len, wo.error);
        if (salvage && wo.heap_records)
            cr_assert(heap_closed(r.out, r.out_len),
                      "seed %#llx, %s, salvage on: a heap dump left open (no HEAP_DUMP_END "
                      "after the last heap record)", (unsigned long long)t->seed, what);
        if (salvage && cut != SIZE_MAX && r.status == HS_SALVAGED &&
            !heap_closed(in->data, cut))
            cr_assert(wo.ends_with_heap_dump_end,
                      "seed %#llx, %s, salvage on: cut inside a heap dump, but the output "
                      "does not end with HEAP_DUMP_END", (unsigned long long)t->seed, what);
        if (salvage && cut != SIZE_MAX) {
            size_t kept = wo.instances + wo.object_arrays + wo.primitive_arrays +
                          wo.class_dumps, want = complete_objects(&in->w, cut);
            cr_assert_geq(kept, want,
                          "seed %#llx, %s, salvage on: %zu objects out, %zu were complete",
                          (unsigned long long)t->seed, what, kept, want);
        }
        walk_free(&wo);
    }
    run_result_free(&r);
}

/* The damaged input with salvage off, then on. */
static void sweep_both(tally *t, const input *in, const uint8_t *p, size_t n, size_t cut,
                       size_t chunk, const char *what)
{
    sweep_run(t, in, p, n, cut, 0, chunk, what);
    sweep_run(t, in, p, n, cut, 1, chunk, what);
}

static size_t pick_chunk(uint64_t h)
{
    /* whole-input reads mostly; now and then reads of 512..64 KiB */
    return h % 4 ? 0 : 512 + (size_t)(h >> 8) % 65536;
}

static void summary(const tally *t, const char *test, size_t dumps)
{
    cr_log_info("sweep %s: seed %#llx (SWEEP_SEED), SWEEP_N %zu, %zu dumps, %zu runs: %zu ok, "
                "%zu salvaged, "
                "%zu errors; %zu outputs walked, %zu the intact dump's; slowest run %.3f s "
                "(%s)",
                test, (unsigned long long)t->seed, sweep_n(), dumps, t->runs, t->ok, t->salvaged,
                t->errors, t->walked, t->same, t->max_run,
                t->max_what[0] ? t->max_what : "-");
    cr_assert(t->max_run < SWEEP_RUN_LIMIT);
}

/* Cut i of a dump: offset i*len/n plus a jitter inside that step; cut 0
 * falls in the first 64 bytes (empty input, the header, the first record). */
static size_t cut_at(const input *in, uint64_t seed, size_t i)
{
    size_t step = in->len / in->n, base = (size_t)((double)i * in->len / in->n);
    uint64_t h = draw(seed, in->fhash, 1, i, 0);

    if (i == 0)
        return (size_t)(h % (in->len < 64 ? in->len : 64));
    return base + (step ? (size_t)(h % step) : 0);
}

/* The dumps a sweep reads: dump_paths_sampled(), or, when the sample holds
 * none the sweep takes (HS_TEST_DUMPS=1 may pick only the 500 MB one, over
 * SWEEP_MAX_BYTES), the first of all the dumps that it does take. */
static const char *const *sweep_list(void)
{
    return dump_paths_sampled_upto(SWEEP_MAX_BYTES);
}

static void sweep_cuts(unsigned shard)
{
    const char *const *pp = sweep_list();
    uint64_t seen[128];
    size_t n_seen = 0, dumps = 0;
    tally t;
    input in;
    char test[32];

    memset(&t, 0, sizeof t);
    t.seed = sweep_seed();
    cr_log_info("sweep: seed %#llx", (unsigned long long)t.seed);
    while (next_input(&pp, &in, seen, &n_seen)) {
        size_t i;
        dumps++;
        for (i = shard; i < in.n; i += SWEEP_SHARDS) {
            size_t cut = cut_at(&in, t.seed, i);
            size_t chunk = pick_chunk(draw(t.seed, in.fhash, 1, i, 1));
            char what[160];

            snprintf(what, sizeof what, "%s cut %zu of %zu at byte %zu (chunk %zu)", in.path, i,
                     in.n, cut, chunk);
            sweep_both(&t, &in, in.data, cut, cut, chunk, what);
        }
        input_free(&in);
    }
    cr_assert_gt(dumps, 0, "no dump to sweep");
    snprintf(test, sizeof test, "cuts_%u", shard);
    summary(&t, test, dumps);
}

/* The intact dump through the filter (salvage off or on): it must pass,
 * and its output walk; a flip giving the same output is then known good. */
static void keep_reference(input *in, int salvage)
{
    hs_options opt;
    run_result r;
    walk_result w;

    memset(&opt, 0, sizeof opt);
    opt.salvage = salvage;
    r = run_preset_capped(in->data, in->len, "default", &opt, 0, out_cap(in->len));
    cr_assert_eq(r.status, HS_OK, "%s intact, salvage %s: %s", in->path, salvage ? "on" : "off",
                 r.err.message);
    w = walk_dump(r.out, r.out_len, 0);
    cr_assert(w.ok, "%s intact, salvage %s: the output does not walk: %s", in->path,
              salvage ? "on" : "off", w.error);
    walk_free(&w);
    in->ref[salvage] = r.out;
    in->ref_len[salvage] = r.out_len;
}

/* Flip i of a dump: even i anywhere, odd i within 32 bytes after the end of
 * an object (the next sub-record's header), every 16th in the file header
 * or the first record. */
static size_t flip_at(const input *in, uint64_t seed, size_t i, unsigned *bit)
{
    uint64_t h = draw(seed, in->fhash, 2, i, 0), h2 = draw(seed, in->fhash, 2, i, 1);
    size_t pos;

    *bit = (unsigned)(h2 & 7);
    if (i % 16 == 15)
        pos = (size_t)(h % (in->header + 32));
    else if (i % 2 == 1 && in->w.n_object_ends)
        pos = (size_t)in->w.object_ends[h % in->w.n_object_ends] + (size_t)((h2 >> 3) % 32);
    else
        pos = (size_t)(h % in->len);
    return pos < in->len ? pos : in->len - 1;
}

static void sweep_flips(unsigned shard)
{
    const char *const *pp = sweep_list();
    uint64_t seen[128];
    size_t n_seen = 0, dumps = 0;
    tally t;
    input in;
    char test[32];

    memset(&t, 0, sizeof t);
    t.seed = sweep_seed();
    cr_log_info("sweep: seed %#llx", (unsigned long long)t.seed);
    while (next_input(&pp, &in, seen, &n_seen)) {
        size_t i;
        int salvage;
        dumps++;
        for (salvage = 0; salvage <= 1; salvage++)
            keep_reference(&in, salvage);
        for (i = shard; i < in.n; i += SWEEP_SHARDS) {
            unsigned bit;
            size_t pos = flip_at(&in, t.seed, i, &bit);
            size_t chunk = pick_chunk(draw(t.seed, in.fhash, 2, i, 2));
            char what[160];

            snprintf(what, sizeof what, "%s flip %zu of %zu at byte %zu bit %u (chunk %zu)",
                     in.path, i, in.n, pos, bit, chunk);
            in.data[pos] ^= (uint8_t)(1u << bit);
            sweep_both(&t, &in, in.data, in.len, SIZE_MAX, chunk, what);
            in.data[pos] ^= (uint8_t)(1u << bit);
        }
        input_free(&in);
    }
    cr_assert_gt(dumps, 0, "no dump to sweep");
    snprintf(test, sizeof test, "flips_%u", shard);
    summary(&t, test, dumps);
}

#if SWEEP_SHARDS != 8
#error "one Test() per shard below"
#endif

Test(sweep, cuts_0, .timeout = 240) { sweep_cuts(0); }
Test(sweep, cuts_1, .timeout = 240) { sweep_cuts(1); }
Test(sweep, cuts_2, .timeout = 240) { sweep_cuts(2); }
Test(sweep, cuts_3, .timeout = 240) { sweep_cuts(3); }
Test(sweep, cuts_4, .timeout = 240) { sweep_cuts(4); }
Test(sweep, cuts_5, .timeout = 240) { sweep_cuts(5); }
Test(sweep, cuts_6, .timeout = 240) { sweep_cuts(6); }
Test(sweep, cuts_7, .timeout = 240) { sweep_cuts(7); }
Test(sweep, flips_0, .timeout = 240) { sweep_flips(0); }
Test(sweep, flips_1, .timeout = 240) { sweep_flips(1); }
Test(sweep, flips_2, .timeout = 240) { sweep_flips(2); }
Test(sweep, flips_3, .timeout = 240) { sweep_flips(3); }
Test(sweep, flips_4, .timeout = 240) { sweep_flips(4); }
Test(sweep, flips_5, .timeout = 240) { sweep_flips(5); }
Test(sweep, flips_6, .timeout = 240) { sweep_flips(6); }
Test(sweep, flips_7, .timeout = 240) { sweep_flips(7); }
