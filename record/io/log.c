// SPDX-License-Identifier: MIT
#include <stdarg.h>
#include <stdio.h>
#include "record/io/log.h"

void trec_vlog(bool verbose, const char *fmt, ...)
{
	va_list ap;

	if (!verbose)
		return;
	va_start(ap, fmt);
	/* one fprintf per line, so threads' lines do not interleave */
	char line[1024];

	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(stderr, "trecord: %s\n", line);
}
