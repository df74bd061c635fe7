// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "record/unwind/delta_mem.h"

int trec_delta_mem_init(struct trec_delta_mem *m, int fd, size_t value_bytes)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	void *p;

	memset(m, 0, sizeof(*m));
	m->fd = -1;
	if (fd < 0 || !value_bytes || value_bytes > SIZE_MAX - page)
		return -EINVAL;
	m->bytes = (value_bytes + page - 1) / page * page;
	m->num_chunks = (m->bytes + TREC_DELTA_MEM_CHUNK - 1) / TREC_DELTA_MEM_CHUNK;
	m->mapped = calloc(m->num_chunks, 1);
	if (!m->mapped)
		return -ENOMEM;
	/* Address space only: chunks are mapped over it (MAP_FIXED), so the
	 * values stay one array for memcpy. */
	p = mmap(NULL, m->bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED) {
		int e = -errno;

		free(m->mapped);
		m->mapped = NULL;
		return e;
	}
	m->base = p;
	m->fd = fd;
	pthread_mutex_init(&m->lock, NULL);
	return 0;
}

void trec_delta_mem_free(struct trec_delta_mem *m)
{
	if (m->base) {
		munmap(m->base, m->bytes);
		pthread_mutex_destroy(&m->lock);
	}
	free(m->mapped);
	memset(m, 0, sizeof(*m));
	m->fd = -1;
}

static int chunk_is_mapped(const struct trec_delta_mem *m, size_t c)
{
	return __atomic_load_n(&m->mapped[c], __ATOMIC_ACQUIRE);
}

static int map_chunk(struct trec_delta_mem *m, size_t c)
{
	size_t off = c * TREC_DELTA_MEM_CHUNK;
	size_t len = m->bytes - off < TREC_DELTA_MEM_CHUNK ? m->bytes - off : TREC_DELTA_MEM_CHUNK;
	int ok = 1;

	pthread_mutex_lock(&m->lock);
	if (!chunk_is_mapped(m, c)) {
		void *p = mmap(m->base + off, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
			       m->fd, (off_t)off);

		ok = p != MAP_FAILED;
		if (ok)
			__atomic_store_n(&m->mapped[c], 1, __ATOMIC_RELEASE);
		else /* MAP_FIXED may have dropped the reservation: put it back */
			mmap(m->base + off, len, PROT_NONE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
	}
	pthread_mutex_unlock(&m->lock);
	return ok;
}

/* The chunks [first, last] of a range inside the values, or 0 if it is
 * not inside (or m is unusable). */
static int range_chunks(const struct trec_delta_mem *m, size_t off, size_t len, size_t *first,
			size_t *last)
{
	if (!m->base || !len || off > m->bytes || len > m->bytes - off)
		return 0;
	*first = off / TREC_DELTA_MEM_CHUNK;
	*last = (off + len - 1) / TREC_DELTA_MEM_CHUNK;
	return 1;
}

void *trec_delta_mem_write_at(struct trec_delta_mem *m, size_t off, size_t len)
{
	size_t first, last;

	if (!range_chunks(m, off, len, &first, &last))
		return NULL;
	for (size_t c = first; c <= last; c++)
		if (!chunk_is_mapped(m, c) && !map_chunk(m, c))
			return NULL;
	return m->base + off;
}

const void *trec_delta_mem_read_at(const struct trec_delta_mem *m, size_t off, size_t len)
{
	size_t first, last;

	if (!range_chunks(m, off, len, &first, &last))
		return NULL;
	for (size_t c = first; c <= last; c++)
		if (!chunk_is_mapped(m, c))
			return NULL;
	return m->base + off;
}

size_t trec_delta_mem_chunks_mapped(const struct trec_delta_mem *m)
{
	size_t n = 0;

	for (size_t c = 0; m->mapped && c < m->num_chunks; c++)
		n += chunk_is_mapped(m, c) != 0;
	return n;
}
