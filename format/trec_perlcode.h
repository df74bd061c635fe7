/* SPDX-License-Identifier: MIT */
/*
 * Payload of INTERP_CODE records of subtype 2 (Perl 5): what trecord read
 * from a live process about one Perl frame's statement and sub, so that
 * treport names Perl frames without the process or the scripts. Byte
 * layout: FORMAT.md §12.1.
 */
#ifndef TREC_PERLCODE_H
#define TREC_PERLCODE_H

#include <stddef.h>
#include <stdint.h>

/* trec_blob.subtype of INTERP_CODE records of this layout. */
#define TREC_PERLCODE_SUBTYPE 2

/* Longest package, sub or file name (bytes); the decoder enforces it. */
#define TREC_PERLCODE_MAX_STR 4096

struct trec_perlcode {
	uint32_t pid;
	uint64_t cop_addr; /* the frame's file_id */
	uint64_t key;      /* the frame's addr_or_line: line guard | sub handle */
	uint32_t line;     /* cop_line */
	/* NUL-terminated; from decode they point into the payload. The
	 * package and name are empty for the main program. */
	const char *package, *name, *file;
	uint32_t package_len, name_len, file_len;
};

/* Serializes c into a malloc'ed buffer. 0 or -EINVAL / -ENOMEM. */
int trec_perlcode_encode(const struct trec_perlcode *c, uint8_t **buf, size_t *len);
/* Parses a payload (hostile input). 0 or -EBADMSG. */
int trec_perlcode_decode(const uint8_t *data, size_t len, struct trec_perlcode *out);

#endif /* TREC_PERLCODE_H */
