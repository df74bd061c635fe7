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
 *  - by .gopclntab's funcFlag (Go 1.17+), after the names above: a
 *    TOPFRAME function (runtime.mstart: the threads' walks end there,
 *    with cgo too, whose threads start from crosscall_amd64, C with no
 *    unwind table) is a STOP; an SPWRITE one (runtime.asmcgocall, which
 *    moves to g0 and aligns sp for C; callCgoMmap, sigfwd) a
 *    GO_SWITCH_ROOT, as Go's own traceback stops at them.
 *  - frameless (CFA = sp + 8): every other function whose pcsp table says it
 *    never moves sp (NOSPLIT $0 assembly: runtime.mstart, the syscall
 *    wrappers, memclr, memmove), so that a thread waiting in futex keeps
 *    the frame that called it, and a leaf in memclr keeps mallocgc.
 * Every other function gets exact rules for its prologue and epilogues
 * (go_frames.c).
 */
#include <errno.h>
#include <string.h>
#include "format/gopclntab/gopclntab.h"
#include "record/unwind/ehframe.h"
#include "record/unwind/go_frames.h"

#define CMD(c) ((uint16_t)(TREC_UNWIND_COMMAND | (c)))

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
};

/* Larger functions are a damaged table (or not worth the rules). */
#define GO_FUNC_MAX_LEN (1u << 20)

const uint8_t *trec_elf_code_at(Elf *elf, uint64_t lo, uint64_t hi)
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

/* CFA = sp + 8, rbp untouched: the return address is at sp. */
static int frameless_row(const struct gopcln_func *f, struct trec_rows *out)
{
	struct trec_row row = { .start = f->entry, .end = f->end };

	row.info.cfa_reg = TREC_REG_SP;
	row.info.cfa_param = 8;
	row.info.fp_rule = TREC_FP_SAME;
	return trec_rows_push(out, &row);
}

/* One walk of a function's pcsp table: whether sp ever moves, and the
 * code's rows clipped to the pcs where the table agrees with them. */
struct sp_walk {
	const struct trec_rows *rows;
	struct trec_rows *out;
	int err;
	bool any, moved;
};

static void sp_run(void *ctx, uint64_t lo, uint64_t hi, int32_t sp_delta)
{
	struct sp_walk *w = ctx;

	w->any = true;
	w->moved |= sp_delta != 0;
	for (size_t i = 0; i < w->rows->n && !w->err; i++) {
		struct trec_row r = w->rows->v[i];

		if (r.info.cfa_param != (int64_t)sp_delta + 8)
			continue;
		r.start = r.start > lo ? r.start : lo;
		r.end = r.end < hi ? r.end : hi;
		if (r.start < r.end)
			w->err = trec_rows_push(w->out, &r);
	}
}

/* Function i's rule from go_rules into roots, else its frame rules. */
static int func_rows(Elf *elf, struct gopclntab *g, size_t i, const struct gopcln_func *f,
		     struct trec_rows *roots, struct trec_rows *frames)
{
	const uint8_t *code = trec_elf_code_at(elf, f->entry, f->end);
	struct trec_rows mine = { 0 };
	struct sp_walk w = { &mine, frames, 0, false, false };
	bool walked;
	int err;

	for (size_t k = 0; k < sizeof(go_rules) / sizeof(go_rules[0]); k++) {
		struct trec_row row = { .start = f->entry, .end = f->end,
					.command = go_rules[k].command };

		if (!strcmp(f->name, go_rules[k].name))
			return trec_rows_push(roots, &row);
	}
	/* Where Go's own traceback stops (runtime/traceback.go): a TOPFRAME
	 * function is the outermost frame; an SPWRITE one moved sp where the
	 * pcsp table cannot follow, so its sp + 8 is no return address (as
	 * the frameless rule below would read: asmcgocall's is a pointer into
	 * .bss or the heap once it has moved to g0 and aligned sp for C).
	 * Go clears SPWRITE for cgocallback, whose frames hold on both
	 * stacks; the functions named above keep their own rules. */
	if (f->flag & (GOPCLN_FLAG_TOPFRAME | GOPCLN_FLAG_SPWRITE) &&
	    strcmp(f->name, "runtime.cgocallback")) {
		struct trec_row row = { .start = f->entry, .end = f->end,
					.command = f->flag & GOPCLN_FLAG_TOPFRAME ?
						   CMD(TREC_CMD_STOP) : CMD(TREC_CMD_GO_SWITCH_ROOT) };

		return trec_rows_push(roots, &row);
	}
	if (!code)
		return 0;
	/* The code's shapes, kept where pcsp agrees: the stack-growth block
	 * is not always last (a wrapper's panic check follows it, in the
	 * frame), and a table that cannot be read keeps them all. */
	err = trec_go_frame_rows(code, f->entry, f->end, &mine);
	walked = !err && !gopclntab_walk_sp(g, i, sp_run, &w);
	err = err ?: w.err;
	if (!err && !walked)
		for (size_t k = 0; k < mine.n && !err; k++)
			err = trec_rows_push(frames, &mine.v[k]);
	trec_rows_free(&mine);
	/* sp never moves (NOSPLIT $0 assembly): a leaf there would otherwise
	 * be walked through its caller's record, losing the caller. The
	 * prologue check guards against a table that disagrees with the
	 * code (a function with rows has a prologue: none were clipped in). */
	if (!err && walked && w.any && !w.moved && !trec_go_has_prologue(code, f->end - f->entry))
		err = frameless_row(f, roots);
	return err;
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
		err = func_rows(elf, g, i, &f, &roots, &frames);
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
