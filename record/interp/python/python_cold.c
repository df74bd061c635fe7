// SPDX-License-Identifier: MIT
/*
 * .cold part discovery from jump targets and FDE ranges; see python_cold.h.
 * FDEs are found through .eh_frame_hdr's sorted search table (located by
 * PT_GNU_EH_FRAME, so it works without section headers).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "record/interp/python/python_cold.h"

#define MAX_CANDIDATES 64
/* Votes the winner needs, and its lead factor over the runner-up; byte
 * patterns that only look like jumps spread over many FDEs. */
#define MIN_VOTES 8
#define MIN_LEAD 4

#define DW_EH_PE_udata4 0x03
#define DW_EH_PE_sdata4 0x0b
#define DW_EH_PE_datarel_sdata4 0x3b

struct fde_table {
	uint64_t hdr; /* vaddr of .eh_frame_hdr: table entries are relative to it */
	uint32_t n;
	int32_t (*ent)[2]; /* {initial location, FDE address} */
};

static int load_fde_table(struct trec_pyelf *e, struct fde_table *t)
{
	uint8_t h[4];
	uint32_t n;

	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < e->num_phdrs; i++)
		if (e->phdrs[i].p_type == PT_GNU_EH_FRAME)
			t->hdr = e->phdrs[i].p_vaddr;
	/* version 1, a 4-byte eh_frame_ptr, a udata4 count, datarel sdata4
	 * entries: what GNU ld writes. */
	if (!t->hdr || trec_pyelf_read(e, t->hdr, h, 4) || h[0] != 1 ||
	    (h[1] & 0x0f) != DW_EH_PE_sdata4 || h[2] != DW_EH_PE_udata4 ||
	    h[3] != DW_EH_PE_datarel_sdata4 || trec_pyelf_read(e, t->hdr + 8, &n, 4) ||
	    !n || n > (1u << 24))
		return -ENOENT;
	t->ent = malloc((size_t)n * sizeof(*t->ent));
	if (!t->ent)
		return -ENOMEM;
	if (trec_pyelf_read(e, t->hdr + 12, t->ent, (size_t)n * sizeof(*t->ent))) {
		free(t->ent);
		t->ent = NULL;
		return -ENOENT;
	}
	t->n = n;
	return 0;
}

/* The FDE range holding addr; checks the FDE agrees with the table. */
static int fde_range(struct trec_pyelf *e, const struct fde_table *t, uint64_t addr,
		     uint64_t *start, uint64_t *end)
{
	uint32_t lo = 0, hi = t->n, fde[4];
	uint64_t loc, fde_at;

	while (lo < hi) { /* first entry with location > addr */
		uint32_t mid = lo + (hi - lo) / 2;

		if (t->hdr + (int64_t)t->ent[mid][0] <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return -ENOENT;
	loc = t->hdr + (int64_t)t->ent[lo - 1][0];
	fde_at = t->hdr + (int64_t)t->ent[lo - 1][1];
	/* length, CIE pointer, pcrel sdata4 pc_begin, pc_range */
	if (trec_pyelf_read(e, fde_at, fde, sizeof(fde)) || fde[0] == 0xffffffffu ||
	    fde_at + 8 + (int64_t)(int32_t)fde[2] != loc || addr >= loc + fde[3])
		return -ENOENT;
	*start = loc;
	*end = loc + fde[3];
	return 0;
}

struct candidate_list {
	unsigned n;
	struct {
		uint64_t start, end;
		unsigned votes;
	} c[MAX_CANDIDATES];
};

static void vote(struct candidate_list *l, uint64_t start, uint64_t end)
{
	for (unsigned i = 0; i < l->n; i++)
		if (l->c[i].start == start) {
			l->c[i].votes++;
			return;
		}
	if (l->n < MAX_CANDIDATES) {
		l->c[l->n].start = start;
		l->c[l->n].end = end;
		l->c[l->n].votes = 1;
		l->n++;
	}
}

int trec_py_find_cold(struct trec_pyelf *e, uint64_t hot_start, uint64_t hot_end,
		      uint64_t *start, uint64_t *end)
{
	struct candidate_list cand = { 0 };
	unsigned best = 0, second = 0, besti = 0;
	uint64_t len = hot_end - hot_start;
	struct fde_table t;
	uint8_t *code;
	int ret;

	if (!len || len > (64u << 20))
		return -ENOENT;
	ret = load_fde_table(e, &t);
	if (ret)
		return ret;
	ret = -ENOENT;
	code = malloc(len);
	if (!code || trec_pyelf_read(e, hot_start, code, len))
		goto out;

	for (uint64_t i = 0; i + 5 <= len; i++) {
		uint64_t at, target, fs, fe;
		int32_t rel;

		/* jmp rel32 (e9) and jcc rel32 (0f 80..8f) */
		if (code[i] == 0xe9)
			at = i + 1;
		else if (code[i] == 0x0f && i + 6 <= len && (code[i + 1] & 0xf0) == 0x80)
			at = i + 2;
		else
			continue;
		memcpy(&rel, code + at, 4);
		target = hot_start + at + 4 + (int64_t)rel;
		if ((target >= hot_start && target < hot_end) || !trec_pyelf_is_text(e, target) ||
		    fde_range(e, &t, target, &fs, &fe))
			continue;
		/* A jump to an FDE's first byte is a tail call, not a branch
		 * into a cold block. */
		if (target != fs && fs != hot_start)
			vote(&cand, fs, fe);
	}
	for (unsigned i = 0; i < cand.n; i++) {
		if (cand.c[i].votes > best) {
			second = best;
			best = cand.c[i].votes;
			besti = i;
		} else if (cand.c[i].votes > second) {
			second = cand.c[i].votes;
		}
	}
	if (best >= MIN_VOTES && best >= MIN_LEAD * second) {
		*start = cand.c[besti].start;
		*end = cand.c[besti].end;
		ret = 0;
	}
out:
	free(code);
	free(t.ent);
	return ret;
}
