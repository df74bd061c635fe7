// SPDX-License-Identifier: MIT
/* The kallsyms snapshot read when first needed; see ksyms_lazy.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "format/containers/vec.h"
#include "record/clock.h"
#include "record/kernel/ksyms_lazy.h"

/* Addresses kept while the snapshot loads (a second of a busy -a
 * recording's distinct kernel pcs fits many times). */
#define MAX_PENDING (1u << 20)

void trec_ksyms_lazy_init(struct trec_ksyms_lazy *l, struct trec_kallsyms *k, bool quiet)
{
	memset(l, 0, sizeof(*l));
	l->k = k;
	l->quiet = quiet;
}

static void *load_main(void *arg)
{
	struct trec_ksyms_lazy *l = arg;
	int err = trec_kallsyms_load(l->k);

	l->time_ns = trec_now_ns();
	if (err && !l->quiet)
		fprintf(stderr, "trecord: warning: no kernel symbols (/proc/kallsyms: %s)\n",
			err == -EPERM ? "addresses hidden by kptr_restrict" : strerror(-err));
	/* Without a snapshot (or memory for the flags) frames stay unnamed. */
	if (l->k->num && trec_ksym_subset_init(&l->used, l->k))
		trec_kallsyms_free(l->k);
	atomic_store(&l->loaded, true);
	return NULL;
}

void trec_ksyms_lazy_use(struct trec_ksyms_lazy *l, uint64_t addr, bool return_address)
{
	if (!l->started && !l->ready) {
		l->started = true;
		if (pthread_create(&l->thread, NULL, load_main, l)) {
			load_main(l); /* no thread: read it here */
			l->started = false;
			l->ready = true;
		}
	}
	if (l->ready || trec_ksyms_lazy_ready(l, false)) {
		uint64_t key = addr << 1 | return_address, *slot;

		slot = &l->recent[(key * 0x9e3779b97f4a7c15ULL) >> 52]; /* 4096 slots */
		if (*slot != key || !key)
			trec_ksym_subset_add(&l->used, l->k, addr, return_address);
		*slot = key;
		return;
	}
	if (l->num_pending >= MAX_PENDING ||
	    TREC_GROW(l->pending, l->cap_pending, l->num_pending + 1, 1024)) {
		l->dropped++;
		return;
	}
	l->pending[l->num_pending++] = (struct trec_ksym_use){ addr, return_address };
}

bool trec_ksyms_lazy_ready(struct trec_ksyms_lazy *l, bool wait)
{
	if (l->ready)
		return true;
	if (!l->started || (!wait && !atomic_load(&l->loaded)))
		return false;
	pthread_join(l->thread, NULL);
	l->started = false;
	l->ready = true;
	for (size_t i = 0; i < l->num_pending; i++)
		trec_ksym_subset_add(&l->used, l->k, l->pending[i].addr, l->pending[i].return_address);
	free(l->pending);
	l->pending = NULL;
	l->num_pending = l->cap_pending = 0;
	return true;
}

void trec_ksyms_lazy_free(struct trec_ksyms_lazy *l)
{
	if (l->started)
		pthread_join(l->thread, NULL);
	free(l->pending);
	trec_ksym_subset_free(&l->used);
	memset(l, 0, sizeof(*l));
}
