// SPDX-License-Identifier: MIT
/*
 * An archive written back as a minimal ELF debug file, laid out where
 * tools look for debug files by build-id, so nm, addr2line -f, gdb and
 * perf can use the embedded symbols: .note.gnu.build-id, one NOBITS .text
 * spanning every symbol, .symtab and .strtab (written with libelf), and
 * when the archive has line rows, DWARF 4 .debug_line with one CU.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <gelf.h>

#include "format/archive/archive_reader.h"
#include "report/archive/archive_elf.h"
#include "report/archive/archive_dwarf.h"

int trec_archive_debug_path(const struct trec_archive *a, uint64_t file_id, const char *dir,
			    char *out, size_t outlen)
{
	const struct trec_arc_tables *t = trec_archive_tables(a);
	char hex[2 * TREC_ARC_MAX_BUILD_ID + 1];
	int n;
	for (unsigned i = 0; i < t->build_id_len; i++)
		sprintf(hex + 2 * i, "%02x", t->build_id[i]);
	if (t->build_id_len >= 2)
		n = snprintf(out, outlen, "%s/.build-id/%.2s/%s.debug", dir, hex, hex + 2);
	else
		n = snprintf(out, outlen, "%s/file-%" PRIx64 ".debug", dir, file_id);
	return n < 0 || (size_t)n >= outlen ? -ENAMETOOLONG : 0;
}

static int mkdirs(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		int rc = mkdir(path, 0755);
		*p = '/';
		if (rc && errno != EEXIST)
			return -errno;
	}
	return 0;
}

struct strtab {
	char *p;
	size_t len, cap;
	int oom; /* sticky: an add failed (and returned (size_t)-1) */
};

static size_t strtab_add(struct strtab *s, const char *str)
{
	size_t n = strlen(str) + 1, off = s->len;
	if (s->len + n > s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 4096;
		while (cap < s->len + n)
			cap *= 2;
		char *p = realloc(s->p, cap);
		if (!p) {
			s->oom = 1;
			return (size_t)-1;
		}
		s->p = p;
		s->cap = cap;
	}
	memcpy(s->p + off, str, n);
	s->len += n;
	return off;
}

static Elf_Scn *add_section(Elf *elf, size_t name, GElf_Word type, GElf_Xword flags,
			   void *buf, size_t size, Elf_Type dtype, GElf_Addr addr)
{
	Elf_Scn *scn = elf_newscn(elf);
	Elf_Data *d = scn ? elf_newdata(scn) : NULL;
	GElf_Shdr sh;
	if (!d || !gelf_getshdr(scn, &sh))
		return NULL;
	d->d_buf = buf;
	d->d_size = size;
	d->d_type = dtype;
	d->d_align = dtype == ELF_T_SYM ? 8 : dtype == ELF_T_NHDR ? 4 : 1;
	sh.sh_name = (GElf_Word)name;
	sh.sh_type = type;
	sh.sh_flags = flags;
	sh.sh_addr = addr;
	sh.sh_addralign = d->d_align;
	sh.sh_size = size; /* NOBITS sections keep a size without bytes */
	return gelf_update_shdr(scn, &sh) ? scn : NULL;
}

static uint8_t *build_id_note(const struct trec_arc_tables *t, size_t *len)
{
	*len = 12 + 4 + ((t->build_id_len + 3u) & ~3u);
	uint8_t *note = calloc(1, *len);
	if (!note)
		return NULL;
	uint32_t nh[3] = { 4, t->build_id_len, NT_GNU_BUILD_ID };
	memcpy(note, nh, sizeof(nh));
	memcpy(note + 12, "GNU", 4);
	memcpy(note + 16, t->build_id, t->build_id_len);
	return note;
}

/* The original's allocated sections, empty (NOBITS) at their addresses as
 * objcopy --only-keep-debug leaves them (gdb relocates a debug file by
 * section name), the build-id note with its bytes; without a section table
 * one .text spanning [lo, hi). secidx[i]: ELF index of archive section i. */
static int add_alloc_sections(Elf *elf, const struct trec_arc_tables *t, struct strtab *shstr,
			      uint8_t *note, size_t note_len, uint64_t lo, uint64_t hi,
			      size_t *secidx, size_t *text_idx)
{
	int have_note = 0;
	*text_idx = SHN_ABS;
	for (size_t i = 0; i < t->num_sections; i++) {
		const struct trec_arc_elfsec *sec = &t->sections[i];
		const char *name = t->strings[sec->name];
		size_t n = strtab_add(shstr, name);
		int is_note = !strcmp(name, ".note.gnu.build-id") && t->build_id_len && !have_note;
		Elf_Scn *scn = is_note ?
			add_section(elf, n, SHT_NOTE, SHF_ALLOC, note, note_len, ELF_T_NHDR, sec->addr) :
			add_section(elf, n, SHT_NOBITS, sec->flags, NULL, sec->size, ELF_T_BYTE,
				    sec->addr);
		if (n == (size_t)-1 || !scn)
			return -1;
		have_note |= is_note;
		secidx[i] = elf_ndxscn(scn);
	}
	if (t->build_id_len && !have_note &&
	    !add_section(elf, strtab_add(shstr, ".note.gnu.build-id"), SHT_NOTE, SHF_ALLOC, note,
			 note_len, ELF_T_NHDR, 0))
		return -1;
	if (!t->num_sections) {
		Elf_Scn *text = add_section(elf, strtab_add(shstr, ".text"), SHT_NOBITS,
					    SHF_ALLOC | SHF_EXECINSTR, NULL, hi - lo, ELF_T_BYTE, lo);
		if (!text)
			return -1;
		*text_idx = elf_ndxscn(text);
	}
	return 0;
}

/* The section a symbol lives in: the executable section holding it, else
 * any section holding it, else the synthetic .text (or SHN_ABS). */
static size_t sym_section(const struct trec_arc_tables *t, const size_t *secidx,
			  size_t text_idx, uint64_t addr)
{
	size_t any = text_idx;
	for (size_t i = 0; i < t->num_sections; i++) {
		const struct trec_arc_elfsec *sec = &t->sections[i];
		if (addr - sec->addr >= sec->size)
			continue;
		if (sec->flags & SHF_EXECINSTR)
			return secidx[i];
		any = secidx[i];
	}
	return any;
}

/* .symtab entries: locals first (sh_info names the first global). */
static GElf_Sym *symbols(const struct trec_arc_tables *t, const size_t *secidx, size_t text_idx,
			 struct strtab *str, size_t *count, size_t *first_global)
{
	GElf_Sym *syms = calloc(t->num_syms + 1, sizeof(*syms));
	size_t ns = 1;
	if (!syms || strtab_add(str, "") == (size_t)-1)
		goto oom;
	for (int globals = 0; globals < 2; globals++) {
		if (globals)
			*first_global = ns;
		for (size_t i = 0; i < t->num_syms; i++) {
			const struct trec_arc_sym *s = &t->syms[i];
			if ((s->bind != TREC_ARC_BIND_LOCAL) != globals)
				continue;
			size_t name = strtab_add(str, t->strings[s->name]);
			if (name == (size_t)-1)
				goto oom;
			int bind = s->bind == TREC_ARC_BIND_GLOBAL ? STB_GLOBAL :
				   s->bind == TREC_ARC_BIND_WEAK ? STB_WEAK : STB_LOCAL;
			syms[ns++] = (GElf_Sym){
				.st_name = (GElf_Word)name,
				.st_info = GELF_ST_INFO(bind, STT_FUNC),
				.st_shndx = (GElf_Section)sym_section(t, secidx, text_idx, s->addr),
				.st_value = s->addr,
				.st_size = s->size,
			};
		}
	}
	*count = ns;
	return syms;
oom:
	free(syms);
	return NULL;
}

/* The original's PT_LOADs without file bytes (as objcopy --only-keep-debug
 * keeps them); without any, one from load_vaddr over [lo, hi). Tools that
 * go by segments (libdwfl: treport, eu-addr2line; gdb) take the load bias
 * from them. */
static int add_segments(Elf *elf, const struct trec_arc_tables *t, uint64_t lo, uint64_t hi)
{
	size_t n = t->num_segments ? t->num_segments : 1;
	if (!gelf_newphdr(elf, n))
		return -1;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph = { .p_type = PT_LOAD };
		if (t->num_segments) {
			const struct trec_arc_segment *g = &t->segments[i];
			ph.p_flags = g->flags;
			ph.p_vaddr = ph.p_paddr = g->vaddr;
			ph.p_memsz = g->memsz;
			ph.p_align = g->align;
		} else {
			uint64_t base = t->load_vaddr <= lo ? t->load_vaddr : lo & ~0xfffull;
			ph.p_flags = PF_R | PF_X;
			ph.p_vaddr = ph.p_paddr = base;
			ph.p_memsz = hi - base;
			ph.p_align = 0x1000;
		}
		if (!gelf_update_phdr(elf, (int)i, &ph))
			return -1;
	}
	return 0;
}

static int write_elf(Elf *elf, const struct trec_arc_tables *t, char *err, size_t errlen)
{
	struct strtab shstr = { 0 }, str = { 0 };
	struct trec_buf dinfo = { 0 }, dabbrev = { 0 }, dline = { 0 };
	GElf_Sym *syms = NULL;
	uint8_t *note = NULL;
	void *raw = NULL; /* .symtab in the file's class, converted by libelf */
	size_t *secidx = calloc(t->num_sections + 1, sizeof(*secidx));
	size_t ns = 0, first_global = 0, note_len, text_idx;
	int rc = -ENOMEM;

	GElf_Ehdr eh;
	if (!secidx)
		goto out;
	if (!gelf_newehdr(elf, t->elf_class == ELFCLASS32 ? ELFCLASS32 : ELFCLASS64) ||
	    !gelf_getehdr(elf, &eh))
		goto elf_error;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_machine = t->e_machine;
	eh.e_type = t->e_type == ET_EXEC ? ET_EXEC : ET_DYN;
	eh.e_version = EV_CURRENT;
	eh.e_entry = t->entry;
	if (!gelf_update_ehdr(elf, &eh))
		goto elf_error;

	uint64_t lo = t->num_syms ? t->syms[0].addr : 0, hi = lo;
	for (size_t i = 0; i < t->num_syms; i++)
		if (t->syms[i].addr + t->syms[i].size > hi)
			hi = t->syms[i].addr + t->syms[i].size;
	if (t->num_lines) {
		if (!t->num_syms || t->lines[0].addr < lo)
			lo = t->lines[0].addr;
		if (t->lines[t->num_lines - 1].addr + 1 > hi)
			hi = t->lines[t->num_lines - 1].addr + 1;
	}

	if (add_segments(elf, t, lo, hi))
		goto elf_error;

	strtab_add(&shstr, "");
	if (!(note = build_id_note(t, &note_len)))
		goto out;
	if (add_alloc_sections(elf, t, &shstr, note, note_len, lo, hi, secidx, &text_idx))
		goto elf_error;
	if (t->num_lines) {
		if (trec_archive_dwarf(t, lo, hi, &dinfo, &dabbrev, &dline))
			goto out;
		if (!add_section(elf, strtab_add(&shstr, ".debug_info"), SHT_PROGBITS, 0,
				 dinfo.data, dinfo.len, ELF_T_BYTE, 0) ||
		    !add_section(elf, strtab_add(&shstr, ".debug_abbrev"), SHT_PROGBITS, 0,
				 dabbrev.data, dabbrev.len, ELF_T_BYTE, 0) ||
		    !add_section(elf, strtab_add(&shstr, ".debug_line"), SHT_PROGBITS, 0,
				 dline.data, dline.len, ELF_T_BYTE, 0))
			goto elf_error;
	}

	if (!(syms = symbols(t, secidx, text_idx, &str, &ns, &first_global)))
		goto out;
	Elf_Scn *strscn = add_section(elf, strtab_add(&shstr, ".strtab"), SHT_STRTAB, 0, str.p,
				      str.len, ELF_T_BYTE, 0);
	size_t symsize = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
	raw = calloc(ns, symsize);
	if (!raw)
		goto out;
	Elf_Scn *symscn = add_section(elf, strtab_add(&shstr, ".symtab"), SHT_SYMTAB, 0, raw,
				      ns * symsize, ELF_T_SYM, 0);
	Elf_Data *symdata = symscn ? elf_getdata(symscn, NULL) : NULL;
	if (!strscn || !symdata)
		goto elf_error;
	for (size_t i = 0; i < ns; i++)
		gelf_update_sym(symdata, (int)i, &syms[i]);
	GElf_Shdr sh;
	gelf_getshdr(symscn, &sh);
	sh.sh_link = (GElf_Word)elf_ndxscn(strscn);
	sh.sh_info = (GElf_Word)first_global;
	sh.sh_entsize = symsize;
	gelf_update_shdr(symscn, &sh);
	size_t n_shstr = strtab_add(&shstr, ".shstrtab");
	if (shstr.oom)
		goto out;
	Elf_Scn *shscn = add_section(elf, n_shstr, SHT_STRTAB, 0, shstr.p, shstr.len,
				     ELF_T_BYTE, 0);
	/* Again: gelf_newphdr changed the header since. Few sections: no SHN_XINDEX. */
	if (!shscn || !gelf_getehdr(elf, &eh))
		goto elf_error;
	eh.e_shstrndx = (GElf_Half)elf_ndxscn(shscn);
	if (!gelf_update_ehdr(elf, &eh) || elf_update(elf, ELF_C_WRITE) < 0)
		goto elf_error;
	rc = 0;
	goto out;
elf_error:
	snprintf(err, errlen, "libelf: %s", elf_errmsg(-1));
	rc = -EIO;
out:
	free(shstr.p);
	free(str.p);
	trec_buf_free(&dinfo);
	trec_buf_free(&dabbrev);
	trec_buf_free(&dline);
	free(syms);
	free(note);
	free(raw);
	free(secidx);
	return rc;
}

int trec_archive_write_elf(const struct trec_archive *a, const char *path, char *err,
			   size_t errlen)
{
	return trec_archive_tables_write_elf(trec_archive_tables(a), path, err, errlen);
}

int trec_archive_tables_write_elf(const struct trec_arc_tables *t, const char *path, char *err,
				  size_t errlen)
{
	char dirs[4096];
	snprintf(err, errlen, "%s", "");
	if (snprintf(dirs, sizeof(dirs), "%s", path) >= (int)sizeof(dirs))
		return -ENAMETOOLONG;
	int rc = mkdirs(dirs);
	if (rc) {
		snprintf(err, errlen, "cannot create the directories of %s: %s", path, strerror(-rc));
		return rc;
	}
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
		return rc;
	}
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_WRITE, NULL);
	if (!elf) {
		snprintf(err, errlen, "libelf: %s", elf_errmsg(-1));
		rc = -EIO;
	} else {
		rc = write_elf(elf, t, err, errlen);
		elf_end(elf);
	}
	if (close(fd) && !rc) {
		rc = -errno;
		snprintf(err, errlen, "writing %s: %s", path, strerror(errno));
	}
	if (rc)
		unlink(path);
	return rc;
}
