// SPDX-License-Identifier: MIT
/*
 * Exact rules for the instructions of a Go function where rbp is not yet
 * (or no longer) its frame pointer: the prologue before LEAQ sets it, the
 * epilogue after MOVQ restores the caller's, and the stack-growth block
 * the prologue jumps to. A leaf sampled there would otherwise be walked
 * through its caller's record, losing the caller, and on the g0 stack
 * (functions systemstack or mcall call) that record is on the goroutine's
 * stack: FP_BELOW_SP. gc (Go 1.17-1.20, register ABI) emits, per function:
 *
 *   [LEAQ -n(SP), R12; CMPQ 16(R14), R12 | CMPQ 16(R14), SP; JBE more]
 *     (24(R14), stackguard1, in functions that run on the system stack;
 *     frames over StackBig: MOVQ SP, R12; SUBQ $n, R12; JCS more;
 *     CMPQ 16(R14), R12; JBE more)
 *   SUBQ $x, SP; MOVQ BP, x-8(SP); LEAQ x-8(SP), BP      body ...
 *   MOVQ x-8(SP), BP; ADDQ $x, SP; RET | JMP             (each epilogue)
 *     (x = 8, a frame of no locals: (SP) with no displacement, as in
 *     time.Now; x = 128: ADDQ $-128, SP and SUBQ $-128, SP)
 *   more: ...; CALL runtime.morestack_noctxt; ...; JMP entry   (at the end)
 *
 * Only functions whose prologue is exactly this get rules; the rest keep
 * the frame-pointer rule of their gap (record/unwind/ehframe_gaps.c).
 */
#include <string.h>
#include "record/unwind/go_frames.h"

struct insn {
	const uint8_t *p, *end;
};

/* Reads a 1- or 4-byte little-endian immediate after a matched opcode. */
static bool imm(struct insn *c, size_t n, int64_t *v)
{
	if ((size_t)(c->end - c->p) < n)
		return false;
	if (n == 1) {
		*v = (int8_t)c->p[0];
	} else {
		int32_t x;

		memcpy(&x, c->p, 4);
		*v = x;
	}
	c->p += n;
	return true;
}

/* Matches op8 + imm8 or op32 + imm32 (same length prefix); *v the imm. */
static bool op_imm(struct insn *c, const uint8_t *op8, const uint8_t *op32, size_t oplen,
		   int64_t *v)
{
	if ((size_t)(c->end - c->p) < oplen)
		return false;
	if (!memcmp(c->p, op8, oplen)) {
		c->p += oplen;
		return imm(c, 1, v);
	}
	if (!memcmp(c->p, op32, oplen)) {
		c->p += oplen;
		return imm(c, 4, v);
	}
	return false;
}

static bool bytes(struct insn *c, const uint8_t *b, size_t n)
{
	if ((size_t)(c->end - c->p) < n || memcmp(c->p, b, n))
		return false;
	c->p += n;
	return true;
}

/* CMPQ 16(R14), reg (g.stackguard0), or 24(R14) (stackguard1: functions
 * that run on the system stack); rex 0x49 for SP, 0x4d for R12. */
static bool cmp_guard(struct insn *c, uint8_t rex)
{
	if (c->end - c->p < 4 || c->p[0] != rex || c->p[1] != 0x3b || c->p[2] != 0x66 ||
	    (c->p[3] != 0x10 && c->p[3] != 0x18))
		return false;
	c->p += 4;
	return true;
}

/* A conditional jump (rel8 short opcode, or 0x0f then long opcode);
 * *to its target. */
static bool jcc(struct insn *c, uint8_t short_op, uint8_t long_op, uint64_t entry,
		const uint8_t *base, uint64_t *to)
{
	int64_t v;

	if (c->p < c->end && c->p[0] == short_op) {
		c->p++;
		if (!imm(c, 1, &v))
			return false;
	} else if (bytes(c, (const uint8_t[]){ 0x0f, long_op }, 2)) {
		if (!imm(c, 4, &v))
			return false;
	} else {
		return false;
	}
	*to = entry + (uint64_t)(c->p - base) + (uint64_t)v;
	return true;
}

/* A frame over StackBig's check, which guards the subtraction against
 * wrapping: MOVQ SP, R12; SUBQ $n, R12; JCS more; CMPQ guard, R12. */
static bool big_check(struct insn *t, uint64_t entry, const uint8_t *base)
{
	static const uint8_t mov[] = { 0x49, 0x89, 0xe4 };
	static const uint8_t sub8[] = { 0x49, 0x83, 0xec }, sub32[] = { 0x49, 0x81, 0xec };
	uint64_t to;
	int64_t v;

	return bytes(t, mov, sizeof(mov)) && op_imm(t, sub8, sub32, 3, &v) &&
	       jcc(t, 0x72, 0x82, entry, base, &to) && cmp_guard(t, 0x4d);
}

/* The optional stack check; *more the JBE target (0 if none). */
static bool stack_check(struct insn *c, uint64_t entry, const uint8_t *base, uint64_t *more)
{
	static const uint8_t lea8[] = { 0x4c, 0x8d, 0x64, 0x24 }, lea32[] = { 0x4c, 0x8d, 0xa4, 0x24 };
	struct insn t = *c, u = *c;
	int64_t v;

	*more = 0;
	if (big_check(&u, entry, base))
		t = u;
	else if (!cmp_guard(&t, 0x49) && !(op_imm(&t, lea8, lea32, 4, &v) && cmp_guard(&t, 0x4d)))
		return true; /* none: a NOSPLIT function */
	if (!jcc(&t, 0x76, 0x86, entry, base, more)) /* JBE */
		return false;
	*c = t;
	return true;
}

/* MOVQ BP, d(SP) (op 0x89), MOVQ d(SP), BP (0x8b) or LEAQ d(SP), BP
 * (0x8d), with no, an 8-bit or a 32-bit displacement; *d the displacement. */
static bool bp_sp(struct insn *c, uint8_t op, int64_t *d)
{
	if (c->end - c->p < 4 || c->p[0] != 0x48 || c->p[1] != op || c->p[3] != 0x24)
		return false;
	uint8_t modrm = c->p[2];

	if (modrm != 0x2c && modrm != 0x6c && modrm != 0xac)
		return false;
	c->p += 4;
	*d = 0;
	return modrm == 0x2c || imm(c, modrm == 0x6c ? 1 : 4, d);
}

/* SP moved by x bytes: down (SUBQ $x, SP) if down, else up (ADDQ $x,
 * SP). A move of 128 has no 8-bit immediate, and gc's assembler writes
 * it as the other instruction with -128 (ADDQ $-128, SP in the prologue
 * of a 128-byte frame: runtime.mapassign, chansend). */
static bool sp_move(struct insn *c, bool down, int64_t *x)
{
	static const uint8_t sub8[] = { 0x48, 0x83, 0xec }, sub32[] = { 0x48, 0x81, 0xec };
	static const uint8_t add8[] = { 0x48, 0x83, 0xc4 }, add32[] = { 0x48, 0x81, 0xc4 };
	struct insn t = *c;

	if (op_imm(&t, down ? sub8 : add8, down ? sub32 : add32, 3, x)) {
		*c = t;
		return true;
	}
	if (bytes(&t, down ? add8 : sub8, 3) && t.p < t.end && t.p[0] == 0x80) {
		t.p++;
		*x = 128;
		*c = t;
		return true;
	}
	return false;
}

static int row(struct trec_rows *out, uint64_t lo, uint64_t hi, int32_t cfa)
{
	struct trec_row r = { .start = lo, .end = hi };

	r.info.cfa_reg = TREC_REG_SP;
	r.info.cfa_param = cfa;
	r.info.fp_rule = TREC_FP_SAME;
	return lo < hi ? trec_rows_push(out, &r) : 0;
}

/* Each epilogue of a frame of x bytes in [c->p, c->end). */
static int epilogues(struct insn c, uint64_t entry, const uint8_t *base, int64_t x,
		     struct trec_rows *out)
{
	int err = 0;

	for (; c.p + 9 <= c.end && !err; c.p++) {
		struct insn t = c;
		int64_t disp, n;

		if (!bp_sp(&t, 0x8b, &disp) || disp != x - 8)
			continue;
		const uint8_t *add = t.p;

		if (!sp_move(&t, false, &n) || n != x || t.p >= t.end)
			continue;
		/* RET, JMP rel32 or JMP rel8 (a tail call) */
		size_t len = t.p[0] == 0xc3 ? 1 : t.p[0] == 0xe9 ? 5 : t.p[0] == 0xeb ? 2 : 0;

		if (!len || (size_t)(t.end - t.p) < len)
			continue;
		uint64_t a = entry + (uint64_t)(add - base), r = entry + (uint64_t)(t.p - base);

		err = row(out, a, r, (int32_t)x + 8);
		err = err ?: row(out, r, r + len, 8);
		c.p = t.p;
	}
	return err;
}

bool trec_go_has_prologue(const uint8_t *code, uint64_t len)
{
	struct insn c = { code, code + len };
	uint64_t more;
	int64_t x;

	/* PUSHQ BP (Go 1.21+), a stack check, or SUBQ $x, SP */
	if (len && code[0] == 0x55)
		return true;
	return !stack_check(&c, 0, code, &more) || more || sp_move(&c, true, &x);
}

int trec_go_frame_rows(const uint8_t *code, uint64_t entry, uint64_t end, struct trec_rows *out)
{
	struct insn c = { code, code + (end - entry) };
	uint64_t more, body;
	int64_t x, d;
	int err;

	if (!stack_check(&c, entry, code, &more) || !sp_move(&c, true, &x) || x < 8 ||
	    x > (1 << 24))
		return 0;
	uint64_t framed = entry + (uint64_t)(c.p - code);

	if (!bp_sp(&c, 0x89, &d) || d != x - 8 || !bp_sp(&c, 0x8d, &d) || d != x - 8)
		return 0;
	body = entry + (uint64_t)(c.p - code);
	err = row(out, entry, framed, 8);
	err = err ?: row(out, framed, body, (int32_t)x + 8);
	if (more && more > body && more < end) {
		c.end = code + (more - entry);
		err = err ?: row(out, more, end, 8);
	}
	return err ?: epilogues(c, entry, code, x, out);
}
