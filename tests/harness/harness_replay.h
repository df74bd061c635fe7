/* SPDX-License-Identifier: MIT */
/* The stack replay's proof, offline (harness_replay.c). */
#ifndef HARNESS_REPLAY_H
#define HARNESS_REPLAY_H

#include <stdbool.h>
#include "harness.h"
#include "harness_case.h"

struct harness_replay_result {
	bool replayed; /* the same sample again reused the first walk's frames */
	bool refused;  /* with any of its logged words changed, the replay was refused */
	bool map_refused; /* with a logged trie page changed (and said), too */
	bool quiet;       /* failed tries made its walks quiet, and a replay ended it */
	bool delta;    /* the replayed sample came as a delta, rebuilt (harness_delta.c) */
	bool lost_base; /* a delta whose base was lost was caught */
	/* Stack words changed one at a time under a replayable log (any of
	 * the span's, logged or not), and how many of them still replayed:
	 * each gave a fresh walk's trace. */
	size_t any_words, any_replayed;
};

/* After the case's first trace (in e->trace): false, with a FAIL line's
 * reason in *why, if a later sample's trace differs from what it must be.
 * Leaves e->trace as the first trace. */
bool harness_replay_check(struct harness_env *e, const struct harness_case *c,
			  struct harness_replay_result *r, const char **why);

#endif /* HARNESS_REPLAY_H */
