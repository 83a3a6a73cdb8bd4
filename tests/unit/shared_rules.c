/* SPDX-License-Identifier: Apache-2.0 */
/*
 * shared_rules.c - see shared_rules.h. Plain C and pthreads, no Criterion:
 * the same check runs in the suites and, built with -fsanitize=thread,
 * alone (a data race between the filters would be TSan's report).
 */
#include "shared_rules.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hprof_strip.h"

typedef struct {
    const hs_rules *rules;
    const uint8_t *in;
    size_t len;
    uint8_t *out;
    size_t out_len, out_cap;
    hs_status status;
    hs_stats st;
} job;

static int sink_write(void *ctx, const void *buf, size_t len)
{
    job *j = ctx;

    if (len > j->out_cap - j->out_len) {
        size_t cap = j->out_cap ? j->out_cap : 1 << 20;
        uint8_t *p;
        while (len > cap - j->out_len)
            cap *= 2;
        if (!(p = realloc(j->out, cap)))
            return -1;
        j->out = p;
        j->out_cap = cap;
    }
    memcpy(j->out + j->out_len, buf, len);
    j->out_len += len;
    return 0;
}

static void *run(void *arg)
{
    job *j = arg;
    hs_source src = {.data = j->in, .size = j->len};
    hs_sink sink = {sink_write, j};
    hs_filter *f = hs_filter_create(j->rules, NULL, NULL);

    j->out_len = 0;
    if (!f) {
        j->status = HS_E_NOMEM;
        return NULL;
    }
    j->status = hs_filter_run(f, &src, &sink);
    hs_filter_stats(f, &j->st);
    hs_filter_free(f);
    return NULL;
}

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    uint8_t *p = NULL;
    long n;

    if (!fp)
        return NULL;
    if (fseek(fp, 0, SEEK_END) == 0 && (n = ftell(fp)) >= 0 && fseek(fp, 0, SEEK_SET) == 0 &&
        (p = malloc((size_t)n + 1)) && fread(p, 1, (size_t)n, fp) == (size_t)n) {
        *len = (size_t)n;
    } else {
        free(p);
        p = NULL;
    }
    fclose(fp);
    return p;
}

int shared_rules_check(const char *const *dumps, size_t n, const char *map_path,
                       const char *preset, char *why, size_t why_len)
{
    hs_rules *rules = hs_rules_create(NULL);
    job *alone = calloc(n, sizeof *alone), *together = calloc(n, sizeof *together);
    pthread_t *t = calloc(n, sizeof *t);
    uint8_t **ins = calloc(n, sizeof *ins);
    uint8_t *map = NULL;
    size_t map_len = 0, k;
    hs_error err;
    int same = -1;

    why[0] = 0;
    if (!rules || !alone || !together || !t || !ins) {
        snprintf(why, why_len, "no memory");
        goto out;
    }
    if (hs_rules_preset(rules, preset, &err) != HS_OK ||
        !(map = slurp(map_path, &map_len)) ||
        hs_rules_mapping(rules, (const char *)map, map_len, map_path, &err) != HS_OK) {
        snprintf(why, why_len, "rules: %s", map ? err.message : map_path);
        goto out;
    }
    for (k = 0; k < n; k++) {
        if (!(ins[k] = slurp(dumps[k], &alone[k].len))) {
            snprintf(why, why_len, "cannot read %s", dumps[k]);
            goto out;
        }
        alone[k].rules = together[k].rules = rules;
        alone[k].in = together[k].in = ins[k];
        together[k].len = alone[k].len;
        run(&alone[k]);
        if (alone[k].status != HS_OK || !alone[k].st.mapping_classes_renamed) {
            snprintf(why, why_len, "%s alone: status %d, %llu classes renamed", dumps[k],
                     alone[k].status, (unsigned long long)alone[k].st.mapping_classes_renamed);
            goto out;
        }
    }
    for (k = 0; k < n; k++)
        if (pthread_create(&t[k], NULL, run, &together[k]) != 0) {
            snprintf(why, why_len, "pthread_create");
            while (k--)
                pthread_join(t[k], NULL);
            goto out;
        }
    for (k = 0; k < n; k++)
        pthread_join(t[k], NULL);
    same = 0;
    for (k = 0; k < n; k++) {
        if (together[k].status != alone[k].status || together[k].out_len != alone[k].out_len ||
            memcmp(together[k].out, alone[k].out, alone[k].out_len) != 0 ||
            memcmp(&together[k].st, &alone[k].st, sizeof alone[k].st) != 0) {
            snprintf(why, why_len, "%s: run beside the others, not as alone (status %d, %zu "
                     "bytes; alone %d, %zu bytes)", dumps[k], together[k].status,
                     together[k].out_len, alone[k].status, alone[k].out_len);
            same = -1;
            break;
        }
        same++;
    }
out:
    for (k = 0; ins && k < n; k++)
        free(ins[k]);
    for (k = 0; alone && together && k < n; k++) {
        free(alone[k].out);
        free(together[k].out);
    }
    free(ins);
    free(t);
    free(alone);
    free(together);
    free(map);
    hs_rules_free(rules);
    return same;
}
