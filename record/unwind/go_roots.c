// SPDX-License-Identifier: MIT
/*
 * Where Go stacks end, and where their frame-pointer chain changes stacks:
 * rules for a few runtime functions found by name in .gopclntab (it
 * survives stripping). Without them the chain runs on from a thread's
 * first frame into whatever rbp clone() left (a parent's stale frame), and
 * stops with FP_BELOW_SP where Go moved to the thread's g0 stack, whose
 * memory may lie above or below the goroutine's.
 *
 *  - STOP (the outermost frame, as _start and clone in C): runtime.goexit
 *    (every goroutine's first return address), runtime.rt0_go (the main
 *    thread's, which calls runtime.mstart) and runtime.sigtramp (a signal
 *    handler, on the thread's signal stack); runtime.clone as a return
 *    address (the first frame of the other threads, which call mstart
 *    from it; as the leaf, a frame-pointer step: GO_SWITCH_ROOT).
 *  - GO_SWITCH_ROOT: runtime.systemstack, runtime.mcall and
 *    runtime.morestack move to the g0 stack and call a function there
 *    (gogo, which jumps back to a goroutine, is only ever the leaf);
 *    they keep no frame of their own, so the goroutine frame that called
 *    them is on no chain (Go finds it through the g, in memory BPF does
 *    not know): as a return address they end the g0 stack cleanly, as Go's
 *    own runtime.Stack ends it; as the leaf they are a frame-pointer step,
 *    which may go from the g0 stack back to the goroutine's (as a
 *    frameless leaf, the goroutine frame that called them is lost).
 *  - GO_SWITCH_FP: runtime.nanotime1, runtime.walltime(1) and time.now
 *    call the vdso on the g0 stack but keep their frame record on the
 *    goroutine's: a frame-pointer step allowed to move to another stack.
 *  - frameless (CFA = sp + 8): runtime.mstart and the syscall wrappers,
 *    so that a thread waiting in futex keeps the frame that called it.
 * Every other function gets exact rules for its prologue and epilogues
 * (go_frames.c).
 */
#include <errno.h>
#include <string.h>
#include "format/gopclntab/gopclntab.h"
#include "record/unwind/ehframe.h"
#include "record/unwind/go_frames.h"

#define CMD(c) ((uint16_t)(TREC_UNWIND_COMMAND | (c)))

/* command 0: frameless (CFA = sp + 8, rbp untouched) */
static const struct {
	const char *name;
	uint16_t command;
} go_rules[] = {
	{ "runtime.goexit", CMD(TREC_CMD_STOP) },
	{ "runtime.rt0_go", CMD(TREC_CMD_STOP) },
	{ "runtime.sigtramp", CMD(TREC_CMD_STOP) },
	{ "runtime.clone", CMD(TREC_CMD_GO_SWITCH_ROOT) },
	{ "runtime.systemstack", CMD(TREC_CMD_GO_SWITCH_ROOT) },
	{ "runtime.mcall", CMD(TREC_CMD_GO_SWITCH_ROOT) },
	{ "runtime.morestack", CMD(TREC_CMD_GO_SWITCH_ROOT) },
	{ "gogo", CMD(TREC_CMD_GO_SWITCH_ROOT) }, /* the leaf between its sp and bp loads */
	{ "runtime.nanotime1", CMD(TREC_CMD_GO_SWITCH_FP) },
	{ "runtime.walltime", CMD(TREC_CMD_GO_SWITCH_FP) },
	{ "runtime.walltime1", CMD(TREC_CMD_GO_SWITCH_FP) },
	{ "time.now", CMD(TREC_CMD_GO_SWITCH_FP) },
	/* NOSPLIT $0 assembly that never moves sp (runtime/sys_linux_amd64.s,
	 * asm_amd64.s): mstart only calls mstart0; the rest are syscalls and
	 * procyield, where a thread waits or spins. */
	{ "runtime.mstart", 0 },
	{ "runtime.futex", 0 },
	{ "runtime.read", 0 },
	{ "runtime.write1", 0 },
	{ "runtime.madvise", 0 },
	{ "runtime.osyield", 0 },
	{ "runtime.epollwait", 0 },
	{ "runtime.epollctl", 0 },
	{ "runtime.tgkill", 0 },
	{ "runtime.getpid", 0 },
	{ "runtime.gettid", 0 },
	{ "runtime.rtsigprocmask", 0 },
	{ "runtime.rt_sigaction", 0 },
	{ "runtime.setitimer", 0 },
	{ "runtime.mincore", 0 },
	{ "runtime.sysMmap", 0 },
	{ "runtime.sysMunmap", 0 },
	{ "runtime.sched_getaffinity", 0 },
	{ "runtime.raise", 0 },
	{ "runtime.raiseproc", 0 },
	{ "runtime.pipe2", 0 },
	{ "runtime.open", 0 },
	{ "runtime.closefd", 0 },
	{ "runtime.procyield", 0 },
	/* systemstack's helper (asm_amd64.s, NOSPLIT $0): a leaf there keeps
	 * systemstack and its caller (rbp is still systemstack's caller's). */
	{ "gosave_systemstack_switch", 0 },
};

/* Larger functions are a damaged table (or not worth the rules). */
#define GO_FUNC_MAX_LEN (1u << 20)

/* The bytes of [lo, hi) in an executable section, or NULL. */
static const uint8_t *code_at(Elf *elf, uint64_t lo, uint64_t hi)
{
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) || lo < sh.sh_addr ||
		    hi > sh.sh_addr + sh.sh_size || !(d = elf_getdata(scn, NULL)) || !d->d_buf ||
		    d->d_size != sh.sh_size)
			continue;
		return (const uint8_t *)d->d_buf + (lo - sh.sh_addr);
	}
	return NULL;
}

/* Function i's rule from go_rules into roots, else its frame rules. */
static int func_rows(Elf *elf, const struct gopcln_func *f, struct trec_rows *roots,
		     struct trec_rows *frames)
{
	const uint8_t *code;

	for (size_t k = 0; k < sizeof(go_rules) / sizeof(go_rules[0]); k++) {
		struct trec_row row = { .start = f->entry, .end = f->end };

		if (strcmp(f->name, go_rules[k].name))
			continue;
		row.command = go_rules[k].command;
		if (!row.command) {
			/* unless another Go version gave it a frame */
			code = code_at(elf, f->entry, f->end);
			if (!code || trec_go_has_prologue(code, f->end - f->entry))
				return 0;
			row.info.cfa_reg = TREC_REG_SP;
			row.info.cfa_param = 8;
			row.info.fp_rule = TREC_FP_SAME;
		}
		return trec_rows_push(roots, &row);
	}
	code = code_at(elf, f->entry, f->end);
	return code ? trec_go_frame_rows(code, f->entry, f->end, frames) : 0;
}

int trec_go_root_rows(Elf *elf, struct trec_rows *out)
{
	struct trec_rows roots = { 0 }, frames = { 0 };
	struct gopclntab *g;
	int err = gopclntab_open_elf(elf, &g);

	if (err)
		return err == -ENOENT || err == -EBADMSG ? 0 : err;
	for (size_t i = 0, n = gopclntab_num_funcs(g); i < n && !err; i++) {
		struct gopcln_func f;

		if (gopclntab_func(g, i, &f) || !f.name || f.end <= f.entry ||
		    f.end - f.entry > GO_FUNC_MAX_LEN)
			continue;
		err = func_rows(elf, &f, &roots, &frames);
	}
	gopclntab_free(g);
	if (!err) {
		trec_rows_normalize(&roots);
		trec_rows_normalize(&frames);
		err = trec_rows_paint(&roots, &frames, out);
	}
	trec_rows_free(&roots);
	trec_rows_free(&frames);
	return err;
}
