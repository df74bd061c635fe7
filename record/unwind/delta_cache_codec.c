// SPDX-License-Identifier: MIT
/* The delta cache's entry format both ways; see delta_cache.h. Pure: no
 * I/O, so the unit test and the fuzz target drive it directly. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "record/io/cache_entry.h"
#include "record/unwind/delta_cache.h"

static const char magic[8] = "TRECDLT\n";
#define HEAD_FIXED TREC_CACHE_ENTRY_HEAD
#define COUNTS (3 * 8)
#define ENTRY_SIZE 24
#define MAX_BUILD_ID 64

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v;
	p[1] = v >> 8;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v);
	put16(p + 2, v >> 16);
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, v);
	put32(p + 4, v >> 32);
}

static uint16_t get16(const uint8_t *p)
{
	return p[0] | p[1] << 8;
}

static uint32_t get32(const uint8_t *p)
{
	return get16(p) | (uint32_t)get16(p + 2) << 16;
}

static uint64_t get64(const uint8_t *p)
{
	return get32(p) | (uint64_t)get32(p + 4) << 32;
}

int trec_delta_cache_encode(const struct trec_file_deltas *d, const uint8_t *build_id,
			    size_t build_id_len, uint8_t **out, size_t *len)
{
	size_t n, head = HEAD_FIXED + build_id_len + COUNTS;
	uint8_t *b, *p;

	if (!build_id_len || build_id_len > MAX_BUILD_ID || d->num > TREC_MAX_STACK_DELTAS)
		return -EINVAL;
	n = head + d->num * ENTRY_SIZE + 4;
	b = calloc(1, n);
	if (!b)
		return -ENOMEM;
	memcpy(b, magic, 8);
	put32(b + 8, TREC_DELTA_CACHE_VERSION);
	put32(b + 12, build_id_len);
	memcpy(b + HEAD_FIXED, build_id, build_id_len);
	p = b + HEAD_FIXED + build_id_len;
	put64(p, d->num);
	put64(p + 8, d->fdes);
	put64(p + 16, d->unsupported_rules);
	p += COUNTS;
	for (size_t i = 0; i < d->num; i++, p += ENTRY_SIZE) {
		const struct trec_delta_entry *e = &d->entries[i];

		put64(p, e->addr);
		put16(p + 8, e->command);
		p[10] = e->info.cfa_reg;
		p[11] = e->info.fp_rule;
		p[12] = e->info.flags;
		put32(p + 14, (uint32_t)e->info.cfa_param);
		put32(p + 18, (uint32_t)e->info.fp_param);
	}
	put32(p, crc32(0, b, p - b));
	*out = b;
	*len = n;
	return 0;
}

/* What BPF can run: a command of enum trec_unwind_command, or a rule whose
 * fields are in range. */
static bool entry_ok(const struct trec_delta_entry *e, const uint8_t *p)
{
	if (p[13] || get16(p + 22))
		return false;
	if (e->command)
		return (e->command & TREC_UNWIND_COMMAND) &&
		       (e->command & ~TREC_UNWIND_COMMAND) <= TREC_CMD_LAST;
	return e->info.cfa_reg <= TREC_REG_FP && e->info.fp_rule <= TREC_FP_UNDEFINED &&
	       e->info.flags < 0x80;
}

int trec_delta_cache_parse(const uint8_t *buf, size_t len, const uint8_t *build_id,
			   size_t build_id_len, struct trec_file_deltas *d, char *why,
			   size_t why_len)
{
	size_t head = HEAD_FIXED + build_id_len;
	uint64_t num;
	const uint8_t *p;
	int err;

	memset(d, 0, sizeof(*d));
	err = trec_cache_check_entry(buf, len, magic, TREC_DELTA_CACHE_VERSION, build_id,
				     build_id_len, "delta cache", why, why_len);
	if (err)
		return err;
	if (len < head + COUNTS + 4)
		return trec_cache_bad(why, why_len, "truncated");
	p = buf + head;
	num = get64(p);
	if (num > TREC_MAX_STACK_DELTAS || len != head + COUNTS + num * ENTRY_SIZE + 4)
		return trec_cache_bad(why, why_len, "size %zu does not hold %llu deltas", len,
				      (unsigned long long)num);
	d->fdes = get64(p + 8);
	d->unsupported_rules = get64(p + 16);
	p += COUNTS;
	d->entries = calloc(num ? num : 1, sizeof(*d->entries));
	if (!d->entries)
		return -ENOMEM;
	for (uint64_t i = 0; i < num; i++, p += ENTRY_SIZE) {
		struct trec_delta_entry *e = &d->entries[i];

		e->addr = get64(p);
		e->command = get16(p + 8);
		e->info.cfa_reg = p[10];
		e->info.fp_rule = p[11];
		e->info.flags = p[12];
		e->info.cfa_param = (int32_t)get32(p + 14);
		e->info.fp_param = (int32_t)get32(p + 18);
		if (!entry_ok(e, p) || (i && e->addr < e[-1].addr)) {
			free(d->entries); /* not trec_file_deltas_free: keeps libdw out of the fuzz target */
			d->entries = NULL;
			return trec_cache_bad(why, why_len, "delta %llu is invalid or out of order",
					      (unsigned long long)i);
		}
	}
	d->num = num;
	return 0;
}
