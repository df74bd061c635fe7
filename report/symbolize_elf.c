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
#include "symsrc.h"

#include <dwarf.h>
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

#include "util.h"

struct elf_handle {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Dwfl_Callbacks cb;
	char *debuginfo_path; /* cb.debuginfo_path points here */
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
static void add_dwarf_lines(struct elf_handle *h, uint64_t addr, struct rp_symres *res)
{
	Dwarf_Addr bias = 0;
	Dwarf_Die *cu = dwfl_module_addrdie(h->mod, addr, &bias);
	const char *file = NULL;
	int line = 0;
	Dwfl_Line *ln = dwfl_module_getsrc(h->mod, addr);
	if (ln)
		file = dwfl_lineinfo(ln, NULL, &line, NULL, NULL, NULL);
	if (!cu) {
		if (file) {
			res->nlines = 1;
			res->lines[0].func = NULL;
			res->lines[0].file = file;
			res->lines[0].line = line > 0 ? (uint32_t)line : 0;
		}
		return;
	}
	/* dwarf_getscopes continues from an inlined instance into its abstract
	 * definition's scopes; the concrete callers come from
	 * dwarf_getscopes_die on the innermost function instance. */
	Dwarf_Die *scopes = NULL, *chain = NULL;
	int n = dwarf_getscopes(cu, addr - bias, &scopes);
	int inner = -1;
	for (int i = 0; i < n && inner < 0; i++) {
		int tag = dwarf_tag(&scopes[i]);
		if (tag == DW_TAG_inlined_subroutine || tag == DW_TAG_subprogram)
			inner = i;
	}
	int nchain = inner >= 0 ? dwarf_getscopes_die(&scopes[inner], &chain) : 0;
	for (int i = 0; i < nchain && res->nlines < RP_MAX_INLINE; i++) {
		int tag = dwarf_tag(&chain[i]);
		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		uint32_t k = res->nlines++;
		res->lines[k].func = die_func_name(&chain[i]);
		res->lines[k].file = file;
		res->lines[k].line = line > 0 ? (uint32_t)line : 0;
		if (tag == DW_TAG_subprogram)
			break;
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
	free(chain);
	free(scopes);
	if (!res->nlines && file) {
		res->nlines = 1;
		res->lines[0].func = NULL;
		res->lines[0].file = file;
		res->lines[0].line = line > 0 ? (uint32_t)line : 0;
	}
}

static int elf_lookup(void *handle, uint64_t addr, struct rp_symres *res)
{
	struct elf_handle *h = handle;
	memset(res, 0, offsetof(struct rp_symres, lines));
	GElf_Off off = 0;
	GElf_Sym sym;
	const char *name = dwfl_module_addrinfo(h->mod, addr, &off, &sym, NULL, NULL, NULL);
	if (name && name[0]) {
		res->symname = name;
		res->sym_start = addr - off;
	}
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
