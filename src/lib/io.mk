# SPDX-License-Identifier: Apache-2.0
# src/lib/io.mk - the library's I/O files, bottom up (each calls only the
# files before it: tests/lanes/layers.sh), read by the Makefile (CORE_SRC, the
# TSan build of the gzip reader) and tests/fuzz/fuzz.mk (the gzip-reader
# harness links these alone). They sit below the filter's core, which
# names a compressed source by the codec table: the error records
# (ioerr.c), the ring every thread runs on, the pager, the hasher; the
# input's bytes and the output's; the decoders (in_*.c) and encoders
# (out_*.c), found by their names, a codec's own files in the order of
# their names; the codec table; the reader thread, the input and the
# output.
#
# A new compression: its row in codec.c, in_NAME.c and out_NAME.c (and
# its value at the end of hs_compression in hprof_strip.h).
HS_IO_DIR ?= src/lib
HS_IO_SRC = $(addprefix $(HS_IO_DIR)/,ioerr.c ring.c pager.c hasher.c inbuf.c outbuf.c) \
            $(sort $(wildcard $(HS_IO_DIR)/in_*.c $(HS_IO_DIR)/out_*.c)) \
            $(addprefix $(HS_IO_DIR)/,codec.c inthread.c input.c output.c)
