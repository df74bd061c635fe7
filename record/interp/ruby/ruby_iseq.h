/* SPDX-License-Identifier: MIT */
/*
 * Ruby instruction sequences read from a process: for an iseq address a
 * sample named, its label, file, first line and line table (decoded from
 * MRI's succinct position index), as an INTERP_CODE payload
 * (format/trec_rbcode.h).
 */
#ifndef TREC_RUBY_ISEQ_H
#define TREC_RUBY_ISEQ_H

#include <stddef.h>
#include <stdint.h>
#include "record/interp/ruby/ruby_detect.h"
#include "trec_rbcode.h"

/* Reads len bytes at addr of the process: 0, -ESRCH (gone), -EFAULT. */
typedef int (*trec_rb_read_fn)(void *ctx, uint64_t addr, void *buf, size_t len);

/* (live processes: trec_interp_read_pid, record/interp/interp_read.h) */

/* An iseq description with owned buffers. */
struct trec_rbcode_owned {
	struct trec_rbcode c; /* points at the buffers below */
	char *label, *path;
	struct trec_rbcode_line *lines;
};

/*
 * Reads the iseq at addr of pid through read. 0; -ESTALE (object_id is
 * not 0 and not the id of what is there now); -ESRCH; -EFAULT
 * (unreadable); -EINVAL (a field is not what it should be); -ENOMEM.
 */
int trec_rb_read_iseq(trec_rb_read_fn read, void *ctx, uint32_t pid,
		      const struct trec_rb_offsets *o, uint64_t addr, uint32_t object_id,
		      struct trec_rbcode_owned *out);
void trec_rbcode_owned_free(struct trec_rbcode_owned *c);

/*
 * The positions of MRI's succinct index (iseq.c, VM_INSN_INFO_TABLE_IMPL
 * 2) over max_pos instruction words: table holds its nwords 64-bit words
 * (an immediate part of 7-bit ranks, nine to a word, then 80-byte blocks
 * of 512 bits). Fills positions[0..size). 0, or -EINVAL when the table
 * does not hold exactly size positions.
 */
int trec_rb_succ_positions(const uint64_t *table, size_t nwords, uint32_t max_pos,
			   uint32_t size, uint32_t *positions);
/* Words of the succinct index over max_pos instruction words. */
size_t trec_rb_succ_words(uint32_t max_pos);

#endif /* TREC_RUBY_ISEQ_H */
