/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_batch.c - hs_run_as_batch (cli_port.h): a thread under the default
 * policy becomes SCHED_BATCH and what it starts inherits it; a thread under
 * another policy is left alone. Each case runs in a thread of its own, so
 * the test process keeps its policy.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <pthread.h>
#include <sched.h>

#include "cli_port.h"

/* the fallback build's hs_run_as_batch changes nothing (test_port.c) */
#if HS_PORT_LINUX

static int policy_of_self(void)
{
    struct sched_param sp;
    int policy;

    cr_assert_eq(pthread_getschedparam(pthread_self(), &policy, &sp), 0);
    return policy;
}

static void *report_policy(void *out)
{
    *(int *)out = policy_of_self();
    return NULL;
}

typedef struct {
    int start;          /* the policy the thread is put under first */
    int changed, after, child;
} batch_case;

static void *run_case(void *arg)
{
    batch_case *c = arg;
    struct sched_param sp = {0};
    pthread_t t;

    cr_assert_eq(pthread_setschedparam(pthread_self(), c->start, &sp), 0);
    c->changed = hs_run_as_batch();
    c->after = policy_of_self();
    cr_assert_eq(pthread_create(&t, NULL, report_policy, &c->child), 0);
    pthread_join(t, NULL);
    return NULL;
}

static batch_case run_in_thread(int start)
{
    batch_case c = {start, -1, -1, -1};
    pthread_t t;

    cr_assert_eq(pthread_create(&t, NULL, run_case, &c), 0);
    pthread_join(t, NULL);
    return c;
}

Test(batch, the_default_policy_becomes_batch_and_is_inherited)
{
    batch_case c = run_in_thread(SCHED_OTHER);

    cr_expect_eq(c.changed, 1);
    cr_expect_eq(c.after, SCHED_BATCH);
    cr_expect_eq(c.child, SCHED_BATCH, "a thread started after does not inherit it");
    cr_expect_eq(policy_of_self(), SCHED_OTHER, "the caller's thread alone changes");
}

Test(batch, another_policy_is_left_alone)
{
    batch_case c = run_in_thread(SCHED_IDLE);

    cr_expect_eq(c.changed, 0);
    cr_expect_eq(c.after, SCHED_IDLE, "a thread under SCHED_IDLE was moved");
    c = run_in_thread(SCHED_BATCH);
    cr_expect_eq(c.changed, 0);
    cr_expect_eq(c.after, SCHED_BATCH);
}

#endif
