// SPDX-License-Identifier: MIT
/*
 * Where trecord chooses frame pointers over stack deltas, against the
 * binaries' own symbols and code:
 *  - CFI gaps: fpgap's no-CFI functions keep frame pointers (FRAME_POINTER
 *    rules, exact rules for their prologue), partcfi's do not (INVALID);
 *  - Go: its code is FRAME_POINTER, with or without .debug_frame;
 *  - the LPM selector: anonymous memory and files without CFI by frame
 *    pointer, ELF files with CFI and [vdso] by deltas.
 */
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "record/procs/file_id.h"
#include "record/procs/pid_sync.h"
#include "record/unwind/unwind_tables.h"
#include "../unit/fake_delta_sink.h"
#include "unit_check.h"

#define CMD(c) ((uint16_t)(TREC_UNWIND_COMMAND | (c)))

static char root[4096];

/* [*lo, *hi) of a function symbol of path (.symtab). */
static int sym_range(const char *path, const char *name, uint64_t *lo, uint64_t *hi)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), found = 0;
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;

	for (Elf_Scn *s = elf ? elf_nextscn(elf, NULL) : NULL; s && !found; s = elf_nextscn(elf, s)) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(s, &sh) || sh.sh_type != SHT_SYMTAB || !(d = elf_getdata(s, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize && !found; i++) {
			GElf_Sym sym;
			const char *n;

			if (gelf_getsym(d, (int)i, &sym) && (n = elf_strptr(elf, sh.sh_link, sym.st_name)) &&
			    !strcmp(n, name) && sym.st_size) {
				*lo = sym.st_value;
				*hi = sym.st_value + sym.st_size;
				found = 1;
			}
		}
	}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return found;
}

static const char *workload(const char *name)
{
	static char path[8192];

	snprintf(path, sizeof(path), "%s/build/workloads/%s", root, name);
	return access(path, R_OK) == 0 ? path : NULL;
}

static int is_info(const struct trec_file_deltas *d, uint64_t a, int32_t cfa, uint8_t fp_rule)
{
	struct resolved_rule r = source_rule(d, a);

	return !r.command && r.info.cfa_reg == TREC_REG_SP && r.info.cfa_param == cfa &&
	       r.info.fp_rule == fp_rule && (fp_rule != TREC_FP_AT_CFA || r.info.fp_param == -16);
}

static int is_cmd(const struct trec_file_deltas *d, uint64_t a, uint16_t cmd)
{
	return source_rule(d, a).command == cmd;
}

static void check_fpgap(void)
{
	const char *p = workload("fpgap");
	struct trec_file_deltas d;
	uint64_t lo, hi, mlo, mhi;

	if (!p || !sym_range(p, "fp_inner", &lo, &hi) || !sym_range(p, "fp_middle", &mlo, &mhi))
		return;
	CHECK("fp gaps: fpgap extracts", trec_deltas_extract(p, &d) == 0);
	CHECK("fp gaps: fp_inner's first byte: cfa = sp + 8", is_info(&d, lo, 8, TREC_FP_SAME));
	CHECK("fp gaps: after its push %rbp: cfa = sp + 16, rbp saved at cfa - 16",
	      is_info(&d, lo + 1, 16, TREC_FP_AT_CFA) && is_info(&d, lo + 3, 16, TREC_FP_AT_CFA));
	CHECK("fp gaps: its body is FRAME_POINTER",
	      is_cmd(&d, lo + 4, CMD(TREC_CMD_FRAME_POINTER)) &&
		      is_cmd(&d, hi - 1, CMD(TREC_CMD_FRAME_POINTER)));
	CHECK("fp gaps: fp_middle's body too", is_cmd(&d, mlo + 4, CMD(TREC_CMD_FRAME_POINTER)) &&
						       is_cmd(&d, mhi - 1, CMD(TREC_CMD_FRAME_POINTER)));
	trec_file_deltas_free(&d);
}

static void check_partcfi(void)
{
	const char *p = workload("partcfi");
	struct trec_file_deltas d;
	uint64_t lo, hi;

	if (!p || !sym_range(p, "nocfi_inner", &lo, &hi))
		return;
	CHECK("fp gaps: partcfi extracts", trec_deltas_extract(p, &d) == 0);
	CHECK("fp gaps: code without CFI nor frame pointers stays INVALID",
	      is_cmd(&d, lo, CMD(TREC_CMD_INVALID)) && is_cmd(&d, lo + 8, CMD(TREC_CMD_INVALID)) &&
		      is_cmd(&d, hi - 1, CMD(TREC_CMD_INVALID)));
	trec_file_deltas_free(&d);
}

static void check_go(void)
{
	static const char *const names[] = { "gostack", "gostack-stripped" };
	char label[128];
	uint64_t lo, hi;
	const char *plain = workload("gostack");
	uint64_t gx, gx_end, ss, ss_end, now, now_end, as, as_end;

	/* Addresses from the unstripped build: the same code. */
	if (!plain || !sym_range(plain, "main.work", &lo, &hi) ||
	    !sym_range(plain, "runtime.goexit.abi0", &gx, &gx_end) ||
	    !sym_range(plain, "runtime.systemstack.abi0", &ss, &ss_end) ||
	    !sym_range(plain, "runtime.nanotime1.abi0", &now, &now_end) ||
	    !sym_range(plain, "runtime.(*mheap).allocSpan", &as, &as_end))
		return;
	for (int i = 0; i < 2; i++) {
		const char *p = workload(names[i]);
		struct trec_file_deltas d;
		struct trec_file f;
		int fd;

		if (!p)
			continue;
		/* main.work (stack.go): CMPQ (4); JBE more (2); SUBQ $0x20 (4);
		 * MOVQ BP (5); LEAQ BP (5); body; at +0x4e MOVQ 0x18(SP), BP
		 * (5); ADDQ $0x20 (4); RET; more: ... to the end. */
		snprintf(label, sizeof(label), "go: %s: main.work's body is FRAME_POINTER", names[i]);
		CHECK(label, trec_deltas_extract(p, &d) == 0 &&
				     is_cmd(&d, lo + 0x14, CMD(TREC_CMD_FRAME_POINTER)) &&
				     is_cmd(&d, lo + 0x4e, CMD(TREC_CMD_FRAME_POINTER)));
		snprintf(label, sizeof(label),
			 "go: %s: main.work's prologue, epilogue, stack growth by CFA", names[i]);
		CHECK(label, is_info(&d, lo, 8, TREC_FP_SAME) && is_info(&d, lo + 5, 8, TREC_FP_SAME) &&
				     is_info(&d, lo + 6, 8, TREC_FP_SAME) &&
				     is_info(&d, lo + 0xa, 0x28, TREC_FP_SAME) &&
				     is_info(&d, lo + 0x13, 0x28, TREC_FP_SAME) &&
				     is_info(&d, lo + 0x53, 0x28, TREC_FP_SAME) &&
				     is_info(&d, lo + 0x57, 8, TREC_FP_SAME) &&
				     is_info(&d, lo + 0x58, 8, TREC_FP_SAME) &&
				     is_info(&d, lo + 0x6a, 8, TREC_FP_SAME));
		/* allocSpan checks stackguard1 (it runs on the g0 stack): LEAQ
		 * (5); CMPQ 24(R14), R12 (4); JBE (6); SUBQ $0x90 (7) */
		snprintf(label, sizeof(label), "go: %s: a stackguard1 prologue by CFA", names[i]);
		CHECK(label, is_info(&d, as + 0xf, 8, TREC_FP_SAME) &&
				     is_info(&d, as + 0x16, 0x98, TREC_FP_SAME));
		/* Found by name in .gopclntab: the stripped build has no .symtab. */
		snprintf(label, sizeof(label),
			 "go: %s: goexit STOP, systemstack GO_SWITCH_ROOT, nanotime1 GO_SWITCH_FP",
			 names[i]);
		CHECK(label, is_cmd(&d, gx, CMD(TREC_CMD_STOP)) &&
				     is_cmd(&d, gx_end - 1, CMD(TREC_CMD_STOP)) &&
				     is_cmd(&d, ss, CMD(TREC_CMD_GO_SWITCH_ROOT)) &&
				     is_cmd(&d, ss_end - 1, CMD(TREC_CMD_GO_SWITCH_ROOT)) &&
				     is_cmd(&d, now + 8, CMD(TREC_CMD_GO_SWITCH_FP)) &&
				     is_cmd(&d, now_end - 1, CMD(TREC_CMD_GO_SWITCH_FP)));
		trec_file_deltas_free(&d);
		fd = open(p, O_RDONLY | O_CLOEXEC);
		snprintf(label, sizeof(label), "go: %s: Go's unwinder (deltas, frame-pointer fallback)",
			 names[i]);
		CHECK(label, fd >= 0 && trec_file_describe(fd, p, &f) == 0 && f.is_elf && !f.has_cfi &&
				     f.is_go && trec_pid_sync_unwinder(p, &f) == TREC_UNWIND_GO);
		if (fd >= 0) {
			trec_file_release(&f);
			close(fd);
		}
	}
}

static void check_selector(void)
{
	struct trec_file f = { .is_elf = true, .has_cfi = true };
	const char *libc = "/lib/x86_64-linux-gnu/libc.so.6";
	int fd = open(libc, O_RDONLY | O_CLOEXEC);
	struct trec_file lf;

	CHECK("selector: anonymous memory by frame pointer",
	      trec_pid_sync_unwinder("", NULL) == TREC_UNWIND_FRAME_POINTER &&
		      trec_pid_sync_unwinder("[anon:v8]", NULL) == TREC_UNWIND_FRAME_POINTER);
	CHECK("selector: [vdso] and [vsyscall] by deltas",
	      trec_pid_sync_unwinder("[vdso]", NULL) == TREC_PROG_UNWIND_NATIVE &&
		      trec_pid_sync_unwinder("[vsyscall]", NULL) == TREC_PROG_UNWIND_NATIVE);
	CHECK("selector: an ELF file with CFI by deltas",
	      trec_pid_sync_unwinder("/x", &f) == TREC_PROG_UNWIND_NATIVE);
	f.has_cfi = false;
	CHECK("selector: an ELF file without CFI by frame pointer",
	      trec_pid_sync_unwinder("/x", &f) == TREC_UNWIND_FRAME_POINTER);
	f.is_elf = false;
	CHECK("selector: a file that is not ELF (a JIT's memfd) by frame pointer",
	      trec_pid_sync_unwinder("/memfd:jit", &f) == TREC_UNWIND_FRAME_POINTER);
	CHECK("selector: libc has CFI", fd >= 0 && trec_file_describe(fd, libc, &lf) == 0 &&
						lf.has_cfi);
	if (fd >= 0) {
		trec_file_release(&lf);
		close(fd);
	}
}

int main(void)
{
	const char *r = getenv("TREC_ROOT");

	snprintf(root, sizeof(root), "%s", r ? r : ".");
	elf_version(EV_CURRENT);
	check_fpgap();
	check_partcfi();
	check_go();
	check_selector();
	return failures ? 1 : 0;
}
