/* SPDX-License-Identifier: MIT */
/*
 * Symbol sources: where the names and lines of a file's addresses come
 * from. The symbolizer tries the sources in order for each file id and
 * keeps the first that opens (embedded SYMTAB data, issue 6, will be put
 * in front of the ELF sources); a source refuses a file whose build-id
 * differs from the recorded one.
 */
#ifndef RP_SYMSRC_H
#define RP_SYMSRC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RP_MAX_INLINE 32

/* What a source knows about the file it is asked to open. */
struct rp_symsrc_file {
	uint64_t file_id;
	const char *path;        /* as recorded */
	const char *debuglink;   /* "" if none */
	const uint8_t *build_id; /* NULL if none recorded */
	uint32_t build_id_len;
	uint64_t size, mtime_ns;
	const char *symfs;       /* prefix for path, or NULL */
	const char *const *debug_dirs; /* NULL-terminated, searched by build-id */
	struct trec_archive_store *archives; /* embedded symbols, or NULL */
};

/*
 * One address. lines[0] is the innermost (inlined) function, lines[n-1]
 * the function the address is in; each line is where that function was
 * executing. Strings belong to the source and stay valid until close.
 */
struct rp_symres {
	const char *symname; /* ELF symbol, possibly mangled; NULL if none */
	uint64_t sym_start;
	uint32_t nlines;
	struct {
		const char *func; /* possibly mangled */
		const char *file; /* NULL if unknown */
		uint32_t line;
	} lines[RP_MAX_INLINE];
};

enum rp_symsrc_open_result {
	RP_SYMSRC_OK = 0,
	RP_SYMSRC_MISSING = 1,  /* nothing for this file here */
	RP_SYMSRC_MISMATCH = 2, /* a file exists but its build-id differs */
};

struct rp_symsrc {
	const char *name;
	/* Fills *handle; on failure fills why with a reason. */
	int (*open)(const struct rp_symsrc_file *f, void **handle, char *why, size_t whylen);
	/* 0 on success (res filled, possibly with nothing known), < 0 error. */
	int (*lookup)(void *handle, uint64_t addr, struct rp_symres *res);
	void (*close)(void *handle);
};

/* The ELF sources of symbolize_elf.c: the recorded path, then debug files
 * found by build-id. */
extern const struct rp_symsrc rp_symsrc_elf_file;
extern const struct rp_symsrc rp_symsrc_elf_debug;
/* The symbols embedded in the recording (symsrc_embedded.c). */
extern const struct rp_symsrc rp_symsrc_embedded;

struct trec_archive_store;

/* The sources by kind (--symbol-source); the default order is this one. */
enum rp_source {
	RP_SOURCE_EMBEDDED = 0, /* the recording's SYMTAB records */
	RP_SOURCE_LOCAL,        /* the recorded path, if its build-id matches */
	RP_SOURCE_DEBUG,        /* DIR/.build-id/xx/yyyy.debug */
};
#define RP_MAX_SYMSRC 3

#endif /* RP_SYMSRC_H */
