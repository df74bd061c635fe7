/* SPDX-License-Identifier: MIT */
/*
 * The little ELF access CPython detection needs: symbols, reading
 * initialised data by virtual address (with R_X86_64_RELATIVE relocations
 * applied, so pointers in a shared library read as their link-time value),
 * and the file-offset -> vaddr step of the bias computation.
 */
#ifndef TREC_PYTHON_ELF_H
#define TREC_PYTHON_ELF_H

#include <stddef.h>
#include <stdint.h>
#include <gelf.h>

struct trec_pyelf_rel {
	uint64_t offset, addend;
};

struct trec_pyelf {
	int fd;
	Elf *elf;
	GElf_Ehdr ehdr;
	size_t num_phdrs;
	GElf_Phdr *phdrs;
	int rels_loaded;
	size_t num_rels;
	struct trec_pyelf_rel *rels; /* RELATIVE relocations, sorted by offset */
};

/* 0 or negative errno (-ENOEXEC: not a 64-bit ELF file). */
int trec_pyelf_open(struct trec_pyelf *e, const char *path);
void trec_pyelf_close(struct trec_pyelf *e);

/* Looks name up in .symtab, then .dynsym. 0 or -ENOENT. size may be NULL. */
int trec_pyelf_symbol(struct trec_pyelf *e, const char *name, uint64_t *addr, uint64_t *size);
/* Entries of a symbol or relocation section (entry size esize): its
 * sh_size / sh_entsize, but no more than its data holds (both are the
 * file's words; sh_entsize 1 would loop once per byte). */
static inline size_t trec_pyelf_entries(const GElf_Shdr *sh, const Elf_Data *d, size_t esize)
{
	size_t n = sh->sh_size / sh->sh_entsize;

	return n < d->d_size / esize ? n : d->d_size / esize;
}

/* Reads len bytes at vaddr from the PT_LOAD that holds them (bytes past
 * p_filesz read as zero). 0 or -EFAULT. */
int trec_pyelf_read(struct trec_pyelf *e, uint64_t vaddr, void *buf, size_t len);
/* A pointer-sized value at vaddr, as the dynamic loader would see it. */
int trec_pyelf_read_ptr(struct trec_pyelf *e, uint64_t vaddr, uint64_t *out);
/* A NUL-terminated string at vaddr; -ENAMETOOLONG if it does not fit. */
int trec_pyelf_read_str(struct trec_pyelf *e, uint64_t vaddr, char *buf, size_t len);

/* ELF vaddr that a mapping at file offset pgoff starts at. 0 or -ENOENT. */
int trec_pyelf_vaddr_of_offset(const struct trec_pyelf *e, uint64_t pgoff, uint64_t *vaddr);
/* 1 if vaddr lies in an executable PT_LOAD. */
int trec_pyelf_is_text(const struct trec_pyelf *e, uint64_t vaddr);

#endif /* TREC_PYTHON_ELF_H */
