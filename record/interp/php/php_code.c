// SPDX-License-Identifier: MIT
/* zend_function reading and INTERP_CODE writing; see php_code.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <stdbool.h>
#include "format/containers/u64map.h"
#include "format/containers/vec.h"
#include "record/interp/php/php_code.h"

int trec_php_read_pid(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };
	ssize_t n = process_vm_readv(*(const int *)ctx, &local, 1, &remote, 1, 0);

	if (n == (ssize_t)len)
		return 0;
	return n < 0 && errno == ESRCH ? -ESRCH : -EFAULT;
}

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
	uint8_t head[32], op[TREC_PHP_OP_READ];
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

/* ---- which functions were described -------------------------------------- */

struct seen {
	struct seen *next;
	uint32_t pid, object_id;
};

struct trec_phpcode_cache {
	struct trec_u64map by_addr; /* address -> chain of struct seen */
};

struct trec_phpcode_cache *trec_phpcode_cache_new(void)
{
	return calloc(1, sizeof(struct trec_phpcode_cache));
}

void trec_phpcode_cache_free(struct trec_phpcode_cache *c)
{
	uint64_t k;
	void *v;

	if (!c)
		return;
	for (size_t i = 0; trec_u64map_next(&c->by_addr, &i, &k, &v);)
		for (struct seen *s = v, *next; s; s = next) {
			next = s->next;
			free(s);
		}
	trec_u64map_free(&c->by_addr);
	free(c);
}

static int remember(struct trec_phpcode_cache *c, uint64_t addr, uint32_t pid, uint32_t id)
{
	struct seen *s = malloc(sizeof(*s));
	int err = 0;

	if (!s)
		return -ENOMEM;
	s->pid = pid;
	s->object_id = id;
	s->next = trec_u64map_get(&c->by_addr, addr);
	trec_u64map_put(&c->by_addr, addr, s, &err);
	if (err)
		free(s);
	return err;
}

int trec_phpcode_cache_note(struct trec_phpcode_cache *c, trec_phpcode_write_fn write,
			    void *wctx, uint32_t pid, const struct trec_php_layout *l,
			    uint64_t addr, uint32_t object_id)
{
	struct trec_phpcode_owned fn;
	int ipid = (int)pid, err;
	struct trec_blob b;
	uint8_t *buf;
	size_t len;

	for (const struct seen *s = trec_u64map_get(&c->by_addr, addr); s; s = s->next)
		if (s->pid == pid && (s->object_id == object_id || !object_id))
			return 0;
	/* Failures are remembered too: one attempt per function. */
	if ((err = remember(c, addr, pid, object_id)))
		return err;
	err = trec_php_read_function(trec_php_read_pid, &ipid, pid, l, addr, &fn);
	if (err)
		return err;
	if (object_id && fn.c.object_id != object_id) {
		trec_phpcode_owned_free(&fn);
		return -ESTALE;
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

/* Drops pid's entries under one address. */
static void forget_at(struct trec_phpcode_cache *c, uint64_t addr, uint32_t pid)
{
	struct seen *head = trec_u64map_get(&c->by_addr, addr), **pp = &head;

	while (*pp) {
		struct seen *s = *pp;

		if (s->pid == pid) {
			*pp = s->next;
			free(s);
		} else {
			pp = &s->next;
		}
	}
	if (head)
		trec_u64map_put(&c->by_addr, addr, head, NULL); /* replaces: no growth */
	else
		trec_u64map_del(&c->by_addr, addr);
}

void trec_phpcode_cache_forget_pid(struct trec_phpcode_cache *c, uint32_t pid)
{
	uint64_t k, *keys = NULL;
	size_t n = 0, cap = 0;
	void *v;

	/* Addresses first: changing the map would disturb the walk. Out of
	 * memory, the pid's entries stay (a reused address then goes
	 * undescribed, counted nowhere: rare enough). */
	for (size_t i = 0; trec_u64map_next(&c->by_addr, &i, &k, &v);) {
		bool has = false;

		for (const struct seen *s = v; s && !has; s = s->next)
			has = s->pid == pid;
		if (!has)
			continue;
		if (TREC_GROW(keys, cap, n + 1, 64))
			break;
		keys[n++] = k;
	}
	for (size_t i = 0; i < n; i++)
		forget_at(c, keys[i], pid);
	free(keys);
}
