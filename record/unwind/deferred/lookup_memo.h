/* SPDX-License-Identifier: MIT */
/*
 * The map lookups that succeeded during one pass over the deferred samples
 * (deferred_queue.h), by map fd and exact key: a pass resumes many stacks
 * of the same processes, whose walks ask the trie, delta pages and unwind
 * infos the same questions, each a bpf() syscall. A pass takes
 * milliseconds; the maps only grow meanwhile (what was found stays found),
 * so a hit is what the syscall would have returned. Misses are not kept
 * (a load may finish mid-pass), nor may a caller keep a map whose answer
 * is meant to change (defer_files). Direct-mapped: a collision forgets.
 */
#ifndef TREC_LOOKUP_MEMO_H
#define TREC_LOOKUP_MEMO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TREC_LOOKUP_MEMO_SLOTS 4096 /* 256 KiB */
#define TREC_LOOKUP_MEMO_KEY 16     /* the trie's and delta pages' keys */
#define TREC_LOOKUP_MEMO_VALUE 40   /* interpreter_offsets' value */

struct trec_lookup_memo_slot {
	uint32_t pass; /* the pass that filled it; 0: never */
	int32_t fd;
	uint8_t key[TREC_LOOKUP_MEMO_KEY];
	uint8_t value[TREC_LOOKUP_MEMO_VALUE];
};

struct trec_lookup_memo {
	uint32_t pass;
	uint64_t hits, misses; /* over all passes */
	struct trec_lookup_memo_slot slots[TREC_LOOKUP_MEMO_SLOTS];
};

/* A new, empty memo (NULL without memory: callers then look everything up). */
struct trec_lookup_memo *trec_lookup_memo_new(void);
void trec_lookup_memo_free(struct trec_lookup_memo *m);
/* Forgets every entry: the next pass starts afresh. */
void trec_lookup_memo_new_pass(struct trec_lookup_memo *m);
/* On a hit copies the value found this pass into value and returns true.
 * Keys and values longer than the memo holds always miss. */
bool trec_lookup_memo_get(struct trec_lookup_memo *m, int fd, const void *key, size_t klen,
			  void *value, size_t vlen);
/* Keeps a successful lookup's value for the rest of the pass. */
void trec_lookup_memo_put(struct trec_lookup_memo *m, int fd, const void *key, size_t klen,
			  const void *value, size_t vlen);

#endif /* TREC_LOOKUP_MEMO_H */
