/* SPDX-License-Identifier: MIT */
/*
 * Interpreter frames in treport, one backend per interpreter behind one
 * table (interp.c): each keeps the code descriptions its recording holds
 * (Python's PYCODE records, the INTERP_CODE records of the others) and
 * names the frames of its kind from them: "function (file:line)", and a
 * line {function, file, line} for pprof and the viewers.
 */
#ifndef RP_INTERP_H
#define RP_INTERP_H

#include <stddef.h>
#include <stdint.h>
#include "trec_format.h"

struct rp_interp_sym {
	const char *function;
	const char *file; /* as the interpreter had it */
	int line;         /* -1: unknown */
};

struct rp_interp_ops {
	const char *name;    /* "python" */
	uint8_t frame_kind;  /* enum trec_frame_kind of its frames */
	uint8_t record_type; /* TREC_REC_PYCODE or TREC_REC_INTERP_CODE */
	uint32_t subtype;    /* INTERP_CODE: the blob subtype it reads; else 0 */
	void *(*new_store)(void);
	void (*free_store)(void *store);
	/* Adds a record (copied). 0; -EBADMSG: malformed (the caller warns);
	 * -ENOMEM. */
	int (*add)(void *store, const struct trec_blob *b);
	/* 0 with *out filled (strings live as long as the store), or -ENOENT.
	 * store may be NULL (no records): -ENOENT. */
	int (*lookup)(const void *store, uint32_t pid, const struct trec_rec_frame *f,
		      struct rp_interp_sym *out);
	/* The frame's label into buf, for unknown code too ("[perl 0x...]");
	 * returns what snprintf would have written. store may be NULL. */
	int (*format)(const void *store, uint32_t pid, const struct trec_rec_frame *f, char *buf,
		      size_t len);
};

/* The label every backend gives a frame: "function (file:line)" with the
 * file's base name, or "[lang 0x<file_id>]" when sym is NULL (code not
 * described). no_line stands for ":line" when sym->line < 0 (NULL: the
 * number is printed anyway). Returns what snprintf would have written. */
int rp_interp_label(char *buf, size_t len, const char *lang, uint64_t file_id,
		    const struct rp_interp_sym *sym, const char *no_line);

#define RP_INTERP_MAX 8

/* Per recording: each backend's store and malformed-record count. */
struct rp_interp_stores {
	void *store[RP_INTERP_MAX];
	uint64_t bad[RP_INTERP_MAX];
};

/* The backend of frames of this kind, or NULL (native, kernel). */
const struct rp_interp_ops *rp_interp_for_kind(uint8_t frame_kind, size_t *index);

/* Whether record type is an interpreter's; if so it is added to the
 * backend's store (out of memory: message and exit 1). */
int rp_interp_load(struct rp_interp_stores *st, uint8_t type, const struct trec_blob *b);

/* Warns on stderr about malformed records of path. */
void rp_interp_warn(const struct rp_interp_stores *st, const char *path);
void rp_interp_free(struct rp_interp_stores *st);

#endif /* RP_INTERP_H */
