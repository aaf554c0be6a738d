# tcmma — build, test, install. `make help` lists the targets.
.SUFFIXES:
.SECONDARY:

CC        ?= cc
PREFIX    ?= /usr/local
DESTDIR   ?=
CUDA_HOME ?= /usr/local/cuda
VERSION   := $(shell sed -n 's/^\#define TCMMA_VERSION "\(.*\)"/\1/p' include/tcmma/tcmma.h)
# The soname's number: raise it whenever the ABI changes incompatibly, then
# run make abi-baseline (docs/design.md §15; tests/abi-test.sh enforces it).
SONAME    := libtcmma.so.2

ifeq ($(SAN),1)
BUILD     ?= build-san
SANFLAGS  := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
else ifeq ($(FUZZ),1)
# libFuzzer targets (make fuzz): clang only; the library built for coverage.
BUILD     ?= build-fuzz
SANFLAGS  := -fsanitize=address,undefined,fuzzer-no-link -fno-omit-frame-pointer \
             -fno-sanitize-recover=all
else ifeq ($(TSAN),1)
BUILD     ?= build-tsan
SANFLAGS  := -fsanitize=thread -fno-omit-frame-pointer
else
BUILD     ?= build
SANFLAGS  :=
endif
# BUILD may be relative (build, build-san, build-clang) or absolute.
ABS_BUILD := $(abspath $(BUILD))

WARN      := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wno-missing-field-initializers
CFLAGS    ?= -O2 -g
# Hidden by default: only what include/tcmma/*.h declares (inside its
# visibility push) is exported from libtcmma.so (tests/abi-test.sh).
ALL_CFLAGS = -std=c11 -D_GNU_SOURCE $(WARN) $(CFLAGS) $(SANFLAGS) -fPIC -fvisibility=hidden \
             -Iinclude -I. -I$(CUDA_HOME)/include -DTCMMA_CUDA_HOME='"$(CUDA_HOME)"' \
             -DTCMMA_SRC_ROOT='"$(CURDIR)"' -DTCMMA_PREFIX='"$(PREFIX)"' \
             -DTCMMA_SANFLAGS='"$(SANFLAGS)"'
LDLIBS    := -ldl -lpthread -lm

# One archive per stage group, linked in pipeline order: the library (arms,
# resolution, plan, render; arch options, NVRTC, cache; the PTX reader; the
# driver API), the host warp simulator, the verify harness (matrix + executors).
LIB_SRCS  := $(sort $(wildcard tables/*.c mma/*.c nvrtc/*.c nvrtc/ptx/*.c nvrtc/driver/*.c))
SIM_SRCS  := $(sort $(wildcard mma/sim/*.c))
VERIFY_SRCS := $(sort $(wildcard tools/verify/*.c))
TOOL_SRCS := $(sort $(wildcard tools/cmd_*.c tools/cli_*.c tools/bench_*.c)) tools/tcmma.c
TEST_SRCS := $(sort $(wildcard tests/test_*.c))
TEST_UTIL := $(sort $(wildcard tests/util_*.c))
HEADERS   := $(wildcard include/tcmma/*.h tables/*.def tables/*.h mma/*.h mma/sim/*.h nvrtc/*.h tools/*.h tools/*.def \
                        tools/verify/*.h tests/*.h tests/data/*.def)

LIB_OBJS  := $(LIB_SRCS:%.c=$(BUILD)/obj/%.o)
SIM_OBJS  := $(SIM_SRCS:%.c=$(BUILD)/obj/%.o)
VERIFY_OBJS := $(VERIFY_SRCS:%.c=$(BUILD)/obj/%.o)
# What the CLI and the tests link, most dependent first.
LINK_LIBS := $(BUILD)/libtcmma_verify.a $(BUILD)/libtcmma_sim.a $(BUILD)/libtcmma.a
TOOL_OBJS := $(TOOL_SRCS:%.c=$(BUILD)/obj/%.o)
UTIL_OBJS := $(TEST_UTIL:%.c=$(BUILD)/obj/%.o)
TESTS     := $(TEST_SRCS:tests/%.c=$(BUILD)/tests/%)

.PHONY: all run check check-python memcheck deps install uninstall clean help bench golden fuzz \
        abi-baseline

all: $(BUILD)/libtcmma.a $(BUILD)/libtcmma.so $(BUILD)/libtcmma_sim.a $(BUILD)/libtcmma_sim.so \
     $(BUILD)/tcmma $(BUILD)/tcmma.pc

help:
	@echo "make [all]      build $(BUILD)/libtcmma.a, libtcmma.so, tcmma"
	@echo "make run        the main job: tables, emit -> options -> compile -> census"
	@echo "make check      install test deps when missing, build and run every test"
	@echo "make check-python  the Python package's tests (pytest) alone"
	@echo "make check SAN=1  the same under ASan + UBSan (in build-san/)"
	@echo "make check TSAN=1 the same under ThreadSanitizer (in build-tsan/)"
	@echo "make fuzz       each libFuzzer target for FUZZ_SECONDS (default 60; clang, build-fuzz/)"
	@echo "make memcheck   the test binaries under valgrind"
	@echo "make bench      tcmma bench compile, emit and ptx (measures; see README, Performance)"
	@echo "make install    PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)"
	@echo "make abi-baseline  rewrite tests/abi/baseline.txt (refused for an incompatible change"
	@echo "                under the same soname: raise SONAME first)"

$(BUILD)/obj/%.o: %.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/libtcmma.a: $(LIB_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(BUILD)/libtcmma_sim.a: $(SIM_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(BUILD)/libtcmma_verify.a: $(VERIFY_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(BUILD)/libtcmma.so: $(LIB_OBJS)
	$(CC) -shared $(SANFLAGS) -Wl,-soname,$(SONAME) -o $@ $^ $(LDLIBS)

# The simulator as a shared library beside libtcmma.so, for programs that
# cannot link the archive and export its symbols (the Python package loads
# it with RTLD_GLOBAL, so the host modules it dlopens find tcmma_sim_*).
$(BUILD)/libtcmma_sim.so: $(SIM_OBJS) $(BUILD)/libtcmma.so
	$(CC) -shared $(SANFLAGS) -Wl,-soname,libtcmma_sim.so.1 -Wl,-rpath,'$$ORIGIN' -o $@ \
	  $(SIM_OBJS) $(BUILD)/libtcmma.so $(LDLIBS)

# SIM_EXPORT: the sim executor dlopens host-dialect kernels that call the
# simulator (tcmma_sim_*) by name; the program exports those symbols.
SIM_EXPORT := -Wl,--export-dynamic-symbol='tcmma_sim_*'

$(BUILD)/tcmma: $(TOOL_OBJS) $(LINK_LIBS)
	$(CC) $(SANFLAGS) $(SIM_EXPORT) -o $@ $(TOOL_OBJS) $(LINK_LIBS) $(LDLIBS)

# The benchmarks (tools/bench_*.c, `tcmma bench`): they measure and print,
# and never decide pass or fail on a time.
bench: $(BUILD)/tcmma
	$(BUILD)/tcmma bench compile
	$(BUILD)/tcmma bench emit
	$(BUILD)/tcmma bench ptx

$(BUILD)/tcmma.pc: tcmma.pc.in Makefile
	@mkdir -p $(dir $@)
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' tcmma.pc.in > $@

# The ABI's values and layouts that tests/abi-test.sh compares against
# (docs/design.md §15): written here, never by hand.
abi-baseline:
	@TCMMA_SRCDIR=$(CURDIR) sh tests/abi/abi-layout.sh baseline

# cmocka is the one thing the tests need that a fresh machine lacks.
deps:
	@sh tests/ensure-deps.sh

# The tests also read the CLI's text forms (operand SPECs, --cc values), and
# export the simulator as the CLI does for the host modules some of them open.
TEST_OBJS := $(UTIL_OBJS) $(BUILD)/obj/tools/cli_parse.o
# The test helpers include cmocka.h too: under make -j they must wait for deps.
$(UTIL_OBJS): | deps
$(BUILD)/tests/%: tests/%.c $(TEST_OBJS) $(LINK_LIBS) $(HEADERS) | deps
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SIM_EXPORT) -Itests -o $@ $< $(TEST_OBJS) $(TEST_EXTRA) $(LINK_LIBS) -lcmocka $(LDLIBS)

# The SASS reader's test links the reader itself (tools/bench_sass.c).
$(BUILD)/tests/test_bench_sass: $(BUILD)/obj/tools/bench_sass.o
$(BUILD)/tests/test_bench_sass: TEST_EXTRA = $(BUILD)/obj/tools/bench_sass.o
# The emulation table's test reads the SASS it disassembles the same way.
ARM_EMULATION_EXTRA = $(addprefix $(BUILD)/obj/tools/,bench_sass.o bench_sass_run.o bench_util.o cli_util.o)
$(BUILD)/tests/test_arm_emulation: $(ARM_EMULATION_EXTRA)
$(BUILD)/tests/test_arm_emulation: TEST_EXTRA = $(ARM_EMULATION_EXTRA)

# The PTX reader (nvrtc/ptx/reader.c, stream.c) built twice more under other
# names (tests/ptx_variant.h): without its AVX2 path, and without SSE2 too
# (the byte loops of a CPU with neither), linked beside the library's own
# by test_ptx_portable and fuzz_ptx, which read alike with all three.
PTX_VARIANTS := $(foreach v,sse2 scalar,$(BUILD)/obj/ptx_$(v)/reader.o $(BUILD)/obj/ptx_$(v)/stream.o)
$(BUILD)/obj/ptx_sse2/%.o: nvrtc/ptx/%.c tests/ptx_variant.h $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -DTCMMA_PTX_NO_AVX2 -DTCMMA_PTX_VARIANT=sse2 -include tests/ptx_variant.h \
	  -c $< -o $@
$(BUILD)/obj/ptx_scalar/%.o: nvrtc/ptx/%.c tests/ptx_variant.h $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -U__SSE2__ -DTCMMA_PTX_NO_AVX2 -DTCMMA_PTX_VARIANT=scalar \
	  -include tests/ptx_variant.h -c $< -o $@
$(BUILD)/tests/test_ptx_portable: $(PTX_VARIANTS)
$(BUILD)/tests/test_ptx_portable: TEST_EXTRA = $(PTX_VARIANTS)

check: deps all $(TESTS) $(BUILD)/fuzz-compiles.stamp
	@TCMMA_BIN=$(ABS_BUILD)/tcmma TCMMA_SRCDIR=$(CURDIR) TCMMA_BUILD=$(ABS_BUILD) \
	  TCMMA_SAN="$(SAN)" TCMMA_SANFLAGS="$(SANFLAGS)" \
	  sh tests/run-tests.sh $(TESTS) tests/python-tests.sh

# The Python package's tests alone (pytest; installs pytest and numpy when
# missing): against this build's libraries, from the source tree.
check-python: all
	@TCMMA_SRCDIR=$(CURDIR) TCMMA_BUILD=$(ABS_BUILD) sh tests/python-tests.sh

# The test binaries under valgrind (leaks and invalid accesses fail; what
# valgrind finds inside NVRTC itself is suppressed: tests/valgrind.supp).
# A simulated block runs up to 1024 threads: above valgrind's default 500.
memcheck: deps all $(TESTS)
	@TCMMA_BIN=$(ABS_BUILD)/tcmma TCMMA_SRCDIR=$(CURDIR) TCMMA_BUILD=$(ABS_BUILD) \
	  TCMMA_SAN="$(SAN)" TCMMA_SANFLAGS="$(SANFLAGS)" \
	  TCMMA_WRAP="valgrind -q --max-threads=2048 --leak-check=full --error-exitcode=1 --suppressions=$(CURDIR)/tests/valgrind.supp" \
	  sh tests/run-tests.sh $(TESTS)

run: all
	@sh tools/run.sh $(BUILD)/tcmma

install: all
	install -d $(DESTDIR)$(PREFIX)/include/tcmma/tables $(DESTDIR)$(PREFIX)/lib/pkgconfig \
	           $(DESTDIR)$(PREFIX)/bin
	install -m 644 include/tcmma/*.h $(DESTDIR)$(PREFIX)/include/tcmma/
	install -m 644 tables/*.def $(DESTDIR)$(PREFIX)/include/tcmma/tables/
	install -m 644 $(BUILD)/libtcmma.a $(BUILD)/libtcmma_sim.a $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(BUILD)/libtcmma.so $(DESTDIR)$(PREFIX)/lib/libtcmma.so.$(VERSION)
	ln -sf libtcmma.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(PREFIX)/lib/libtcmma.so
	@# written here, not copied from $(BUILD): PREFIX may differ from the build's
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' tcmma.pc.in \
	  > $(DESTDIR)$(PREFIX)/lib/pkgconfig/tcmma.pc
	install -m 755 $(BUILD)/tcmma $(DESTDIR)$(PREFIX)/bin/

uninstall:
	rm -rf $(DESTDIR)$(PREFIX)/include/tcmma
	rm -f $(DESTDIR)$(PREFIX)/lib/libtcmma.* $(DESTDIR)$(PREFIX)/lib/pkgconfig/tcmma.pc \
	      $(DESTDIR)$(PREFIX)/bin/tcmma

clean:
	rm -rf build build-san build-clang build-tsan build-fuzz

# libFuzzer targets (tests/fuzz/fuzz_*.c), each run for FUZZ_SECONDS on a
# copy of its seed corpus (tests/fuzz/corpus/<target>/); any crash, leak or
# sanitizer report fails. Needs clang and its fuzzer runtime, which
# tests/ensure-fuzz-deps.sh installs when missing.
FUZZ_SECONDS ?= 60
FUZZ_SRCS := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BINS := $(FUZZ_SRCS:tests/fuzz/%.c=$(BUILD)/fuzz/%)

# The simulator's archive too (fuzz_sim_launch): an archive adds only the
# members a target calls.
$(BUILD)/fuzz/%: tests/fuzz/%.c $(BUILD)/libtcmma_sim.a $(BUILD)/libtcmma.a \
                 $(BUILD)/obj/tools/cli_parse.o $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fsanitize=fuzzer -Itools -o $@ $< $(BUILD)/obj/tools/cli_parse.o \
	  $(FUZZ_EXTRA) $(BUILD)/libtcmma_sim.a $(BUILD)/libtcmma.a $(LDLIBS)
# fuzz_ptx reads each input with the reader's portable builds too.
$(BUILD)/fuzz/fuzz_ptx: $(PTX_VARIANTS)
$(BUILD)/fuzz/fuzz_ptx: FUZZ_EXTRA = $(PTX_VARIANTS)

# Every check compiles the fuzz targets with the project's compiler (no
# fuzzer runtime needed), so an API change cannot leave them behind until
# `make fuzz` runs in CI.
$(BUILD)/fuzz-compiles.stamp: $(FUZZ_SRCS) $(HEADERS) tools/cli_parse.h
	@mkdir -p $(dir $@)
	@for f in $(FUZZ_SRCS); do \
	  $(CC) $(ALL_CFLAGS) -Itools -c $$f -o /dev/null || exit 1; done
	@touch $@

ifeq ($(FUZZ),1)
fuzz: $(FUZZ_BINS)
	@sh tests/fuzz/run.sh $(ABS_BUILD) $(FUZZ_SECONDS)
else
fuzz:
	@CC=clang sh tests/ensure-fuzz-deps.sh
	$(MAKE) FUZZ=1 CC=clang fuzz
endif

# Regenerate the golden CLI outputs from the tool itself (review the diff).
golden: $(BUILD)/tcmma
	sh tests/golden/regen.sh $(ABS_BUILD)/tcmma
