/* SPDX-License-Identifier: MIT */
/*
 * File identity for mapped files: the 64-bit file id that frames carry,
 * plus what the report needs to find symbols (build-id, .gnu_debuglink)
 * and what the loader needs to turn runtime addresses into ELF virtual
 * addresses (the PT_LOAD segments).
 *
 * The id is stable across processes and hosts: a hash of the GNU build-id
 * when the file has one, else a hash of its size and first and last 4 KiB.
 * Results are cached by (device, inode, mtime, size).
 */
#ifndef TREC_FILE_ID_H
#define TREC_FILE_ID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#define TREC_MAX_BUILD_ID 64
#define TREC_MAX_LOADS 16

struct trec_elf_load {
	uint64_t vaddr, offset, filesz;
	bool exec;
};

struct trec_file {
	uint64_t file_id; /* never 0: 0 marks frames without a file */
	uint64_t size, inode, mtime_ns;
	uint32_t dev_major, dev_minor;
	char *path;       /* the path it was first seen under */
	uint8_t build_id[TREC_MAX_BUILD_ID];
	uint32_t build_id_len;
	char *debuglink;  /* "" if none */
	bool is_elf;
	/* Has .eh_frame or .debug_frame: BPF walks it by stack deltas, else
	 * by frame pointer (JIT-like files without CFI). */
	bool has_cfi;
	/* Built by gc: stack deltas too, frame-pointer rules and Go's roots
	 * (TREC_UNWIND_GO). */
	bool is_go;
	struct trec_elf_load loads[TREC_MAX_LOADS];
	size_t num_loads;
};

/* Hash of a buffer, seeded (a MurmurHash64A-style mix). */
uint64_t trec_hash64(const void *data, size_t len, uint64_t seed);

/* The id of a file from its build-id, or (len 0) from its contents. */
uint64_t trec_file_id_from_build_id(const uint8_t *build_id, size_t len);
int trec_file_id_from_contents(int fd, uint64_t size, uint64_t *id);

/* Reads build-id, debuglink and PT_LOADs (is_elf false if not ELF) and
 * computes the id. path is copied. 0 or a negative errno. */
int trec_file_describe(int fd, const char *path, struct trec_file *f);
void trec_file_release(struct trec_file *f);

/*
 * The ELF virtual address that a mapping at file offset `offset` starts
 * at. Falls back to the offset itself for non-ELF files or offsets no
 * PT_LOAD covers (returns false then).
 */
bool trec_file_vaddr_of_offset(const struct trec_file *f, uint64_t offset, uint64_t *vaddr);

struct trec_file_cache;

struct trec_file_cache *trec_file_cache_new(void);
/* The cached description of the file behind fd (stat'ed as st), computed
 * on first use. The cache owns the result. 0 or a negative errno. */
int trec_file_cache_get(struct trec_file_cache *c, int fd, const struct stat *st,
			const char *path, struct trec_file **out);
void trec_file_cache_free(struct trec_file_cache *c);

#endif /* TREC_FILE_ID_H */
