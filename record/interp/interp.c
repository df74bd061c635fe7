// SPDX-License-Identifier: MIT
/* The interpreter backends and the calls that fan out to them; interp.h. */
#include <stddef.h>
#include "record/interp/interp.h"
#include "record/interp/php/php_session.h"
#include "record/interp/perl/perl_session.h"
#include "record/interp/python/python_session.h"

/* One line per interpreter. Order matters only for a file two backends
 * could claim: the first one's on_mapping wins. */
static const struct trec_interp_ops *const backends[] = {
	&trec_python_interp,
	&trec_php_interp,
	&trec_perl_interp,
};

_Static_assert(sizeof(backends) / sizeof(backends[0]) <= TREC_INTERP_MAX, "TREC_INTERP_MAX");

int trec_interps_start(struct trec_interps *in, const struct trec_interp_env *env)
{
	in->n = 0;
	for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++) {
		int err = backends[i]->start(&in->state[in->n], env);

		if (err) {
			trec_interps_stop(in);
			return err;
		}
		in->ops[in->n++] = backends[i];
	}
	return 0;
}

void trec_interps_stop(struct trec_interps *in)
{
	while (in->n > 0) {
		in->n--;
		in->ops[in->n]->stop(in->state[in->n]);
		in->state[in->n] = NULL;
	}
}

int trec_interps_mapping(struct trec_interps *in, uint32_t pid, uint64_t file_id,
			 const char *open_path, uint64_t bias)
{
	for (unsigned i = 0; in && i < in->n; i++) {
		int r = in->ops[i]->on_mapping(in->state[i], pid, file_id, open_path, bias);

		if (r != 0)
			return r;
	}
	return 0;
}

uint64_t trec_interps_anon(struct trec_interps *in, uint32_t pid, uint64_t start, uint64_t end,
			   uint64_t *file_id, struct trec_file_deltas *d, const char **what)
{
	for (unsigned i = 0; in && i < in->n; i++) {
		uint64_t block = in->ops[i]->on_anon ? in->ops[i]->on_anon(in->state[i], pid, start,
									   end, file_id, d, what)
						     : 0;
		if (block)
			return block;
	}
	return 0;
}

void trec_interps_trace(struct trec_interps *in, uint32_t pid, const struct trec_frame *frames,
			uint32_t n)
{
	for (unsigned i = 0; in && i < in->n; i++)
		in->ops[i]->on_trace(in->state[i], pid, frames, n);
}

void trec_interps_exec(struct trec_interps *in, uint32_t pid)
{
	for (unsigned i = 0; in && i < in->n; i++)
		in->ops[i]->on_exec(in->state[i], pid);
}

void trec_interps_exit(struct trec_interps *in, uint32_t pid)
{
	for (unsigned i = 0; in && i < in->n; i++)
		in->ops[i]->on_exit(in->state[i], pid);
}

void trec_interps_publish_stats(struct trec_interps *in, struct trecord_counters *cnt)
{
	for (unsigned i = 0; in && i < in->n; i++)
		in->ops[i]->publish_stats(in->state[i], cnt);
}
