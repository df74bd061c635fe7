// SPDX-License-Identifier: MIT
/* The delta cache's files: where they live, reading and writing one entry
 * (format in delta_cache.h, delta_cache_codec.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "record/io/cache_file.h"
#include "record/procs/file_id.h"
#include "record/unwind/delta_cache.h"

/* An entry is at most this big: 4M deltas of 24 bytes, plus the header. */
#define MAX_ENTRY ((size_t)TREC_MAX_STACK_DELTAS * 24 + 4096)

static bool is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

int trec_delta_cache_dir(char *buf, size_t len)
{
	const char *env = getenv("TREC_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	int n;

	if (env && *env)
		n = snprintf(buf, len, "%s", env);
	else if (xdg && *xdg == '/')
		n = snprintf(buf, len, "%s/trec", xdg);
	else if (home && *home == '/' && is_dir(home))
		/* (a HOME that does not exist, as Debian's /nonexistent for
		 * system users, is not made: no cache then) */
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
	int err = trec_file_describe(fd, "", &f);

	if (err)
		return err;
	*bid_len = f.build_id_len;
	memcpy(bid, f.build_id, f.build_id_len);
	trec_file_release(&f);
	return trec_cache_entry_path(dir, TREC_DELTA_CACHE_SUBDIR, bid, *bid_len, path, len);
}

int trec_delta_cache_get(const char *dir, int fd, struct trec_file_deltas *d, bool quiet)
{
	char path[4096], why[160];
	uint8_t bid[TREC_MAX_BUILD_ID], *buf = NULL;
	uint32_t bid_len;
	size_t len = 0;
	int err = entry_path(dir, fd, path, sizeof(path), bid, &bid_len);

	if (!err)
		err = trec_cache_read(path, MAX_ENTRY, &buf, &len);
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

int trec_delta_cache_put(const char *dir, int fd, const struct trec_file_deltas *d)
{
	char path[4096];
	uint8_t bid[TREC_MAX_BUILD_ID], *buf;
	uint32_t bid_len;
	size_t len;
	int err = entry_path(dir, fd, path, sizeof(path), bid, &bid_len);

	if (!err)
		err = trec_delta_cache_encode(d, bid, bid_len, &buf, &len);
	if (err)
		return err;
	err = trec_cache_write(dir, TREC_DELTA_CACHE_SUBDIR, path, buf, len);
	free(buf);
	return err;
}
