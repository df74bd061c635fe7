/* SPDX-License-Identifier: MIT */
/*
 * stack_deltas (a BPF_F_MMAPABLE array) in trecord's memory, mapped a
 * chunk at a time on first write. The kernel maps every page of an mmap of
 * a BPF array when it is made, so one mapping of the whole 16 MiB array
 * put all of it in trecord's RSS; a command's recording writes a few
 * files' deltas, one or two chunks.
 *
 * Writers (the syncer's delta loads) map chunks under a lock; readers (the
 * deferred walk) see a chunk only once it is mapped and otherwise look the
 * element up by fd.
 */
#ifndef TREC_DELTA_MEM_H
#define TREC_DELTA_MEM_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#define TREC_DELTA_MEM_CHUNK ((size_t)1 << 20)

struct trec_delta_mem {
	int fd;
	size_t bytes;          /* the map's values, rounded up to pages */
	size_t num_chunks;
	uint8_t *base;         /* bytes of address space, PROT_NONE until mapped */
	uint8_t *mapped;       /* per chunk: 1 once mapped (atomic) */
	pthread_mutex_t lock;  /* taken to map a chunk */
};

/* Reserves the address space for fd's value_bytes. 0 or -errno; on
 * failure m stays unusable (trec_delta_mem_free is still safe). */
int trec_delta_mem_init(struct trec_delta_mem *m, int fd, size_t value_bytes);
void trec_delta_mem_free(struct trec_delta_mem *m);

/* Where bytes [off, off + len) of the values can be written, their
 * chunks mapped first; NULL if the range is outside or a chunk cannot be
 * mapped (then write through the fd). */
void *trec_delta_mem_write_at(struct trec_delta_mem *m, size_t off, size_t len);

/* Where bytes [off, off + len) can be read, if their chunks are mapped;
 * NULL if not (look them up through the fd). */
const void *trec_delta_mem_read_at(const struct trec_delta_mem *m, size_t off, size_t len);

/* How many chunks are mapped (tests, -v). */
size_t trec_delta_mem_chunks_mapped(const struct trec_delta_mem *m);

#endif /* TREC_DELTA_MEM_H */
