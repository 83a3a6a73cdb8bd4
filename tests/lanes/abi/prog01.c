/* SPDX-License-Identifier: Apache-2.0 */
/*
 * prog01.c - a program of the 0.1 days: built by tests/lanes/abi.sh against
 * tests/lanes/abi/hprof_strip-0.1.h alone (as <hprof_strip.h>), and run against
 * the library as it is now. It strips IN into OUT with PRESET through the
 * 0.1 calls and writes its hs_stats, as the 0.1 header lays them out, to
 * STATS ("name value" lines), so the script can hold them against the
 * CLI's report.
 *
 * Canaries: its hs_options and its hs_stats are each followed by a guard.
 * The options' guard is all ones (a library reading past the 0.1 options
 * would take it for options set); the stats' guard must be untouched by
 * hs_filter_stats (a library writing a larger struct would overrun it).
 *
 *     prog01 IN OUT PRESET STATS    exit 0 done, 1 failed, 2 usage,
 *                                   3 the stats' guard was written
 */
#include <stdio.h>
#include <string.h>

#include <hprof_strip.h>

static long read_file(void *ctx, void *buf, size_t cap)
{
    size_t n = fread(buf, 1, cap, (FILE *)ctx);
    return n == 0 && ferror((FILE *)ctx) ? -1 : (long)n;
}

static int write_file(void *ctx, const void *buf, size_t len)
{
    return fwrite(buf, 1, len, (FILE *)ctx) == len ? 0 : -1;
}

#define GUARD 256

int main(int argc, char **argv)
{
    struct {
        hs_options opt;
        unsigned char guard[GUARD];
    } o;
    struct {
        hs_stats st;
        unsigned char guard[GUARD];
    } s;
    FILE *in, *out, *sf;
    hs_rules *rules;
    hs_filter *f;
    hs_error err;
    hs_status st;
    int i;

    if (argc != 5) {
        fprintf(stderr, "usage: prog01 IN OUT PRESET STATS\n");
        return 2;
    }
    in = fopen(argv[1], "rb");
    out = fopen(argv[2], "wb");
    sf = fopen(argv[4], "w");
    if (!in || !out || !sf) {
        perror("prog01");
        return 1;
    }
    rules = hs_rules_create(NULL);
    if (!rules || hs_rules_preset(rules, argv[3], &err) != HS_OK) {
        fprintf(stderr, "prog01: %s\n", rules ? err.message : "out of memory");
        hs_rules_free(rules); /* (LeakSanitizer, under make test-asan) */
        return 2;
    }
    memset(&o.opt, 0, sizeof o.opt);
    memset(o.guard, 0xFF, sizeof o.guard);
    o.opt.read_buffer = 1u << 16; /* an option set, which changes no byte */
    o.opt.find_duplicates = 1;    /* as the CLI's --stats-file asks */
    o.opt.count_nonzero = 1;
    f = hs_filter_create(rules, &o.opt, NULL);
    if (!f) {
        fprintf(stderr, "prog01: no filter\n");
        return 1;
    }
    {
        hs_source src = {.read = read_file, .ctx = in};
        hs_sink dst = {.write = write_file, .ctx = out};
        st = hs_filter_run(f, &src, &dst);
    }
    if (st != HS_OK)
        fprintf(stderr, "prog01: %s: %s\n", hs_status_str(st), hs_filter_error(f)->message);
    memset(&s, 0xA5, sizeof s);
    hs_filter_stats(f, &s.st);
    for (i = 0; i < GUARD; i++)
        if (s.guard[i] != 0xA5) {
            fprintf(stderr, "prog01: hs_filter_stats wrote byte %d past the 0.1 hs_stats\n", i);
            return 3;
        }
#define PRINT_(name, kind, what)                                                  \
    fprintf(sf, "%s %llu\n", #name, (unsigned long long)s.st.name);
    HS_STATS_COUNTERS(PRINT_)
#undef PRINT_
    hs_filter_free(f);
    hs_rules_free(rules);
    fclose(in);
    if (fclose(out) != 0 || fclose(sf) != 0)
        return 1;
    return st == HS_OK ? 0 : 1;
}
