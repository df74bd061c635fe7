// SPDX-License-Identifier: MIT
/* PYCODE blob store and Python frame lookup; see python_frames.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report/interp/python/python_frames.h"
#include "report/interp/python/python_lines.h"
#include "trec_pycode.h"

struct entry {
	struct entry *next;
	uint8_t *payload; /* owned copy; code's pointers point into it */
	struct trec_pycode code;
};

struct trec_pyframes {
	struct entry **buckets;
	size_t num_buckets, count;
};

static size_t bucket_of(const struct trec_pyframes *s, uint64_t addr)
{
	/* Code objects are 16-byte aligned heap pointers. */
	return (size_t)((addr >> 4) * 0x9e3779b97f4a7c15ull >> 20) & (s->num_buckets - 1);
}

struct trec_pyframes *trec_pyframes_new(void)
{
	struct trec_pyframes *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->num_buckets = 1024;
	s->buckets = calloc(s->num_buckets, sizeof(*s->buckets));
	if (!s->buckets) {
		free(s);
		return NULL;
	}
	return s;
}

void trec_pyframes_free(struct trec_pyframes *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->num_buckets; i++) {
		struct entry *e = s->buckets[i], *next;

		for (; e; e = next) {
			next = e->next;
			free(e->payload);
			free(e);
		}
	}
	free(s->buckets);
	free(s);
}

static void grow(struct trec_pyframes *s)
{
	size_t n = s->num_buckets * 2;
	struct entry **b = calloc(n, sizeof(*b));
	struct entry **old = s->buckets;
	size_t old_n = s->num_buckets;

	if (!b)
		return; /* keep the longer chains */
	s->buckets = b;
	s->num_buckets = n;
	for (size_t i = 0; i < old_n; i++) {
		struct entry *e = old[i], *next;

		for (; e; e = next) {
			size_t k = bucket_of(s, e->code.code_addr);

			next = e->next;
			e->next = b[k];
			b[k] = e;
		}
	}
	free(old);
}

int trec_pyframes_add(struct trec_pyframes *s, const struct trec_blob *b)
{
	struct entry *e;
	size_t k;

	if (b->subtype != TREC_PYCODE_SUBTYPE_V1 || (b->len && !b->data))
		return -EBADMSG;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->payload = malloc(b->len ? b->len : 1);
	if (!e->payload) {
		free(e);
		return -ENOMEM;
	}
	if (b->len)
		memcpy(e->payload, b->data, b->len);
	if (trec_pycode_decode(e->payload, b->len, &e->code) || e->code.code_addr != b->file_id) {
		free(e->payload);
		free(e);
		return -EBADMSG;
	}
	if (s->count >= 2 * s->num_buckets)
		grow(s);
	k = bucket_of(s, e->code.code_addr);
	e->next = s->buckets[k];
	s->buckets[k] = e;
	s->count++;
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
	for (e = s->buckets[bucket_of(s, addr)]; e; e = e->next) {
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
	/* Location tables are the 3.11+ format; older ones are not decoded. */
	out->line = e->code.py_major == 3 && e->code.py_minor >= 11
			    ? trec_py_line_of(e->code.linetable, e->code.linetable_len,
					      e->code.firstlineno, lasti)
			    : -1;
	return 0;
}

int trec_pyframes_format(const struct trec_pyframes *s, uint32_t pid,
			 const struct trec_rec_frame *f, char *buf, size_t len)
{
	struct trec_pyframe_sym sym;
	const char *base;

	if (trec_pyframes_lookup(s, pid, f, &sym))
		return snprintf(buf, len, "[python 0x%llx]", (unsigned long long)f->file_id);
	base = strrchr(sym.file, '/');
	base = base ? base + 1 : sym.file;
	if (sym.line < 0)
		return snprintf(buf, len, "%s (%s:?)", sym.function, base);
	return snprintf(buf, len, "%s (%s:%d)", sym.function, base, sym.line);
}
