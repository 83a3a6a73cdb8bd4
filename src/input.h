/*
 * input.h - the CLI's byte source: plain, gzip or zstd, told apart by the
 * first bytes. Reads satisfy hs_source.read.
 */
#ifndef HS_INPUT_H
#define HS_INPUT_H

#include <stddef.h>
#include <stdint.h>

enum hs_input_format { HS_IN_PLAIN, HS_IN_GZIP, HS_IN_ZSTD };

typedef struct hs_input hs_input;

/* Reads the first bytes of `fd` to choose the format. Returns 0, or -1 (out
 * of memory, or a read failure described by hs_input_error). `*in` is set
 * either way and must be closed. */
int hs_input_open(hs_input **in, int fd);
long hs_input_read(void *ctx, void *buf, size_t cap);
enum hs_input_format hs_input_format(const hs_input *in);
/* What failed, naming the layer ("gzip data is truncated ..."), or NULL. */
const char *hs_input_error(const hs_input *in);
/* Bytes read from the file descriptor so far (compressed ones included). */
uint64_t hs_input_raw_bytes(const hs_input *in);
void hs_input_close(hs_input *in);

#endif
