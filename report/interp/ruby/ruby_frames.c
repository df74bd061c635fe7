// SPDX-License-Identifier: MIT
/* Ruby INTERP_CODE store and frame lookup; see ruby_frames.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report/interp/interp_codes.h"
#include "report/interp/ruby/ruby_frames.h"
#include "report/util.h"
#include "trec_rbcode.h"
#include "trec_types.h"

struct entry {
	uint8_t *payload; /* owned copy; code's pointers point into it */
	struct trec_rbcode code;
};

static void free_entry(void *desc)
{
	struct entry *e = desc;

	free(e->payload);
	free(e);
}

static void *rb_new_store(void)
{
	return rp_codes_new(free_entry);
}

static void rb_free_store(void *store)
{
	rp_codes_free(store);
}

static int rb_add(void *store, const struct trec_blob *b)
{
	struct entry *e;

	if (b->subtype != TREC_RBCODE_SUBTYPE || (b->len && !b->data))
		return -EBADMSG;
	e = xcalloc(1, sizeof(*e));
	e->payload = rp_codes_copy_payload(b);
	if (trec_rbcode_decode(e->payload, b->len, &e->code) || e->code.iseq_addr != b->file_id) {
		free_entry(e);
		return -EBADMSG;
	}
	rp_codes_add(store, e->code.iseq_addr, e->code.pid, e->code.object_id, e);
	return 0;
}

static int rb_lookup(const void *store, uint32_t pid, const struct trec_rec_frame *f,
		     struct rp_interp_sym *out)
{
	/* A forked child shares its parent's iseqs. */
	const struct entry *e = rp_codes_find(store, pid, f->file_id, (uint32_t)f->addr, false);

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
