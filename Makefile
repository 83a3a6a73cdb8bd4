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
ALL_CFLAGS = $(STDFLAGS) $(CFLAGS) $(WARNFLAGS) $(EXTRA_CFLAGS) -MMD -MP
LDLIBS_CLI = -lzstd -lz -ldeflate -lpthread -lxxhash

ifeq ($(V),1)
Q =
else
Q = @
endif

BUILD ?= build
BIN ?= hprof-strip
CORE_SRC = src/alloc.c src/error.c src/format.c src/reader.c src/out.c \
           src/rules.c src/rulefile.c src/filter.c src/heap.c src/strings.c \
           src/strtab.c src/rootq.c src/idmap.c src/classes.c src/scrub.c src/dups.c
CLI_SRC  = src/main.c src/run.c src/report.c src/io.c src/input.c src/output.c \
           src/progress.c
CORE_OBJ = $(CORE_SRC:src/%.c=$(BUILD)/%.o)
CLI_OBJ  = $(CLI_SRC:src/%.c=$(BUILD)/%.o)
LIB      = $(BUILD)/libhprofstrip.a

TEST_SRC = $(wildcard tests/test_*.c)
TEST_HELPERS = tests/helpers.c
TEST_BIN = $(BUILD)/run-tests

.PHONY: all deps run test check test-asan test-valgrind bench install uninstall clean help

all: $(BIN)

help:
	@echo "make            build ./hprof-strip"
	@echo "make run        install dependencies, build, strip a bundled fixture"
	@echo "make test       install dependencies, build, run the whole test suite"
	@echo "make check      run the Criterion suites and CLI checks (no installs)"
	@echo "make test-asan  the suite under AddressSanitizer + UBSan"
	@echo "make test-valgrind  real dumps through every mode under valgrind"
	@echo "make bench      throughput and peak memory against cat and zstd"
	@echo "make fuzz       libFuzzer over the whole filter (FUZZ_SECONDS=120)"
	@echo "make fuzz-replay  the fuzz seeds and regressions under ASan/UBSan"
	@echo "make install    install into DESTDIR/PREFIX"

$(BUILD)/%.o: src/%.c
	@mkdir -p $(BUILD)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@

$(LIB): $(CORE_OBJ)
	$(Q)rm -f $@
	$(Q)ar rcs $@ $^

$(BIN): $(CLI_OBJ) $(LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $(CLI_OBJ) $(LIB) $(LDLIBS_CLI)

# Installs the Debian packages the build and the tests need, when missing.
deps:
	$(Q)sh tools/install-deps.sh

run: deps hprof-strip
	./hprof-strip --stats fixtures/jvm17-64bit.hprof -f -o $(BUILD)/jvm17-64bit.stripped.hprof
	@ls -l fixtures/jvm17-64bit.hprof $(BUILD)/jvm17-64bit.stripped.hprof

$(BUILD)/tests/%.o: tests/%.c
	@mkdir -p $(BUILD)/tests
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(ALL_CFLAGS) -Isrc -c $< -o $@

$(TEST_BIN): $(TEST_SRC:tests/%.c=$(BUILD)/tests/%.o) $(TEST_HELPERS:tests/%.c=$(BUILD)/tests/%.o) $(LIB)
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ -lcriterion -lxxhash

# A fresh HotSpot dump made on this machine, which the suites read beside
# the corpus and the fixtures (tests/helpers.c dump_paths).
FRESH_DUMP = build/fresh/jvm-30mb.hprof
$(FRESH_DUMP):
	@mkdir -p build/fresh
	sh tools/makedump.sh 30 $@ >build/fresh/makedump.log 2>&1 || \
	    { cat build/fresh/makedump.log; exit 1; }

check: $(BIN) $(TEST_BIN) $(FRESH_DUMP)
	$(TEST_BIN) --jobs 2
	sh tests/cli.sh ./$(BIN)
	sh tests/cli_safety.sh ./$(BIN)

# The whole suite: warnings as errors, Criterion suites, CLI checks, the
# outputs checked by parsers nobody here wrote (hprof-conv, VisualVM), and
# the privacy preset on a dump full of planted secrets.
test: deps
	$(MAKE) EXTRA_CFLAGS=-Werror check
	sh tests/external.sh ./$(BIN)
	sh tests/privacy.sh ./$(BIN)

# The same suite with AddressSanitizer and UBSan, in a separate build tree.
# (Criterion's runner leaks a few bytes of its own: tests/lsan.supp.)
test-asan: deps
	LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	$(MAKE) BUILD=build-asan BIN=build-asan/hprof-strip CFLAGS="-O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" \
	    LDFLAGS="-fsanitize=address,undefined" EXTRA_CFLAGS=-Werror check

# A few real dumps through every mode under valgrind (memcheck), zero errors.
test-valgrind: $(BIN)
	sh tests/valgrind.sh ./$(BIN)

bench: hprof-strip
	sh bench/bench.sh

install: $(BIN)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 755 hprof-strip $(DESTDIR)$(BINDIR)/hprof-strip
	install -m 644 man/hprof-strip.1 $(DESTDIR)$(MANDIR)/man1/hprof-strip.1

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/hprof-strip $(DESTDIR)$(MANDIR)/man1/hprof-strip.1

clean:
	rm -rf build build-asan hprof-strip

# make fuzz, make fuzz-replay: libFuzzer harness and its regression corpus
include tests/fuzz/fuzz.mk

-include $(wildcard $(BUILD)/*.d $(BUILD)/tests/*.d)
