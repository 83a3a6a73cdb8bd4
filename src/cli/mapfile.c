/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mapfile.c - the CLI's side of --mapping and a rule file's `mapping FILE`:
 * reading the mapping (plain, gzip or zstd, through the input layer) and
 * handing its text to the library, which opens no files, as it streams.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "input.h"

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

/* The mapping is parsed as it is read and decompressed, under --max-held
 * from its first byte: a file too large for the cap, or a small .gz that
 * inflates to gigabytes, stops at the cap (exit 5), and one that is no
 * mapping (binary bytes, an endless line) stops at its first bad line
 * (exit 2, as any mapping that does not parse). */
int hs_cli_load_mapping(hs_rules *rules, const char *path, uint64_t max_held)
{
    hs_input *in = NULL;
    hs_source src;
    struct stat st;
    hs_error err;
    hs_status s;
    int fd = open(path, O_RDONLY), rc;

    if (fd < 0 || (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode))) {
        fprintf(stderr, "hprof-strip: mapping %s: %s\n", path,
                fd < 0 ? strerror(errno) : strerror(EISDIR));
        if (fd >= 0)
            close(fd);
        return EXIT_USAGE;
    }
    if (hs_input_open(&in, fd) != 0) {
        fprintf(stderr, "hprof-strip: mapping %s: %s\n", path,
                hs_input_error(in) ? hs_input_error(in) : "out of memory");
        hs_input_close(in);
        close(fd);
        return EXIT_USAGE;
    }
    memset(&src, 0, sizeof src);
    src.read = read_mapping;
    src.ctx = in;
    memset(&err, 0, sizeof err);
    s = hs_rules_mapping_read(rules, &src, max_held, path, &err);
    if (s == HS_E_READ)
        fprintf(stderr, "hprof-strip: mapping %s: %s\n", path,
                hs_input_error(in) ? hs_input_error(in) : strerror(errno ? errno : EIO));
    else if (s == HS_E_LIMIT && strstr(err.message, "(max_held)")) {
        /* the library names its option, we name ours */
        const char *cap = strstr(err.message, "(max_held)");
        fprintf(stderr, "hprof-strip: %.*s(--max-held)%s\n", (int)(cap - err.message),
                err.message, cap + sizeof "(max_held)" - 1);
    } else if (s != HS_OK)
        fprintf(stderr, "hprof-strip: %s\n", err.message);
    hs_input_close(in);
    close(fd);
    rc = s == HS_OK ? EXIT_OK : s == HS_E_LIMIT || s == HS_E_NOMEM ? EXIT_LIMIT : EXIT_USAGE;
    return rc;
}
