// SPDX-License-Identifier: MIT
/* The interpreter backends of treport; see interp.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "report/interp/interp.h"
#include "report/interp/php/php_frames.h"
#include "report/interp/perl/perl_frames.h"
#include "report/interp/python/python_frames.h"

/* One line per interpreter. */
static const struct rp_interp_ops *const backends[] = {
	&rp_python_interp,
	&rp_php_interp,
	&rp_perl_interp,
};

_Static_assert(sizeof(backends) / sizeof(backends[0]) <= RP_INTERP_MAX, "RP_INTERP_MAX");
#define NUM_BACKENDS (sizeof(backends) / sizeof(backends[0]))

const struct rp_interp_ops *rp_interp_for_kind(uint8_t frame_kind, size_t *index)
{
	for (size_t i = 0; i < NUM_BACKENDS; i++)
		if (backends[i]->frame_kind == frame_kind) {
			if (index)
				*index = i;
			return backends[i];
		}
	return NULL;
}

int rp_interp_load(struct rp_interp_stores *st, uint8_t type, const struct trec_blob *b)
{
	for (size_t i = 0; i < NUM_BACKENDS; i++) {
		const struct rp_interp_ops *ops = backends[i];
		int err;

		if (ops->record_type != type || (ops->subtype && ops->subtype != b->subtype))
			continue;
		if (!st->store[i])
			st->store[i] = ops->new_store();
		err = st->store[i] ? ops->add(st->store[i], b) : -ENOMEM;
		if (err == -ENOMEM) {
			fprintf(stderr, "treport: out of memory\n");
			exit(1);
		}
		if (err)
			st->bad[i]++;
		return 1;
	}
	return 0;
}

void rp_interp_warn(const struct rp_interp_stores *st, const char *path)
{
	for (size_t i = 0; i < NUM_BACKENDS; i++)
		if (st->bad[i])
			fprintf(stderr,
				"treport: warning: %s: %" PRIu64 " malformed %s code record(s); "
				"their %s frames stay unnamed\n",
				path, st->bad[i], backends[i]->name, backends[i]->name);
}

void rp_interp_free(struct rp_interp_stores *st)
{
	for (size_t i = 0; i < NUM_BACKENDS; i++) {
		if (st->store[i])
			backends[i]->free_store(st->store[i]);
		st->store[i] = NULL;
	}
}
