/* SPDX-License-Identifier: Apache-2.0 */
/*
 * batch.h - marks the calling thread as a batch thread (SCHED_BATCH).
 */
#ifndef HS_BATCH_H
#define HS_BATCH_H

/* The calling thread, when it runs under the default policy, goes on under
 * SCHED_BATCH: the same share of the CPU, but it no longer preempts the
 * thread running when it wakes. Threads it starts afterwards inherit the
 * policy; those started before keep theirs. A thread under any other
 * policy (a run started under chrt) is left as it is. 1 when changed. */
int hs_run_as_batch(void);

#endif
