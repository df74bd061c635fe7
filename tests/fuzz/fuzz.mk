# Fuzzing (included by the top-level Makefile): the reader, the JIT and
# .gopclntab parsers, and make fuzz-long (the reader and archive decoders).
#   make fuzz                  fuzz the reader for FUZZ_SECONDS (default 300)
#   build/fuzz_reader          the libFuzzer binary (ASan + UBSan), built by make test-build
#   build/fuzz-corpus/         seed corpus written with libtrecformat (tests/fuzz/make_corpus.c)
#   build/fuzz_perfmap, build/fuzz_jitdump   the JIT symbol file parsers (record/jit/),
#                              seeds in build/fuzz-jit-corpus/{perfmap,jitdump}
#   make fuzz-jit              fuzz both for FUZZ_SECONDS each
#
# The fuzz build compiles format/*.c itself with clang's fuzzer
# instrumentation, independent of the plain and sanitizer builds.

FUZZ_SECONDS ?= 300
FUZZ_CFLAGS := -g -O1 -std=gnu11 -D_GNU_SOURCE -I. -Iformat -Ibpf -Itests/unit \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
FUZZ_OPTS := -timeout=10 -rss_limit_mb=2048 -max_len=65536 -dict=tests/fuzz/trec.dict

build/fuzz_reader: tests/fuzz/fuzz_reader.c $(FORMAT_CODEC_SRCS) $(call rwildcard,format,*.h)
	@mkdir -p build
	$(CLANG) $(FUZZ_CFLAGS) -o $@ tests/fuzz/fuzz_reader.c $(FORMAT_CODEC_SRCS) $(LIBS_FORMAT)

build/fuzz_make_corpus: tests/fuzz/make_corpus.c tests/unit/format_fixture.h $(FORMAT_SRCS) $(call rwildcard,format,*.h)
	@mkdir -p build
	$(CC) -O1 -g -std=gnu11 -D_GNU_SOURCE -I. -Iformat -Ibpf -Itests/unit -o $@ \
		tests/fuzz/make_corpus.c $(FORMAT_CODEC_SRCS) $(LIBS_FORMAT)

build/fuzz-corpus/.stamp: build/fuzz_make_corpus
	rm -rf build/fuzz-corpus; mkdir -p build/fuzz-corpus
	build/fuzz_make_corpus build/fuzz-corpus
	touch $@

TEST_EXTRA_TARGETS += build/fuzz_reader build/fuzz-corpus/.stamp

# The JIT parsers read files the profiled process writes.
JIT_FUZZ_SRCS := record/jit/jit_table.c record/jit/perfmap.c record/jit/jitdump.c
JIT_FUZZ_DEPS := $(JIT_FUZZ_SRCS) $(wildcard record/jit/*.h) tests/fuzz/fuzz_jit.h $(FORMAT_CODEC_SRCS) $(call rwildcard,format,*.h)

build/fuzz_perfmap build/fuzz_jitdump: build/fuzz_%: tests/fuzz/fuzz_%.c $(JIT_FUZZ_DEPS)
	@mkdir -p build
	$(CLANG) $(FUZZ_CFLAGS) -o $@ $< $(JIT_FUZZ_SRCS) $(FORMAT_CODEC_SRCS) $(LIBS_FORMAT)

build/fuzz_make_jit_corpus: tests/fuzz/make_jit_corpus.c tests/unit/jitdump_builder.h
	@mkdir -p build
	$(CC) -O1 -g -std=gnu11 -D_GNU_SOURCE -I. -Iformat -Ibpf -Itests/unit -o $@ $<

build/fuzz-jit-corpus/.stamp: build/fuzz_make_jit_corpus
	rm -rf build/fuzz-jit-corpus; mkdir -p build/fuzz-jit-corpus/perfmap build/fuzz-jit-corpus/jitdump
	build/fuzz_make_jit_corpus build/fuzz-jit-corpus/perfmap build/fuzz-jit-corpus/jitdump
	touch $@

TEST_EXTRA_TARGETS += build/fuzz_perfmap build/fuzz_jitdump build/fuzz-jit-corpus/.stamp

# The Perl INTERP_CODE payload decoder (tests/fuzz/test_fuzz_perlcode.sh seeds it).
build/fuzz_perlcode: tests/fuzz/fuzz_perlcode.c format/trec_perlcode.c format/trec_perlcode.h format/payload_fields.h
	@mkdir -p build
	$(CLANG) $(FUZZ_CFLAGS) -o $@ tests/fuzz/fuzz_perlcode.c format/trec_perlcode.c

TEST_EXTRA_TARGETS += build/fuzz_perlcode

# New inputs go to build/fuzz-work (kept between runs); crashes to build/.
fuzz: deps build/fuzz_reader build/fuzz-corpus/.stamp
	mkdir -p build/fuzz-work
	build/fuzz_reader $(FUZZ_OPTS) -max_total_time=$(FUZZ_SECONDS) -artifact_prefix=build/ \
		build/fuzz-work build/fuzz-corpus

# ---- the .gopclntab parser ----------------------------------------------
#
#   make fuzz-gopclntab        fuzz it for FUZZ_SECONDS
#   build/fuzz_gopclntab       the libFuzzer binary, built by make test-build
#   build/fuzz-gopclntab-corpus/  seeds: the table of a Go tool (when Go is installed)

build/fuzz_gopclntab: tests/fuzz/fuzz_gopclntab.c $(GOPCLN_SRCS) $(wildcard format/gopclntab/*.h)
	@mkdir -p build
	$(CLANG) $(FUZZ_CFLAGS) -I. -o $@ tests/fuzz/fuzz_gopclntab.c $(GOPCLN_SRCS) -lelf

TEST_EXTRA_TARGETS += build/fuzz_gopclntab

# A seed is a mode byte (fuzz_gopclntab.c) then the input: 1 = a raw table.
build/fuzz-gopclntab-corpus/.stamp: build/fuzz_gopclntab
	rm -rf build/fuzz-gopclntab-corpus; mkdir -p build/fuzz-gopclntab-corpus
	printf '\002' > build/fuzz-gopclntab-corpus/empty-header
	tool=$$(go env GOTOOLDIR 2>/dev/null)/addr2line; \
	if [ -f "$$tool" ] && objcopy -O binary --only-section=.gopclntab "$$tool" $@.tab; then \
		{ printf '\001'; cat $@.tab; } > build/fuzz-gopclntab-corpus/go-addr2line-table; \
	fi; rm -f $@.tab
	touch $@

.PHONY: fuzz-gopclntab
fuzz-gopclntab: deps build/fuzz_gopclntab build/fuzz-gopclntab-corpus/.stamp
	mkdir -p build/fuzz-gopclntab-work
	build/fuzz_gopclntab -timeout=10 -rss_limit_mb=2048 -max_len=4194304 \
		-max_total_time=$(FUZZ_SECONDS) -artifact_prefix=build/ \
		build/fuzz-gopclntab-work build/fuzz-gopclntab-corpus

.PHONY: fuzz-jit
fuzz-jit: deps build/fuzz_perfmap build/fuzz_jitdump build/fuzz-jit-corpus/.stamp
	for t in perfmap jitdump; do mkdir -p build/fuzz-work-$$t; \
		build/fuzz_$$t -timeout=10 -rss_limit_mb=2048 -max_len=65536 -max_total_time=$(FUZZ_SECONDS) \
			-artifact_prefix=build/ build/fuzz-work-$$t build/fuzz-jit-corpus/$$t || exit 1; done

# ---- make fuzz-long: both decoders, >= 10^7 executions in all ---------------
#
#   make fuzz-long              FUZZ_LONG_RUNS (default 5000000) executions of
#                               the reader target, as many of the archive one
#   build/fuzz_archive          the symbol-archive decoder target
#                               (tests/archive/fuzz_archive.c)
#   build/fuzz-archive-corpus/  seeds: real archives of the test workloads
# Crashes go to build/ (reader) and build/archive-* (archive); the total count
# is printed at the end (tests/fuzz/fuzz_long.sh).

FUZZ_LONG_RUNS ?= 5000000
ARCHIVE_FUZZ_SRCS := tests/archive/fuzz_archive.c format/archive/archive_parse.c \
	format/archive/archive_lookup.c format/encode.c

build/fuzz_archive: $(ARCHIVE_FUZZ_SRCS) $(call rwildcard,format,*.h)
	@mkdir -p build
	$(CLANG) $(FUZZ_CFLAGS) -o $@ $(ARCHIVE_FUZZ_SRCS)

build/fuzz_archive_seeds: tests/archive/make_seeds.c build/librecord.a build/libtrecformat.a
	$(CC) -O1 -g -std=gnu11 -D_GNU_SOURCE -I. -Iformat -o $@ $< \
		build/librecord.a build/libtrecformat.a -ldw -lelf -lzstd -lz

build/fuzz-archive-corpus/.stamp: build/fuzz_archive_seeds
	$(MAKE) -s -C tests/workloads OUT=$(CURDIR)/build/workloads
	rm -rf build/fuzz-archive-corpus; mkdir -p build/fuzz-archive-corpus
	build/fuzz_archive_seeds build/fuzz-archive-corpus build/workloads/busy \
		build/workloads/inlines build/workloads/threads
	touch $@

.PHONY: fuzz-long
fuzz-long: deps build/fuzz_reader build/fuzz-corpus/.stamp build/fuzz_archive \
		build/fuzz-archive-corpus/.stamp
	FUZZ_LONG_RUNS=$(FUZZ_LONG_RUNS) bash tests/fuzz/fuzz_long.sh

# The PYCODE payload decoder and the Python line tables treport decodes from it.
PYCODE_FUZZ_SRCS := format/trec_pycode.c report/interp/python/python_lines.c \
	report/interp/python/python_lines_old.c
build/fuzz_pycode: tests/fuzz/fuzz_pycode.c $(PYCODE_FUZZ_SRCS) format/trec_pycode.h \
		report/interp/python/python_lines.h report/interp/python/python_lines_old.h
	@mkdir -p build
	$(CLANG) $(FUZZ_CFLAGS) -o $@ $< $(PYCODE_FUZZ_SRCS)
TEST_EXTRA_TARGETS += build/fuzz_pycode

# The PHP INTERP_CODE payload decoder (treport reads it from recordings).
build/fuzz_phpcode: tests/fuzz/fuzz_phpcode.c format/trec_phpcode.c format/trec_phpcode.h
	@mkdir -p build
	$(CLANG) $(FUZZ_CFLAGS) -o $@ tests/fuzz/fuzz_phpcode.c format/trec_phpcode.c
TEST_EXTRA_TARGETS += build/fuzz_phpcode
# The Ruby INTERP_CODE payload and MRI's position index (issue 14).
build/fuzz_rbcode: tests/fuzz/fuzz_rbcode.c format/trec_rbcode.c record/interp/ruby/ruby_iseq.c \
		format/trec_rbcode.h record/interp/ruby/ruby_iseq.h
	@mkdir -p build
	$(CLANG) $(FUZZ_CFLAGS) -o $@ $< format/trec_rbcode.c record/interp/ruby/ruby_iseq.c
TEST_EXTRA_TARGETS += build/fuzz_rbcode

# ---- the stack-delta cache's entries (record/unwind/delta_cache_codec.c) --
#
#   build/fuzz_delta_cache     the libFuzzer binary, built by make test-build;
#                              tests/fuzz/test_fuzz_delta_cache.sh runs it
#                              briefly on seeds it writes

build/fuzz_delta_cache: tests/fuzz/fuzz_delta_cache.c record/unwind/delta_cache_codec.c \
		record/io/cache_entry.c record/io/cache_entry.h tests/fuzz/fuzz_cache_entry.h \
		record/unwind/delta_cache.h record/unwind/unwind_tables.h
	@mkdir -p build
	$(CLANG) $(FUZZ_CFLAGS) -o $@ $< record/unwind/delta_cache_codec.c record/io/cache_entry.c -lz

TEST_EXTRA_TARGETS += build/fuzz_delta_cache

# ---- the symbol cache's entries (record/archive/symbol_cache_codec.c) ----
#
#   build/fuzz_symbol_cache    the libFuzzer binary, built by make test-build;
#                              tests/fuzz/test_fuzz_symbol_cache.sh runs it
#                              briefly on seeds it writes

build/fuzz_symbol_cache: tests/fuzz/fuzz_symbol_cache.c record/archive/symbol_cache_codec.c \
		record/archive/archive_free.c record/io/cache_entry.c record/io/cache_entry.h \
		tests/fuzz/fuzz_cache_entry.h format/containers/vec.c record/archive/symbol_cache.h \
		record/archive/archive_build.h
	@mkdir -p build
	$(CLANG) $(FUZZ_CFLAGS) -o $@ $< record/archive/symbol_cache_codec.c \
		record/archive/archive_free.c record/io/cache_entry.c format/containers/vec.c -lz

TEST_EXTRA_TARGETS += build/fuzz_symbol_cache

# ---- stack-delta extraction from ELF files (record/unwind/ehframe_*.c) ----
#
#   build/fuzz_ehframe         the libFuzzer binary over .eh_frame/.debug_frame,
#                              PLT and code-byte parsing (through libelf/libdw),
#                              Go's roots and prologues (.gopclntab),
#                              built by make test-build;
#                              tests/fuzz/test_fuzz_ehframe.sh runs it briefly
#                              on small ELF files it builds or finds

EHFRAME_FUZZ_SRCS := $(wildcard record/unwind/ehframe_*.c) format/containers/vec.c record/procs/open_regular.c \
	record/unwind/go_roots.c record/unwind/go_frames.c $(GOPCLN_SRCS)

build/fuzz_ehframe: tests/fuzz/fuzz_ehframe.c $(EHFRAME_FUZZ_SRCS) $(wildcard record/unwind/*.h)
	@mkdir -p build
	$(CLANG) $(FUZZ_CFLAGS) -o $@ $< $(EHFRAME_FUZZ_SRCS) -ldw -lelf -lz

TEST_EXTRA_TARGETS += build/fuzz_ehframe

# ---- the /proc text parsers (record/procs/proc_maps.c, record/kernel/kallsyms.c)
#   build/fuzz_procfiles       /proc/PID/maps and /proc/kallsyms; first byte
#                              picks the parser; tests/fuzz/test_fuzz_procfiles.sh

PROC_FUZZ_SRCS := record/procs/proc_maps.c record/kernel/kallsyms.c format/containers/vec.c

build/fuzz_procfiles: tests/fuzz/fuzz_procfiles.c $(PROC_FUZZ_SRCS) record/procs/proc_maps.h \
		record/kernel/kallsyms.h format/upper_bound.h
	@mkdir -p build
	$(CLANG) $(FUZZ_CFLAGS) -o $@ $< $(PROC_FUZZ_SRCS)

TEST_EXTRA_TARGETS += build/fuzz_procfiles
