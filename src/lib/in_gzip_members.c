/* SPDX-License-Identifier: Apache-2.0 */
/*
 * in_gzip_members.c - HotSpot's -gz dumps: members on two threads (in_gzip.h).
 *
 * `jcmd PID GC.heap_dump -gz=N` writes 1 MiB blocks as independent gzip
 * members, the first with the header comment "HPROF BLOCKSIZE=<bytes>",
 * the most one member holds. Where the next member starts is only known by
 * inflating this one, so members are handed out by their headers, found
 * ahead (member_end), and inflated by two workers, each taking the next one
 * as soon as it is free: two at a time, but never waiting for each other
 * (pairs in lockstep left a core idle whenever the filter took one).
 *
 * All of it runs on the ring (ring.h), as the output's gzip compressor
 * does: the reader thread alone owns the compressed buffer. It finds each
 * member's bounds, reads more when it needs to (no lock is held: the
 * workers go on), and posts the member to a ring with workers; a worker
 * inflates it straight into the reader ring's slot the filter will get it
 * in; the reader thread takes the members back in order and gives each to
 * the filter only when the one before ended exactly where it began, so one
 * that began at a false start is never given out.
 *
 * Header-like bytes inside compressed data (a header's first four bytes
 * turn up about once in 2 GB of it) make a member run out of input there:
 * it is handed out again up to the next header along, within a budget
 * (may_try_another_header), the members after it dropped. Anything else
 * (a member bigger than it says, an empty one, damage, trailing bytes)
 * hands over to the streaming inflater at the first member not given out,
 * which then gives the same bytes and messages as ever. */
#define _POSIX_C_SOURCE 200809L
#include "in_gzip.h"

#include <assert.h>
#include <pthread.h>
#include <string.h>

#define HOTSPOT_COMMENT "HPROF BLOCKSIZE="
#define JOBS HS_IN_SLOTS /* members out at once: each has a slot of its own */
#define WORKERS 2

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

/* A member as it goes through the ring: what the reader thread gives a
 * worker (the bytes, where to put what they inflate to), and what the
 * worker gives back. The ring orders the two sides' writes. */
typedef struct {
    uint8_t *src;
    size_t a, b;    /* src is raw[a, b) */
    unsigned n;     /* its block for the filter: it goes to slot[n % HS_IN_SLOTS] */
    uint8_t *out;
    size_t cap;     /* HotSpot's block size */
    size_t got;     /* bytes it gave */
    int r, ok;      /* isal_inflate_stateless's result; inflated whole */
} member_job;

/* The reader thread's state: the members ring's block k is job[k %
 * JOBS]; `sent` of them were posted to it and `back` taken back. Filter
 * blocks are numbered from `first`: `given` were handed out, `posted` of
 * them given to the filter (so given - posted = sent - back, the members
 * out, but while a false start's members are dropped). */
typedef struct {
    hs_input *in;
    hs_ring *ring;  /* to the workers and back, in order */
    member_job job[JOBS];
    unsigned sent, back;
    unsigned first, given, posted;
    size_t next;    /* the next member to hand out starts at raw[next] */
    size_t past;    /* and ends at the first header after raw[past]: past
                     * is next but for a member handed out again */
    int over;       /* no more members: the streaming path goes on */
} members;

/* One whole member, all of its bytes, CRC and length checked, into its
 * slot. */
static void inflate_member(struct inflate_state *st, member_job *j)
{
    isal_inflate_init(st);
    st->next_in = j->src;
    st->avail_in = (uint32_t)(j->b - j->a);
    st->next_out = j->out;
    st->avail_out = (uint32_t)j->cap;
    st->crc_flag = ISAL_GZIP;
    j->r = isal_inflate_stateless(st);
    j->got = j->cap - st->avail_out;
    j->ok = j->r == ISAL_DECOMP_OK && st->avail_in == 0 && j->got > 0;
}

typedef struct {
    members *m;
    struct inflate_state *st;
} worker;

/* A worker: inflates the members posted, oldest first, until the reader
 * thread stops the ring. */
static void *worker_thread(void *arg)
{
    worker *w = arg;
    unsigned k;

    while (hs_ring_work(w->m->ring, &k) == 0) {
        inflate_member(w->st, &w->m->job[k % JOBS]);
        hs_ring_worked(w->m->ring, k, 1);
    }
    return NULL;
}

/* Reads more compressed bytes after raw_len, moving the member not handed
 * out yet to the front first when the buffer is full (only once no member
 * is out: they point into it). 1 when there is more to look at, 0 to take
 * the members out back first, -1 when this path cannot go on. */
static int more_raw(members *m)
{
    hs_input *in = m->in;
    size_t moved;
    ssize_t n;

    if (in->raw_eof)
        return -1; /* a member that cannot end: the streaming path says why */
    if (in->raw_len == in->raw_cap) {
        if (m->sent != m->back)
            return 0;
        if (in->raw_pos == 0)
            return -1; /* one member fills the buffer: not HotSpot's */
        moved = hs_in_raw_to_front(in);
        m->next -= moved;
        m->past -= moved;
    }
    n = hs_in_read_some(in, in->raw + in->raw_len, in->raw_cap - in->raw_len);
    if (n < 0)
        return -1; /* the streaming reader meets it again and says so */
    hs_in_raw_got(in, (size_t)n);
    return 1;
}

/* Posts the next member to the workers: 1, 0 when the members out must
 * come back first, -1 when there is none to post (m->over: no more will
 * be, or the filter stopped the reader's ring). */
static int hand_out(members *m)
{
    hs_input *in = m->in;
    member_job *j;
    size_t b;
    int more;

    assert(!m->over && m->sent - m->back < JOBS);
    for (;;) {
        if (m->next == in->raw_len && in->raw_eof) /* every member is out */
            return m->sent != m->back ? 0 : -1;
        if ((b = member_end(in, m->past)) != 0)
            break;
        if ((more = more_raw(m)) <= 0)
            return more;
    }
    if (!member_header(in->raw + m->next, in->raw_len - m->next))
        return -1;
    /* its slot: the filter may still be reading the member JOBS back */
    if (hs_ring_room(in->ring, m->first + m->given) != 0)
        return -1;
    j = &m->job[m->sent % JOBS];
    j->a = m->next;
    j->b = b;
    j->src = in->raw + j->a;
    j->n = m->first + m->given++;
    j->out = in->slot[j->n % HS_IN_SLOTS].buf;
    j->cap = ((hs_gunzip *)in->dec)->block;
    m->next = m->past = b;
    if (hs_ring_room(m->ring, m->sent) != 0)
        return -1; /* never: only this thread stops it */
    hs_ring_post(m->ring, m->sent++, 1);
    return 1;
}

/* The oldest member out, once inflated: NULL when the ring was stopped. */
static member_job *take_back(members *m)
{
    unsigned k;
    long status;

    if (hs_ring_take(m->ring, &k, &status) != 0)
        return NULL;
    assert(k == m->back && status > 0);
    return &m->job[k % JOBS];
}

static void put_back(members *m)
{
    hs_ring_release(m->ring);
    m->back++;
}

/* The member `j` that did not end where the next began: handed out again,
 * up to the next header along, when it ran out of input there and the
 * budget allows; the members out after it began at a false start and are
 * dropped as they come back. 0 when the streaming path must take over. */
static int try_again(members *m, const member_job *j)
{
    if (m->over || j->r != ISAL_END_INPUT || !may_try_another_header(m->in))
        return 0;
    m->given = m->posted;
    m->next = j->a;
    m->past = j->b;
    put_back(m);
    while (m->back != m->sent)
        if (take_back(m))
            put_back(m);
    return 1;
}

/* Gives the filter the oldest member out, once inflated, when it is
 * whole: 1, or 0 when the streaming path must take over from it. */
static int give_oldest(members *m)
{
    hs_input *in = m->in;
    member_job *j = take_back(m);

    if (!j)
        return 0;
    if (!j->ok)
        return try_again(m, j);
    in->raw_pos = j->b;
    hs_in_post_block(in, j->n, (long)j->got);
    in->paired++;
    m->posted++;
    put_back(m);
    if (in->raw_mapped)
        hs_in_map_done(in, in->map_skip + in->raw_pos, HS_IN_MAP_STEP);
    return 1;
}

/* The reader thread's loop: members handed out ahead as long as there are
 * some and room for them, and given back to the filter in order. */
static void run_members(members *m)
{
    int h;

    for (;;) {
        if (!m->over && m->sent - m->back < JOBS) {
            if ((h = hand_out(m)) > 0)
                continue;
            m->over = h < 0;
        }
        if (m->sent == m->back || hs_ring_stopped(m->in->ring))
            break;
        if (!give_oldest(m))
            break;
    }
}

/* Starts the workers (the streaming inflater's state is the first's): how
 * many started. */
static int start_workers(members *m, worker *w, pthread_t *t)
{
    hs_gunzip *z = m->in->dec;
    int i;

    for (i = 0; i < WORKERS; i++) {
        w[i].m = m;
        w[i].st = i == 0 ? &z->st : z->helper;
        if (pthread_create(&t[i], NULL, worker_thread, &w[i]) != 0)
            break;
    }
    return i;
}

/* Inflates members on two threads while they are HotSpot's and end where
 * the next begins; returns the next block to fill. */
unsigned hs_members_parallel(hs_input *in, unsigned first)
{
    members m;
    worker w[WORKERS];
    pthread_t t[WORKERS];
    int started, i;

    memset(&m, 0, sizeof m);
    m.in = in;
    m.first = first;
    m.next = m.past = in->raw_pos;
    if (!(m.ring = hs_ring_new(JOBS, 1)))
        return first; /* the streaming path does it all */
    started = start_workers(&m, w, t);
    if (started > 0)
        run_members(&m);
    /* the members still out are dropped: the streaming path goes on after
     * the last one given to the filter, once no worker reads the buffer */
    hs_ring_stop(m.ring);
    for (i = 0; i < started; i++)
        pthread_join(t[i], NULL);
    hs_ring_free(m.ring);
    return first + m.posted;
}
