/* SPDX-License-Identifier: Apache-2.0 */
/*
 * inthread.c - the input's reader thread (input_int.h): with
 * hs_input_start_thread a decoder slower than the filter (gzip) runs on a
 * thread of its own, a few MiB ahead, its blocks handed over through a
 * ring (ring.h), taken by copy (hs_input_read) or lent (hs_input_borrow).
 */
#define _POSIX_C_SOURCE 200809L
#include "input_int.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* Decompressed bytes, on whichever thread decompresses. */
long hs_in_decode(hs_input *in, uint8_t *buf, size_t cap)
{
    long n;

    if (in->damage)
        return 0; /* the end of what could be decompressed */
    if (in->fault.code != HS_OK)
        return -1;
    if (!in->codec)
        return hs_in_read_plain(in, buf, cap);
    n = in->codec->dec->read(in, buf, cap);
    /* the decoders keep what they still need of their input */
    if (in->raw_mapped)
        hs_in_map_done(in, in->map_skip + in->raw_pos, HS_IN_MAP_STEP);
    return n;
}

/* The reader thread: fills the slots in turn, each as full as it goes (the
 * decoders give out a little at a time), until the input ends or fails; the
 * end (0 or -1) goes in a slot of its own. A decoder may post blocks its
 * own way first (in_gzip_members.c). */
static void *reader_thread(void *arg)
{
    hs_input *in = arg;
    long end = 1;
    unsigned i = 0;

    if (in->codec->dec->ahead)
        i = in->codec->dec->ahead(in, 0);
    for (; end > 0; i++) {
        struct hs_in_slot *s = &in->slot[i % HS_IN_SLOTS];
        long got = 0, n = 1;
        if (hs_ring_room(in->ring, i) != 0)
            break; /* stopped */
        while (got < (long)HS_IN_SLOT_SIZE && (n = hs_in_decode(in, s->buf + got, HS_IN_SLOT_SIZE - got)) > 0)
            got += n;
        if (got == 0)
            end = n; /* nothing more: this block says how it ended */
        hs_in_post_block(in, i, got ? got : n);
    }
    return NULL;
}

/* The slot of the block the caller is in, once the thread has filled it
 * (its length in in->took): it, or NULL at the end (in->took says how the
 * input ended, and it stays the end). */
static struct hs_in_slot *slot_to_take(hs_input *in)
{
    unsigned k;
    struct hs_in_slot *s;
    int r = hs_ring_take(in->ring, &k, &in->took);

    /* only hs_input_close stops the ring, and the caller waits no more */
    assert(r == 0);
    (void)r;
    s = &in->slot[k % HS_IN_SLOTS];
    in->raw_seen = s->raw;
    if (in->took <= 0) {
        /* the thread wrote err and damage before this block, and no more */
        in->end_seen = 1;
        return NULL;
    }
    return s;
}

/* Gives the block the caller is in back to the thread once all of it is
 * taken. */
static void give_back_if_taken(hs_input *in)
{
    if (in->taken < (size_t)in->took)
        return;
    hs_ring_release(in->ring);
    in->taken = 0;
}

long hs_in_read_threaded(hs_input *in, uint8_t *buf, size_t cap)
{
    struct hs_in_slot *s = slot_to_take(in);
    size_t k;

    if (!s)
        return in->took;
    k = (size_t)in->took - in->taken;
    if (k > cap)
        k = cap;
    memcpy(buf, s->buf + in->taken, k);
    in->taken += k;
    give_back_if_taken(in);
    return (long)k;
}

long hs_input_borrow(void *ctx, const void **block)
{
    hs_input *in = ctx;
    struct hs_in_slot *s;
    long n;

    if (in->lent) { /* the block lent last is all taken */
        give_back_if_taken(in);
        in->lent = 0;
    }
    if (!(s = slot_to_take(in)))
        return in->took;
    *block = s->buf + in->taken;
    n = in->took - (long)in->taken;
    in->taken = (size_t)in->took;
    in->lent = 1;
    in->out_total += (uint64_t)n;
    if (in->hash && n > 0 && in->codec)
        hs_hasher_put(in->hash, HS_HASH_IN_DUMP, *block, (size_t)n);
    return n;
}

void hs_input_drain(hs_input *in)
{
    uint8_t buf[1u << 16];

    if (!in || !in->codec)
        return;
    if (!in->threaded) {
        while (hs_in_decode(in, buf, sizeof buf) > 0)
            ;
        return;
    }
    if (in->lent) {
        give_back_if_taken(in);
        in->lent = 0;
    }
    while (slot_to_take(in) != NULL) {
        in->taken = (size_t)in->took;
        give_back_if_taken(in);
    }
}

int hs_input_start_thread(hs_input *in)
{
    unsigned i;

    /* a mapped file's page-table work goes to a thread (pager.h) */
    if (in->map && !in->lent_map && !in->pager)
        in->pager = hs_pager_start(in->map, in->map_len, in->page, in->kept);
    /* zstd decompresses at several times the filter's speed: a thread
     * there only adds a copy (measured: no faster) */
    if (!in->codec || !in->codec->dec->before_thread || in->threaded)
        return 0;
    for (i = 0; i < HS_IN_SLOTS; i++)
        if (!(in->slot[i].buf = malloc(HS_IN_SLOT_SIZE)))
            return -1;
    in->codec->dec->before_thread(in);
    if (!(in->ring = hs_ring_new(HS_IN_SLOTS, 0)))
        return -1;
    if (pthread_create(&in->thread, NULL, reader_thread, in) != 0) {
        hs_ring_free(in->ring);
        in->ring = NULL;
        return -1;
    }
    in->threaded = 1;
    return 0;
}

/* Stops the reader thread: it finishes the block it is decompressing. */
void hs_in_stop_thread(hs_input *in)
{
    hs_ring_stop(in->ring);
    pthread_join(in->thread, NULL);
    hs_ring_free(in->ring);
    in->ring = NULL;
    in->threaded = 0;
}

/* With the reader thread, what went wrong is known once the caller has
 * read to the end; before that it is the thread's, still at work. */
int hs_in_settled(const hs_input *in)
{
    return !in->threaded || in->end_seen;
}

int hs_input_lends(const hs_input *in)
{
    return in->threaded;
}
