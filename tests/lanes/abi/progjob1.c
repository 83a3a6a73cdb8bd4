/* SPDX-License-Identifier: Apache-2.0 */
/*
 * progjob1.c - a program of the first hs_job: built by tests/lanes/abi.sh against
 * tests/lanes/abi/hprof_strip-0.2-job1.h alone (as <hprof_strip.h>), whose hs_job
 * ends at `salvage`, and run against the library as it is now. It runs the
 * job IN -> OUT (PRESET, COMPRESS "none", "zstd" or "gzip") through
 * hs_job_run and writes the JSON report to REPORT.
 *
 * Canary: its hs_job is followed by a guard of 0xa5 bytes, which as the
 * later fields (a progress callback, names) would be called or read and
 * crash: a library that reads past the job's size does not get through.
 *
 *     progjob1 IN OUT PRESET COMPRESS REPORT    exit: hs_job_run's, or 2
 *                                               (usage, or cannot open)
 */
#define _POSIX_C_SOURCE 200809L /* fileno */
#include <stdio.h>
#include <string.h>

#include <hprof_strip.h>

#define GUARD 256

int main(int argc, char **argv)
{
    static const char *const names[] = {"none", "zstd", "gzip"};
    struct {
        hs_job job;
        unsigned char guard[GUARD];
    } j;
    hs_input *in;
    hs_output *out;
    hs_error err;
    char *report = NULL;
    FILE *rf;
    int rc, c;

    if (argc != 6) {
        fprintf(stderr, "usage: progjob1 IN OUT PRESET COMPRESS REPORT\n");
        return 2;
    }
    for (c = 0; c < 3 && strcmp(argv[4], names[c]) != 0; c++)
        ;
    if (c == 3) {
        fprintf(stderr, "progjob1: compression %s\n", argv[4]);
        return 2;
    }
    memset(&j, 0xa5, sizeof j);
    memset(&j.job, 0, sizeof j.job);
    j.job.size = sizeof j.job;
    j.job.preset = argv[3];
    j.job.compress = (hs_compression)c;
    j.job.threads = 2;
    if (!(in = hs_input_open_path(argv[1], &err))) {
        fprintf(stderr, "progjob1: %s\n", err.message);
        return 2;
    }
    if (!(rf = fopen(argv[2], "wb")) || !(out = hs_output_open_fd(fileno(rf), j.job.compress, 0,
                                                                   2, &err))) {
        fprintf(stderr, "progjob1: %s: cannot open\n", argv[2]);
        return 2;
    }
    rc = hs_job_run(&j.job, in, out, &report);
    hs_output_close(out);
    hs_input_close(in);
    fclose(rf);
    if (!(rf = fopen(argv[5], "w")) || !report || fputs(report, rf) < 0 || fclose(rf) != 0) {
        fprintf(stderr, "progjob1: %s: cannot write the report\n", argv[5]);
        return 2;
    }
    hs_free(report);
    return rc;
}
