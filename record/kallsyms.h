/* SPDX-License-Identifier: MIT */
/*
 * A snapshot of the kernel's text symbols (/proc/kallsyms, which also
 * lists module symbols with their module name) for the KSYMS record, so
 * the report can name kernel frames on any host, after modules unload.
 */
#ifndef TREC_KALLSYMS_H
#define TREC_KALLSYMS_H

#include <stddef.h>
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

#endif /* TREC_KALLSYMS_H */
