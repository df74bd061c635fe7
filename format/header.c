// SPDX-License-Identifier: MIT
/* The fixed file header and chunk header (FORMAT.md §2, §3). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "format_internal.h"

static void copy_host_str(char dst[TREC_HOST_STR_LEN], const char *src)
{
	/* strncpy would leave no NUL on 65-byte input; the fields are 65 wide. */
	size_t n = strnlen(src, TREC_HOST_STR_LEN - 1);

	memcpy(dst, src, n);
	memset(dst + n, 0, TREC_HOST_STR_LEN - n);
}

void trec_header_init_host(struct trec_header *h)
{
	struct utsname u;
	struct timespec ts;
	long ps = sysconf(_SC_PAGESIZE);

	memset(h, 0, sizeof(*h));
	h->version_major = TREC_FORMAT_VERSION_MAJOR;
	h->version_minor = TREC_FORMAT_VERSION_MINOR;
	h->page_size = ps > 0 ? (uint32_t)ps : 4096;
	h->clock_id = CLOCK_MONOTONIC;
	if (clock_gettime(CLOCK_REALTIME, &ts) == 0)
		h->creation_time_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	if (uname(&u) == 0) {
		copy_host_str(h->kernel_release, u.release);
		copy_host_str(h->machine, u.machine);
		copy_host_str(h->hostname, u.nodename);
	}
}

void trec_header_encode(const struct trec_header *h, uint8_t out[TREC_HEADER_SIZE_V1])
{
	memset(out, 0, TREC_HEADER_SIZE_V1);
	memcpy(out + TREC_HDR_OFF_MAGIC, TREC_FILE_MAGIC, TREC_FILE_MAGIC_LEN);
	/* The writer writes its own version, whatever the caller filled in. */
	trec_put_le16(out + TREC_HDR_OFF_VMAJOR, TREC_FORMAT_VERSION_MAJOR);
	trec_put_le16(out + TREC_HDR_OFF_VMINOR, TREC_FORMAT_VERSION_MINOR);
	trec_put_le32(out + TREC_HDR_OFF_SIZE, TREC_HEADER_SIZE_V1);
	trec_put_le32(out + TREC_HDR_OFF_FLAGS, h->flags);
	trec_put_le32(out + TREC_HDR_OFF_PAGE_SIZE, h->page_size);
	trec_put_le64(out + TREC_HDR_OFF_CTIME, h->creation_time_ns);
	trec_put_le32(out + TREC_HDR_OFF_CLOCK, h->clock_id);
	copy_host_str((char *)out + TREC_HDR_OFF_KREL, h->kernel_release);
	copy_host_str((char *)out + TREC_HDR_OFF_MACHINE, h->machine);
	copy_host_str((char *)out + TREC_HDR_OFF_HOST, h->hostname);
	trec_put_le32(out + TREC_HEADER_SIZE_V1 - 4,
		      trec_crc32(out, TREC_HEADER_SIZE_V1 - 4));
}

int trec_header_decode(const uint8_t *p, size_t avail, struct trec_header *h,
		       int *crc_bad, char *err, size_t errlen)
{
	*crc_bad = 0;
	memset(h, 0, sizeof(*h));
	if (avail == 0) {
		snprintf(err, errlen, "not a trec recording (empty file)");
		return -EBADMSG;
	}
	if (avail < TREC_FILE_MAGIC_LEN || memcmp(p, TREC_FILE_MAGIC, TREC_FILE_MAGIC_LEN)) {
		snprintf(err, errlen, "not a trec recording (bad magic)");
		return -EBADMSG;
	}
	if (avail < TREC_HDR_OFF_SIZE + 4) {
		snprintf(err, errlen, "file truncated at offset %zu: incomplete file header", avail);
		return -EBADMSG;
	}
	h->version_major = trec_get_le16(p + TREC_HDR_OFF_VMAJOR);
	h->version_minor = trec_get_le16(p + TREC_HDR_OFF_VMINOR);
	if (h->version_major != TREC_FORMAT_VERSION_MAJOR) {
		snprintf(err, errlen,
			 "unsupported trec format version %u.%u (this reader reads %u.x%s)",
			 h->version_major, h->version_minor, TREC_FORMAT_VERSION_MAJOR,
			 h->version_major > TREC_FORMAT_VERSION_MAJOR ? "; the file is newer" : "");
		return -EPROTONOSUPPORT;
	}
	uint32_t size = trec_get_le32(p + TREC_HDR_OFF_SIZE);
	if (size < TREC_HEADER_SIZE_V1 || size > TREC_HEADER_SIZE_MAX) {
		snprintf(err, errlen, "corrupt file header: header size %u out of range", size);
		return -EBADMSG;
	}
	if (avail < size) {
		snprintf(err, errlen, "file truncated at offset %zu: incomplete file header", avail);
		return -EBADMSG;
	}
	if (trec_get_le32(p + size - 4) != trec_crc32(p, size - 4))
		*crc_bad = 1;
	h->flags = trec_get_le32(p + TREC_HDR_OFF_FLAGS);
	h->page_size = trec_get_le32(p + TREC_HDR_OFF_PAGE_SIZE);
	h->creation_time_ns = trec_get_le64(p + TREC_HDR_OFF_CTIME);
	h->clock_id = trec_get_le32(p + TREC_HDR_OFF_CLOCK);
	/* Force termination: the fields may hold 65 non-NUL bytes. */
	memcpy(h->kernel_release, p + TREC_HDR_OFF_KREL, TREC_HOST_STR_LEN - 1);
	memcpy(h->machine, p + TREC_HDR_OFF_MACHINE, TREC_HOST_STR_LEN - 1);
	memcpy(h->hostname, p + TREC_HDR_OFF_HOST, TREC_HOST_STR_LEN - 1);
	return (int)size;
}

void trec_chunk_hdr_encode(const struct trec_chunk_hdr *c, uint8_t out[TREC_CHUNK_HDR_SIZE])
{
	memcpy(out + TREC_CHK_OFF_MAGIC, TREC_CHUNK_MAGIC, 4);
	trec_put_le16(out + TREC_CHK_OFF_TYPE, c->type);
	trec_put_le16(out + TREC_CHK_OFF_FLAGS, c->flags);
	trec_put_le32(out + TREC_CHK_OFF_CLEN, c->clen);
	trec_put_le32(out + TREC_CHK_OFF_ULEN, c->ulen);
	trec_put_le32(out + TREC_CHK_OFF_NREC, c->nrec);
	trec_put_le32(out + TREC_CHK_OFF_SEQ, c->seq);
	trec_put_le32(out + TREC_CHK_OFF_BODY_CRC, c->body_crc);
	trec_put_le32(out + TREC_CHK_OFF_HDR_CRC, trec_crc32(out, TREC_CHK_OFF_HDR_CRC));
}

int trec_chunk_hdr_decode(const uint8_t in[TREC_CHUNK_HDR_SIZE], struct trec_chunk_hdr *c)
{
	if (memcmp(in + TREC_CHK_OFF_MAGIC, TREC_CHUNK_MAGIC, 4))
		return -EBADMSG;
	if (trec_get_le32(in + TREC_CHK_OFF_HDR_CRC) != trec_crc32(in, TREC_CHK_OFF_HDR_CRC))
		return -EBADMSG;
	c->type = trec_get_le16(in + TREC_CHK_OFF_TYPE);
	c->flags = trec_get_le16(in + TREC_CHK_OFF_FLAGS);
	c->clen = trec_get_le32(in + TREC_CHK_OFF_CLEN);
	c->ulen = trec_get_le32(in + TREC_CHK_OFF_ULEN);
	c->nrec = trec_get_le32(in + TREC_CHK_OFF_NREC);
	c->seq = trec_get_le32(in + TREC_CHK_OFF_SEQ);
	c->body_crc = trec_get_le32(in + TREC_CHK_OFF_BODY_CRC);
	return 0;
}
