/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ctx.c - located errors and the memory accountant (see ctx.h).
 */
#include "ctx.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "format.h"

static const char *const holder_names[HS_HOLD_COUNT] = {
    [HS_HOLD_STRINGS] = "STRING records waiting for their first user",
    [HS_HOLD_ROOTS] = "GC roots waiting for their object",
    [HS_HOLD_INSTANCES] = "instances waiting for their CLASS_DUMP",
    [HS_HOLD_STAGE] = "the held-back start of the heap dump",
    [HS_HOLD_CLASSES] = "the class layouts",
    [HS_HOLD_NAMES] = "the keep-field names",
    [HS_HOLD_DUPS] = "the duplicate-array tables",
    [HS_HOLD_HISTO] = "the class histogram",
    [HS_HOLD_MAPPING] = "the deobfuscation mapping (or the names obfuscation gave)",
    [HS_HOLD_CUT] = "the classes a salvage may have to declare",
    [HS_HOLD_FINDINGS] = "the names and places of the audit's findings",
};

void hs_ctx_init_alloc(hs_ctx *c, const hs_alloc *a)
{
    hs_alloc_init(&c->raw, a);
    hs_meter_init(&c->meter, &c->raw, c->opt.max_held);
    c->alloc = hs_meter_alloc(&c->meter);
}

/* The holder holding most, for a message. */
static hs_holder largest_holder(const hs_ctx *c)
{
    unsigned h, best = 0;

    for (h = 1; h < HS_HOLD_COUNT; h++)
        if (c->held[h] > c->held[best])
            best = h;
    return (hs_holder)best;
}

hs_status hs_fail_at(hs_ctx *c, hs_status code, uint64_t off, const char *fmt, ...)
{
    char msg[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (code == HS_E_NOMEM && c->meter.refused) {
        /* not the allocator: the meter refused a growth past the cap */
        hs_holder h = largest_holder(c);
        code = HS_E_LIMIT;
        snprintf(msg, sizeof msg,
                 "memory held would pass the limit of %llu bytes (max_held): "
                 "%llu held, and %llu more asked for; the most by %s (%llu)",
                 (unsigned long long)c->opt.max_held,
                 (unsigned long long)(c->meter.base + c->meter.live),
                 (unsigned long long)c->meter.refused, holder_names[h],
                 (unsigned long long)c->held[h]);
    }
    hs_fail(&c->err, code, off, "%s", msg);
    c->err.record_offset = c->rec_off;
    c->err.tag = c->rec_tag;
    c->err.subtag = c->subtag;
    c->failed = 1;
    return code;
}

/* Where we are, for a truncation message: "the HEAP_DUMP_SEGMENT record at
 * byte 1234" or "the file header". */
static void describe_place(const hs_ctx *c, char *buf, size_t n)
{
    if (c->rec_off == UINT64_MAX)
        snprintf(buf, n, "the file header");
    else if (c->rec_tag < 0)
        snprintf(buf, n, "the record header at byte %llu", (unsigned long long)c->rec_off);
    else if (c->subtag >= 0)
        snprintf(buf, n, "%s %s sub-record of the %s record at byte %llu",
                 strchr("AEIOU", hs_subtag_name((unsigned)c->subtag)[0]) ? "an" : "a",
                 hs_subtag_name((unsigned)c->subtag), hs_tag_name((unsigned)c->rec_tag),
                 (unsigned long long)c->rec_off);
    else if (!hs_tag_known((unsigned)c->rec_tag))
        snprintf(buf, n, "a record of unknown tag 0x%02x at byte %llu", (unsigned)c->rec_tag,
                 (unsigned long long)c->rec_off);
    else
        snprintf(buf, n, "the %s record at byte %llu", hs_tag_name((unsigned)c->rec_tag),
                 (unsigned long long)c->rec_off);
}

static hs_status fail_plain(hs_ctx *c, hs_status s, const char *msg)
{
    hs_fail_plain(&c->err, s, "%s", msg);
    c->failed = 1;
    return s;
}

hs_status hs_fail_io(hs_ctx *c, hs_status s, const char *what)
{
    char place[160];
    uint64_t end = hs_reader_end_offset(&c->rd);

    describe_place(c, place, sizeof place);
    switch (s) {
    case HS_E_TRUNCATED:
        if (c->rec_off != UINT64_MAX && c->rec_end > end && c->rec_end != UINT64_MAX)
            return hs_fail_at(c, s, end,
                              "input ends inside %s (reading %s; %llu of its %llu bytes are "
                              "missing)",
                              place, what, (unsigned long long)(c->rec_end - end),
                              (unsigned long long)(c->rec_end - c->rec_off));
        return hs_fail_at(c, s, end, "input ends inside %s (reading %s)", place, what);
    case HS_E_READ:
        if (c->rd.overrun)
            return hs_fail_at(c, s, end, "the read callback returned more bytes than asked for");
        return hs_fail_at(c, s, end, "reading the input failed");
    case HS_E_WRITE:
        return fail_plain(c, s, "writing the output failed");
    case HS_E_LIMIT:
        return hs_fail_at(c, s, hs_ctx_offset(c),
                          "%s in %s is larger than the read window may grow", what, place);
    case HS_E_CANCELLED:
        return hs_fail_at(c, s, hs_ctx_offset(c), "the run was cancelled");
    case HS_E_NOMEM:
        if (c->meter.refused)
            return hs_fail_at(c, s, hs_ctx_offset(c), "out of memory");
        return fail_plain(c, s, "out of memory");
    default:
        return hs_fail_at(c, s, hs_ctx_offset(c), "%s", hs_status_str(s));
    }
}


hs_status hs_hold(hs_ctx *c, hs_holder h, uint64_t bytes)
{
    c->held_total = c->held_total - c->held[h] + bytes;
    c->held[h] = bytes;
    if (c->held_total > c->st.held_bytes_peak)
        c->st.held_bytes_peak = c->held_total;
    if (h == HS_HOLD_STRINGS && bytes > c->st.held_strings_peak)
        c->st.held_strings_peak = bytes;
    if (c->held_total <= c->opt.max_held)
        return HS_OK;
    return hs_fail_at(c, HS_E_LIMIT, hs_ctx_offset(c),
                      "memory held reached %llu bytes, past the limit of %llu (max_held): "
                      "%s hold %llu of them",
                      (unsigned long long)c->held_total, (unsigned long long)c->opt.max_held,
                      holder_names[h], (unsigned long long)bytes);
}
