// SPDX-License-Identifier: MIT
/* The one checksum of the format: CRC-32 (zlib / ISO-HDLC), FORMAT.md §5. */
#include <zlib.h>

#include "format_internal.h"

uint32_t trec_crc32(const void *p, size_t len)
{
	uLong crc = crc32(0L, Z_NULL, 0);
	const Bytef *b = p;

	/* zlib takes uInt lengths; chunks stay far below, but be exact. */
	while (len) {
		uInt n = len > (1u << 30) ? (1u << 30) : (uInt)len;
		crc = crc32(crc, b, n);
		b += n;
		len -= n;
	}
	return (uint32_t)crc;
}
