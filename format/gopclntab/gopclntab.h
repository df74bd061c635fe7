/* SPDX-License-Identifier: MIT */
/*
 * Go's function table, .gopclntab (layouts of Go 1.16 and later): what the
 * Go runtime keeps for its own tracebacks, so it survives stripping
 * (-ldflags='-s -w') when .symtab and DWARF are gone. It names every Go
 * function and maps each pc to file:line and to the calls inlined there.
 *
 * The bytes are whatever binary the user ran: every offset, count and
 * varint is bounded, a damaged part is an error, and nothing is read
 * outside the memory the caller handed in.
 */
#ifndef TREC_RECORD_ARCHIVE_GOPCLNTAB_H
#define TREC_RECORD_ARCHIVE_GOPCLNTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <gelf.h>

/* Header magics (the u32 at offset 0, little-endian). */
#define GOPCLN_MAGIC_116 0xfffffffau /* Go 1.16, 1.17 */
#define GOPCLN_MAGIC_118 0xfffffff0u /* Go 1.18, 1.19 */
#define GOPCLN_MAGIC_120 0xfffffff1u /* Go 1.20 and later */

/* Inline chains deeper than this are refused (as the archive's limit). */
#define GOPCLN_MAX_DEPTH 64u
/* Longest name or path handed out. */
#define GOPCLN_MAX_STRING 65536u

/* Part of the file's memory image: what the bytes at vaddr are. */
struct gopcln_region {
	uint64_t vaddr;
	const uint8_t *data;
	size_t len;
	bool writable; /* where Go keeps runtime.firstmoduledata */
};

/* Everything the parser may read. The table itself must lie in a region. */
struct gopcln_image {
	const struct gopcln_region *regions;
	size_t nregions;
	/* Start of .text, used when neither the header nor the module data
	 * give the base of function offsets (Go 1.26 zeroes the header's). */
	uint64_t text_hint;
};

struct gopclntab;

/*
 * Parses the table at [vaddr, vaddr + len) of img. The regions' bytes must
 * outlive the result (names point into them); the region array is copied.
 * Returns 0, -ENOENT (no known magic), -EBADMSG (malformed) or -ENOMEM.
 */
int gopclntab_parse(const struct gopcln_image *img, uint64_t vaddr, size_t len,
		    struct gopclntab **out);

/*
 * Finds and parses the table of an ELF file: section .gopclntab (or PIE's
 * .data.rel.ro.gopclntab), else the runtime.pclntab symbol, else a scan of
 * the read-only segments for the header. elf must outlive the result.
 * -ENOENT if the file has none, else as gopclntab_parse.
 */
int gopclntab_open_elf(Elf *elf, struct gopclntab **out);
void gopclntab_free(struct gopclntab *g);

/* 116, 118 or 120: the layout (magic) the table has. */
int gopclntab_layout(const struct gopclntab *g);
size_t gopclntab_num_funcs(const struct gopclntab *g);
/* [lo, hi): the Go text the functions cover. */
void gopclntab_text_range(const struct gopclntab *g, uint64_t *lo, uint64_t *hi);
/* Whether inlined calls can be read: Go 1.18+ keeps the inline trees at
 * offsets from moduledata.gofunc, which must have been found. */
bool gopclntab_has_inline_trees(const struct gopclntab *g);

struct gopcln_func {
	uint64_t entry, end; /* [entry, end): up to the next function */
	const char *name;    /* NULL if the name is damaged */
	uint8_t flag;        /* GOPCLN_FLAG_*: 0 before Go 1.17 */
};

/* The runtime's funcFlag bits (runtime/symtab.go from Go 1.17,
 * internal/abi/symtab.go from 1.21), in the byte after funcID, the third
 * from the end of _func's fixed part in every layout (Go 1.16 has a pad
 * byte there, 0). Go's own traceback ends a stack at a TOPFRAME function
 * (goexit, rt0_go, mstart) and, in profiles, at an SPWRITE one (a write to
 * SP the pcsp table cannot describe: asmcgocall, gogo, the stack
 * switches), unless it is the innermost frame of a GC scan. */
#define GOPCLN_FLAG_TOPFRAME 0x1u
#define GOPCLN_FLAG_SPWRITE 0x2u
#define GOPCLN_FLAG_ASM 0x4u

/* Function i (sorted by entry). 0, or -EBADMSG for a damaged entry. */
int gopclntab_func(const struct gopclntab *g, size_t i, struct gopcln_func *f);
/* Index of the function holding pc, or -1. */
long gopclntab_find(const struct gopclntab *g, uint64_t pc);

/* What one function's tables hold, in pc order. */
struct gopcln_visitor {
	void *ctx;
	/* A line row: from addr on, file:line; file NULL means unknown from
	 * addr (a gap). The walk ends with a gap at the function's end. */
	void (*line)(void *ctx, uint64_t addr, const char *file, uint32_t line);
	/* An inlined call [lo, hi) at depth (1 = inlined into the function
	 * itself), named name, called from call_file:call_line in its caller.
	 * Adjacent pieces of one call are merged. May be NULL. */
	void (*inlined)(void *ctx, unsigned depth, uint64_t lo, uint64_t hi, const char *name,
			const char *call_file, uint32_t call_line);
};

/*
 * Walks function i's line and inline tables. 0, -EBADMSG (damaged tables:
 * what was visited before stays valid), -E2BIG (the table has used up its
 * decoding budget, a bound on hostile input) or -ENOMEM.
 */
int gopclntab_walk_func(struct gopclntab *g, size_t i, const struct gopcln_visitor *v);

/*
 * Function i's pcsp table, in pc order: from lo to hi, sp is sp_delta
 * bytes below its value at the entry (the return address at sp +
 * sp_delta). The runs are contiguous from the entry on; the table may end
 * before the next function's entry (the linker's int3 padding). 0, or
 * -EBADMSG (no or damaged table) or -ENOMEM.
 */
int gopclntab_walk_sp(struct gopclntab *g, size_t i,
		      void (*run)(void *ctx, uint64_t lo, uint64_t hi, int32_t sp_delta), void *ctx);

/* One source-level frame. Strings point into the table. */
struct gopcln_frame {
	const char *function; /* NULL if unknown */
	const char *file;     /* NULL if unknown */
	uint32_t line;        /* 0 if unknown */
};

/*
 * The frames at pc, innermost first (as addr2line -i prints them): the
 * inlined calls, then the function holding pc. Returns how many were
 * filled (at most max), 0 if no function holds pc, or a negative errno.
 */
int gopclntab_lookup(struct gopclntab *g, uint64_t pc, struct gopcln_frame *frames,
		     unsigned max);

#endif /* TREC_RECORD_ARCHIVE_GOPCLNTAB_H */
