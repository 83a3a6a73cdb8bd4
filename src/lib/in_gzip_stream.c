/* SPDX-License-Identifier: Apache-2.0 */
/*
 * in_gzip_stream.c - the gzip decoder (codec.h), streaming: members back to back
 * (HotSpot's -gz dumps are one member per block, like `pigz`), read to the
 * end. gzip input may end in zero bytes (tape blocks, some upload paths pad
 * with them), ignored with a warning as gzip -d ignores them
 * (hs_input_warning); other bytes after the last member are an error, where
 * gzip -d warns: they may be a second file.
 *
 * ISA-L inflates (isal_inflate, streaming, bounded memory): measured at
 * about half zlib's CPU time on heap dumps, and faster than libdeflate,
 * which also needs a whole member in memory (bench/RESULTS.md). It checks
 * each member's header, CRC-32 and length as zlib does. Slower than the
 * filter, it runs on the reader thread (inthread.c) when there is one, and
 * HotSpot's members two at a time (in_gzip_members.c).
 */
#include "in_gzip.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *isal_what(int r)
{
    switch (r) {
    case ISAL_INVALID_BLOCK: return "invalid deflate block";
    case ISAL_INVALID_SYMBOL: return "invalid deflate symbol";
    case ISAL_INVALID_LOOKBACK: return "invalid distance too far back";
    case ISAL_INVALID_WRAPPER: return "invalid gzip header";
    case ISAL_UNSUPPORTED_METHOD: return "unknown compression method";
    case ISAL_INCORRECT_CHECKSUM: return "CRC or length check failed";
    }
    return "inflate failed";
}

/* The length of the gzip member header at p[0, n), or 0 when p[0, n) does
 * not hold all of it. Only the lengths of its fields are read here (a
 * header that is not deflate's is left to isal_inflate to refuse). */
static size_t header_len(const uint8_t *p, size_t n)
{
    size_t at = 10;
    const uint8_t *nul;
    int field;

    if (n < at)
        return 0;
    if (p[0] != 0x1f || p[1] != 0x8b || p[2] != 8)
        return at;
    if (p[3] & 0x04) { /* FEXTRA: a length, then that many bytes */
        if (n < at + 2)
            return 0;
        at += 2 + (size_t)(p[at] | p[at + 1] << 8);
    }
    for (field = 0x08; field <= 0x10; field <<= 1) /* FNAME, FCOMMENT */
        if (p[3] & field) {
            if (at >= n || !(nul = memchr(p + at, 0, n - at)))
                return 0;
            at = (size_t)(nul - p) + 1;
        }
    if (p[3] & 0x02) /* FHCRC */
        at += 2;
    return at <= n ? at : 0;
}

/* Makes the member header at raw_pos whole in the buffer before it goes to
 * isal_inflate, reading more (the pieces of a pipe may end anywhere). ISA-L
 * 2.30 resumes a header cut inside its name, comment or extra field with
 * flags it never set, and so misreads what follows: measured, valid input
 * came out "corrupt" (tests/fuzz/fuzz_gzip.c). HS_OK, also when the input
 * ends first (isal_inflate then reports it cut), HS_E_READ, or
 * HS_E_MALFORMED when no header fits the buffer (hs_in_damaged()). */
static hs_status whole_header(hs_input *in)
{
    /* A mapped file holds any header whole: the buffer's limit applies all
     * the same, so that a file reads as the same file piped in would. */
    if (in->raw_mapped && in->raw_len - in->raw_pos > HS_IN_RAW_BUFFER &&
        !header_len(in->raw + in->raw_pos, HS_IN_RAW_BUFFER))
        return hs_in_damaged(in, HS_DAMAGE_CORRUPT, "gzip", "a member header too long to hold");
    while (!header_len(in->raw + in->raw_pos, in->raw_len - in->raw_pos) && !in->raw_eof) {
        hs_in_raw_to_front(in);
        if (in->raw_len == in->raw_cap)
            return hs_in_damaged(in, HS_DAMAGE_CORRUPT, "gzip",
                                 "a member header too long to hold");
        if (hs_in_raw_append(in) != HS_OK)
            return HS_E_READ;
    }
    return HS_OK;
}

/* Reads past the zero bytes at raw_pos: 1 when they run to the end of the
 * input (said in in->warning), 0 when another byte follows them (raw_pos
 * at it), HS_E_READ. A mapped file's pages are given back as the zeros are
 * passed: padding may be long. */
static int zero_tail(hs_input *in)
{
    uint64_t from = hs_in_raw_at(in);

    for (;;) {
        const uint8_t *p = in->raw + in->raw_pos, *end = in->raw + in->raw_len;
        while (p < end && *p == 0)
            p++;
        in->raw_pos = (size_t)(p - in->raw);
        if (p < end)
            return 0;
        if (in->raw_mapped)
            hs_in_map_done(in, in->map_skip + in->raw_pos, HS_IN_MAP_STEP);
        if (in->raw_eof)
            break;
        if (hs_in_raw_fill(in) != HS_OK)
            return HS_E_READ;
    }
    snprintf(in->warning, sizeof in->warning,
             "%llu zero bytes after the last gzip member, from compressed byte %llu, ignored",
             (unsigned long long)(hs_in_raw_at(in) - from), (unsigned long long)from);
    return 1;
}

/* Starts the next gzip member at the next byte, its header whole: 1, or 0
 * when the input ends there (also in zero bytes: zero_tail), else
 * HS_E_READ, or the damage's status (hs_in_damaged()). */
static int next_member(hs_input *in)
{
    hs_gunzip *z = in->dec;
    int more = hs_in_raw_more(in, 1, "gzip", "member");
    hs_status s;

    if (more <= 0)
        return more;
    if (in->raw[in->raw_pos] == 0) {
        if ((more = zero_tail(in)) != 0)
            return more == 1 ? 0 : more;
        /* not padding, then (nor a member after it: gzip -d neither) */
        return hs_in_damaged(in, HS_DAMAGE_CORRUPT, "gzip", "unexpected bytes after a gzip member");
    }
    /* another member follows: it must be gzip too */
    if (in->raw[in->raw_pos] != 0x1f)
        return hs_in_damaged(in, HS_DAMAGE_CORRUPT, "gzip", "unexpected bytes after a gzip member");
    isal_inflate_reset(&z->st);
    z->st.crc_flag = ISAL_GZIP;
    z->member_done = 0;
    return (s = whole_header(in)) == HS_OK ? 1 : s;
}

static long gzip_read(hs_input *in, uint8_t *buf, size_t cap)
{
    hs_gunzip *z = in->dec;
    struct inflate_state *g = &z->st;
    uint32_t want = cap > (1u << 30) ? (1u << 30) : (uint32_t)cap;
    int r;

    do { /* until some output, or the end */
        /* a damage ends the bytes (0); a read error is -1 */
        if (z->member_done && (r = next_member(in)) <= 0)
            return r == HS_E_READ ? -1 : 0;
        if (in->raw_pos == in->raw_len && !in->raw_eof && hs_in_raw_fill(in) != HS_OK)
            return -1;
        g->next_in = in->raw + in->raw_pos;
        /* a mapped file may hold more than avail_in counts */
        g->avail_in = in->raw_len - in->raw_pos > UINT32_MAX ? UINT32_MAX
                                                             : (uint32_t)(in->raw_len - in->raw_pos);
        g->next_out = buf;
        g->avail_out = want;
        r = isal_inflate(g);
        in->raw_pos = in->raw_len - g->avail_in;
        if (r < 0) {
            /* what came out before the error is given, as gzip -dc gives
             * it: its last bytes may be inflated from the damage before it
             * showed (only the member's CRC could tell), and how many
             * depends on the room given; the damage is reported either way */
            hs_in_damaged(in, HS_DAMAGE_CORRUPT, "gzip", isal_what(r));
            return (long)(want - g->avail_out);
        }
        if (g->block_state == ISAL_BLOCK_FINISH)
            z->member_done = 1;
        else if (g->avail_out == want && in->raw_pos == in->raw_len && in->raw_eof) {
            hs_in_damaged(in, HS_DAMAGE_TRUNCATED, "gzip", "the input ends inside a member");
            return 0;
        }
    } while (g->avail_out == want);
    return (long)(want - g->avail_out);
}


static hs_status gzip_open(hs_input *in)
{
    hs_gunzip *z = calloc(1, sizeof *z);

    if (!z)
        return HS_E_NOMEM;
    in->dec = z;
    isal_inflate_init(&z->st);
    z->st.crc_flag = ISAL_GZIP;
    /* the whole first header now: HotSpot's comment is in it (a damage is
     * said at the first read) */
    return whole_header(in) == HS_E_READ ? HS_E_READ : HS_OK;
}

/* Members are handed out of the buffer, a few at a time, when the input is
 * HotSpot's (its first header says its block size) and the buffer holds
 * all that was read. */
static void gzip_before_thread(hs_input *in)
{
    hs_gunzip *z = in->dec;

    if (in->raw_total == in->raw_len && (z->block = hs_members_block(in->raw, in->raw_len)) != 0 &&
        hs_in_raw_grow(in, HS_MEMBERS_RAW) == HS_OK)
        z->helper = malloc(sizeof *z->helper);
}

static unsigned gzip_ahead(hs_input *in, unsigned first)
{
    hs_gunzip *z = in->dec;

    if (!z->helper)
        return first;
    first = hs_members_parallel(in, first);
    /* the streaming inflater goes on from the next member */
    z->member_done = 1;
    return first;
}

static void gzip_close(hs_input *in)
{
    hs_gunzip *z = in->dec;

    if (z)
        free(z->helper);
    free(z);
    in->dec = NULL;
}

const hs_decoder hs_gunzip_decoder = {gzip_open, gzip_read, gzip_close, gzip_before_thread,
                                      gzip_ahead};
