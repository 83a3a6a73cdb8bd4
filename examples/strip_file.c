/* SPDX-License-Identifier: Apache-2.0 */
/*
 * strip_file.c - strip a heap dump with libhprofstrip, through callbacks of
 * our own over stdio. The library does no I/O: it pulls input through the
 * source's read callback and pushes output through the sink's write
 * callback, so a program can feed it from anything (a socket, a
 * decompressor, a buffer).
 *
 *     cc strip_file.c $(pkg-config --cflags --libs hprofstrip) -o strip_file
 *     ./strip_file IN OUT [PRESET]      (PRESET: default, privacy, ...)
 *
 * Exit status: 0 done, 1 failed (OUT is removed), 2 usage or unknown preset.
 */
#include <stdio.h>

#include <hprof_strip.h>

/* A short read is fine for the library: it calls again until 0 (end). */
static long read_file(void *ctx, void *buf, size_t cap)
{
    size_t n = fread(buf, 1, cap, (FILE *)ctx);
    return n == 0 && ferror((FILE *)ctx) ? -1 : (long)n;
}

/* The sink must take every byte it is given, or fail. */
static int write_file(void *ctx, const void *buf, size_t len)
{
    return fwrite(buf, 1, len, (FILE *)ctx) == len ? 0 : -1;
}

/* Runs the filter; on failure prints the library's message (it names the
 * input byte offset) and returns 1. */
static int strip(FILE *in, FILE *out, const char *preset)
{
    hs_error err;
    hs_status st;
    hs_rules *rules = hs_rules_create(NULL);
    hs_filter *f = NULL;

    if (!rules) {
        fprintf(stderr, "strip_file: out of memory\n");
        return 1;
    }
    st = hs_rules_preset(rules, preset, &err);
    if (st != HS_OK) {
        fprintf(stderr, "strip_file: %s\n", err.message);
        hs_rules_free(rules);
        return 2;
    }
    f = hs_filter_create(rules, NULL, NULL);
    if (!f) {
        fprintf(stderr, "strip_file: out of memory\n");
        hs_rules_free(rules);
        return 1;
    }
    hs_source src = {.read = read_file, .ctx = in};
    hs_sink dst = {.write = write_file, .ctx = out};
    st = hs_filter_run(f, &src, &dst);
    if (st != HS_OK)
        fprintf(stderr, "strip_file: %s: %s\n", hs_status_str(st), hs_filter_error(f)->message);
    hs_filter_free(f);
    hs_rules_free(rules);
    return st == HS_OK ? 0 : 1;
}

int main(int argc, char **argv)
{
    FILE *in, *out;
    int rc;

    if (argc < 3 || argc > 4) {
        fprintf(stderr, "usage: strip_file IN OUT [PRESET]\n");
        return 2;
    }
    in = fopen(argv[1], "rb");
    if (!in) {
        perror(argv[1]);
        return 1;
    }
    out = fopen(argv[2], "wb");
    if (!out) {
        perror(argv[2]);
        fclose(in);
        return 1;
    }
    rc = strip(in, out, argc == 4 ? argv[3] : "default");
    fclose(in);
    if (fclose(out) != 0 && rc == 0) {
        perror(argv[2]);
        rc = 1;
    }
    /* Output written before an error stays written: drop the partial file. */
    if (rc != 0)
        remove(argv[2]);
    return rc;
}
