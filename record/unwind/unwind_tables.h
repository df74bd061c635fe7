/* SPDX-License-Identifier: MIT */
/*
 * Stack deltas: from an ELF file's .eh_frame/.debug_frame to the compact
 * tables the BPF native unwinder reads (layout in bpf/trec_types.h).
 *
 * Two steps, so the offline harness can run the same code against fake maps:
 *  1. trec_deltas_extract(): ELF file -> sorted list of (address, rule).
 *  2. trec_delta_store_load(): intern rules, allocate a range of the global
 *     stack_deltas array, write per-page entries, through sink callbacks
 *     (real BPF maps in trecord, plain arrays in the harness).
 */
#ifndef TREC_UNWIND_TABLES_H
#define TREC_UNWIND_TABLES_H

#include <stddef.h>
#include <stdint.h>
#include "trec_types.h"

/* One rule, valid from addr until the next entry's addr. */
struct trec_delta_entry {
	uint64_t addr;   /* ELF vaddr */
	uint16_t command; /* 0: use info; else TREC_UNWIND_COMMAND | enum trec_unwind_command */
	struct trec_unwind_info info;
};

struct trec_file_deltas {
	size_t num;
	struct trec_delta_entry *entries; /* sorted by addr, merged */
	/* What extraction saw, for logs and the recording's metrics. */
	size_t fdes, unsupported_rules;
};

/* Extracts deltas from the ELF file at path. 0 or negative errno. */
int trec_deltas_extract(const char *path, struct trec_file_deltas *out);
void trec_file_deltas_free(struct trec_file_deltas *d);

/* Where the store writes. Each returns 0 or a negative errno. */
struct trec_delta_sink_ops {
	int (*set_unwind_info)(void *ctx, uint32_t idx, const struct trec_unwind_info *ui);
	int (*set_deltas)(void *ctx, uint32_t first, const struct trec_stack_delta *d, uint32_t n);
	int (*set_page)(void *ctx, const struct trec_delta_page_key *k,
			const struct trec_delta_page_value *v);
	int (*delete_page)(void *ctx, const struct trec_delta_page_key *k);
};

struct trec_delta_store;

struct trec_delta_store *trec_delta_store_new(const struct trec_delta_sink_ops *ops, void *ctx);
/* Loads a file's deltas once per file id; a second call is a no-op (0). */
int trec_delta_store_load(struct trec_delta_store *s, uint64_t file_id,
			  const struct trec_file_deltas *d);
int trec_delta_store_has(const struct trec_delta_store *s, uint64_t file_id);
/* Lowers the capacities (0 keeps one), to test -ENOSPC without filling
 * the real maps. Call before the first load. */
void trec_delta_store_set_limits(struct trec_delta_store *s, uint32_t max_deltas,
				 uint32_t max_infos, uint32_t max_pages);
/* Usage, for the summary and for bounded-growth tests. */
void trec_delta_store_usage(const struct trec_delta_store *s, uint32_t *deltas_used,
			    uint32_t *infos_used, uint32_t *pages_used, uint32_t *files);
void trec_delta_store_free(struct trec_delta_store *s);

#endif /* TREC_UNWIND_TABLES_H */
