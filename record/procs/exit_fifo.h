/* SPDX-License-Identifier: MIT */
/*
 * Exited pids in exit order, each waiting out a grace period before its
 * trie entries go: the kernel still samples a process between its exit
 * tracepoint and the end of do_exit, with its user stack intact.
 */
#ifndef TREC_EXIT_FIFO_H
#define TREC_EXIT_FIFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct trec_exit_ent {
	uint32_t pid;
	uint64_t time_ns;
};

struct trec_exit_fifo {
	struct trec_exit_ent *v; /* ring of cap entries, n used from head */
	size_t head, n, cap;
};

/* 0, or -ENOMEM (the fifo is unchanged). */
int trec_exit_fifo_push(struct trec_exit_fifo *f, uint32_t pid, uint64_t time_ns);
/* Pops the oldest entry if it is older than `before`. */
bool trec_exit_fifo_pop_due(struct trec_exit_fifo *f, uint64_t before, struct trec_exit_ent *out);
void trec_exit_fifo_free(struct trec_exit_fifo *f);

#endif /* TREC_EXIT_FIFO_H */
