// SPDX-License-Identifier: MIT
/* ELF helpers for CPython detection; see python_elf.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "format/containers/vec.h"
#include "record/interp/python/python_elf.h"
#include "record/procs/open_regular.h"

#ifndef R_X86_64_RELATIVE
#define R_X86_64_RELATIVE 8
#endif

int trec_pyelf_open(struct trec_pyelf *e, const char *path)
{
	int err = -ENOEXEC;

	memset(e, 0, sizeof(*e));
	/* (a path the process named: regular files only, and no ELF file
	 * that makes libelf allocate per section by the million) */
	e->fd = trec_open_regular(path);
	if (e->fd < 0)
		return e->fd;
	if (elf_version(EV_CURRENT) == EV_NONE || trec_elf_headers_bounded(e->fd))
		goto fail;
	e->elf = elf_begin(e->fd, ELF_C_READ_MMAP, NULL);
	if (!e->elf || elf_kind(e->elf) != ELF_K_ELF || gelf_getclass(e->elf) != ELFCLASS64 ||
	    !gelf_getehdr(e->elf, &e->ehdr) || elf_getphdrnum(e->elf, &e->num_phdrs))
		goto fail;
	e->phdrs = calloc(e->num_phdrs ? e->num_phdrs : 1, sizeof(*e->phdrs));
	if (!e->phdrs) {
		err = -ENOMEM;
		goto fail;
	}
	for (size_t i = 0; i < e->num_phdrs; i++)
		if (!gelf_getphdr(e->elf, (int)i, &e->phdrs[i]))
			goto fail;
	return 0;
fail:
	trec_pyelf_close(e);
	return err;
}

void trec_pyelf_close(struct trec_pyelf *e)
{
	if (e->elf)
		elf_end(e->elf);
	if (e->fd >= 0)
		close(e->fd);
	free(e->phdrs);
	free(e->rels);
	memset(e, 0, sizeof(*e));
	e->fd = -1;
}

static int lookup_in(struct trec_pyelf *e, Elf64_Word type, const char *name,
		     uint64_t *addr, uint64_t *size)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(e->elf, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d)
			continue;
		size_t end = trec_pyelf_entries(&sh, d, sizeof(Elf64_Sym));

		for (size_t i = 0; i < end; i++) {
			GElf_Sym sym;
			const char *n;

			if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx == SHN_UNDEF)
				continue;
			n = elf_strptr(e->elf, sh.sh_link, sym.st_name);
			if (n && !strcmp(n, name)) {
				*addr = sym.st_value;
				if (size)
					*size = sym.st_size;
				return 0;
			}
		}
	}
	return -ENOENT;
}

int trec_pyelf_symbol(struct trec_pyelf *e, const char *name, uint64_t *addr, uint64_t *size)
{
	if (!lookup_in(e, SHT_SYMTAB, name, addr, size))
		return 0;
	return lookup_in(e, SHT_DYNSYM, name, addr, size);
}

int trec_pyelf_read(struct trec_pyelf *e, uint64_t vaddr, void *buf, size_t len)
{
	for (size_t i = 0; i < e->num_phdrs; i++) {
		const GElf_Phdr *p = &e->phdrs[i];
		uint64_t off, in_file;
		ssize_t n;

		if (p->p_type != PT_LOAD || vaddr < p->p_vaddr || len > p->p_memsz ||
		    vaddr - p->p_vaddr > p->p_memsz - len)
			continue;
		off = vaddr - p->p_vaddr;
		in_file = off < p->p_filesz ? p->p_filesz - off : 0;
		if (in_file > len)
			in_file = len;
		memset((char *)buf + in_file, 0, len - in_file);
		if (!in_file)
			return 0;
		n = pread(e->fd, buf, in_file, (off_t)(p->p_offset + off));
		return n == (ssize_t)in_file ? 0 : -EFAULT;
	}
	return -EFAULT;
}

static int rel_cmp(const void *a, const void *b)
{
	const struct trec_pyelf_rel *x = a, *y = b;

	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* Collects the RELATIVE relocations of the allocated RELA sections. */
static int load_rels(struct trec_pyelf *e)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t cap = 0;

	e->rels_loaded = 1;
	while ((scn = elf_nextscn(e->elf, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA ||
		    !(sh.sh_flags & SHF_ALLOC) || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d)
			continue;
		size_t end = trec_pyelf_entries(&sh, d, sizeof(Elf64_Rela));

		for (size_t i = 0; i < end; i++) {
			GElf_Rela r;

			if (!gelf_getrela(d, (int)i, &r) ||
			    GELF_R_TYPE(r.r_info) != R_X86_64_RELATIVE)
				continue;
			if (TREC_GROW(e->rels, cap, e->num_rels + 1, 1024))
				return -ENOMEM;
			e->rels[e->num_rels].offset = r.r_offset;
			e->rels[e->num_rels].addend = (uint64_t)r.r_addend;
			e->num_rels++;
		}
	}
	if (e->num_rels)
		qsort(e->rels, e->num_rels, sizeof(*e->rels), rel_cmp);
	return 0;
}

int trec_pyelf_read_ptr(struct trec_pyelf *e, uint64_t vaddr, uint64_t *out)
{
	struct trec_pyelf_rel key = { .offset = vaddr }, *r;
	int err;

	if (e->ehdr.e_type == ET_DYN) {
		if (!e->rels_loaded && (err = load_rels(e)))
			return err;
		r = e->num_rels ? bsearch(&key, e->rels, e->num_rels, sizeof(*r), rel_cmp) : NULL;
		if (r) {
			*out = r->addend;
			return 0;
		}
	}
	return trec_pyelf_read(e, vaddr, out, sizeof(*out));
}

int trec_pyelf_read_str(struct trec_pyelf *e, uint64_t vaddr, char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (trec_pyelf_read(e, vaddr + i, &buf[i], 1))
			return -EFAULT;
		if (!buf[i])
			return 0;
	}
	if (len)
		buf[len - 1] = 0;
	return -ENAMETOOLONG;
}

int trec_pyelf_vaddr_of_offset(const struct trec_pyelf *e, uint64_t pgoff, uint64_t *vaddr)
{
	for (size_t i = 0; i < e->num_phdrs; i++) {
		const GElf_Phdr *p = &e->phdrs[i];
		uint64_t first = p->p_offset & ~(uint64_t)0xfff;

		/* The mapping starts at the page that holds the segment start
		 * (p_offset need not be page aligned), or inside it. */
		if (p->p_type != PT_LOAD || pgoff < first || pgoff >= p->p_offset + p->p_filesz)
			continue;
		*vaddr = p->p_vaddr - p->p_offset + pgoff;
		return 0;
	}
	return -ENOENT;
}

int trec_pyelf_is_text(const struct trec_pyelf *e, uint64_t vaddr)
{
	for (size_t i = 0; i < e->num_phdrs; i++) {
		const GElf_Phdr *p = &e->phdrs[i];

		if (p->p_type == PT_LOAD && (p->p_flags & PF_X) && vaddr >= p->p_vaddr &&
		    vaddr - p->p_vaddr < p->p_memsz)
			return 1;
	}
	return 0;
}
