// SPDX-License-Identifier: MIT
/*
 * trec_go_frame_rows over gc's function shapes, by hand: the CFA rule at
 * every instruction where rbp is not the function's frame pointer (stack
 * check, SUBQ, the stack-growth block, each epilogue), and none in the
 * body. Frames of 8 bytes (no locals: time.Now) use (SP) with no
 * displacement; larger ones an 8- or 32-bit displacement.
 */
#include <stdlib.h>
#include <string.h>
#include "record/unwind/go_frames.h"
#include "unit_check.h"

/* The CFA offset of the row covering pc, or -1 (the gap's FP rule). */
static int cfa_at(const struct trec_rows *r, uint64_t pc)
{
	for (size_t i = 0; i < r->n; i++)
		if (pc >= r->v[i].start && pc < r->v[i].end)
			return r->v[i].info.cfa_param;
	return -1;
}

/* want[pc - entry]: the CFA offset expected there, -1 for none. */
static int rows_match(const uint8_t *code, size_t len, const int *want)
{
	struct trec_rows r = { 0 };
	int ok = !trec_go_frame_rows(code, 0x1000, 0x1000 + len, &r);

	for (size_t i = 0; ok && i < len; i++)
		if (cfa_at(&r, 0x1000 + i) != want[i]) {
			printf("  at +%#zx: cfa %d, want %d\n", i, cfa_at(&r, 0x1000 + i), want[i]);
			ok = 0;
		}
	trec_rows_free(&r);
	return ok;
}

static void fill(int *want, size_t lo, size_t hi, int v)
{
	for (size_t i = lo; i < hi; i++)
		want[i] = v;
}

int main(void)
{
	/* time.Now's shape: a frame of 8 bytes. */
	static const uint8_t small[] = {
		0x49, 0x3b, 0x66, 0x10,		/* 00 cmp 0x10(%r14),%rsp */
		0x76, 0x1a,			/* 04 jbe 0x20 */
		0x48, 0x83, 0xec, 0x08,		/* 06 sub $8,%rsp */
		0x48, 0x89, 0x2c, 0x24,		/* 0a mov %rbp,(%rsp) */
		0x48, 0x8d, 0x2c, 0x24,		/* 0e lea (%rsp),%rbp */
		0xe8, 0, 0, 0, 0,		/* 12 call */
		0x48, 0x8b, 0x2c, 0x24,		/* 17 mov (%rsp),%rbp */
		0x48, 0x83, 0xc4, 0x08,		/* 1b add $8,%rsp */
		0xc3,				/* 1f ret */
		0xe8, 0, 0, 0, 0,		/* 20 call morestack_noctxt */
		0xeb, 0xd9,			/* 25 jmp entry */
	};
	int want[64];

	fill(want, 0, sizeof(small), -1);
	fill(want, 0x00, 0x0a, 8);   /* before SUBQ took effect */
	fill(want, 0x0a, 0x12, 16);  /* BP not yet the frame's */
	fill(want, 0x1b, 0x1f, 16);  /* BP restored, frame still there */
	fill(want, 0x1f, 0x20, 8);   /* at RET */
	fill(want, 0x20, 0x27, 8);   /* the stack-growth block */
	CHECK("go frames: an 8-byte frame ((SP), no displacement) gets its prologue, epilogue "
	      "and stack-growth rules",
	      rows_match(small, sizeof(small), want));

	/* A 0x28-byte frame, 8-bit displacements, a JMP tail call. */
	static const uint8_t mid[] = {
		0x49, 0x3b, 0x66, 0x10,		/* 00 cmp */
		0x76, 0x1d,			/* 04 jbe 0x23 */
		0x48, 0x83, 0xec, 0x28,		/* 06 sub $0x28,%rsp */
		0x48, 0x89, 0x6c, 0x24, 0x20,	/* 0a mov %rbp,0x20(%rsp) */
		0x48, 0x8d, 0x6c, 0x24, 0x20,	/* 0f lea 0x20(%rsp),%rbp */
		0x90,				/* 14 body */
		0x48, 0x8b, 0x6c, 0x24, 0x20,	/* 15 mov 0x20(%rsp),%rbp */
		0x48, 0x83, 0xc4, 0x28,		/* 1a add $0x28,%rsp */
		0xe9, 0, 0, 0, 0,		/* 1e jmp (tail call) */
		0xe8, 0, 0, 0, 0,		/* 23 call morestack_noctxt */
		0xeb, 0xd6,			/* 28 jmp entry */
	};
	fill(want, 0, sizeof(mid), -1);
	fill(want, 0x00, 0x0a, 8);
	fill(want, 0x0a, 0x14, 0x30);
	fill(want, 0x1e, 0x23, 0x30 - 0x28); /* at the JMP: only the return address */
	fill(want, 0x1a, 0x1e, 0x30);
	fill(want, 0x23, 0x2a, 8);
	CHECK("go frames: a 0x28-byte frame (8-bit displacements) and a tail-call epilogue",
	      rows_match(mid, sizeof(mid), want));

	/* A 128-byte frame: no imm8 for 128, so gc writes ADDQ $-128, SP
	 * and SUBQ $-128, SP (runtime.mapassign, chansend). */
	static const uint8_t f128[] = {
		0x49, 0x3b, 0x66, 0x10,		/* 00 cmp */
		0x76, 0x1d,			/* 04 jbe 0x23 */
		0x48, 0x83, 0xc4, 0x80,		/* 06 add $-128,%rsp */
		0x48, 0x89, 0x6c, 0x24, 0x78,	/* 0a mov %rbp,0x78(%rsp) */
		0x48, 0x8d, 0x6c, 0x24, 0x78,	/* 0f lea 0x78(%rsp),%rbp */
		0x90,				/* 14 body */
		0x48, 0x8b, 0x6c, 0x24, 0x78,	/* 15 mov 0x78(%rsp),%rbp */
		0x48, 0x83, 0xec, 0x80,		/* 1a sub $-128,%rsp */
		0xc3,				/* 1e ret */
		0x90, 0x90, 0x90, 0x90,		/* 1f */
		0xe8, 0, 0, 0, 0,		/* 23 call morestack_noctxt */
		0xeb, 0xd6,			/* 28 jmp entry */
	};
	fill(want, 0, sizeof(f128), -1);
	fill(want, 0x00, 0x0a, 8);
	fill(want, 0x0a, 0x14, 0x88);
	fill(want, 0x1a, 0x1e, 0x88);
	fill(want, 0x1e, 0x1f, 8);
	fill(want, 0x23, 0x2a, 8);
	CHECK("go frames: a 128-byte frame (ADDQ $-128 and SUBQ $-128)",
	      rows_match(f128, sizeof(f128), want));

	/* A store that does not match the frame size: not gc's, no rules. */
	uint8_t odd[sizeof(small)];
	memcpy(odd, small, sizeof(small));
	odd[0x0a + 2] = 0x6c; /* mov %rbp,disp8(%rsp): reads the next byte as disp */
	struct trec_rows r = { 0 };
	CHECK("go frames: a prologue that is not gc's gets no rules",
	      !trec_go_frame_rows(odd, 0x1000, 0x1000 + sizeof(odd), &r) && r.n == 0);
	trec_rows_free(&r);

	/* Truncated code never reads past its end. */
	int ok = 1;
	for (size_t n = 0; n < sizeof(mid); n++) {
		uint8_t *cut = malloc(n ? n : 1);
		memcpy(cut, mid, n);
		ok &= !trec_go_frame_rows(cut, 0x1000, 0x1000 + n, &r);
		for (size_t i = 0; i < r.n; i++)
			ok &= r.v[i].start >= 0x1000 && r.v[i].end <= 0x1000 + n;
		trec_rows_free(&r);
		r = (struct trec_rows){ 0 };
		free(cut);
	}
	CHECK("go frames: every truncation stays inside its code (ASan checks the reads)", ok);
	return failures ? 1 : 0;
}
