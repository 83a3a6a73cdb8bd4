/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gz2zst.c - turn a heap dump (plain, .gz or .zst) into a .zst one with the
 * privacy preset, as `hprof-strip -p privacy -z IN -o OUT` does, and write
 * the run's JSON report beside it: the whole run through the library's own
 * I/O (sniffing and decompressing the input, compressing on threads) and
 * hs_job_run, which returns the command's exit code.
 *
 *     cc gz2zst.c $(pkg-config --cflags --libs hprofstrip) -o gz2zst
 *     ./gz2zst IN.hprof.gz OUT.hprof.zst [REPORT.json] [THREADS]
 *
 * OUT is written in place (a real program would write a temporary name and
 * rename it on success, as the command does). Exit status: hprof-strip's.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hprof_strip.h>

int main(int argc, char **argv)
{
    hs_job job;
    hs_error err;
    hs_input *in;
    hs_output *out;
    char *report = NULL;
    int fd, rc;

    if (argc < 3 || argc > 5) {
        fprintf(stderr, "usage: gz2zst IN OUT [REPORT.json] [THREADS]\n");
        return 2;
    }
    memset(&job, 0, sizeof job);
    job.size = sizeof job;
    job.preset = "privacy";
    job.compress = HS_COMPRESS_ZSTD;
    job.threads = argc > 4 ? atoi(argv[4]) : 0; /* 0: one per core, as the command */
    if (!(in = hs_input_open_path(argv[1], &err))) {
        fprintf(stderr, "gz2zst: %s\n", err.message);
        return err.code == HS_E_UNSUPPORTED ? 1 : 4;
    }
    if ((fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0) {
        perror(argv[2]);
        hs_input_close(in);
        return 4;
    }
    if (!(out = hs_output_open_fd(fd, job.compress, job.level, job.threads, &err))) {
        fprintf(stderr, "gz2zst: %s\n", err.message);
        hs_input_close(in);
        close(fd);
        return 5;
    }
    rc = hs_job_run(&job, in, out, &report);
    hs_output_close(out);
    hs_input_close(in);
    if (close(fd) != 0 && rc == 0)
        rc = 4;
    if (report && argc > 3) {
        FILE *fp = fopen(argv[3], "w");
        if (!fp || fputs(report, fp) < 0 || fclose(fp) != 0) {
            perror(argv[3]);
            rc = rc ? rc : 4;
        }
    }
    if (rc != 0 && rc != 6 && report) /* the report says why, as JSON */
        fprintf(stderr, "gz2zst: exit %d: %s", rc, report);
    hs_free(report);
    return rc;
}
