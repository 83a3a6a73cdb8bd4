/* SPDX-License-Identifier: Apache-2.0 */
/*
 * many_status.c - see many_status.h. The parent alone draws: each child
 * runs with its own progress display off, so jobs running side by side
 * never interleave their lines; the batch moves by whole files, which is
 * what the parent knows without asking its children.
 */
#define _POSIX_C_SOURCE 200809L
#include "many_status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static uint64_t file_size(const char *path)
{
    struct stat st;

    return path && stat(path, &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The line: files done of all, bytes, and the names of those running, as
 * many as fit (a terminal's row, or 200 columns in a log). */
static void draw(hs_many_status *b)
{
    char line[512];
    size_t n, room = sizeof line - 1;
    int i, shown = 0;

    if (!b->line)
        return;
    n = (size_t)snprintf(line, sizeof line, "hprof-strip: %d of %d files done", b->done,
                         b->cli->n_files);
    if (b->failed)
        n += (size_t)snprintf(line + n, sizeof line - n, " (%d failed)", b->failed);
    n += (size_t)snprintf(line + n, sizeof line - n, ", %.1f of %.1f MB", (double)b->read / 1e6,
                          (double)b->total / 1e6);
    for (i = 0; i < b->cli->n_files && n < room; i++)
        if (b->running[i]) {
            const char *name = base_name(b->cli->files[i]);
            if (n + strlen(name) + 12 > 200) { /* the rest: counted, not named */
                n += (size_t)snprintf(line + n, sizeof line - n, ", ...");
                break;
            }
            n += (size_t)snprintf(line + n, sizeof line - n, "%s%s", shown++ ? ", " : "; running ",
                                  name);
        }
    if (b->tty)
        fprintf(stderr, "\r%s\033[K", line);
    else
        fprintf(stderr, "%s\n", line);
    fflush(stderr);
}

int hs_many_status_start(hs_many_status *b, const hs_cli *cli)
{
    int i;

    memset(b, 0, sizeof *b);
    b->cli = cli;
    b->running = calloc((size_t)cli->n_files, 1);
    if (!b->running)
        return -1;
    b->tty = isatty(STDERR_FILENO);
    b->line = !cli->audit && cli->stats != 2 &&
              (cli->progress > 0 || (cli->progress < 0 && b->tty));
    for (i = 0; i < cli->n_files; i++)
        b->total += file_size(cli->files[i]);
    draw(b);
    return 0;
}

void hs_many_status_started(hs_many_status *b, int i)
{
    if (!b->running)
        return;
    b->running[i] = 1;
    b->started++;
    draw(b);
}

void hs_many_status_ended(hs_many_status *b, int i, int rc, const char *out)
{
    if (!b->running)
        return;
    b->running[i] = 0;
    b->read += file_size(b->cli->files[i]);
    if (rc == HS_EXIT_OK || rc == HS_EXIT_SALVAGED) {
        b->done++;
        b->salvaged += rc == HS_EXIT_SALVAGED;
        b->written += file_size(out);
    } else {
        b->failed++;
    }
    draw(b);
}

void hs_many_status_end(hs_many_status *b)
{
    const hs_cli *cli = b->cli;

    if (!b->running)
        return;
    if (b->line && b->tty)
        fputs("\r\033[K", stderr);
    if (!cli->quiet && !cli->audit && cli->stats != 2) {
        fprintf(stderr, "hprof-strip: %d files: %d done", cli->n_files, b->done);
        if (b->salvaged)
            fprintf(stderr, " (%d salvaged)", b->salvaged);
        fprintf(stderr, ", %d failed", b->failed);
        if (b->started < cli->n_files)
            fprintf(stderr, ", %d not started", cli->n_files - b->started);
        fprintf(stderr, "; %.1f MB read, %.1f MB written", (double)b->read / 1e6,
                (double)b->written / 1e6);
        if (b->read)
            fprintf(stderr, " (%.1f%%)", 100.0 * (double)b->written / (double)b->read);
        fprintf(stderr, " into %s\n", cli->out_dir);
    }
    fflush(stderr);
    free(b->running);
    b->running = NULL;
}
