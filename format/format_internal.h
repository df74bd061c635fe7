/* SPDX-License-Identifier: MIT */
/*
 * Layout constants and limits of the .tr format (FORMAT.md is the spec;
 * every number here appears there) and the helpers shared by the writer
 * and the reader. Not part of the public API.
 */
#ifndef TREC_FORMAT_INTERNAL_H
#define TREC_FORMAT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "trec_format.h"

/* ---- file header (FORMAT.md §2) ---------------------------------------- */

#define TREC_FILE_MAGIC "\x89TREC\r\n\x1a"
#define TREC_FILE_MAGIC_LEN 8
#define TREC_HEADER_SIZE_V1 256u      /* what this writer writes */
#define TREC_HEADER_SIZE_MAX 65536u   /* a reader refuses larger headers */
#define TREC_HOST_STR_LEN 65          /* uname fields, NUL padded */

#define TREC_HDR_OFF_MAGIC 0
#define TREC_HDR_OFF_VMAJOR 8
#define TREC_HDR_OFF_VMINOR 10
#define TREC_HDR_OFF_SIZE 12
#define TREC_HDR_OFF_FLAGS 16
#define TREC_HDR_OFF_PAGE_SIZE 20
#define TREC_HDR_OFF_CTIME 24
#define TREC_HDR_OFF_CLOCK 32
#define TREC_HDR_OFF_RESERVED 36
#define TREC_HDR_OFF_KREL 40
#define TREC_HDR_OFF_MACHINE (TREC_HDR_OFF_KREL + TREC_HOST_STR_LEN)
#define TREC_HDR_OFF_HOST (TREC_HDR_OFF_MACHINE + TREC_HOST_STR_LEN)
/* The header CRC-32 is the last 4 bytes of the header_size bytes. */

/* ---- chunks (FORMAT.md §3) --------------------------------------------- */

#define TREC_CHUNK_MAGIC "TRCK"
#define TREC_CHUNK_HDR_SIZE 32u
#define TREC_CHUNK_RECORDS 1u         /* the only chunk type of 1.0 */

#define TREC_CHK_OFF_MAGIC 0
#define TREC_CHK_OFF_TYPE 4
#define TREC_CHK_OFF_FLAGS 6
#define TREC_CHK_OFF_CLEN 8
#define TREC_CHK_OFF_ULEN 12
#define TREC_CHK_OFF_NREC 16
#define TREC_CHK_OFF_SEQ 20
#define TREC_CHK_OFF_BODY_CRC 24
#define TREC_CHK_OFF_HDR_CRC 28

/* Limits a reader enforces (FORMAT.md §7). */
#define TREC_MAX_CHUNK_ULEN (64u << 20)
#define TREC_MAX_CHUNK_CLEN (TREC_MAX_CHUNK_ULEN + (1u << 20))
#define TREC_DEFAULT_CHUNK_BYTES (1u << 20)
#define TREC_MAX_STRING (1u << 20)
#define TREC_MAX_BUILD_ID 64u
#define TREC_MAX_STACK_FRAMES 4096u   /* per list (kernel, user) */
#define TREC_MAX_COMM 15u

/* Record types private to a chunk body, never returned by the reader. */
#define TREC_REC_STACK 32u            /* stack table entry */
#define TREC_REC_THREAD 33u           /* thread table entry */

struct trec_chunk_hdr {
	uint16_t type, flags;
	uint32_t clen, ulen, nrec, seq;
	uint32_t body_crc;
};

/* ---- little-endian and checksum helpers --------------------------------- */

static inline void trec_put_le16(uint8_t *p, uint16_t v)
{
	p[0] = v; p[1] = v >> 8;
}
static inline void trec_put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = v >> (8 * i);
}
static inline void trec_put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = v >> (8 * i);
}
static inline uint16_t trec_get_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}
static inline uint32_t trec_get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t trec_get_le64(const uint8_t *p)
{
	return (uint64_t)trec_get_le32(p) | (uint64_t)trec_get_le32(p + 4) << 32;
}

/* CRC-32 as zlib computes it (checksum.c). */
uint32_t trec_crc32(const void *p, size_t len);

/* header.c */
void trec_header_encode(const struct trec_header *h, uint8_t out[TREC_HEADER_SIZE_V1]);
void trec_chunk_hdr_encode(const struct trec_chunk_hdr *c, uint8_t out[TREC_CHUNK_HDR_SIZE]);
/* Header size (> 0) or negative errno with a message; *crc_bad set when
 * only the header CRC is wrong (the fields are still filled in). */
int trec_header_decode(const uint8_t *p, size_t avail, struct trec_header *h,
		       int *crc_bad, char *err, size_t errlen);
/* 0 when magic and header CRC are right. */
int trec_chunk_hdr_decode(const uint8_t in[TREC_CHUNK_HDR_SIZE], struct trec_chunk_hdr *c);

#endif /* TREC_FORMAT_INTERNAL_H */
