/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cutcheck.c - the tests' decoder for tests/cli/cli_cuts.sh: what a cut dump
 * holds, and whether a salvaged output holds it too.
 *
 *   cutcheck [-n LIMIT] PREFIX [OUTPUT]
 *
 * PREFIX (a file, or - for standard input) is the dump as far as it could
 * be decompressed from a cut .gz or .zst; -n: only its first LIMIT bytes
 * count. cutcheck prints one line,
 *
 *   header=H legal=L objects=K bytes=N
 *
 * H 1 when the file header is whole, L 1 when the dump may legally end
 * where PREFIX (or its LIMIT) ends (whole records, no segmented heap dump
 * open), K the instances, arrays and class dumps complete in it
 * (tests/unit/cutscan.c), N the bytes of PREFIX, all of them.
 * With OUTPUT (what --salvage wrote), it then checks that OUTPUT walks
 * (tests/unit/helpers.c), ends whole with its heap dump closed and holds every
 * one of those K objects by id, and exits 1 with the reason on standard
 * error when it does not. Exit 2: a usage or read error.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutscan.h"
#include "helpers.h"

/* The whole of `path` (- for standard input) in memory, or NULL. */
static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *fp = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    size_t cap = 1 << 20, n = 0, k;
    uint8_t *buf = malloc(cap);
    int err;

    if (!fp || !buf) {
        free(buf);
        return NULL;
    }
    while ((k = fread(buf + n, 1, cap - n, fp)) > 0) {
        n += k;
        if (n == cap) {
            uint8_t *more = realloc(buf, cap *= 2);
            if (!more) {
                free(buf);
                return NULL;
            }
            buf = more;
        }
    }
    err = ferror(fp);
    if (fp != stdin)
        fclose(fp);
    if (err) {
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

/* 0 when `out` is a whole, closed dump holding the `k` first objects of
 * `in`; otherwise says why on stderr and returns 1. */
static int check_output(const cutscan *in, const uint8_t *out, size_t out_len)
{
    walk_result w = walk_dump(out, out_len, 0);
    cutscan o;
    uint64_t first = 0;
    size_t missing;
    int bad = 1;

    cutscan_run(&o, out, out_len);
    if (!w.ok)
        fprintf(stderr, "cutcheck: the output (%zu bytes) does not walk: %s\n", out_len, w.error);
    else if (w.empty_heap_records)
        fprintf(stderr, "cutcheck: the output holds an empty heap record\n");
    else if (!cutscan_legal_end(&o, out_len))
        fprintf(stderr, "cutcheck: the output does not end whole with its heap dump closed%s\n",
                o.open_at_whole ? " (a HEAP_DUMP_SEGMENT without HEAP_DUMP_END)" : "");
    else if ((missing = cutscan_missing(in, in->n_objs, &o, &first)) != 0)
        fprintf(stderr, "cutcheck: %zu of the %zu objects complete in the input are missing "
                        "from the output, the first id %#llx\n",
                missing, in->n_objs, (unsigned long long)first);
    else
        bad = 0;
    cutscan_free(&o);
    walk_free(&w);
    return bad;
}

int main(int argc, char **argv)
{
    uint8_t *in, *out = NULL;
    size_t in_len = 0, out_len = 0;
    size_t limit = SIZE_MAX;
    cutscan s;
    int rc = 0;

    if (argc > 2 && strcmp(argv[1], "-n") == 0) {
        limit = (size_t)strtoull(argv[2], NULL, 10);
        argv += 2;
        argc -= 2;
    }
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: cutcheck [-n LIMIT] PREFIX|- [OUTPUT]\n");
        return 2;
    }
    if (!(in = slurp(argv[1], &in_len))) {
        fprintf(stderr, "cutcheck: cannot read %s\n", argv[1]);
        return 2;
    }
    if (limit > in_len)
        limit = in_len;
    cutscan_run(&s, in, limit);
    printf("header=%d legal=%d objects=%zu bytes=%zu\n", s.header_ok,
           cutscan_legal_end(&s, limit), s.n_objs, in_len);
    fflush(stdout);
    if (argc == 3) {
        if (!(out = slurp(argv[2], &out_len))) {
            fprintf(stderr, "cutcheck: cannot read %s\n", argv[2]);
            rc = 2;
        } else {
            rc = check_output(&s, out, out_len);
        }
    }
    cutscan_free(&s);
    free(in);
    free(out);
    return rc;
}
