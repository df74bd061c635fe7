// SPDX-License-Identifier: MIT
/* stack_deltas holds two deltas per element (bpf/trec_types.h): trecord's
 * sink writes delta i into half i % 2 of element i / 2, through the
 * mapping or, without it, by batch updates that keep the other half of a
 * pair a range shares with its neighbour (record/unwind/map_sinks.c). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "record/unwind/map_sinks.h"

#define PAIRS 8

static int failures;

static void check(int ok, const char *what)
{
	printf("%s: %s\n", ok ? "PASS" : "FAIL", what);
	failures += !ok;
}

/* Delta i as the test writes it: distinct in both fields. */
static struct trec_stack_delta delta(uint32_t i)
{
	return (struct trec_stack_delta){ (uint16_t)(0x100 + i), (uint16_t)(0x200 + i) };
}

/* Writes [1, 4), [4, 9), [9, 10) and [12, 14): odd and even starts and
 * ends; 0, 10, 11 and 14, 15 stay as the map had them (zero). */
static int write_ranges(struct trec_map_fds *fds)
{
	static const uint32_t ranges[][2] = { { 1, 3 }, { 4, 5 }, { 9, 1 }, { 12, 2 } };
	struct trec_stack_delta d[8];

	for (size_t r = 0; r < sizeof(ranges) / sizeof(ranges[0]); r++) {
		for (uint32_t i = 0; i < ranges[r][1]; i++)
			d[i] = delta(ranges[r][0] + i);
		if (trec_bpf_delta_sink.set_deltas(fds, ranges[r][0], d, ranges[r][1]))
			return -1;
	}
	return trec_bpf_delta_sink.set_deltas(fds, 5, d, 0);
}

static int read_back_ok(int fd)
{
	for (uint32_t k = 0; k < PAIRS; k++) {
		struct trec_stack_delta_pair p;

		if (bpf_map_lookup_elem(fd, &k, &p))
			return 0;
		for (uint32_t h = 0; h < 2; h++) {
			uint32_t i = 2 * k + h;
			int written = (i >= 1 && i < 10) || (i >= 12 && i < 14);
			struct trec_stack_delta want = written ? delta(i) : (struct trec_stack_delta){ 0, 0 };

			if (memcmp(&p.d[h], &want, sizeof(want))) {
				printf("  delta %u: %#x/%#x, want %#x/%#x\n", i, p.d[h].addr_low,
				       p.d[h].unwind_info, want.addr_low, want.unwind_info);
				return 0;
			}
		}
	}
	return 1;
}

static void run(int mapped)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_MMAPABLE);
	struct trec_map_fds fds = { .deltas = -1 };
	char what[128];

	fds.deltas = bpf_map_create(BPF_MAP_TYPE_ARRAY, "t_pairs", 4,
				    sizeof(struct trec_stack_delta_pair), PAIRS, &opts);
	if (fds.deltas < 0) {
		check(0, "a BPF array map (needs root)");
		return;
	}
	if (mapped) {
		void *p = mmap(NULL, PAIRS * TREC_DELTA_MMAP_STRIDE, PROT_READ | PROT_WRITE,
			       MAP_SHARED, fds.deltas, 0);
		fds.deltas_mem = p == MAP_FAILED ? NULL : p;
	}
	snprintf(what, sizeof(what), "%s: ranges at odd and even indexes land in their halves",
		 mapped ? "mapped" : "batch updates");
	check((!mapped || fds.deltas_mem) && write_ranges(&fds) == 0 && read_back_ok(fds.deltas),
	      what);
	if (fds.deltas_mem)
		munmap(fds.deltas_mem, PAIRS * TREC_DELTA_MMAP_STRIDE);
	close(fds.deltas);
}

int main(void)
{
	run(1);
	run(0);
	return failures != 0;
}
