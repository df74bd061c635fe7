// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "format/containers/vec.h"
#include "record/kernel/kallsyms.h"
#include "upper_bound.h"

static int read_all(FILE *f, char **out)
{
	size_t len = 0, cap = 1 << 20;
	char *buf = malloc(cap);

	if (!buf)
		return -ENOMEM;
	for (;;) {
		size_t r;

		if (cap - len < 2) {
			char *nb = realloc(buf, cap * 2);

			if (!nb) {
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
			cap *= 2;
		}
		r = fread(buf + len, 1, cap - len - 1, f);
		len += r;
		if (r == 0)
			break;
	}
	if (ferror(f)) {
		free(buf);
		return -EIO;
	}
	buf[len] = 0;
	*out = buf;
	return 0;
}

/* Only code symbols can name a stack frame. */
static int is_text(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

static int by_addr(const void *a, const void *b)
{
	const struct trec_ksym *x = a, *y = b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

/* The leading hex address; end at the first other character. Faster than
 * strtoull, which dominates parsing 120k lines. */
static uint64_t parse_hex(char *s, char **end)
{
	uint64_t v = 0;
	int n = 0;

	for (;; s++, n++) {
		unsigned c = (unsigned char)*s, d;

		if (c - '0' < 10)
			d = c - '0';
		else if ((c | 0x20) - 'a' < 6)
			d = (c | 0x20) - 'a' + 10;
		else
			break;
		if (n == 16) /* wider than 64 bits */
			break;
		v = v << 4 | d;
	}
	*end = s;
	return v;
}

/* "ffffffff81000000 T _stext" or "... t name\t[module]" */
static int parse_line(char *line, struct trec_ksym *s)
{
	char *end, *name, *mod;

	s->addr = parse_hex(line, &end);
	if (end == line || *end != ' ' || !end[1] || end[2] != ' ')
		return -EINVAL;
	s->type = end[1];
	name = end + 3;
	mod = strchr(name, '\t');
	if (mod) {
		*mod++ = 0;
		if (*mod == '[') {
			char *close = strchr(++mod, ']');

			if (close)
				*close = 0;
		}
	}
	s->name = name;
	s->module = mod ? mod : "";
	return 0;
}

/*
 * syms[0..head) is in address order, the rest may not be: the kernel lists
 * its own symbols in order and modules' and BPF programs' after them. Only
 * that tail is sorted, then merged in from the back (one copy of the tail
 * is the only extra room); on equal addresses the earlier lines stay first.
 */
static void sort_tail(struct trec_ksym *syms, size_t n, size_t head)
{
	size_t i = head, j = n - head, o = n;
	struct trec_ksym *tail;

	if (head >= n)
		return;
	tail = malloc(j * sizeof(*tail));
	if (!tail) { /* no room for the copy: sort it all in place */
		qsort(syms, n, sizeof(*syms), by_addr);
		return;
	}
	memcpy(tail, syms + head, j * sizeof(*tail));
	qsort(tail, j, sizeof(*tail), by_addr);
	while (j > 0) {
		if (i > 0 && syms[i - 1].addr > tail[j - 1].addr)
			syms[--o] = syms[--i];
		else
			syms[--o] = tail[--j];
	}
	free(tail);
}

int trec_kallsyms_read(FILE *f, struct trec_kallsyms *k)
{
	size_t cap = 0, nonzero = 0, head = SIZE_MAX;
	char *line, *next;
	int err;

	memset(k, 0, sizeof(*k));
	err = read_all(f, &k->buf);
	if (err)
		return err;
	for (line = k->buf; *line; line = next) {
		struct trec_ksym s;

		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		else
			next = line + strlen(line);
		if (parse_line(line, &s) || !is_text(s.type))
			continue;
		if (TREC_GROW(k->syms, cap, k->num + 1, 65536)) {
			trec_kallsyms_free(k);
			return -ENOMEM;
		}
		if (head == SIZE_MAX && k->num && k->syms[k->num - 1].addr > s.addr)
			head = k->num; /* the first line out of order */
		k->syms[k->num++] = s;
		nonzero += s.addr != 0;
	}
	if (k->num && !nonzero) {
		trec_kallsyms_free(k);
		return -EPERM;
	}
	sort_tail(k->syms, k->num, head);
	return 0;
}

int trec_kallsyms_load(struct trec_kallsyms *k)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	int err;

	if (!f) {
		memset(k, 0, sizeof(*k));
		return -errno;
	}
	err = trec_kallsyms_read(f, k);
	fclose(f);
	return err;
}

void trec_kallsyms_free(struct trec_kallsyms *k)
{
	free(k->buf);
	free(k->syms);
	memset(k, 0, sizeof(*k));
}

long trec_kallsyms_find(const struct trec_kallsyms *k, uint64_t addr)
{
	return (long)TREC_UPPER_BOUND(k->syms, k->num, addr, addr) - 1;
}

int trec_ksym_subset_init(struct trec_ksym_subset *u, const struct trec_kallsyms *k)
{
	memset(u, 0, sizeof(*u));
	u->used = calloc(k->num ? k->num : 1, 1);
	return u->used ? 0 : -ENOMEM;
}

static void flag(struct trec_ksym_subset *u, size_t i)
{
	if (!u->used[i]) {
		u->used[i] = 1;
		u->num_used++;
	}
}

static void add_holder(struct trec_ksym_subset *u, const struct trec_kallsyms *k, uint64_t addr)
{
	long i = trec_kallsyms_find(k, addr);

	if (i < 0 || !u->used)
		return;
	flag(u, i);
	/* Several names can share an address; the end is the next higher one. */
	for (size_t j = i + 1; j < k->num; j++) {
		if (k->syms[j].addr > k->syms[i].addr) {
			flag(u, j);
			break;
		}
	}
}

void trec_ksym_subset_add(struct trec_ksym_subset *u, const struct trec_kallsyms *k,
			  uint64_t addr, bool return_address)
{
	add_holder(u, k, addr);
	/* The report names a return address by the call before it, which
	 * can lie in the previous symbol (a call that ends a function). */
	if (return_address && addr)
		add_holder(u, k, addr - 1);
}

struct trec_ksym *trec_ksym_subset_list(const struct trec_ksym_subset *u,
					const struct trec_kallsyms *k, uint32_t *n)
{
	struct trec_ksym *out = malloc((u->num_used ? u->num_used : 1) * sizeof(*out));

	*n = 0;
	if (!out)
		return NULL;
	for (size_t i = 0; i < k->num; i++)
		if (u->used[i])
			out[(*n)++] = k->syms[i];
	return out;
}

void trec_ksym_subset_free(struct trec_ksym_subset *u)
{
	free(u->used);
	memset(u, 0, sizeof(*u));
}
