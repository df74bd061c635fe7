# Reader and archive fuzzing (included by the top-level Makefile).
#
#   make fuzz                  fuzz the reader for FUZZ_SECONDS (default 300)
#   build/fuzz_reader          the libFuzzer binary (ASan + UBSan), built by make test-build
#   build/fuzz-corpus/         seed corpus written with libtrecformat (tests/fuzz/make_corpus.c)
#
# The fuzz build compiles format/*.c itself with clang's fuzzer
# instrumentation, independent of the plain and sanitizer builds.

FUZZ_SECONDS ?= 300
FUZZ_CFLAGS := -g -O1 -std=gnu11 -D_GNU_SOURCE -I. -Iformat -Ibpf -Itests/unit \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
FUZZ_OPTS := -timeout=10 -rss_limit_mb=2048 -max_len=65536 -dict=tests/fuzz/trec.dict

build/fuzz_reader: tests/fuzz/fuzz_reader.c $(FORMAT_SRCS) $(call rwildcard,format,*.h)
	@mkdir -p build
	$(CLANG) $(FUZZ_CFLAGS) -o $@ tests/fuzz/fuzz_reader.c $(FORMAT_SRCS) $(LIBS_FORMAT)

build/fuzz_make_corpus: tests/fuzz/make_corpus.c tests/unit/format_fixture.h $(FORMAT_SRCS) $(call rwildcard,format,*.h)
	@mkdir -p build
	$(CC) -O1 -g -std=gnu11 -D_GNU_SOURCE -I. -Iformat -Ibpf -Itests/unit -o $@ \
		tests/fuzz/make_corpus.c $(FORMAT_SRCS) $(LIBS_FORMAT)

build/fuzz-corpus/.stamp: build/fuzz_make_corpus
	rm -rf build/fuzz-corpus; mkdir -p build/fuzz-corpus
	build/fuzz_make_corpus build/fuzz-corpus
	touch $@

TEST_EXTRA_TARGETS += build/fuzz_reader build/fuzz-corpus/.stamp

# New inputs go to build/fuzz-work (kept between runs); crashes to build/.
fuzz: deps build/fuzz_reader build/fuzz-corpus/.stamp
	mkdir -p build/fuzz-work
	build/fuzz_reader $(FUZZ_OPTS) -max_total_time=$(FUZZ_SECONDS) -artifact_prefix=build/ \
		build/fuzz-work build/fuzz-corpus

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
