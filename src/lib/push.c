/* SPDX-License-Identifier: Apache-2.0 */
/*
 * push.c - the push API (hs_push_*): a caller hands the dump in as it
 * arrives, write after write of any size, and the library strips it as
 * it comes.
 *
 * The filter pulls (hprof_strip.h says why). So the push handle runs the
 * ordinary pulled job, hs_job_run, on a thread of its own, over an input
 * whose read callback takes the bytes the writes put in a bounded ring of
 * blocks (ring.c, the one ring every producer/consumer pair of the library
 * uses): a write copies into the block it holds and posts it when full,
 * and waits for room when all blocks are posted and not yet read. Memory
 * is the ring's blocks (hs_push_options.buffer) and the job's own, however
 * long the upload. Being an ordinary job over an ordinary input, a pushed
 * run sniffs gzip and zstd as a pulled one does and writes the same bytes
 * and report: the tests compare them.
 *
 * The writer and the job meet only at the ring, and at the job's end:
 * the thread records the exit code, then stops the ring, so a write
 * waiting for room (or any write after) returns at once with how the run
 * ended rather than wait for a reader that is gone. A free before the end
 * stops the ring the other way: the job's next read fails, the run ends,
 * the thread is joined.
 *
 * For event loops, a write that never waits (hs_push_try_write) and a
 * descriptor to wait on instead (hs_push_fd: a pipe the job's thread
 * writes a byte to when a block is given back after a try found no room,
 * and when the run ends), so an async server needs no thread of its own.
 */
#define _POSIX_C_SOURCE 200809L
#include "hs_limits.h"
#include "report.h" /* hs_report_fail: the static tier, the library defines it */
#include "ring.h"
#include "sized.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct hs_push {
    hs_job job;        /* the caller's, zero past its size */
    hs_output *out;
    int json;          /* hs_push_options.json_report */
    hs_ring *ring;
    unsigned char *blocks; /* HS_PUSH_SLOTS blocks of `block` bytes */
    size_t block;
    /* the writer's side (the caller's thread) */
    unsigned wk;       /* the block being filled, or the next one */
    size_t wpos;       /* bytes in block wk */
    int holding;       /* room for block wk was granted */
    int ended;         /* the end of the input is posted */
    int finished;      /* hs_push_finish joined the thread */
    /* the reader's side (the job's thread, or its input's reader thread) */
    unsigned rk;
    size_t rpos, rlen;
    int reading;       /* block rk was taken and is not all read */
    /* shared, under mu */
    pthread_mutex_t mu;
    pthread_t thread;
    int running;       /* the thread was started and not joined */
    int done;          /* the job returned */
    int exit_code;     /* its exit code, once done */
    char *report;      /* its JSON report, once done (json) */
    int armed;         /* a try found no room: poke the pipe at the next release */
    int notify[2];     /* the pipe hs_push_fd gives, -1 until asked for */
};

/* Wakes whoever waits on hs_push_fd. Under mu. A full pipe is readable
 * already, so a write that would block is not needed. */
static void poke(hs_push *p)
{
    static const char one = 1;

    if (p->notify[1] >= 0) {
        ssize_t n = write(p->notify[1], &one, 1);
        (void)n;
    }
}

/* Empties the pipe before the caller waits on it again. Under mu. */
static void drain(hs_push *p)
{
    char buf[64];

    if (p->notify[0] >= 0)
        while (read(p->notify[0], buf, sizeof buf) > 0)
            ;
}

/* The input's read callback, on the job's side: the next bytes of the
 * block taken, a block given back once read. */
static long push_read(void *ctx, void *buf, size_t cap)
{
    hs_push *p = ctx;
    size_t n;

    if (!p->reading) {
        long status;

        if (hs_ring_take(p->ring, &p->rk, &status) != 0)
            return -1; /* stopped: freed before the end */
        if (status <= 0)
            return 0; /* the end, given again at every call */
        p->rlen = (size_t)status;
        p->rpos = 0;
        p->reading = 1;
    }
    n = p->rlen - p->rpos < cap ? p->rlen - p->rpos : cap;
    memcpy(buf, p->blocks + (size_t)(p->rk % HS_PUSH_SLOTS) * p->block + p->rpos, n);
    p->rpos += n;
    if (p->rpos == p->rlen) {
        p->reading = 0;
        hs_ring_release(p->ring);
        /* after the release: a try that found no room armed before it
         * looked, so either it saw this room or it is woken here */
        pthread_mutex_lock(&p->mu);
        if (p->armed) {
            p->armed = 0;
            poke(p);
        }
        pthread_mutex_unlock(&p->mu);
    }
    return (long)n;
}

/* The run when its input cannot even be opened (no memory, a zip
 * upload): the report says so as hs_job_run's would. */
static int open_failed(hs_push *p, const hs_error *err, char **json)
{
    hs_report *own = p->job.report ? NULL : hs_report_create();
    hs_report *r = p->job.report ? p->job.report : own;
    const char *name = p->job.in_name ? p->job.in_name : "input";
    int rc;

    if (!r)
        return HS_EXIT_LIMIT;
    rc = hs_report_fail(r, err->code, err, "%s: %s", name, err->message);
    if (p->json)
        *json = hs_report_json(r, rc, p->job.in_name, p->job.out_name);
    hs_report_free(own);
    return rc;
}

static void *push_thread(void *arg)
{
    hs_push *p = arg;
    hs_error err;
    hs_input *in = hs_input_open_read(push_read, p, &err);
    char *json = NULL;
    int rc;

    if (in)
        rc = hs_job_run(&p->job, in, p->out, p->json ? &json : NULL);
    else
        rc = open_failed(p, &err, &json);
    hs_input_close(in);
    pthread_mutex_lock(&p->mu);
    p->done = 1;
    p->exit_code = rc;
    p->report = json;
    poke(p);
    pthread_mutex_unlock(&p->mu);
    /* after done is set: a write woken by the stop reads the exit code */
    hs_ring_stop(p->ring);
    return NULL;
}

static void fail(hs_error *err, hs_status code, const char *msg)
{
    if (!err)
        return;
    memset(err, 0, sizeof *err);
    err->code = code;
    err->offset = err->record_offset = UINT64_MAX;
    err->tag = err->subtag = -1;
    snprintf(err->message, sizeof err->message, "%s", msg);
}

/* The end of the last hs_push_options field this library knows: the
 * reserved int after it must be 0, as every byte past it. */
#define PUSH_OPTIONS_KNOWN offsetof(hs_push_options, reserved)
_Static_assert(PUSH_OPTIONS_KNOWN + sizeof(int) == sizeof(hs_push_options),
               "PUSH_OPTIONS_KNOWN: a field was added after json_report");

/* The job and options as this library reads them; HS_E_USAGE names what
 * is wrong. */
static int take_args(hs_push *p, const hs_job *job, hs_output *out, const hs_push_options *opt,
                     size_t *buffer, hs_error *err)
{
    hs_push_options o = {0};

    if (!job || job->size < offsetof(hs_job, salvage) + sizeof(int) || (!out && !job->audit)) {
        fail(err, HS_E_USAGE, !job || job->size < offsetof(hs_job, salvage) + sizeof(int)
                                  ? "hs_push_new: no job, or its size is not set"
                                  : "hs_push_new: no output");
        return -1;
    }
    if (hs_sized_unknown_set(job, sizeof(hs_job), job->size) ||
        (opt && hs_sized_unknown_set(opt, PUSH_OPTIONS_KNOWN, opt->size))) {
        fail(err, HS_E_USAGE, "hs_push_new: a field this library version does not have is set");
        return -1;
    }
    memcpy(&p->job, job, job->size < sizeof p->job ? job->size : sizeof p->job);
    p->job.size = job->size < sizeof p->job ? job->size : sizeof p->job;
    if (opt)
        memcpy(&o, opt, opt->size < PUSH_OPTIONS_KNOWN ? opt->size : PUSH_OPTIONS_KNOWN);
    p->out = p->job.audit ? NULL : out;
    p->json = o.json_report != 0;
    *buffer = o.buffer ? o.buffer : HS_PUSH_BUFFER_DEFAULT;
    if (*buffer < HS_PUSH_BUFFER_MIN)
        *buffer = HS_PUSH_BUFFER_MIN;
    if (*buffer > HS_PUSH_BUFFER_MAX)
        *buffer = HS_PUSH_BUFFER_MAX;
    return 0;
}

/* Starts the job's thread with every signal blocked in it: a signal is
 * the caller's threads' to take (a Python program's handlers run on its
 * main thread), never the library's. */
static int start(hs_push *p)
{
    sigset_t all, old;
    int rc;

    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    rc = pthread_create(&p->thread, NULL, push_thread, p);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}

HS_API hs_push *hs_push_new(const hs_job *job, hs_output *out, const hs_push_options *opt,
                            hs_error *err)
{
    hs_push *p = calloc(1, sizeof *p);
    size_t buffer;

    if (!p) {
        fail(err, HS_E_NOMEM, "out of memory");
        return NULL;
    }
    p->notify[0] = p->notify[1] = -1;
    if (take_args(p, job, out, opt, &buffer, err) != 0) {
        free(p);
        return NULL;
    }
    p->block = buffer / HS_PUSH_SLOTS;
    p->blocks = malloc(p->block * HS_PUSH_SLOTS);
    p->ring = p->blocks ? hs_ring_new(HS_PUSH_SLOTS, 0) : NULL;
    if (!p->ring || pthread_mutex_init(&p->mu, NULL) != 0) {
        hs_ring_free(p->ring);
        free(p->blocks);
        free(p);
        fail(err, HS_E_NOMEM, "out of memory");
        return NULL;
    }
    if (start(p) != 0) {
        hs_ring_free(p->ring);
        pthread_mutex_destroy(&p->mu);
        free(p->blocks);
        free(p);
        fail(err, HS_E_NOMEM, "hs_push_new: cannot start the thread");
        return NULL;
    }
    p->running = 1;
    return p;
}

/* What a write says once the run has ended: how it ended, the bytes not
 * taken. A run that ended well before its input did (it cannot: the
 * filter reads to the end) would say HS_E_USAGE rather than HS_OK. */
static hs_status ended_status(hs_push *p)
{
    hs_status s;
    int rc;

    pthread_mutex_lock(&p->mu);
    assert(p->done);
    rc = p->exit_code;
    pthread_mutex_unlock(&p->mu);
    s = hs_status_of_exit(rc);
    return s == HS_OK ? HS_E_USAGE : s;
}

/* Copies what fits in the block held, posting it when full. */
static size_t fill(hs_push *p, const unsigned char *src, size_t len)
{
    size_t n = p->block - p->wpos < len ? p->block - p->wpos : len;

    assert(p->holding);
    memcpy(p->blocks + (size_t)(p->wk % HS_PUSH_SLOTS) * p->block + p->wpos, src, n);
    p->wpos += n;
    if (p->wpos == p->block) {
        hs_ring_post(p->ring, p->wk, (long)p->block);
        p->wk++;
        p->wpos = 0;
        p->holding = 0;
    }
    return n;
}

/* Room for block wk: 1 granted, 0 none yet (only when not `wait`: the
 * pipe is armed), -1 the ring is stopped (the run ended). */
static int room(hs_push *p, int wait)
{
    int r;

    if (p->holding)
        return 1;
    if (wait)
        r = hs_ring_room(p->ring, p->wk) == 0 ? 1 : -1;
    else {
        /* armed before looking: see push_read */
        pthread_mutex_lock(&p->mu);
        drain(p);
        p->armed = 1;
        pthread_mutex_unlock(&p->mu);
        r = hs_ring_try_room(p->ring, p->wk);
    }
    if (r == 1)
        p->holding = 1;
    return r;
}

static hs_status put(hs_push *p, const void *buf, size_t len, size_t *taken, int wait)
{
    const unsigned char *src = buf;
    size_t done = 0;
    hs_status s = HS_OK;

    if (!p || (!buf && len) || p->ended)
        s = HS_E_USAGE;
    else if (hs_ring_stopped(p->ring))
        s = ended_status(p);
    while (s == HS_OK && done < len) {
        int r = room(p, wait);

        if (r < 0)
            s = ended_status(p);
        if (r <= 0)
            break;
        done += fill(p, src + done, len - done);
    }
    if (taken)
        *taken = done;
    return s;
}

HS_API hs_status hs_push_write(hs_push *p, const void *buf, size_t len)
{
    return put(p, buf, len, NULL, 1);
}

HS_API hs_status hs_push_try_write(hs_push *p, const void *buf, size_t len, size_t *taken)
{
    return put(p, buf, len, taken, 0);
}

/* Posts the last block and the end: 1 done (or the run ended, or it was
 * done before), 0 no room yet for the end (only when not `wait`). */
static int end(hs_push *p, int wait)
{
    int r;

    if (p->ended)
        return 1;
    if (p->holding && p->wpos) { /* the last block, short */
        hs_ring_post(p->ring, p->wk, (long)p->wpos);
        p->wk++;
        p->wpos = 0;
        p->holding = 0;
    }
    r = room(p, wait);
    if (r == 0)
        return 0;
    if (r > 0)
        hs_ring_post(p->ring, p->wk, 0);
    p->holding = 0;
    p->ended = 1;
    return 1;
}

HS_API int hs_push_try_end(hs_push *p)
{
    return p ? end(p, 0) : -1;
}

HS_API int hs_push_fd(hs_push *p)
{
    int fd;

    if (!p)
        return -1;
    pthread_mutex_lock(&p->mu);
    if (p->notify[0] < 0) {
        int fds[2], i;

        if (pipe(fds) == 0) {
            for (i = 0; i < 2; i++) {
                fcntl(fds[i], F_SETFL, fcntl(fds[i], F_GETFL) | O_NONBLOCK);
                fcntl(fds[i], F_SETFD, FD_CLOEXEC);
            }
            p->notify[0] = fds[0];
            p->notify[1] = fds[1];
            /* whatever came before the pipe was there to tell it (a block
             * given back after a try armed, the end) is said now: the first
             * wait returns at once and the caller looks again (a wake-up
             * with nothing new costs one more try; one lost is a hang) */
            poke(p);
        }
    }
    fd = p->notify[0];
    pthread_mutex_unlock(&p->mu);
    return fd;
}

HS_API int hs_push_done(hs_push *p)
{
    int done;

    if (!p)
        return 1;
    pthread_mutex_lock(&p->mu);
    done = p->done;
    if (!done)
        drain(p); /* the run's end pokes it again */
    pthread_mutex_unlock(&p->mu);
    return done;
}

HS_API int hs_push_finish(hs_push *p, char **report)
{
    if (report)
        *report = NULL;
    if (!p || p->finished)
        return HS_EXIT_USAGE;
    end(p, 1);
    pthread_join(p->thread, NULL);
    p->running = 0;
    p->finished = 1;
    if (report) {
        *report = p->report;
        p->report = NULL;
    }
    return p->exit_code;
}

HS_API void hs_push_free(hs_push *p)
{
    if (!p)
        return;
    if (p->running) { /* not finished: the job's next read fails */
        hs_ring_stop(p->ring);
        pthread_join(p->thread, NULL);
    }
    hs_ring_free(p->ring);
    pthread_mutex_destroy(&p->mu);
    free(p->report);
    if (p->notify[0] >= 0) {
        close(p->notify[0]);
        close(p->notify[1]);
    }
    free(p->blocks);
    free(p);
}
