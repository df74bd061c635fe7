// SPDX-License-Identifier: MIT
/* zend_function reading and INTERP_CODE writing; see php_code.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include "record/interp/interp_read.h"
#include "record/interp/php/php_code.h"

/* A zend_string as a malloc'ed C string (cut at the format's limit; NULs
 * inside become '?'). addr 0 gives "". */
static int read_zstr(trec_php_read_fn read, void *ctx, const struct trec_php_layout *l,
		     uint64_t addr, char **out, uint32_t *out_len)
{
	uint64_t len = 0;
	char *s;
	int err;

	*out = NULL;
	*out_len = 0;
	if (addr && (err = read(ctx, addr + l->str_len, &len, sizeof(len))))
		return err;
	if (len > TREC_PHPCODE_MAX_STR)
		len = TREC_PHPCODE_MAX_STR;
	s = malloc(len + 1);
	if (!s)
		return -ENOMEM;
	if (len && (err = read(ctx, addr + l->str_val, s, len))) {
		free(s);
		return err;
	}
	for (uint64_t i = 0; i < len; i++)
		if (!s[i])
			s[i] = '?';
	s[len] = 0;
	*out = s;
	*out_len = (uint32_t)len;
	return 0;
}

static uint64_t word(const uint8_t *b, uint16_t off)
{
	uint64_t v;

	memcpy(&v, b + off, sizeof(v));
	return v;
}

static uint32_t word32(const uint8_t *b, uint16_t off)
{
	uint32_t v;

	memcpy(&v, b + off, sizeof(v));
	return v;
}

int trec_php_read_function(trec_php_read_fn read, void *ctx, uint32_t pid,
			   const struct trec_php_layout *l, uint64_t addr,
			   struct trec_phpcode_owned *out)
{
	uint8_t head[TREC_PHP_FN_READ], op[TREC_PHP_OP_READ];
	uint64_t name, scope, filename = 0, opcodes = 0, class_name = 0;
	struct trec_phpcode *c = &out->c;
	int err;

	memset(out, 0, sizeof(*out));
	if ((size_t)l->fn_name + 8 > sizeof(head) || (size_t)l->fn_scope + 8 > sizeof(head))
		return -EINVAL;
	if ((err = read(ctx, addr, head, sizeof(head))))
		return err;
	c->pid = pid;
	c->func_addr = addr;
	c->type = head[0];
	c->php_major = l->major;
	c->php_minor = l->minor;
	if (c->type != TREC_PHPCODE_INTERNAL && c->type != TREC_PHPCODE_USER &&
	    c->type != TREC_PHPCODE_EVAL)
		return -EINVAL;
	name = word(head, l->fn_name);
	scope = word(head, l->fn_scope);
	if (c->type != TREC_PHPCODE_INTERNAL) {
		if ((err = read(ctx, addr + l->op_last, op, sizeof(op))))
			return err;
		opcodes = word(op, l->op_opcodes - l->op_last);
		filename = word(op, l->op_filename - l->op_last);
		c->line_start = word32(op, l->op_line_start - l->op_last);
		c->line_end = word32(op, l->op_line_end - l->op_last);
	}
	c->object_id = trec_php_object_id(c->type, c->line_start, c->line_end, name, scope,
					  filename, opcodes);
	if (scope && (err = read(ctx, scope + l->class_name, &class_name, sizeof(class_name))))
		return err;
	if ((err = read_zstr(read, ctx, l, name, &out->function, &c->function_len)) ||
	    (err = read_zstr(read, ctx, l, class_name, &out->class_name, &c->class_len)) ||
	    (err = read_zstr(read, ctx, l, filename, &out->file, &c->file_len))) {
		trec_phpcode_owned_free(out);
		return err;
	}
	c->function = out->function;
	c->class_name = out->class_name;
	c->file = out->file;
	return 0;
}

void trec_phpcode_owned_free(struct trec_phpcode_owned *c)
{
	free(c->function);
	free(c->class_name);
	free(c->file);
	memset(c, 0, sizeof(*c));
}

int trec_phpcode_note(struct trec_interp_seen *seen, trec_phpcode_write_fn write, void *wctx,
		      uint32_t pid, const struct trec_php_layout *l, uint64_t addr,
		      uint32_t object_id)
{
	struct trec_phpcode_owned fn;
	int ipid = (int)pid, err;
	struct trec_blob b;
	uint8_t *buf;
	size_t len;

	if (!addr)
		return -EINVAL;
	/* Failures are remembered too: one attempt per function. */
	err = trec_interp_seen_note(seen, addr, object_id);
	if (err)
		return err < 0 ? err : 0;
	err = trec_php_read_function(trec_interp_read_pid, &ipid, pid, l, addr, &fn);
	if (err)
		return err;
	if (object_id && fn.c.object_id != object_id) {
		trec_phpcode_owned_free(&fn);
		return -ESTALE;
	}
	/* BPF could not read the function: what is there now counts as
	 * handled under its real id too. */
	if (!object_id && (err = trec_interp_seen_note(seen, addr, fn.c.object_id))) {
		trec_phpcode_owned_free(&fn);
		return err < 0 ? err : 0;
	}
	err = trec_phpcode_encode(&fn.c, &buf, &len);
	trec_phpcode_owned_free(&fn);
	if (err)
		return err;
	b = (struct trec_blob){ .file_id = addr, .subtype = TREC_PHPCODE_SUBTYPE,
				.data = buf, .len = len };
	err = write(wctx, TREC_REC_INTERP_CODE, &b);
	free(buf);
	return err ? err : 1;
}
