// SPDX-License-Identifier: MIT
#include <errno.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "record/flight/memfile.h"

/* What trec_writer_open_fd writes before the first chunk (FORMAT.md §2). */
#define HEADER_BYTES 256u

int trec_memfile_create(struct trec_memfile *m, const char *name)
{
	struct trec_header h;
	int wfd;

	*m = (struct trec_memfile){ .fd = -1 };
	m->fd = memfd_create(name, MFD_CLOEXEC);
	if (m->fd < 0)
		return -errno;
	wfd = dup(m->fd);
	if (wfd < 0) {
		int e = -errno;

		trec_memfile_free(m);
		return e;
	}
	trec_header_init_host(&h);
	errno = 0;
	m->w = trec_writer_open_fd(wfd, &h, NULL);
	if (!m->w) {
		int e = errno ? -errno : -ENOMEM;

		trec_memfile_free(m);
		return e;
	}
	return 0;
}

int trec_memfile_seal(struct trec_memfile *m)
{
	int err = 0;

	if (m->w)
		err = trec_writer_close(m->w);
	m->w = NULL;
	return err;
}

int trec_memfile_map(struct trec_memfile *m)
{
	struct stat st;
	void *p;

	if (m->map)
		return 0;
	if (fstat(m->fd, &st))
		return -errno;
	if ((size_t)st.st_size < HEADER_BYTES)
		return -EBADMSG;
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, m->fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	m->map = p;
	m->len = (size_t)st.st_size;
	return 0;
}

const uint8_t *trec_memfile_chunks(const struct trec_memfile *m, size_t *n)
{
	*n = m->len - HEADER_BYTES;
	return m->map + HEADER_BYTES;
}

static void ignore_warning(void *ctx, const char *msg)
{
	(void)ctx;
	(void)msg;
}

struct trec_reader *trec_memfile_reader(const struct trec_memfile *m)
{
	struct trec_reader_opts o = { .warn = ignore_warning };
	int err;

	return trec_reader_open_mem(m->map, m->len, &o, &err, NULL, 0);
}

uint64_t trec_memfile_bytes(const struct trec_memfile *m)
{
	struct stat st;

	if (m->map)
		return m->len;
	return m->fd >= 0 && !fstat(m->fd, &st) ? (uint64_t)st.st_size : 0;
}

void trec_memfile_free(struct trec_memfile *m)
{
	if (m->w)
		trec_writer_close(m->w);
	if (m->map)
		munmap((void *)m->map, m->len);
	if (m->fd >= 0)
		close(m->fd);
	*m = (struct trec_memfile){ .fd = -1 };
}
