// SPDX-License-Identifier: MIT
/*
 * trec_deltas_extract(): an ELF file -> the sorted, merged list of stack
 * deltas (address, rule) that the delta store loads into BPF maps.
 *
 * Sources, highest priority first:
 *  1. rt_sigreturn trampolines found by their code bytes (SIGNAL);
 *  2. .eh_frame (via libdw);
 *  3. .debug_frame (via libdw), for code .eh_frame does not cover (not
 *     Go's: it does not track rbp, frame pointers do better, 7.);
 *  4. .debug_frame of the separate debug file (build-id or .gnu_debuglink),
 *     for code the binary's own CFI does not cover (not Go's either);
 *  5. PLT sections without CFI (synthesized rules);
 *  6. the ELF entry point's code, when no CFI covers it (STOP);
 *  7. code without CFI that keeps a frame pointer (FRAME_POINTER, only on
 *     evidence: ehframe_gaps.c), and over Go's, its roots and stack
 *     switches (go_roots.c).
 * Each source gives rows; rows are painted by priority, and every gap
 * between rows gets an INVALID delta so uncovered code never inherits the
 * rule of the code before it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gelf.h>
#include "format/containers/vec.h"
#include "record/procs/open_regular.h"
#include "record/unwind/ehframe.h"

#define CMD(c) ((uint16_t)(TREC_UNWIND_COMMAND | (c)))

enum { SRC_SIGNAL, SRC_EH, SRC_DEBUG, SRC_DEBUGFILE, SRC_PLT, SRC_COUNT };

struct extract {
	const char *path;
	Elf *elf;
	struct trec_exec_ranges exec;
	struct trec_rows src[SRC_COUNT];
	size_t fdes, unsupported;
	bool arm64; /* e_machine EM_AARCH64; else x86-64 */
};

static int exec_ranges(Elf *elf, struct trec_exec_ranges *x)
{
	size_t n;
	if (elf_getphdrnum(elf, &n) != 0)
		return -ENOEXEC;
	x->n = 0;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		if (x->n == sizeof(x->lo) / sizeof(x->lo[0]))
			break;
		x->lo[x->n] = ph.p_vaddr;
		x->hi[x->n] = ph.p_vaddr + ph.p_memsz;
		x->n++;
	}
	return 0;
}

static Elf_Scn *find_section(Elf *elf, const char *name)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		const char *n;
		if (gelf_getshdr(scn, &sh) && (n = elf_strptr(elf, shstrndx, sh.sh_name)) &&
		    strcmp(n, name) == 0 && sh.sh_type != SHT_NOBITS)
			return scn;
	}
	return NULL;
}

static int push_rule(struct trec_rows *r, uint64_t start, uint64_t end, uint16_t command,
		     uint8_t cfa_reg, int32_t cfa_param, uint8_t fp_rule)
{
	struct trec_row row = { .start = start, .end = end, .command = command };
	row.info.cfa_reg = cfa_reg;
	row.info.cfa_param = cfa_param;
	row.info.fp_rule = fp_rule;
	return trec_rows_push(r, &row);
}

/*
 * aarch64 PLT stubs (adrp; ldr; add; br) touch neither sp nor x30: the
 * return address is in LR, cfa = sp. PLT0 first pushes x16 and x30
 * (stp x16, x30, [sp, #-16]!): cfa = sp + 16 after its first instruction.
 */
static int plt_rows_arm64(struct trec_rows *r, uint64_t lo, uint64_t hi, bool plt0)
{
	struct trec_row row = { .start = lo, .end = hi };
	int err = 0;

	row.info.cfa_reg = TREC_REG_SP;
	row.info.ra_rule = TREC_RA_LR;
	row.info.fp_rule = TREC_FP_SAME;
	if (plt0 && hi - lo >= 32) {
		row.end = lo + 4;
		err = trec_rows_push(r, &row);
		row.start = lo + 4;
		row.end = lo + 32;
		row.info.cfa_param = 16;
		err = err ?: trec_rows_push(r, &row);
		row.start = lo + 32;
		row.end = hi;
		row.info.cfa_param = 0;
	}
	return err ?: trec_rows_push(r, &row);
}

/*
 * PLT sections ld left without CFI. The lazy .plt (16-byte entries: jmp,
 * push, jmp) has PLT0 (push; jmp) then entries TREC_CMD_PLT describes;
 * .plt.got/.plt.sec entries only jump, so cfa = rsp + 8 throughout.
 */
static int plt_rows(struct extract *x)
{
	static const char *const names[] = { ".plt", ".plt.got", ".plt.sec" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		Elf_Scn *scn = find_section(x->elf, names[i]);
		GElf_Shdr sh;
		if (!scn || !gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR) || !sh.sh_size)
			continue;
		uint64_t lo = sh.sh_addr, hi = sh.sh_addr + sh.sh_size;
		if (!trec_exec_contains(&x->exec, lo, hi))
			continue;
		struct trec_rows *r = &x->src[SRC_PLT];
		int err;
		if (x->arm64) {
			err = plt_rows_arm64(r, lo, hi, i == 0);
		} else if (i == 0 && sh.sh_size >= 16) {
			err = push_rule(r, lo, lo + 6, 0, TREC_REG_SP, 16, TREC_FP_SAME);
			err = err ?: push_rule(r, lo + 6, lo + 16, 0, TREC_REG_SP, 24, TREC_FP_SAME);
			err = err ?: (hi > lo + 16 ? push_rule(r, lo + 16, hi, CMD(TREC_CMD_PLT), 0, 0, 0) : 0);
		} else {
			err = push_rule(r, lo, hi, 0, TREC_REG_SP, 8, TREC_FP_SAME);
		}
		if (err)
			return err;
	}
	return 0;
}

/* mov $15,%rax; syscall: rt_sigreturn, the code signal handlers return to. */
static const uint8_t sigreturn_code[] = { 0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05 };
/* aarch64: mov x8, #139; svc #0 (the vdso's __kernel_rt_sigreturn, an
 * SA_RESTORER), at a 4-byte aligned address. */
static const uint8_t sigreturn_code_arm64[] = { 0x68, 0x11, 0x80, 0xd2, 0x01, 0x00, 0x00, 0xd4 };

static int signal_rows(struct extract *x)
{
	const uint8_t *code = x->arm64 ? sigreturn_code_arm64 : sigreturn_code;
	size_t len = x->arm64 ? sizeof(sigreturn_code_arm64) : sizeof(sigreturn_code);
	uint64_t align = x->arm64 ? 4 : 1;

	for (Elf_Scn *scn = elf_nextscn(x->elf, NULL); scn; scn = elf_nextscn(x->elf, scn)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			continue;
		const uint8_t *p = d->d_buf, *end = p + d->d_size;
		while ((p = memmem(p, (size_t)(end - p), code, len))) {
			uint64_t va = sh.sh_addr + (uint64_t)(p - (const uint8_t *)d->d_buf);
			/* x86-64: and the byte after, the user pc while the
			 * rt_sigreturn syscall runs (a sampled leaf). */
			uint64_t hi = va + len + !x->arm64;
			int err = va % align ? 0 : push_rule(&x->src[SRC_SIGNAL], va, hi,
							     CMD(TREC_CMD_SIGNAL), 0, 0, 0);
			if (err)
				return err;
			p += va % align ? 1 : len;
		}
	}
	return 0;
}

/* The rows of elf's .debug_frame, if it has one. */
static int debug_frame_rows(struct extract *x, Elf *elf, struct trec_rows *out)
{
	Elf_Scn *scn = find_section(elf, ".debug_frame");
	if (!scn)
		return 0;
	Dwarf *dbg = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	Dwarf_CFI *cfi = dbg ? dwarf_getcfi(dbg) : NULL;
	int err = cfi ? trec_cfi_rows(elf, cfi, scn, false, &x->exec, out, &x->fdes,
				      &x->unsupported) : 0;
	if (dbg)
		dwarf_end(dbg);
	return err;
}

static int cfi_sources(struct extract *x)
{
	int err = 0;
	Elf_Scn *eh = find_section(x->elf, ".eh_frame");
	if (eh) {
		Dwarf_CFI *cfi = dwarf_getcfi_elf(x->elf);
		if (cfi) {
			err = trec_cfi_rows(x->elf, cfi, eh, true, &x->exec, &x->src[SRC_EH],
					    &x->fdes, &x->unsupported);
			dwarf_cfi_end(cfi);
		}
	}
	/* Go's .debug_frame does not track rbp: frame pointers do better. */
	bool go = trec_elf_is_go(x->elf);
	err = err ?: (go ? 0 : debug_frame_rows(x, x->elf, &x->src[SRC_DEBUG]));
	Elf *delf;
	int dfd = err || go ? -1 : trec_debugfile_open(x->elf, x->path, &delf);
	if (dfd >= 0) {
		err = debug_frame_rows(x, delf, &x->src[SRC_DEBUGFILE]);
		elf_end(delf);
		close(dfd);
	}
	return err;
}

/* Paints all sources, highest priority first, into x->src[0]. */
static int paint_sources(struct extract *x)
{
	for (int i = 0; i < SRC_COUNT; i++)
		trec_rows_normalize(&x->src[i]);
	for (int i = 1; i < SRC_COUNT; i++) {
		struct trec_rows out = { 0 };
		int err = trec_rows_paint(&x->src[0], &x->src[i], &out);
		if (err) {
			trec_rows_free(&out);
			return err;
		}
		trec_rows_free(&x->src[0]);
		x->src[0] = out;
	}
	return 0;
}

/* Entry code without CFI is never bigger than this (ld.so's RTLD_START:
 * 64 bytes); a larger gap is not trusted to be entry code. */
#define ENTRY_GAP_MAX 4096

/*
 * The program's first code (ld.so's _start/_dl_start_user has no CFI)
 * is the outermost frame: its CFI-less gap gets STOP instead of INVALID,
 * so stacks sampled while ld.so starts a process end cleanly.
 */
static int entry_stop_row(struct extract *x)
{
	struct trec_rows *r = &x->src[0];
	uint64_t lo = 0, hi = UINT64_MAX, entry;
	GElf_Ehdr eh;

	if (!gelf_getehdr(x->elf, &eh) || !eh.e_entry)
		return 0;
	entry = eh.e_entry;
	for (size_t i = 0; i < x->exec.n; i++)
		if (x->exec.lo[i] <= entry && entry < x->exec.hi[i]) {
			lo = x->exec.lo[i];
			hi = x->exec.hi[i];
		}
	if (hi == UINT64_MAX)
		return 0;
	for (size_t i = 0; i < r->n; i++) {
		if (r->v[i].start <= entry && entry < r->v[i].end)
			return 0; /* CFI covers it */
		if (r->v[i].end <= entry && r->v[i].end > lo)
			lo = r->v[i].end;
		if (r->v[i].start > entry && r->v[i].start < hi)
			hi = r->v[i].start;
	}
	if (hi - lo > ENTRY_GAP_MAX)
		return 0;
	int err = push_rule(r, lo, hi, CMD(TREC_CMD_STOP), 0, 0, 0);

	trec_rows_normalize(r);
	return err;
}

/* The gaps that keep a frame pointer get FRAME_POINTER rules. */
static int fp_gap_rows(struct extract *x)
{
	struct trec_rows fp = { 0 }, out = { 0 };
	int err = trec_fp_gap_rows(x->elf, &x->exec, &x->src[0], &fp);

	err = err ?: (fp.n ? trec_rows_paint(&x->src[0], &fp, &out) : 0);
	if (!err && fp.n && trec_elf_is_go(x->elf)) {
		struct trec_rows go = { 0 }, painted = { 0 };

		err = trec_go_root_rows(x->elf, &go);
		err = err ?: (go.n ? trec_rows_paint(&go, &out, &painted) : 0);
		if (!err && go.n) {
			trec_rows_free(&out);
			out = painted;
		} else {
			trec_rows_free(&painted);
		}
		trec_rows_free(&go);
	}
	if (!err && fp.n) {
		trec_rows_free(&x->src[0]);
		x->src[0] = out;
	} else {
		trec_rows_free(&out);
	}
	trec_rows_free(&fp);
	return err;
}

static int push_entry(struct trec_file_deltas *d, size_t *cap, uint64_t addr,
		      const struct trec_row *rule)
{
	if (TREC_GROW(d->entries, *cap, d->num + 1, 1024))
		return -ENOMEM;
	struct trec_delta_entry *e = &d->entries[d->num++];
	memset(e, 0, sizeof(*e));
	e->addr = addr;
	e->command = rule->command;
	if (!rule->command)
		e->info = rule->info;
	return 0;
}

/* Painted rows -> entries: one per rule change, INVALID after each gap. */
static int build_entries(struct trec_rows *rows, struct trec_file_deltas *d)
{
	static const struct trec_row invalid = { .command = CMD(TREC_CMD_INVALID) };
	size_t cap = 0;
	const struct trec_row *last = NULL; /* rule of the last entry */

	for (size_t i = 0; i < rows->n; i++) {
		struct trec_row *r = &rows->v[i];
		/* A signal trampoline's rule starts one byte early: non-leaf
		 * lookups use pc - 1 and the handler "returns" to its start. */
		if (r->command == CMD(TREC_CMD_SIGNAL) && r->start > 0 &&
		    (i == 0 || rows->v[i - 1].end < r->start))
			r->start--;
		int err = 0;
		if (i > 0 && rows->v[i - 1].end < r->start) {
			err = push_entry(d, &cap, rows->v[i - 1].end, &invalid);
			last = &invalid;
		}
		if (!err && (!last || !trec_row_same_rule(last, r))) {
			err = push_entry(d, &cap, r->start, r);
			last = r;
		}
		if (err)
			return err;
	}
	if (rows->n)
		return push_entry(d, &cap, rows->v[rows->n - 1].end, &invalid);
	return 0;
}

int trec_deltas_extract(const char *path, struct trec_file_deltas *out)
{
	struct extract x = { .path = path };
	int err, fd;

	memset(out, 0, sizeof(*out));
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	fd = trec_open_regular(path);
	if (fd < 0)
		return fd;
	x.elf = trec_elf_headers_bounded(fd) ? NULL : elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!x.elf || elf_kind(x.elf) != ELF_K_ELF) {
		err = -ENOEXEC;
		goto out;
	}
	x.arm64 = trec_elf_is_arm64(x.elf);
	err = exec_ranges(x.elf, &x.exec);
	err = err ?: cfi_sources(&x);
	err = err ?: plt_rows(&x);
	err = err ?: signal_rows(&x);
	err = err ?: paint_sources(&x);
	err = err ?: entry_stop_row(&x);
	/* The frame-pointer evidence is x86-64 code (push %rbp; mov). */
	err = err ?: (x.arm64 ? 0 : fp_gap_rows(&x));
	err = err ?: build_entries(&x.src[0], out);
	out->fdes = x.fdes;
	out->unsupported_rules = x.unsupported;
out:
	for (int i = 0; i < SRC_COUNT; i++)
		trec_rows_free(&x.src[i]);
	if (x.elf)
		elf_end(x.elf);
	close(fd);
	if (err)
		trec_file_deltas_free(out);
	return err;
}

void trec_file_deltas_free(struct trec_file_deltas *d)
{
	free(d->entries);
	memset(d, 0, sizeof(*d));
}
