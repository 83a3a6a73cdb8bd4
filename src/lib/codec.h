/* SPDX-License-Identifier: Apache-2.0 */
/*
 * codec.h - the one table of compressions (codec.c): for each, its public
 * id (hs_compression), its name, its file name suffixes, its magic numbers,
 * its level range, its decoder and its encoder. Every place that knows a
 * compression reads it here: the input's detection (input.c), the output
 * (output.c), the report's names (report.c), the filter's message for a
 * source that is compressed or not HPROF (filter.c), and through the public
 * calls (hs_sniff, hs_compression_name...) the CLI and the Python package.
 *
 * A new compression is one row in codec.c, its decoder file and its
 * encoder file (and its value at the end of hs_compression).
 *
 * Formats a dump arrives in but that are not read here (zip, xz, bzip2,
 * lz4, 7z) have rows too, with no decoder: their magic is known only to say
 * how to get the dump out, their suffixes to refuse an output named for
 * one (hs_compression_foreign_of_path: it would be plain HPROF under that
 * name). Some (lzma, lzip, brotli, compress, snappy) have suffixes alone.
 */
#ifndef HS_CODEC_H
#define HS_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "hprof_strip.h"

struct hs_input;
struct hs_output;

/* A decoder reads the input's compressed bytes (input_int.h's raw buffer,
 * which holds at least the sniffed ones when open is called) and gives
 * decompressed ones. Its state is in->dec, its own. */
typedef struct {
    /* Sets up: HS_OK, HS_E_NOMEM, or HS_E_READ (said in in->fault). */
    hs_status (*open)(struct hs_input *in);
    /* As hs_source.read: bytes (> 0), 0 at the end or at damage (said by
     * hs_in_damaged), -1 on a read error. */
    long (*read)(struct hs_input *in, uint8_t *buf, size_t cap);
    void (*close)(struct hs_input *in);
    /* When not NULL, decompressing runs on the input's reader thread (it
     * pays when the decoder is slower than the filter: gzip, not zstd).
     * Called before the thread starts: a last chance to set up for it. */
    void (*before_thread)(struct hs_input *in);
    /* Optional, on the reader thread before the streaming reads: blocks it
     * decompresses and posts to the ring its own way, from block `first`;
     * returns the next block number (HotSpot's members, in_gzip_members.c). */
    unsigned (*ahead)(struct hs_input *in, unsigned first);
} hs_decoder;

/* An encoder compresses what hs_output_write is given and writes it with
 * hs_out_put (output_int.h). Its state is o->enc, its own. */
typedef struct {
    /* `level`: in the row's range, or HS_OUTPUT_LEVEL_DEFAULT; `threads`
     * as hs_output_open. HS_OK, or why not (o->fault says it, or out of
     * memory). */
    hs_status (*open)(struct hs_output *o, int level, int threads);
    /* HS_OK, or HS_E_WRITE (o->fault says why). */
    hs_status (*write)(struct hs_output *o, const uint8_t *p, size_t len);
    /* Ends the compressed stream and writes everything out: as write. */
    hs_status (*end)(struct hs_output *o);
    void (*free)(struct hs_output *o);
} hs_encoder;

/* A magic number: `len` bytes, the first compared under `mask0` (zstd's
 * skippable frames are 0x184D2A50 to 0x184D2A5F, little-endian: any low
 * nibble). */
typedef struct {
    const char *bytes;
    size_t len;
    uint8_t mask0;
} hs_codec_magic;

#define HS_CODEC_FOREIGN (-1) /* the id of a format not read here */

typedef struct {
    int id;                 /* hs_compression, or HS_CODEC_FOREIGN */
    const char *name;       /* "gzip": the report's and the messages' */
    const char *what;       /* "gzip data": the phrase of a message (NULL: no magic) */
    const char *how;        /* the command that gets the dump out of it (NULL: no magic) */
    const char *suffix[3];  /* file name suffixes, the first an output's; NULL-ended */
    hs_codec_magic magic[2]; /* the first bytes (len 0: none) */
    int level_min, level_max;
    const hs_decoder *dec;  /* NULL: a foreign format */
    const hs_encoder *enc;
} hs_codec;

/* The row whose magic `p` (`n` bytes) starts with, NULL for none. */
const hs_codec *hs_codec_sniff(const uint8_t *p, size_t n);
/* The row of compression `id` (a HS_COMPRESS_* other than _NONE), NULL for
 * none. */
const hs_codec *hs_codec_of(int id);

/* The name of compression `id` in a message: "none" for HS_COMPRESS_NONE
 * (where hs_compression_name has NULL), the row's, NULL for no such id. */
const char *hs_codec_name(int id);

/* The decoders and encoders the table names (their files). */
extern const hs_decoder hs_gunzip_decoder, hs_unzstd_decoder;
extern const hs_encoder hs_gzip_encoder, hs_zstd_encoder;

#endif
