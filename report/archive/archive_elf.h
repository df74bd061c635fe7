/* SPDX-License-Identifier: MIT */
/* An archive written back as an ELF debug file (archive_elf.c). */
#ifndef RP_ARCHIVE_ELF_H
#define RP_ARCHIVE_ELF_H

#include <stddef.h>
#include <stdint.h>

#include "format/archive/archive_reader.h"

/* "DIR/.build-id/xx/yyyy.debug" for the archive's build-id, or for an
 * archive without one "DIR/file-<id>.debug". -ENAMETOOLONG if it does not fit. */
int trec_archive_debug_path(const struct trec_archive *a, uint64_t file_id, const char *dir,
			    char *out, size_t outlen);
/* Writes the archive as a minimal ELF debug file at path (creating its
 * directories): ELF header, .note.gnu.build-id, a NOBITS .text spanning the
 * symbols, .symtab, .strtab. 0 or negative errno, message in err. */
int trec_archive_write_elf(const struct trec_archive *a, const char *path, char *err,
			   size_t errlen);
/* The same from tables the caller built or adjusted (perf's build-id cache
 * writes ET_DYN stand-ins and synthetic files: perf_buildid_cache.c). */
int trec_archive_tables_write_elf(const struct trec_arc_tables *t, const char *path, char *err,
				  size_t errlen);

#endif /* RP_ARCHIVE_ELF_H */
