# SPDX-License-Identifier: Apache-2.0
# tests/fuzz/fuzz.mk - libFuzzer harnesses over the library: the whole
# filter (fuzz_filter.c), the rule-file parser and printer (fuzz_rules.c)
# the R8/ProGuard mapping parser (fuzz_mapping.c) and the CLI's gzip
# reader, with and without its reader thread (fuzz_gzip.c).
#
# Works included from the top Makefile (`include tests/fuzz/fuzz.mk`) or on
# its own (`make -f tests/fuzz/fuzz.mk fuzz`), from the repository root.
#
#   make fuzz            build both harnesses with clang
#                        -fsanitize=fuzzer,address,undefined, fuzz the filter
#                        for FUZZ_SECONDS (default 120), then the rules for
#                        FUZZ_RULES_SECONDS (default a quarter of that), then
#                        the mapping parser for FUZZ_MAPPING_SECONDS (same),
#                        then the gzip reader for FUZZ_GZIP_SECONDS (same)
#   make fuzz-filter     only the filter harness, FUZZ_SECONDS
#   make fuzz-rules      only the rules harness, FUZZ_RULES_SECONDS
#   make fuzz-mapping    only the mapping harness, FUZZ_MAPPING_SECONDS
#   make fuzz-gzip       only the gzip-reader harness, FUZZ_GZIP_SECONDS
#   make fuzz-build      only build build-fuzz/fuzz_filter, fuzz_rules, fuzz_mapping,
#                        fuzz_gzip
#   make fuzz-replay     build replay.c with $(CC) + ASan/UBSan and run it over
#                        tests/fuzz/seeds/ and tests/fuzz/regress/ (filter),
#                        tests/fuzz/seeds-rules/ and tests/fuzz/regress/rules/,
#                        tests/fuzz/seeds-mapping/ (and regress/mapping/),
#                        tests/fuzz/seeds-gzip/ (and regress/gzip/)
#   make fuzz-seeds      regenerate tests/fuzz/seeds/ (python3)
#   make fuzz-clean      remove build-fuzz/
#
# Crashes land in build-fuzz/artifacts/ (the rules harness's prefixed
# rules-); minimise one with
#   build-fuzz/fuzz_filter -minimize_crash=1 -runs=20000 \
#       -exact_artifact_path=tests/fuzz/regress/NAME build-fuzz/artifacts/crash-...
# (build-fuzz/fuzz_rules and tests/fuzz/regress/rules/NAME for the rules,
# build-fuzz/fuzz_mapping and tests/fuzz/regress/mapping/NAME for mappings,
# build-fuzz/fuzz_gzip and tests/fuzz/regress/gzip/NAME for the gzip reader)
# and note it in tests/fuzz/regress/README.md.
#
# Every variable is prefixed FUZZ_ so nothing of the includer is changed;
# CC (for fuzz-replay) is taken from the includer or the environment.
# FUZZ_SECONDS, FUZZ_RULES_SECONDS, FUZZ_MAX_LEN, FUZZ_FLAGS (extra libFuzzer
# flags, both harnesses), FUZZ_DEFS
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
FUZZ_SRC_DIR := src/lib
else
FUZZ_SRC_DIR := $(FUZZ_ROOT)/src/lib
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

# The library is every source file of src/lib (the command-line tool's
# are in src/cli).
FUZZ_LIB_SRC := $(wildcard $(FUZZ_SRC_DIR)/*.c)
# the library links against libxxhash (dups.c), and ISA-L, zstd, libdeflate and
# pthreads (ring.c, input.c, output.c, pager.c, hasher.c)
FUZZ_LIBS ?= -lxxhash -lisal -lzstd -ldeflate -lpthread

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
FUZZ_LIB_OBJ := $(FUZZ_LIB_SRC:$(FUZZ_SRC_DIR)/%.c=$(FUZZ_OUT)/fuzz/%.o)
# the gzip harness links the library's I/O (src/lib/io.mk) and what it
# calls alone; encoders included, as the codec table names them
HS_IO_DIR ?= $(FUZZ_SRC_DIR)
ifndef HS_IO_SRC
include $(FUZZ_SRC_DIR)/io.mk
endif
FUZZ_INPUT_UNITS := $(basename $(notdir $(HS_IO_SRC))) sha256 port
FUZZ_INPUT_LIBS ?= -lisal -lzstd -lpthread
FUZZ_OBJ := $(FUZZ_LIB_OBJ) \
            $(FUZZ_OUT)/fuzz/fuzz_filter.o
FUZZ_BIN := $(FUZZ_OUT)/fuzz_filter

# The rules harness: short texts, keywords from a dictionary, its own
# working corpus (in the build tree: the seeds reach coverage in seconds).
FUZZ_RULES_SECONDS ?= $(shell expr \( $(FUZZ_SECONDS) + 3 \) / 4)
FUZZ_RULES_MAX_LEN ?= 4096
FUZZ_RULES_CORPUS  ?= $(FUZZ_OUT)/corpus-rules
FUZZ_RULES_SEEDS   ?= $(FUZZ_DIR)/seeds-rules
FUZZ_RULES_REGRESS ?= $(FUZZ_REGRESS)/rules
FUZZ_RULES_DICT    ?= $(FUZZ_DIR)/rules.dict
FUZZ_RULES_OBJ := $(FUZZ_LIB_OBJ) $(FUZZ_OUT)/fuzz/fuzz_rules.o
FUZZ_RULES_BIN := $(FUZZ_OUT)/fuzz_rules

# The mapping harness: like the rules one (seeds-mapping/, mapping.dict,
# regress/mapping/, crashes prefixed mapping-).
FUZZ_MAPPING_SECONDS ?= $(FUZZ_RULES_SECONDS)
FUZZ_MAPPING_MAX_LEN ?= 8192
FUZZ_MAPPING_CORPUS  ?= $(FUZZ_OUT)/corpus-mapping
FUZZ_MAPPING_SEEDS   ?= $(FUZZ_DIR)/seeds-mapping
FUZZ_MAPPING_REGRESS ?= $(FUZZ_REGRESS)/mapping
FUZZ_MAPPING_DICT    ?= $(FUZZ_DIR)/mapping.dict
FUZZ_MAPPING_OBJ := $(FUZZ_LIB_OBJ) $(FUZZ_OUT)/fuzz/fuzz_mapping.o
FUZZ_MAPPING_BIN := $(FUZZ_OUT)/fuzz_mapping

# The gzip-reader harness: recipes of a few bytes that build gzip files
# (seeds-gzip/, gzip.dict, regress/gzip/, crashes prefixed gzip-). It
# links the library's I/O alone (FUZZ_INPUT_UNITS), with libdeflate to
# make the members.
FUZZ_GZIP_SECONDS ?= $(FUZZ_RULES_SECONDS)
FUZZ_GZIP_MAX_LEN ?= 65536
FUZZ_GZIP_CORPUS  ?= $(FUZZ_OUT)/corpus-gzip
FUZZ_GZIP_SEEDS   ?= $(FUZZ_DIR)/seeds-gzip
FUZZ_GZIP_REGRESS ?= $(FUZZ_REGRESS)/gzip
FUZZ_GZIP_DICT    ?= $(FUZZ_DIR)/gzip.dict
FUZZ_GZIP_LIBS    ?= $(FUZZ_INPUT_LIBS) -ldeflate -lxxhash
FUZZ_GZIP_OBJ := $(FUZZ_INPUT_UNITS:%=$(FUZZ_OUT)/fuzz/%.o) $(FUZZ_OUT)/fuzz/fuzz_gzip.o
FUZZ_GZIP_BIN := $(FUZZ_OUT)/fuzz_gzip

# replay build: the normal compiler with ASan + UBSan, no libFuzzer.
FUZZ_REPLAY_CC := $(if $(filter default,$(origin CC)),cc,$(CC))
FUZZ_REPLAY_CFLAGS ?= -O1 -g
FUZZ_REPLAY_ALL_CFLAGS := $(FUZZ_STD) $(FUZZ_WARN) $(FUZZ_SAN) $(FUZZ_REPLAY_CFLAGS) \
                          -I$(FUZZ_SRC_DIR) $(FUZZ_DEFS) -MMD -MP
FUZZ_REPLAY_LIB_OBJ := $(FUZZ_LIB_SRC:$(FUZZ_SRC_DIR)/%.c=$(FUZZ_OUT)/replay/%.o)
FUZZ_REPLAY_OBJ := $(FUZZ_REPLAY_LIB_OBJ) \
                   $(FUZZ_OUT)/replay/fuzz_filter.o $(FUZZ_OUT)/replay/replay.o
FUZZ_REPLAY_BIN := $(FUZZ_OUT)/fuzz_replay
FUZZ_REPLAY_RULES_OBJ := $(FUZZ_REPLAY_LIB_OBJ) \
                         $(FUZZ_OUT)/replay/fuzz_rules.o $(FUZZ_OUT)/replay/replay.o
FUZZ_REPLAY_RULES_BIN := $(FUZZ_OUT)/fuzz_replay_rules
FUZZ_REPLAY_MAPPING_OBJ := $(FUZZ_REPLAY_LIB_OBJ) \
                           $(FUZZ_OUT)/replay/fuzz_mapping.o $(FUZZ_OUT)/replay/replay.o
FUZZ_REPLAY_MAPPING_BIN := $(FUZZ_OUT)/fuzz_replay_mapping
FUZZ_REPLAY_GZIP_OBJ := $(FUZZ_INPUT_UNITS:%=$(FUZZ_OUT)/replay/%.o) \
                        $(FUZZ_OUT)/replay/fuzz_gzip.o $(FUZZ_OUT)/replay/replay.o
FUZZ_REPLAY_GZIP_BIN := $(FUZZ_OUT)/fuzz_replay_gzip

.PHONY: fuzz fuzz-filter fuzz-rules fuzz-mapping fuzz-gzip fuzz-build fuzz-replay fuzz-replay-build fuzz-seeds \
        fuzz-clean fuzz-help

fuzz-help:
	@echo "make fuzz            fuzz the filter for FUZZ_SECONDS (default 120), then the"
	@echo "                     rule parser for FUZZ_RULES_SECONDS (default FUZZ_SECONDS/4)"
	@echo "make fuzz-filter     only the filter harness"
	@echo "make fuzz-rules      only the rule-file harness"
	@echo "make fuzz-mapping    only the mapping-file harness (FUZZ_MAPPING_SECONDS)"
	@echo "make fuzz-gzip       only the gzip-reader harness (FUZZ_GZIP_SECONDS)"
	@echo "make fuzz-build      build $(FUZZ_BIN) and $(FUZZ_RULES_BIN) only"
	@echo "make fuzz-replay     run the seeds and regression inputs under ASan/UBSan"
	@echo "make fuzz-seeds      regenerate $(FUZZ_SEEDS) with make-seeds.py"
	@echo "make fuzz-clean      remove $(FUZZ_OUT)"

$(FUZZ_OUT)/fuzz/%.o: $(FUZZ_SRC_DIR)/%.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_ALL_CFLAGS) -c $< -o $@

$(FUZZ_OUT)/fuzz/fuzz_filter.o: $(FUZZ_DIR)/fuzz_filter.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_ALL_CFLAGS) -c $< -o $@

$(FUZZ_OUT)/fuzz/fuzz_rules.o: $(FUZZ_DIR)/fuzz_rules.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_ALL_CFLAGS) -c $< -o $@

$(FUZZ_OUT)/fuzz/fuzz_mapping.o: $(FUZZ_DIR)/fuzz_mapping.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_ALL_CFLAGS) -c $< -o $@

$(FUZZ_OUT)/fuzz/fuzz_gzip.o: $(FUZZ_DIR)/fuzz_gzip.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_ALL_CFLAGS) -c $< -o $@

$(FUZZ_BIN): $(FUZZ_OBJ)
	$(FUZZ_CC) $(FUZZ_ALL_CFLAGS) -o $@ $^ $(FUZZ_LIBS) $(FUZZ_INPUT_LIBS)

$(FUZZ_RULES_BIN): $(FUZZ_RULES_OBJ)
	$(FUZZ_CC) $(FUZZ_ALL_CFLAGS) -o $@ $^ $(FUZZ_LIBS)

$(FUZZ_MAPPING_BIN): $(FUZZ_MAPPING_OBJ)
	$(FUZZ_CC) $(FUZZ_ALL_CFLAGS) -o $@ $^ $(FUZZ_LIBS)

$(FUZZ_GZIP_BIN): $(FUZZ_GZIP_OBJ)
	$(FUZZ_CC) $(FUZZ_ALL_CFLAGS) -o $@ $^ $(FUZZ_GZIP_LIBS)

fuzz-build: $(FUZZ_BIN) $(FUZZ_RULES_BIN) $(FUZZ_MAPPING_BIN) $(FUZZ_GZIP_BIN)

# The first corpus directory is the one libFuzzer writes to; the others only
# seed it. Inputs longer than -max_len (the fixtures) are cut to it.
FUZZ_FILTER_RUN = $(FUZZ_BIN) -max_len=$(FUZZ_MAX_LEN) -timeout=$(FUZZ_TIMEOUT) \
	    -max_total_time=$(FUZZ_SECONDS) -malloc_limit_mb=256 -print_final_stats=1 \
	    -artifact_prefix=$(FUZZ_OUT)/artifacts/ $(FUZZ_FLAGS) \
	    $(FUZZ_CORPUS) $(FUZZ_SEEDS) $(wildcard $(FUZZ_REGRESS) $(FUZZ_FIXTURES))
FUZZ_RULES_RUN = $(FUZZ_RULES_BIN) -max_len=$(FUZZ_RULES_MAX_LEN) -timeout=$(FUZZ_TIMEOUT) \
	    -max_total_time=$(FUZZ_RULES_SECONDS) -malloc_limit_mb=256 -print_final_stats=1 \
	    -dict=$(FUZZ_RULES_DICT) -artifact_prefix=$(FUZZ_OUT)/artifacts/rules- $(FUZZ_FLAGS) \
	    $(FUZZ_RULES_CORPUS) $(FUZZ_RULES_SEEDS) $(wildcard $(FUZZ_RULES_REGRESS))
FUZZ_MAPPING_RUN = $(FUZZ_MAPPING_BIN) -max_len=$(FUZZ_MAPPING_MAX_LEN) -timeout=$(FUZZ_TIMEOUT) \
	    -max_total_time=$(FUZZ_MAPPING_SECONDS) -malloc_limit_mb=256 -print_final_stats=1 \
	    -dict=$(FUZZ_MAPPING_DICT) -artifact_prefix=$(FUZZ_OUT)/artifacts/mapping- $(FUZZ_FLAGS) \
	    $(FUZZ_MAPPING_CORPUS) $(FUZZ_MAPPING_SEEDS) $(wildcard $(FUZZ_MAPPING_REGRESS))
FUZZ_GZIP_RUN = $(FUZZ_GZIP_BIN) -max_len=$(FUZZ_GZIP_MAX_LEN) -timeout=$(FUZZ_TIMEOUT) \
	    -max_total_time=$(FUZZ_GZIP_SECONDS) -malloc_limit_mb=512 -print_final_stats=1 \
	    -dict=$(FUZZ_GZIP_DICT) -artifact_prefix=$(FUZZ_OUT)/artifacts/gzip- $(FUZZ_FLAGS) \
	    $(FUZZ_GZIP_CORPUS) $(FUZZ_GZIP_SEEDS) $(wildcard $(FUZZ_GZIP_REGRESS))

# The harnesses, one after the other (each on one core), even when one
# finds something; the status says whether any did.
fuzz: $(FUZZ_BIN) $(FUZZ_RULES_BIN) $(FUZZ_MAPPING_BIN) $(FUZZ_GZIP_BIN)
	@mkdir -p $(FUZZ_CORPUS) $(FUZZ_RULES_CORPUS) $(FUZZ_MAPPING_CORPUS) $(FUZZ_GZIP_CORPUS) \
	    $(FUZZ_OUT)/artifacts
	@echo "fuzz: the filter for $(FUZZ_SECONDS) s"
	$(FUZZ_FILTER_RUN); echo $$? >$(FUZZ_OUT)/fuzz-filter.status
	@echo "fuzz: the rule parser for $(FUZZ_RULES_SECONDS) s"
	$(FUZZ_RULES_RUN); echo $$? >$(FUZZ_OUT)/fuzz-rules.status
	@echo "fuzz: the mapping parser for $(FUZZ_MAPPING_SECONDS) s"
	$(FUZZ_MAPPING_RUN); echo $$? >$(FUZZ_OUT)/fuzz-mapping.status
	@echo "fuzz: the gzip reader for $(FUZZ_GZIP_SECONDS) s"
	$(FUZZ_GZIP_RUN); echo $$? >$(FUZZ_OUT)/fuzz-gzip.status
	@f=$$(cat $(FUZZ_OUT)/fuzz-filter.status); r=$$(cat $(FUZZ_OUT)/fuzz-rules.status); \
	    p=$$(cat $(FUZZ_OUT)/fuzz-mapping.status); g=$$(cat $(FUZZ_OUT)/fuzz-gzip.status); \
	    echo "fuzz: filter exit $$f, rules exit $$r, mapping exit $$p, gzip exit $$g"; \
	    test "$$f" = 0 && test "$$r" = 0 && test "$$p" = 0 && test "$$g" = 0

fuzz-filter: $(FUZZ_BIN)
	@mkdir -p $(FUZZ_CORPUS) $(FUZZ_OUT)/artifacts
	$(FUZZ_FILTER_RUN)

fuzz-rules: $(FUZZ_RULES_BIN)
	@mkdir -p $(FUZZ_RULES_CORPUS) $(FUZZ_OUT)/artifacts
	$(FUZZ_RULES_RUN)

fuzz-mapping: $(FUZZ_MAPPING_BIN)
	@mkdir -p $(FUZZ_MAPPING_CORPUS) $(FUZZ_OUT)/artifacts
	$(FUZZ_MAPPING_RUN)

fuzz-gzip: $(FUZZ_GZIP_BIN)
	@mkdir -p $(FUZZ_GZIP_CORPUS) $(FUZZ_OUT)/artifacts
	$(FUZZ_GZIP_RUN)

$(FUZZ_OUT)/replay/%.o: $(FUZZ_SRC_DIR)/%.c
	@mkdir -p $(@D)
	$(FUZZ_REPLAY_CC) $(FUZZ_REPLAY_ALL_CFLAGS) -c $< -o $@

$(FUZZ_OUT)/replay/%.o: $(FUZZ_DIR)/%.c
	@mkdir -p $(@D)
	$(FUZZ_REPLAY_CC) $(FUZZ_REPLAY_ALL_CFLAGS) -c $< -o $@

$(FUZZ_REPLAY_BIN): $(FUZZ_REPLAY_OBJ)
	$(FUZZ_REPLAY_CC) $(FUZZ_REPLAY_ALL_CFLAGS) -o $@ $^ $(FUZZ_LIBS) $(FUZZ_INPUT_LIBS)

$(FUZZ_REPLAY_RULES_BIN): $(FUZZ_REPLAY_RULES_OBJ)
	$(FUZZ_REPLAY_CC) $(FUZZ_REPLAY_ALL_CFLAGS) -o $@ $^ $(FUZZ_LIBS)

$(FUZZ_REPLAY_MAPPING_BIN): $(FUZZ_REPLAY_MAPPING_OBJ)
	$(FUZZ_REPLAY_CC) $(FUZZ_REPLAY_ALL_CFLAGS) -o $@ $^ $(FUZZ_LIBS)

$(FUZZ_REPLAY_GZIP_BIN): $(FUZZ_REPLAY_GZIP_OBJ)
	$(FUZZ_REPLAY_CC) $(FUZZ_REPLAY_ALL_CFLAGS) -o $@ $^ $(FUZZ_GZIP_LIBS)

fuzz-replay-build: $(FUZZ_REPLAY_BIN) $(FUZZ_REPLAY_RULES_BIN) $(FUZZ_REPLAY_MAPPING_BIN) \
                   $(FUZZ_REPLAY_GZIP_BIN)

# (replay reads a directory one level deep: regress/rules/ is not fed to the
# filter harness)
fuzz-replay: $(FUZZ_REPLAY_BIN) $(FUZZ_REPLAY_RULES_BIN) $(FUZZ_REPLAY_MAPPING_BIN) \
             $(FUZZ_REPLAY_GZIP_BIN)
	@s=0; \
	$(FUZZ_REPLAY_BIN) $(FUZZ_SEEDS) $(wildcard $(FUZZ_REGRESS)) || s=1; \
	$(FUZZ_REPLAY_RULES_BIN) $(FUZZ_RULES_SEEDS) $(wildcard $(FUZZ_RULES_REGRESS)) || s=1; \
	$(FUZZ_REPLAY_MAPPING_BIN) $(FUZZ_MAPPING_SEEDS) $(wildcard $(FUZZ_MAPPING_REGRESS)) || s=1; \
	$(FUZZ_REPLAY_GZIP_BIN) $(FUZZ_GZIP_SEEDS) $(wildcard $(FUZZ_GZIP_REGRESS)) || s=1; \
	exit $$s

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
