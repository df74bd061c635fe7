// SPDX-License-Identifier: MIT
/* CPython perf-trampoline arenas; see python_tramp.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include "record/interp/python/python_tramp.h"

#define CMD_INVALID ((uint16_t)(TREC_UNWIND_COMMAND | TREC_CMD_INVALID))

/* Where rsp and rbp are relative to the CFA (the caller's sp). */
struct tramp_state {
	int32_t sp_off;  /* cfa - rsp */
	int32_t fp_save; /* rbp saved at cfa + fp_save; 0: rbp is the caller's */
	bool cfa_fp;     /* cfa = rbp + fp_cfa (after mov %rsp,%rbp) */
	int32_t fp_cfa;
};

static struct trec_unwind_info state_info(const struct tramp_state *t)
{
	struct trec_unwind_info ui = { 0 };

	ui.cfa_reg = t->cfa_fp ? TREC_REG_FP : TREC_REG_SP;
	ui.cfa_param = t->cfa_fp ? t->fp_cfa : t->sp_off;
	ui.fp_rule = t->fp_save ? TREC_FP_AT_CFA : TREC_FP_SAME;
	ui.fp_param = t->fp_save;
	return ui;
}

int trec_py_tramp_rules(const uint8_t *b, size_t len, struct trec_py_tramp_row *rows)
{
	struct tramp_state t = { .sp_off = 8 };
	size_t i = 0, n = 0;
	bool ret = false;

	if (!len || len > TREC_PY_TRAMP_MAX)
		return -ENOTSUP;
	while (i < len) {
		size_t il;

		if (ret)
			return -ENOTSUP; /* code after the ret: not a plain trampoline */
		rows[n].offset = (uint8_t)i;
		rows[n++].info = state_info(&t);
		if (i + 4 <= len && !memcmp(b + i, "\xf3\x0f\x1e\xfa", 4)) { /* endbr64 */
			il = 4;
		} else if (b[i] == 0x90) { /* nop */
			il = 1;
		} else if (b[i] == 0x55) { /* push %rbp */
			if (t.cfa_fp || t.fp_save)
				return -ENOTSUP;
			t.sp_off += 8;
			t.fp_save = -t.sp_off;
			il = 1;
		} else if (i + 3 <= len && !memcmp(b + i, "\x48\x89\xe5", 3)) { /* mov %rsp,%rbp */
			t.cfa_fp = true;
			t.fp_cfa = t.sp_off;
			il = 3;
		} else if (b[i] == 0x5d) { /* pop %rbp: back to the caller's */
			if (!t.fp_save || t.sp_off != -t.fp_save)
				return -ENOTSUP;
			t.sp_off -= 8;
			t.fp_save = 0;
			t.cfa_fp = false;
			il = 1;
		} else if (i + 4 <= len && b[i] == 0x48 && b[i + 1] == 0x83 &&
			   (b[i + 2] == 0xec || b[i + 2] == 0xc4)) { /* sub/add $imm8,%rsp */
			int32_t imm = (int8_t)b[i + 3];

			t.sp_off += b[i + 2] == 0xec ? imm : -imm;
			il = 4;
		} else if (i + 2 <= len && b[i] == 0xff && (b[i + 1] & 0xf8) == 0xd0) { /* call *%reg */
			il = 2;
		} else if (b[i] == 0xc3) { /* ret */
			if (t.sp_off != 8 || t.fp_save || t.cfa_fp)
				return -ENOTSUP;
			ret = true;
			il = 1;
		} else {
			return -ENOTSUP;
		}
		if (t.sp_off < 8 || t.sp_off > 256)
			return -ENOTSUP;
		i += il;
	}
	return ret ? (int)n : -ENOTSUP;
}

size_t trec_py_tramp_period(const uint8_t *mem, size_t n, const uint8_t *tmpl, size_t len)
{
	if (!len || n < len || memcmp(mem, tmpl, len))
		return 0;
	for (size_t p = len; p <= TREC_PY_TRAMP_MAX_PERIOD && 2 * p + len <= n; p++)
		if (!memcmp(mem + p, tmpl, len) && !memcmp(mem + 2 * p, tmpl, len))
			return p;
	return 0;
}

size_t trec_py_tramp_merge_period(size_t a, size_t b, size_t len)
{
	if (!a || !b)
		return a ? a : b;
	while (b) {
		size_t r = a % b;

		a = b;
		b = r;
	}
	return a >= len ? a : 0;
}

size_t trec_py_tramp_probe(uint32_t pid, uint64_t addr, const uint8_t *tmpl, size_t len)
{
	/* The template at 0, P and 2P for every period we accept. */
	uint8_t buf[TREC_PY_TRAMP_PROBE];
	struct iovec local = { buf, sizeof(buf) };
	struct iovec remote = { (void *)(uintptr_t)addr, sizeof(buf) };

	if (process_vm_readv((pid_t)pid, &local, 1, &remote, 1, 0) != (ssize_t)sizeof(buf))
		return 0;
	return trec_py_tramp_period(buf, sizeof(buf), tmpl, len);
}

uint64_t trec_py_tramp_file_id(const uint8_t *tmpl, size_t len, size_t period)
{
	/* FNV-1a over a tag, the template and the period. */
	uint64_t h = 0xcbf29ce484222325ULL;
	const char tag[] = "trec:cpython-perf-trampoline";

	for (size_t i = 0; i < sizeof(tag) - 1; i++)
		h = (h ^ (uint8_t)tag[i]) * 0x100000001b3ULL;
	for (size_t i = 0; i < len; i++)
		h = (h ^ tmpl[i]) * 0x100000001b3ULL;
	h = (h ^ period) * 0x100000001b3ULL;
	return h ? h : 1;
}

static bool same_rule(const struct trec_delta_entry *e, const struct trec_unwind_info *ui)
{
	return !e->command && e->info.cfa_reg == ui->cfa_reg && e->info.fp_rule == ui->fp_rule &&
	       e->info.cfa_param == ui->cfa_param && e->info.fp_param == ui->fp_param &&
	       e->info.flags == ui->flags;
}

int trec_py_tramp_deltas(const struct trec_py_tramp_row *rows, size_t nrows, size_t len,
			 size_t period, struct trec_file_deltas *out)
{
	size_t copies, n = 0;
	struct trec_delta_entry *e;

	memset(out, 0, sizeof(*out));
	if (!nrows || period < len || len > TREC_PY_TRAMP_ARENA)
		return -EINVAL;
	/* perf_trampoline.c fills the arena with whole copies. */
	copies = (TREC_PY_TRAMP_ARENA - len) / period + 1;
	e = calloc(copies * (nrows + 1) + 1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	for (size_t c = 0; c < copies; c++) {
		for (size_t r = 0; r < nrows; r++) {
			if (n && same_rule(&e[n - 1], &rows[r].info))
				continue;
			e[n].addr = c * period + rows[r].offset;
			e[n++].info = rows[r].info;
		}
		/* Padding between copies is never executed. */
		if (period > len || c + 1 == copies) {
			e[n].addr = c * period + len;
			e[n++].command = CMD_INVALID;
		}
	}
	out->entries = e;
	out->num = n;
	out->fdes = copies;
	return 0;
}
