# trec: trecord (eBPF sampler) and treport (offline symbolizer).
#
#   make            build build/trecord, build/treport and the test workloads
#                   (build/workloads, which README's Quick start records)
#   make demo       install packages, build, record the demo, write demo.svg
#   make test       install packages, build (plain and ASan/UBSan), run tests
#   make test-arm64 the arm64 unwinder under qemu-user against gdb, and the
#                   BPF side built for arm64 (installs cross tools, qemu)
#   make bench      benchmarks against perf (not part of make test)
#   make fuzz       a longer run of the reader fuzz target
#   make fuzz-long  the reader and archive fuzz targets, >= 10^7 executions
#   make browser-check  load --perf-script output into speedscope in headless
#                   Chromium (installs chromium + npm packages; not in make test)
#
# Sources are picked up by wildcard: record/main.c and report/main.c hold
# the two main()s, every other .c of a directory goes into its library.

# Debian packages every target needs (build, tests, demo, bench).
DEB_PACKAGES := clang llvm libbpf-dev bpftool libelf-dev libdw-dev \
	libzstd-dev libxxhash-dev zlib1g-dev pkg-config libprotobuf-c-dev protobuf-c-compiler libiberty-dev python3-zstandard zstd xz-utils time libc6-dbg \
	gdb linux-perf golang-go elfutils binutils g++ python3 make libxml2-utils debuginfod \
	php-cli php-dev \
	libbpf-tools perl ruby

# Only make test-arm64 needs these (the arm64 unwinder by simulation:
# cross compilers, qemu-user, gdb for a foreign architecture).
DEB_PACKAGES_ARM64 := gcc-aarch64-linux-gnu g++-aarch64-linux-gnu qemu-user-static gdb-multiarch

SAN ?= 0
ifeq ($(SAN),1)
B := build-san
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
else
B := build
SANFLAGS :=
endif

CC ?= cc
CLANG ?= clang
BPFTOOL ?= bpftool
WERROR ?= 0
OPT ?= -O2
CFLAGS_BASE := $(OPT) -g -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Wshadow \
	-D_GNU_SOURCE -I. -Ibpf -Iformat -I$(B) -Ibuild $(SANFLAGS)
ifeq ($(WERROR),1)
CFLAGS_BASE += -Werror
endif
CFLAGS += $(CFLAGS_BASE)
LDFLAGS += $(SANFLAGS)

# format/elf (PLT names, debuginfod) reads ELF files: -ldw -lelf.
LIBS_FORMAT := -lzstd -lz -ldw -lelf
LIBS_RECORD := -lbpf -lelf -ldw -lzstd -lz -lpthread
LIBS_REPORT := -ldw -lelf -lprotobuf-c -liberty -lzstd -lz -lpthread
LIBS_ALL := -lbpf -ldw -lelf -lprotobuf-c -liberty -lzstd -lz -lpthread -lm

ARCH := $(shell uname -m | sed 's/x86_64/x86/;s/aarch64/arm64/')

# Each library is its directory tree: subdirectories are rooms of one program.
rwildcard = $(foreach d,$(wildcard $(1:=/*)),$(call rwildcard,$d,$2) $(filter $(subst *,%,$2),$d))
FORMAT_SRCS := $(sort $(call rwildcard,format,*.c))
FORMAT_CODEC_SRCS := $(filter-out format/gopclntab/% format/elf/%,$(FORMAT_SRCS))
RECORD_SRCS := $(sort $(filter-out record/main.c,$(call rwildcard,record,*.c)))
REPORT_SRCS := $(sort $(filter-out report/main.c,$(call rwildcard,report,*.c)))
# The .gopclntab parser (format/gopclntab/, on libelf) serves both programs;
# the reader fuzz target builds libtrecformat's sources without it.
GOPCLN_SRCS := $(wildcard format/gopclntab/*.c)
ALL_HDRS := $(call rwildcard,bpf format record report,*.h)
BPF_SRCS := $(wildcard bpf/*.bpf.c)
BPF_HDRS := $(wildcard bpf/*.h)
PROTOS := $(wildcard report/output/*.proto)

FORMAT_OBJS := $(patsubst %.c,$(B)/%.o,$(FORMAT_SRCS))
RECORD_OBJS := $(patsubst %.c,$(B)/%.o,$(RECORD_SRCS))
REPORT_OBJS := $(patsubst %.c,$(B)/%.o,$(REPORT_SRCS)) \
	$(patsubst report/output/%.proto,$(B)/report/%.pb-c.o,$(PROTOS))
SKELS := $(patsubst bpf/%.bpf.c,build/%.skel.h,$(BPF_SRCS))
PB_HDRS := $(patsubst report/output/%.proto,build/%.pb-c.h,$(PROTOS))
GEN_HDRS := build/vmlinux.h $(SKELS) $(PB_HDRS)

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(B)/tests/%,$(UNIT_SRCS))

.PHONY: all deps deps-arm64 demo test test-build test-arm64 check bench stress fuzz browser-check \
	clean
.DELETE_ON_ERROR:
.SECONDARY:

all: $(B)/trecord $(B)/treport $(UNIT_BINS) workloads

# Installs only what is missing; safe to run again.
deps: PKGS := $(DEB_PACKAGES)
deps-arm64: PKGS := $(DEB_PACKAGES_ARM64)
deps deps-arm64:
	@missing=$$(for p in $(PKGS); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; \
	done); \
	if [ -n "$$missing" ]; then \
		echo "installing:" $$missing; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi

# ---- generated headers (shared by plain and sanitizer builds) -----------

build/vmlinux.h:
	@mkdir -p build
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@

build/%.bpf.o: bpf/%.bpf.c $(BPF_HDRS) build/vmlinux.h
	@mkdir -p build
	$(CLANG) -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Wall -Werror -Ibuild -Ibpf -c $< -o $@

build/%.skel.h: build/%.bpf.o
	$(BPFTOOL) gen skeleton $< > $@

build/%.pb-c.c build/%.pb-c.h: report/output/%.proto
	@mkdir -p build
	protoc-c --c_out=build --proto_path=report/output $<

# ---- userspace ----------------------------------------------------------

$(B)/%.o: %.c $(GEN_HDRS) $(ALL_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(B)/report/%.pb-c.o: build/%.pb-c.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Wno-error -c $< -o $@

$(B)/libtrecformat.a: $(FORMAT_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@; ar rcs $@ $^
$(B)/librecord.a: $(RECORD_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@; ar rcs $@ $^
$(B)/libreport.a: $(REPORT_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@; ar rcs $@ $^

$(B)/trecord: $(B)/record/main.o $(B)/librecord.a $(B)/libtrecformat.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS_RECORD)

$(B)/treport: $(B)/report/main.o $(B)/libreport.a $(B)/libtrecformat.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS_REPORT)

# Unit tests link only the libraries they test, so a layering mistake (a
# format file calling into record/, say) breaks the build. The few that
# test record/ and report/ together (an archive written, then read) say so.
UNIT_RECORD := test_record_% test_delta_% test_deltas_% test_python_detect test_archive test_jit_perfmap test_jit_jitdump \
	test_jit_watch test_interp_table \
	test_archive_hostile
UNIT_REPORT := test_report_% test_python_lines test_python_lines_old test_python_pycode test_jit_report
UNIT_BOTH := test_archive_store test_archive_write test_python_walk test_gopclntab test_php_code test_perl_code test_ruby_code
unit_libs = $(if $(filter $(UNIT_BOTH),$(1)),$(B)/librecord.a $(B)/libreport.a,$(if \
	$(filter $(UNIT_RECORD),$(1)),$(B)/librecord.a,$(if \
	$(filter $(UNIT_REPORT),$(1)),$(B)/libreport.a))) $(B)/libtrecformat.a

# Each prints PASS:/FAIL: lines.
.SECONDEXPANSION:
$(B)/tests/%: tests/unit/%.c $$(call unit_libs,$$*) $(GEN_HDRS) $(ALL_HDRS) $(wildcard tests/unit/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(call unit_libs,$*) $(LIBS_ALL)

-include tests/harness/harness.mk
-include tests/fuzz/fuzz.mk

# ---- top-level targets --------------------------------------------------

demo: deps
	$(MAKE) all
	bash tests/demo/run-demo.sh

# On every CPU unless make was given -j itself (CI runs plain `make test`:
# the serial builds were a fifth of its time). MAKEFLAGS shows -j only in
# recipes (make 4.3).
JOBS = $$(case " $$MAKEFLAGS" in *" -j"*) ;; *) echo -j$$(nproc 2>/dev/null || echo 1) ;; esac)
test-build:
	$(MAKE) $(JOBS) WERROR=1 all
	$(MAKE) $(JOBS) WERROR=1 SAN=1 all $(TEST_EXTRA_TARGETS)

test: deps
	$(MAKE) test-build
	bash tests/run.sh

# The arm64 unwinder by simulation (tests/arm64/, README "arm64"): not in
# make test (tests/run.sh runs tests/arm64/ only when the pattern names it).
test-arm64: deps deps-arm64
	$(MAKE) WERROR=1 SAN=1 all harness-arm64
	bash tests/run.sh tests/arm64/

bench: deps
	$(MAKE) all
	bash tests/bench/run-bench.sh

stress: deps
	$(MAKE) test-build
	bash tests/stress/run-stress.sh

browser-check: deps
	bash tests/browser/check_speedscope.sh

clean:
	rm -rf build build-san
