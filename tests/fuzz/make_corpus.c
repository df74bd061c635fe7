// SPDX-License-Identifier: MIT
/*
 * Writes the reader fuzz target's seed corpus: the format test fixture as
 * whole files (mode byte 0: default, small and tiny chunks, a truncated
 * copy) and as bare chunk bodies (mode byte 1), one file per seed.
 *
 *   make_corpus DIR
 */
#include <errno.h>
#include <zstd.h>

#include "format_fixture.h"

static int put(const char *dir, const char *name, uint8_t mode, const uint8_t *p, size_t n)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	fputc(mode, f);
	fwrite(p, 1, n, f);
	return fclose(f);
}

static uint32_t le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

int main(int argc, char **argv)
{
	static const size_t chunks[] = { 0, 300, 64 };
	char name[64];
	int err = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	fx_init();
	for (unsigned i = 0; i < sizeof(chunks) / sizeof(chunks[0]); i++) {
		struct trec_writer_opts o = { .chunk_bytes = chunks[i] };
		size_t len = 0, nbody = 0;
		uint8_t *f = fx_write_mem(&o, &len);

		if (!f)
			return 1;
		snprintf(name, sizeof(name), "file-chunk%zu", chunks[i]);
		err |= put(argv[1], name, 0, f, len);
		if (i == 1) {
			snprintf(name, sizeof(name), "file-chunk%zu-truncated", chunks[i]);
			err |= put(argv[1], name, 0, f, len - 11);
		}
		/* Bodies of the chunks, decompressed (FORMAT.md §3 layout). */
		for (size_t off = le32(f + 12); off + 32 <= len && nbody < 4; nbody++) {
			uint32_t clen = le32(f + off + 8), ulen = le32(f + off + 12);
			uint8_t *body = malloc(ulen ? ulen : 1);

			if (body && ZSTD_decompress(body, ulen, f + off + 32, clen) == ulen) {
				snprintf(name, sizeof(name), "body-chunk%zu-%zu", chunks[i], nbody);
				err |= put(argv[1], name, 1, body, ulen);
			}
			free(body);
			off += 32 + clen;
		}
		free(f);
	}
	return err ? 1 : 0;
}
