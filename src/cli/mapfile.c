/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mapfile.c - the CLI's side of --mapping and a rule file's `mapping FILE`:
 * the library reads the file (plain, gzip or zstd) and parses it as it
 * streams (hs_rules_mapping_path); this says what failed and how the
 * command exits.
 */
#include <string.h>

#include "cli.h"

/* The mapping is parsed as it is read and decompressed, under --max-held
 * from its first byte: a file too large for the cap, or a small .gz that
 * inflates to gigabytes, stops at the cap (exit 5), and one that is no
 * mapping (binary bytes, an endless line) stops at its first bad line
 * (exit 2, as any mapping that does not parse, or cannot be read: a
 * usage error, never retried, as the library's hs_job_run says too). The
 * failure is the report's, the file named, said through its hook. */
int hs_cli_load_mapping(hs_report *report, hs_rules *rules, const char *path, uint64_t max_held)
{
    hs_error err;
    hs_status s = hs_rules_mapping_path(rules, path, max_held, &err);
    /* err's message is cut at 320 bytes: a long path passes it */
    const char *msg = s != HS_OK && hs_rules_message(rules) ? hs_rules_message(rules) : err.message;
    const char *cap = strstr(msg, "(max_held)");

    if (s == HS_OK)
        return HS_EXIT_OK;
    if (s != HS_E_LIMIT && s != HS_E_NOMEM)
        s = HS_E_USAGE;
    if (s == HS_E_LIMIT && cap) /* the library names its option, we name ours */
        return hs_report_fail(report, s, NULL, "%.*s(--max-held)%s", (int)(cap - msg), msg,
                              cap + sizeof "(max_held)" - 1);
    return hs_report_fail(report, s, NULL, "%s", msg);
}
