// SPDX-License-Identifier: MIT
/* PYCODE blob store and Python frame lookup; see python_frames.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report/interp/python/python_frames.h"
#include "report/interp/python/python_lines.h"
#include "report/interp/python/python_lines_old.h"
#include "report/util.h"
#include "format/containers/u64map.h"
#include "trec_pycode.h"
#include "trec_types.h"

struct entry {
	struct entry *next; /* another description of the same address */
	uint8_t *payload;   /* owned copy; code's pointers point into it */
	struct trec_pycode code;
};

struct trec_pyframes {
	struct trec_u64map by_addr; /* code object address -> chain of entries */
};

struct trec_pyframes *trec_pyframes_new(void)
{
	return xcalloc(1, sizeof(struct trec_pyframes));
}

void trec_pyframes_free(struct trec_pyframes *s)
{
	uint64_t k;
	void *v;

	if (!s)
		return;
	for (size_t i = 0; trec_u64map_next(&s->by_addr, &i, &k, &v);) {
		struct entry *e = v, *next;

		for (; e; e = next) {
			next = e->next;
			free(e->payload);
			free(e);
		}
	}
	trec_u64map_free(&s->by_addr);
	free(s);
}

int trec_pyframes_add(struct trec_pyframes *s, const struct trec_blob *b)
{
	struct entry *e;
	int err;

	if (b->subtype != TREC_PYCODE_SUBTYPE_V1 || (b->len && !b->data))
		return -EBADMSG;
	e = xcalloc(1, sizeof(*e));
	e->payload = xmalloc(b->len);
	if (b->len)
		memcpy(e->payload, b->data, b->len);
	if (trec_pycode_decode(e->payload, b->len, &e->code) || e->code.code_addr != b->file_id) {
		free(e->payload);
		free(e);
		return -EBADMSG;
	}
	e->next = trec_u64map_get(&s->by_addr, e->code.code_addr);
	trec_u64map_put(&s->by_addr, e->code.code_addr, e, &err);
	if (err)
		rp_out_of_memory(sizeof(*e));
	return 0;
}

/* Same pid and address, and the object id the sample saw (0: BPF could
 * not read the object, any description of that address will do); else
 * the same object in another pid (a fork shares its parent's code). */
static const struct entry *find(const struct trec_pyframes *s, uint32_t pid, uint64_t addr,
				uint32_t object_id)
{
	const struct entry *e, *other = NULL;

	if (!s)
		return NULL;
	for (e = trec_u64map_get(&s->by_addr, addr); e; e = e->next) {
		if (e->code.code_addr != addr)
			continue;
		if (object_id && e->code.object_id != object_id)
			continue;
		if (e->code.pid == pid)
			return e;
		if (object_id && !other)
			other = e;
	}
	return other;
}

int trec_pyframes_lookup(const struct trec_pyframes *s, uint32_t pid,
			 const struct trec_rec_frame *f, struct trec_pyframe_sym *out)
{
	const struct entry *e = find(s, pid, f->file_id, (uint32_t)f->addr);
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
