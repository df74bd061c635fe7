/* SPDX-License-Identifier: MIT */
/*
 * PHP functions read from a live process (or a core dump): for each
 * zend_function address a sample names, trecord reads its name, class,
 * file and lines once and writes an INTERP_CODE record (subtype 4).
 */
#ifndef TREC_PHP_CODE_H
#define TREC_PHP_CODE_H

#include <stdint.h>
#include "record/interp/interp_seen.h"
#include "record/interp/php/php_detect.h"
#include "trec_format.h"
#include "trec_phpcode.h"

/* Reads len bytes at addr of the process: 0, -ESRCH (gone), -EFAULT. */
typedef int (*trec_php_read_fn)(void *ctx, uint64_t addr, void *buf, size_t len);

/* (live processes: trec_interp_read_pid, record/interp/interp_read.h) */

/* A description with owned strings. */
struct trec_phpcode_owned {
	struct trec_phpcode c; /* points at the buffers below */
	char *function, *class_name, *file;
};

/*
 * Reads the zend_function at addr. 0; -ESRCH; -EFAULT (unreadable);
 * -EINVAL (not a function we know); -ENOMEM.
 */
int trec_php_read_function(trec_php_read_fn read, void *ctx, uint32_t pid,
			   const struct trec_php_layout *l, uint64_t addr,
			   struct trec_phpcode_owned *out);
void trec_phpcode_owned_free(struct trec_phpcode_owned *c);

/* Where records go (trecord: the locked output writer). */
typedef int (*trec_phpcode_write_fn)(void *ctx, enum trec_record_type type,
				     const struct trec_blob *b);

/*
 * For a PHP frame (file_id = addr, low 32 bits of addr_or_line = object
 * id) of pid: reads and writes the record unless seen (pid's functions
 * handled before; notes it). 1 written, 0 handled before, a negative
 * errno when it could not be described; -ESTALE when the function at addr
 * is not the one the sample saw.
 */
int trec_phpcode_note(struct trec_interp_seen *seen, trec_phpcode_write_fn write, void *wctx,
		      uint32_t pid, const struct trec_php_layout *l, uint64_t addr,
		      uint32_t object_id);

#endif /* TREC_PHP_CODE_H */
