/* SPDX-License-Identifier: MIT */
/*
 * Symbol archives, the decoder side: parse the archive a SYMTAB record
 * carries (every byte is treated as hostile) and answer "what is at this
 * ELF vaddr": function, offset, source line and the inlined-call chain.
 * Layout: FORMAT.md, "Embedded symbol archives (SYMTAB records)".
 */
#ifndef TREC_REPORT_ARCHIVE_READER_H
#define TREC_REPORT_ARCHIVE_READER_H

#include <stddef.h>
#include <stdint.h>

#include "format/archive/trec_archive.h"

struct trec_archive;

/*
 * Parses and validates all of data; the result does not point into data.
 * Returns 0, or -EBADMSG (malformed: message in err), -EPROTONOSUPPORT
 * (a major version this reader does not know) or -ENOMEM.
 */
int trec_archive_parse(const uint8_t *data, size_t len, struct trec_archive **out,
		       char *err, size_t errlen);
void trec_archive_free(struct trec_archive *a);
const struct trec_arc_tables *trec_archive_tables(const struct trec_archive *a);

/* One source-level frame of an address. */
struct trec_arc_frame {
	const char *function; /* NULL when unknown */
	const char *file;     /* NULL when unknown */
	uint32_t line;        /* 0 when unknown */
};

/*
 * Frames are innermost first, as addr2line -i and perf callchains print
 * them: frames[0] is the innermost inlined function at the line-table
 * location, frames[num_frames - 1] the function that owns the address (the
 * ELF symbol), at the call site of its outermost inlined call.
 */
struct trec_arc_result {
	const char *symbol;      /* owning ELF symbol, NULL if none covers vaddr */
	uint64_t sym_addr;
	uint64_t offset;         /* vaddr - sym_addr */
	unsigned num_frames;     /* >= 1 */
	struct trec_arc_frame frames[TREC_ARC_MAX_DEPTH + 1];
};

/* Fills r for vaddr. Returns 1 if anything (symbol or line) is known. */
int trec_archive_lookup(const struct trec_archive *a, uint64_t vaddr,
			struct trec_arc_result *r);

/* The symbol covering vaddr (NULL if none); *offset set when found. */
const struct trec_arc_sym *trec_archive_symbol(const struct trec_archive *a, uint64_t vaddr,
					       uint64_t *offset);

/* ---- the archives of a recording -------------------------------------------- */

struct trec_blob;
struct trec_archive_store;
typedef void (*trec_archive_warn_fn)(void *ctx, const char *msg);

/* warn gets one message per problem (NULL: stderr). */
struct trec_archive_store *trec_archive_store_new(trec_archive_warn_fn warn, void *ctx);
void trec_archive_store_free(struct trec_archive_store *s);
/* Takes (a copy of) one SYMTAB record's blob. 0 or -ENOMEM; malformed part
 * numbers are warned about and dropped. */
int trec_archive_store_add(struct trec_archive_store *s, const struct trec_blob *b);
/* The parsed archive of file_id; NULL if there is none or it is incomplete
 * or damaged (warned about once, naming name). Parsed on first use. */
const struct trec_archive *trec_archive_store_get(struct trec_archive_store *s,
						  uint64_t file_id, const char *name);
/* The k-th archive of file_id (several recordings may each bring one;
 * identical ones are kept once), as trec_archive_store_get. */
const struct trec_archive *trec_archive_store_get_nth(struct trec_archive_store *s,
						      uint64_t file_id, const char *name, size_t k);
/* How many archives of file_id there are (usable or not). */
size_t trec_archive_store_archives(const struct trec_archive_store *s, uint64_t file_id);
/* The file ids that have an archive, in the order they were first seen. */
size_t trec_archive_store_count(const struct trec_archive_store *s);
uint64_t trec_archive_store_file_id(const struct trec_archive_store *s, size_t i);

/* ---- extraction ------------------------------------------------------------ */

/* "DIR/.build-id/xx/yyyy.debug" for the archive's build-id, or for an
 * archive without one "DIR/file-<id>.debug". -ENAMETOOLONG if it does not fit. */
int trec_archive_debug_path(const struct trec_archive *a, uint64_t file_id, const char *dir,
			    char *out, size_t outlen);
/* Writes the archive as a minimal ELF debug file at path (creating its
 * directories): ELF header, .note.gnu.build-id, a NOBITS .text spanning the
 * symbols, .symtab, .strtab. 0 or negative errno, message in err. */
int trec_archive_write_elf(const struct trec_archive *a, const char *path, char *err,
			   size_t errlen);

#endif /* TREC_REPORT_ARCHIVE_READER_H */
