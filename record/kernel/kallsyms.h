/* SPDX-License-Identifier: MIT */
/*
 * A snapshot of the kernel's text symbols (/proc/kallsyms, which also
 * lists module symbols with their module name), taken when the first
 * kernel frame needs it (ksyms_lazy.h), so the report can name kernel frames on any host, after modules
 * unload. Only the symbols sampled stacks use go into the recording (all
 * 120k would be ~800 KB, ten times a short perf -g recording): see
 * trec_ksym_subset.
 */
#ifndef TREC_KALLSYMS_H
#define TREC_KALLSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "trec_format.h"

struct trec_kallsyms {
	char *buf;              /* the file's text; names point into it */
	struct trec_ksym *syms; /* sorted by address */
	size_t num;
};

/* Parses kallsyms text from f (text symbols only). 0 or a negative errno;
 * -EPERM when every address reads as 0 (kptr_restrict). */
int trec_kallsyms_read(FILE *f, struct trec_kallsyms *k);
int trec_kallsyms_load(struct trec_kallsyms *k); /* /proc/kallsyms */
void trec_kallsyms_free(struct trec_kallsyms *k);
/* Index of the symbol containing addr (the last one at or below it), or -1. */
long trec_kallsyms_find(const struct trec_kallsyms *k, uint64_t addr);

/* The symbols a recording needs: each one a kernel frame falls in, and
 * the one after it (its end). Grows as new stacks appear. */
struct trec_ksym_subset {
	uint8_t *used;    /* [num] flags over the snapshot */
	size_t num_used;  /* symbols flagged */
	size_t num_written; /* num_used when last written */
};

int trec_ksym_subset_init(struct trec_ksym_subset *u, const struct trec_kallsyms *k);
/* Flags the symbol holding addr (and, for a return address, the one
 * holding addr - 1), each with the next higher one, which ends it. */
void trec_ksym_subset_add(struct trec_ksym_subset *u, const struct trec_kallsyms *k,
			  uint64_t addr, bool return_address);
/* The flagged symbols, sorted, as a new array (caller frees). */
struct trec_ksym *trec_ksym_subset_list(const struct trec_ksym_subset *u,
					const struct trec_kallsyms *k, uint32_t *n);
void trec_ksym_subset_free(struct trec_ksym_subset *u);

#endif /* TREC_KALLSYMS_H */
