// SPDX-License-Identifier: MIT
/*
 * libiberty's cplus_demangle rather than libstdc++'s __cxa_demangle: it
 * also decodes Rust (legacy and v0) and can leave out parameter lists
 * (DMGL_NO_OPTS), which keeps frame names short like perf's.
 */
#include "report/symbols/demangle.h"

#include <stdlib.h>
#include <string.h>
#include <libiberty/demangle.h>

int rp_demangle(const char *name, char *out, size_t outlen)
{
	if (!outlen)
		return 0;
	char *d = NULL;
	/* Only names that look mangled: plain C names must not be touched. */
	if (name[0] == '_' && (name[1] == 'Z' || name[1] == 'R'))
		d = cplus_demangle(name, DMGL_NO_OPTS);
	const char *src = d ? d : name;
	size_t n = strlen(src);
	if (n >= outlen)
		n = outlen - 1;
	memcpy(out, src, n);
	out[n] = 0;
	int demangled = d != NULL;
	free(d);
	return demangled;
}
