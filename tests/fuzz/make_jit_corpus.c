// SPDX-License-Identifier: MIT
/*
 * Writes the seed corpora of the JIT parser fuzz targets: perf map lines
 * of each producer and jitdump files in both byte orders (mode byte 0: no
 * filter; 1: a filter of 64 bytes of pcs).
 *
 *   make_jit_corpus PERFMAP_DIR JITDUMP_DIR
 */
#include <errno.h>
#include <stdio.h>

#include "jitdump_builder.h"

static int put_seed(const char *dir, const char *name, uint8_t mode, const void *p, size_t n)
{
	static const uint64_t pcs[8] = { 0x1004, 0x2010, 0x3000, 0x7f0000001010,
					 0x7f0000002004, 0x7f0000003008, 0x7f3529fcf760, 0 };
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	fputc(mode, f);
	if (mode & 1)
		fwrite(pcs, 1, sizeof(pcs), f);
	fwrite(p, 1, n, f);
	return fclose(f);
}

int main(int argc, char **argv)
{
	static const char *const maps[] = {
		"7f0000001000 40 LazyCompile:*fib /app/fib.js:3\n"
		"7f0000002000 100 Builtin:ArgumentsAdaptorTrampoline\n",
		"0x00007f0000002000 0x0000000000000100 java.lang.String::hashCode()\n"
		"0x00007f0000003000 0x0000000000000040 Interpreter\n",
		"7f3529fcf759 b py::compute:/srv/app.py\n7f3529fcf764 b py::<module>:/srv/app.py\n",
		"1000 10 a\n1000 20 b\r\n\n2000 zz bad\n3000 8 cut",
	};
	char name[64];
	int err = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: %s PERFMAP_DIR JITDUMP_DIR\n", argv[0]);
		return 2;
	}
	for (unsigned i = 0; i < sizeof(maps) / sizeof(maps[0]); i++)
		for (uint8_t mode = 0; mode < 2; mode++) {
			snprintf(name, sizeof(name), "map%u-%u", i, mode);
			err |= put_seed(argv[1], name, (uint8_t)(mode | 0x80), maps[i], strlen(maps[i]));
		}
	for (int swap = 0; swap < 2; swap++)
		for (uint8_t mode = 0; mode < 2; mode++) {
			struct jb b = { .swap = swap };

			jb_good(&b);
			snprintf(name, sizeof(name), "dump-%s-%u", swap ? "be" : "le", mode);
			err |= put_seed(argv[2], name, mode, b.p, b.len);
			free(b.p);
		}
	struct jb b = { 0 };
	jb_header(&b, 40, TREC_JITDUMP_FLAG_ARCH_TIMESTAMP);
	jb_load(&b, 5, 0x1000, 0x10, 1, "tsc", 3);
	jb_move(&b, 6, 0x1000, 0x2000, 0x10, 1);
	err |= put_seed(argv[2], "dump-tsc", 0, b.p, b.len);
	free(b.p);
	return err ? 1 : 0;
}
