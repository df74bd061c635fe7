// SPDX-License-Identifier: MIT
/* Entries of trecord's persistent caches: see cache_file.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record/io/cache_file.h"

int trec_cache_entry_path(const char *dir, const char *sub, const uint8_t *bid,
			  size_t bid_len, char *path, size_t len)
{
	char hex[2 * 64 + 1];
	int n;

	if (!bid_len)
		return -ENOENT;
	if (bid_len > 64)
		return -ENAMETOOLONG;
	for (size_t i = 0; i < bid_len; i++)
		snprintf(hex + 2 * i, 3, "%02x", bid[i]);
	n = snprintf(path, len, "%s/%s/%s", dir, sub, hex);
	return n > 0 && (size_t)n < len ? 0 : -ENAMETOOLONG;
}

int trec_cache_read(const char *path, size_t max, uint8_t **buf, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	struct stat st;
	size_t got = 0;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > max) {
		close(fd);
		return -EINVAL;
	}
	*buf = malloc(st.st_size ? st.st_size : 1);
	if (!*buf) {
		close(fd);
		return -ENOMEM;
	}
	while (got < (size_t)st.st_size) {
		ssize_t r = read(fd, *buf + got, st.st_size - got);

		if (r <= 0)
			break;
		got += r;
	}
	close(fd);
	*len = got;
	return 0;
}

/* mkdir -p of dir/sub, private to the user. */
static int make_dirs(const char *dir, const char *subdir, char *sub, size_t len)
{
	char *p;

	if ((size_t)snprintf(sub, len, "%s/%s", dir, subdir) >= len)
		return -ENAMETOOLONG;
	for (p = sub + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(sub, 0700) && errno != EEXIST) {
			*p = '/';
			return -errno;
		}
		*p = '/';
	}
	return mkdir(sub, 0700) && errno != EEXIST ? -errno : 0;
}

int trec_cache_write(const char *dir, const char *subdir, const char *path, const uint8_t *buf,
		     size_t len)
{
	char sub[4096], tmp[4200];
	size_t done = 0;
	int err = make_dirs(dir, subdir, sub, sizeof(sub)), out;

	if (err)
		return err;
	snprintf(tmp, sizeof(tmp), "%s/.tmp.XXXXXX", sub);
	out = mkostemp(tmp, O_CLOEXEC);
	if (out < 0)
		return -errno;
	while (done < len) {
		ssize_t w = write(out, buf + done, len - done);

		if (w <= 0)
			break;
		done += w;
	}
	err = done == len ? 0 : -EIO;
	if (close(out) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}
