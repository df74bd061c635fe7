// SPDX-License-Identifier: MIT
/* perf map parser (perfmap.h). */
#include "record/jit/perfmap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* "0x" + 16 digits, twice, two separators: what a line needs beyond its name. */
#define NUMBERS_ROOM 40
#define READ_BYTES (256u << 10)

int trec_perfmap_init(struct trec_perfmap_parser *p, struct trec_jit_table *t,
		      const struct trec_jit_filter *filter)
{
	memset(p, 0, sizeof(*p));
	p->t = t;
	p->filter = filter;
	p->max_line = (size_t)t->lim.max_name + NUMBERS_ROOM;
	p->line = malloc(p->max_line);
	if (!p->line) {
		p->stopped = true;
		return p->err = -ENOMEM;
	}
	return 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* A hex number at *s (0x optional); 0, or -1 if none or over 64 bits. */
static int parse_hex(const char **s, const char *end, uint64_t *v)
{
	const char *p = *s;
	int d, ndig = 0;

	if (end - p > 2 && p[0] == '0' && (p[1] | 0x20) == 'x' && hexval(p[2]) >= 0)
		p += 2;
	for (*v = 0; p < end && (d = hexval(*p)) >= 0; p++, ndig++) {
		if (*v >> 60)
			return -1;
		*v = *v << 4 | (uint64_t)d;
	}
	*s = p;
	return ndig ? 0 : -1;
}

static bool is_sep(const char *p, const char *end)
{
	return p < end && (*p == ' ' || *p == '\t');
}

static void parse_line(struct trec_perfmap_parser *p, const char *s, size_t n)
{
	struct trec_jit_table *t = p->t;
	const char *c = s, *end = s + n;
	uint64_t start, size;
	int64_t r;

	if (n && s[n - 1] == '\r')
		end--;
	if (c == end)
		return; /* a blank line says nothing */
	if (memchr(s, 0, n)) {
		trec_jit_table_bad(t, "line %llu: NUL byte", (unsigned long long)p->lineno);
		return;
	}
	if (parse_hex(&c, end, &start) || !is_sep(c, end)) {
		trec_jit_table_bad(t, "line %llu: bad start address", (unsigned long long)p->lineno);
		return;
	}
	c++;
	if (parse_hex(&c, end, &size) || !is_sep(c, end)) {
		trec_jit_table_bad(t, "line %llu: bad size", (unsigned long long)p->lineno);
		return;
	}
	c++;
	if (c == end) {
		trec_jit_table_bad(t, "line %llu: no name", (unsigned long long)p->lineno);
		return;
	}
	if (size > UINT64_MAX - start) {
		trec_jit_table_bad(t, "line %llu: range past 2^64", (unsigned long long)p->lineno);
		return;
	}
	/* empty code holds no pc; unsampled code needs no name */
	if (!size || !trec_jit_filter_covers(p->filter, start, size))
		return;
	r = trec_jit_table_add(t, start, size, 0, 0, c, (size_t)(end - c));
	if (r == -ENOMEM)
		p->err = -ENOMEM;
	if (r < 0)
		p->stopped = true;
}

void trec_perfmap_feed(struct trec_perfmap_parser *p, const char *buf, size_t n)
{
	const char *end;

	if (p->stopped || p->at_limit)
		return;
	if (n > p->t->lim.max_file_bytes - p->bytes) {
		n = p->t->lim.max_file_bytes - p->bytes;
		p->t->flags |= TREC_JIT_F_TRUNCATED;
		p->at_limit = true; /* after these last bytes */
	}
	p->bytes += n;
	end = buf + n;
	while (buf < end) {
		const char *nl = memchr(buf, '\n', (size_t)(end - buf));
		size_t seg = (size_t)((nl ? nl : end) - buf);

		if (!p->overlong && seg > p->max_line - p->len) {
			trec_jit_table_bad(p->t, "line %llu: longer than %zu bytes",
					   (unsigned long long)p->lineno + 1, p->max_line);
			p->overlong = true;
		}
		if (!p->overlong) {
			memcpy(p->line + p->len, buf, seg);
			p->len += seg;
		}
		buf += seg;
		if (!nl)
			break;
		buf++;
		p->lineno++;
		if (!p->overlong) {
			parse_line(p, p->line, p->len);
			if (p->stopped)
				return;
		}
		p->overlong = false;
		p->len = 0;
	}
}

int trec_perfmap_finish(struct trec_perfmap_parser *p)
{
	int err = p->err;

	/* a last line without its newline: a process stopped mid-write
	 * leaves this, and its name may be cut, but the numbers are whole
	 * if a separator follows them */
	if (!err && !p->stopped && !p->at_limit && !p->overlong && p->len && p->line) {
		p->lineno++;
		parse_line(p, p->line, p->len);
		err = p->err;
	}
	free(p->line);
	p->line = NULL;
	return err;
}

int trec_perfmap_parse_mem(const char *buf, size_t n, const struct trec_jit_filter *filter,
			   struct trec_jit_table *t)
{
	struct trec_perfmap_parser p;

	if (trec_perfmap_init(&p, t, filter))
		return trec_perfmap_finish(&p);
	trec_perfmap_feed(&p, buf, n);
	return trec_perfmap_finish(&p);
}

int trec_perfmap_parse_fd(int fd, const struct trec_jit_filter *filter, struct trec_jit_table *t)
{
	struct trec_perfmap_parser p;
	char *buf = malloc(READ_BYTES);
	int err = 0;

	if (!buf)
		return -ENOMEM;
	if (trec_perfmap_init(&p, t, filter)) {
		free(buf);
		return trec_perfmap_finish(&p);
	}
	while (!p.stopped && !p.at_limit) {
		ssize_t r = read(fd, buf, READ_BYTES);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			err = -errno;
		if (r <= 0)
			break;
		trec_perfmap_feed(&p, buf, (size_t)r);
	}
	free(buf);
	int ferr = trec_perfmap_finish(&p);

	return err ? err : ferr;
}
