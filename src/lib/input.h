/* SPDX-License-Identifier: Apache-2.0 */
/*
 * input.h - the library's byte source: plain or compressed (the codec table,
 * codec.h), told apart by the first bytes. Reads satisfy hs_source.read.
 * Its files: input_int.h.
 */
#ifndef HS_INPUT_H
#define HS_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "hprof_strip.h"

typedef struct hs_input hs_input;

/* Reads the first bytes of `fd` to choose the format. Returns HS_OK,
 * HS_E_NOMEM, HS_E_READ (said by hs_input_fault), or HS_E_UNSUPPORTED when
 * the input is a format not read here (zip, xz, bzip2, lz4, 7z), which
 * hs_input_fault names with the command that extracts the dump. `*in` is
 * set either way and must be closed. */
hs_status hs_input_open(hs_input **in, int fd);
/* The same over a read callback (as hs_source.read), or over memory when
 * `data` and `size` are given (read in place as a mapped file is, none of
 * its pages given back). */
hs_status hs_input_open_with(hs_input **in, long (*rd)(void *ctx, void *buf, size_t cap),
                             void *ctx, const void *data, size_t size);
/* The descriptor is the input's own: hs_input_close closes it. */
void hs_input_own_fd(hs_input *in);
/* True once anything was read, or hs_input_source was called: too late
 * for hs_input_hash. */
int hs_input_started(const hs_input *in);
/* hs_input_source, with the reader thread and pager started only when
 * `threaded` (the CLI's -T 1 starts none). */
const hs_source *hs_input_source_threads(hs_input *in, int threaded);
long hs_input_read(void *ctx, void *buf, size_t cap);
/* Decompresses a gzip input on a thread of its own, ahead of the reads,
 * so that it runs beside the filter (5 MiB of buffers; HotSpot's -gz
 * members two at a time, on a second thread), and gives the page-table
 * work of a mapped file, plain or compressed, to a pager thread (pager.h).
 * Returns 0, or -1 when the thread could not be started (the input is then
 * read as before). Before the first read only. */
int hs_input_start_thread(hs_input *in);
/* True once hs_input_start_thread has started the thread: then the input
 * can also be taken as hs_source.borrow blocks, the thread's own buffers,
 * with no copy (a block is given back to the thread at the next call). Use
 * one of hs_input_read and hs_input_borrow throughout, not both. */
int hs_input_lends(const hs_input *in);
long hs_input_borrow(void *ctx, const void **block);
/* The input in memory when it is a plain regular file, mapped (then it is
 * read in place: hs_source.data), else NULL. */
const void *hs_input_data(const hs_input *in, uint64_t *size);
/* The input file when it is mapped, plain or compressed (from where the
 * input starts), else NULL: what a SIGBUS address is looked up in. */
const void *hs_input_mapped(const hs_input *in, uint64_t *size);
/* For a filter that patches the input's bytes in place (a mapping's or
 * --obfuscate-names' names, deobf.h): 1 when hs_input_data's bytes are now
 * writable, a plain file mapped here, privately (a page written is copied
 * on write; the file never changes); 0 when they must stay as read, read
 * through a copy: memory the caller lent, a compressed input, a hashed one
 * (hs_input_hash: hashed from its pages after the filter), or when the
 * system will not commit what a written private mapping may take. Pages
 * given back (hs_input_window, the pager: MADV_DONTNEED) lose what was
 * written to them: a filter writes only where it has not given back yet.
 * Once it said 1, the input is not to be hashed. */
int hs_input_writable(hs_input *in);
/* hs_source.window for mapped input: gives back the pages before `done`. */
void hs_input_window(void *ctx, uint64_t done, uint64_t next);
/* Damage in the compressed layer. The decompressed stream then ends
 * where the damage is (hs_input_read gives 0 there, after every byte
 * decompressed before it), so the filter sees a dump cut short;
 * hs_input_error says what and at which compressed byte. */
enum hs_input_damage { HS_DAMAGE_NONE, HS_DAMAGE_TRUNCATED, HS_DAMAGE_CORRUPT };
enum hs_input_damage hs_input_damage(const hs_input *in);
/* gzip members inflated two at a time (HotSpot's -gz shape, with the
 * reader thread), once the caller has read to the end; 0 before. For
 * tests: the rest of the input goes through the streaming inflater, which
 * gives the same bytes, only on one core. */
uint64_t hs_input_paired_members(const hs_input *in);
/* hs_input_shrank, hs_input_dump_bytes, hs_input_drain and
 * hs_input_warning are public (hprof_strip.h), with hs_input_damaged,
 * the damage below as a status. */
/* What failed, naming the layer ("gzip data is truncated ..."), or NULL:
 * hs_input_fault's message. */
const char *hs_input_error(const hs_input *in);
/* What failed as the core says it (ioerr.h): the status (HS_E_READ,
 * HS_E_UNSUPPORTED, HS_E_TRUNCATED or HS_E_MALFORMED for a damaged
 * compressed layer), the compressed byte of a damage as its offset
 * (UINT64_MAX: none), the message; or NULL. */
const hs_error *hs_input_fault(const hs_input *in);
/* Bytes read from the file descriptor so far (compressed ones included),
 * or, mapped, the bytes the filter (or the decompressor) is done with. */
uint64_t hs_input_raw_bytes(const hs_input *in);
/* Puts what is read to `h` (hasher.h), for a report that binds its
 * bytes: the input as read, compressed bytes and all (HS_HASH_IN_FILE),
 * and the dump decompressed from a compressed one (HS_HASH_IN_DUMP). Right
 * after hs_input_open, before any read or hs_input_start_thread. */
struct hs_hasher;
void hs_input_hash(hs_input *in, struct hs_hasher *h);
/* Once the caller is done reading, before the digests are taken: stops the
 * reader thread (which hashes what it reads, and after a run that failed
 * may still be reading ahead), then puts the rest of what a mapped input
 * used, up to `consumed` input bytes when it is plain (the filter walked
 * it in place) or to the compressed byte decoded last. */
void hs_input_hash_end(hs_input *in, uint64_t consumed);
/* Detaches `h` (when it is the input's): what is read from now on is
 * hashed no more. hs_job_run's hasher is its own, freed when the job
 * returns; the input is the caller's and outlives it. NULL is fine. */
void hs_input_unhash(hs_input *in, const struct hs_hasher *h);
/* The input file's own bytes from where it starts, compressed ones as they
 * are (the audit's verifier reads the container itself), as hs_source.read:
 * in place of hs_input_source, never both. hs_input_file_bytes: how many
 * it gave so far. */
long hs_input_read_file(void *ctx, void *buf, size_t cap);
uint64_t hs_input_file_bytes(const hs_input *in);
void hs_input_close(hs_input *in);

#endif
