// SPDX-License-Identifier: MIT
/* Seed corpus for fuzz_archive: real archives of the given files at every level. */
#include <stdio.h>
#include <stdlib.h>

#include "record/archive/archive.h"

int main(int argc, char **argv)
{
	int written = 0;
	for (int i = 2; i < argc; i++)
		for (int level = TREC_ARCHIVE_SYMBOLS; level <= TREC_ARCHIVE_FULL; level++) {
			uint8_t *p;
			size_t n;
			if (trec_archive_build(argv[i], NULL, 0, level, &p, &n, NULL))
				continue;
			char path[4096];
			snprintf(path, sizeof(path), "%s/seed-%d-%d", argv[1], i, level);
			FILE *f = fopen(path, "w");
			if (f && fwrite(p, 1, n, f) == n)
				written++;
			if (f)
				fclose(f);
			free(p);
		}
	return written ? 0 : 1;
}
