// SPDX-License-Identifier: MIT
/* The checks both caches' entries share: see cache_entry.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "record/io/cache_entry.h"

static uint32_t le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

int trec_cache_bad(char *why, size_t why_len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, why_len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int trec_cache_check_entry(const uint8_t *buf, size_t len, const char magic[8], uint32_t version,
			   const uint8_t *bid, size_t bid_len, const char *what, char *why,
			   size_t why_len)
{
	const size_t head = TREC_CACHE_ENTRY_HEAD;

	if (len < head || memcmp(buf, magic, 8))
		return trec_cache_bad(why, why_len, "not a %s entry", what);
	if (le32(buf + 8) != version)
		return trec_cache_bad(why, why_len, "version %u, not %u", le32(buf + 8), version);
	if (le32(buf + 12) != bid_len || len - head < bid_len || memcmp(buf + head, bid, bid_len))
		return trec_cache_bad(why, why_len, "not this file's build-id");
	/* the CRC covers every byte before it: checked before any count is read */
	if (len - head - bid_len < 4 || crc32(0, buf, (uInt)(len - 4)) != le32(buf + len - 4))
		return trec_cache_bad(why, why_len, "checksum mismatch");
	return 0;
}
