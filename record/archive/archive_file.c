// SPDX-License-Identifier: MIT
/* trec_archive_build: one ELF file -> one archive, and the level names. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "record/archive/archive.h"
#include "record/clock.h"
#include "record/archive/archive_build.h"

void arc_stats(const struct arc_builder *b, size_t bytes, uint64_t start,
	       struct trec_archive_stats *st)
{
	if (!st)
		return;
	memset(st, 0, sizeof(*st));
	st->symbols = (uint32_t)b->t.num_syms;
	st->lines = (uint32_t)b->t.num_lines;
	for (size_t d = 0; d < b->t.num_depths; d++)
		st->inlines += (uint32_t)b->t.depths[d].num;
	st->strings = (uint32_t)b->t.num_strings;
	st->sources = b->t.sources;
	st->bytes = bytes;
	st->build_ns = trec_now_ns() - start;
}

static int build(const char *path, const uint8_t *build_id, size_t bid_len, int level,
		 const uint64_t *addrs, size_t naddrs, uint8_t **out, size_t *out_len,
		 struct trec_archive_stats *st)
{
	struct arc_builder b = { 0 };
	uint64_t start = trec_now_ns();
	int err;

	err = arc_collect(&b, path, build_id, bid_len, level, addrs, naddrs);
	if (!err && level == TREC_ARCHIVE_SAMPLED)
		err = arc_finalize_tables(&b);
	if (!err && level == TREC_ARCHIVE_SAMPLED)
		err = arc_restrict(&b, addrs, naddrs);
	else if (!err)
		err = arc_finalize(&b);
	if (!err)
		err = trec_archive_encode(&b.t, out, out_len);
	if (!err)
		arc_stats(&b, *out_len, start, st);
	arc_builder_free(&b);
	return err;
}

int trec_archive_build(const char *path, const uint8_t *build_id, size_t bid_len,
		       int level, uint8_t **out, size_t *out_len,
		       struct trec_archive_stats *st)
{
	if (level != TREC_ARCHIVE_SYMBOLS && level != TREC_ARCHIVE_FULL)
		return -EINVAL;
	return build(path, build_id, bid_len, level, NULL, 0, out, out_len, st);
}

int trec_archive_build_sampled(const char *path, const uint8_t *build_id, size_t bid_len,
			       const uint64_t *addrs, size_t naddrs, uint8_t **out,
			       size_t *out_len, struct trec_archive_stats *st)
{
	return build(path, build_id, bid_len, TREC_ARCHIVE_SAMPLED, addrs, naddrs, out, out_len,
		     st);
}

static const char *const level_names[] = {
	[TREC_ARCHIVE_NONE] = "none",
	[TREC_ARCHIVE_SYMBOLS] = "symbols",
	[TREC_ARCHIVE_FULL] = "full",
	[TREC_ARCHIVE_SAMPLED] = "sampled",
};

int trec_archive_level_parse(const char *s)
{
	for (int i = 0; i <= TREC_ARCHIVE_SAMPLED; i++)
		if (!strcmp(s, level_names[i]))
			return i;
	return -1;
}

const char *trec_archive_level_name(int level)
{
	return level >= 0 && level <= TREC_ARCHIVE_SAMPLED ? level_names[level] : "?";
}
