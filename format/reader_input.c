// SPDX-License-Identifier: MIT
/*
 * A recording read from a pipe (treport -): the reader works at file
 * offsets (pread), and after damage it scans forward for the next chunk,
 * so the stream is first copied to an unlinked temporary file. Memory
 * stays one buffer whatever the recording's size.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format_internal.h"
#include "reader_check.h"

#define SPOOL_BUF (256u << 10)

static int tmp_file(const char *dir, char *msg, size_t msglen)
{
	char path[4096];
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	if (fd >= 0)
		return fd;
	/* Filesystems without O_TMPFILE: a named file, unlinked at once. */
	if (snprintf(path, sizeof(path), "%s/trec-stdin.XXXXXX", dir) >= (int)sizeof(path)) {
		snprintf(msg, msglen, "temporary directory name too long");
		return -ENAMETOOLONG;
	}
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0) {
		int e = -errno;

		snprintf(msg, msglen, "cannot create a temporary file in %s: %s", dir, strerror(-e));
		return e;
	}
	unlink(path);
	return fd;
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int trec_spool_stream(int in, char *msg, size_t msglen)
{
	const char *dir = getenv("TMPDIR");
	uint8_t *buf = malloc(SPOOL_BUF);
	uint64_t total = 0;
	int fd, err = 0;

	if (!dir || !*dir)
		dir = "/tmp";
	if (!buf) {
		snprintf(msg, msglen, "out of memory");
		return -ENOMEM;
	}
	fd = tmp_file(dir, msg, msglen);
	if (fd < 0) {
		free(buf);
		return fd;
	}
	for (;;) {
		ssize_t n = read(in, buf, SPOOL_BUF);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			snprintf(msg, msglen, "reading the input: %s", strerror(-err));
			break;
		}
		if (n == 0)
			break;
		err = write_all(fd, buf, (size_t)n);
		if (err) {
			snprintf(msg, msglen, "copying the input to a temporary file in %s: %s", dir,
				 strerror(-err));
			break;
		}
		/* Not a recording: what came is enough for the header check's
		 * message; do not copy the rest of an endless stream. */
		if (total < TREC_FILE_MAGIC_LEN && total + (uint64_t)n >= TREC_FILE_MAGIC_LEN) {
			uint8_t head[TREC_FILE_MAGIC_LEN];

			if (pread(fd, head, sizeof(head), 0) != (ssize_t)sizeof(head) ||
			    memcmp(head, TREC_FILE_MAGIC, TREC_FILE_MAGIC_LEN)) {
				total += (uint64_t)n;
				break;
			}
		}
		total += (uint64_t)n;
	}
	free(buf);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}
