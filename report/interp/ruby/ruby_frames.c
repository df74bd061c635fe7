// SPDX-License-Identifier: MIT
/* Ruby INTERP_CODE store and frame lookup; see ruby_frames.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report/interp/ruby/ruby_frames.h"
#include "report/util.h"
#include "format/containers/u64map.h"
#include "trec_rbcode.h"
#include "trec_types.h"

struct entry {
	struct entry *next; /* another description of the same address */
	uint8_t *payload;   /* owned copy; code's pointers point into it */
	struct trec_rbcode code;
};

struct store {
	struct trec_u64map by_addr; /* iseq address -> chain of entries */
};

static void *rb_new_store(void)
{
	return xcalloc(1, sizeof(struct store));
}

static void rb_free_store(void *store)
{
	struct store *s = store;
	uint64_t k;
	void *v;

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

static int rb_add(void *store, const struct trec_blob *b)
{
	struct store *s = store;
	struct entry *e;
	int err = 0;

	if (b->subtype != TREC_RBCODE_SUBTYPE || (b->len && !b->data))
		return -EBADMSG;
	e = xcalloc(1, sizeof(*e));
	e->payload = xmalloc(b->len ? b->len : 1);
	if (b->len)
		memcpy(e->payload, b->data, b->len);
	if (trec_rbcode_decode(e->payload, b->len, &e->code) || e->code.iseq_addr != b->file_id) {
		free(e->payload);
		free(e);
		return -EBADMSG;
	}
	e->next = trec_u64map_get(&s->by_addr, e->code.iseq_addr);
	trec_u64map_put(&s->by_addr, e->code.iseq_addr, e, &err);
	if (err)
		rp_out_of_memory(sizeof(*e));
	return 0;
}

/* Same pid, address and object id; else the same object in another pid
 * (a forked child shares its parent's iseqs). */
static const struct entry *find(const struct store *s, uint32_t pid, uint64_t addr,
				uint32_t object_id)
{
	const struct entry *e, *other = NULL;

	if (!s)
		return NULL;
	for (e = trec_u64map_get(&s->by_addr, addr); e; e = e->next) {
		if (e->code.object_id != object_id)
			continue;
		if (e->code.pid == pid)
			return e;
		if (!other)
			other = e;
	}
	return other;
}

static int rb_lookup(const void *store, uint32_t pid, const struct trec_rec_frame *f,
		     struct rp_interp_sym *out)
{
	const struct entry *e = find(store, pid, f->file_id, (uint32_t)f->addr);

	if (!e)
		return -ENOENT;
	out->function = e->code.label;
	out->file = e->code.path;
	out->line = trec_rbcode_line_of(&e->code, (uint32_t)(f->addr >> 32));
	return 0;
}

static int rb_format(const void *store, uint32_t pid, const struct trec_rec_frame *f, char *buf,
		     size_t len)
{
	struct rp_interp_sym sym;
	int err = rb_lookup(store, pid, f, &sym);

	return rp_interp_label(buf, len, "ruby", f->file_id, err ? NULL : &sym, ":?");
}

const struct rp_interp_ops rp_ruby_interp = {
	.name = "ruby",
	.frame_kind = TREC_FRAME_RUBY,
	.record_type = TREC_REC_INTERP_CODE,
	.subtype = TREC_RBCODE_SUBTYPE,
	.new_store = rb_new_store,
	.free_store = rb_free_store,
	.add = rb_add,
	.lookup = rb_lookup,
	.format = rb_format,
};
