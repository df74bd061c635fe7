// SPDX-License-Identifier: MIT
/* Go's .gopclntab as a fallback of the local ELF source. */
#include "report/symbols/symsrc_gopclntab.h"

#include "format/gopclntab/gopclntab.h"

struct gopclntab *rp_gopclntab_open(Elf *elf)
{
	struct gopclntab *g = NULL;
	return elf && !gopclntab_open_elf(elf, &g) ? g : NULL;
}

void rp_gopclntab_close(struct gopclntab *g)
{
	gopclntab_free(g);
}

bool rp_gopclntab_lookup(struct gopclntab *g, uint64_t addr, struct rp_symres *res)
{
	struct gopcln_frame fr[GOPCLN_MAX_DEPTH + 1];
	struct gopcln_func f;
	long i = gopclntab_find(g, addr);
	int n = i < 0 ? 0 : gopclntab_lookup(g, addr, fr, GOPCLN_MAX_DEPTH + 1);
	if (n <= 0)
		return false;
	if (!res->symname && !gopclntab_func(g, (size_t)i, &f) && f.name) {
		res->symname = f.name;
		res->sym_start = f.entry;
	}
	/* Deeper chains keep their innermost frames and the function itself. */
	uint32_t m = (uint32_t)n < RP_MAX_INLINE ? (uint32_t)n : RP_MAX_INLINE;
	for (uint32_t k = 0; k < m; k++) {
		const struct gopcln_frame *s = &fr[k == m - 1 ? (uint32_t)n - 1 : k];
		res->lines[k].func = s->function;
		res->lines[k].file = s->file;
		res->lines[k].line = s->line;
	}
	res->nlines = m;
	return true;
}
