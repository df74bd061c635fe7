/* SPDX-License-Identifier: MIT */
/*
 * Interning of keys of up to three u64s: key -> dense index, for the
 * tables the export formats build (perf.data maps and DSOs, the Firefox
 * Profiler's frames, funcs and stacks).
 */
#ifndef RP_KEYTAB_H
#define RP_KEYTAB_H

#include <stdbool.h>
#include <stdint.h>

#include "report/util.h"

struct rp_keytab {
	struct trec_itab t;
	uint64_t *k; /* 3 per entry */
	size_t n, cap;
};

/* The index of (a, b, c), or TREC_ITAB_NONE. */
uint32_t rp_keytab_find(const struct rp_keytab *kt, uint64_t a, uint64_t b, uint64_t c);
/* The index of (a, b, c), added when absent (*added says so; may be NULL). */
uint32_t rp_keytab_get(struct rp_keytab *kt, uint64_t a, uint64_t b, uint64_t c, bool *added);
void rp_keytab_free(struct rp_keytab *kt);

#endif /* RP_KEYTAB_H */
