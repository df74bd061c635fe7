// SPDX-License-Identifier: MIT
/* stack_deltas holds two deltas per element (bpf/trec_types.h): trecord's
 * sink writes delta i into half i % 2 of element i / 2, through the
 * mapping or, without it, by batch updates that keep the other half of a
 * pair a range shares with its neighbour (record/unwind/map_sinks.c). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
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
	struct trec_delta_mem mem;
	char what[128];

	fds.deltas = bpf_map_create(BPF_MAP_TYPE_ARRAY, "t_pairs", 4,
				    sizeof(struct trec_stack_delta_pair), PAIRS, &opts);
	if (fds.deltas < 0) {
		check(0, "a BPF array map (needs root)");
		return;
	}
	if (mapped && !trec_delta_mem_init(&mem, fds.deltas, PAIRS * TREC_DELTA_MMAP_STRIDE))
		fds.deltas_mem = &mem;
	snprintf(what, sizeof(what), "%s: ranges at odd and even indexes land in their halves",
		 mapped ? "mapped" : "batch updates");
	check((!mapped || fds.deltas_mem) && write_ranges(&fds) == 0 && read_back_ok(fds.deltas),
	      what);
	if (fds.deltas_mem)
		trec_delta_mem_free(fds.deltas_mem);
	close(fds.deltas);
}

/* A map of 2.5 chunks: a write across the first boundary maps chunks 0
 * and 1 only, lands in the map, and reads back through the mapping; the
 * third chunk, never written, is not mapped and reads go to the fd. */
#define BIG_PAIRS (5 * TREC_DELTA_MEM_CHUNK / 2 / TREC_DELTA_MMAP_STRIDE)

static void run_chunks(void)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_MMAPABLE);
	struct trec_map_fds fds = { .deltas = -1 };
	struct trec_delta_mem mem;
	uint32_t first = TREC_DELTA_MEM_CHUNK / sizeof(struct trec_stack_delta) - 3;
	uint32_t key = (first + 4) / 2; /* chunk 1's first pair */
	uint32_t far = (uint32_t)BIG_PAIRS - 1;
	struct trec_stack_delta d[8];
	struct trec_stack_delta_pair p;
	const struct trec_stack_delta_pair *m;

	fds.deltas = bpf_map_create(BPF_MAP_TYPE_ARRAY, "t_chunks", 4,
				    sizeof(struct trec_stack_delta_pair), BIG_PAIRS, &opts);
	if (fds.deltas < 0 || trec_delta_mem_init(&mem, fds.deltas,
						  BIG_PAIRS * TREC_DELTA_MMAP_STRIDE)) {
		check(0, "a mappable BPF array map (needs root)");
		if (fds.deltas >= 0)
			close(fds.deltas);
		return;
	}
	fds.deltas_mem = &mem;
	check(trec_delta_mem_chunks_mapped(&mem) == 0, "chunks: none mapped before a write");
	for (uint32_t i = 0; i < 8; i++)
		d[i] = delta(first + i);
	check(trec_bpf_delta_sink.set_deltas(&fds, first, d, 8) == 0 &&
		      trec_delta_mem_chunks_mapped(&mem) == 2,
	      "chunks: a write across a chunk boundary maps both chunks, no more");
	m = trec_delta_mem_read_at(&mem, (size_t)key * TREC_DELTA_MMAP_STRIDE,
				   TREC_DELTA_MMAP_STRIDE);
	check(!bpf_map_lookup_elem(fds.deltas, &key, &p) &&
		      !memcmp(p.d, &d[key * 2 - first], sizeof(p)) &&
		      m && !memcmp(m, &p, sizeof(p)),
	      "chunks: the write past the boundary is in the map and in the mapping");
	check(!trec_delta_mem_read_at(&mem, (size_t)far * TREC_DELTA_MMAP_STRIDE,
				      TREC_DELTA_MMAP_STRIDE) &&
		      !trec_delta_mem_read_at(&mem, (size_t)BIG_PAIRS * TREC_DELTA_MMAP_STRIDE,
					      TREC_DELTA_MMAP_STRIDE) &&
		      trec_delta_mem_chunks_mapped(&mem) == 2,
	      "chunks: an unwritten chunk and the end are not readable, and reads map nothing");
	trec_delta_mem_free(&mem);
	close(fds.deltas);
}

int main(void)
{
	run(1);
	run(0);
	run_chunks();
	return failures != 0;
}
