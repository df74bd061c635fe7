/* SPDX-License-Identifier: MIT */
/*
 * Payload of TREC_REC_PYCODE blob records: what trecord read from a live
 * process about one Python code object, so that treport can name Python
 * frames and turn their instruction index into a line. Byte layout: the
 * PYCODE section of FORMAT.md.
 */
#ifndef TREC_PYCODE_H
#define TREC_PYCODE_H

#include <stddef.h>
#include <stdint.h>

/* trec_blob.subtype of the layout below. */
#define TREC_PYCODE_SUBTYPE_V1 1

/* Limits the decoder enforces (and the encoder refuses to exceed). */
#define TREC_PYCODE_MAX_STR 4096
#define TREC_PYCODE_MAX_LINETABLE (1u << 20)

struct trec_pycode {
	uint32_t pid;
	uint64_t code_addr;   /* the frame's file_id */
	uint32_t object_id;   /* trec_py_object_id() of the object that was read */
	int32_t firstlineno;
	uint8_t py_major, py_minor; /* selects the line-table format */
	/* NUL-terminated; from decode they point into the payload. */
	const char *filename, *name, *qualname;
	uint32_t filename_len, name_len, qualname_len;
	const uint8_t *linetable;   /* co_linetable bytes */
	uint32_t linetable_len;
};

/* Serializes c into a malloc'ed buffer. 0 or -EINVAL / -ENOMEM. */
int trec_pycode_encode(const struct trec_pycode *c, uint8_t **buf, size_t *len);
/* Parses a payload (hostile input). 0 or -EBADMSG. */
int trec_pycode_decode(const uint8_t *data, size_t len, struct trec_pycode *out);

#endif /* TREC_PYCODE_H */
