// SPDX-License-Identifier: MIT
/*
 * What an archive holds, read with libdwfl: function symbols (.symtab, or
 * .dynsym plus MiniDebugInfo, or the symtab of the debug file libdwfl finds
 * by build-id or .gnu_debuglink) and, at level FULL, the DWARF line rows
 * and the address ranges of every inlined call. A Go binary's functions,
 * lines and inlined calls come from its .gopclntab (record/archive/).
 *
 * Addresses are ELF vaddrs of the file itself: the module is reported at
 * bias 0 and every DWARF address is moved by its CU's bias.
 */
#include <errno.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>
#include <elfutils/libdwfl.h>
#include <dwarf.h>
#include <gelf.h>

#include "format/elf/debuginfod.h"
#include "format/elf/elf_names.h"
#include "record/archive/archive_dwfl.h"
#include "record/archive/gopclntab_archive.h"
#include "record/procs/open_regular.h"

static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = trec_find_debuginfo, /* local files, then DEBUGINFOD_URLS */
	.section_address = dwfl_offline_section_address,
};

static void collect_symbols(struct arc_builder *b, Dwfl_Module *mod, GElf_Addr bias)
{
	int n = dwfl_module_getsymtab(mod);
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		Elf *elf;
		Dwarf_Addr sbias;
		const char *name = dwfl_module_getsym_info(mod, i, &sym, &addr, &shndx,
							   &elf, &sbias);
		int type = GELF_ST_TYPE(sym.st_info);
		if (!name || !*name || shndx == SHN_UNDEF ||
		    (type != STT_FUNC && type != STT_GNU_IFUNC))
			continue;
		/* Names as in the symtab ("name@@VERSION" too), like libdwfl
		 * gives them to treport's local-file source. */
		arc_add_sym(b, addr - bias, sym.st_size, name, trec_sym_bind(GELF_ST_BIND(sym.st_info)));
	}
}

static void add_plt_sym(void *b, uint64_t addr, uint64_t size, const char *name)
{
	arc_add_sym(b, addr, size, name, TREC_ARC_BIND_GLOBAL);
}

/* Which symbol tables libdwfl found: its main file's, a debug file's, and
 * whether MiniDebugInfo was used. */
static uint32_t symbol_sources(Elf *main_elf, Dwfl_Module *mod)
{
	uint32_t src = 0;
	Elf_Scn *scn = NULL;
	bool symtab = false, debugdata = false;
	size_t shstrndx;
	if (elf_getshdrstrndx(main_elf, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(main_elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			continue;
		const char *name = elf_strptr(main_elf, shstrndx, sh.sh_name);
		if (sh.sh_type == SHT_SYMTAB)
			symtab = true;
		else if (name && !strcmp(name, ".gnu_debugdata"))
			debugdata = true;
	}
	const char *debugfile = NULL;
	dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, &debugfile);
	if (symtab)
		src |= TREC_ARC_SRC_SYMTAB;
	else if (debugfile)
		src |= TREC_ARC_SRC_DEBUGFILE;
	else if (debugdata)
		src |= TREC_ARC_SRC_MINIDEBUG | TREC_ARC_SRC_DYNSYM;
	else
		src |= TREC_ARC_SRC_DYNSYM;
	return src;
}

/* ---- DWARF ---------------------------------------------------------------- */

struct cu_ctx {
	struct arc_builder *b;
	int64_t shift;          /* DWARF address -> ELF vaddr of the file */
	const char *comp_dir;
	Dwarf_Files *files;
	size_t nfiles;
	char path[4096];
};

/* Relative source paths are relative to the CU's DW_AT_comp_dir; join them
 * the way addr2line (binutils and elfutils) prints them. */
static const char *full_path(struct cu_ctx *c, const char *src)
{
	if (!src || src[0] == '/' || !c->comp_dir || !c->comp_dir[0])
		return src;
	int n = snprintf(c->path, sizeof(c->path), "%s/%s", c->comp_dir, src);
	return n > 0 && (size_t)n < sizeof(c->path) ? c->path : src;
}

static void collect_lines(struct cu_ctx *c, Dwarf_Die *cu)
{
	Dwarf_Lines *lines;
	size_t n;
	if (dwarf_getsrclines(cu, &lines, &n))
		return;
	for (size_t i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr addr;
		int lineno = 0;
		bool end = false;
		if (!l || dwarf_lineaddr(l, &addr))
			continue;
		dwarf_lineendsequence(l, &end);
		const char *src = end ? NULL : full_path(c, dwarf_linesrc(l, NULL, NULL));
		if (!end && !src)
			src = "??";
		dwarf_lineno(l, &lineno);
		arc_add_line(c->b, addr + c->shift, src, lineno > 0 ? (uint32_t)lineno : 0);
	}
}

/* The name an inlined call shows: the linkage name when there is one (so
 * C++ demangles to the qualified name), else DW_AT_name, following
 * abstract origins and specifications. */
static const char *inline_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *s = NULL;
	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &attr) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr))
		s = dwarf_formstring(&attr);
	if (!s && dwarf_attr_integrate(die, DW_AT_name, &attr))
		s = dwarf_formstring(&attr);
	return s ? s : "??";
}

static const char *call_file(struct cu_ctx *c, Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	Dwarf_Word idx;
	if (!c->files || !dwarf_attr(die, DW_AT_call_file, &attr) ||
	    dwarf_formudata(&attr, &idx) || idx >= c->nfiles)
		return NULL;
	return full_path(c, dwarf_filesrc(c->files, idx, NULL, NULL));
}

static void add_inlined(struct cu_ctx *c, Dwarf_Die *die, unsigned depth)
{
	Dwarf_Attribute attr;
	Dwarf_Word line = 0;
	if (dwarf_attr(die, DW_AT_call_line, &attr))
		dwarf_formudata(&attr, &line);
	const char *name = inline_name(die), *file = call_file(c, die);
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0)
		arc_add_inline(c->b, depth, lo + c->shift, hi + c->shift, name, file,
			       line > UINT32_MAX ? 0 : (uint32_t)line);
}

/* Depth counts inlined_subroutine nesting inside one function; lexical
 * blocks are transparent, a nested subprogram starts again at 0. */
static void walk(struct cu_ctx *c, Dwarf_Die *parent, unsigned depth)
{
	Dwarf_Die child;
	if (depth > TREC_ARC_MAX_DEPTH || dwarf_child(parent, &child))
		return;
	do {
		switch (dwarf_tag(&child)) {
		case DW_TAG_inlined_subroutine:
			add_inlined(c, &child, depth + 1);
			walk(c, &child, depth + 1);
			break;
		case DW_TAG_subprogram:
		case DW_TAG_namespace:
		case DW_TAG_module:
		case DW_TAG_class_type:
		case DW_TAG_structure_type:
		case DW_TAG_union_type:
			walk(c, &child, 0);
			break;
		case DW_TAG_lexical_block:
		case DW_TAG_try_block:
		case DW_TAG_catch_block:
			walk(c, &child, depth);
			break;
		default:
			break;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
}

void arc_collect_cu(struct arc_builder *b, Dwarf_Die *cu, Dwarf_Addr cubias, GElf_Addr bias)
{
	struct cu_ctx c = { .b = b, .shift = (int64_t)(cubias - bias) };
	Dwarf_Attribute attr;
	if (dwarf_attr(cu, DW_AT_comp_dir, &attr))
		c.comp_dir = dwarf_formstring(&attr);
	collect_lines(&c, cu);
	if (dwarf_getsrcfiles(cu, &c.files, &c.nfiles))
		c.files = NULL;
	walk(&c, cu, 0);
}

static int cmp_off(const void *a, const void *b)
{
	Dwarf_Off x = *(const Dwarf_Off *)a, y = *(const Dwarf_Off *)b;
	return x < y ? -1 : x > y;
}

/* Every CU, or (addrs given) only the CUs holding one of addrs: level
 * sampled keeps nothing of the others, and libc has thousands. */
static int collect_dwarf(struct arc_builder *b, Dwfl_Module *mod, GElf_Addr bias,
			 const uint64_t *addrs, size_t naddrs)
{
	Dwarf_Addr cubias;
	Dwarf_Die *cu = NULL;
	int cus = 0;
	if (!addrs) {
		while ((cu = dwfl_module_nextcu(mod, cu, &cubias))) {
			arc_collect_cu(b, cu, cubias, bias);
			cus++;
		}
		return cus;
	}
	Dwarf_Off *seen = malloc((naddrs + 1) * sizeof(*seen));
	size_t nseen = 0;
	if (!seen) {
		b->oom = 1;
		return 0;
	}
	for (size_t i = 0; i < naddrs; i++) {
		cu = dwfl_module_addrdie(mod, addrs[i] + bias, &cubias);
		if (!cu)
			continue;
		Dwarf_Off off = dwarf_dieoffset(cu);
		if (bsearch(&off, seen, nseen, sizeof(*seen), cmp_off))
			continue;
		seen[nseen++] = off; /* keep sorted: insertion */
		for (size_t k = nseen - 1; k > 0 && seen[k - 1] > seen[k]; k--) {
			Dwarf_Off tmp = seen[k];
			seen[k] = seen[k - 1];
			seen[k - 1] = tmp;
		}
		arc_collect_cu(b, cu, cubias, bias);
	}
	free(seen);
	/* A file with DWARF whose samples fall outside every CU still has DWARF. */
	return nseen ? (int)nseen : dwfl_module_nextcu(mod, NULL, &cubias) != NULL;
}

/* The PT_LOADs, and where the first starts: tools that go by segments
 * compute their bias from it, so an extracted debug file keeps them. */
static uint64_t collect_segments(struct arc_builder *b, Elf *elf)
{
	size_t n;
	uint64_t lo = UINT64_MAX;
	if (elf_getphdrnum(elf, &n))
		return 0;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		arc_add_segment(b, ph.p_flags, ph.p_vaddr, ph.p_memsz, ph.p_align);
		uint64_t align = ph.p_align > 1 ? ph.p_align : 1;
		if ((ph.p_vaddr & ~(align - 1)) < lo)
			lo = ph.p_vaddr & ~(align - 1);
	}
	return lo == UINT64_MAX ? 0 : lo;
}

/* The SHF_ALLOC sections, for the layout of extracted debug files. */
static void collect_sections(struct arc_builder *b, Elf *elf)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	if (elf_getshdrstrndx(elf, &shstrndx))
		return;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) ||
		    !(name = elf_strptr(elf, shstrndx, sh.sh_name)) || !*name)
			continue;
		arc_add_section(b, name, sh.sh_type, sh.sh_flags, sh.sh_addr, sh.sh_size);
	}
}

/* ---- one file ------------------------------------------------------------ */

Dwfl_Module *arc_open(const char *path, Dwfl **dwfl, int *err)
{
	/* (the path a process mapped: by now a FIFO or a device may sit there;
	 * and a file it wrote may declare millions of sections) */
	int fd = trec_open_regular(path);
	Dwfl_Module *mod;

	*dwfl = NULL;
	if (fd >= 0 && trec_elf_headers_bounded(fd)) {
		close(fd);
		fd = -ENOEXEC;
	}
	if (fd < 0) {
		*err = fd;
		return NULL;
	}
	*dwfl = dwfl_begin(&offline_callbacks);
	if (!*dwfl) {
		close(fd);
		*err = -ENOMEM;
		return NULL;
	}
	/* add_p_vaddr with base 0: module addresses are the file's vaddrs. */
	mod = dwfl_report_elf(*dwfl, "archive", path, fd, 0, true);
	if (!mod) {
		close(fd); /* not taken over by libdwfl on failure */
		*err = -ENOEXEC;
		return NULL;
	}
	dwfl_report_end(*dwfl, NULL, NULL);
	return mod;
}

int arc_collect(struct arc_builder *b, const char *path, const uint8_t *bid,
		size_t bid_len, int level, const uint64_t *addrs, size_t naddrs)
{
	int err = 0;
	Dwfl *dwfl;
	Dwfl_Module *mod = arc_open(path, &dwfl, &err);
	if (!mod)
		goto out;

	GElf_Addr bias = 0;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	GElf_Ehdr eh;
	if (!elf || !gelf_getehdr(elf, &eh)) {
		err = -ENOEXEC;
		goto out;
	}
	const unsigned char *bits;
	GElf_Addr bid_vaddr;
	int n = dwfl_module_build_id(mod, &bits, &bid_vaddr);
	if (bid_len && (n != (int)bid_len || memcmp(bits, bid, bid_len))) {
		err = -ESTALE;
		goto out;
	}
	if (n > 0 && (size_t)n <= TREC_ARC_MAX_BUILD_ID) {
		memcpy(b->t.build_id, bits, (size_t)n);
		b->t.build_id_len = (uint8_t)n;
	}
	b->t.e_machine = eh.e_machine;
	b->t.elf_class = eh.e_ident[EI_CLASS];
	b->t.e_type = (uint8_t)eh.e_type;
	b->t.entry = eh.e_entry;
	b->t.level = (uint32_t)level;
	b->t.load_vaddr = collect_segments(b, elf);
	collect_sections(b, elf);

	collect_symbols(b, mod, bias);
	trec_plt_symbols(elf, add_plt_sym, b); /* NAME@plt, also when stripped */
	b->t.sources = symbol_sources(elf, mod);
	if (level >= TREC_ARCHIVE_FULL &&
	    collect_dwarf(b, mod, bias, level == TREC_ARCHIVE_SAMPLED ? addrs : NULL, naddrs) > 0)
		b->t.sources |= TREC_ARC_SRC_DWARF;
	/* Go: names a stripped binary's functions, and lines its Go text. */
	b->t.sources |= arc_collect_gopclntab(b, elf, level, addrs, naddrs);
	if (b->oom)
		err = -ENOMEM;
out:
	dwfl_end(dwfl);
	return err;
}
