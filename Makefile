# SPDX-License-Identifier: Apache-2.0
# hprof-strip - see README.md. `make help` lists the targets.

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
DESTDIR ?=

CC ?= cc
CFLAGS ?= -O2 -g
WARNFLAGS = -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
            -Wundef -Wpointer-arith -Wvla -Wformat=2 -Wwrite-strings \
            -Wimplicit-fallthrough -Wcast-qual
STDFLAGS = -std=c11 -D_FILE_OFFSET_BITS=64
# HS_PORT_POSIX=1: the POSIX fallbacks of the Linux-only calls
# (src/lib/hs_port.h, src/cli/cli_port.h) on Linux too; make test-posix
# builds so in build-posix and runs the suite there.
ifeq ($(HS_PORT_POSIX),1)
STDFLAGS += -DHS_PORT_FORCE_POSIX
endif
ALL_CFLAGS = $(STDFLAGS) $(CFLAGS) $(WARNFLAGS) $(EXTRA_CFLAGS) -MMD -MP
# What the program links (ldd: libzstd, libisal, libdeflate, libxxhash and
# libc); zlib is the C suites' alone (tests/unit/test_input.c).
LDLIBS_CLI = -lzstd -lisal -ldeflate -lpthread -lxxhash

ifeq ($(V),1)
Q =
else
Q = @
endif

BUILD ?= build
BIN ?= hprof-strip
# src/lib is the library (libhprofstrip: the filter's core and its I/O),
# src/cli the command-line tool, which links it. The core, from the bottom
# up: each file calls only files before it (tests/lanes/layers.sh checks it with
# nm); the library's I/O (src/lib/io.mk: compressed input, compressed
# output on threads, the pager, the digest thread) below the filter,
# which names a compressed source by the codec table.
include src/lib/io.mk
CORE_SRC = src/lib/port.c src/lib/sha256.c src/lib/alloc.c src/lib/fail.c $(HS_IO_SRC) src/lib/format.c src/lib/idmap.c \
           src/lib/names.c src/lib/strtab.c src/lib/rootq.c src/lib/classes.c src/lib/classdump.c \
           src/lib/mapping.c src/lib/reader.c src/lib/out.c src/lib/rules.c src/lib/rulefile.c \
           src/lib/ctx.c src/lib/findings.c src/lib/encoder.c src/lib/cutclasses.c src/lib/strrec.c \
           src/lib/roots.c src/lib/dups.c src/lib/histo.c src/lib/scrub.c src/lib/obfuscate.c \
           src/lib/deobf.c src/lib/fastpath.c src/lib/heap.c src/lib/filter.c src/lib/version.c \
           src/lib/io_api.c src/lib/verify.c src/lib/report.c src/lib/job.c \
           src/lib/push.c
CLI_SRC  = src/cli/main.c src/cli/run.c src/cli/report.c src/cli/stop.c src/cli/io.c src/cli/files.c \
           src/cli/progress.c src/cli/mapfile.c src/cli/port.c src/cli/many.c src/cli/many_status.c src/cli/jvm.c
CORE_OBJ = $(CORE_SRC:src/%.c=$(BUILD)/%.o)
CLI_OBJ  = $(CLI_SRC:src/%.c=$(BUILD)/%.o)
LIB      = $(BUILD)/libhprofstrip.a

TEST_SRC = $(wildcard tests/unit/test_*.c)
TEST_HELPERS = tests/unit/helpers.c tests/unit/dumpgen.c tests/unit/walk.c tests/unit/oracle.c
TEST_HELPERS += tests/unit/cutscan.c tests/unit/shared_rules.c
TEST_BIN = $(BUILD)/run-tests

.PHONY: all deps test-deps run test test-long check test-asan test-clang test-tsan test-posix test-valgrind test-cross test-stress bench install uninstall clean help

# The shared library too: the Python package (python/) loads it from here.
all: $(BIN) $(BUILD)/libhprofstrip.so

help:
	@echo "make            build ./hprof-strip and build/libhprofstrip.so"
	@echo "make run        install what building needs, build, strip a bundled fixture"
	@echo "make test       install what the tests need too, build, run the whole test suite"
	@echo "               (its long sweeps sampled: TEST_DUMPS dumps each, TEST_CUTS cuts)"
	@echo "make test-long  the long sweeps whole: every real dump, 20 cuts"
	@echo "make check      run the Criterion suites and CLI checks (no installs)"
	@echo "make test-asan  the suite under AddressSanitizer + UBSan"
	@echo "make test-clang the suite and CLI checks built by clang, -Werror"
	@echo "make test-tsan  -z/--gzip with several threads under ThreadSanitizer"
	@echo "make test-posix the suite built with the POSIX fallbacks of the Linux-only calls"
	@echo "make test-valgrind  real dumps through every mode under valgrind"
	@echo "make test-cross  aarch64 and s390x builds under qemu-user, same bytes as this one"
	@echo "make test-stress  the signal, pipe and full-disk checks beside two CPU burners, 3 runs"
	@echo "make bench      throughput and peak memory against cat and zstd"
	@echo "make fuzz       libFuzzer over the whole filter (FUZZ_SECONDS=120)"
	@echo "make fuzz-replay  the fuzz seeds and regressions under ASan/UBSan"
	@echo "make install    install into DESTDIR/PREFIX"
	@echo "make lib        build/libhprofstrip.a and build/libhprofstrip.so"

# The CLI sees the library's headers; the library never sees the CLI's.
$(BUILD)/lib/%.o: src/lib/%.c
	@mkdir -p $(BUILD)/lib
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/cli/%.o: src/cli/%.c
	@mkdir -p $(BUILD)/cli
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(ALL_CFLAGS) -Isrc/lib -c $< -o $@

$(LIB): $(CORE_OBJ)
	$(Q)rm -f $@
	$(Q)ar rcs $@ $^

$(BIN): $(CLI_OBJ) $(LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $(CLI_OBJ) $(LIB) $(LDLIBS_CLI)

# Install the Debian packages, when missing: deps what building and running
# need, test-deps also what the tests need (tools/install-deps.sh).
deps:
	$(Q)sh tools/install-deps.sh
test-deps:
	$(Q)sh tools/install-deps.sh --test

run: deps hprof-strip
	./hprof-strip --stats fixtures/jvm17-64bit.hprof -f -o $(BUILD)/jvm17-64bit.stripped.hprof
	@ls -l fixtures/jvm17-64bit.hprof $(BUILD)/jvm17-64bit.stripped.hprof

$(BUILD)/tests/unit/%.o: tests/unit/%.c
	@mkdir -p $(BUILD)/tests/unit
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(ALL_CFLAGS) -Isrc/lib -Isrc/cli -c $< -o $@

$(TEST_BIN): $(TEST_SRC:tests/unit/%.c=$(BUILD)/tests/unit/%.o) $(TEST_HELPERS:tests/unit/%.c=$(BUILD)/tests/unit/%.o) $(BUILD)/cli/port.o $(LIB)
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ -lcriterion -lxxhash -lzstd -lisal -lz -ldeflate -lpthread

# A fresh HotSpot dump made on this machine, which the suites read beside
# the corpus and the fixtures (tests/unit/helpers.c dump_paths).
FRESH_DUMP = build/fresh/jvm-30mb.hprof
$(FRESH_DUMP):
	@mkdir -p build/fresh
	sh tools/makedump.sh 30 $@ >build/fresh/makedump.log 2>&1 || \
	    { cat build/fresh/makedump.log; exit 1; }

# tools/artdump.c: the project's HotSpot -> ART-style converter (1.0.3,
# 4-byte ids, app/zygote/image heaps, ART's segments and roots, some objects
# before their classes), a C program of its own with no library beyond libc.
ARTDUMP = $(BUILD)/artdump
$(ARTDUMP): tools/artdump.c
	@mkdir -p $(BUILD)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $<

# tools/plantdump.c: small HPROF files with secrets planted in every place
# a value can hide, each with a manifest of its markers
# (tests/cli/audit_adversarial.sh); libc only, like artdump.
PLANTDUMP = $(BUILD)/plantdump
$(PLANTDUMP): tools/plantdump.c
	@mkdir -p $(BUILD)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $<

# The fresh dump as ART would write it, for the Android paths
# (tests/unit/test_oracle.c and the other suites reading build/fresh).
ART_DUMP = build/fresh/jvm-30mb-art.hprof
$(ART_DUMP): $(FRESH_DUMP) $(ARTDUMP)
	$(ARTDUMP) $(FRESH_DUMP) $@ >build/fresh/artdump.log 2>&1 || \
	    { cat build/fresh/artdump.log; exit 1; }

# Each suite's wall time on a line after it (the CI log shows where the
# minutes go).
TIMED = sh tests/timed.sh

# The CLI checks make check runs (tests/cli/NAME.sh), all of them unless told
# fewer (test-asan, test-clang); TEST_FILTER, when set, is the Criterion
# tests it runs (a --filter pattern).
TEST_FILTER =
# CHECK_LANES: how many CLI checks run at once (tests/lanes/scripts.sh);
# one streams each check's output as it runs.
CHECK_LANES = 1
CHECK_SCRIPTS = cli cli_report cli_input cli_formats cli_args cli_safety cli_files cli_limits \
                cli_destroy cli_digests cli_killed cli_obfuscate cli_cuts cli_privacy cli_many \
                audit_adversarial cli_many_stops cli_audit cli_first_hour

check: $(BIN) $(TEST_BIN) $(FRESH_DUMP) $(ART_DUMP)
	sh tests/lanes/layers.sh $(BUILD) $(CORE_SRC)
	sh tests/lanes/spdx.sh
	$(TIMED) $(TEST_BIN) --jobs 2 $(if $(TEST_FILTER),--filter '$(TEST_FILTER)')
	set -e; if [ $(CHECK_LANES) -gt 1 ]; then \
	    sh tests/lanes/scripts.sh $(CHECK_LANES) ./$(BIN) $(CUTCHECK) $(CHECK_SCRIPTS); \
	else for s in $(CHECK_SCRIPTS); do \
	    if [ $$s = cli_cuts ]; then $(TIMED) sh tests/cli/$$s.sh ./$(BIN) $(CUTCHECK); \
	    else $(TIMED) sh tests/cli/$$s.sh ./$(BIN); fi; \
	done; fi
	CC="$(CC)" CFLAGS="$(CFLAGS)" LDFLAGS="$(LDFLAGS)" $(TIMED) sh tests/lanes/abi.sh ./$(BIN) $(BUILD)

# The signal, pipe and full-disk checks, STRESS_RUNS times, with two CPU
# burners beside them (tests/lanes/stress.sh): a race shows up here first.
STRESS_RUNS ?= 3
STRESS_SCRIPTS ?= cli_safety cli_killed cli_many_stops
test-stress: $(BIN) $(FRESH_DUMP)
	sh tests/lanes/stress.sh $(STRESS_RUNS) ./$(BIN) $(STRESS_SCRIPTS)

# tests/cli/cli_cuts.sh's decoder: what a cut dump holds, and whether the
# salvaged output holds it too (tests/unit/cutcheck.c).
CUTCHECK = $(BUILD)/cutcheck
$(CUTCHECK): $(BUILD)/tests/unit/cutcheck.o $(BUILD)/tests/unit/cutscan.o $(BUILD)/tests/unit/walk.o $(LIB)
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ -lcriterion -lz $(LDLIBS_LIB)
check: $(CUTCHECK)
# tests/cli/audit_adversarial.sh's planted dumps (tools/plantdump.c)
check: $(PLANTDUMP)
# tests/lanes/abi.sh: a program built against the frozen 0.1 header
# (tests/lanes/abi/hprof_strip-0.1.h) runs against the shared library built now.
check: $(BUILD)/libhprofstrip.so

# make test samples the long sweeps (issue #55), so that a clone with
# nothing beside it runs it within 10 minutes on 2 idle cores, and it holds
# with both cores busy: each sweep over the real dumps (the Criterion tests
# that read dump_paths_sampled, the shell suites that call sample_dumps)
# takes TEST_DUMPS of them, a window that each test picks by its name, so
# the tests together still read every dump; cli_cuts.sh cuts each
# compressed dump at TEST_CUTS places (of 20). Every check still runs;
# make test-long runs the sweeps whole.
TEST_DUMPS ?= 1
TEST_CUTS ?= 4
test: export HS_TEST_DUMPS = $(TEST_DUMPS)
test: export CLI_CUTS_N = $(TEST_CUTS)
# tests/cli/cli_destroy.sh: half its 96 cases (each option against each
# target once, with -f or without); make test-long runs them all
test: export DESTROY_CASES = even

# The whole suite: warnings as errors, Criterion suites, CLI checks, the
# outputs checked by parsers nobody here wrote (hprof-conv, VisualVM), the
# ART-style converter (tests/ext/artdump.sh), the privacy preset on a dump
# full of planted secrets, the audit's verdict against an independent
# scan on every preset's output of the real dumps (tests/cli/audit_corpus.sh);
# then the Python package, and it on a Dask
# cluster of this machine (tests/lanes/dask.sh).
test: test-deps
	$(MAKE) EXTRA_CFLAGS=-Werror check
	$(TIMED) sh tests/ext/external.sh ./$(BIN)
	$(TIMED) sh tests/ext/artdump.sh ./$(BIN)
	$(TIMED) sh tests/ext/histogram.sh ./$(BIN)
	$(TIMED) sh tests/ext/analyzers.sh ./$(BIN)
	$(TIMED) sh tests/cli/cli_salvage_art.sh ./$(BIN)
	$(TIMED) sh tests/cli/cli_strings.sh ./$(BIN)
	$(TIMED) sh tests/cli/deobf.sh ./$(BIN)
	$(TIMED) sh tests/cli/privacy.sh ./$(BIN)
	$(TIMED) sh tests/cli/audit_corpus.sh ./$(BIN)
	$(TIMED) sh tests/cli/cli_jvm.sh ./$(BIN)
	$(TIMED) sh tests/cli/examples.sh ./$(BIN)
	$(TIMED) sh tests/lanes/bench_stats.sh
	$(TIMED) sh tests/lanes/bench_floor.sh ./$(BIN)
	$(MAKE) EXTRA_CFLAGS=-Werror lib
	MAKE="$(MAKE)" $(TIMED) sh tests/lanes/install.sh ./$(BIN)
	$(TIMED) sh tests/lanes/python.sh ./$(BIN)
	$(TIMED) sh tests/lanes/dask.sh ./$(BIN)

# The long sweeps make test samples, whole (issue #55): every real dump in
# the Criterion tests that sweep them (LONG_TESTS: a new test that calls
# dump_paths_sampled joins the list), all 144 configurations of the
# oracle's fixture matrix (tests/unit/test_oracle.c: 24 under HS_TEST_DUMPS),
# and in the shell suites whose time
# grows with the dumps (LONG_SCRIPTS), and cli_cuts.sh's 20 cuts of each
# compressed dump. LONG_DUMPS=K takes K dumps per test instead (CI's rule:
# .ci/run).
LONG_DUMPS ?= 0
LONG_CUTS ?= 20
LONG_LIST = bounds/real_*|core/histogram_adds_up|oracle/jvm7_agent_*|oracle/jvm17_*|oracle/android_*|fastpath/same_bytes_and_stats_on_every_dump_and_preset|identity/*|lent/every_dump_every_preset|oracle/every_dump_sampled|presets/default_on_every_dump|privacy/every_dump|runs/same_bytes_and_counters_as_the_slow_path|salvage/corpus_cuts|sweep/*|zero_copy/never_reads_what_it_gave_back
LONG_TESTS = @($(LONG_LIST))
LONG_SCRIPTS = ext/analyzers ext/histogram ext/external cli/audit_corpus cli/cli_obfuscate cli/cli_destroy
# cli_destroy.sh's cases: all, or the half make test does not run (odd: CI)
LONG_DESTROY ?= all
test-long: export HS_TEST_DUMPS = $(LONG_DUMPS)
test-long: export CLI_CUTS_N = $(LONG_CUTS)
test-long: export DESTROY_CASES = $(LONG_DESTROY)
test-long: test-deps
	$(MAKE) $(BIN) $(TEST_BIN) $(CUTCHECK) $(FRESH_DUMP) $(ART_DUMP)
	$(TIMED) $(TEST_BIN) --jobs 2 --filter '$(LONG_TESTS)'
	$(TIMED) sh tests/cli/cli_cuts.sh ./$(BIN) $(CUTCHECK)
	set -e; for s in $(LONG_SCRIPTS); do $(TIMED) sh tests/$$s.sh ./$(BIN); done

# The same suite with AddressSanitizer and UBSan, in a separate build tree.
# (Criterion's runner leaks a few bytes of its own: tests/unit/lsan.supp.) It
# runs three to four times slower, so, to shorten CI's run (its budget: 45
# minutes on 2 cores), the long sweeps take a sample: each test sweeps
# ASAN_DUMPS of the real dumps, picked by its name (HS_TEST_DUMPS, logged;
# tests/unit/helpers.c dump_paths_sampled), and the CLI checks leave out the
# three whose work is file permutations, digests of large files and
# obfuscation round trips in Python (cli_destroy, cli_digests,
# cli_obfuscate: make test runs them on the normal build). Each CLI check
# runs one process at a time, so two run at once (CHECK_LANES): 360 s of
# them took about 200 on CI's 2 cores.
ASAN_DUMPS ?= 4
# tests/cli/cli_cuts.sh cuts each compressed dump at this many places, not 20
ASAN_CUTS ?= 20
ASAN_SCRIPTS ?= cli cli_report cli_input cli_formats cli_args cli_safety cli_files cli_limits \
                cli_killed cli_cuts cli_privacy audit_adversarial cli_audit
test-asan: test-deps
	LSAN_OPTIONS=suppressions=$(CURDIR)/tests/unit/lsan.supp \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 HS_TEST_DUMPS=$(ASAN_DUMPS) CLI_CUTS_N=$(ASAN_CUTS) \
	$(MAKE) BUILD=build-asan BIN=build-asan/hprof-strip CFLAGS="-O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" \
	    LDFLAGS="-fsanitize=address,undefined" EXTRA_CFLAGS=-Werror CHECK_SCRIPTS="$(ASAN_SCRIPTS)" \
	    CHECK_LANES=2 check

# Everything built by clang, warnings as errors, in its own build tree, and
# run: the Criterion suites but the long sweeps (LONG_TESTS: the same code
# on more dumps; gcc's make test and test-long and ASan sweep them) and the
# first CLI check (what clang's build could break differently from gcc's;
# make test runs the whole of it on gcc's).
test-clang: test-deps
	HS_TEST_DUMPS=1 $(MAKE) CC=clang BUILD=build-clang BIN=build-clang/hprof-strip EXTRA_CFLAGS=-Werror \
	    CHECK_SCRIPTS=cli TEST_FILTER='!($(LONG_LIST))' lib check

# -z and --gzip with several threads under ThreadSanitizer (tests/lanes/tsan.sh),
# the gzip reader's fuzz seeds and regressions (its reader thread, its
# helper and a pipe writer), filters sharing a rule set that holds a
# mapping on threads at once (tests/unit/tsan_shared_rules.c), and
# hs_filter_cancel from another thread (tests/lanes/abi/cancel_tsan.c), and the
# push API's writer and run (tests/unit/tsan_push.c).
test-tsan: test-deps
	$(MAKE) CC=clang BUILD=build-tsan BIN=build-tsan/hprof-strip CFLAGS="-O1 -g -fsanitize=thread" \
	    LDFLAGS="-fsanitize=thread" build-tsan/hprof-strip
	sh tests/lanes/tsan.sh build-tsan/hprof-strip
	clang -std=c11 -D_FILE_OFFSET_BITS=64 -O1 -g -fsanitize=thread -Isrc/lib $(HS_IO_SRC) src/lib/sha256.c src/lib/port.c \
	    tests/fuzz/fuzz_gzip.c tests/fuzz/replay.c -o build-tsan/fuzz_replay_gzip $(FUZZ_GZIP_LIBS)
	TSAN_OPTIONS=halt_on_error=1 build-tsan/fuzz_replay_gzip $(FUZZ_GZIP_SEEDS) $(FUZZ_GZIP_REGRESS)
	clang -std=c11 -D_FILE_OFFSET_BITS=64 -O1 -g -fsanitize=thread -Isrc/lib tests/unit/tsan_shared_rules.c \
	    tests/unit/shared_rules.c build-tsan/libhprofstrip.a -o build-tsan/tsan_shared_rules $(LDLIBS_CLI)
	TSAN_OPTIONS=halt_on_error=1 build-tsan/tsan_shared_rules tests/data/deobf/jvm17-r8.map \
	    fixtures/jvm17-64bit.hprof fixtures/jvm17-64bit.hprof fixtures/jvm17-64bit.hprof
	clang -std=c11 -D_FILE_OFFSET_BITS=64 -O1 -g -fsanitize=thread -Isrc/lib $(CORE_SRC) \
	    tests/lanes/abi/cancel_tsan.c -o build-tsan/cancel_tsan $(LDLIBS_LIB)
	TSAN_OPTIONS=halt_on_error=1 build-tsan/cancel_tsan
	clang -std=c11 -D_FILE_OFFSET_BITS=64 -O1 -g -fsanitize=thread -Isrc/lib tests/unit/tsan_push.c \
	    build-tsan/libhprofstrip.a -o build-tsan/tsan_push $(LDLIBS_LIB)
	TSAN_OPTIONS=halt_on_error=1 build-tsan/tsan_push fixtures/jvm17-64bit.hprof fixtures/jvm17-jcmd-gz1.hprof.gz

# The suite built with the POSIX fallbacks of the Linux-only calls forced
# on (HS_PORT_POSIX=1), in its own build tree: what a build on macOS or a
# BSD would run. The Criterion suites (tests/unit/test_port.c checks each
# fallback) but the long sweeps (LONG_TESTS: the same library code on more
# dumps, which no fallback touches; gcc's make test runs them), and the CLI checks whose
# paths the fallbacks change: output put in place (rename), pipes, many
# files at once (memory files, cores), mapped and gzip input (page hints,
# scheduling). Then tests/lanes/port_calls.sh: under strace, this build makes none
# of the Linux-only calls and the normal build makes them.
POSIX_SCRIPTS ?= cli cli_input cli_formats cli_safety cli_files cli_many cli_many_stops cli_report
test-posix: test-deps $(BIN)
	HS_TEST_DUMPS=1 $(MAKE) HS_PORT_POSIX=1 BUILD=build-posix BIN=build-posix/hprof-strip \
	    EXTRA_CFLAGS=-Werror CHECK_SCRIPTS="$(POSIX_SCRIPTS)" TEST_FILTER='!($(LONG_LIST))' \
	    CHECK_LANES=2 check
	$(TIMED) sh tests/lanes/port_calls.sh ./$(BIN) linux
	$(TIMED) sh tests/lanes/port_calls.sh build-posix/hprof-strip posix

# A few real dumps through every mode under valgrind (memcheck), zero errors:
# every fixture, or VALGRIND_DUMPS of them (a window picked as sample_dumps
# does in tests/lib.sh; CI's rule: .ci/run).
VALGRIND_DUMPS ?= 0
test-valgrind: $(BIN)
	HS_TEST_DUMPS=$(VALGRIND_DUMPS) sh tests/lanes/valgrind.sh ./$(BIN)

# The cross lane: the library and the command built for aarch64 and s390x
# (big-endian) with Debian's cross compilers, run under qemu-user, the same
# bytes as this build's (tests/lanes/cross.sh; toolchains: install-deps --cross).
test-cross: $(BIN)
	sh tools/install-deps.sh --cross
	$(TIMED) sh tests/lanes/cross.sh ./$(BIN)

bench: hprof-strip
	sh bench/bench.sh

install: $(BIN)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5
	install -m 755 hprof-strip $(DESTDIR)$(BINDIR)/hprof-strip
	install -m 644 man/hprof-strip.1 $(DESTDIR)$(MANDIR)/man1/hprof-strip.1
	install -m 644 man/hprof-strip-report.5 $(DESTDIR)$(MANDIR)/man5/hprof-strip-report.5

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/hprof-strip $(DESTDIR)$(MANDIR)/man1/hprof-strip.1 \
	    $(DESTDIR)$(MANDIR)/man5/hprof-strip-report.5

clean:
	rm -rf build build-asan build-clang build-tsan build-posix build-fuzz hprof-strip

# ---- the installable library (issue #14) ----------------------------------
# libhprofstrip.so is built from the same $(CORE_SRC) as the static library,
# compiled again with -fPIC in a tree of its own, and with
# -fvisibility=hidden so that only the functions marked HS_API in
# hprof_strip.h (and HS_STATIC_API in hprof_strip_static.h, which it says
# why) are exported. The soname's major number is the first field
# of HS_VERSION_STRING; the CLI keeps linking the static library.
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
HS_VERSION := $(shell sed -n 's/^\#define HS_VERSION_STRING "\(.*\)"/\1/p' src/lib/hprof_strip.h)
HS_SOMAJOR := $(firstword $(subst ., ,$(HS_VERSION)))
SONAME   = libhprofstrip.so.$(HS_SOMAJOR)
SOFILE   = libhprofstrip.so.$(HS_VERSION)
PIC_OBJ  = $(CORE_SRC:src/lib/%.c=$(BUILD)/pic/%.o)
SHLIB    = $(BUILD)/$(SOFILE)
# What the library links against (nm -u): xxHash for dups.c, zstd and
# ISA-L (input) and libdeflate (gzip output) for compressed input and
# output, pthreads for their threads.
LDLIBS_LIB = -lxxhash -lzstd -lisal -ldeflate -lpthread

.PHONY: lib install-lib uninstall-lib

all: lib
lib: $(LIB) $(BUILD)/libhprofstrip.so

$(BUILD)/pic/%.o: src/lib/%.c
	@mkdir -p $(BUILD)/pic
	@$(if $(Q),echo "  CC [PIC] $<")
	$(Q)$(CC) $(ALL_CFLAGS) -fPIC -fvisibility=hidden -c $< -o $@

$(SHLIB): $(PIC_OBJ)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -shared -Wl,-soname,$(SONAME) -Wl,--no-undefined \
	    -o $@ $(PIC_OBJ) $(LDLIBS_LIB)

# The links a program finds at run time (soname) and at link time (-l).
$(BUILD)/libhprofstrip.so: $(SHLIB)
	$(Q)ln -sf $(SOFILE) $(BUILD)/$(SONAME)
	$(Q)ln -sf $(SONAME) $@

install: install-lib
uninstall: uninstall-lib

# pkg-config paths are written relative to ${prefix} where they lie under
# it, so `pkg-config --define-prefix` can relocate a staged copy.
install-lib: lib
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(PKGCONFIGDIR) \
	    $(DESTDIR)$(MANDIR)/man3
	install -m 644 $(LIB) $(DESTDIR)$(LIBDIR)/libhprofstrip.a
	install -m 755 $(SHLIB) $(DESTDIR)$(LIBDIR)/$(SOFILE)
	ln -sf $(SOFILE) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libhprofstrip.so
	install -m 644 src/lib/hprof_strip.h $(DESTDIR)$(INCLUDEDIR)/hprof_strip.h
	install -m 644 src/lib/hprof_strip_static.h $(DESTDIR)$(INCLUDEDIR)/hprof_strip_static.h
	install -m 644 man/hprof_strip.3 $(DESTDIR)$(MANDIR)/man3/hprof_strip.3
	sed -e 's|@PREFIX@|$(PREFIX)|' \
	    -e 's|@LIBDIR@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(LIBDIR))|' \
	    -e 's|@INCLUDEDIR@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(INCLUDEDIR))|' \
	    -e 's|@VERSION@|$(HS_VERSION)|' -e 's|@LIBS_PRIVATE@|$(LDLIBS_LIB)|' \
	    hprofstrip.pc.in >$(DESTDIR)$(PKGCONFIGDIR)/hprofstrip.pc

uninstall-lib:
	rm -f $(DESTDIR)$(LIBDIR)/libhprofstrip.a $(DESTDIR)$(LIBDIR)/$(SOFILE) \
	    $(DESTDIR)$(LIBDIR)/$(SONAME) $(DESTDIR)$(LIBDIR)/libhprofstrip.so \
	    $(DESTDIR)$(INCLUDEDIR)/hprof_strip.h $(DESTDIR)$(INCLUDEDIR)/hprof_strip_static.h \
	    $(DESTDIR)$(MANDIR)/man3/hprof_strip.3 \
	    $(DESTDIR)$(PKGCONFIGDIR)/hprofstrip.pc

# make fuzz, make fuzz-replay: libFuzzer harness and its regression corpus
include tests/fuzz/fuzz.mk

-include $(wildcard $(BUILD)/lib/*.d $(BUILD)/cli/*.d $(BUILD)/tests/unit/*.d)
-include $(wildcard $(BUILD)/pic/*.d)
