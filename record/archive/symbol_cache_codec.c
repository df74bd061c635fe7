// SPDX-License-Identifier: MIT
/* The symbol cache's entry format both ways (symbol_cache.h). Pure: no
 * I/O; every field of a read entry is checked before use. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "format/containers/vec.h"
#include "record/archive/archive_build.h"
#include "record/archive/symbol_cache.h"
#include "record/io/cache_entry.h"

static const char magic[8] = "TRECSYM\n";
#define COUNTS 6
#define LINE_SIZE 16
#define INL_SIZE 32
#define RUN_SIZE 12

struct out {
	uint8_t *p;
	size_t n, cap;
	int oom;
};

static void put(struct out *o, const void *v, size_t n)
{
	if (o->oom || TREC_GROW(o->p, o->cap, o->n + n, 4096)) {
		o->oom = 1;
		return;
	}
	memcpy(o->p + o->n, v, n);
	o->n += n;
}

static void put32(struct out *o, uint32_t v)
{
	uint8_t b[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };
	put(o, b, 4);
}

static void put64(struct out *o, uint64_t v)
{
	put32(o, (uint32_t)v);
	put32(o, (uint32_t)(v >> 32));
}

int trec_symbol_cache_encode(const uint8_t *archive, size_t len, const struct arc_units *u,
			     const uint8_t *bid, size_t bid_len, uint8_t **out, size_t *out_len)
{
	struct out o = { 0 };
	const struct arc_builder *b = &u->b;

	if (!bid_len || bid_len > TREC_ARC_MAX_BUILD_ID)
		return -EINVAL;
	put(&o, magic, 8);
	put32(&o, TREC_SYMBOL_CACHE_VERSION);
	put32(&o, (uint32_t)bid_len);
	put(&o, bid, bid_len);
	put64(&o, len);
	put(&o, archive, len);
	put32(&o, (uint32_t)u->has_cu);
	put32(&o, (uint32_t)b->t.num_strings);
	put32(&o, (uint32_t)u->nunits);
	put32(&o, (uint32_t)b->t.num_lines);
	put32(&o, (uint32_t)u->ninls);
	put32(&o, (uint32_t)u->nruns);
	for (size_t i = 0; i < b->t.num_strings; i++) {
		size_t n = strlen(b->strs[i]);
		put32(&o, (uint32_t)n);
		put(&o, b->strs[i], n);
	}
	for (size_t i = 0; i < u->nunits; i++) {
		put32(&o, u->units[i].nlines);
		put32(&o, u->units[i].ninls);
	}
	for (size_t i = 0; i < b->t.num_lines; i++) {
		put64(&o, b->t.lines[i].addr);
		put32(&o, b->t.lines[i].file);
		put32(&o, b->t.lines[i].line);
	}
	for (size_t i = 0; i < u->ninls; i++) {
		const struct arc_unit_inline *x = &u->inls[i];
		put64(&o, x->lo);
		put64(&o, x->hi);
		put32(&o, x->depth);
		put32(&o, x->name);
		put32(&o, x->call_file);
		put32(&o, x->call_line);
	}
	for (size_t i = 0; i < u->nruns; i++) {
		put64(&o, u->runs[i].start);
		put32(&o, u->runs[i].unit);
	}
	put32(&o, o.oom ? 0 : (uint32_t)crc32(0, o.p, (uInt)o.n));
	if (o.oom) {
		free(o.p);
		return -ENOMEM;
	}
	*out = o.p;
	*out_len = o.n;
	return 0;
}

struct in {
	const uint8_t *p;
	size_t left;
};

static const uint8_t *take(struct in *c, size_t n)
{
	if (c->left < n)
		return NULL;
	const uint8_t *p = c->p;
	c->p += n;
	c->left -= n;
	return p;
}

static uint32_t get32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get64(const uint8_t *p)
{
	return get32(p) | (uint64_t)get32(p + 4) << 32;
}

/* The strings: any bytes but NUL, owned by u->b. */
static int parse_strings(struct in *c, struct arc_units *u, uint32_t n)
{
	struct arc_builder *b = &u->b;

	if (n > c->left / 4)
		return -EINVAL;
	b->strs = calloc(n + 1, sizeof(*b->strs));
	if (!b->strs)
		return -ENOMEM;
	b->cap_strs = n + 1;
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *lp = take(c, 4), *s;
		uint32_t len = lp ? get32(lp) : 0;
		if (!lp || !(s = take(c, len)) || memchr(s, 0, len))
			return -EINVAL;
		b->strs[i] = strndup((const char *)s, len);
		if (!b->strs[i])
			return -ENOMEM;
		b->t.num_strings++;
	}
	return 0;
}

/* Every count, index and range in bounds; lines and inlines split exactly
 * among the units; runs sorted. */
static int parse_rows(struct in *c, struct arc_units *u, uint32_t nunits, uint32_t nlines,
		      uint32_t ninls, uint32_t nruns)
{
	uint64_t sum_l = 0, sum_i = 0, ns = u->b.t.num_strings;
	const uint8_t *p;

	if ((uint64_t)nunits * 8 + (uint64_t)nlines * LINE_SIZE + (uint64_t)ninls * INL_SIZE +
		    (uint64_t)nruns * RUN_SIZE != c->left)
		return -EINVAL;
	u->units = calloc(nunits + 1, sizeof(*u->units));
	u->b.t.lines = calloc(nlines + 1, sizeof(*u->b.t.lines));
	u->inls = calloc(ninls + 1, sizeof(*u->inls));
	u->runs = calloc(nruns + 1, sizeof(*u->runs));
	if (!u->units || !u->b.t.lines || !u->inls || !u->runs)
		return -ENOMEM;
	for (uint32_t i = 0; i < nunits; i++, u->nunits++) {
		p = take(c, 8);
		u->units[i] = (struct arc_unit){ get32(p), get32(p + 4) };
		sum_l += u->units[i].nlines;
		sum_i += u->units[i].ninls;
	}
	if (sum_l != nlines || sum_i != ninls)
		return -EINVAL;
	for (uint32_t i = 0; i < nlines; i++, u->b.t.num_lines++) {
		p = take(c, LINE_SIZE);
		u->b.t.lines[i] = (struct trec_arc_line){ get64(p), get32(p + 8), get32(p + 12) };
		if (u->b.t.lines[i].file > ns)
			return -EINVAL;
	}
	for (uint32_t i = 0; i < ninls; i++, u->ninls++) {
		struct arc_unit_inline *x = &u->inls[i];
		p = take(c, INL_SIZE);
		*x = (struct arc_unit_inline){ get64(p), get64(p + 8), get32(p + 16), get32(p + 20),
					       get32(p + 24), get32(p + 28) };
		if (x->lo >= x->hi || !x->depth || x->depth > TREC_ARC_MAX_DEPTH ||
		    x->name >= ns || x->call_file > ns)
			return -EINVAL;
	}
	for (uint32_t i = 0; i < nruns; i++, u->nruns++) {
		p = take(c, RUN_SIZE);
		u->runs[i] = (struct arc_unit_run){ get64(p), get32(p + 8) };
		if ((i && u->runs[i].start <= u->runs[i - 1].start) ||
		    (u->runs[i].unit >= nunits && u->runs[i].unit != UINT32_MAX))
			return -EINVAL;
	}
	return 0;
}

int trec_symbol_cache_parse(const uint8_t *buf, size_t len, const uint8_t *bid,
			    size_t bid_len, const uint8_t **archive, size_t *archive_len,
			    struct arc_units *u, char *why, size_t why_len)
{
	struct in c;
	const uint8_t *p, *head;
	uint32_t n[COUNTS];
	uint64_t alen;
	int err;

	memset(u, 0, sizeof(*u));
	err = trec_cache_check_entry(buf, len, magic, TREC_SYMBOL_CACHE_VERSION, bid, bid_len,
				     "symbol cache", why, why_len);
	if (err)
		return err;
	/* the body: after the build-id, before the CRC */
	c.p = buf + TREC_CACHE_ENTRY_HEAD + bid_len;
	c.left = len - TREC_CACHE_ENTRY_HEAD - bid_len - 4;
	if (!(p = take(&c, 8)) || (alen = get64(p)) > c.left || !(*archive = take(&c, alen)))
		return trec_cache_bad(why, why_len, "truncated");
	*archive_len = (size_t)alen;
	if (!(head = take(&c, 4 * COUNTS)))
		return trec_cache_bad(why, why_len, "truncated");
	for (int i = 0; i < COUNTS; i++)
		n[i] = get32(head + 4 * i);
	if (n[0] > 1)
		return trec_cache_bad(why, why_len, "bad flags");
	u->has_cu = (int)n[0];
	err = parse_strings(&c, u, n[1]);
	if (!err)
		err = parse_rows(&c, u, n[2], n[3], n[4], n[5]);
	if (err) {
		arc_units_free(u);
		return err == -EINVAL ? trec_cache_bad(why, why_len, "inconsistent rows") : err;
	}
	return 0;
}
