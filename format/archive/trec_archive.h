/* SPDX-License-Identifier: MIT */
/*
 * Embedded symbol archives (FORMAT.md, "Embedded symbol archives (SYMTAB
 * records)"): the byte layout constants and the decoded tables shared by
 * the encoder (archive_encode.c, fed by record/archive/) and the decoder
 * (archive_parse.c, archive_lookup.c).
 *
 * An archive describes one ELF file by its ELF virtual addresses: function
 * symbols, and optionally DWARF line rows and inlined-call ranges, with
 * every string (names, source paths) in one sorted string table.
 */
#ifndef TREC_ARCHIVE_H
#define TREC_ARCHIVE_H

#include <stddef.h>
#include <stdint.h>

#include "upper_bound.h"

#define TREC_ARC_MAGIC "TRSA"
#define TREC_ARC_MAGIC_LEN 4
#define TREC_ARC_VERSION_MAJOR 1
#define TREC_ARC_VERSION_MINOR 0

/* Section tags. A decoder skips tags it does not know. */
enum trec_arc_section {
	TREC_ARC_SEC_STRINGS = 1,
	TREC_ARC_SEC_SYMBOLS = 2,
	TREC_ARC_SEC_LINES = 3,
	TREC_ARC_SEC_INLINES = 4,
	TREC_ARC_SEC_ELF_LAYOUT = 5,
	TREC_ARC_SEC_MAX = 5,
};

/* What the archive was derived from (header "sources" bits). */
enum trec_arc_source {
	TREC_ARC_SRC_SYMTAB = 1,     /* .symtab of the file itself */
	TREC_ARC_SRC_DYNSYM = 2,     /* only .dynsym */
	TREC_ARC_SRC_MINIDEBUG = 4,  /* .gnu_debugdata (MiniDebugInfo) */
	TREC_ARC_SRC_DEBUGFILE = 8,  /* a separate debug file (build-id/debuglink) */
	TREC_ARC_SRC_DWARF = 16,     /* DWARF lines/inlines were available */
	TREC_ARC_SRC_GOPCLNTAB = 32, /* Go's .gopclntab: symbols of a stripped Go
				      * binary and/or the Go text's lines/inlines */
};

/* Levels: what trecord embeds (--archive=...). */
enum trec_archive_level {
	TREC_ARCHIVE_NONE = 0,
	TREC_ARCHIVE_SYMBOLS = 1,    /* function symbols only */
	TREC_ARCHIVE_FULL = 2,       /* symbols + DWARF lines + inlines */
	TREC_ARCHIVE_SAMPLED = 3,    /* symbols; lines + inlines of sampled functions */
};

/* SYMTAB record subtype: low 8 bits kind, then part index and count, so an
 * archive larger than TREC_ARC_PART_MAX travels in several records. */
#define TREC_SYMTAB_KIND_ARCHIVE 1u
#define TREC_SYMTAB_SUBTYPE(part, nparts) \
	(TREC_SYMTAB_KIND_ARCHIVE | ((uint32_t)(part) << 8) | ((uint32_t)(nparts) << 20))
#define TREC_SYMTAB_KIND(st) ((st) & 0xffu)
#define TREC_SYMTAB_PART(st) (((st) >> 8) & 0xfffu)
#define TREC_SYMTAB_NPARTS(st) (((st) >> 20) & 0xfffu)
#define TREC_ARC_PART_MAX (16u << 20)
#define TREC_SYMTAB_MAX_PARTS 0xfffu

/* Limits a decoder enforces. */
#define TREC_ARC_MAX_BUILD_ID 64u
#define TREC_ARC_MAX_STRING (1u << 16)
#define TREC_ARC_MAX_DEPTH 64u
#define TREC_ARC_MAX_SECTIONS 1024u
#define TREC_ARC_MAX_SEGMENTS 64u
#define TREC_ARC_MAX_BYTES ((uint64_t)TREC_ARC_PART_MAX * TREC_SYMTAB_MAX_PARTS)

/* Symbol binding as stored (2 bits). */
enum trec_arc_bind {
	TREC_ARC_BIND_LOCAL = 0,
	TREC_ARC_BIND_GLOBAL = 1,
	TREC_ARC_BIND_WEAK = 2,
};

/* ---- decoded tables ------------------------------------------------------ */

struct trec_arc_sym {
	uint64_t addr, size;  /* ELF vaddr; size 0 only for a last unsized symbol */
	uint32_t name;        /* string index */
	uint8_t bind;         /* enum trec_arc_bind */
};

/* A line row holds from addr up to the next row's addr. file 0 marks a gap
 * (end of a DWARF sequence); otherwise file is string index + 1. */
struct trec_arc_line {
	uint64_t addr;
	uint32_t file;
	uint32_t line;
};

/* One range of an inlined call at some depth (1 = inlined directly into
 * the function that owns the address). call_file is string index + 1 or 0. */
struct trec_arc_inline {
	uint64_t lo, hi;      /* [lo, hi) */
	uint32_t name;        /* string index of the inlined function */
	uint32_t call_file;
	uint32_t call_line;
};

/* An SHF_ALLOC section of the file, so an extracted debug file can lay out
 * its (empty) sections where the original's are, as gdb expects. */
struct trec_arc_elfsec {
	uint32_t name;        /* string index */
	uint32_t type;        /* sh_type */
	uint64_t flags;       /* sh_flags */
	uint64_t addr, size;
};

/* A PT_LOAD segment of the file (the same purpose). */
struct trec_arc_segment {
	uint32_t flags;       /* p_flags */
	uint64_t vaddr, memsz, align;
};

/* Ranges of one depth, sorted by lo and not overlapping. */
struct trec_arc_depth {
	size_t num;
	struct trec_arc_inline *v;
};

struct trec_arc_tables {
	uint16_t e_machine;
	uint8_t elf_class;   /* ELFCLASS32 / ELFCLASS64 */
	uint8_t e_type;      /* ET_EXEC / ET_DYN */
	uint32_t sources;    /* enum trec_arc_source bits */
	uint32_t level;      /* enum trec_archive_level the tables were built at */
	uint64_t load_vaddr; /* lowest PT_LOAD p_vaddr, aligned down to its p_align */
	uint64_t entry;      /* e_entry (gdb matches debug-file sections relative to it) */
	uint8_t build_id_len;
	uint8_t build_id[TREC_ARC_MAX_BUILD_ID];

	size_t num_strings;
	const char **strings;  /* sorted, unique, NUL-terminated */

	size_t num_syms;
	struct trec_arc_sym *syms;   /* sorted by addr, unique addr */

	size_t num_lines;
	struct trec_arc_line *lines; /* sorted by addr, unique addr */

	size_t num_depths;
	struct trec_arc_depth *depths; /* depths[0] is depth 1 */

	size_t num_sections;
	struct trec_arc_elfsec *sections; /* in section header order */
	size_t num_segments;
	struct trec_arc_segment *segments; /* PT_LOADs in program header order */
};

/* ---- the lookup rule both sides share ---------------------------------- */

/* How far back past nested symbols (assembly labels inside a function) to
 * look for one that covers the address. */
#define TREC_ARC_ENCLOSING_SCAN 8

/* The symbol of t (finalized: sorted by addr) that holds vaddr, or NULL.
 * treport names addresses by it; a level-sampled archive keeps the lines
 * of the symbols it picks for the sampled addresses. */
static inline const struct trec_arc_sym *trec_arc_symbol_holding(const struct trec_arc_tables *t,
								 uint64_t vaddr)
{
	size_t i = TREC_UPPER_BOUND(t->syms, t->num_syms, addr, vaddr);
	for (size_t k = i; k > 0 && k + TREC_ARC_ENCLOSING_SCAN > i; k--)
		if (vaddr - t->syms[k - 1].addr < t->syms[k - 1].size)
			return &t->syms[k - 1];
	return NULL;
}

/* The encoder (archive_encode.c): serializes canonical tables (sorted as
 * trec_arc_tables documents) into *out (malloc'd, the caller's). -EINVAL if
 * they are not canonical, -ENOMEM, -EFBIG past the format's limit. */
int trec_archive_encode(const struct trec_arc_tables *t, uint8_t **out, size_t *out_len);

#endif /* TREC_ARCHIVE_H */
