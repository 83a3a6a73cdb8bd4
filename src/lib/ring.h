/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ring.h - a bounded ring of blocks handed in order from a producer to a
 * consumer, through workers between them when there are some: the waits,
 * the stop and the end of the stream of the library's threads in one place
 * (ring.c says why one ring for all of them).
 *
 * Blocks are numbered 0, 1, 2... (unsigned, wrapping); block k lives in
 * slot k % slots, an index into the user's own array of buffers. The ring
 * holds no buffers, only which block each slot holds and in what state:
 *
 *   free --hs_ring_post--> posted --hs_ring_work..hs_ring_worked--> ready
 *        <--hs_ring_release-- (taken by the consumer, hs_ring_take)
 *
 * (without workers a posted block is ready). Whatever a thread wrote in a
 * block's buffer before it posted or worked it, the next one to get the
 * block sees: the ring's lock orders them.
 */
#ifndef HS_RING_H
#define HS_RING_H

typedef struct hs_ring hs_ring;

/* A ring of `slots` blocks (at least 1); `worked`: blocks go through
 * workers (hs_ring_work) between post and take. NULL when out of memory. */
hs_ring *hs_ring_new(unsigned slots, int worked);

/* Frees the ring: no thread may be using it any more (join them first). */
void hs_ring_free(hs_ring *r);

/* ---- the producer (or producers: each block has one) ---- */

/* Waits until block `k` has a free slot (the consumer released the block
 * `slots` before it). 0, or -1 once the ring is stopped. */
int hs_ring_room(hs_ring *r, unsigned k);

/* hs_ring_room without the wait (the push API's writes for an event
 * loop): 1 block `k` has a free slot, 0 not yet, -1 the ring is stopped. */
int hs_ring_try_room(hs_ring *r, unsigned k);

/* Block `k`, the next not posted, is filled: to the workers, or to the
 * consumer. `status` goes with it (hs_ring_take); one <= 0 ends the
 * stream: no block comes after it, and the consumer never gets past it. */
void hs_ring_post(hs_ring *r, unsigned k, long status);

/* ---- workers (a ring made with `worked`) ---- */

/* Waits for the oldest posted block no worker has taken, and takes it:
 * 0 with its number in *k, or -1 once the ring is stopped. */
int hs_ring_work(hs_ring *r, unsigned *k);

/* Block `k` is worked; `status` replaces the one it was posted with. */
void hs_ring_worked(hs_ring *r, unsigned k, long status);

/* ---- the consumer ---- */

/* Waits until the oldest block not released is ready: 0 with its number
 * in *k and its status in *status, or -1 once the ring is stopped. The end
 * of the stream (a status <= 0) is given again at every call. */
int hs_ring_take(hs_ring *r, unsigned *k, long *status);

/* The block hs_ring_take gave (never the end) is done with: its slot goes
 * back to the producer. */
void hs_ring_release(hs_ring *r);

/* Blocks posted and not yet released (the consumer's, between its calls:
 * nobody else releases). */
unsigned hs_ring_held(hs_ring *r);

/* hs_ring_take without the wait: 1 with the oldest block (as there), 0
 * when it is not ready yet, -1 once the ring is stopped and it is not. */
int hs_ring_try_take(hs_ring *r, unsigned *k, long *status);

/* ---- the lead: threads that take turns ----
 *
 * Where a ring's roles are not one thread's each (the hasher's two
 * producers; HotSpot's members, where either inflater hands members out
 * and takes them back), the thread in the role leads: one at a time, and
 * what it does beside the ring (its own state: where the next block comes
 * from) needs no lock of its own: what a lead wrote, the next one sees (the
 * ring's lock orders them). A lead that finds nothing to do waits for
 * news: a post, a worked block, a release, a stop, or another lead that
 * changed something. */

/* Waits until no other thread leads, then leads. With `seen` (a count
 * hs_ring_unlead gave), also waits until the ring changed since. A stop is
 * a change, and does not keep the lead from anyone: the lead looks at
 * hs_ring_stopped (its own ring's, or the one its blocks go on to). */
void hs_ring_lead(hs_ring *r, const unsigned *seen);

/* Ends this thread's lead; `news`: it changed state of its own that a
 * waiting lead may need (what it did on the ring counts by itself).
 * Returns the count of changes so far, for hs_ring_lead's `seen`. */
unsigned hs_ring_unlead(hs_ring *r, int news);

/* Blocks a worker took and has not worked yet. */
unsigned hs_ring_busy(hs_ring *r);

/* Every block posted and not released is dropped, the one hs_ring_take
 * gave too: the next to post is the oldest of them (a member that began at
 * a false start, handed out again). None may be in a worker's hands
 * (hs_ring_busy is 0), and the end may not have been posted. */
void hs_ring_unpost(hs_ring *r);

/* ---- stop ---- */

/* Every wait, now and later, returns -1: the producer and the workers
 * stop at their next wait; the blocks they are in the middle of are
 * theirs to finish or drop. */
void hs_ring_stop(hs_ring *r);

/* 1 once hs_ring_stop was called. */
int hs_ring_stopped(hs_ring *r);

#endif
