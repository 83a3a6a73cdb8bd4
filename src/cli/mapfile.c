/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mapfile.c - the CLI's side of --mapping and a rule file's `mapping FILE`:
 * the library reads the file (plain, gzip or zstd) and parses it as it
 * streams (hs_rules_mapping_path); this says what failed and how the
 * command exits.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* The mapping is parsed as it is read and decompressed, under --max-held
 * from its first byte: a file too large for the cap, or a small .gz that
 * inflates to gigabytes, stops at the cap (exit 5), and one that is no
 * mapping (binary bytes, an endless line) stops at its first bad line
 * (exit 2, as any mapping that does not parse, or cannot be read). */
int hs_cli_load_mapping(hs_rules *rules, const char *path, uint64_t max_held)
{
    hs_error err;
    hs_status s = hs_rules_mapping_path(rules, path, max_held, &err);

    if (s == HS_OK)
        return HS_EXIT_OK;
    if (s == HS_E_LIMIT && strstr(err.message, "(max_held)")) {
        /* the library names its option, we name ours */
        const char *cap = strstr(err.message, "(max_held)");
        fprintf(stderr, "hprof-strip: %.*s(--max-held)%s\n", (int)(cap - err.message),
                err.message, cap + sizeof "(max_held)" - 1);
    } else {
        fprintf(stderr, "hprof-strip: %s\n", err.message);
    }
    return s == HS_E_LIMIT || s == HS_E_NOMEM ? HS_EXIT_LIMIT : HS_EXIT_USAGE;
}
