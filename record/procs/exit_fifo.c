// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdlib.h>
#include "record/procs/exit_fifo.h"

int trec_exit_fifo_push(struct trec_exit_fifo *f, uint32_t pid, uint64_t time_ns)
{
	if (f->n == f->cap) {
		size_t nc = f->cap ? 2 * f->cap : 64;
		struct trec_exit_ent *nv = malloc(nc * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		/* Unroll the ring into the new array, oldest first. */
		for (size_t i = 0; i < f->n; i++)
			nv[i] = f->v[(f->head + i) % f->cap];
		free(f->v);
		f->v = nv;
		f->cap = nc;
		f->head = 0;
	}
	f->v[(f->head + f->n) % f->cap] = (struct trec_exit_ent){ pid, time_ns };
	f->n++;
	return 0;
}

bool trec_exit_fifo_pop_due(struct trec_exit_fifo *f, uint64_t before, struct trec_exit_ent *out)
{
	if (!f->n || f->v[f->head].time_ns >= before)
		return false;
	*out = f->v[f->head];
	f->head = (f->head + 1) % f->cap;
	f->n--;
	return true;
}

void trec_exit_fifo_free(struct trec_exit_fifo *f)
{
	free(f->v);
	*f = (struct trec_exit_fifo){ 0 };
}
