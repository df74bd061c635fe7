// SPDX-License-Identifier: MIT
/* The frame label all interpreter backends share; see interp.h. */
#include <stdio.h>
#include <string.h>
#include "report/interp/interp.h"

int rp_interp_label(char *buf, size_t len, const char *lang, uint64_t file_id,
		    const struct rp_interp_sym *sym, const char *no_line)
{
	const char *base;

	if (!sym)
		return snprintf(buf, len, "[%s 0x%llx]", lang, (unsigned long long)file_id);
	base = strrchr(sym->file, '/');
	base = base ? base + 1 : sym->file;
	if (sym->line < 0 && no_line)
		return snprintf(buf, len, "%s (%s%s)", sym->function, base, no_line);
	return snprintf(buf, len, "%s (%s:%d)", sym->function, base, sym->line);
}
