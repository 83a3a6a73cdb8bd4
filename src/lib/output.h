/* SPDX-License-Identifier: Apache-2.0 */
/*
 * output.h - the library's byte sink: plain, or compressed by an encoder of
 * the codec table (codec.h: zstd multi-threaded, gzip independent members
 * compressed in parallel). Writes satisfy hs_sink.write. Its files:
 * output_int.h.
 */
#ifndef HS_OUTPUT_H
#define HS_OUTPUT_H

#include <stddef.h>
#include <stdint.h>

#include "hprof_strip.h"

typedef struct hs_output hs_output;

/* No level given: the format's own. gzip's is 1; zstd's the dump's header
 * chooses (hs_output_dump_level), from the first bytes written. zstd levels
 * go down to -7, so no small negative number can mean "none". */
#define HS_OUTPUT_LEVEL_DEFAULT (-1000)

/* The zstd level for a dump whose first bytes are `head`: 1 when its ids
 * are 8 bytes (HotSpot on 64 bits), else 3, also when `head` is no HPROF
 * header. */
int hs_output_dump_level(const void *head, size_t n);

/* `compression`: an hs_compression. `level`: the format's level, or
 * HS_OUTPUT_LEVEL_DEFAULT.
 * `threads`: compression workers (0 or 1: compress in the caller's thread
 * for gzip; zstd takes 0 as inline, n as n workers). Returns HS_OK, or why
 * not (HS_E_NOMEM; a compressor's refusal said by hs_output_error) with
 * `*out` set (close it). */
hs_status hs_output_open(hs_output **out, int fd, int compression, int level, int threads);
int hs_output_write(void *ctx, const void *buf, size_t len);
/* Ends the compressed stream and writes everything out: HS_OK, or
 * HS_E_WRITE (hs_output_error says why). */
hs_status hs_output_end(hs_output *o);
/* Writes through `wr` (as hs_sink.write) instead of the descriptor.
 * Before the first write. */
void hs_output_set_writer(hs_output *o, int (*wr)(void *ctx, const void *buf, size_t len),
                          void *ctx);
/* The compression it was opened with (hs_compression). */
int hs_output_is(const hs_output *o);
/* hs_output_error and hs_output_errno are public: hprof_strip.h. */
uint64_t hs_output_written(const hs_output *o);
void hs_output_free(hs_output *o);
/* Puts what passes to `h` (hasher.h), for a report that binds its bytes:
 * the bytes written (HS_HASH_OUT_FILE) and, compressed, the dump they hold
 * (HS_HASH_OUT_DUMP). Before the first write. */
struct hs_hasher;
void hs_output_hash(hs_output *o, struct hs_hasher *h);
/* Detaches `h` (when it is the output's): what is written from now on
 * (hs_output_finish after a failed job, a second run) is hashed no more.
 * hs_job_run's hasher is its own, freed when the job returns; the output
 * is the caller's and outlives it. NULL is fine. */
void hs_output_unhash(hs_output *o, const struct hs_hasher *h);

#endif
