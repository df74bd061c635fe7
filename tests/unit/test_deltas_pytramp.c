// SPDX-License-Identifier: MIT
/*
 * CPython perf-trampoline arenas (record/interp/python/python_tramp.c):
 * the rules decoded from the template, the copy period found in memory,
 * and the arena's deltas, checked offset by offset against what the
 * instructions do to rsp and rbp.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "record/interp/python/python_tramp.h"
#include "unit_check.h"

/* 3.12/3.13: sub $8,%rsp; call *%rcx; add $8,%rsp; ret */
static const uint8_t frameless[] = { 0x48, 0x83, 0xec, 0x08, 0xff, 0xd1,
				     0x48, 0x83, 0xc4, 0x08, 0xc3 };
/* A frame-pointer variant: endbr64; push %rbp; mov %rsp,%rbp; call *%rcx;
 * pop %rbp; ret */
static const uint8_t withfp[] = { 0xf3, 0x0f, 0x1e, 0xfa, 0x55, 0x48, 0x89,
				  0xe5, 0xff, 0xd1, 0x5d, 0xc3 };

/* The rule governing arena offset off, as the BPF lookup picks it. */
static const struct trec_delta_entry *rule_at(const struct trec_file_deltas *d, uint64_t off)
{
	const struct trec_delta_entry *r = NULL;

	for (size_t i = 0; i < d->num && d->entries[i].addr <= off; i++)
		r = &d->entries[i];
	return r;
}

static int is_sp(const struct trec_delta_entry *e, int off)
{
	return e && !e->command && e->info.cfa_reg == TREC_REG_SP && e->info.cfa_param == off &&
	       e->info.fp_rule == TREC_FP_SAME;
}

static int is_invalid(const struct trec_delta_entry *e)
{
	return e && e->command == (TREC_UNWIND_COMMAND | TREC_CMD_INVALID);
}

static void test_rules(void)
{
	struct trec_py_tramp_row rows[TREC_PY_TRAMP_MAX];
	uint8_t bad[sizeof(frameless)];
	int n = trec_py_tramp_rules(frameless, sizeof(frameless), rows);

	CHECK("frameless template: one rule per instruction", n == 4);
	CHECK("frameless: cfa rsp+8, +16 at and after the call, +8 at ret",
	      n == 4 && rows[0].offset == 0 && rows[0].info.cfa_param == 8 &&
		      rows[1].offset == 4 && rows[1].info.cfa_param == 16 &&
		      rows[2].offset == 6 && rows[2].info.cfa_param == 16 &&
		      rows[3].offset == 10 && rows[3].info.cfa_param == 8 &&
		      rows[1].info.cfa_reg == TREC_REG_SP && rows[1].info.fp_rule == TREC_FP_SAME);

	n = trec_py_tramp_rules(withfp, sizeof(withfp), rows);
	CHECK("frame-pointer template decoded", n == 6);
	CHECK("frame-pointer template: rbp saved at cfa-16, cfa rbp+16 at the call",
	      n == 6 && rows[2].info.cfa_reg == TREC_REG_SP && rows[2].info.cfa_param == 16 &&
		      rows[2].info.fp_rule == TREC_FP_AT_CFA && rows[2].info.fp_param == -16 &&
		      rows[3].info.cfa_reg == TREC_REG_FP && rows[3].info.cfa_param == 16 &&
		      rows[5].info.cfa_reg == TREC_REG_SP && rows[5].info.cfa_param == 8 &&
		      rows[5].info.fp_rule == TREC_FP_SAME);

	memcpy(bad, frameless, sizeof(bad));
	bad[4] = 0xe8; /* a relative call: not a template we know */
	CHECK("unknown instruction: not decoded",
	      trec_py_tramp_rules(bad, sizeof(bad), rows) == -ENOTSUP);
	CHECK("no ret at the end: not decoded",
	      trec_py_tramp_rules(frameless, sizeof(frameless) - 1, rows) == -ENOTSUP);
	bad[4] = 0xff;
	bad[3] = 0x10; /* sub $16 but add $8: sp not back at ret */
	CHECK("unbalanced stack: not decoded",
	      trec_py_tramp_rules(bad, sizeof(bad), rows) == -ENOTSUP);
}

static void test_period(void)
{
	uint8_t mem[256] = { 0 };

	for (size_t o = 0; o + sizeof(frameless) <= sizeof(mem); o += 11)
		memcpy(mem + o, frameless, sizeof(frameless));
	CHECK("3.12 arena: period 11",
	      trec_py_tramp_period(mem, sizeof(mem), frameless, sizeof(frameless)) == 11);
	memset(mem, 0, sizeof(mem));
	for (size_t o = 0; o + sizeof(frameless) <= sizeof(mem); o += 16)
		memcpy(mem + o, frameless, sizeof(frameless));
	CHECK("3.13 arena: period 16 (padded)",
	      trec_py_tramp_period(mem, sizeof(mem), frameless, sizeof(frameless)) == 16);
	{
		/* 3.13 -X perf_jit after the first arena: 272 bytes apart. */
		uint8_t jit[TREC_PY_TRAMP_PROBE] = { 0 };

		for (size_t o = 0; o + sizeof(frameless) <= sizeof(jit); o += 272)
			memcpy(jit + o, frameless, sizeof(frameless));
		CHECK("3.13 -X perf_jit arena: period 272 in the bytes probed",
		      trec_py_tramp_period(jit, sizeof(jit), frameless, sizeof(frameless)) == 272);
		CHECK("period 272 not found in 192 bytes (the old probe's read)",
		      trec_py_tramp_period(jit, 192, frameless, sizeof(frameless)) == 0);
		memset(jit, 0, sizeof(jit));
		for (size_t o = 0; o + sizeof(frameless) <= sizeof(jit); o += TREC_PY_TRAMP_MAX_PERIOD + 16)
			memcpy(jit + o, frameless, sizeof(frameless));
		CHECK("a period beyond TREC_PY_TRAMP_MAX_PERIOD: no arena",
		      trec_py_tramp_period(jit, sizeof(jit), frameless, sizeof(frameless)) == 0);
	}
	CHECK("merged periods: the first alone, 16 with 272 (either order) gives 16",
	      trec_py_tramp_merge_period(0, 272, 11) == 272 &&
		      trec_py_tramp_merge_period(272, 272, 11) == 272 &&
		      trec_py_tramp_merge_period(16, 272, 11) == 16 &&
		      trec_py_tramp_merge_period(272, 16, 11) == 16);
	CHECK("merged periods shorter than the template: none",
	      trec_py_tramp_merge_period(11, 16, 11) == 0 &&
		      trec_py_tramp_merge_period(16, 24, 11) == 0);
	mem[0] ^= 1;
	CHECK("no template at offset 0: no arena",
	      trec_py_tramp_period(mem, sizeof(mem), frameless, sizeof(frameless)) == 0);
	memset(mem, 0, sizeof(mem));
	memcpy(mem, frameless, sizeof(frameless));
	CHECK("a single copy: no arena",
	      trec_py_tramp_period(mem, sizeof(mem), frameless, sizeof(frameless)) == 0);
}

/* Deltas built for period, checked at the copies of an arena of period
 * arena (a multiple of period: a mapping of mixed periods). */
static void test_deltas(size_t period, size_t arena)
{
	struct trec_py_tramp_row rows[TREC_PY_TRAMP_MAX];
	struct trec_file_deltas d;
	int n = trec_py_tramp_rules(frameless, sizeof(frameless), rows);
	size_t copies = (TREC_PY_TRAMP_ARENA - sizeof(frameless)) / period + 1, bad = 0;
	size_t arena_copies = (TREC_PY_TRAMP_ARENA - sizeof(frameless)) / arena + 1;
	char name[96];

	if (n < 0 || trec_py_tramp_deltas(rows, (size_t)n, sizeof(frameless), period, &d)) {
		CHECK("arena deltas built", 0);
		return;
	}
	/* Every offset of every copy: the leaf's rule (pc) and, after the
	 * call, the caller's (return address - 1). */
	for (size_t c = 0; c < arena_copies; c++) {
		uint64_t b = c * arena;

		bad += !is_sp(rule_at(&d, b + 0), 8) || !is_sp(rule_at(&d, b + 3), 8) ||
		       !is_sp(rule_at(&d, b + 4), 16) || !is_sp(rule_at(&d, b + 6 - 1), 16) ||
		       !is_sp(rule_at(&d, b + 9), 16) || !is_sp(rule_at(&d, b + 10), 8);
		if (period > sizeof(frameless))
			bad += !is_invalid(rule_at(&d, b + sizeof(frameless)));
	}
	snprintf(name, sizeof(name), "period %zu in a %zu-period arena: %zu copies, each offset's rule right",
		 period, arena, arena_copies);
	CHECK(name, bad == 0);
	snprintf(name, sizeof(name), "period %zu: nothing after the last copy", period);
	CHECK(name, is_invalid(rule_at(&d, copies * period + 5)) &&
			    is_invalid(rule_at(&d, TREC_PY_TRAMP_ARENA - 1)));
	snprintf(name, sizeof(name), "period %zu: sorted, within a 64 KiB page", period);
	int sorted = d.num > 0 && d.entries[d.num - 1].addr < TREC_PY_TRAMP_ARENA &&
		     d.num < 65535;
	for (size_t i = 1; i < d.num; i++)
		sorted &= d.entries[i - 1].addr < d.entries[i].addr;
	CHECK(name, sorted);
	trec_file_deltas_free(&d);
}

int main(void)
{
	test_rules();
	test_period();
	test_deltas(11, 11);
	test_deltas(16, 16);
	test_deltas(272, 272);
	test_deltas(16, 272); /* a mapping with the first perf_jit arena and a later one */
	CHECK("synthetic ids differ by period",
	      trec_py_tramp_file_id(frameless, sizeof(frameless), 11) !=
		      trec_py_tramp_file_id(frameless, sizeof(frameless), 16));
	return failures != 0;
}
