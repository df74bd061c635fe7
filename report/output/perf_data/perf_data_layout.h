/* SPDX-License-Identifier: MIT */
/*
 * Where each frame of a trec recording lives in the address spaces a
 * perf.data file describes: which DSOs each process maps, at which
 * addresses, and the callchain address of every frame, so that perf,
 * resolving addresses through the MMAP2 records, names each frame as
 * treport does.
 *
 * trec frames name (file, ELF address) directly; perf goes from a runtime
 * address to a map. Each process gets one fixed set of maps, none
 * overlapping, written before its first sample (and again after each
 * fork and exec, which reset perf's view): a file at its recorded
 * mapping, or when that is missing or would overlap another, at a slot in
 * a synthetic area no recorded mapping touches. Frames no ELF file can
 * name for perf (error frames, Python frames, others treport names
 * itself) go to synthetic DSOs whose symbols carry treport's names; their
 * ELF files go to the build-id cache with the embedded symbols. A frame
 * treport could not place in any file goes to the unnamed slot of a DSO
 * of the name treport shows ("[unknown]"), never to its raw address: perf
 * could find a map there that treport did not (one a fork inherited).
 */
#ifndef RP_PERF_DATA_LAYOUT_H
#define RP_PERF_DATA_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

#include "report/output/output.h"

#define PD_SYNTH_SYM_SIZE 16
#define PD_SYNTH_FIRST 0x1000

struct pd_dso {
	uint32_t name;        /* string id: the path perf shows */
	uint64_t file_id;     /* a recorded file, or 0 for a synthetic DSO */
	uint8_t build_id[20]; /* recorded, or derived from the synthetic symbols */
	uint32_t build_id_len;
	/* ELF address - file offset of the file's code (its recorded mapping's
	 * vaddr - file offset; 0 for synthetic DSOs): perf looks symbols up by
	 * file offset (perf_buildid_cache.c writes its files to match). */
	uint64_t delta;
	/* Synthetic: symbol k (string id syms[k]) at PD_SYNTH_FIRST + k * size;
	 * the address after the last one names nothing (unresolved frames). */
	uint32_t *syms;
	uint32_t nsyms;
	size_t capsyms;
	bool used;
};

struct pd_map {
	uint64_t start, end, pgoff;
	uint32_t dso;
};

struct pd_layout;

/* Everything is computed here, from the model's aggregates with samples. */
struct pd_layout *pd_layout_new(const struct rp_report *r);
void pd_layout_free(struct pd_layout *l);

const struct pd_dso *pd_layout_dsos(const struct pd_layout *l, uint32_t *n);
/* The maps of a process (sorted by start); NULL and 0 if it has no samples. */
const struct pd_map *pd_layout_maps(const struct pd_layout *l, uint32_t pid, uint32_t *n);
/* The lowest kernel address a frame uses, or UINT64_MAX. */
uint64_t pd_layout_kernel_start(const struct pd_layout *l);

/*
 * The callchain of an aggregate, leaf first with context markers, as in a
 * perf SAMPLE; *ip and *cpumode are the leaf's. The array stays valid
 * until pd_layout_free. Stacks too deep for one record lose their
 * outermost frames (*cut set).
 */
const uint64_t *pd_layout_chain(struct pd_layout *l, uint32_t agg, uint32_t *n, uint64_t *ip,
				uint8_t *cpumode, bool *cut);

#endif /* RP_PERF_DATA_LAYOUT_H */
