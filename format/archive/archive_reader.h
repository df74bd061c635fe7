/* SPDX-License-Identifier: MIT */
/*
 * Symbol archives, the decoder side: parse the archive a SYMTAB record
 * carries (every byte is treated as hostile) and answer "what is at this
 * ELF vaddr": function, offset, source line and the inlined-call chain.
 * Layout: FORMAT.md, "Embedded symbol archives (SYMTAB records)".
 */
#ifndef TREC_ARCHIVE_READER_H
#define TREC_ARCHIVE_READER_H

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

#endif /* TREC_ARCHIVE_READER_H */
