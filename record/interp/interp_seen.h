/* SPDX-License-Identifier: MIT */
/*
 * The code objects of one pid a backend has handled (described, or
 * failed to): pairs of (address, key), the key being what tells one
 * object at an address from the next (Python's and PHP's object id,
 * Ruby's iseq id, Perl's statement key). The interpreter table keeps one
 * per pid, cleared at exec, so each is read once. Not thread-safe (the
 * table's lock covers it).
 */
#ifndef TREC_INTERP_SEEN_H
#define TREC_INTERP_SEEN_H

#include <stddef.h>
#include <stdint.h>

struct trec_interp_seen_pair;

/* All zero: empty. */
struct trec_interp_seen {
	struct trec_interp_seen_pair *slots;
	size_t cap, used; /* cap a power of two (or 0), used <= cap / 2 */
};

/* 0: (addr, key) is new, and now noted; 1: noted before, or addr is 0
 * (no code there); -ENOMEM. */
int trec_interp_seen_note(struct trec_interp_seen *s, uint64_t addr, uint64_t key);
/* Forgets every pair (exec, exit); s stays usable. */
void trec_interp_seen_clear(struct trec_interp_seen *s);

#endif /* TREC_INTERP_SEEN_H */
