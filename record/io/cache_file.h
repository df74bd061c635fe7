/* SPDX-License-Identifier: MIT */
/* Files of trecord's persistent caches (stack deltas, symbol archives):
 * one entry per build-id, read whole and bounded, written atomically. */
#ifndef TREC_RECORD_CACHE_FILE_H
#define TREC_RECORD_CACHE_FILE_H

#include <stddef.h>
#include <stdint.h>

/* "<dir>/<sub>/<hex of bid>". 0, -ENOENT (no build-id) or -ENAMETOOLONG. */
int trec_cache_entry_path(const char *dir, const char *sub, const uint8_t *bid,
			  size_t bid_len, char *path, size_t len);
/* Reads the regular file at path, at most max bytes, into a new buffer.
 * 0, -errno of open (-ENOENT: no entry), -EINVAL (not a regular file of
 * at most max bytes) or -ENOMEM. */
int trec_cache_read(const char *path, size_t max, uint8_t **buf, size_t *len);
/* Writes buf as <dir>/<sub>/<name>: the directories made private to the
 * user, a temporary file renamed into place. 0 or a negative errno. */
int trec_cache_write(const char *dir, const char *sub, const char *path, const uint8_t *buf,
		     size_t len);

#endif /* TREC_RECORD_CACHE_FILE_H */
