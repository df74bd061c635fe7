// SPDX-License-Identifier: MIT
/*
 * NAME@plt symbols for PLT stubs (elf_names.h). The stub's own jump names
 * it: `jmp *disp(%rip)` reads a GOT slot, and the relocation of that slot
 * (JUMP_SLOT in .rela.plt, GLOB_DAT in .rela.dyn for .plt.got) carries the
 * symbol. This is what objdump does, and it needs no assumption about the
 * order of .rela.plt or the size of the lazy-binding header. A slot with an
 * IRELATIVE relocation (an ifunc called inside its own file, as libc calls
 * its string functions) is named after the ifunc symbol at its addend, as
 * perf does. The input may be hostile: every count comes from the bytes
 * libelf actually has.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/elf/elf_names.h"

#define MAX_SLOTS (1u << 20) /* relocations kept; libc has ~3000 */

struct slot {
	uint64_t addr; /* GOT slot the relocation writes */
	const char *name;
};

struct plt_ctx {
	Elf *elf;
	size_t shstrndx;
	struct slot *slots;
	size_t n, cap;
	struct slot *ifuncs; /* by address, the best name of each */
	size_t nifuncs;
	bool ifuncs_read;
};

static bool push(struct slot **v, size_t *n, size_t *cap, uint64_t addr, const char *name)
{
	if (*n >= MAX_SLOTS)
		return false;
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 256;
		struct slot *p = realloc(*v, c * sizeof(*p));
		if (!p)
			return false;
		*v = p;
		*cap = c;
	}
	(*v)[(*n)++] = (struct slot){ addr, name };
	return true;
}

static int cmp_slot(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static const char *find_slot(const struct slot *v, size_t n, uint64_t addr)
{
	struct slot key = { addr, NULL };
	const struct slot *s = n ? bsearch(&key, v, n, sizeof(key), cmp_slot) : NULL;
	return s ? s->name : NULL;
}

struct ifunc {
	struct slot s;
	struct trec_sym_alias a;
};

/* By address, the preferred alias first. */
static int cmp_ifunc(const void *x, const void *y)
{
	const struct ifunc *a = x, *b = y;
	if (a->s.addr != b->s.addr)
		return a->s.addr < b->s.addr ? -1 : 1;
	return trec_sym_alias_cmp(&a->a, &b->a);
}

/* The STT_GNU_IFUNC symbols of .dynsym and .symtab, one name per address
 * chosen by the alias rule. */
static void read_ifuncs(struct plt_ctx *c)
{
	struct ifunc *v = NULL;
	size_t n = 0, cap = 0;
	c->ifuncs_read = true;
	for (Elf_Scn *scn = elf_nextscn(c->elf, NULL); scn; scn = elf_nextscn(c->elf, scn)) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t symsz = gelf_fsize(c->elf, ELF_T_SYM, 1, EV_CURRENT);
		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_DYNSYM && sh.sh_type != SHT_SYMTAB) ||
		    !(d = elf_getdata(scn, NULL)) || !symsz)
			continue;
		for (size_t i = 1; i < d->d_size / symsz && i < INT_MAX && n < MAX_SLOTS; i++) {
			GElf_Sym sym;
			const char *name;
			if (!gelf_getsym(d, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_GNU_IFUNC ||
			    sym.st_shndx == SHN_UNDEF ||
			    !(name = elf_strptr(c->elf, sh.sh_link, sym.st_name)) || !*name)
				continue;
			if (n == cap) {
				size_t nc = cap ? cap * 2 : 64;
				struct ifunc *p = realloc(v, nc * sizeof(*p));
				if (!p)
					break;
				v = p;
				cap = nc;
			}
			v[n++] = (struct ifunc){ { sym.st_value, name },
						 { sym.st_size, trec_sym_bind(GELF_ST_BIND(sym.st_info)), name } };
		}
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_ifunc);
	c->ifuncs = calloc(n + 1, sizeof(*c->ifuncs));
	for (size_t i = 0; c->ifuncs && i < n; i++)
		if (!c->nifuncs || c->ifuncs[c->nifuncs - 1].addr != v[i].s.addr)
			c->ifuncs[c->nifuncs++] = v[i].s;
	free(v);
}

static Elf_Scn *section(struct plt_ctx *c, const char *name, GElf_Shdr *sh)
{
	for (Elf_Scn *scn = elf_nextscn(c->elf, NULL); scn; scn = elf_nextscn(c->elf, scn)) {
		const char *n;
		if (gelf_getshdr(scn, sh) && (n = elf_strptr(c->elf, c->shstrndx, sh->sh_name)) &&
		    !strcmp(n, name))
			return scn;
	}
	return NULL;
}

/* The named relocations of one SHT_RELA section: symbols through its
 * sh_link (a static executable's IRELATIVE-only .rela.plt may have none). */
static void add_slots(struct plt_ctx *c, const char *relname)
{
	GElf_Shdr rsh, ssh;
	Elf_Scn *rscn = section(c, relname, &rsh), *sscn;
	Elf_Data *rd, *sd = NULL;
	size_t relsz = gelf_fsize(c->elf, ELF_T_RELA, 1, EV_CURRENT);
	if (!rscn || rsh.sh_type != SHT_RELA || !relsz || !(rd = elf_getdata(rscn, NULL)) ||
	    rd->d_type != ELF_T_RELA)
		return;
	if ((sscn = elf_getscn(c->elf, rsh.sh_link)) && gelf_getshdr(sscn, &ssh) &&
	    (ssh.sh_type == SHT_DYNSYM || ssh.sh_type == SHT_SYMTAB))
		sd = elf_getdata(sscn, NULL);
	size_t n = rd->d_size / relsz;
	for (size_t i = 0; i < n && i < INT_MAX; i++) {
		GElf_Rela r;
		GElf_Sym sym;
		const char *name = NULL;
		if (!gelf_getrela(rd, (int)i, &r))
			continue;
		if (!GELF_R_SYM(r.r_info) && GELF_R_TYPE(r.r_info) == R_X86_64_IRELATIVE) {
			if (!c->ifuncs_read)
				read_ifuncs(c);
			name = find_slot(c->ifuncs, c->nifuncs, (uint64_t)r.r_addend);
		} else if (sd && GELF_R_SYM(r.r_info) && gelf_getsym(sd, (int)GELF_R_SYM(r.r_info), &sym)) {
			name = elf_strptr(c->elf, ssh.sh_link, sym.st_name);
		}
		if (name && *name && !push(&c->slots, &c->n, &c->cap, r.r_offset, name))
			return;
	}
}

/* The GOT slot a stub at addr jumps through, or 0: [endbr64] [bnd] jmp
 * *disp32(%rip), the forms ld writes for .plt, .plt.sec and .plt.got. */
static uint64_t stub_target(const uint8_t *p, size_t n, uint64_t addr)
{
	static const uint8_t endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };
	size_t k = 0;
	if (n >= sizeof(endbr64) && !memcmp(p, endbr64, sizeof(endbr64)))
		k = sizeof(endbr64);
	if (k < n && p[k] == 0xf2)
		k++;
	if (k + 6 > n || p[k] != 0xff || p[k + 1] != 0x25)
		return 0;
	int32_t disp;
	memcpy(&disp, p + k + 2, sizeof(disp));
	return addr + k + 6 + (uint64_t)(int64_t)disp;
}

static const char *slot_name(const struct plt_ctx *c, uint64_t got)
{
	return got ? find_slot(c->slots, c->n, got) : NULL;
}

static size_t plt_section(struct plt_ctx *c, const char *secname, trec_plt_sym_fn fn, void *ctx)
{
	GElf_Shdr sh;
	Elf_Scn *scn = section(c, secname, &sh);
	Elf_Data *d;
	if (!scn || sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR) ||
	    !(d = elf_getdata(scn, NULL)) || !d->d_buf || !d->d_size ||
	    d->d_size > sh.sh_size || sh.sh_addr > UINT64_MAX - d->d_size)
		return 0;
	/* perf's rule: the entry size, else the alignment says 8 or 16. */
	size_t ent = sh.sh_entsize == 8 || sh.sh_entsize == 16 ? sh.sh_entsize
			 : sh.sh_addralign == 8 ? 8 : 16;
	const uint8_t *p = d->d_buf;
	size_t count = 0;
	char buf[1024];
	if (!strcmp(secname, ".plt") && !slot_name(c, stub_target(p, d->d_size < ent ? d->d_size : ent,
								 sh.sh_addr))) {
		fn(ctx, sh.sh_addr, d->d_size, ".plt");
		count++;
	}
	for (size_t off = 0; off + ent <= d->d_size; off += ent) {
		const char *name = slot_name(c, stub_target(p + off, ent, sh.sh_addr + off));
		int len = name ? snprintf(buf, sizeof(buf), "%s@plt", name) : -1;
		if (len < 0 || (size_t)len >= sizeof(buf))
			continue;
		fn(ctx, sh.sh_addr + off, ent, buf);
		count++;
	}
	return count;
}

size_t trec_plt_symbols(Elf *elf, trec_plt_sym_fn fn, void *ctx)
{
	GElf_Ehdr eh;
	struct plt_ctx c = { .elf = elf };
	if (!elf || !gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64 ||
	    (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) || elf_getshdrstrndx(elf, &c.shstrndx))
		return 0;
	add_slots(&c, ".rela.plt");
	add_slots(&c, ".rela.dyn");
	if (c.n)
		qsort(c.slots, c.n, sizeof(*c.slots), cmp_slot);
	size_t count = 0;
	static const char *const secs[] = { ".plt", ".plt.sec", ".plt.got" };
	for (size_t i = 0; i < sizeof(secs) / sizeof(secs[0]); i++)
		count += plt_section(&c, secs[i], fn, ctx);
	free(c.slots);
	free(c.ifuncs);
	return count;
}
