/* SPDX-License-Identifier: Apache-2.0 */
/*
 * batch.c - see batch.h. A file of its own so that _GNU_SOURCE, which
 * SCHED_BATCH needs, stays out of the files written to POSIX.
 */
#define _GNU_SOURCE
#include "batch.h"

#include <pthread.h>
#include <sched.h>

int hs_run_as_batch(void)
{
#ifdef SCHED_BATCH
    struct sched_param sp;
    int policy;

    if (pthread_getschedparam(pthread_self(), &policy, &sp) != 0 || policy != SCHED_OTHER)
        return 0;
    return pthread_setschedparam(pthread_self(), SCHED_BATCH, &sp) == 0;
#else
    return 0;
#endif
}
