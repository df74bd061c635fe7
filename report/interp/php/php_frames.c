// SPDX-License-Identifier: MIT
/* PHP INTERP_CODE store and frame naming; see php_frames.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report/interp/interp_codes.h"
#include "report/interp/php/php_frames.h"
#include "report/util.h"
#include "trec_phpcode.h"
#include "trec_types.h"

struct entry {
	uint8_t *payload; /* owned copy; fn's strings point into it */
	struct trec_phpcode fn;
	char *label;      /* "Class::function", "function" or "{main}" */
};

static void free_entry(void *desc)
{
	struct entry *e = desc;

	free(e->payload);
	free(e->label);
	free(e);
}

static void *php_new_store(void)
{
	return rp_codes_new(free_entry);
}

static void php_free_store(void *store)
{
	rp_codes_free(store);
}

static int php_add(void *store, const struct trec_blob *b)
{
	struct entry *e;

	if (b->subtype != TREC_PHPCODE_SUBTYPE || (b->len && !b->data))
		return -EBADMSG;
	e = xcalloc(1, sizeof(*e));
	e->payload = rp_codes_copy_payload(b);
	if (trec_phpcode_decode(e->payload, b->len, &e->fn) || e->fn.func_addr != b->file_id) {
		free_entry(e);
		return -EBADMSG;
	}
	/* PHP names the script's top level "{main}" in its own traces. */
	e->label = xmalloc(e->fn.class_len + e->fn.function_len + 8);
	sprintf(e->label, "%s%s%s", e->fn.class_name, e->fn.class_len ? "::" : "",
		e->fn.function_len ? e->fn.function : "{main}");
	rp_codes_add(store, e->fn.func_addr, e->fn.pid, e->fn.object_id, e);
	return 0;
}

static int php_lookup(const void *store, uint32_t pid, const struct trec_rec_frame *f,
		      struct rp_interp_sym *out)
{
	/* Object id 0: BPF could not read the function, any description of
	 * that address in pid will do; a fork shares its parent's functions. */
	const struct entry *e = rp_codes_find(store, pid, f->file_id, (uint32_t)f->addr, true);
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
