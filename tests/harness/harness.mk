# Included by the top-level Makefile: the offline unwinder harness and the
# test workloads it (and the unit tests) unwind.
#
# The harness compiles the real BPF program (bpf/trec.bpf.c) as userspace
# C; until that file exists only the workloads are built and the harness
# tests skip.

TEST_EXTRA_TARGETS += workloads

.PHONY: workloads harness harness-arm64
workloads:
	$(MAKE) -s -C tests/workloads OUT=$(CURDIR)/build/workloads

HARNESS_SRCS := $(wildcard tests/harness/*.c)
HARNESS_PROG := $(wildcard bpf/trec.bpf.c)
ifneq ($(HARNESS_PROG),)
TEST_EXTRA_TARGETS += harness
endif
harness: $(B)/harness/trec-harness
harness-arm64: $(B)/harness-arm64/trec-harness

# The BPF code defines helpers and knobs it does not use offline.
HARNESS_DEPS := $(HARNESS_SRCS) $(wildcard tests/harness/*.h) tests/unit/fake_delta_sink.h \
	$(BPF_HDRS) $(HARNESS_PROG) $(B)/librecord.a $(B)/libreport.a $(B)/libtrecformat.a
$(B)/harness/trec-harness: $(HARNESS_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Wno-unused-function -Itests/harness $(LDFLAGS) -o $@ \
		$(HARNESS_SRCS) $(B)/librecord.a $(B)/libreport.a $(B)/libtrecformat.a $(LIBS_ALL)

# The same harness running the BPF unwinder's arm64 half (make test-arm64):
# the BPF C is target-neutral, only __TARGET_ARCH_* picks the half.
$(B)/harness-arm64/trec-harness: $(HARNESS_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -D__TARGET_ARCH_arm64 -Wno-unused-function -Itests/harness $(LDFLAGS) -o $@ \
		$(HARNESS_SRCS) $(B)/librecord.a $(B)/libreport.a $(B)/libtrecformat.a $(LIBS_ALL)
