/* SPDX-License-Identifier: Apache-2.0 */
/*
 * in_gzip_members.c - HotSpot's -gz dumps: members on two threads (in_gzip.h).
 *
 * `jcmd PID GC.heap_dump -gz=N` writes 1 MiB blocks as independent gzip
 * members, the first with the header comment "HPROF BLOCKSIZE=<bytes>",
 * the most one member holds. Where the next member starts is only known by
 * inflating this one, so members are handed out by their headers, found
 * ahead (member_end), and inflated by the reader thread and a helper, each
 * taking the next one as soon as it is free: two at a time, but never
 * waiting for each other (pairs in lockstep left a core idle whenever the
 * filter took one). They go to the filter in order, each only when the one
 * before ended exactly where it began, so one that began at a false start
 * is never given out.
 *
 * The members out are a ring of their own (ring.h), whose lead either
 * thread takes to hand a member out or give the filter those inflated,
 * then lets go to inflate. Not one thread handing out and taking back for
 * two workers: that thread is also an inflater, so while it inflates (or
 * the filter's thread has its core) the other waits for work it could have
 * taken itself. Tried twice and measured on a 199 MiB `jcmd -gz` dump
 * (bench/ab.sh, 15 to 25 pairs): with two workers beside the reader
 * thread, 6 to 10 % slower; with the reader thread as the second worker,
 * inflating in pieces to serve the helper between them, 2 to 3 % slower.
 *
 * Header-like bytes inside compressed data (a header's first four bytes
 * turn up about once in 2 GB of it) make a member run out of input there:
 * it is handed out again up to the next header along, within a budget
 * (may_try_another_header). Anything else (a member bigger than it says,
 * an empty one, damage, trailing bytes) hands over to the streaming
 * inflater at the first member not given out, which then gives the same
 * bytes and messages as ever. */
#define _POSIX_C_SOURCE 200809L
#include "in_gzip.h"

#include <assert.h>
#include <pthread.h>
#include <string.h>

#define HOTSPOT_COMMENT "HPROF BLOCKSIZE="
#define JOBS HS_IN_SLOTS /* members out at once: each has a slot of its own */

/* The block size a HotSpot first member header at p gives, or 0. */
size_t hs_members_block(const uint8_t *p, size_t n)
{
    size_t k = 10 + sizeof HOTSPOT_COMMENT - 1, v = 0;

    if (n < k + 2 || memcmp(p, "\x1f\x8b\x08\x10", 4) != 0 ||
        memcmp(p + 10, HOTSPOT_COMMENT, sizeof HOTSPOT_COMMENT - 1) != 0)
        return 0;
    for (; k < n && p[k] >= '0' && p[k] <= '9' && v <= HS_IN_SLOT_SIZE; k++)
        v = v * 10 + (size_t)(p[k] - '0');
    return k < n && p[k] == 0 && v <= HS_IN_SLOT_SIZE ? v : 0;
}

/* A gzip member header as HotSpot writes them: deflate, no name, no extra
 * field (a comment at most). */
static int member_header(const uint8_t *p, size_t n)
{
    return n >= 10 && p[0] == 0x1f && p[1] == 0x8b && p[2] == 8 && (p[3] & ~0x10) == 0;
}

/* The offset of the next member header in raw[from, to), or 0. */
static size_t next_header(const hs_input *in, size_t from, size_t to)
{
    const uint8_t *p = in->raw + from, *end = in->raw + to;

    while ((p = memchr(p, 0x1f, (size_t)(end - p))) != NULL) {
        if (member_header(p, (size_t)(end - p)))
            return (size_t)(p - in->raw);
        p++;
    }
    return 0;
}

/* Where a member may end when it does not end by raw[at]: at the next
 * header after `at`, at the end of the input for the last member, or 0
 * when the buffer holds neither. A mapped file is looked at as far as the
 * buffer would reach (HS_MEMBERS_RAW), so that a member too big for HotSpot's goes
 * to the streaming path as it does when read, not after a scan of the
 * file. */
static size_t member_end(const hs_input *in, size_t at)
{
    size_t to = in->raw_len, e;

    if (at >= in->raw_len)
        return 0;
    if (in->raw_mapped && to - at > HS_MEMBERS_RAW)
        to = at + HS_MEMBERS_RAW;
    e = next_header(in, at + 1, to);
    return !e && in->raw_eof && to == in->raw_len ? in->raw_len : e;
}

/* See above: every try inflates the member again, so input made of such
 * bytes costs a few members' work, then goes to the streaming path
 * (hs_limits.h: HS_MEMBERS_TRIES, and one more per HS_MEMBERS_TRY_SPAN of
 * input). */
static int may_try_another_header(hs_input *in)
{
    return ++((hs_gunzip *)in->dec)->false_headers <=
           HS_MEMBERS_TRIES + hs_in_raw_at(in) / HS_MEMBERS_TRY_SPAN;
}

typedef struct {
    size_t a, b;    /* the member: raw[a, b) */
    unsigned n;     /* its number: it goes to slot[n % HS_IN_SLOTS] */
    size_t got;     /* bytes it gave */
    int r, ok;
} member_job;

/* The two threads' shared state, the lead's (ring.h): the members out are
 * blocks of `out`, block k the member numbered first + k, in job[k % JOBS]
 * (numbered from `first`, the first block the reader thread posts here,
 * the block of the input's ring, and its slot, that it goes to). `given`
 * have been handed out (posted on `out`) and `posted` of them given to the
 * filter (released). */
typedef struct {
    hs_input *in;
    hs_ring *out;
    member_job job[JOBS];
    unsigned first, given, posted;
    size_t next;    /* the next member to hand out starts at raw[next] */
    size_t past;    /* and ends at the first header after raw[past]: past
                     * is next but for a member handed out again */
    int reading;    /* a thread is reading after raw_len, not leading */
    int failed;     /* member `posted` did not end where the next begins */
    int over;       /* no more members: the streaming path goes on */
    int news;       /* this lead changed something the other may wait for */
} members;

/* Lets go of the lead, telling a waiting one whether this lead changed
 * anything (`news`, or m->news); returns the ring's count of changes. */
static unsigned unlead(members *m, int news)
{
    news |= m->news;
    m->news = 0;
    return hs_ring_unlead(m->out, news);
}

/* Lets go of the lead until the other thread did something: a member
 * inflated, given to the filter or handed out, or news of its own. */
static void wait_on(members *m)
{
    unsigned seen = unlead(m, 0);

    hs_ring_lead(m->out, &seen);
}

/* Gives the filter every member inflated, in order, up to the first that
 * is not done or did not end where the next one begins. */
static void post_members(members *m)
{
    hs_input *in = m->in;
    unsigned was = m->posted, k;
    long status;

    while (!m->failed && hs_ring_try_take(m->out, &k, &status) == 1) {
        member_job *j = &m->job[k % JOBS];
        assert(k == m->posted && m->posted != m->given);
        if (!j->ok) {
            m->failed = m->news = 1;
            break;
        }
        in->raw_pos = j->b;
        hs_in_post_block(in, j->n, (long)j->got);
        in->paired++;
        m->posted++;
        hs_ring_release(m->out);
    }
    if (in->raw_mapped && m->posted != was)
        hs_in_map_done(in, in->map_skip + in->raw_pos, HS_IN_MAP_STEP);
}

/* Reads more compressed bytes after raw_len, moving the member not handed
 * out yet to the front first when the buffer is full (only once every
 * member is in: they point into it). The read is made without the lock: a
 * pipe may keep it waiting, and the members out go on meanwhile. 1 when
 * there is more to look at, 0 to wait for the other thread, -1 when this
 * path cannot go on. */
static int more_raw(members *m)
{
    hs_input *in = m->in;
    size_t len = in->raw_len, moved;
    ssize_t n;

    if (in->raw_eof)
        return -1; /* a member that cannot end: the streaming path says why */
    if (m->reading)
        return 0;
    if (len == in->raw_cap) {
        if (m->posted < m->given)
            return 0;
        if (in->raw_pos == 0)
            return -1; /* one member fills the buffer: not HotSpot's */
        moved = hs_in_raw_to_front(in);
        len = in->raw_len;
        m->next -= moved;
        m->past -= moved;
    }
    m->reading = 1;
    unlead(m, 1);
    n = hs_in_read_some(in, in->raw + len, in->raw_cap - len);
    hs_ring_lead(m->out, NULL);
    m->reading = 0;
    m->news = 1;
    if (n < 0)
        return -1; /* the streaming reader meets it again and says so */
    hs_in_raw_got(in, (size_t)n);
    return 1;
}

/* The member that did not end where the next began (m->failed): handed
 * out again, up to the next header along, when it ran out of input there
 * and the budget allows; the members after it began at a false start. 0
 * when the streaming path must take over. */
static int try_again(members *m)
{
    member_job *j = &m->job[m->posted % JOBS];

    if (j->r != ISAL_END_INPUT || !may_try_another_header(m->in))
        return 0;
    hs_ring_unpost(m->out);
    m->failed = 0;
    m->given = m->posted;
    m->next = j->a;
    m->past = j->b;
    return 1;
}

/* Leading: the next member to inflate, or NULL when there is none
 * (m->over, or the filter stopped the ring). Every wait here is for the
 * other thread, which wakes it when its member is done: also when the
 * ring stopped it before it began. */
static member_job *hand_out(members *m)
{
    hs_input *in = m->in;

    for (;;) {
        member_job *j;
        size_t b;
        unsigned k;
        int more, got;
        post_members(m);
        if (m->over || hs_ring_stopped(in->ring))
            return NULL;
        if (m->failed) {
            if (hs_ring_busy(m->out))
                wait_on(m);
            else if (!try_again(m))
                m->over = 1;
            continue;
        }
        if (m->given - m->posted == JOBS) {
            wait_on(m);
            continue;
        }
        if (m->next == in->raw_len && in->raw_eof) { /* every member is out */
            if (m->posted < m->given)
                wait_on(m);
            else
                m->over = 1;
            continue;
        }
        if (!(b = member_end(in, m->past))) {
            if ((more = more_raw(m)) == 0)
                wait_on(m);
            else if (more < 0)
                m->over = 1;
            continue;
        }
        if (!member_header(in->raw + m->next, in->raw_len - m->next)) {
            m->over = 1;
            continue;
        }
        j = &m->job[m->given % JOBS];
        j->a = m->next;
        j->b = b;
        j->n = m->first + m->given;
        j->ok = 0;
        hs_ring_post(m->out, m->given, 1);
        /* this thread's to inflate: only a lead posts, and it takes at once
         * what it posted */
        got = hs_ring_work(m->out, &k);
        assert(got == 0 && k == m->given);
        (void)got;
        m->given++;
        m->next = m->past = b;
        return j;
    }
}

/* One whole member, all of raw[a, b), CRC and length checked, into its
 * slot. */
static void inflate_member(hs_input *in, struct inflate_state *st, member_job *j, uint8_t *out)
{
    isal_inflate_init(st);
    st->next_in = in->raw + j->a;
    st->avail_in = (uint32_t)(j->b - j->a);
    st->next_out = out;
    st->avail_out = (uint32_t)((hs_gunzip *)in->dec)->block;
    st->crc_flag = ISAL_GZIP;
    j->r = isal_inflate_stateless(st);
    j->got = ((hs_gunzip *)in->dec)->block - st->avail_out;
    j->ok = j->r == ISAL_DECOMP_OK && st->avail_in == 0 && j->got > 0;
}

/* What each of the two threads does: inflate the next member, until there
 * is none. */
static void inflate_members(members *m, struct inflate_state *st)
{
    hs_input *in = m->in;
    member_job *j;

    hs_ring_lead(m->out, NULL);
    while ((j = hand_out(m)) != NULL) {
        unlead(m, 1);
        /* the filter may still be reading the member JOBS back; stopped,
         * the member stays not ok, and hand_out sees the stop */
        if (hs_ring_room(in->ring, j->n) == 0)
            inflate_member(in, st, j, in->slot[j->n % HS_IN_SLOTS].buf);
        hs_ring_worked(m->out, j->n - m->first, 1); /* the other may wait for it */
        hs_ring_lead(m->out, NULL);
    }
    unlead(m, 1); /* the other may wait for m->over */
}

static void *helper_thread(void *arg)
{
    members *m = arg;

    inflate_members(m, ((hs_gunzip *)m->in->dec)->helper);
    return NULL;
}

/* Inflates members on two threads while they are HotSpot's and end where
 * the next begins; returns the next slot to fill. */
unsigned hs_members_parallel(hs_input *in, unsigned first)
{
    members m;
    pthread_t helper;
    int helped;

    memset(&m, 0, sizeof m);
    m.in = in;
    m.first = first;
    m.next = m.past = in->raw_pos;
    if (!(m.out = hs_ring_new(JOBS, 1)))
        return first; /* the streaming path does it all */
    helped = pthread_create(&helper, NULL, helper_thread, &m) == 0;
    inflate_members(&m, &((hs_gunzip *)in->dec)->st);
    if (helped)
        pthread_join(helper, NULL);
    hs_ring_free(m.out);
    return first + m.posted;
}
