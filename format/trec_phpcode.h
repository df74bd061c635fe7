/* SPDX-License-Identifier: MIT */
/*
 * Payload of INTERP_CODE blob records of subtype 4: what trecord read
 * from a live PHP process about one zend_function, so that treport names
 * PHP frames without the process or its scripts. Byte layout: FORMAT.md
 * §12.3. (The frame itself carries the line: BPF reads the opline.)
 */
#ifndef TREC_PHPCODE_H
#define TREC_PHPCODE_H

#include <stddef.h>
#include <stdint.h>

/* trec_blob.subtype of an INTERP_CODE record describing PHP code. */
#define TREC_PHPCODE_SUBTYPE 4

/* Limit the decoder enforces (and the encoder refuses to exceed). */
#define TREC_PHPCODE_MAX_STR 4096

/* zend_function.type values. */
enum trec_phpcode_type {
	TREC_PHPCODE_INTERNAL = 1, /* C function: no file, no lines */
	TREC_PHPCODE_USER = 2,
	TREC_PHPCODE_EVAL = 4,
};

struct trec_phpcode {
	uint32_t pid;
	uint64_t func_addr; /* the frame's file_id */
	uint32_t object_id; /* trec_php_object_id() of what was read */
	uint8_t type;       /* enum trec_phpcode_type */
	uint8_t php_major, php_minor;
	uint32_t line_start, line_end;
	/* NUL-terminated; from decode they point into the payload. "" when
	 * absent (the script's top level has no name, functions no class). */
	const char *function, *class_name, *file;
	uint32_t function_len, class_len, file_len;
};

/* Serializes c into a malloc'ed buffer. 0 or -EINVAL / -ENOMEM. */
int trec_phpcode_encode(const struct trec_phpcode *c, uint8_t **buf, size_t *len);
/* Parses a payload (hostile input). 0 or -EBADMSG. */
int trec_phpcode_decode(const uint8_t *data, size_t len, struct trec_phpcode *out);

#endif /* TREC_PHPCODE_H */
