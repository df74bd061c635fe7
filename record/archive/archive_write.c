// SPDX-License-Identifier: MIT
/*
 * trecord's end of recording: one archive per file that samples touched,
 * written as SYMTAB records (split in parts of at most TREC_ARC_PART_MAX).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/archive/archive.h"
#include "record/archive/symbol_cache.h"
#include "trec_format.h"

int trec_archive_write_parts(struct trec_writer *w, uint64_t file_id, const uint8_t *p,
			     size_t n, size_t part_max)
{
	if (!n || !part_max || part_max > TREC_ARC_PART_MAX)
		return -EINVAL;
	size_t count = (n + part_max - 1) / part_max;
	if (count > TREC_SYMTAB_MAX_PARTS)
		return -EFBIG;
	uint32_t nparts = (uint32_t)count;
	for (uint32_t i = 0; i < nparts; i++) {
		size_t off = (size_t)i * part_max;
		size_t len = n - off < part_max ? n - off : part_max;
		struct trec_blob b = {
			.file_id = file_id,
			.subtype = TREC_SYMTAB_SUBTYPE(i, nparts),
			.len = (uint32_t)len,
			.data = p + off,
		};
		int rc = trec_write_blob(w, TREC_REC_SYMTAB, &b);
		if (rc)
			return rc;
	}
	return 0;
}

/* Level sampled goes through the symbol cache when it can serve the file. */
static int build_one(const struct trec_archive_file *f, int level, uint8_t **p, size_t *n,
		     struct trec_archive_stats *st)
{
	int how, rc = -ENOENT;

	if (level != TREC_ARCHIVE_SAMPLED)
		return trec_archive_build(f->path, f->build_id, f->build_id_len, level, p, n, st);
	if (trec_symbol_cache_dir())
		rc = trec_symbol_cache_sampled(trec_symbol_cache_dir(), f->path, f->build_id,
					       f->build_id_len, f->addrs, f->naddrs, p, n, st,
					       &how);
	if (rc == -ENOENT)
		rc = trec_archive_build_sampled(f->path, f->build_id, f->build_id_len, f->addrs,
						f->naddrs, p, n, st);
	return rc;
}

int trec_archive_write_all(struct trec_writer *w, const struct trec_archive_file *files,
			   size_t num_files, int level, struct trec_archive_totals *tot)
{
	memset(tot, 0, sizeof(*tot));
	if (level == TREC_ARCHIVE_NONE)
		return 0;
	for (size_t i = 0; i < num_files; i++) {
		const struct trec_archive_file *f = &files[i];
		const char *name = f->name ? f->name : f->path;
		struct trec_archive_stats st;
		uint8_t *p = NULL;
		size_t n = 0;
		int rc = build_one(f, level, &p, &n, &st);
		if (rc) {
			fprintf(stderr, "trecord: warning: no embedded symbols for %s: %s\n", name,
				rc == -ESTALE ? "the file changed since it was mapped (build-id differs)" :
				rc == -ENOEXEC ? "not an ELF file libdwfl can read" : strerror(-rc));
			tot->failed++;
			continue;
		}
		rc = trec_archive_write_parts(w, f->file_id, p, n, TREC_ARC_PART_MAX);
		free(p);
		if (rc)
			return rc;
		tot->files++;
		tot->bytes += n;
		tot->build_ns += st.build_ns;
	}
	return 0;
}
