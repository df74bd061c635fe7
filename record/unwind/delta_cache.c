// SPDX-License-Identifier: MIT
/* The delta cache's files: where they live, reading and writing one entry
 * (format in delta_cache.h, delta_cache_codec.c). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "record/procs/file_id.h"
#include "record/unwind/delta_cache.h"

/* An entry is at most this big: 4M deltas of 24 bytes, plus the header. */
#define MAX_ENTRY ((size_t)TREC_MAX_STACK_DELTAS * 24 + 4096)

int trec_delta_cache_dir(char *buf, size_t len)
{
	const char *env = getenv("TREC_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	int n;

	if (env && *env)
		n = snprintf(buf, len, "%s", env);
	else if (xdg && *xdg == '/')
		n = snprintf(buf, len, "%s/trec", xdg);
	else if (home && *home == '/')
		n = snprintf(buf, len, "%s/.cache/trec", home);
	else
		return -ENOENT;
	return n > 0 && (size_t)n < len ? 0 : -ENAMETOOLONG;
}

/* dir/deltas-x<E>/<hex build-id> of the file at fd, and its build-id. */
static int entry_path(const char *dir, int fd, char *path, size_t len, uint8_t *bid,
		      uint32_t *bid_len)
{
	struct trec_file f;
	char hex[2 * TREC_MAX_BUILD_ID + 1];
	int err = trec_file_describe(fd, "", &f), n;

	if (err)
		return err;
	*bid_len = f.build_id_len;
	memcpy(bid, f.build_id, f.build_id_len);
	trec_file_release(&f);
	if (!*bid_len)
		return -ENOENT;
	for (uint32_t i = 0; i < *bid_len; i++)
		snprintf(hex + 2 * i, 3, "%02x", bid[i]);
	n = snprintf(path, len, "%s/" TREC_DELTA_CACHE_SUBDIR "/%s", dir, hex);
	return n > 0 && (size_t)n < len ? 0 : -ENAMETOOLONG;
}

static int read_entry(const char *path, uint8_t **buf, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	struct stat st;
	size_t got = 0;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > MAX_ENTRY) {
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

int trec_delta_cache_get(const char *dir, int fd, struct trec_file_deltas *d, bool quiet)
{
	char path[4096], why[160];
	uint8_t bid[TREC_MAX_BUILD_ID], *buf = NULL;
	uint32_t bid_len;
	size_t len = 0;
	int err = entry_path(dir, fd, path, sizeof(path), bid, &bid_len);

	if (!err)
		err = read_entry(path, &buf, &len);
	if (err == -EINVAL)
		snprintf(why, sizeof(why), "not a regular file of at most %zu bytes", MAX_ENTRY);
	if (!err)
		err = trec_delta_cache_parse(buf, len, bid, bid_len, d, why, sizeof(why));
	free(buf);
	if (err == -EINVAL && !quiet)
		fprintf(stderr, "trecord: warning: ignoring the damaged delta cache entry %s: %s\n",
			path, why);
	return err;
}

/* mkdir -p of dir/deltas, private to the user. */
static int make_dirs(const char *dir, char *sub, size_t len)
{
	char *p;

	if ((size_t)snprintf(sub, len, "%s/" TREC_DELTA_CACHE_SUBDIR, dir) >= len)
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

int trec_delta_cache_put(const char *dir, int fd, const struct trec_file_deltas *d)
{
	char path[4096], sub[4096], tmp[4200];
	uint8_t bid[TREC_MAX_BUILD_ID], *buf;
	uint32_t bid_len;
	size_t len, done = 0;
	int err = entry_path(dir, fd, path, sizeof(path), bid, &bid_len), out;

	if (!err)
		err = make_dirs(dir, sub, sizeof(sub));
	if (!err)
		err = trec_delta_cache_encode(d, bid, bid_len, &buf, &len);
	if (err)
		return err;
	snprintf(tmp, sizeof(tmp), "%s/.tmp.XXXXXX", sub);
	out = mkostemp(tmp, O_CLOEXEC);
	if (out < 0) {
		free(buf);
		return -errno;
	}
	while (done < len) {
		ssize_t w = write(out, buf + done, len - done);

		if (w <= 0)
			break;
		done += w;
	}
	free(buf);
	err = done == len ? 0 : -EIO;
	if (close(out) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}
