# Included by the top-level Makefile: the offline unwinder harness and the
# test workloads it (and the unit tests) unwind.

TEST_EXTRA_TARGETS += workloads

.PHONY: workloads
workloads:
	$(MAKE) -s -C tests/workloads OUT=$(CURDIR)/build/workloads
