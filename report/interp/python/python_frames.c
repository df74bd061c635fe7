// SPDX-License-Identifier: MIT
/* PYCODE blob store and Python frame lookup; see python_frames.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report/interp/interp_codes.h"
#include "report/interp/python/python_frames.h"
#include "report/interp/python/python_lines.h"
#include "report/interp/python/python_lines_old.h"
#include "report/util.h"
#include "trec_pycode.h"
#include "trec_types.h"

struct entry {
	uint8_t *payload; /* owned copy; code's pointers point into it */
	struct trec_pycode code;
};

struct trec_pyframes {
	struct rp_codes *by_addr; /* code object address -> descriptions */
};

static void free_entry(void *desc)
{
	struct entry *e = desc;

	free(e->payload);
	free(e);
}

struct trec_pyframes *trec_pyframes_new(void)
{
	struct trec_pyframes *s = xcalloc(1, sizeof(*s));

	s->by_addr = rp_codes_new(free_entry);
	return s;
}

void trec_pyframes_free(struct trec_pyframes *s)
{
	if (!s)
		return;
	rp_codes_free(s->by_addr);
	free(s);
}

int trec_pyframes_add(struct trec_pyframes *s, const struct trec_blob *b)
{
	struct entry *e;

	if (b->subtype != TREC_PYCODE_SUBTYPE_V1 || (b->len && !b->data))
		return -EBADMSG;
	e = xcalloc(1, sizeof(*e));
	e->payload = rp_codes_copy_payload(b);
	if (trec_pycode_decode(e->payload, b->len, &e->code) || e->code.code_addr != b->file_id) {
		free_entry(e);
		return -EBADMSG;
	}
	rp_codes_add(s->by_addr, e->code.code_addr, e->code.pid, e->code.object_id, e);
	return 0;
}

int trec_pyframes_lookup(const struct trec_pyframes *s, uint32_t pid,
			 const struct trec_rec_frame *f, struct trec_pyframe_sym *out)
{
	/* Object id 0: BPF could not read the object, any description of
	 * that address in pid will do; a fork shares its parent's code. */
	const struct entry *e =
		s ? rp_codes_find(s->by_addr, pid, f->file_id, (uint32_t)f->addr, true) : NULL;
	int32_t lasti = (int32_t)(uint32_t)(f->addr >> 32);

	if (!e)
		return -ENOENT;
	out->function = e->code.qualname_len ? e->code.qualname : e->code.name;
	out->file = e->code.filename;
	/* The line table format follows the version (FORMAT.md §11). */
	if (e->code.py_major != 3 || e->code.py_minor < 8)
		out->line = -1;
	else if (e->code.py_minor >= 11)
		out->line = trec_py_line_of(e->code.linetable, e->code.linetable_len,
					    e->code.firstlineno, lasti);
	else if (e->code.py_minor == 10)
		out->line = trec_py_line_of_310(e->code.linetable, e->code.linetable_len,
						e->code.firstlineno, lasti);
	else
		out->line = trec_py_line_of_lnotab(e->code.linetable, e->code.linetable_len,
						   e->code.firstlineno, lasti);
	return 0;
}

int trec_pyframes_format(const struct trec_pyframes *s, uint32_t pid,
			 const struct trec_rec_frame *f, char *buf, size_t len)
{
	struct trec_pyframe_sym ps;
	struct rp_interp_sym sym;

	if (trec_pyframes_lookup(s, pid, f, &ps))
		return rp_interp_label(buf, len, "python", f->file_id, NULL, NULL);
	sym = (struct rp_interp_sym){ ps.function, ps.file, ps.line };
	return rp_interp_label(buf, len, "python", f->file_id, &sym, ":?");
}

/* ---- the interpreter backend ---------------------------------------------- */

static void *py_new_store(void)
{
	return trec_pyframes_new();
}

static void py_free_store(void *store)
{
	trec_pyframes_free(store);
}

static int py_add(void *store, const struct trec_blob *b)
{
	return trec_pyframes_add(store, b);
}

static int py_lookup(const void *store, uint32_t pid, const struct trec_rec_frame *f,
		     struct rp_interp_sym *out)
{
	struct trec_pyframe_sym ps;
	int err = trec_pyframes_lookup(store, pid, f, &ps);

	if (!err)
		*out = (struct rp_interp_sym){ ps.function, ps.file, ps.line };
	return err;
}

static int py_format(const void *store, uint32_t pid, const struct trec_rec_frame *f, char *buf,
		     size_t len)
{
	return trec_pyframes_format(store, pid, f, buf, len);
}

const struct rp_interp_ops rp_python_interp = {
	.name = "python",
	.frame_kind = TREC_FRAME_PYTHON,
	.record_type = TREC_REC_PYCODE,
	.new_store = py_new_store,
	.free_store = py_free_store,
	.add = py_add,
	.lookup = py_lookup,
	.format = py_format,
};
