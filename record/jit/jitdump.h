/* SPDX-License-Identifier: MIT */
/*
 * Parser of jitdump files (jit-PID.dump, the binary format `perf inject
 * --jit` reads; linux tools/perf/Documentation/jitdump-specification.txt):
 * a 40-byte header, then records of a 16-byte prefix (id, total_size,
 * timestamp) and a payload, in the writer's byte order (told by the magic).
 *
 *   CODE_LOAD        an entry: name, code range, code_index, load time
 *   CODE_MOVE        ends the entry of its code_index, starts a moved copy
 *   CODE_DEBUG_INFO  line rows of the next CODE_LOAD (perf's rule)
 *   CODE_CLOSE       ends every entry loaded so far
 *   others           skipped by their size
 *
 * The file is the profiled process's: sizes are checked against the record
 * and the file before use, names are searched for their NUL within the
 * record and cut at max_name, row counts are checked against the record
 * size. A malformed record is refused and counted; one whose size cannot
 * be trusted ends the parse (there is no resynchronization). A record cut
 * short by the end of the file is a writer still writing: not an error.
 */
#ifndef TREC_JIT_JITDUMP_H
#define TREC_JIT_JITDUMP_H

#include "record/jit/jit_table.h"

#define TREC_JITDUMP_MAGIC 0x4A695444u
#define TREC_JITDUMP_HEADER_SIZE 40u
#define TREC_JITDUMP_FLAG_ARCH_TIMESTAMP 1ull

enum trec_jitdump_record {
	TREC_JITDUMP_CODE_LOAD = 0,
	TREC_JITDUMP_CODE_MOVE = 1,
	TREC_JITDUMP_CODE_DEBUG_INFO = 2,
	TREC_JITDUMP_CODE_CLOSE = 3,
	TREC_JITDUMP_CODE_UNWINDING_INFO = 4,
};

/*
 * 0 when the header was valid (entries, rows and refusals in t), or
 * -EINVAL with t->why set when the file is not a jitdump this reader
 * takes (short, bad magic, unknown flags), -ENOMEM, or a read error.
 */
int trec_jitdump_parse_mem(const uint8_t *buf, size_t n, const struct trec_jit_filter *filter,
			   struct trec_jit_table *t);
int trec_jitdump_parse_fd(int fd, const struct trec_jit_filter *filter, struct trec_jit_table *t);

/* The N of ".../jit-N.dump", the name perf finds a process's jitdump by
 * among its executable mappings; or -1. */
long trec_jitdump_marker_pid(const char *path);

#endif /* TREC_JIT_JITDUMP_H */
