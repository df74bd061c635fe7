// SPDX-License-Identifier: MIT
/*
 * Where an ELF file keeps its .gopclntab. In order:
 *  1. the section: .gopclntab, or .data.rel.ro.gopclntab in a PIE;
 *  2. the runtime.pclntab .. runtime.epclntab symbols (unstripped);
 *  3. for a Go file without section headers (sstrip), the header itself,
 *     searched at 4-aligned offsets of the read-only segments.
 * The image the parser reads is the file contents of the PT_LOADs.
 */
#include <errno.h>
#include <string.h>

#include "format/gopclntab/gopclntab_internal.h"

/* Bytes of read-only segments searched for the header, and candidate
 * headers tried, at most (each try reads its whole function table). */
#define HEADER_SCAN_MAX (256u << 20)
#define HEADER_TRIES_MAX 16

static size_t load_regions(Elf *elf, const uint8_t *raw, size_t size,
			   struct gopcln_region *r, size_t max)
{
	size_t nph, n = 0;
	if (elf_getphdrnum(elf, &nph))
		return 0;
	for (size_t i = 0; i < nph && n < max; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || !ph.p_filesz ||
		    ph.p_offset >= size)
			continue;
		uint64_t len = ph.p_filesz < size - ph.p_offset ? ph.p_filesz : size - ph.p_offset;
		r[n++] = (struct gopcln_region){ .vaddr = ph.p_vaddr, .data = raw + ph.p_offset,
						 .len = (size_t)len,
						 .writable = (ph.p_flags & PF_W) != 0 };
	}
	return n;
}

/* The section's address and size; NULL if there is none. */
static Elf_Scn *section_named(Elf *elf, const char *want, GElf_Shdr *sh)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;
		if (gelf_getshdr(scn, sh) && (name = elf_strptr(elf, shstrndx, sh->sh_name)) &&
		    !strcmp(name, want))
			return scn;
	}
	return NULL;
}

/* runtime.pclntab and runtime.epclntab from .symtab. */
static bool pclntab_symbols(Elf *elf, uint64_t *lo, uint64_t *hi)
{
	Elf_Scn *scn = NULL;
	*lo = *hi = 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		size_t n = sh.sh_size / sh.sh_entsize;
		for (size_t i = 0; i < n; i++) {
			GElf_Sym sym;
			const char *name;
			if (!gelf_getsym(d, (int)i, &sym) ||
			    !(name = elf_strptr(elf, sh.sh_link, sym.st_name)))
				continue;
			if (!strcmp(name, "runtime.pclntab"))
				*lo = sym.st_value;
			else if (!strcmp(name, "runtime.epclntab"))
				*hi = sym.st_value;
		}
	}
	return *lo && *hi > *lo;
}

/* A Go linker output has a "Go" note (the Go build ID) in a PT_NOTE. */
static bool has_go_note(Elf *elf)
{
	size_t nph;
	if (elf_getphdrnum(elf, &nph))
		return false;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		Elf_Data *d = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_NHDR);
		GElf_Nhdr nh;
		size_t off = 0, name_off, desc_off;
		while (d && (off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0)
			/* the linker writes the name "Go" padded: "Go\0\0" */
			if ((nh.n_namesz == 3 || nh.n_namesz == 4) &&
			    !memcmp((const char *)d->d_buf + name_off, "Go", 3))
				return true;
	}
	return false;
}

/* The first header in a read-only segment that parses. */
static int scan_for_header(const struct gopcln_image *img, struct gopclntab **out)
{
	uint64_t scanned = 0;
	unsigned tries = 0;
	for (size_t i = 0; i < img->nregions; i++) {
		const struct gopcln_region *r = &img->regions[i];
		if (r->writable)
			continue;
		for (size_t off = (4 - (r->vaddr & 3)) & 3; off + 16 <= r->len; off += 4) {
			const uint8_t *p = r->data + off;
			if (++scanned > HEADER_SCAN_MAX / 4)
				return -ENOENT;
			/* a known magic (0xfffffffa, 0xfffffff0, 0xfffffff1), 2 zero pad bytes */
			if ((p[0] != 0xfa && p[0] != 0xf0 && p[0] != 0xf1) || p[1] != 0xff ||
			    p[2] != 0xff || p[3] != 0xff || p[4] || p[5])
				continue;
			if (!gopclntab_parse(img, r->vaddr + off, r->len - off, out))
				return 0;
			if (++tries == HEADER_TRIES_MAX)
				return -ENOENT;
		}
	}
	return -ENOENT;
}

int gopclntab_open_elf(Elf *elf, struct gopclntab **out)
{
	struct gopcln_region regions[GOPCLN_MAX_REGIONS];
	struct gopcln_image img = { .regions = regions };
	size_t size;
	const uint8_t *raw = (const uint8_t *)elf_rawfile(elf, &size);
	GElf_Shdr sh;
	uint64_t lo, hi;

	*out = NULL;
	if (!raw)
		return -ENOENT;
	img.nregions = load_regions(elf, raw, size, regions, GOPCLN_MAX_REGIONS);
	if (section_named(elf, ".text", &sh))
		img.text_hint = sh.sh_addr;
	if ((section_named(elf, ".gopclntab", &sh) ||
	     section_named(elf, ".data.rel.ro.gopclntab", &sh)) &&
	    sh.sh_type == SHT_PROGBITS && sh.sh_size)
		return gopclntab_parse(&img, sh.sh_addr, sh.sh_size, out);
	if (pclntab_symbols(elf, &lo, &hi))
		return gopclntab_parse(&img, lo, hi - lo, out);
	return has_go_note(elf) ? scan_for_header(&img, out) : -ENOENT;
}
