// SPDX-License-Identifier: MIT
/* The code-description store shared by interpreter backends; see interp_codes.h. */
#include <stdlib.h>
#include <string.h>
#include "format/containers/u64map.h"
#include "report/interp/interp_codes.h"
#include "report/util.h"

struct code {
	struct code *next; /* another description of the same address */
	uint32_t pid;
	uint64_t key;
	void *desc;
};

struct rp_codes {
	struct trec_u64map by_addr; /* code address -> chain of struct code */
	void (*free_desc)(void *desc);
};

struct rp_codes *rp_codes_new(void (*free_desc)(void *desc))
{
	struct rp_codes *s = xcalloc(1, sizeof(*s));

	s->free_desc = free_desc;
	return s;
}

void rp_codes_free(struct rp_codes *s)
{
	uint64_t k;
	void *v;

	if (!s)
		return;
	for (size_t i = 0; trec_u64map_next(&s->by_addr, &i, &k, &v);)
		for (struct code *c = v, *next; c; c = next) {
			next = c->next;
			s->free_desc(c->desc);
			free(c);
		}
	trec_u64map_free(&s->by_addr);
	free(s);
}

/* Descriptions kept per code address: forked processes share addresses,
 * and a frame of a pid past these finds another pid's description of the
 * same object (same key), which names it alike. A hostile file's
 * thousands would make every lookup of the address walk them all. */
#define MAX_PER_ADDR 64

void rp_codes_add(struct rp_codes *s, uint64_t addr, uint32_t pid, uint64_t key, void *desc)
{
	struct code *c = trec_u64map_get(&s->by_addr, addr);
	int err = 0, n = 0;

	for (; c; c = c->next, n++)
		if ((c->pid == pid && c->key == key) || n >= MAX_PER_ADDR) {
			s->free_desc(desc); /* the same object again, or one too many */
			return;
		}
	c = xcalloc(1, sizeof(*c));
	c->pid = pid;
	c->key = key;
	c->desc = desc;
	c->next = trec_u64map_get(&s->by_addr, addr);
	trec_u64map_put(&s->by_addr, addr, c, &err);
	if (err)
		rp_out_of_memory(sizeof(*c));
}

void *rp_codes_find(const struct rp_codes *s, uint32_t pid, uint64_t addr, uint64_t key,
		    bool zero_any)
{
	const struct code *c, *other = NULL;
	bool any = zero_any && !key;

	if (!s)
		return NULL;
	for (c = trec_u64map_get(&s->by_addr, addr); c; c = c->next) {
		if (!any && c->key != key)
			continue;
		if (c->pid == pid)
			return c->desc;
		if (!any && !other)
			other = c;
	}
	return other ? other->desc : NULL;
}

uint8_t *rp_codes_copy_payload(const struct trec_blob *b)
{
	uint8_t *p = xmalloc(b->len ? b->len : 1);

	if (b->len)
		memcpy(p, b->data, b->len);
	return p;
}
