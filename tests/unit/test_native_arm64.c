// SPDX-License-Identifier: MIT
/*
 * The arm64 half of the native unwinder (bpf/native_unwind_arm64.h), one
 * step at a time on hand-made stacks: the rules gdb comparisons rarely or
 * never reach (tests/arm64/ covers real stacks). The return address from
 * LR only while LR is the frame's, from the stack with its PAC stripped,
 * signal frames, and the refusals with their errors.
 */
#include <errno.h>
#include <string.h>

#define TREC_TESTING_OFFLINE 1
#include "testing_shim.h"
#define __TARGET_ARCH_arm64 1
#include "native_unwind.h"

#include "unit_check.h"

/* One file (id 1) with one delta page: deltas[1] governs all of it. */
#define FILE_ID 1
#define STACK_BASE 0x7ff000000000ULL
#define STACK_WORDS 512

static struct {
	struct trec_delta_page_value page;
	struct trec_stack_delta deltas[2];
	struct trec_unwind_info info;
	uint64_t stack[STACK_WORDS];
	uint64_t metrics[TREC_METRIC_COUNT];
} fx;

static void *bpf_map_lookup_elem(void *map, const void *key)
{
	uint32_t idx = *(const uint32_t *)key;

	if (map == (void *)&stack_delta_pages) {
		const struct trec_delta_page_key *k = key;
		return k->file_id == FILE_ID && k->page == 0 ? &fx.page : NULL;
	}
	if (map == (void *)&stack_deltas) /* pairs of deltas */
		return idx == 0 ? &fx.deltas[0] : NULL;
	if (map == (void *)&unwind_info_array)
		return idx == 0 ? &fx.info : NULL;
	if (map == (void *)&metrics)
		return idx < TREC_METRIC_COUNT ? &fx.metrics[idx] : NULL;
	return NULL;
}

static long bpf_probe_read_user(void *dst, __u32 size, const void *ptr)
{
	uint64_t a = (uint64_t)(uintptr_t)ptr;

	if (a >= STACK_BASE && a - STACK_BASE + size <= sizeof(fx.stack)) {
		memcpy(dst, (const char *)fx.stack + (a - STACK_BASE), size);
		return 0;
	}
	memset(dst, 0, size);
	return -EFAULT;
}

#include "shim_stubs.h" /* the helpers the unwinder never calls */

/* A rule (info, or a command with TREC_UNWIND_COMMAND) for the whole file. */
static void set_rule(uint16_t unwind_info, struct trec_unwind_info info)
{
	memset(&fx, 0, sizeof(fx));
	fx.page.first_delta = 1;
	fx.page.num_deltas = 1;
	fx.deltas[0].unwind_info = TREC_UNWIND_COMMAND | TREC_CMD_INVALID;
	fx.deltas[1].unwind_info = unwind_info;
	fx.info = info;
}

/* A leaf cursor at sp = STACK_BASE + 64 words, x30 = 0x400800. */
static struct trec_unwind_state leaf(void)
{
	struct trec_unwind_state st = { 0 };

	st.pc = 0x400100;
	st.sp = STACK_BASE + 64 * 8;
	st.fp = STACK_BASE + 200 * 8;
	st.lr = 0x400800;
	st.lr_valid = 1;
	st.text_file_id = FILE_ID;
	st.text_offset = 0x100;
	st.stack_lo = st.sp;
	st.error_metric = -1;
	return st;
}

static uint64_t *word(uint64_t addr)
{
	return &fx.stack[(addr - STACK_BASE) / 8];
}

/* One step of st's cursor, in a record as the unwinder takes it. */
static int step(struct trec_unwind_state *st)
{
	static struct trec_per_cpu_record rec;
	bool stop = false;
	int err;

	rec.state = *st;
	err = trec_unwind_one_frame(&rec, &stop);
	*st = rec.state;
	return err ? -1 : stop ? 1 : 0;
}

static void test_lr(void)
{
	struct trec_unwind_info lr = { .cfa_reg = TREC_REG_SP, .ra_rule = TREC_RA_LR };
	struct trec_unwind_state st;

	set_rule(0, lr);
	st = leaf();
	uint64_t sp = st.sp;
	CHECK("leaf: return address from LR", step(&st) == 0 && st.pc == 0x400800);
	CHECK("leaf: sp unchanged (no frame), LR no longer the frame's",
	      st.sp == sp && !st.lr_valid && st.return_address);

	/* The caller's rule also says LR: its LR was clobbered by the call. */
	CHECK("LR rule above the leaf: an error, not a guess",
	      step(&st) == -1 && st.unwind_error == TREC_ERR_NATIVE_LR_INVALID &&
		      st.error_metric == TREC_METRIC_NATIVE_LR_INVALID);

	set_rule(0, (struct trec_unwind_info){ .cfa_reg = TREC_REG_SP, .cfa_param = -16,
					       .ra_rule = TREC_RA_LR });
	st = leaf();
	CHECK("LR rule with the cfa below sp: SP_NOT_INCREASING",
	      step(&st) == -1 && st.unwind_error == TREC_ERR_NATIVE_SP_NOT_INCREASING);
}

/* stp x29, x30, [sp, #-32]!: cfa = sp + 32, x29 at cfa - 32, x30 at cfa - 24. */
static void test_saved(void)
{
	struct trec_unwind_info saved = { .cfa_reg = TREC_REG_SP, .cfa_param = 32,
					  .fp_rule = TREC_FP_AT_CFA, .fp_param = -32,
					  .ra_rule = TREC_RA_AT_CFA, .ra_param = -24 };
	struct trec_unwind_state st;

	set_rule(0, saved);
	st = leaf();
	uint64_t sp = st.sp;
	*word(sp) = STACK_BASE + 300 * 8;
	*word(sp + 8) = 0x401234;
	CHECK("saved x29/x30: pc, sp, fp of the caller",
	      step(&st) == 0 && st.pc == 0x401234 && st.sp == sp + 32 &&
		      st.fp == STACK_BASE + 300 * 8 && !st.lr_valid);

	set_rule(0, saved);
	st = leaf();
	*word(st.sp + 8) = 0x2d7f000000401234ULL; /* PAC bits above bit 47 */
	CHECK("a signed return address is stripped", step(&st) == 0 && st.pc == 0x401234);

	set_rule(0, saved);
	st = leaf();
	*word(st.sp + 8) = 0x2d7f000000000800ULL;
	CHECK("stripped, still below the first page: SMALL_PC",
	      step(&st) == -1 && st.unwind_error == TREC_ERR_NATIVE_SMALL_PC);

	saved.cfa_param = 0;
	set_rule(0, saved);
	st = leaf();
	CHECK("saved return address with cfa == sp: SP_NOT_INCREASING",
	      step(&st) == -1 && st.unwind_error == TREC_ERR_NATIVE_SP_NOT_INCREASING);

	saved.cfa_reg = TREC_REG_FP;
	saved.cfa_param = 16;
	saved.fp_rule = TREC_FP_SAME;
	set_rule(0, saved);
	st = leaf();
	st.fp = STACK_BASE + STACK_WORDS * 8 + 64; /* the record is past the stack */
	CHECK("x29-based cfa, return address not readable: PC_READ",
	      step(&st) == -1 && st.unwind_error == TREC_ERR_NATIVE_PC_READ);
}

static void test_refused(void)
{
	struct trec_unwind_state st;

	set_rule(0, (struct trec_unwind_info){ .cfa_reg = TREC_REG_SP, .cfa_param = 16 });
	st = leaf();
	CHECK("x86-64's return address rule (cfa - 8): UNSUPPORTED",
	      step(&st) == -1 && st.unwind_error == TREC_ERR_NATIVE_UNSUPPORTED_RULE);

	set_rule(0, (struct trec_unwind_info){ .cfa_reg = TREC_REG_SP,
					       .flags = TREC_UNWIND_F_DEREF_CFA,
					       .ra_rule = TREC_RA_LR });
	st = leaf();
	CHECK("a dereferenced cfa: UNSUPPORTED",
	      step(&st) == -1 && st.unwind_error == TREC_ERR_NATIVE_UNSUPPORTED_RULE);

	set_rule(TREC_UNWIND_COMMAND | TREC_CMD_PLT, (struct trec_unwind_info){ 0 });
	st = leaf();
	CHECK("x86-64's PLT command: UNSUPPORTED",
	      step(&st) == -1 && st.unwind_error == TREC_ERR_NATIVE_UNSUPPORTED_RULE);
	CHECK("a refusal names its metric (bumped when the trace is sent)",
	      st.error_metric == TREC_METRIC_NATIVE_UNSUPPORTED_RULE);

	set_rule(TREC_UNWIND_COMMAND | TREC_CMD_STOP, (struct trec_unwind_info){ 0 });
	st = leaf();
	CHECK("STOP ends the stack without an error, counted",
	      step(&st) == 1 && st.unwind_error == 0 && fx.metrics[TREC_METRIC_NATIVE_STOPPED] == 1);
}

static void test_signal(void)
{
	struct trec_unwind_state st;

	set_rule(TREC_UNWIND_COMMAND | TREC_CMD_SIGNAL, (struct trec_unwind_info){ 0 });
	st = leaf();
	st.lr_valid = 0; /* reached through a handler's saved return address */
	st.return_address = 1;
	uint64_t regs = st.sp + TREC_ARM64_SIGFRAME_X29;
	*word(regs) = STACK_BASE + 400 * 8;        /* x29 */
	*word(regs + 8) = 0x405000;                /* x30 */
	*word(regs + 16) = STACK_BASE + 350 * 8;   /* sp */
	*word(regs + 24) = 0x1b00000000404444ULL;  /* pc, signed */
	CHECK("signal frame: the interrupted context",
	      step(&st) == 0 && st.pc == 0x404444 && st.sp == STACK_BASE + 350 * 8 &&
		      st.fp == STACK_BASE + 400 * 8);
	CHECK("signal frame: LR is the interrupted frame's again, pc not a return address",
	      st.lr_valid && st.lr == 0x405000 && !st.return_address);

	/* The interrupted leaf's return address is then in LR. */
	set_rule(0, (struct trec_unwind_info){ .cfa_reg = TREC_REG_SP, .ra_rule = TREC_RA_LR });
	st.text_file_id = FILE_ID;
	st.text_offset = 0x100;
	CHECK("after a signal frame: the interrupted leaf returns through LR",
	      step(&st) == 0 && st.pc == 0x405000);

	set_rule(TREC_UNWIND_COMMAND | TREC_CMD_SIGNAL, (struct trec_unwind_info){ 0 });
	st = leaf();
	st.sp = STACK_BASE + (STACK_WORDS - 8) * 8;
	CHECK("signal frame past the stack: SIGNAL_FRAME_READ",
	      step(&st) == -1 && st.unwind_error == TREC_ERR_NATIVE_SIGNAL_FRAME_READ);
}

static void test_frame_pointer(void)
{
	struct trec_unwind_state st;

	set_rule(TREC_UNWIND_COMMAND | TREC_CMD_FRAME_POINTER, (struct trec_unwind_info){ 0 });
	st = leaf();
	*word(st.fp) = STACK_BASE + 260 * 8;
	*word(st.fp + 8) = 0x406000;
	CHECK("frame record {x29, x30} at x29, LR no longer valid",
	      step(&st) == 0 && st.pc == 0x406000 && st.fp == STACK_BASE + 260 * 8 &&
		      !st.lr_valid);

	/* The record gave no caller's sp: an sp-based rule next is refused,
	 * an x29-based one is fine. */
	struct trec_unwind_state after = st;
	set_rule(0, (struct trec_unwind_info){ .cfa_reg = TREC_REG_SP, .cfa_param = 32,
					       .ra_rule = TREC_RA_AT_CFA, .ra_param = -8 });
	CHECK("sp-based rule after a frame-pointer step: SP_UNKNOWN",
	      step(&st) == -1 && st.unwind_error == TREC_ERR_NATIVE_SP_UNKNOWN);
	st = after;
	set_rule(0, (struct trec_unwind_info){ .cfa_reg = TREC_REG_FP, .cfa_param = 16,
					       .fp_rule = TREC_FP_AT_CFA, .fp_param = -16,
					       .ra_rule = TREC_RA_AT_CFA, .ra_param = -8 });
	*word(st.fp) = STACK_BASE + 280 * 8;
	*word(st.fp + 8) = 0x407000;
	CHECK("x29-based rule after a frame-pointer step: the caller",
	      step(&st) == 0 && st.pc == 0x407000 && st.sp == STACK_BASE + 262 * 8);
}

int main(void)
{
	test_lr();
	test_saved();
	test_refused();
	test_signal();
	test_frame_pointer();
	return failures ? 1 : 0;
}
