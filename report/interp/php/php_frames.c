// SPDX-License-Identifier: MIT
/* PHP INTERP_CODE store and frame naming; see php_frames.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "format/containers/u64map.h"
#include "report/interp/php/php_frames.h"
#include "report/util.h"
#include "trec_phpcode.h"
#include "trec_types.h"

struct entry {
	struct entry *next; /* another description of the same address */
	uint8_t *payload;   /* owned copy; fn's strings point into it */
	struct trec_phpcode fn;
	char *label;        /* "Class::function", "function" or "{main}" */
};

struct store {
	struct trec_u64map by_addr; /* function address -> chain of entries */
};

static void *php_new_store(void)
{
	return xcalloc(1, sizeof(struct store));
}

static void php_free_store(void *store)
{
	struct store *s = store;
	uint64_t k;
	void *v;

	if (!s)
		return;
	for (size_t i = 0; trec_u64map_next(&s->by_addr, &i, &k, &v);)
		for (struct entry *e = v, *next; e; e = next) {
			next = e->next;
			free(e->payload);
			free(e->label);
			free(e);
		}
	trec_u64map_free(&s->by_addr);
	free(s);
}

static int php_add(void *store, const struct trec_blob *b)
{
	struct store *s = store;
	struct entry *e;
	int err;

	if (b->subtype != TREC_PHPCODE_SUBTYPE || (b->len && !b->data))
		return -EBADMSG;
	e = xcalloc(1, sizeof(*e));
	e->payload = xmalloc(b->len ? b->len : 1);
	if (b->len)
		memcpy(e->payload, b->data, b->len);
	if (trec_phpcode_decode(e->payload, b->len, &e->fn) || e->fn.func_addr != b->file_id) {
		free(e->payload);
		free(e);
		return -EBADMSG;
	}
	/* PHP names the script's top level "{main}" in its own traces. */
	e->label = xmalloc(e->fn.class_len + e->fn.function_len + 8);
	sprintf(e->label, "%s%s%s", e->fn.class_name, e->fn.class_len ? "::" : "",
		e->fn.function_len ? e->fn.function : "{main}");
	e->next = trec_u64map_get(&s->by_addr, e->fn.func_addr);
	trec_u64map_put(&s->by_addr, e->fn.func_addr, e, &err);
	if (err)
		rp_out_of_memory(sizeof(*e));
	return 0;
}

/* Same pid, address and object id (0: BPF could not read the function,
 * any description of that address will do); else the same function in
 * another pid (a fork shares its parent's functions). */
static const struct entry *find(const struct store *s, uint32_t pid, uint64_t addr, uint32_t id)
{
	const struct entry *e, *other = NULL;

	if (!s)
		return NULL;
	for (e = trec_u64map_get(&s->by_addr, addr); e; e = e->next) {
		if (id && e->fn.object_id != id)
			continue;
		if (e->fn.pid == pid)
			return e;
		if (id && !other)
			other = e;
	}
	return other;
}

static int php_lookup(const void *store, uint32_t pid, const struct trec_rec_frame *f,
		      struct rp_interp_sym *out)
{
	const struct entry *e = find(store, pid, f->file_id, (uint32_t)f->addr);
	uint32_t line = (uint32_t)(f->addr >> 32);

	if (!e)
		return -ENOENT;
	out->function = e->label;
	out->file = e->fn.type == TREC_PHPCODE_INTERNAL ? "[internal]" : e->fn.file;
	out->line = e->fn.type == TREC_PHPCODE_INTERNAL || !line ? -1 : (int)line;
	return 0;
}

static int php_format(const void *store, uint32_t pid, const struct trec_rec_frame *f,
		      char *buf, size_t len)
{
	struct rp_interp_sym sym;
	int err = php_lookup(store, pid, f, &sym);

	return rp_interp_label(buf, len, "php", f->file_id, err ? NULL : &sym, "");
}

const struct rp_interp_ops rp_php_interp = {
	.name = "php",
	.frame_kind = TREC_FRAME_PHP,
	.record_type = TREC_REC_INTERP_CODE,
	.subtype = TREC_PHPCODE_SUBTYPE,
	.new_store = php_new_store,
	.free_store = php_free_store,
	.add = php_add,
	.lookup = php_lookup,
	.format = php_format,
};
