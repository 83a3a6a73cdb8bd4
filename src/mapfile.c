/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mapfile.c - the CLI's side of --mapping and a rule file's `mapping FILE`:
 * reading the mapping (plain, gzip or zstd, through the input layer) and
 * handing its text to the library, which opens no files.
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

/* A mapping.txt of R8's largest apps is some hundreds of MiB; past this the
 * text is not a mapping (and --max-held would refuse what it holds). */
#define MAX_MAPPING_TEXT (4ull << 30)

/* Reads the whole (decompressed) file into *text; 0, or -1 with *why set. */
static int slurp(hs_input *in, char **text, size_t *len, const char **why)
{
    size_t cap = 1u << 20, n = 0;
    char *buf = malloc(cap), *b;
    long k;

    *why = NULL;
    while (buf) {
        if (n == cap) {
            if ((uint64_t)cap * 2 > MAX_MAPPING_TEXT) {
                *why = "larger than 4 GiB: not a mapping";
                break;
            }
            b = realloc(buf, cap * 2);
            if (!b)
                break;
            buf = b;
            cap *= 2;
        }
        k = hs_input_read(in, buf + n, cap - n);
        if (k < 0 || (k == 0 && hs_input_damage(in) != HS_DAMAGE_NONE)) {
            *why = hs_input_error(in) ? hs_input_error(in) : strerror(errno ? errno : EIO);
            break;
        }
        if (k == 0) {
            *text = buf;
            *len = n;
            return 0;
        }
        n += (size_t)k;
    }
    if (!*why)
        *why = "out of memory";
    free(buf);
    return -1;
}

int hs_cli_load_mapping(hs_rules *rules, const char *path)
{
    hs_input *in = NULL;
    const char *why;
    struct stat st;
    hs_error err;
    hs_status s;
    char *text = NULL;
    size_t len = 0;
    int fd = open(path, O_RDONLY), rc;

    if (fd < 0 || (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode))) {
        fprintf(stderr, "hprof-strip: mapping %s: %s\n", path,
                fd < 0 ? strerror(errno) : strerror(EISDIR));
        if (fd >= 0)
            close(fd);
        return EXIT_USAGE;
    }
    rc = hs_input_open(&in, fd);
    if (rc == 0)
        rc = slurp(in, &text, &len, &why);
    else
        why = hs_input_error(in) ? hs_input_error(in) : "out of memory";
    hs_input_close(in);
    close(fd);
    if (rc != 0) {
        fprintf(stderr, "hprof-strip: mapping %s: %s\n", path, why);
        return EXIT_USAGE;
    }
    s = hs_rules_mapping(rules, text, len, path, &err);
    rc = s == HS_OK ? EXIT_OK : s == HS_E_USAGE ? EXIT_USAGE : EXIT_LIMIT;
    free(text);
    if (rc != EXIT_OK)
        fprintf(stderr, "hprof-strip: %s\n", err.message);
    return rc;
}
