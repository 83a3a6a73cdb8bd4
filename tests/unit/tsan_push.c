/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tsan_push.c - the push API's threads under ThreadSanitizer (`make
 * test-tsan`: Criterion's runner does not run under TSan, so
 * tests/unit/test_push.c has this twin): a dump written in pieces of several
 * sizes through a small buffer, plain and gzip, against a pulled run's
 * bytes; the writes that never wait, with a poll on the descriptor; a
 * broken dump stopping the writes; frees before the end.
 * Usage: tsan_push PLAIN.hprof GZIP.hprof.gz   Exit 0 when all holds.
 */
#define _POSIX_C_SOURCE 200809L
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hprof_strip.h"

typedef struct {
    unsigned char *data;
    size_t len, cap;
} buf;

static int buf_write(void *ctx, const void *p, size_t n)
{
    buf *b = ctx;

    if (b->len + n > b->cap) {
        size_t cap = (b->len + n) * 2;
        unsigned char *d = realloc(b->data, cap);

        if (!d)
            return -1;
        b->data = d;
        b->cap = cap;
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
    return 0;
}

static int g_failed;

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "tsan_push: %s\n", what);
        g_failed = 1;
    }
}

static buf load(const char *path)
{
    buf b = {NULL, 0, 0};
    unsigned char tmp[65536];
    FILE *f = fopen(path, "rb");
    size_t n;

    if (!f) {
        perror(path);
        exit(2);
    }
    while ((n = fread(tmp, 1, sizeof tmp, f)) > 0)
        buf_write(&b, tmp, n);
    fclose(f);
    return b;
}

static buf pulled(const buf *in)
{
    buf out = {NULL, 0, 0};
    hs_job job = {.size = sizeof job};
    hs_input *i = hs_input_open_memory(in->data, in->len, NULL);
    hs_output *o = hs_output_open_write(buf_write, &out, HS_COMPRESS_NONE, 0, 1, NULL);

    check(hs_job_run(&job, i, o, NULL) == 0, "the pulled run failed");
    hs_output_close(o);
    hs_input_close(i);
    return out;
}

/* Writes of `chunk` bytes (try: never waiting, polling the descriptor). */
static buf pushed(const buf *in, size_t chunk, int try)
{
    buf out = {NULL, 0, 0};
    hs_job job = {.size = sizeof job};
    hs_push_options opt = {sizeof opt, 4096, 0, 0};
    hs_output *o = hs_output_open_write(buf_write, &out, HS_COMPRESS_NONE, 0, 1, NULL);
    hs_push *p = hs_push_new(&job, o, &opt, NULL);
    struct pollfd pfd = {try ? hs_push_fd(p) : -1, POLLIN, 0};
    size_t pos = 0;

    while (pos < in->len) {
        size_t n = in->len - pos < chunk ? in->len - pos : chunk, taken = n;

        if (try)
            check(hs_push_try_write(p, in->data + pos, n, &taken) == HS_OK, "a try write");
        else
            check(hs_push_write(p, in->data + pos, n) == HS_OK, "a write");
        pos += taken;
        if (taken < n)
            check(poll(&pfd, 1, 60000) == 1, "no wakeup");
    }
    while (try && !hs_push_try_end(p))
        check(poll(&pfd, 1, 60000) == 1, "no wakeup for the end");
    check(hs_push_finish(p, NULL) == 0, "the pushed run failed");
    hs_push_free(p);
    hs_output_close(o);
    return out;
}

static void broken_and_freed(const buf *in)
{
    static const unsigned char bad[12] = {1, 0, 0, 0, 0, 0, 0, 0, 3, 'a', 'b', 'c'};
    hs_job job = {.size = sizeof job};
    hs_push_options opt = {sizeof opt, 64, 0, 0};
    buf out = {NULL, 0, 0};
    hs_output *o = hs_output_open_write(buf_write, &out, HS_COMPRESS_NONE, 0, 1, NULL);
    hs_push *p = hs_push_new(&job, o, &opt, NULL);
    hs_status s = hs_push_write(p, in->data, 31);
    int i;

    for (i = 0; i < 100000 && s == HS_OK; i++)
        s = hs_push_write(p, bad, sizeof bad);
    check(s == HS_E_MALFORMED, "a broken dump: the writes went on");
    check(hs_push_finish(p, NULL) == HS_EXIT_BAD_INPUT, "a broken dump: not exit 1");
    hs_push_free(p);
    hs_output_close(o);
    for (i = 0; i < 2; i++) { /* freed waiting for bytes, and after many */
        o = hs_output_open_write(buf_write, &out, HS_COMPRESS_NONE, 0, 1, NULL);
        p = hs_push_new(&job, o, i ? &opt : NULL, NULL);
        check(hs_push_write(p, in->data, i ? in->len / 2 : 100) == HS_OK, "a write");
        hs_push_free(p);
        hs_output_close(o);
    }
    free(out.data);
}

int main(int argc, char **argv)
{
    static const size_t chunks[] = {1, 7, 4093, 65536};
    int f;

    if (argc != 3) {
        fprintf(stderr, "usage: tsan_push PLAIN.hprof GZIP.hprof.gz\n");
        return 2;
    }
    for (f = 1; f <= 2; f++) {
        buf in = load(argv[f]), ref = pulled(&in);
        size_t c;

        for (c = 0; c < sizeof chunks / sizeof *chunks; c++) {
            buf got = pushed(&in, chunks[c], c % 2);

            check(got.len == ref.len && memcmp(got.data, ref.data, ref.len) == 0,
                  "pushed bytes differ from the pulled run's");
            free(got.data);
        }
        if (f == 1)
            broken_and_freed(&in);
        free(ref.data);
        free(in.data);
    }
    return g_failed;
}
