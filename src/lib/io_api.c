/* SPDX-License-Identifier: Apache-2.0 */
/*
 * io_api.c - the public face of the library's I/O (hprof_strip.h, "I/O"):
 * sources over a path, a descriptor, memory or a read callback, and sinks
 * over a descriptor or a write callback, on input.c and output.c, which do
 * the work for the CLI and for any program alike; and the mapping file
 * read through them.
 */
#define _POSIX_C_SOURCE 200809L
#include "alloc.h"
#include "fail.h"
#include "hprof_strip.h"
#include "input.h"
#include "ioerr.h"
#include "output.h"
#include "rules.h"
#include "sized.h"

#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* hs_input_open's failure `r` for `in`, said with `name` (NULL: none) in
 * front, at the input's offset when it has one. Closes `in`; returns NULL. */
static hs_input *open_failed(hs_input *in, hs_status r, const char *name, hs_error *err)
{
    const hs_error *e = in ? hs_input_fault(in) : NULL;
    const char *why = e ? e->message : "out of memory";
    uint64_t at = e ? e->offset : UINT64_MAX;

    assert(r != HS_OK && (e || r == HS_E_NOMEM));
    if (name)
        hs_io_error(err, r, at, "%s: %s", name, why);
    else
        hs_io_error(err, r, at, "%s", why);
    hs_input_close(in);
    return NULL;
}

/* A failure of open_path's, said "PATH: why" in `err` and, when `whole` is
 * not NULL, whole in *whole from `a` (a long path passes err's room). */
static void path_failed(hs_error *err, hs_status code, char **whole, const hs_alloc *a,
                        const char *path, const char *why)
{
    hs_io_fail(err, code, "%s: %s", path, why);
    if (whole)
        hs_keep_whole(whole, a, "%s: %s", path, why);
}

/* hs_input_open_path, its message kept whole in *whole when `whole` is not
 * NULL. */
static hs_input *open_path(const char *path, hs_error *err, char **whole, const hs_alloc *a)
{
    hs_input *in = NULL;
    struct stat st;
    int fd;
    hs_status r;

    if (!path) {
        hs_io_fail(err, HS_E_USAGE, "hs_input_open_path: no path");
        if (whole)
            hs_keep_whole(whole, a, "hs_input_open_path: no path");
        return NULL;
    }
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
        path_failed(err, HS_E_READ, whole, a, path, strerror(errno));
        return NULL;
    }
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        close(fd);
        path_failed(err, HS_E_READ, whole, a, path, strerror(EISDIR));
        return NULL;
    }
    r = hs_input_open(&in, fd);
    if (in)
        hs_input_own_fd(in);
    else
        close(fd);
    if (r != HS_OK && whole) /* open_failed's message, before it closes `in` */
        hs_keep_whole(whole, a, "%s: %s", path,
                      in && hs_input_error(in) ? hs_input_error(in) : "out of memory");
    return r == HS_OK ? in : open_failed(in, r, path, err);
}

HS_API hs_input *hs_input_open_path(const char *path, hs_error *err)
{
    return open_path(path, err, NULL, NULL);
}

HS_API hs_input *hs_input_open_path_ex(const char *path, hs_error *err, char **message)
{
    hs_alloc a;

    hs_alloc_init(&a, NULL); /* malloc's: given back with hs_free */
    if (message)
        *message = NULL;
    return open_path(path, err, message, &a);
}

HS_API hs_input *hs_input_open_fd(int fd, hs_error *err)
{
    hs_input *in = NULL;
    hs_status r;

    if (fd < 0) {
        hs_io_fail(err, HS_E_USAGE, "hs_input_open_fd: descriptor %d", fd);
        return NULL;
    }
    r = hs_input_open(&in, fd);
    return r == HS_OK ? in : open_failed(in, r, NULL, err);
}

/* An empty input in memory: no map to make of it. */
static long read_nothing(void *ctx, void *buf, size_t cap)
{
    (void)ctx;
    (void)buf;
    (void)cap;
    return 0;
}

HS_API hs_input *hs_input_open_memory(const void *data, size_t size, hs_error *err)
{
    hs_input *in = NULL;
    hs_status r;

    if (!data && size) {
        hs_io_fail(err, HS_E_USAGE, "hs_input_open_memory: no data for %zu bytes", size);
        return NULL;
    }
    r = size ? hs_input_open_with(&in, NULL, NULL, data, size)
             : hs_input_open_with(&in, read_nothing, NULL, NULL, 0);
    return r == HS_OK ? in : open_failed(in, r, NULL, err);
}

HS_API hs_input *hs_input_open_read(long (*read)(void *ctx, void *buf, size_t cap), void *ctx,
                                    hs_error *err)
{
    hs_input *in = NULL;
    hs_status r;

    if (!read) {
        hs_io_fail(err, HS_E_USAGE, "hs_input_open_read: no read callback");
        return NULL;
    }
    r = hs_input_open_with(&in, read, ctx, NULL, 0);
    return r == HS_OK ? in : open_failed(in, r, NULL, err);
}

HS_API uint64_t hs_input_bytes_read(const hs_input *in)
{
    return in ? hs_input_raw_bytes(in) : 0;
}

/* ---- outputs --------------------------------------------------------------- */

/* The CLI's defaults for what 0 means (see hprof_strip.h): level 0 the
 * format's own (unless `as_given`), threads 0 one per online core. */
static hs_output *open_output(int fd, int (*write)(void *ctx, const void *buf, size_t len),
                              void *ctx, hs_compression c, int level, int as_given, int threads,
                              hs_error *err)
{
    hs_output *o = NULL;

    if (c != HS_COMPRESS_NONE && !hs_compression_name(c)) {
        hs_io_fail(err, HS_E_USAGE, "unknown compression %d", (int)c);
        return NULL;
    }
    if (threads < 0 || (c == HS_COMPRESS_GZIP && (level < 0 || level > 12))) {
        hs_io_fail(err, HS_E_USAGE, "%s %d is out of range",
                   threads < 0 ? "thread count" : "gzip level", threads < 0 ? threads : level);
        return NULL;
    }
    if (threads == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        threads = n > 0 ? (int)n : 1;
    }
    if (!as_given && level == 0)
        level = HS_OUTPUT_LEVEL_DEFAULT;
    if (hs_output_open(&o, fd, c, level, threads) != HS_OK) {
        hs_io_fail(err, HS_E_NOMEM, "cannot start the compressor: %s",
                   o ? hs_output_error(o) : "out of memory");
        hs_output_free(o);
        return NULL;
    }
    if (write)
        hs_output_set_writer(o, write, ctx);
    return o;
}

HS_API hs_output *hs_output_open_fd(int fd, hs_compression c, int level, int threads,
                                    hs_error *err)
{
    if (fd < 0) {
        hs_io_fail(err, HS_E_USAGE, "hs_output_open_fd: descriptor %d", fd);
        return NULL;
    }
    return open_output(fd, NULL, NULL, c, level, 0, threads, err);
}

HS_API hs_output *hs_output_open_write(int (*write)(void *ctx, const void *buf, size_t len),
                                       void *ctx, hs_compression c, int level, int threads,
                                       hs_error *err)
{
    if (!write) {
        hs_io_fail(err, HS_E_USAGE, "hs_output_open_write: no write callback");
        return NULL;
    }
    return open_output(-1, write, ctx, c, level, 0, threads, err);
}

/* The end of the last hs_output_params field this library knows. */
#define PARAMS_KNOWN (offsetof(hs_output_params, threads) + sizeof(int))

HS_API hs_output *hs_output_open_ex(int fd, int (*write)(void *ctx, const void *buf, size_t len),
                                    void *ctx, const hs_output_params *p, hs_error *err)
{
    hs_output_params q;

    if (!p) {
        hs_io_fail(err, HS_E_USAGE, "hs_output_open_ex: no parameters");
        return NULL;
    }
    /* a caller built with a newer header asking for what this library
     * cannot do (the header's rule for sized structs) */
    if (hs_sized_unknown_set(p, PARAMS_KNOWN, p->size)) {
        hs_io_fail(err, HS_E_USAGE,
                   "hs_output_open_ex: a parameter this library version does not have is set");
        return NULL;
    }
    memset(&q, 0, sizeof q);
    memcpy(&q, p, p->size && p->size < PARAMS_KNOWN ? p->size : PARAMS_KNOWN);
    if (!write && fd < 0) {
        hs_io_fail(err, HS_E_USAGE, "hs_output_open_ex: descriptor %d and no write callback",
                   fd);
        return NULL;
    }
    return open_output(write ? -1 : fd, write, ctx, q.compress, q.level, q.level_as_given,
                       q.threads, err);
}

HS_API hs_status hs_output_finish(hs_output *out, hs_error *err)
{
    if (!out) {
        hs_io_fail(err, HS_E_USAGE, "hs_output_finish: no output");
        return HS_E_USAGE;
    }
    if (hs_output_end(out) != HS_OK) {
        hs_io_fail(err, HS_E_WRITE, "writing the output failed: %s", hs_output_error(out));
        return HS_E_WRITE;
    }
    return HS_OK;
}

HS_API void hs_output_close(hs_output *out)
{
    hs_output_free(out);
}

/* ---- the mapping file ------------------------------------------------------ */

/* The decompressed text, through the library's read callback: a cut or
 * corrupt .gz or .zst is a failed read, not a shorter mapping. */
static long read_mapping(void *ctx, void *buf, size_t cap)
{
    hs_input *in = ctx;
    long k = hs_input_read(in, buf, cap);

    if (k == 0 && hs_input_damage(in) != HS_DAMAGE_NONE)
        return -1;
    return k;
}

HS_API hs_status hs_rules_mapping_input(hs_rules *rules, hs_input *in, uint64_t max_held,
                                        const char *origin, hs_error *err)
{
    hs_source src;
    hs_error e;
    hs_status s;

    if (!in || !rules) {
        hs_io_fail(err, HS_E_USAGE, "hs_rules_mapping_input: no %s", in ? "rules" : "input");
        return HS_E_USAGE;
    }
    if (!origin)
        origin = "mapping";
    /* read, not borrowed: the mapping is parsed as it streams either way */
    memset(&src, 0, sizeof src);
    src.read = read_mapping;
    src.ctx = in;
    memset(&e, 0, sizeof e);
    errno = 0;
    s = hs_rules_mapping_read(rules, &src, max_held, origin, &e);
    if (s == HS_E_READ) {
        /* a cut or corrupt .gz says at which compressed byte, as the
         * message does */
        const hs_error *fault = hs_input_fault(in);
        const char *why = fault ? fault->message : strerror(errno ? errno : EIO);
        hs_io_error(&e, s, fault ? fault->offset : UINT64_MAX, "mapping %s: %s", origin, why);
        hs_keep_whole(&rules->message, &rules->alloc, "mapping %s: %s", origin, why);
    }
    if (err && s != HS_OK)
        *err = e;
    return s;
}

HS_API hs_status hs_rules_mapping_path(hs_rules *rules, const char *path, uint64_t max_held,
                                       hs_error *err)
{
    hs_input *in;
    hs_error e;
    hs_status s;
    char *whole = NULL;

    if (!path || !rules) {
        hs_io_fail(err, HS_E_USAGE, "hs_rules_mapping_path: no %s", path ? "rules" : "path");
        return HS_E_USAGE;
    }
    if (!(in = open_path(path, &e, &whole, &rules->alloc))) {
        /* its message is "PATH: why" already. A mapping that is not
         * there (or a directory, or not ours to read) is the caller's
         * mistake, not a read to retry: usage, as a missing rule file */
        s = e.code == HS_E_NOMEM ? HS_E_NOMEM : HS_E_USAGE;
        hs_io_fail(err, s, "mapping %s", e.message);
        hs_rules_begin_call(rules);
        /* e's may be cut: said again whole */
        hs_keep_whole(&rules->message, &rules->alloc, "mapping %s", whole ? whole : e.message);
        hs_alloc_free(&rules->alloc, whole);
        return s;
    }
    s = hs_rules_mapping_input(rules, in, max_held, path, err);
    hs_input_close(in);
    return s;
}
