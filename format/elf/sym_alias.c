// SPDX-License-Identifier: MIT
/* perf's choice among aliases at one address (elf_names.h). */
#include <string.h>

#include "format/archive/trec_archive.h"
#include "format/elf/elf_names.h"

uint8_t trec_sym_bind(int stb)
{
	switch (stb) {
	case STB_GLOBAL:
	case STB_GNU_UNIQUE:
		return TREC_ARC_BIND_GLOBAL;
	case STB_WEAK:
		return TREC_ARC_BIND_WEAK;
	default:
		return TREC_ARC_BIND_LOCAL;
	}
}

static size_t underscores(const char *s)
{
	size_t n = 0;
	while (s[n] == '_')
		n++;
	return n;
}

/* -1 if x's side wins, 1 if y's, 0 if undecided. */
static int prefer(int x, int y)
{
	return x && !y ? -1 : y && !x ? 1 : 0;
}

int trec_sym_alias_cmp(const struct trec_sym_alias *a, const struct trec_sym_alias *b)
{
	int r;
	if ((r = prefer(a->size != 0, b->size != 0)))
		return r;
	if ((r = prefer(a->bind != TREC_ARC_BIND_WEAK, b->bind != TREC_ARC_BIND_WEAK)))
		return r;
	if ((r = prefer(a->bind == TREC_ARC_BIND_GLOBAL, b->bind == TREC_ARC_BIND_GLOBAL)))
		return r;
	size_t ua = underscores(a->name), ub = underscores(b->name);
	if (ua != ub)
		return ua < ub ? -1 : 1;
	size_t la = strlen(a->name), lb = strlen(b->name);
	return la > lb ? -1 : la < lb;
}
