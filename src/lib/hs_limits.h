/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hs_limits.h - the library's sizes and caps, the core's and its I/O's, in
 * one place, each with why it is what it is. (Not "limits.h": that is the
 * C library's.)
 *
 * Four kinds. Buffers, whose size is a trade-off (bigger: fewer calls per
 * byte; smaller: less memory, more in cache) or a bound of the format.
 * Caps on what one record can make the filter hold or look at: the input
 * decides lengths, so none of them may size an allocation unchecked (the
 * whole of what is held is then metered under hs_options.max_held). The
 * few fixed-size tables a run reports through. And the I/O's: the input's
 * and the output's buffers, the blocks its threads hand on, the pages
 * they keep.
 *
 * hprof_strip.h and hprof_strip.3 state some of these to callers (1 MiB
 * window, segment and output buffer, the 4 MiB window, no STRING over
 * 1 MiB held, 1 GiB max_held, 64 MiB hold_in_memory): a change here is a
 * change there.
 */
#ifndef HS_LIMITS_H
#define HS_LIMITS_H

#include <stdint.h>

#define HS_MIB (1u << 20)

/* ---- buffers ---------------------------------------------------------------- */

/* The read window's default size: one read(2) of 1 MiB costs nothing per
 * byte next to the filter, and the window stays in L2/L3 as it is walked
 * (hs_options.read_buffer). */
#define HS_READ_BUFFER_DEFAULT HS_MIB
/* The largest CLASS_DUMP the format allows is about 2.4 MB (65535 entries
 * in each of its three tables); the read window may grow to this so that a
 * class dump can always be seen whole. */
#define HS_READ_WINDOW_MAX (4u << 20)
/* The output buffer: written to the sink in calls of this size. */
#define HS_OUT_BUFFER HS_MIB
/* A re-encoded heap dump's segments: HotSpot writes segments of about
 * 1 MiB too, and readers hold one segment at a time (hs_options.segment_cap). */
#define HS_SEGMENT_CAP_DEFAULT HS_MIB
/* A segment's length is a u4, and its buffer is allocated whole: 256 MiB
 * is far past any benefit, and far below the u4. */
#define HS_SEGMENT_CAP_MAX (256u << 20)
/* No read window or segment is asked for smaller: a floor for callers
 * that ask for tiny ones (the tests do, to end runs everywhere); the
 * window still grows to what a record needs, and a sub-record too large
 * for a segment gets one of its own. */
#define HS_BUFFER_MIN 64u
/* The stage (the held-back start of a heap dump, see strrec.c) starts at
 * this and doubles: most stages are a few class dumps. */
#define HS_STAGE_FIRST HS_MIB
/* The start of a heap dump is held back at most this long: past it the
 * stage is written, and STRINGs first used later go between segments. */
#define HS_STAGE_CAP (64u << 20)
/* Zeros written from a static block of this size (out.c): never written,
 * so its pages are the kernel's one zero page, always in cache. */
#define HS_ZERO_BLOCK HS_MIB

/* The memory cap when the caller gives none (hs_options.max_held 0): what
 * is held grows with what the rules remember (strings waiting for a user,
 * roots for their object, held instances), far less than the dump itself;
 * the cap stops a corrupt or hostile input long before it takes the
 * machine. */
#define HS_DEFAULT_MAX_HELD ((uint64_t)1 << 30)
/* What instances waiting for their class may take in memory before they
 * go to the spill file (hs_options.hold_in_memory): held instances are
 * privacy on Android dumps, where a class dump may come after its objects. */
#define HS_HOLD_IN_MEMORY_DEFAULT (64ull << 20)

/* The push API's buffer between the caller's writes and the run
 * (hs_push_options.buffer): 1 MiB, as the read window, so a pushed run
 * reads as a pulled one does; in HS_PUSH_SLOTS blocks, so the writer
 * fills one while the run reads another and neither waits on the other
 * block by block. A floor for the tests' tiny buffers, a ceiling far past
 * any benefit. */
#define HS_PUSH_BUFFER_DEFAULT ((size_t)HS_MIB)
#define HS_PUSH_BUFFER_MIN ((size_t)64)
#define HS_PUSH_BUFFER_MAX ((size_t)256 << 20)
#define HS_PUSH_SLOTS 4u

/* ---- caps on what one record makes the filter hold ---------------------------- */

/* A STRING longer than this is no class, field, method or thread name: it
 * is never held, and when unused strings are dropped its text is zeroed
 * in place (see hs_str_record). Class files cap names at 64 KiB. */
#define HS_STRING_HOLD_MAX HS_MIB
/* Instances up to this size are named field by field in findings (an
 * instance is at most a few KiB in practice; past this, one row). */
#define HS_FINDINGS_INSTANCE_MAX HS_MIB
/* The longest mapping line taken: R8's longest (JSON metadata, long
 * signatures) are some kilobytes; past this the text is not a mapping,
 * and the line, kept whole until its end comes, would be held for nothing. */
#define HS_MAPPING_LINE_MAX ((size_t)HS_MIB)
/* The longest STRING text held as a name, by the histogram, findings and
 * the deobfuscator (and read for them from a STRING record): no Java class
 * or member name in a real program comes near it, and the histogram
 * prints a name with some 64 bytes more from a stack buffer. */
#define HS_NAME_TEXT_MAX 1024u
/* A keep-field rule's whole name, class and field ("java.lang.String.coder"),
 * stored in a fixed table (rules.h): longer ones are refused when parsed,
 * so no STRING of this length or more can match one of its parts. */
#define HS_MAX_NAME 256
/* The longest class name --salvage looks for (cutclasses.h: the primitive
 * array classes and java.lang.Object): a longer STRING is none of them. */
#define HS_CUT_NAME_MAX 16

/* ---- what a run reports --------------------------------------------------------- */

/* The duplicate-array table (find_duplicates, what --stats and a JSON
 * report ask for): a key per distinct array, so it grows with the number of
 * arrays, which on a heap of small objects is most of the dump (17 bytes a
 * slot: 118 MiB for 480 MB of short strings, and past the default
 * max_held, failing the run, at some 4 GB). It stops at this, or at a
 * quarter of max_held when that is less, so that a report never fails a
 * run nor grows with it: 2 M slots, 1.5 M distinct arrays (exact on the
 * bench's 256 MB string mixes, not on 480 MB of them; a quarter of the
 * size, 4 MiB, saved a fifth of the time and lost 97 % of the copies).
 * Past it the smallest arrays make room (dups.c) and the counts become
 * lower bounds, as the report says (dup_arrays_unchecked). The table
 * doubles in place (idmap.h, unordered), so this is its peak too. */
#define HS_DUPS_TABLE_MAX ((uint64_t)36 << 20)
/* The smallest payload compared: two arrays of fewer than 8 bytes are
 * copies of each other by chance as often as by waste. */
#define HS_DUPS_MIN_PAYLOAD 8u
/* min_payload when the cap cannot hold even the first table: past the
 * largest payload (a u4 count of 8-byte elements), so none is compared. */
#define HS_DUPS_NONE ((uint64_t)1 << 36)

/* Warnings kept per run (hs_filter_warning): a run gives a handful (about
 * one per kind); past this the rest are left out. */
#define HS_MAX_WARNINGS 16
/* Each warning's room, NUL included: a sentence naming a rule or a class. */
#define HS_WARNING_MAX 240
/* A warning's copy in the JSON report, NUL included: whole, as said (a
 * sentence naming an input's path, which may be PATH_MAX's 4096 bytes),
 * and bounded, the report keeping HS_REPORT_MAX_WARNINGS of them: 128 KiB
 * at most. */
#define HS_REPORT_WARNING_MAX 8192
/* The least input between two calls of the progress callback
 * (hs_filter_set_progress, whose documentation states it): a call per MiB
 * is ten thousand calls on a 10 GB dump, nothing next to the filter, and
 * still many updates a second for a line on a terminal or a job's status.
 * It is checked only when the read window moves, never per record. */
#define HS_PROGRESS_STEP HS_MIB

/* ---- I/O: the threads' blocks, pages, members -------------------------------- */

/* The input's buffer of compressed bytes when they are read (a mapped file
 * is its own buffer): one read(2) of 1 MiB, as the filter's window. A gzip
 * member header must fit it whole (in_gzip_stream.c: one longer, all name
 * or comment, is corrupt), in a mapped file too, so that a file reads as
 * the same file piped in. */
#define HS_IN_RAW_BUFFER HS_MIB
/* Decompressed blocks between the reader thread and the filter: enough to
 * ride out a slow member or a burst of filter work, 5 MiB in all. The
 * filter blocks while the compressor's workers catch up (-z), and the
 * inflater, the thread a run waits on, must not run out of room then:
 * -z on a 1 GB gzip dump is 3 % faster with 5 slots than with 4. 6 were no
 * faster than 5 and took the peak RSS of --zstd=3 on a jcmd -gz dump to
 * 32.5 MiB on a busy machine; 5 stay under 29.1 MiB (bench/RESULTS.md).
 * The filter takes them in place (hs_input_borrow) or by copy
 * (hs_input_read). A block is HotSpot's -gz block (1 MiB, its comment's
 * BLOCKSIZE): a member inflates into one, so a first header that says
 * more is not taken for HotSpot's (in_gzip_members.c). */
#define HS_IN_SLOTS 5
#define HS_IN_SLOT_SIZE HS_MIB
/* How many bytes a mapped compressed input decodes between two
 * hs_in_map_done calls of its own (without a pager): the pages behind are
 * read once, and giving them back each MiB keeps no more of them resident. */
#define HS_IN_MAP_STEP HS_MIB
/* The compressed bytes HotSpot's members are looked for in ahead
 * (in_gzip_members.c): the reader's buffer grows to this, and a mapped file
 * is scanned no further for the next header. A member compresses to at
 * most about its 1 MiB (heap dumps to half of it or less: the bench's), so
 * 4 MiB holds a few members, the HS_IN_SLOTS out at once among them as they
 * usually compress; a member whose end is not in it is not HotSpot's, and
 * goes to the streaming inflater. */
#define HS_MEMBERS_RAW (4u * HS_MIB)
/* Header-like bytes inside a member (a header's first four bytes turn up
 * about once in 2 GB of compressed data) make it end early: it is tried
 * again up to the next header along, each try a member's work again. Input
 * made of such bytes gets this many tries, and one more per
 * HS_MEMBERS_TRY_SPAN of compressed input (real dumps meet one in
 * gigabytes), then goes to the streaming inflater: same bytes, one core. */
#define HS_MEMBERS_TRIES 8u
#define HS_MEMBERS_TRY_SPAN ((uint64_t)64 << 20)

/* Uncompressed bytes per gzip member written (output.c): HotSpot's -gz
 * layout, whose first header's comment says "HPROF BLOCKSIZE=1048576" and
 * which MAT's chunked reader seeks by, so it is the format's, not a
 * choice; it is also the block the compressor workers take. */
#define HS_GZIP_MEMBER HS_MIB
/* A zstd worker's job at levels up to 5 (output.c says how it was
 * measured): the speed and size of libzstd's default 8 MiB, a third of its
 * peak memory. */
#define HS_ZSTD_JOB (2u * HS_MIB)
/* The pager (pager.c): how far ahead of the filter a mapped input's pages
 * are faulted in, far enough that the filter never catches up between two
 * wake-ups, near enough that the resident set stays a few MiB; the step
 * the filter wakes the thread at; and how far behind the filter pages may
 * stay mapped before the filter gives them back itself (its ring holds
 * BEHIND / STEP wake-ups, so a full ring means exactly that). */
#define HS_PAGER_AHEAD (2u * HS_MIB)
#define HS_PAGER_STEP HS_MIB
#define HS_PAGER_BEHIND (4u * HS_MIB)
/* The largest page-cache folio with 4 KiB pages (PMD size): a fault maps
 * its whole folio, so a give-back starts at this boundary below (pager.c). */
#define HS_FOLIO_MAX (2u * HS_MIB)
/* The digest thread's slots (hasher.c): 4 MiB in all, enough that the
 * filter rarely waits for the thread, which hashes about as fast as the
 * filter filters. */
#define HS_HASHER_SLOTS 8
#define HS_HASHER_SLOT (HS_MIB / 2)
/* The audit's verifier (verify.c): its compressed-read buffer, one read(2)
 * of 1 MiB as the filter's; and its HPROF window, in which an instance is
 * classified whole, so none may be larger (a class layout is at most 65535
 * fields of 8 bytes, 512 KiB, and chains of such classes do not occur). */
#define HS_VERIFY_RAW_BUFFER HS_MIB
#define HS_VERIFY_WINDOW (4u * HS_MIB)

#endif
