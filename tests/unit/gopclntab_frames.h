/* SPDX-License-Identifier: MIT */
/*
 * test_gopclntab's checks of the unwind rules trecord derives for Go
 * functions, against the linker's .debug_frame of the unstripped build
 * (read with libdw): frameless functions by their pcsp table, and every
 * CFA rule record/unwind/go_roots.c gives (go_frames.c's prologues,
 * epilogues and stack-growth blocks among them).
 */
#ifndef TREC_GOPCLNTAB_FRAMES_H
#define TREC_GOPCLNTAB_FRAMES_H

#include "gopclntab_dwarf.h"
#include <stddef.h>
#include "format/upper_bound.h"
#include "record/unwind/ehframe.h"
#include "record/unwind/go_frames.h"
#include "unit_check.h"

static void frameless_run(void *ctx, uint64_t lo, uint64_t hi, int32_t sp_delta)
{
	int *state = ctx; /* 0 no run, 1 all at 0, 2 sp moved */

	(void)lo;
	(void)hi;
	*state = sp_delta || *state == 2 ? 2 : 1;
}

/* Whether function i's pcsp table is 0 throughout; -1 if unreadable. */
static int pcsp_frameless(struct gopclntab *g, size_t i)
{
	int state = 0;

	return gopclntab_walk_sp(g, i, frameless_run, &state) ? -1 : state == 1;
}

/* Frameless functions (pcsp 0 throughout) against .debug_frame. */
static void check_frameless(struct gopclntab *g, const char *full)
{
	struct dwarf_oracle o;
	Dwarf_CFI *cfi;
	size_t yes = 0, agree = 0, compared = 0, memclr = 0;
	char name[200];

	if (dwarf_oracle_open(&o, full) || !(cfi = dwarf_getcfi(o.dw))) {
		CHECK("gopclntab: frameless: the unstripped build's .debug_frame opens", 0);
		dwarf_oracle_close(&o);
		return;
	}
	for (size_t i = 0; i < gopclntab_num_funcs(g); i++) {
		struct gopcln_func f;
		int fl;

		if (gopclntab_func(g, i, &f) || (fl = pcsp_frameless(g, i)) < 0)
			continue;
		int want = dwarf_cfa_is_sp8(cfi, f.entry, f.end);

		if (want < 0)
			continue;
		compared++;
		yes += fl;
		agree += fl == (want == 1);
		if (fl && f.name && !strcmp(f.name, "runtime.memclrNoHeapPointers"))
			memclr++;
		if (fl != (want == 1) && compared - agree <= 3)
			printf("  %s: pcsp says %sframeless, .debug_frame not\n", f.name ? f.name : "?",
			       fl ? "" : "not ");
	}
	snprintf(name, sizeof(name),
		 "gopclntab: %zu of %zu functions frameless by pcsp, as .debug_frame says (%zu agree)",
		 yes, compared, agree);
	CHECK(name, compared > 1000 && agree == compared && yes >= 50 && memclr == 1);
	dwarf_oracle_close(&o);
}

/* Whether a row of rows (sorted, disjoint) lies in [lo, hi). */
static bool rows_touch(const struct trec_rows *rows, uint64_t lo, uint64_t hi)
{
	size_t a = TREC_UPPER_BOUND(rows->v, rows->n, end, lo); /* the first to end past lo */

	return a < rows->n && rows->v[a].start < hi;
}

/* The CFA rules trecord gives Go code (record/unwind/go_roots.c: the
 * frameless, and go_frames.c's prologues, epilogues and stack-growth
 * blocks where pcsp agrees), at every pc they cover, against
 * .debug_frame's; and the Go functions (a stack check or a frame of
 * their own) left without any. */
static void check_frame_rows(struct gopclntab *g, const char *full)
{
	struct dwarf_oracle o;
	struct trec_rows rows = { 0 };
	Dwarf_CFI *cfi;
	Elf *elf = NULL;
	int fd = open(full, O_RDONLY | O_CLOEXEC);
	size_t pcs = 0, wrong = 0, unruled = 0, ruled = 0;
	char name[240];

	if (fd < 0 || elf_version(EV_CURRENT) == EV_NONE ||
	    !(elf = elf_begin(fd, ELF_C_READ, NULL)) || trec_go_root_rows(elf, &rows) ||
	    dwarf_oracle_open(&o, full) || !(cfi = dwarf_getcfi(o.dw))) {
		CHECK("gopclntab: Go rows: the unstripped build, its rows and .debug_frame", 0);
		goto out;
	}
	for (size_t k = 0; k < rows.n; k++) {
		if (rows.v[k].command)
			continue; /* a root or stack switch: no CFA of its own */
		for (uint64_t pc = rows.v[k].start; pc < rows.v[k].end; pc++) {
			int want = dwarf_cfa_sp_offset(cfi, pc);

			if (want == -1)
				continue; /* the padding after a function */
			pcs++;
			if (want != rows.v[k].info.cfa_param && wrong++ < 3)
				printf("  %#llx: cfa rsp+%d, .debug_frame rsp+%d\n",
				       (unsigned long long)pc, rows.v[k].info.cfa_param, want);
		}
	}
	for (size_t i = 0; i < gopclntab_num_funcs(g); i++) {
		struct gopcln_func f;
		const uint8_t *code;

		if (gopclntab_func(g, i, &f) || !(code = trec_elf_code_at(elf, f.entry, f.end)))
			continue;
		if (rows_touch(&rows, f.entry, f.end))
			ruled++;
		/* Go code starts with gc's stack check or frame; assembly
		 * with PUSHQ BP (asyncPreempt) makes its own */
		else if (trec_go_has_prologue(code, f.end - f.entry) && code[0] != 0x55)
			unruled++;
	}
	snprintf(name, sizeof(name),
		 "gopclntab: trecord's Go rows (%zu functions) = .debug_frame's CFA at %zu of %zu "
		 "pcs; %zu Go functions without rows",
		 ruled, pcs - wrong, pcs, unruled);
	CHECK(name, ruled > 1000 && pcs > 10000 && !wrong && !unruled);
	dwarf_oracle_close(&o);
out:
	trec_rows_free(&rows);
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
}

#endif /* TREC_GOPCLNTAB_FRAMES_H */
