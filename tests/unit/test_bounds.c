/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_bounds.c - dumps cut exactly at record and sub-record boundaries
 * (issue #12), where test_sweep.c cuts at random offsets.
 *
 * The boundaries come from the tests' own scan (cutscan.c): every offset
 * where a top-level record ends (the file header's end first), and inside
 * every heap record the offset after its record header and after each of
 * its sub-records. Each cut runs twice through the filter:
 *
 * - salvage off: HS_OK exactly where the dump may legally end (between
 *   records, no segmented heap dump open, a heap dump begun: before it the
 *   dump was cut, filter.c's check_end), HS_E_TRUNCATED everywhere else,
 *   naming the cut as the offset; a cut between records after a
 *   HEAP_DUMP_SEGMENT says the heap dump has no HEAP_DUMP_END.
 * - salvage on: HS_OK at a legal end (and then the very output of the run
 *   without salvage), HS_SALVAGED everywhere else; the output walks
 *   (helpers.c), ends between records with no heap dump open, and holds,
 *   by id, every instance, array and class dump complete before the cut.
 *
 * Presets rotate over the cuts (default, none, privacy: the copying path,
 * the re-encoding one, and the one holding instances back for their class),
 * and so do the reads (whole input, mapped, 4093-byte reads).
 *
 * Which boundaries: every one of the hand-made dumps (dg_everything: every
 * tag, ids of 4 and 8, JVM and Android), and of each real dump (the corpus
 * with its two bad-* files up to their damage, the fixtures not already in
 * the corpus, the fresh dumps make check writes to build/fresh) a sample
 * whose cost, the bytes the filter reads summed over the cuts, stays within
 * BOUNDS_BUDGET_MB (240, 60 under AddressSanitizer; 0: every boundary,
 * hours of CPU on the corpus), except one class, cut in full in dumps up to
 * 8 MiB (the corpus and the fixtures): the record boundaries where the heap
 * dump changes (header end, the end of the dump, before and after every
 * HEAP_DUMP, HEAP_DUMP_SEGMENT and HEAP_DUMP_END record). Larger dumps get a
 * quarter of the budget for those, and a quarter goes to the start of every
 * heap record's body; the rest to the other top-level boundaries (a
 * third) and the sub-record boundaries (two thirds), each class taken at an
 * even stride (every k-th boundary, k as small as the budget allows: every
 * one where it fits). The log (--verbose) says how many of each class were
 * cut per dump.
 * Dumps over 64 MB (the 522 MB oom dump) are left out.
 *
 * BOUNDS_ONLY=text cuts only the real dumps whose path holds the text
 * (BOUNDS_ONLY=jvm7 BOUNDS_BUDGET_MB=0: every boundary of one small dump).
 *
 * Work is split into BOUNDS_SHARDS tests, each taking every
 * BOUNDS_SHARDS-th cut, so `--jobs 2` runs them side by side.
 */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cutscan.h"
#include "helpers.h"

#if defined(__SANITIZE_ADDRESS__)
#define BOUNDS_BUDGET_DEFAULT 60
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BOUNDS_BUDGET_DEFAULT 60
#endif
#endif
#ifndef BOUNDS_BUDGET_DEFAULT
#define BOUNDS_BUDGET_DEFAULT 240
#endif
#define BOUNDS_SHARDS 4
#define BOUNDS_MAX_BYTES ((size_t)64 << 20)
#define BOUNDS_SMALL_BYTES ((size_t)8 << 20)

enum { CUT_TOP, CUT_SUB };

typedef struct {
    size_t at;
    unsigned char kind; /* CUT_TOP, CUT_SUB */
    unsigned char open; /* CUT_TOP: a segmented heap dump is open there */
} cut;

typedef struct {
    const char *name;
    const uint8_t *p;
    size_t len;
    cutscan s;
    cut *cuts;
    size_t n_cuts;
} target;

/* ---- one cut ----------------------------------------------------------- */

static const char *const presets[] = {"default", "none", "privacy"};

/* Re-encoding adds segment headers and HEAP_DUMP_ENDs; salvage completes a
 * cut record with up to 64 MiB of zeros (MAX_SALVAGE_PAD in encoder.c). */
static size_t out_cap(size_t len)
{
    return 2 * len + ((size_t)1 << 20) + ((size_t)64 << 20);
}

static size_t pick_chunk(size_t i)
{
    static const size_t chunks[] = {0, CHUNK_MAPPED, 4093};
    return chunks[(i / 3) % 3]; /* not in step with the presets */
}

/* What a salvaged (or legal) output must be: a whole dump with no heap
 * dump left open, every object complete before the cut in it by id. */
static void check_salvaged(const target *t, const cut *c, const run_result *r,
                           const char *what)
{
    walk_result w = walk_dump(r->out, r->out_len, 0);
    cutscan o;
    size_t k = cutscan_objects_before(&t->s, c->at), missing;
    uint64_t first = 0;

    cr_assert(w.ok, "%s: the output (%zu bytes) does not walk: %s", what, r->out_len, w.error);
    cr_assert_eq(w.empty_heap_records, 0, "%s: an empty heap record in the output", what);
    cutscan_run(&o, r->out, r->out_len);
    cr_assert(cutscan_legal_end(&o, r->out_len),
              "%s: the output does not end whole with its heap dump closed (%s)", what,
              o.open_at_whole ? "a HEAP_DUMP_SEGMENT without HEAP_DUMP_END" : o.error);
    cr_assert_geq(o.n_objs, k, "%s: %zu objects out, %zu were complete before the cut", what,
                  o.n_objs, k);
    missing = cutscan_missing(&t->s, k, &o, &first);
    cr_assert_eq(missing, 0, "%s: %zu of the %zu objects complete before the cut are missing "
                             "from the output, the first id %#llx",
                 what, missing, k, (unsigned long long)first);
    cutscan_free(&o);
    walk_free(&w);
}

/* At a legal end --salvage has nothing to do, but it implies re-encoding:
 * with -p none (a copy without it) the records may be laid out anew, so
 * only what they hold must be the same (the walker's digest is blind to
 * segmentation); with every other preset the bytes are the same. */
static void same_output(const run_result *r0, const run_result *r1, int relaid, const char *what)
{
    if (relaid) {
        walk_result w0 = walk_dump(r0->out, r0->out_len, 0);
        walk_result w1 = walk_dump(r1->out, r1->out_len, 0);
        cr_assert(w0.ok && w1.ok && w0.digest == w1.digest,
                  "%s: a legal end, but --salvage changes what the output holds", what);
        walk_free(&w0);
        walk_free(&w1);
        return;
    }
    cr_assert(r1->out_len == r0->out_len && memcmp(r1->out, r0->out, r0->out_len) == 0,
              "%s: a legal end, but --salvage changes the output (%zu bytes, %zu without)",
              what, r1->out_len, r0->out_len);
}

static void check_cut(const target *t, const cut *c, size_t i)
{
    const char *preset = presets[i % 3];
    size_t chunk = pick_chunk(i);
    int legal = c->kind == CUT_TOP && !c->open;
    char what[300];
    hs_options opt;
    run_result r0, r1;

    snprintf(what, sizeof what, "%s cut at %s boundary %zu%s, -p %s, %s", t->name,
             c->kind == CUT_TOP ? "record" : "sub-record", c->at,
             c->open == 1 ? " (heap dump open)" : c->open ? " (before the heap dump)" : "",
             preset,
             chunk == 0 ? "read whole" : chunk == CHUNK_MAPPED ? "mapped" : "4093-byte reads");
    memset(&opt, 0, sizeof opt);
    r0 = run_preset_capped(t->p, c->at, preset, &opt, chunk, out_cap(c->at));
    if (legal) {
        cr_assert_eq(r0.status, HS_OK, "%s, salvage off: status %d: %s", what, r0.status,
                     r0.err.message);
    } else {
        cr_assert_eq(r0.status, HS_E_TRUNCATED, "%s, salvage off: status %d, not truncated: %s",
                     what, r0.status, r0.err.message);
        cr_assert_eq(r0.err.offset, (uint64_t)c->at, "%s, salvage off: offset %llu: %s", what,
                     (unsigned long long)r0.err.offset, r0.err.message);
        if (c->kind == CUT_TOP)
            cr_assert(strstr(r0.err.message,
                             c->open == 2 ? "cut before its heap dump" : "HEAP_DUMP_END") != NULL,
                      "%s, salvage off: the message does not say what is missing: %s", what,
                      r0.err.message);
    }

    opt.salvage = 1;
    r1 = run_preset_capped(t->p, c->at, preset, &opt, chunk, out_cap(c->at));
    cr_assert_eq(r1.status, legal ? HS_OK : HS_SALVAGED, "%s, salvage on: status %d: %s", what,
                 r1.status, r1.err.message);
    if (legal)
        same_output(&r0, &r1, strcmp(preset, "none") == 0, what);
    check_salvaged(t, c, &r1, what);
    run_result_free(&r0);
    run_result_free(&r1);
}

/* ---- which boundaries ---------------------------------------------------- */

static int heap_tag(unsigned tag)
{
    return tag == 0x0C || tag == 0x1C || tag == 0x2C;
}

/* Top-level boundary j is where the heap dump changes: the header's end,
 * the dump's end, or next to a heap record. */
static int top_structural(const cutscan *s, size_t j)
{
    return j == 0 || j + 1 == s->n_tops || heap_tag(s->top_tag[j]) ||
           (j + 1 < s->n_tops && heap_tag(s->top_tag[j + 1]));
}

/* A sub-record boundary right after its heap record's header. */
static int sub_structural(const cutscan *s, size_t j)
{
    size_t at = s->subs[j];
    size_t lo = 0, hi = s->n_tops;

    /* the top boundary where this record starts is 9 bytes before */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->tops[mid] < at - 9)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->n_tops && s->tops[lo] == at - 9;
}

static size_t budget_bytes(void)
{
    const char *e = getenv("BOUNDS_BUDGET_MB");
    double mb = e && *e ? strtod(e, NULL) : BOUNDS_BUDGET_DEFAULT;
    return mb > 0 ? (size_t)(mb * 1048576.0) : 0;
}

typedef struct {
    int (*in_class)(const cutscan *, size_t, int);
    size_t chosen, of;
} klass;

static int is_top_a(const cutscan *s, size_t j, int top) { return top && top_structural(s, j); }
static int is_sub_a(const cutscan *s, size_t j, int top) { return !top && sub_structural(s, j); }
static int is_top_b(const cutscan *s, size_t j, int top) { return top && !top_structural(s, j); }
static int is_sub_b(const cutscan *s, size_t j, int top) { return !top && !sub_structural(s, j); }

static void add_cut(target *t, size_t at, int kind, int open)
{
    t->cuts = realloc(t->cuts, (t->n_cuts + 1) * sizeof *t->cuts);
    cr_assert_not_null(t->cuts);
    t->cuts[t->n_cuts].at = at;
    t->cuts[t->n_cuts].kind = (unsigned char)kind;
    t->cuts[t->n_cuts++].open = (unsigned char)open;
}

/* Takes every k-th boundary of class `c` (k from its cost against
 * `share` bytes; 0 = every one), the first and last always. Returns the
 * bytes the chosen cuts read. */
static size_t take_class(target *t, klass *c, size_t share)
{
    const cutscan *s = &t->s;
    size_t pass, stride = 1, cost = 0, n = 0, seen = 0;

    for (pass = 0; pass < 2; pass++) {
        int top;
        if (pass == 1 && share && cost > share)
            stride = (cost + share - 1) / share;
        for (top = 1; top >= 0; top--) {
            size_t j, n_b = top ? s->n_tops : s->n_subs;
            for (j = 0; j < n_b; j++) {
                size_t at = top ? s->tops[j] : s->subs[j];
                if (!c->in_class(s, j, top))
                    continue;
                if (pass == 0) {
                    cost += at, n++;
                    continue;
                }
                if (seen++ % stride == 0 || seen == n) {
                    add_cut(t, at, top ? CUT_TOP : CUT_SUB, top ? s->top_open[j] : 0);
                    c->chosen++;
                }
            }
        }
    }
    c->of = n;
    cost = 0;
    for (n = t->n_cuts - c->chosen; n < t->n_cuts; n++)
        cost += t->cuts[n].at;
    return cost;
}

static void choose_cuts(target *t)
{
    size_t budget = budget_bytes(), used;
    klass k[4] = {{is_top_a, 0, 0}, {is_sub_a, 0, 0}, {is_top_b, 0, 0}, {is_sub_b, 0, 0}};

    /* a dump of the corpus's size gets every record boundary next to a
     * heap record, whatever it costs (3 GB of reads in all) */
    used = take_class(t, &k[0], budget && t->len > BOUNDS_SMALL_BYTES ? budget / 4 : 0);
    used = used < budget / 4 ? used : budget / 4;
    used += take_class(t, &k[1], budget / 4);
    /* what the structural cuts left: a third to the other record
     * boundaries (most are cheap, in the strings at the start), two thirds
     * to the sub-record ones (deep in the file) */
    used = used < budget ? budget - used : budget / 8;
    take_class(t, &k[2], budget ? used / 3 : 0);
    take_class(t, &k[3], budget ? used - used / 3 : 0);
    cr_log_info("bounds: %s: %zu cuts: record boundaries %zu of %zu by the heap dump, %zu of "
                "%zu others; sub-record boundaries %zu of %zu at a record's start, %zu of %zu "
                "others",
                t->name, t->n_cuts, k[0].chosen, k[0].of, k[2].chosen, k[2].of, k[1].chosen,
                k[1].of, k[3].chosen, k[3].of);
}

/* ---- the dumps ----------------------------------------------------------- */

static size_t file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (size_t)st.st_size : 0;
}

/* A fixture with the size and name of a corpus file is its copy. */
static int in_corpus(const char *path)
{
    const char *base = strrchr(path, '/');
    char other[4200];

    if (strncmp(path, "fixtures/", 9) != 0 || !base)
        return 0;
    snprintf(other, sizeof other, "../shared/corpus%s", base);
    return file_size(other) == file_size(path);
}

/* Runs shard `shard`'s cuts of `t`; a bad dump's cuts stop at its damage. */
static void run_target(target *t, unsigned shard, size_t *runs)
{
    size_t i;

    cutscan_run(&t->s, t->p, t->len);
    cr_assert(t->s.header_ok, "%s: %s", t->name, t->s.error);
    if (strstr(t->name, "/bad-") == NULL)
        cr_assert(cutscan_legal_end(&t->s, t->len), "%s: the intact dump does not scan: %s",
                  t->name, t->s.error);
    choose_cuts(t);
    for (i = shard; i < t->n_cuts; i += BOUNDS_SHARDS) {
        check_cut(t, &t->cuts[i], i);
        (*runs)++;
    }
    free(t->cuts);
    cutscan_free(&t->s);
}

static void run_file(const char *path, unsigned shard, size_t *runs, size_t *dumps)
{
    const char *only = getenv("BOUNDS_ONLY");
    target t;
    size_t len;
    uint8_t *p;

    if (in_corpus(path) || (only && *only && !strstr(path, only)))
        return;
    p = load_file(path, &len);
    cr_assert(p != NULL && len > 0, "%s: cannot load", path);
    if (len > BOUNDS_MAX_BYTES) {
        cr_log_info("bounds: %s skipped (%zu bytes, over 64 MiB)", path, len);
        free(p);
        return;
    }
    memset(&t, 0, sizeof t);
    t.name = path;
    t.p = p;
    t.len = len;
    run_target(&t, shard, runs);
    (*dumps)++;
    free(p);
}

static void bounds_real(unsigned shard)
{
    const char *const *pp;
    size_t runs = 0, dumps = 0, j;
    glob_t g;

    for (pp = dump_paths_sampled(); *pp; pp++)
        run_file(*pp, shard, &runs, &dumps);
    /* the corrupt ones, whole up to their damage (dump_paths leaves them out) */
    if (need_shared("../shared/corpus/bad-corrupt-length-1.hprof", "bounds: cuts of the corrupt corpus dumps") &&
        glob("../shared/corpus/bad-*.hprof", 0, NULL, &g) == 0) {
        for (j = 0; j < g.gl_pathc; j++)
            run_file(g.gl_pathv[j], shard, &runs, &dumps);
        globfree(&g);
    }
    cr_assert_gt(dumps, 0, "no dump to cut");
    cr_log_info("bounds: shard %u: %zu cuts of %zu dumps, each with salvage off and on", shard,
                runs, dumps);
}

#if BOUNDS_SHARDS != 4
#error "one Test() per shard below"
#endif

Test(bounds, real_0, .timeout = 300) { bounds_real(0); }
Test(bounds, real_1, .timeout = 300) { bounds_real(1); }
Test(bounds, real_2, .timeout = 300) { bounds_real(2); }
Test(bounds, real_3, .timeout = 300) { bounds_real(3); }

/* Every boundary of the hand-made dumps: every record and sub-record tag
 * the format has, ids of 4 and 8, JVM and Android. */
Test(bounds, handmade_every_boundary)
{
    unsigned idsize;
    int android;

    for (idsize = 4; idsize <= 8; idsize += 4)
        for (android = 0; android <= 1; android++) {
            char name[64];
            target t;
            dump d;
            size_t i;

            dg_everything(&d, idsize, android);
            snprintf(name, sizeof name, "dg_everything(id %u%s)", idsize,
                     android ? ", Android" : "");
            memset(&t, 0, sizeof t);
            t.name = name;
            t.p = d.p;
            t.len = d.len;
            cutscan_run(&t.s, t.p, t.len);
            cr_assert(cutscan_legal_end(&t.s, t.len), "%s: %s", name, t.s.error);
            for (i = 0; i < t.s.n_tops; i++)
                add_cut(&t, t.s.tops[i], CUT_TOP, t.s.top_open[i]);
            for (i = 0; i < t.s.n_subs; i++)
                add_cut(&t, t.s.subs[i], CUT_SUB, 0);
            cr_assert_gt(t.s.n_subs, 10, "%s: too few sub-records to be worth it", name);
            /* every cut with every preset and every way of reading: m % 3
             * picks the preset, m / 3 the reads (check_cut) */
            for (i = 0; i < t.n_cuts; i++) {
                size_t m;
                for (m = 0; m < 9; m++)
                    check_cut(&t, &t.cuts[i], m);
            }
            free(t.cuts);
            cutscan_free(&t.s);
            dg_free(&d);
        }
}
