/* SPDX-License-Identifier: Apache-2.0 */
/*
 * replay.c - runs LLVMFuzzerTestOneInput over files and directories named on
 * the command line, without libFuzzer, so the seed and regression corpora
 * run under any compiler (make fuzz-replay builds it with ASan + UBSan).
 *
 *     replay [-v] [-x] PATH...
 *
 * A directory is walked one level deep, its entries in name order; names
 * starting with '.' and ending in ".md" (notes) are skipped. Each input runs
 * in a child process, so one that aborts (an invariant failure or a
 * sanitizer report, printed by the child) does not stop the others; the
 * failing inputs are listed at the end. -x runs every input in this process
 * instead (for a debugger: the first failure ends the run). -v prints sizes.
 * Exit status 0 when every input passed, 1 when some failed, 2 on a usage
 * or I/O error.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int verbose, in_process;
static unsigned long n_run, n_failed;

static int read_file(const char *path, uint8_t **data, size_t *size)
{
    FILE *fp = fopen(path, "rb");
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0;

    if (!fp) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        return -1;
    }
    for (;;) {
        size_t got;
        if (len == cap) {
            uint8_t *nb;
            cap = cap ? cap * 2 : 65536;
            nb = realloc(buf, cap);
            if (!nb) {
                fprintf(stderr, "replay: %s: out of memory\n", path);
                free(buf);
                fclose(fp);
                return -1;
            }
            buf = nb;
        }
        got = fread(buf + len, 1, cap - len, fp);
        len += got;
        if (got == 0)
            break;
    }
    if (ferror(fp)) {
        fprintf(stderr, "replay: %s: read error\n", path);
        free(buf);
        fclose(fp);
        return -1;
    }
    fclose(fp);
    *data = buf;
    *size = len;
    return 0;
}

static int run_file(const char *path)
{
    uint8_t *data;
    size_t size;

    if (read_file(path, &data, &size) != 0)
        return -1;
    if (verbose)
        fprintf(stderr, "replay: %s (%zu bytes)\n", path, size);
    else
        fprintf(stderr, "replay: %s\n", path); /* named before it can crash */
    n_run++;
    if (in_process) {
        LLVMFuzzerTestOneInput(data, size);
    } else {
        pid_t pid;
        int status;

        fflush(NULL);
        pid = fork();
        if (pid < 0) {
            fprintf(stderr, "replay: fork: %s\n", strerror(errno));
            free(data);
            return -1;
        }
        if (pid == 0) {
            LLVMFuzzerTestOneInput(data, size);
            _exit(0);
        }
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            fprintf(stderr, "replay: FAILED: %s\n", path);
            n_failed++;
        }
    }
    free(data);
    return 0;
}

static int skip_name(const char *name)
{
    size_t n = strlen(name);
    return name[0] == '.' || (n >= 3 && strcmp(name + n - 3, ".md") == 0);
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char **names = NULL;
    size_t n = 0, cap = 0, i;
    int rc = 0;

    if (!d) {
        fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
        return -1;
    }
    while ((e = readdir(d)) != NULL) {
        if (skip_name(e->d_name))
            continue;
        if (n == cap) {
            char **nn;
            cap = cap ? cap * 2 : 64;
            nn = realloc(names, cap * sizeof *names);
            if (!nn) {
                rc = -1;
                break;
            }
            names = nn;
        }
        names[n] = malloc(strlen(dir) + strlen(e->d_name) + 2);
        if (!names[n]) {
            rc = -1;
            break;
        }
        sprintf(names[n], "%s/%s", dir, e->d_name);
        n++;
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof *names, cmp_names);
    for (i = 0; i < n; i++) {
        struct stat st;
        if (rc == 0 && stat(names[i], &st) == 0 && S_ISREG(st.st_mode) &&
            run_file(names[i]) != 0)
            rc = -1;
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    int i, rc = 0;

    for (i = 1; i < argc; i++) {
        struct stat st;
        if (strcmp(argv[i], "-v") == 0) {
            verbose = 1;
            continue;
        }
        if (strcmp(argv[i], "-x") == 0) {
            in_process = 1;
            continue;
        }
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
            rc = 2;
        } else if (S_ISDIR(st.st_mode) ? run_dir(argv[i]) != 0 : run_file(argv[i]) != 0) {
            rc = 2;
        }
    }
    if (argc < 2) {
        fprintf(stderr, "usage: replay [-v] [-x] FILE|DIR...\n");
        return 2;
    }
    fprintf(stderr, "replay: %lu inputs ran, %lu failed%s\n", n_run, n_failed,
            rc ? " (and I/O errors)" : "");
    return rc ? rc : n_failed ? 1 : 0;
}
