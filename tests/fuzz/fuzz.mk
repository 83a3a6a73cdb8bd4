# tests/fuzz/fuzz.mk - libFuzzer harness over the library (see fuzz_filter.c).
#
# Works included from the top Makefile (`include tests/fuzz/fuzz.mk`) or on
# its own (`make -f tests/fuzz/fuzz.mk fuzz`), from the repository root.
#
#   make fuzz            build with clang -fsanitize=fuzzer,address,undefined
#                        and fuzz for FUZZ_SECONDS (default 120)
#   make fuzz-build      only build build-fuzz/fuzz_filter
#   make fuzz-replay     build replay.c with $(CC) + ASan/UBSan and run it over
#                        tests/fuzz/seeds/ and tests/fuzz/regress/
#   make fuzz-seeds      regenerate tests/fuzz/seeds/ (python3)
#   make fuzz-clean      remove build-fuzz/
#
# Crashes land in build-fuzz/artifacts/; minimise one with
#   build-fuzz/fuzz_filter -minimize_crash=1 -runs=20000 \
#       -exact_artifact_path=tests/fuzz/regress/NAME build-fuzz/artifacts/crash-...
# and note it in tests/fuzz/regress/README.md.
#
# Every variable is prefixed FUZZ_ so nothing of the includer is changed;
# CC (for fuzz-replay) is taken from the includer or the environment.
# FUZZ_SECONDS, FUZZ_MAX_LEN, FUZZ_FLAGS (extra libFuzzer flags), FUZZ_DEFS
# (e.g. -DFUZZ_STRICT_IDENTITY=1) can be set on the command line; so can
# FUZZ_SRC_DIR and FUZZ_OUT, to fuzz a snapshot of the library (e.g. from
# git archive) in its own build tree while src/ is being edited.
# FUZZ_KNOWN in the environment skips bugs already reported (see
# regress/README.md).

FUZZ_SAVED_GOAL := $(.DEFAULT_GOAL)
FUZZ_MK := $(lastword $(MAKEFILE_LIST))

FUZZ_DIR  := $(patsubst %/,%,$(dir $(FUZZ_MK)))
FUZZ_ROOT := $(patsubst %/,%,$(dir $(patsubst %/,%,$(dir $(FUZZ_DIR)))))
ifeq ($(FUZZ_ROOT),.)
FUZZ_SRC_DIR := src
else
FUZZ_SRC_DIR := $(FUZZ_ROOT)/src
endif

FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 120
FUZZ_MAX_LEN ?= 65536
FUZZ_TIMEOUT ?= 10
FUZZ_FLAGS   ?=
# e.g. FUZZ_DEFS=-DFUZZ_STRICT_IDENTITY=1 (then make fuzz-clean first)
FUZZ_DEFS    ?=
FUZZ_OUT     ?= build-fuzz
FUZZ_CORPUS  ?= $(FUZZ_DIR)/corpus-work
FUZZ_SEEDS   ?= $(FUZZ_DIR)/seeds
FUZZ_REGRESS ?= $(FUZZ_DIR)/regress
FUZZ_FIXTURES ?= $(if $(filter .,$(FUZZ_ROOT)),fixtures,$(FUZZ_ROOT)/fixtures)

FUZZ_LIB_SRC := $(filter-out $(FUZZ_SRC_DIR)/main.c $(FUZZ_SRC_DIR)/io.c, \
                  $(wildcard $(FUZZ_SRC_DIR)/*.c))

FUZZ_STD  := -std=c11 -D_FILE_OFFSET_BITS=64
FUZZ_WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wvla
FUZZ_SAN  := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

# libFuzzer build: the library and the harness all with the same flags.
FUZZ_CFLAGS ?= -O1 -g
# FUZZ_CFLAGS comes after the sanitizer flags so it can narrow them
# (e.g. FUZZ_CFLAGS="-O1 -g -fno-sanitize=nonnull-attribute"); after a
# change of flags, make fuzz-clean.
FUZZ_ALL_CFLAGS := $(FUZZ_STD) $(FUZZ_WARN) -fsanitize=fuzzer,address,undefined \
                   -fno-sanitize-recover=all -fno-omit-frame-pointer $(FUZZ_CFLAGS) \
                   -I$(FUZZ_SRC_DIR) $(FUZZ_DEFS) -MMD -MP
FUZZ_OBJ := $(FUZZ_LIB_SRC:$(FUZZ_SRC_DIR)/%.c=$(FUZZ_OUT)/fuzz/%.o) $(FUZZ_OUT)/fuzz/fuzz_filter.o
FUZZ_BIN := $(FUZZ_OUT)/fuzz_filter

# replay build: the normal compiler with ASan + UBSan, no libFuzzer.
FUZZ_REPLAY_CC := $(if $(filter default,$(origin CC)),cc,$(CC))
FUZZ_REPLAY_CFLAGS ?= -O1 -g
FUZZ_REPLAY_ALL_CFLAGS := $(FUZZ_STD) $(FUZZ_WARN) $(FUZZ_SAN) $(FUZZ_REPLAY_CFLAGS) \
                          -I$(FUZZ_SRC_DIR) $(FUZZ_DEFS) -MMD -MP
FUZZ_REPLAY_OBJ := $(FUZZ_LIB_SRC:$(FUZZ_SRC_DIR)/%.c=$(FUZZ_OUT)/replay/%.o) \
                   $(FUZZ_OUT)/replay/fuzz_filter.o $(FUZZ_OUT)/replay/replay.o
FUZZ_REPLAY_BIN := $(FUZZ_OUT)/fuzz_replay

.PHONY: fuzz fuzz-build fuzz-replay fuzz-replay-build fuzz-seeds fuzz-clean fuzz-help

fuzz-help:
	@echo "make fuzz            fuzz for FUZZ_SECONDS (default 120) with libFuzzer"
	@echo "make fuzz-build      build $(FUZZ_BIN) only"
	@echo "make fuzz-replay     run the seeds and regression inputs under ASan/UBSan"
	@echo "make fuzz-seeds      regenerate $(FUZZ_SEEDS) with make-seeds.py"
	@echo "make fuzz-clean      remove $(FUZZ_OUT)"

$(FUZZ_OUT)/fuzz/%.o: $(FUZZ_SRC_DIR)/%.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_ALL_CFLAGS) -c $< -o $@

$(FUZZ_OUT)/fuzz/fuzz_filter.o: $(FUZZ_DIR)/fuzz_filter.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_ALL_CFLAGS) -c $< -o $@

$(FUZZ_BIN): $(FUZZ_OBJ)
	$(FUZZ_CC) $(FUZZ_ALL_CFLAGS) -o $@ $^

fuzz-build: $(FUZZ_BIN)

# The first corpus directory is the one libFuzzer writes to; the others only
# seed it. Inputs longer than -max_len (the fixtures) are cut to it.
fuzz: $(FUZZ_BIN)
	@mkdir -p $(FUZZ_CORPUS) $(FUZZ_OUT)/artifacts
	$(FUZZ_BIN) -max_len=$(FUZZ_MAX_LEN) -timeout=$(FUZZ_TIMEOUT) \
	    -max_total_time=$(FUZZ_SECONDS) -malloc_limit_mb=256 -print_final_stats=1 \
	    -artifact_prefix=$(FUZZ_OUT)/artifacts/ $(FUZZ_FLAGS) \
	    $(FUZZ_CORPUS) $(FUZZ_SEEDS) $(wildcard $(FUZZ_REGRESS) $(FUZZ_FIXTURES))

$(FUZZ_OUT)/replay/%.o: $(FUZZ_SRC_DIR)/%.c
	@mkdir -p $(@D)
	$(FUZZ_REPLAY_CC) $(FUZZ_REPLAY_ALL_CFLAGS) -c $< -o $@

$(FUZZ_OUT)/replay/%.o: $(FUZZ_DIR)/%.c
	@mkdir -p $(@D)
	$(FUZZ_REPLAY_CC) $(FUZZ_REPLAY_ALL_CFLAGS) -c $< -o $@

$(FUZZ_REPLAY_BIN): $(FUZZ_REPLAY_OBJ)
	$(FUZZ_REPLAY_CC) $(FUZZ_REPLAY_ALL_CFLAGS) -o $@ $^

fuzz-replay-build: $(FUZZ_REPLAY_BIN)

fuzz-replay: $(FUZZ_REPLAY_BIN)
	$(FUZZ_REPLAY_BIN) $(FUZZ_SEEDS) $(wildcard $(FUZZ_REGRESS))

fuzz-seeds:
	python3 $(FUZZ_DIR)/make-seeds.py --out $(FUZZ_SEEDS) \
	    $(if $(wildcard ../shared/corpus),--corpus ../shared/corpus)

fuzz-clean:
	rm -rf $(FUZZ_OUT)

-include $(wildcard $(FUZZ_OUT)/fuzz/*.d $(FUZZ_OUT)/replay/*.d)

# When included, leave the includer's default goal alone (if it has none
# yet, clearing .DEFAULT_GOAL lets its next rule become the default).
ifneq ($(firstword $(MAKEFILE_LIST)),$(FUZZ_MK))
.DEFAULT_GOAL := $(FUZZ_SAVED_GOAL)
endif
