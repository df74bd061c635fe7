// SPDX-License-Identifier: MIT
/*
 * ELF symbol sources on libdwfl: a file at its recorded path (its build-id
 * must match the recorded one) with separate debug info found the standard
 * way (.build-id/xx/yyyy.debug, .gnu_debuglink, .gnu_debugdata
 * MiniDebugInfo, which this libdw decompresses with liblzma); or, when the
 * binary is gone or differs, a debug file found by the recorded build-id.
 *
 * Each file gets its own Dwfl with the module at bias 0, so module
 * addresses are the ELF virtual addresses the frames carry.
 */
#include "report/symbols/symsrc.h"

#include <dwarf.h>
#include <gelf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/symbols/symsrc_gopclntab.h"
#include "upper_bound.h"
#include "report/util.h"

struct elf_sym {
	uint64_t start, size;
	const char *name; /* owned by libdw */
	uint8_t rank;     /* lower wins among symbols at one address */
};

struct elf_handle {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Dwfl_Callbacks cb;
	char *debuginfo_path; /* cb.debuginfo_path points here */
	/* Function symbols sorted by address: dwfl_module_addrinfo scans the
	 * whole symbol table per call, too slow for 100k addresses. */
	struct elf_sym *syms;
	size_t nsyms;
	bool syms_loaded;
	uint64_t mod_end; /* a sizeless last symbol ends here */
	/* Per compile unit, its functions' code ranges, so an address finds
	 * its function without walking the whole unit (dwarf_getscopes does). */
	struct cu_funcs *cus;
	size_t ncus, capcus;
	struct trec_itab cu_index;
	struct gopclntab *go; /* a Go binary's .gopclntab, read on first use */
	bool go_tried;
};

struct func_range {
	Dwarf_Addr lo, hi;
	Dwarf_Off die;
};

struct cu_funcs {
	Dwarf_Off cu;
	struct func_range *r;
	size_t n;
};

/* ":.debug:DIR1:DIR2": the main file's dir, its .debug/, then each root. */
static char *make_debuginfo_path(const char *const *dirs)
{
	struct rp_buf b = { 0 };
	rp_buf_adds(&b, ":.debug");
	for (size_t i = 0; dirs && dirs[i]; i++) {
		rp_buf_adds(&b, ":");
		rp_buf_adds(&b, dirs[i]);
	}
	return b.p;
}

static struct elf_handle *handle_new(const struct rp_symsrc_file *f)
{
	struct elf_handle *h = xcalloc(1, sizeof(*h));
	h->debuginfo_path = make_debuginfo_path(f->debug_dirs);
	h->cb.find_elf = dwfl_build_id_find_elf;
	h->cb.find_debuginfo = dwfl_standard_find_debuginfo;
	h->cb.section_address = dwfl_offline_section_address;
	h->cb.debuginfo_path = &h->debuginfo_path;
	h->dwfl = dwfl_begin(&h->cb);
	if (!h->dwfl) {
		free(h->debuginfo_path);
		free(h);
		return NULL;
	}
	return h;
}

static void elf_close(void *handle)
{
	struct elf_handle *h = handle;
	if (!h)
		return;
	dwfl_end(h->dwfl);
	free(h->debuginfo_path);
	free(h->syms);
	for (size_t i = 0; i < h->ncus; i++)
		free(h->cus[i].r);
	free(h->cus);
	trec_itab_free(&h->cu_index);
	rp_gopclntab_close(h->go);
	free(h);
}

static void hex_build_id(char *out, size_t outlen, const uint8_t *id, size_t n)
{
	size_t o = 0;
	for (size_t i = 0; i < n && o + 3 <= outlen; i++)
		o += (size_t)snprintf(out + o, outlen - o, "%02x", id[i]);
	if (outlen)
		out[o < outlen ? o : outlen - 1] = 0;
}

/* Reports path as the only module; checks its build-id against the record. */
static int report_checked(const struct rp_symsrc_file *f, const char *path, void **handle,
			  char *why, size_t whylen)
{
	struct stat st;
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(why, whylen, "%s: %s", path, strerror(errno ? errno : ENOENT));
		return RP_SYMSRC_MISSING;
	}
	struct elf_handle *h = handle_new(f);
	if (!h) {
		snprintf(why, whylen, "%s: %s", path, dwfl_errmsg(-1));
		return RP_SYMSRC_MISSING;
	}
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	dwfl_report_begin(h->dwfl);
	h->mod = dwfl_report_elf(h->dwfl, base, path, -1, 0, false);
	dwfl_report_end(h->dwfl, NULL, NULL);
	if (!h->mod) {
		snprintf(why, whylen, "%s: %s", path, dwfl_errmsg(-1));
		elf_close(h);
		return RP_SYMSRC_MISSING;
	}
	const unsigned char *bits = NULL;
	GElf_Addr vaddr;
	int n = dwfl_module_build_id(h->mod, &bits, &vaddr);
	if (f->build_id_len) {
		if (n != (int)f->build_id_len || memcmp(bits, f->build_id, f->build_id_len)) {
			char want[129], have[129] = "none";
			hex_build_id(want, sizeof(want), f->build_id, f->build_id_len);
			if (n > 0)
				hex_build_id(have, sizeof(have), bits, (size_t)n);
			snprintf(why, whylen, "%s: build-id %s, recorded %s", path, have, want);
			elf_close(h);
			return RP_SYMSRC_MISMATCH;
		}
	} else if (f->size && (uint64_t)st.st_size != f->size) {
		/* no build-id recorded: the size is the best check there is */
		snprintf(why, whylen, "%s: size %lld, recorded %llu (no build-id)", path,
			 (long long)st.st_size, (unsigned long long)f->size);
		elf_close(h);
		return RP_SYMSRC_MISMATCH;
	}
	*handle = h;
	return RP_SYMSRC_OK;
}

static int open_file(const struct rp_symsrc_file *f, void **handle, char *why, size_t whylen)
{
	if (!f->path || f->path[0] != '/') {
		snprintf(why, whylen, "no path recorded");
		return RP_SYMSRC_MISSING;
	}
	char path[4096];
	if (snprintf(path, sizeof(path), "%s%s", f->symfs ? f->symfs : "", f->path) >=
	    (int)sizeof(path)) {
		snprintf(why, whylen, "path too long");
		return RP_SYMSRC_MISSING;
	}
	return report_checked(f, path, handle, why, whylen);
}

static int open_debug(const struct rp_symsrc_file *f, void **handle, char *why, size_t whylen)
{
	if (f->build_id_len < 2) {
		snprintf(why, whylen, "no build-id recorded");
		return RP_SYMSRC_MISSING;
	}
	char hex[129];
	hex_build_id(hex, sizeof(hex), f->build_id, f->build_id_len);
	int res = RP_SYMSRC_MISSING;
	snprintf(why, whylen, "no debug file for build-id %s", hex);
	for (size_t i = 0; f->debug_dirs && f->debug_dirs[i]; i++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s.debug", f->debug_dirs[i], hex, hex + 2);
		if (access(path, R_OK) < 0)
			continue;
		res = report_checked(f, path, handle, why, whylen);
		if (res == RP_SYMSRC_OK)
			return res;
	}
	return res;
}

/* The name of a subprogram or inlined instance, through abstract origins. */
static const char *die_func_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *n = NULL;
	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a))
		n = dwarf_formstring(&a);
	if (!n)
		n = dwarf_diename(die);
	if (!n && dwarf_attr_integrate(die, DW_AT_name, &a))
		n = dwarf_formstring(&a);
	return n;
}

static const char *cu_file(Dwarf_Die *cu, Dwarf_Word idx)
{
	Dwarf_Files *files;
	size_t nfiles;
	if (dwarf_getsrcfiles(cu, &files, &nfiles) != 0 || idx >= nfiles)
		return NULL;
	return dwarf_filesrc(files, idx, NULL, NULL);
}

/* Innermost inlined function first, ending with the containing subprogram. */
static void collect_funcs(Dwarf_Die *parent, struct cu_funcs *c, size_t *cap, int depth)
{
	Dwarf_Die child;
	if (depth > 16 || dwarf_child(parent, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);
		if (tag == DW_TAG_subprogram) {
			Dwarf_Addr base, start, end;
			ptrdiff_t off = 0;
			while ((off = dwarf_ranges(&child, off, &base, &start, &end)) > 0) {
				if (end <= start)
					continue;
				RP_GROW(c->r, *cap, c->n + 1);
				c->r[c->n++] = (struct func_range){ start, end, dwarf_dieoffset(&child) };
			}
		} else if (tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
			   tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
			   tag == DW_TAG_module) {
			collect_funcs(&child, c, cap, depth + 1);
		}
	} while (dwarf_siblingof(&child, &child) == 0);
}

static int cmp_range(const void *a, const void *b)
{
	const struct func_range *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

struct cu_key {
	const struct elf_handle *h;
	Dwarf_Off cu;
};

static bool cu_eq(const void *ctx, uint32_t idx)
{
	const struct cu_key *k = ctx;
	return k->h->cus[idx].cu == k->cu;
}

static const struct cu_funcs *cu_funcs(struct elf_handle *h, Dwarf_Die *cu)
{
	struct cu_key k = { h, dwarf_dieoffset(cu) };
	uint64_t hash = rp_hash_u64(k.cu);
	uint32_t i = trec_itab_find(&h->cu_index, hash, cu_eq, &k);
	if (i != TREC_ITAB_NONE)
		return &h->cus[i];
	RP_GROW(h->cus, h->capcus, h->ncus + 1);
	struct cu_funcs *c = &h->cus[h->ncus];
	size_t cap = 0;
	*c = (struct cu_funcs){ .cu = k.cu };
	collect_funcs(cu, c, &cap, 0);
	if (c->n)
		qsort(c->r, c->n, sizeof(*c->r), cmp_range);
	rp_itab_insert(&h->cu_index, hash, (uint32_t)h->ncus);
	return &h->cus[h->ncus++];
}

/*
 * The function instances holding pc, outermost (the subprogram) first:
 * the subprogram from the unit's ranges, then down through the inlined
 * subroutines (and lexical blocks) that contain pc. 0 if none is found.
 */
static int func_chain(struct elf_handle *h, Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *chain)
{
	const struct cu_funcs *c = cu_funcs(h, cu);
	size_t lo = TREC_UPPER_BOUND(c->r, c->n, lo, pc);
	if (!lo || pc >= c->r[lo - 1].hi)
		return 0;
	Dwarf_Addr bias;
	Dwarf *dbg = dwfl_module_getdwarf(h->mod, &bias);
	if (!dbg || !dwarf_offdie(dbg, c->r[lo - 1].die, &chain[0]))
		return 0;
	int n = 1;
	Dwarf_Die cur = chain[0];
	for (int steps = 0; steps < 1024; steps++) {
		Dwarf_Die child;
		bool found = false;
		if (dwarf_child(&cur, &child) == 0) {
			do {
				int tag = dwarf_tag(&child);
				if ((tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block ||
				     tag == DW_TAG_try_block || tag == DW_TAG_catch_block) &&
				    dwarf_haspc(&child, pc) == 1) {
					if (tag == DW_TAG_inlined_subroutine && n < RP_MAX_INLINE)
						chain[n++] = child;
					cur = child;
					found = true;
					break;
				}
			} while (dwarf_siblingof(&child, &child) == 0);
		}
		if (!found)
			break;
	}
	return n;
}

/* The slow general way, for what the ranges miss (nested functions). */
static int func_chain_scopes(Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *chain)
{
	/* dwarf_getscopes continues from an inlined instance into its abstract
	 * definition's scopes; the concrete callers come from
	 * dwarf_getscopes_die on the innermost function instance. */
	Dwarf_Die *scopes = NULL, *up = NULL;
	int n = dwarf_getscopes(cu, pc, &scopes), inner = -1, out = 0;
	for (int i = 0; i < n && inner < 0; i++) {
		int tag = dwarf_tag(&scopes[i]);
		if (tag == DW_TAG_inlined_subroutine || tag == DW_TAG_subprogram)
			inner = i;
	}
	int nup = inner >= 0 ? dwarf_getscopes_die(&scopes[inner], &up) : 0;
	Dwarf_Die tmp[RP_MAX_INLINE];
	for (int i = 0; i < nup && out < RP_MAX_INLINE; i++) {
		int tag = dwarf_tag(&up[i]);
		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		tmp[out++] = up[i];
		if (tag == DW_TAG_subprogram)
			break;
	}
	for (int i = 0; i < out; i++) /* outermost first */
		chain[i] = tmp[out - 1 - i];
	free(up);
	free(scopes);
	return out;
}

/* Innermost inlined function first, ending with the containing subprogram. */
static void add_dwarf_lines(struct elf_handle *h, uint64_t addr, struct rp_symres *res)
{
	Dwarf_Addr bias = 0;
	Dwarf_Die *cu = dwfl_module_addrdie(h->mod, addr, &bias);
	const char *file = NULL;
	int line = 0;
	Dwfl_Line *ln = dwfl_module_getsrc(h->mod, addr);
	if (ln)
		file = dwfl_lineinfo(ln, NULL, &line, NULL, NULL, NULL);
	Dwarf_Die chain[RP_MAX_INLINE];
	int n = 0;
	if (cu) {
		n = func_chain(h, cu, addr - bias, chain);
		if (!n)
			n = func_chain_scopes(cu, addr - bias, chain);
	}
	for (int i = n; i-- > 0 && res->nlines < RP_MAX_INLINE;) {
		uint32_t k = res->nlines++;
		res->lines[k].func = die_func_name(&chain[i]);
		res->lines[k].file = file;
		res->lines[k].line = line > 0 ? (uint32_t)line : 0;
		/* where this instance was inlined: the line in its caller */
		Dwarf_Attribute a;
		Dwarf_Word cf = 0, cl = 0;
		file = NULL;
		line = 0;
		if (dwarf_formudata(dwarf_attr(&chain[i], DW_AT_call_file, &a), &cf) == 0)
			file = cu_file(cu, cf);
		if (dwarf_formudata(dwarf_attr(&chain[i], DW_AT_call_line, &a), &cl) == 0)
			line = cl > INT32_MAX ? 0 : (int)cl;
	}
	if (!res->nlines && file) {
		res->nlines = 1;
		res->lines[0].func = NULL;
		res->lines[0].file = file;
		res->lines[0].line = line > 0 ? (uint32_t)line : 0;
	}
}

/* Global before weak before local; then fewer leading underscores, as perf
 * prefers memcpy to __memcpy_alias. */
static uint8_t sym_rank(const GElf_Sym *sym, const char *name)
{
	int bind = GELF_ST_BIND(sym->st_info);
	uint8_t r = bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 4 : 8;
	for (int i = 0; name[i] == '_' && i < 3; i++)
		r++;
	return r;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct elf_sym *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return (x->size < y->size) - (x->size > y->size); /* sized first */
}

static void load_syms(struct elf_handle *h)
{
	h->syms_loaded = true;
	Dwarf_Addr lo = 0, hi = 0;
	dwfl_module_info(h->mod, NULL, &lo, &hi, NULL, NULL, NULL, NULL);
	h->mod_end = hi;
	int n = dwfl_module_getsymtab(h->mod);
	if (n <= 0)
		return;
	size_t cap = 0;
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		const char *name = dwfl_module_getsym_info(h->mod, i, &sym, &addr, &shndx, NULL, NULL);
		int type = GELF_ST_TYPE(sym.st_info);
		if (!name || !name[0] || shndx == SHN_UNDEF || !addr ||
		    (type != STT_FUNC && type != STT_GNU_IFUNC))
			continue;
		RP_GROW(h->syms, cap, h->nsyms + 1);
		h->syms[h->nsyms++] = (struct elf_sym){ addr, sym.st_size, name, sym_rank(&sym, name) };
	}
	if (!h->nsyms)
		return;
	qsort(h->syms, h->nsyms, sizeof(*h->syms), cmp_sym);
	size_t w = 0; /* one symbol per address: the best ranked */
	for (size_t i = 0; i < h->nsyms; i++)
		if (!w || h->syms[i].start != h->syms[w - 1].start)
			h->syms[w++] = h->syms[i];
	h->nsyms = w;
}

/* The function holding addr: sized symbols end at their size, sizeless
 * ones at the next symbol. A few earlier symbols are tried for nesting. */
static const struct elf_sym *find_sym(struct elf_handle *h, uint64_t addr)
{
	if (!h->syms_loaded)
		load_syms(h);
	size_t lo = TREC_UPPER_BOUND(h->syms, h->nsyms, start, addr);
	for (size_t i = lo, tries = 0; i-- > 0 && tries < 8; tries++) {
		const struct elf_sym *s = &h->syms[i];
		if (!s->size)
			return tries == 0 && (i + 1 < h->nsyms || addr < h->mod_end) ? s : NULL;
		if (addr - s->start < s->size)
			return s;
	}
	return NULL;
}

static int elf_lookup(void *handle, uint64_t addr, struct rp_symres *res)
{
	struct elf_handle *h = handle;
	memset(res, 0, offsetof(struct rp_symres, lines));
	const struct elf_sym *sym = find_sym(h, addr);
	if (sym) {
		res->symname = sym->name;
		res->sym_start = sym->start;
	}
	if (!h->go_tried) {
		GElf_Addr bias;
		h->go_tried = true;
		h->go = rp_gopclntab_open(dwfl_module_getelf(h->mod, &bias));
	}
	/* Go text: the table Go's tracebacks read, stripped or not. */
	if (!h->go || !rp_gopclntab_lookup(h->go, addr, res))
		add_dwarf_lines(h, addr, res);
	return 0;
}

const struct rp_symsrc rp_symsrc_elf_file = {
	.name = "file",
	.open = open_file,
	.lookup = elf_lookup,
	.close = elf_close,
};

const struct rp_symsrc rp_symsrc_elf_debug = {
	.name = "debug",
	.open = open_debug,
	.lookup = elf_lookup,
	.close = elf_close,
};
