// SPDX-License-Identifier: MIT
/* treport --extract-archive (see archive_extract.h). */
#include "report/archive/archive_extract.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "format/archive/archive_reader.h"
#include "report/archive/archive_store.h"
#include "report/archive/archive_elf.h"

int rp_extract_archives(const struct rp_model *m, const char *dir)
{
	struct trec_archive_store *st = m->archives;
	size_t n = st ? trec_archive_store_count(st) : 0, written = 0;
	char path[4096], err[512];
	int status = 0;

	if (!n) {
		fprintf(stderr, "treport: the recording has no embedded symbols "
			"(recorded with --no-archive?)\n");
		return -1;
	}
	if (mkdir(dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "treport: cannot create %s: %s\n", dir, strerror(errno));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/trec-archives.txt", dir);
	FILE *index = fopen(path, "w");
	if (!index) {
		fprintf(stderr, "treport: cannot write %s: %s\n", path, strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t id = trec_archive_store_file_id(st, i);
		const struct rp_file *f = rp_model_file(m, id);
		const char *name = f ? rp_str(&m->strs, f->path) : "";
		const struct trec_archive *a = trec_archive_store_get(st, id, name[0] ? name : "?");
		if (!a) {
			status = -1; /* the store said why */
			continue;
		}
		if (trec_archive_debug_path(a, id, dir, path, sizeof(path)) ||
		    trec_archive_write_elf(a, path, err, sizeof(err))) {
			fprintf(stderr, "treport: %s: %s\n", name[0] ? name : "?",
				err[0] ? err : "path too long");
			status = -1;
			continue;
		}
		const struct trec_arc_tables *t = trec_archive_tables(a);
		for (unsigned k = 0; k < t->build_id_len; k++)
			fprintf(index, "%02x", t->build_id[k]);
		fprintf(index, "%s %016" PRIx64 " %s\n", t->build_id_len ? "" : "-", id, name);
		written++;
	}
	if (fclose(index)) {
		fprintf(stderr, "treport: writing %s/trec-archives.txt: %s\n", dir, strerror(errno));
		status = -1;
	}
	if (!status) /* (else each failure said so) */
		fprintf(stderr, "treport: wrote %zu debug files to %s/.build-id/ (index: "
			"%s/trec-archives.txt)\n", written, dir, dir);
	return status;
}
