/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_io_api.c - the public I/O calls (hprof_strip.h, "I/O"): every kind of
 * source (path, descriptor, memory, read callback) over a plain, a gzip and
 * a zstd copy of a dump gives the filter the same dump, so the same output;
 * every sink round-trips what it is given; and the failures are named.
 * Compressed copies are made here with zlib and libzstd, not the library.
 */
#define _DEFAULT_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "helpers.h"
#include "hprof_strip.h"

#define DUMP "fixtures/jvm17-64bit.hprof"

enum { PLAIN, GZ, ZST, FORMATS };
enum { BY_PATH, BY_FD, BY_MEMORY, BY_READ, KINDS };

static uint8_t *zstd_bytes(const uint8_t *p, size_t n, size_t *out_len)
{
    size_t cap = ZSTD_compressBound(n);
    uint8_t *out = malloc(cap);

    cr_assert(out);
    *out_len = ZSTD_compress(out, cap, p, n, 3);
    cr_assert(!ZSTD_isError(*out_len));
    return out;
}

static void write_file(const char *path, const uint8_t *p, size_t n)
{
    FILE *f = fopen(path, "wb");

    cr_assert(f && fwrite(p, 1, n, f) == n && fclose(f) == 0);
}

typedef struct {
    uint8_t *bytes[FORMATS];
    size_t len[FORMATS];
    char path[FORMATS][64];
    uint8_t *want; /* the default preset's output from the plain bytes */
    size_t want_len;
} fixture;

static void fixture_make(fixture *f)
{
    run_result r;
    int i;

    memset(f, 0, sizeof *f);
    f->bytes[PLAIN] = load_file(DUMP, &f->len[PLAIN]);
    cr_assert(f->bytes[PLAIN], "missing " DUMP);
    f->bytes[GZ] = gzip_bytes(f->bytes[PLAIN], f->len[PLAIN], &f->len[GZ]);
    f->bytes[ZST] = zstd_bytes(f->bytes[PLAIN], f->len[PLAIN], &f->len[ZST]);
    for (i = 0; i < FORMATS; i++) {
        snprintf(f->path[i], sizeof f->path[i], "/tmp/test_io_api.%d.%d", (int)getpid(), i);
        write_file(f->path[i], f->bytes[i], f->len[i]);
    }
    r = run_filter(f->bytes[PLAIN], f->len[PLAIN], "default", NULL, 0);
    cr_assert_eq(r.status, HS_OK);
    f->want = r.out;
    f->want_len = r.out_len;
}

static void fixture_free(fixture *f)
{
    int i;

    for (i = 0; i < FORMATS; i++) {
        unlink(f->path[i]);
        free(f->bytes[i]);
    }
    free(f->want);
}

/* A read callback handing out odd-sized pieces. */
static long piece_read(void *ctx, void *buf, size_t cap)
{
    mem_src *s = ctx;

    return mem_read(s, buf, cap > 7777 ? 7777 : cap);
}

/* Runs the default preset from `in` into memory; returns the status. */
static hs_status filter_into(hs_input *in, mem_sink *sink)
{
    hs_rules *rules = hs_rules_create(NULL);
    hs_filter *f;
    hs_sink k = {mem_write, sink};
    hs_status s;

    cr_assert(rules && hs_rules_preset(rules, "default", NULL) == HS_OK);
    f = hs_filter_create(rules, NULL, NULL);
    cr_assert(f);
    s = hs_filter_run(f, hs_input_source(in), &k);
    hs_filter_free(f);
    hs_rules_free(rules);
    return s;
}

Test(io_api, every_source_kind_and_format_gives_the_same_output)
{
    static const char *const kinds[] = {"path", "fd", "memory", "read"};
    static const char *const formats[] = {"plain", "gzip", "zstd"};
    static const int compression[] = {HS_COMPRESS_NONE, HS_COMPRESS_GZIP, HS_COMPRESS_ZSTD};
    fixture fx;
    int k, i;

    fixture_make(&fx);
    for (i = 0; i < FORMATS; i++)
        for (k = 0; k < KINDS; k++) {
            mem_src src = {fx.bytes[i], fx.len[i], 0, 0, -1, NULL};
            mem_sink sink = {NULL, 0, 0, 0};
            hs_input *in = NULL;
            hs_error err;
            int fd = -1;
            off_t end;

            switch (k) {
            case BY_PATH: in = hs_input_open_path(fx.path[i], &err); break;
            case BY_FD:
                fd = open(fx.path[i], O_RDONLY);
                in = hs_input_open_fd(fd, &err);
                break;
            case BY_MEMORY: in = hs_input_open_memory(fx.bytes[i], fx.len[i], &err); break;
            case BY_READ: in = hs_input_open_read(piece_read, &src, &err); break;
            }
            cr_assert(in, "%s %s: %s", kinds[k], formats[i], err.message);
            cr_assert_eq(hs_input_compression(in), compression[i], "%s %s", kinds[k],
                         formats[i]);
            cr_assert_eq(filter_into(in, &sink), HS_OK, "%s %s", kinds[k], formats[i]);
            cr_assert_eq(sink.len, fx.want_len, "%s %s: %zu bytes, want %zu", kinds[k],
                         formats[i], sink.len, fx.want_len);
            cr_assert(memcmp(sink.data, fx.want, fx.want_len) == 0, "%s %s", kinds[k],
                      formats[i]);
            cr_assert_null(hs_input_error(in), "%s %s", kinds[k], formats[i]);
            /* its own bytes taken: all of a compressed input; of a plain
             * one in place, those given back (a window behind at most) */
            if (i != PLAIN || k == BY_READ)
                cr_expect_eq(hs_input_bytes_read(in), fx.len[i], "%s %s: %llu of %zu",
                             kinds[k], formats[i],
                             (unsigned long long)hs_input_bytes_read(in), fx.len[i]);
            else
                cr_expect(hs_input_bytes_read(in) <= fx.len[i], "%s %s", kinds[k],
                          formats[i]);
            hs_input_close(in);
            if (fd >= 0) {
                /* the library never closes a descriptor it was given */
                end = lseek(fd, 0, SEEK_CUR);
                cr_assert(end >= 0, "%s %s: fd closed", kinds[k], formats[i]);
                close(fd);
            }
            if (k == BY_MEMORY) /* the caller's memory is left as it was */
                cr_assert(i != PLAIN || memcmp(fx.bytes[i], fx.bytes[PLAIN], 64) == 0);
            free(sink.data);
        }
    fixture_free(&fx);
}

/* hs_input_source_ex (0.4): 1 thread reads in the caller's thread (a gzip
 * input lends no blocks), 2 starts the reader thread (it does); the first
 * call decides; the output is the same. hs_input_mapping: the file as
 * mapped, for a SIGBUS handler; NULL for memory and callbacks. */
Test(io_api, source_threads_and_mapping)
{
    fixture fx;
    int i, t;
    uint64_t n;

    fixture_make(&fx);
    for (i = 0; i < FORMATS; i++)
        for (t = 1; t <= 2; t++) {
            mem_sink sink = {NULL, 0, 0, 0};
            hs_input *in = hs_input_open_path(fx.path[i], NULL);
            const hs_source *src;
            const void *map;

            cr_assert(in);
            src = hs_input_source_ex(in, t);
            cr_assert(src && src->read);
            cr_assert_eq(hs_input_source(in), src, "the first call decides");
            if (i == PLAIN)
                cr_assert(src->data && src->size == fx.len[i] && src->window && !src->borrow);
            else
                cr_assert(!src->data && !src->window);
            if (i == GZ)
                cr_assert_eq(src->borrow != NULL, t > 1, "gzip, %d threads: borrow %p", t,
                             (void *)src->borrow);
            map = hs_input_mapping(in, &n);
            cr_assert(map && n == fx.len[i], "format %d: %p, %llu of %zu", i, map,
                      (unsigned long long)n, fx.len[i]);
            cr_assert(memcmp(map, fx.bytes[i], 16) == 0);
            cr_assert_eq(filter_into(in, &sink), HS_OK);
            cr_assert(sink.len == fx.want_len && memcmp(sink.data, fx.want, sink.len) == 0,
                      "format %d, %d threads", i, t);
            hs_input_close(in);
            free(sink.data);
        }
    {
        hs_input *in = hs_input_open_memory(fx.bytes[PLAIN], fx.len[PLAIN], NULL);
        n = 1;
        cr_assert_null(hs_input_mapping(in, &n));
        cr_assert_eq(n, 0);
        cr_assert_null(hs_input_mapping(NULL, NULL));
        cr_assert_null(hs_input_source_ex(NULL, 1));
        cr_assert(hs_input_source_ex(in, -5)); /* as 0: the default */
        hs_input_close(in);
    }
    fixture_free(&fx);
}

Test(io_api, input_bytes_read_of_null_is_0)
{
    cr_expect_eq(hs_input_bytes_read(NULL), 0);
}

Test(io_api, memory_input_pages_are_left_alone)
{
    fixture fx;
    mem_sink sink = {NULL, 0, 0, 0};
    uint8_t *copy;
    hs_input *in;

    fixture_make(&fx);
    copy = malloc(fx.len[PLAIN]);
    cr_assert(copy);
    memcpy(copy, fx.bytes[PLAIN], fx.len[PLAIN]);
    in = hs_input_open_memory(fx.bytes[PLAIN], fx.len[PLAIN], NULL);
    cr_assert(in);
    cr_assert_eq(filter_into(in, &sink), HS_OK);
    hs_input_close(in);
    /* a mapped file's pages are given back (MADV_DONTNEED), which on a
     * caller's anonymous memory would zero it */
    cr_assert(memcmp(copy, fx.bytes[PLAIN], fx.len[PLAIN]) == 0);
    free(copy);
    free(sink.data);
    fixture_free(&fx);
}

/* ---- sinks -------------------------------------------------------------- */

static uint8_t *gunzip_all(const uint8_t *p, size_t n, size_t want)
{
    uint8_t *out = malloc(want + 1);
    z_stream z;
    int r;

    memset(&z, 0, sizeof z);
    cr_assert(out && inflateInit2(&z, 31) == Z_OK);
    z.next_in = (uint8_t *)(uintptr_t)p;
    z.avail_in = (uInt)n;
    z.next_out = out;
    z.avail_out = (uInt)want + 1;
    /* many members back to back: reset at each end */
    while ((r = inflate(&z, Z_NO_FLUSH)) == Z_STREAM_END && z.avail_in)
        cr_assert_eq(inflateReset(&z), Z_OK);
    cr_assert_eq(r, Z_STREAM_END);
    cr_assert_eq(z.total_out > 0 ? (size_t)(z.next_out - out) : 0, want);
    inflateEnd(&z);
    return out;
}

Test(io_api, sinks_round_trip)
{
    static const hs_compression cs[] = {HS_COMPRESS_NONE, HS_COMPRESS_ZSTD, HS_COMPRESS_GZIP};
    static const int threads[] = {1, 2, 0};
    size_t n = (5u << 20) + 12345, i, t, k;
    uint8_t *data = malloc(n);

    cr_assert(data);
    for (i = 0; i < n; i++) /* compressible, not trivially */
        data[i] = (uint8_t)((i * 2654435761u) >> 29 ^ (i >> 12));
    for (i = 0; i < 3; i++)
        for (t = 0; t < 3; t++) {
            mem_sink sink = {NULL, 0, 0, 0};
            hs_error err;
            hs_output *o = hs_output_open_write(mem_write, &sink, cs[i], 0, threads[t], &err);
            const hs_sink *k2;
            uint8_t *back;
            size_t got;

            cr_assert(o, "%s", err.message);
            k2 = hs_output_sink(o);
            cr_assert(k2 && k2->write);
            for (k = 0; k < n; k += 100000)
                cr_assert_eq(k2->write(k2->ctx, data + k, n - k < 100000 ? n - k : 100000), 0);
            cr_assert_eq(hs_output_finish(o, &err), HS_OK, "%s", err.message);
            cr_assert_eq(hs_output_written(o), sink.len);
            hs_output_close(o);
            if (cs[i] == HS_COMPRESS_NONE) {
                cr_assert_eq(sink.len, n);
                cr_assert(memcmp(sink.data, data, n) == 0);
            } else if (cs[i] == HS_COMPRESS_ZSTD) {
                back = malloc(n);
                got = ZSTD_decompress(back, n, sink.data, sink.len);
                cr_assert(!ZSTD_isError(got) && got == n, "zstd threads %d", threads[t]);
                cr_assert(memcmp(back, data, n) == 0);
                free(back);
            } else {
                back = gunzip_all(sink.data, sink.len, n);
                cr_assert(memcmp(back, data, n) == 0, "gzip threads %d", threads[t]);
                free(back);
            }
            cr_assert(sink.len < n || cs[i] == HS_COMPRESS_NONE);
            free(sink.data);
        }
    free(data);
}

Test(io_api, fd_sink_writes_the_descriptor_and_leaves_it_open)
{
    char path[64];
    hs_output *o;
    int fd;
    uint8_t buf[16];

    snprintf(path, sizeof path, "/tmp/test_io_api.out.%d", (int)getpid());
    fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    cr_assert(fd >= 0);
    o = hs_output_open_fd(fd, HS_COMPRESS_NONE, 0, 1, NULL);
    cr_assert(o);
    cr_assert_eq(hs_output_sink(o)->write(hs_output_sink(o)->ctx, "0123456789", 10), 0);
    cr_assert_eq(hs_output_finish(o, NULL), HS_OK);
    hs_output_close(o);
    cr_assert_eq(pread(fd, buf, sizeof buf, 0), 10); /* still open */
    cr_assert(memcmp(buf, "0123456789", 10) == 0);
    close(fd);
    unlink(path);
}

/* The library's sink, then its source: a dump through zstd and gzip and
 * back is the dump. */
Test(io_api, output_read_back_through_an_input)
{
    static const hs_compression cs[] = {HS_COMPRESS_ZSTD, HS_COMPRESS_GZIP};
    fixture fx;
    size_t i;

    fixture_make(&fx);
    for (i = 0; i < 2; i++) {
        mem_sink packed = {NULL, 0, 0, 0}, sink = {NULL, 0, 0, 0};
        hs_output *o = hs_output_open_write(mem_write, &packed, cs[i], 0, 2, NULL);
        hs_input *in;

        cr_assert(o);
        cr_assert_eq(hs_output_sink(o)->write(o ? hs_output_sink(o)->ctx : NULL,
                                              fx.bytes[PLAIN], fx.len[PLAIN]), 0);
        cr_assert_eq(hs_output_finish(o, NULL), HS_OK);
        hs_output_close(o);
        in = hs_input_open_memory(packed.data, packed.len, NULL);
        cr_assert(in);
        cr_assert_eq(hs_input_compression(in), (int)cs[i]);
        cr_assert_eq(filter_into(in, &sink), HS_OK);
        cr_assert(sink.len == fx.want_len && memcmp(sink.data, fx.want, sink.len) == 0);
        hs_input_close(in);
        free(packed.data);
        free(sink.data);
    }
    fixture_free(&fx);
}

/* hs_output_open_ex (0.4): level 0 as given is the format's own 0 (zstd's:
 * libzstd's default, 3; gzip's: stored), level 0 not as given the
 * default, as hs_output_open_fd's; a newer caller's field refused. */
static mem_sink pack(const hs_output_params *p, const void *data, size_t n)
{
    mem_sink sink = {NULL, 0, 0, 0};
    hs_error err;
    hs_output *o = hs_output_open_ex(-1, mem_write, &sink, p, &err);

    cr_assert(o, "%s", err.message);
    cr_assert_eq(hs_output_sink(o)->write(hs_output_sink(o)->ctx, data, n), 0);
    cr_assert_eq(hs_output_finish(o, &err), HS_OK, "%s", err.message);
    hs_output_close(o);
    return sink;
}

Test(io_api, output_params_say_level_0_itself)
{
    size_t n = 1u << 20, i;
    uint8_t *data = malloc(n), *back;
    hs_output_params p;
    mem_sink z0, z3, zdef, g0, g1;

    cr_assert(data);
    for (i = 0; i < n; i++)
        data[i] = (uint8_t)((i * 2654435761u) >> 29 ^ (i >> 12));
    memset(&p, 0, sizeof p);
    p.size = sizeof p;
    p.threads = 1;
    p.compress = HS_COMPRESS_ZSTD;
    p.level_as_given = 1;
    z0 = pack(&p, data, n);
    p.level = 3;
    z3 = pack(&p, data, n);
    p.level = 1;
    zdef = pack(&p, data, n); /* not a dump: the default is 3, so level 1 differs */
    cr_assert(z0.len == z3.len && memcmp(z0.data, z3.data, z0.len) == 0,
              "zstd level 0 as given is libzstd's 3: %zu and %zu bytes", z0.len, z3.len);
    cr_assert(zdef.len != z3.len || memcmp(zdef.data, z3.data, z3.len) != 0);
    p.compress = HS_COMPRESS_GZIP;
    p.level = 0;
    g0 = pack(&p, data, n);
    p.level_as_given = 0; /* the default: gzip 1 */
    g1 = pack(&p, data, n);
    cr_assert(g0.len > n, "gzip level 0 is stored: %zu bytes of %zu", g0.len, n);
    cr_assert(g1.len < n, "level 0 not as given is the default: %zu bytes of %zu", g1.len, n);
    back = gunzip_all(g0.data, g0.len, n);
    cr_assert(memcmp(back, data, n) == 0);
    free(back);
    free(z0.data), free(z3.data), free(zdef.data), free(g0.data), free(g1.data);
    free(data);
}

Test(io_api, output_params_misuse_is_a_usage_error)
{
    struct {
        hs_output_params p;
        int newer; /* a parameter this library does not have */
    } big;
    mem_sink sink = {NULL, 0, 0, 0};
    hs_error err;
    hs_output *o;

    cr_assert_null(hs_output_open_ex(1, NULL, NULL, NULL, &err));
    cr_assert_eq(err.code, HS_E_USAGE);
    memset(&big, 0, sizeof big);
    big.p.size = sizeof big;
    big.newer = 1;
    cr_assert_null(hs_output_open_ex(-1, mem_write, &sink, &big.p, &err));
    cr_assert_eq(err.code, HS_E_USAGE);
    cr_assert(strstr(err.message, "does not have"), "%s", err.message);
    big.newer = 0; /* zero past what the library knows: fine */
    o = hs_output_open_ex(-1, mem_write, &sink, &big.p, &err);
    cr_assert(o, "%s", err.message);
    hs_output_close(o);
    big.p.size = sizeof big.p;
    cr_assert_null(hs_output_open_ex(-1, NULL, NULL, &big.p, &err)); /* nowhere to write */
    cr_assert_eq(err.code, HS_E_USAGE);
    big.p.compress = HS_COMPRESS_GZIP;
    big.p.level = 13;
    big.p.level_as_given = 1;
    cr_assert_null(hs_output_open_ex(-1, mem_write, &sink, &big.p, &err));
    cr_assert_eq(err.code, HS_E_USAGE);
    cr_assert_str_eq(hs_output_error(NULL), "unknown error");
    cr_assert_eq(hs_output_errno(NULL), 0);
}

/* A reader that went away: the write's errno is EPIPE (a CLI ends quietly
 * on it, as gzip does); its words name it. */
Test(io_api, output_errno_of_a_closed_pipe)
{
    int fds[2];
    hs_output *o;
    static uint8_t block[1 << 16];
    int i, failed = 0;
    void (*was)(int) = signal(SIGPIPE, SIG_IGN);

    cr_assert_eq(pipe(fds), 0);
    close(fds[0]);
    o = hs_output_open_fd(fds[1], HS_COMPRESS_NONE, 0, 1, NULL);
    cr_assert(o);
    cr_assert_eq(hs_output_errno(o), 0);
    cr_assert_str_eq(hs_output_error(o), "unknown error");
    for (i = 0; i < 64 && !failed; i++)
        failed = hs_output_sink(o)->write(hs_output_sink(o)->ctx, block, sizeof block) != 0;
    failed |= hs_output_finish(o, NULL) != HS_OK;
    cr_assert(failed);
    cr_assert_eq(hs_output_errno(o), EPIPE);
    cr_assert(strstr(hs_output_error(o), strerror(EPIPE)), "%s", hs_output_error(o));
    hs_output_close(o);
    close(fds[1]);
    signal(SIGPIPE, was);
}

/* ---- failures ------------------------------------------------------------ */

Test(io_api, missing_path_is_a_read_error)
{
    hs_error err;

    cr_assert_null(hs_input_open_path("/nonexistent/dump.hprof", &err));
    cr_assert_eq(err.code, HS_E_READ);
    cr_assert(strstr(err.message, "/nonexistent/dump.hprof") != NULL, "%s", err.message);
    cr_assert(strstr(err.message, strerror(ENOENT)) != NULL, "%s", err.message);
    cr_assert_null(hs_input_open_path("/tmp", &err));
    cr_assert_eq(err.code, HS_E_READ);
    cr_assert_null(hs_input_open_path("/nonexistent", NULL)); /* NULL err is fine */
}

Test(io_api, zip_and_xz_are_unsupported_and_named)
{
    static const char zip[] = "PK\x03\x04 then a zip archive, not a dump";
    static const char xz[] = "\xfd" "7zXZ\x00 and more";
    mem_src src = {(const uint8_t *)zip, sizeof zip, 0, 0, -1, NULL};
    hs_error err;

    cr_assert_null(hs_input_open_memory(zip, sizeof zip, &err));
    cr_assert_eq(err.code, HS_E_UNSUPPORTED);
    cr_assert(strstr(err.message, "zip archive") && strstr(err.message, "unzip -p"), "%s",
              err.message);
    cr_assert_null(hs_input_open_read(mem_read, &src, &err));
    cr_assert_eq(err.code, HS_E_UNSUPPORTED);
    cr_assert_null(hs_input_open_memory(xz, sizeof xz, &err));
    cr_assert_eq(err.code, HS_E_UNSUPPORTED);
    cr_assert(strstr(err.message, "xz"), "%s", err.message);
}

Test(io_api, misuse_is_a_usage_error)
{
    hs_error err;

    cr_assert_null(hs_input_open_path(NULL, &err));
    cr_assert_eq(err.code, HS_E_USAGE);
    cr_assert_null(hs_input_open_fd(-1, &err));
    cr_assert_eq(err.code, HS_E_USAGE);
    cr_assert_null(hs_input_open_memory(NULL, 10, &err));
    cr_assert_eq(err.code, HS_E_USAGE);
    cr_assert_null(hs_input_open_read(NULL, NULL, &err));
    cr_assert_eq(err.code, HS_E_USAGE);
    cr_assert_null(hs_output_open_fd(-1, HS_COMPRESS_NONE, 0, 0, &err));
    cr_assert_eq(err.code, HS_E_USAGE);
    cr_assert_null(hs_output_open_write(NULL, NULL, HS_COMPRESS_ZSTD, 0, 0, &err));
    cr_assert_eq(err.code, HS_E_USAGE);
    cr_assert_null(hs_output_open_write(mem_write, NULL, (hs_compression)9, 0, 0, &err));
    cr_assert_eq(err.code, HS_E_USAGE);
    cr_assert_null(hs_output_open_write(mem_write, NULL, HS_COMPRESS_GZIP, 13, 0, &err));
    cr_assert_eq(err.code, HS_E_USAGE);
    cr_assert_eq(hs_output_finish(NULL, &err), HS_E_USAGE);
    cr_assert_null(hs_input_source(NULL));
    cr_assert_null(hs_output_sink(NULL));
    hs_input_close(NULL);
    hs_output_close(NULL);
}

Test(io_api, empty_memory_and_empty_callback_read_as_empty_input)
{
    mem_src src = {(const uint8_t *)"", 0, 0, 0, -1, NULL};
    mem_sink sink = {NULL, 0, 0, 0};
    hs_input *in = hs_input_open_memory("", 0, NULL);

    cr_assert(in);
    /* no dump at all: the filter says so, as for any empty input */
    cr_assert_neq(filter_into(in, &sink), HS_OK);
    hs_input_close(in);
    in = hs_input_open_read(mem_read, &src, NULL);
    cr_assert(in);
    cr_assert_neq(filter_into(in, &sink), HS_OK);
    hs_input_close(in);
    free(sink.data);
}

static int failing_write(void *ctx, const void *buf, size_t len)
{
    (void)ctx;
    (void)buf;
    (void)len;
    return -1;
}

static long failing_read(void *ctx, void *buf, size_t cap)
{
    int *calls = ctx;

    if ((*calls)++ == 0) { /* a good start, then a failure */
        memcpy(buf, "JAVA PROFILE 1.0.2", cap < 19 ? cap : 19);
        return cap < 19 ? (long)cap : 19;
    }
    return -1;
}

Test(io_api, failing_callbacks_fail_the_run)
{
    fixture fx;
    hs_output *o;
    hs_input *in;
    hs_rules *rules = hs_rules_create(NULL);
    hs_filter *f;
    hs_error err;
    int calls = 0;

    fixture_make(&fx);
    /* a write callback that fails: HS_E_WRITE (zstd may hold the bytes
     * until the end of the frame: then hs_output_finish says it) */
    o = hs_output_open_write(failing_write, NULL, HS_COMPRESS_NONE, 0, 1, NULL);
    in = hs_input_open_memory(fx.bytes[PLAIN], fx.len[PLAIN], NULL);
    cr_assert(o && in && rules);
    f = hs_filter_create(rules, NULL, NULL);
    cr_assert_eq(hs_filter_run(f, hs_input_source(in), hs_output_sink(o)), HS_E_WRITE);
    hs_filter_free(f);
    hs_output_close(o);
    hs_input_close(in);
    o = hs_output_open_write(failing_write, NULL, HS_COMPRESS_ZSTD, 0, 1, NULL);
    cr_assert(o);
    cr_assert_eq(hs_output_sink(o)->write(hs_output_sink(o)->ctx, "x", 1), 0);
    cr_assert_eq(hs_output_finish(o, &err), HS_E_WRITE);
    cr_assert(strstr(err.message, "callback"), "%s", err.message);
    hs_output_close(o);
    /* a read callback that fails: HS_E_READ */
    in = hs_input_open_read(failing_read, &calls, &err);
    cr_assert(in, "%s", err.message);
    f = hs_filter_create(rules, NULL, NULL);
    mem_sink sink = {NULL, 0, 0, 0};
    hs_sink k = {mem_write, &sink};
    cr_assert_eq(hs_filter_run(f, hs_input_source(in), &k), HS_E_READ);
    hs_filter_free(f);
    hs_input_close(in);
    free(sink.data);
    hs_rules_free(rules);
    fixture_free(&fx);
}

Test(io_api, cut_gzip_is_a_truncated_dump_with_the_layer_named)
{
    fixture fx;
    mem_sink sink = {NULL, 0, 0, 0};
    hs_input *in;

    fixture_make(&fx);
    in = hs_input_open_memory(fx.bytes[GZ], fx.len[GZ] / 2, NULL);
    cr_assert(in);
    cr_assert_eq(filter_into(in, &sink), HS_E_TRUNCATED);
    cr_assert(hs_input_error(in) && strstr(hs_input_error(in), "gzip data is truncated"), "%s",
              hs_input_error(in) ? hs_input_error(in) : "(none)");
    hs_input_close(in);
    free(sink.data);
    fixture_free(&fx);
}

/* What went wrong below the dump (0.4): a cut .gz is HS_E_TRUNCATED, a
 * .zst whose checksum fails HS_E_MALFORMED once drained (the filter may
 * stop first), an intact one HS_OK with the whole dump's bytes; zeros
 * after the last gzip member are a warning; NULL is fine. */
Test(io_api, input_damage_is_public)
{
    fixture fx;
    mem_sink sink = {NULL, 0, 0, 0};
    hs_input *in;
    uint8_t *bad;
    size_t n;

    fixture_make(&fx);
    in = hs_input_open_memory(fx.bytes[GZ], fx.len[GZ] / 2, NULL);
    cr_assert_eq(filter_into(in, &sink), HS_E_TRUNCATED);
    cr_assert_eq(hs_input_damaged(in), HS_E_TRUNCATED);
    cr_assert(hs_input_dump_bytes(in) > 0 && hs_input_dump_bytes(in) < fx.len[PLAIN]);
    cr_assert_eq(hs_input_shrank(in), 0);
    hs_input_close(in);

    /* a flipped bit in the last bytes of the frame: its checksum */
    bad = malloc(fx.len[ZST]);
    memcpy(bad, fx.bytes[ZST], fx.len[ZST]);
    bad[fx.len[ZST] - 2] ^= 0x40;
    in = hs_input_open_memory(bad, fx.len[ZST], NULL);
    sink.len = 0;
    (void)filter_into(in, &sink);
    hs_input_drain(in);
    cr_assert_eq(hs_input_damaged(in), HS_E_MALFORMED, "%s",
                 hs_input_error(in) ? hs_input_error(in) : "(no error)");
    cr_assert(hs_input_error(in));
    hs_input_close(in);
    free(bad);

    n = fx.len[GZ] + 512;
    bad = calloc(1, n); /* zeros after the member, as tape archives leave */
    memcpy(bad, fx.bytes[GZ], fx.len[GZ]);
    in = hs_input_open_memory(bad, n, NULL);
    sink.len = 0;
    cr_assert_eq(filter_into(in, &sink), HS_OK);
    cr_assert_eq(hs_input_damaged(in), HS_OK);
    cr_assert_eq(hs_input_dump_bytes(in), fx.len[PLAIN]);
    cr_assert(hs_input_warning(in), "no warning for zeros after the last member");
    hs_input_close(in);
    free(bad);

    in = hs_input_open_memory(fx.bytes[PLAIN], fx.len[PLAIN], NULL);
    sink.len = 0;
    cr_assert_eq(filter_into(in, &sink), HS_OK);
    hs_input_drain(in); /* nothing for a plain input */
    cr_assert_eq(hs_input_damaged(in), HS_OK);
    cr_assert_null(hs_input_warning(in));
    hs_input_close(in);

    cr_assert_eq(hs_input_damaged(NULL), HS_OK);
    hs_input_drain(NULL);
    cr_assert_eq(hs_input_dump_bytes(NULL), 0);
    cr_assert_eq(hs_input_shrank(NULL), 0);
    cr_assert_null(hs_input_warning(NULL));
    free(sink.data);
    fixture_free(&fx);
}

Test(io_api, mapping_from_a_path_and_from_an_input)
{
    static const char map[] = "com.example.Original -> a.a:\n    int count -> a\n";
    char path[64];
    hs_rules *rules = hs_rules_create(NULL);
    hs_input *in;
    hs_error err;
    hs_status s;

    snprintf(path, sizeof path, "/tmp/test_io_api.map.%d.gz", (int)getpid());
    {
        size_t n;
        uint8_t *gz = gzip_bytes((const uint8_t *)map, sizeof map - 1, &n);
        write_file(path, gz, n);
        free(gz);
    }
    cr_assert_eq(hs_rules_mapping_path(rules, path, 0, &err), HS_OK, "%s", err.message);
    /* not there: the caller's mistake, not a read to retry (issue #51) */
    cr_assert_eq(hs_rules_mapping_path(rules, "/nonexistent/map.txt", 0, &err), HS_E_USAGE);
    cr_assert(strstr(err.message, "mapping /nonexistent/map.txt"), "%s", err.message);
    in = hs_input_open_memory("x y z\n\0", 7, NULL);
    s = hs_rules_mapping_input(rules, in, 0, "mem", &err);
    cr_assert_eq(s, HS_E_USAGE, "%d %s", s, err.message);
    cr_assert(strstr(err.message, "mem:"), "%s", err.message);
    hs_input_close(in);
    in = hs_input_open_memory(map, sizeof map - 1, NULL);
    cr_assert_eq(hs_rules_mapping_input(rules, in, 0, "mem", &err), HS_OK, "%s", err.message);
    hs_input_close(in);
    unlink(path);
    hs_rules_free(rules);
}

/* The I/O's errors say their place as the core's do: UINT64_MAX where
 * there is none (a path not there, a zip), and a cut .gz mapping the
 * compressed byte its message names. */
Test(io_api, io_error_offsets_are_none_or_the_compressed_byte)
{
    static const char zip[] = "PK\x03\x04 then a zip archive, not a dump";
    static const char line[] = "com.example.Original -> a.a:\n    int count -> a\n";
    size_t n = 0, gn, i;
    char *map = malloc(200 * sizeof line);
    uint8_t *gz;
    const char *at;
    hs_rules *rules = hs_rules_create(NULL);
    hs_input *in;
    hs_error err;

    cr_assert_null(hs_input_open_path("/nonexistent/dump.hprof", &err));
    cr_assert_eq(err.offset, UINT64_MAX, "%llu", (unsigned long long)err.offset);
    cr_assert_null(hs_input_open_memory(zip, sizeof zip, &err));
    cr_assert_eq(err.offset, UINT64_MAX, "%llu", (unsigned long long)err.offset);
    cr_assert_not_null(map);
    for (i = 0; i < 200; i++, n += sizeof line - 1)
        memcpy(map + n, line, sizeof line - 1);
    gz = gzip_bytes((const uint8_t *)map, n, &gn);
    in = hs_input_open_memory(gz, gn / 2, NULL);
    cr_assert_eq(hs_rules_mapping_input(rules, in, 0, "mem", &err), HS_E_READ, "%s", err.message);
    at = strstr(err.message, "compressed byte ");
    cr_assert_not_null(at, "%s", err.message);
    cr_assert_eq(err.offset, strtoull(at + 16, NULL, 10), "%llu: %s",
                 (unsigned long long)err.offset, err.message);
    cr_assert(err.offset > 0 && err.offset <= gn / 2, "%s", err.message);
    hs_input_close(in);
    free(gz);
    free(map);
    hs_rules_free(rules);
}

/* ---- hs_job_run ------------------------------------------------------------ */

static int has(const char *doc, const char *what)
{
    return doc && strstr(doc, what) != NULL;
}

Test(io_api, job_runs_like_the_filter_and_reports)
{
    fixture fx;
    mem_sink sink = {NULL, 0, 0, 0}, plain = {NULL, 0, 0, 0};
    hs_job job;
    hs_input *in;
    hs_output *out;
    char *report;
    int rc;

    fixture_make(&fx);
    memset(&job, 0, sizeof job);
    job.size = sizeof job;
    job.compress = HS_COMPRESS_ZSTD;
    job.histogram = 1;
    in = hs_input_open_memory(fx.bytes[GZ], fx.len[GZ], NULL);
    out = hs_output_open_write(mem_write, &sink, HS_COMPRESS_ZSTD, 0, 2, NULL);
    cr_assert(in && out);
    rc = hs_job_run(&job, in, out, &report);
    cr_assert_eq(rc, 0, "%.400s", report);
    hs_input_close(in);
    hs_output_close(out);
    /* the default preset's output, in a zstd frame */
    {
        unsigned long long n = ZSTD_getFrameContentSize(sink.data, sink.len);
        size_t got;
        plain.data = malloc(fx.want_len + 1);
        got = ZSTD_decompress(plain.data, fx.want_len + 1, sink.data, sink.len);
        cr_assert(!ZSTD_isError(got), "%s", ZSTD_getErrorName(got));
        cr_assert_eq(got, fx.want_len, "%zu of %zu (frame says %llu)", got, fx.want_len, n);
        cr_assert(memcmp(plain.data, fx.want, got) == 0);
    }
    cr_assert(has(report, "{\"schema\":1,"), "%.400s", report);
    cr_assert(has(report, "\"exit_status\":0,\"error\":null"), "%.400s", report);
    cr_assert(has(report, "\"presets\":[\"default\"]"), "%.400s", report);
    cr_assert(has(report, "\"compression\":\"gzip\""), "%.400s", report);
    cr_assert(has(report, "\"compression\":\"zstd\""), "%.400s", report);
    cr_assert(has(report, "\"histogram\":{\"input\":[{"), "%.400s", report);
    cr_assert(has(report, "\"kept\":true"), "%.400s", report);
    cr_assert(has(report, "\"sha256\":{\"file\":\""), "%.400s", report);
    hs_free(report);
    free(sink.data);
    free(plain.data);
    fixture_free(&fx);
}

/* The output says its compression: a job that leaves its own 0 takes the
 * output's (before, it was a usage error), and one that says another is
 * told both by name (before: "another compression than the job's (1)"). */
Test(io_api, job_takes_the_compression_from_the_output)
{
    static const struct {
        hs_compression job;
        int rc;
        const char *says;
    } cases[] = {
        {HS_COMPRESS_NONE, 0, "\"compression\":\"zstd\""},
        {HS_COMPRESS_ZSTD, 0, "\"compression\":\"zstd\""},
        {HS_COMPRESS_GZIP, 2, "the job says compression gzip, the output was opened for zstd"},
        {(hs_compression)7, 2, "the job's compression 7 is none of none, zstd and gzip"},
    };
    fixture fx;
    size_t i;

    fixture_make(&fx);
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mem_sink sink = {NULL, 0, 0, 0};
        hs_job job;
        hs_input *in = hs_input_open_memory(fx.bytes[PLAIN], fx.len[PLAIN], NULL);
        hs_output *out = hs_output_open_write(mem_write, &sink, HS_COMPRESS_ZSTD, 0, 1, NULL);
        char *report;
        int rc;

        cr_assert(in && out);
        memset(&job, 0, sizeof job);
        job.size = sizeof job;
        job.compress = cases[i].job;
        rc = hs_job_run(&job, in, out, &report);
        cr_expect_eq(rc, cases[i].rc, "job compress %d: %.400s", (int)cases[i].job, report);
        cr_expect(has(report, cases[i].says), "job compress %d: %.600s", (int)cases[i].job,
                  report);
        hs_free(report);
        hs_input_close(in);
        hs_output_close(out);
        free(sink.data);
    }
    fixture_free(&fx);
}

Test(io_api, job_audit_gives_the_verdict)
{
    fixture fx;
    hs_job job;
    hs_input *in;
    char *report;
    int rc;

    fixture_make(&fx);
    memset(&job, 0, sizeof job);
    job.size = sizeof job;
    job.audit = 1;
    in = hs_input_open_path(fx.path[ZST], NULL);
    cr_assert(in);
    rc = hs_job_run(&job, in, NULL, &report); /* no output needed */
    hs_input_close(in);
    /* an unstripped dump holds data */
    cr_assert_eq(rc, 7, "%d %s", rc, report);
    cr_assert(has(report, "\"mode\":\"audit\""), "%.400s", report);
    cr_assert(has(report, "\"audit\":{\"clean\":false"), "%.400s", report);
    cr_assert(has(report, "\"output\":null"), "%.400s", report);
    hs_free(report);
    fixture_free(&fx);
}

Test(io_api, job_failures_have_the_cli_exit_codes_and_a_report)
{
    static const char bad_rules[] = "this is no rule\n";
    fixture fx;
    mem_sink sink = {NULL, 0, 0, 0};
    hs_job job;
    hs_input *in;
    hs_output *out;
    char *report;

    fixture_make(&fx);
    memset(&job, 0, sizeof job);
    job.size = sizeof job;
    /* usage: no output, an unknown preset, rules that do not parse, a
     * missing mapping file */
    in = hs_input_open_memory(fx.bytes[PLAIN], fx.len[PLAIN], NULL);
    cr_assert_eq(hs_job_run(&job, in, NULL, &report), 2);
    cr_assert(has(report, "\"status\":\"usage\""), "%.400s", report);
    hs_free(report);
    cr_assert_eq(hs_job_run(NULL, in, NULL, NULL), 2);
    out = hs_output_open_write(mem_write, &sink, HS_COMPRESS_NONE, 0, 1, NULL);
    job.preset = "no-such-preset";
    cr_assert_eq(hs_job_run(&job, in, out, &report), 2);
    cr_assert(has(report, "unknown preset 'no-such-preset'"), "%.400s", report);
    hs_free(report);
    job.preset = NULL;
    job.rules_text = bad_rules;
    job.rules_len = sizeof bad_rules - 1;
    cr_assert_eq(hs_job_run(&job, in, out, &report), 2);
    cr_assert(has(report, "rules_text:1:"), "%.400s", report);
    hs_free(report);
    job.rules_text = NULL;
    job.rules_len = 0;
    job.mapping_path = "/nonexistent/mapping.txt";
    cr_assert_eq(hs_job_run(&job, in, out, &report), 2);
    cr_assert(has(report, "mapping /nonexistent/mapping.txt"), "%.400s", report);
    hs_free(report);
    job.mapping_path = NULL;
    /* the output opened for another compression than the job's */
    job.compress = HS_COMPRESS_GZIP;
    cr_assert_eq(hs_job_run(&job, in, out, NULL), 2);
    job.compress = HS_COMPRESS_NONE;
    hs_input_close(in);
    hs_output_close(out);
    /* a cut .gz: truncated (3), salvaged with salvage (6) */
    in = hs_input_open_memory(fx.bytes[GZ], fx.len[GZ] / 2, NULL);
    out = hs_output_open_write(mem_write, &sink, HS_COMPRESS_NONE, 0, 1, NULL);
    cr_assert_eq(hs_job_run(&job, in, out, &report), 3, "%.400s", report);
    cr_assert(has(report, "gzip data is truncated"), "%.400s", report);
    cr_assert(has(report, "\"status\":\"truncated\""), "%.400s", report);
    hs_free(report);
    hs_input_close(in);
    hs_output_close(out);
    job.salvage = 1;
    in = hs_input_open_memory(fx.bytes[GZ], fx.len[GZ] / 2, NULL);
    out = hs_output_open_write(mem_write, &sink, HS_COMPRESS_NONE, 0, 1, NULL);
    cr_assert_eq(hs_job_run(&job, in, out, &report), 6, "%.400s", report);
    cr_assert(has(report, "\"exit_status\":6"), "%.400s", report);
    hs_free(report);
    /* one run per input */
    cr_assert_eq(hs_job_run(&job, in, out, NULL), 2);
    hs_input_close(in);
    hs_output_close(out);
    /* a failing write: I/O (4) */
    job.salvage = 0;
    in = hs_input_open_memory(fx.bytes[PLAIN], fx.len[PLAIN], NULL);
    out = hs_output_open_write(failing_write, NULL, HS_COMPRESS_NONE, 0, 1, NULL);
    cr_assert_eq(hs_job_run(&job, in, out, &report), 4, "%.400s", report);
    cr_assert(has(report, "\"status\":\"write\",\"retryable\":true"), "%.400s", report);
    hs_free(report);
    hs_input_close(in);
    hs_output_close(out);
    hs_free(NULL);
    free(sink.data);
    fixture_free(&fx);
}

/* A caller built against a header whose hs_job ended before `histogram`
 * sets `size` so: what lies past it (here, set on purpose) is not read. */
Test(io_api, job_fields_past_size_read_as_zero)
{
    fixture fx;
    mem_sink sink = {NULL, 0, 0, 0};
    hs_job job;
    hs_input *in;
    hs_output *out;
    char *report;

    fixture_make(&fx);
    memset(&job, 0, sizeof job);
    job.size = offsetof(hs_job, histogram);
    job.histogram = job.audit = job.salvage = 1;
    in = hs_input_open_memory(fx.bytes[PLAIN], fx.len[PLAIN], NULL);
    out = hs_output_open_write(mem_write, &sink, HS_COMPRESS_NONE, 0, 1, NULL);
    cr_assert_eq(hs_job_run(&job, in, out, &report), 0, "%.400s", report);
    cr_assert(has(report, "\"mode\":\"filter\""), "%.400s", report);
    cr_assert(has(report, "\"histogram\":null"), "%.400s", report);
    cr_assert(sink.len == fx.want_len && memcmp(sink.data, fx.want, sink.len) == 0,
              "%zu bytes, want %zu", sink.len, fx.want_len);
    hs_free(report);
    hs_input_close(in);
    hs_output_close(out);
    free(sink.data);
    fixture_free(&fx);
}

/* A caller built with a newer header: the fields past this library's are
 * read when 0 (its job runs), refused when set (it would not get them). */
Test(io_api, job_fields_past_the_library_must_be_zero)
{
    fixture fx;
    mem_sink sink = {NULL, 0, 0, 0};
    struct {
        hs_job job;
        uint64_t newer; /* a field this library does not have */
    } big;
    hs_input *in;
    hs_output *out;
    char *report;

    fixture_make(&fx);
    memset(&big, 0, sizeof big);
    big.job.size = sizeof big;
    in = hs_input_open_memory(fx.bytes[PLAIN], fx.len[PLAIN], NULL);
    out = hs_output_open_write(mem_write, &sink, HS_COMPRESS_NONE, 0, 1, NULL);
    cr_assert_eq(hs_job_run(&big.job, in, out, &report), 0, "%.400s", report);
    cr_assert(sink.len == fx.want_len && memcmp(sink.data, fx.want, sink.len) == 0);
    hs_free(report);
    hs_input_close(in);
    hs_output_close(out);

    big.newer = 1;
    sink.len = 0;
    in = hs_input_open_memory(fx.bytes[PLAIN], fx.len[PLAIN], NULL);
    out = hs_output_open_write(mem_write, &sink, HS_COMPRESS_NONE, 0, 1, NULL);
    cr_assert_eq(hs_job_run(&big.job, in, out, &report), HS_EXIT_USAGE, "%.400s", report);
    cr_assert(has(report, "\"status\":\"usage\""), "%.400s", report);
    cr_assert(has(report, "does not have"), "%.400s", report);
    cr_assert_eq(sink.len, 0, "a refused job wrote %zu bytes", sink.len);
    hs_free(report);
    hs_input_close(in);
    hs_output_close(out);
    free(sink.data);
    fixture_free(&fx);
}

/* hs_job.rules and options (0.4): a rule set the caller made gives what
 * the same preset named gives; with a preset too it is refused; the
 * filter's options reach the filter (a 1-byte memory cap fails the run as
 * a limit), one this library lacks refused. */
static int job_into(const hs_job *job, const fixture *fx, mem_sink *sink, char **report)
{
    hs_input *in = hs_input_open_memory(fx->bytes[PLAIN], fx->len[PLAIN], NULL);
    hs_output *out = hs_output_open_write(mem_write, sink, HS_COMPRESS_NONE, 0, 1, NULL);
    int rc = hs_job_run(job, in, out, report);

    hs_input_close(in);
    hs_output_close(out);
    return rc;
}

Test(io_api, job_takes_rules_and_options)
{
    fixture fx;
    mem_sink named = {NULL, 0, 0, 0}, made = {NULL, 0, 0, 0}, none = {NULL, 0, 0, 0};
    hs_rules *rules = hs_rules_create(NULL);
    struct {
        hs_options o;
        uint64_t newer;
    } big;
    hs_job job;
    char *report;

    fixture_make(&fx);
    cr_assert(rules && hs_rules_preset(rules, "privacy", NULL) == HS_OK);
    memset(&job, 0, sizeof job);
    job.size = sizeof job;
    job.preset = "privacy";
    cr_assert_eq(job_into(&job, &fx, &named, &report), 0, "%.400s", report);
    hs_free(report);
    job.preset = NULL;
    job.rules = rules;
    cr_assert_eq(job_into(&job, &fx, &made, &report), 0, "%.400s", report);
    cr_assert(has(report, "\"rules\""), "%.400s", report);
    hs_free(report);
    cr_assert(named.len == made.len && memcmp(named.data, made.data, made.len) == 0,
              "the privacy preset named and made differ: %zu and %zu bytes", named.len,
              made.len);
    job.preset = "default"; /* both: one or the other */
    cr_assert_eq(job_into(&job, &fx, &none, &report), HS_EXIT_USAGE, "%.400s", report);
    cr_assert(has(report, "one or the other"), "%.400s", report);
    cr_assert_eq(none.len, 0);
    hs_free(report);
    job.preset = NULL;

    memset(&big, 0, sizeof big);
    big.o.max_held = 1; /* the unused STRING records cannot be held */
    job.options = &big.o;
    job.options_size = sizeof big.o;
    cr_assert_eq(job_into(&job, &fx, &none, &report), HS_EXIT_LIMIT, "%.400s", report);
    cr_assert(has(report, "\"status\":\"limit\""), "%.400s", report);
    hs_free(report);
    big.o.max_held = 0;
    big.newer = 7;
    job.options_size = sizeof big;
    cr_assert_eq(job_into(&job, &fx, &none, &report), HS_EXIT_USAGE, "%.400s", report);
    cr_assert(has(report, "hs_job.options: an option this library version does not have"),
              "%.400s", report);
    cr_assert_eq(none.len, 0, "a refused job wrote %zu bytes", none.len);
    hs_free(report);
    big.newer = 0; /* zero past what the library knows: the run as without */
    none.len = 0;
    cr_assert_eq(job_into(&job, &fx, &none, &report), 0, "%.400s", report);
    cr_assert(none.len == made.len && memcmp(none.data, made.data, made.len) == 0);
    hs_free(report);
    hs_rules_free(rules);
    free(named.data), free(made.data), free(none.data);
    fixture_free(&fx);
}

/* ---- hs_job's progress, cancel and names ------------------------------------ */

/* The number after `key` in the JSON object that starts at `side` in the
 * report (`"input":{`, `"output":{`); UINT64_MAX when absent or null. */
static uint64_t side_number(const char *doc, const char *side, const char *key)
{
    const char *p = doc ? strstr(doc, side) : NULL;

    p = p ? strstr(p, key) : NULL;
    if (!p || p[strlen(key)] < '0' || p[strlen(key)] > '9')
        return UINT64_MAX;
    return strtoull(p + strlen(key), NULL, 10);
}

#define MAX_CALLS 256
typedef struct {
    uint64_t raw[MAX_CALLS], in[MAX_CALLS], out[MAX_CALLS];
    int n;
    int cancel_at; /* return non-zero from this call on (1-based); 0: never */
} progress_log;

static int log_progress(void *ctx, uint64_t raw, uint64_t in, uint64_t out)
{
    progress_log *p = ctx;

    if (p->n < MAX_CALLS) {
        p->raw[p->n] = raw;
        p->in[p->n] = in;
        p->out[p->n] = out;
    }
    p->n++;
    return p->cancel_at && p->n >= p->cancel_at;
}

Test(io_api, job_progress_grows_to_the_report_totals)
{
    fixture fx;
    mem_sink sink = {NULL, 0, 0, 0};
    progress_log log;
    hs_job job;
    hs_input *in;
    hs_output *out;
    char *report;
    int i;

    fixture_make(&fx);
    memset(&log, 0, sizeof log);
    memset(&job, 0, sizeof job);
    job.size = sizeof job;
    job.compress = HS_COMPRESS_ZSTD;
    job.threads = 2; /* the gzip reader on its thread: raw bytes counted there */
    job.progress = log_progress;
    job.progress_ctx = &log;
    in = hs_input_open_memory(fx.bytes[GZ], fx.len[GZ], NULL);
    out = hs_output_open_write(mem_write, &sink, HS_COMPRESS_ZSTD, 0, 2, NULL);
    cr_assert(in && out);
    cr_assert_eq(hs_job_run(&job, in, out, &report), 0, "%.400s", report);
    /* 3.6 MiB of dump at a call per MiB at least, and the last word */
    cr_assert(log.n >= 4 && log.n < MAX_CALLS, "%d calls", log.n);
    for (i = 1; i < log.n; i++) {
        cr_expect(log.raw[i] >= log.raw[i - 1] && log.out[i] >= log.out[i - 1], "call %d", i);
        cr_expect(log.in[i] >= log.in[i - 1] + (i < log.n - 1 ? ((uint64_t)1 << 20) : 0),
                  "call %d: %llu after %llu", i, (unsigned long long)log.in[i],
                  (unsigned long long)log.in[i - 1]);
    }
    cr_expect(log.raw[0] > 0 && log.raw[0] < fx.len[GZ], "%llu", (unsigned long long)log.raw[0]);
    /* the last call's counts are the report's */
    i = log.n - 1;
    cr_expect_eq(log.in[i], fx.len[PLAIN]);
    cr_expect_eq(log.in[i], side_number(report, "\"input\":{", "\"hprof_bytes\":"), "%.400s", report);
    cr_expect_eq(log.raw[i], fx.len[GZ]);
    cr_expect_eq(log.raw[i], side_number(report, "\"input\":{", "\"compressed_bytes\":"), "%s",
                 report);
    cr_expect_eq(log.out[i], fx.want_len);
    cr_expect_eq(log.out[i], side_number(report, "\"output\":{", "\"hprof_bytes\":"), "%s",
                 report);
    hs_free(report);
    hs_input_close(in);
    hs_output_close(out);
    free(sink.data);
    fixture_free(&fx);
}

/* Cancelled from the callback: exit 8 and "cancelled" in the report, as
 * hs_status_exit and hs_status_name have HS_E_CANCELLED; the caller's
 * input and output files stay where they are, the output unfinished. */
Test(io_api, job_cancelled_from_progress)
{
    char path[64];
    fixture fx;
    progress_log log;
    hs_job job;
    hs_input *in;
    hs_output *out;
    struct stat st;
    char *report;
    int fd;

    fixture_make(&fx);
    snprintf(path, sizeof path, "/tmp/test_io_api.%d.cancel", (int)getpid());
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    cr_assert(fd >= 0);
    memset(&log, 0, sizeof log);
    log.cancel_at = 2;
    memset(&job, 0, sizeof job);
    job.size = sizeof job;
    job.progress = log_progress;
    job.progress_ctx = &log;
    in = hs_input_open_path(fx.path[PLAIN], NULL);
    out = hs_output_open_fd(fd, HS_COMPRESS_NONE, 0, 1, NULL);
    cr_assert(in && out);
    cr_assert_eq(hs_job_run(&job, in, out, &report), HS_EXIT_CANCELLED, "%.400s", report);
    cr_assert_eq(HS_EXIT_CANCELLED, hs_status_exit(HS_E_CANCELLED));
    /* the second call cancelled; then the last word, whose return is ignored */
    cr_expect_eq(log.n, 3, "%d calls", log.n);
    cr_expect(log.in[2] < fx.len[PLAIN], "%llu", (unsigned long long)log.in[2]);
    /* a plain input's own bytes are the dump's (mapped: not the pages given back) */
    cr_expect(log.raw[0] == log.in[0] && log.raw[2] == log.in[2], "%llu %llu",
              (unsigned long long)log.raw[2], (unsigned long long)log.in[2]);
    cr_expect(has(report, "\"exit_status\":8,"), "%.400s", report);
    cr_expect(has(report, "\"code\":-9,\"status\":\"cancelled\",\"retryable\":true"), "%s",
              report);
    cr_expect(has(report, "\"message\":\"input: input byte "), "%.400s", report);
    cr_expect(has(report, "the run was cancelled\""), "%.400s", report);
    cr_expect(has(report, "\"kept\":false"), "%.400s", report);
    hs_free(report);
    /* nothing of the caller's closed or removed */
    cr_expect_eq(fstat(fd, &st), 0);
    cr_expect_eq(stat(path, &st), 0);
    cr_expect_eq(stat(fx.path[PLAIN], &st), 0);
    cr_expect_eq(hs_output_finish(out, NULL), HS_OK); /* still the caller's to end */
    hs_input_close(in);
    hs_output_close(out);
    cr_expect_eq(close(fd), 0);
    unlink(path);
    fixture_free(&fx);
}

/* Cancelled from another thread, as the man page says: that thread sets a
 * flag the callback returns. The callback waits (a second at most) for
 * the flag at its first call, so the run is surely still going. */
typedef struct {
    atomic_int calls;
    atomic_int stop;
} cross_thread;

static int cancel_flag(void *ctx, uint64_t raw, uint64_t in, uint64_t out)
{
    cross_thread *t = ctx;
    int waited;

    (void)raw, (void)in, (void)out;
    if (atomic_fetch_add(&t->calls, 1) == 0)
        for (waited = 0; !atomic_load(&t->stop) && waited < 1000; waited++)
            usleep(1000);
    return atomic_load(&t->stop);
}

typedef struct {
    hs_job job;
    hs_input *in;
    hs_output *out;
    char *report;
    int rc;
} job_thread;

static void *run_job(void *arg)
{
    job_thread *t = arg;

    t->rc = hs_job_run(&t->job, t->in, t->out, &t->report);
    return NULL;
}

Test(io_api, job_cancelled_from_another_thread)
{
    fixture fx;
    mem_sink sink = {NULL, 0, 0, 0};
    cross_thread flag;
    job_thread t;
    pthread_t th;
    int waited;

    fixture_make(&fx);
    atomic_init(&flag.calls, 0);
    atomic_init(&flag.stop, 0);
    memset(&t, 0, sizeof t);
    t.job.size = sizeof t.job;
    t.job.compress = HS_COMPRESS_GZIP;
    t.job.progress = cancel_flag;
    t.job.progress_ctx = &flag;
    t.in = hs_input_open_memory(fx.bytes[ZST], fx.len[ZST], NULL);
    t.out = hs_output_open_write(mem_write, &sink, HS_COMPRESS_GZIP, 0, 2, NULL);
    cr_assert(t.in && t.out);
    cr_assert_eq(pthread_create(&th, NULL, run_job, &t), 0);
    for (waited = 0; atomic_load(&flag.calls) == 0 && waited < 10000; waited++)
        usleep(1000);
    atomic_store(&flag.stop, 1);
    cr_assert_eq(pthread_join(th, NULL), 0);
    cr_expect_eq(t.rc, HS_EXIT_CANCELLED, "%d %s", t.rc, t.report);
    cr_expect(has(t.report, "\"status\":\"cancelled\""), "%s", t.report);
    cr_expect(has(t.report, "\"message\":\"input: decompressed byte "), "%s", t.report);
    hs_free(t.report);
    hs_input_close(t.in);
    hs_output_close(t.out);
    free(sink.data);
    fixture_free(&fx);
}

/* The names: in the report's "name" fields (JSON-escaped) and in the
 * messages where "input" and "output" stood. */
Test(io_api, job_names_in_report_and_messages)
{
    fixture fx;
    mem_sink sink = {NULL, 0, 0, 0};
    hs_job job;
    hs_input *in;
    hs_output *out;
    char *report;

    fixture_make(&fx);
    memset(&job, 0, sizeof job);
    job.size = sizeof job;
    job.in_name = "heap \"1\".hprof.gz";
    job.out_name = "heap-1.hprof";
    in = hs_input_open_memory(fx.bytes[GZ], fx.len[GZ], NULL);
    out = hs_output_open_write(mem_write, &sink, HS_COMPRESS_NONE, 0, 1, NULL);
    cr_assert_eq(hs_job_run(&job, in, out, &report), 0, "%.400s", report);
    cr_expect(has(report, "\"input\":{\"name\":\"heap \\\"1\\\".hprof.gz\","), "%.400s", report);
    cr_expect(has(report, "\"output\":{\"name\":\"heap-1.hprof\","), "%.400s", report);
    hs_free(report);
    hs_input_close(in);
    hs_output_close(out);
    /* a cut input: the message names it */
    in = hs_input_open_memory(fx.bytes[GZ], fx.len[GZ] / 2, NULL);
    out = hs_output_open_write(mem_write, &sink, HS_COMPRESS_NONE, 0, 1, NULL);
    cr_assert_eq(hs_job_run(&job, in, out, &report), 3, "%.400s", report);
    cr_expect(has(report, "\"message\":\"heap \\\"1\\\".hprof.gz: gzip data is truncated"), "%s",
              report);
    hs_free(report);
    hs_input_close(in);
    hs_output_close(out);
    /* a failing write: the message names the output */
    in = hs_input_open_memory(fx.bytes[PLAIN], fx.len[PLAIN], NULL);
    out = hs_output_open_write(failing_write, NULL, HS_COMPRESS_NONE, 0, 1, NULL);
    cr_assert_eq(hs_job_run(&job, in, out, &report), 4, "%.400s", report);
    cr_expect(has(report, "\"message\":\"heap-1.hprof: "), "%.400s", report);
    hs_free(report);
    hs_input_close(in);
    hs_output_close(out);
    /* an audit names its input too */
    job.audit = 1;
    in = hs_input_open_memory(fx.bytes[PLAIN], fx.len[PLAIN], NULL);
    cr_assert_eq(hs_job_run(&job, in, NULL, &report), 7, "%.400s", report);
    cr_expect(has(report, "\"input\":{\"name\":\"heap \\\"1\\\".hprof.gz\","), "%.400s", report);
    cr_expect(has(report, "\"output\":null"), "%.400s", report);
    hs_free(report);
    hs_input_close(in);
    free(sink.data);
    fixture_free(&fx);
}

/* A caller built before progress and the names sized its hs_job up to
 * `salvage`: what lies past it (set here on purpose, a callback that
 * would cancel at once and names) is never read. */
Test(io_api, job_sized_before_progress_runs_as_before)
{
    fixture fx;
    mem_sink sink = {NULL, 0, 0, 0};
    progress_log log;
    hs_job job;
    hs_input *in;
    hs_output *out;
    char *report;

    fixture_make(&fx);
    memset(&log, 0, sizeof log);
    log.cancel_at = 1;
    memset(&job, 0, sizeof job);
    job.size = offsetof(hs_job, progress);
    job.progress = log_progress;
    job.progress_ctx = &log;
    job.in_name = "named.hprof";
    job.out_name = "named.out";
    in = hs_input_open_memory(fx.bytes[GZ], fx.len[GZ], NULL);
    out = hs_output_open_write(mem_write, &sink, HS_COMPRESS_NONE, 0, 1, NULL);
    cr_assert_eq(hs_job_run(&job, in, out, &report), 0, "%.400s", report);
    cr_expect_eq(log.n, 0, "the callback was called %d times", log.n);
    cr_expect(has(report, "\"input\":{\"name\":null,"), "%.400s", report);
    cr_expect(has(report, "\"output\":{\"name\":null,"), "%.400s", report);
    cr_expect(!has(report, "named.hprof") && !has(report, "named.out"), "%.400s", report);
    cr_assert(sink.len == fx.want_len && memcmp(sink.data, fx.want, sink.len) == 0);
    hs_free(report);
    hs_input_close(in);
    hs_output_close(out);
    in = hs_input_open_memory(fx.bytes[GZ], fx.len[GZ] / 2, NULL);
    out = hs_output_open_write(mem_write, &sink, HS_COMPRESS_NONE, 0, 1, NULL);
    cr_assert_eq(hs_job_run(&job, in, out, &report), 3, "%.400s", report);
    cr_expect(has(report, "\"message\":\"input: gzip data is truncated"), "%.400s", report);
    hs_free(report);
    hs_input_close(in);
    hs_output_close(out);
    free(sink.data);
    fixture_free(&fx);
}
