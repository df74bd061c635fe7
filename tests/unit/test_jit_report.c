// SPDX-License-Identifier: MIT
/*
 * treport's JIT names (report/jit/jitsyms.c) on hand-made JITSYMS records:
 * which table a sample uses (by read time, jitdump first), which entry of
 * it (in force at the sample's time, the latest load, the last line of a
 * perf map), the fallback to a load just after, line rows, the dso perf
 * shows, and records of one table joined.
 */
#include <string.h>

#include "report/model.h"
#include "report/jit/jitsyms.h"
#include "unit_check.h"

static struct rp_model m;

static void add(uint32_t pid, uint32_t source, uint64_t time, const char *path,
		const struct trec_jit_entry *e, uint32_t n, const struct trec_jit_line *rows,
		uint32_t nrows, const char *const *files, uint32_t nfiles)
{
	struct trec_jitsyms j = { .time_ns = time, .pid = pid, .source = source, .path = path,
				  .num_files = nfiles, .files = files, .num_entries = n,
				  .entries = e, .num_lines = nrows, .lines = rows };

	rp_jit_add(&m.jit, &m.strs, 0, &j);
}

/* The name (or "-") of pid's pc at time, its dso in dso. */
static const char *name_at(uint32_t pid, uint64_t time, uint64_t pc, char *dso, size_t len)
{
	static struct rp_jit_hit h;
	uint64_t key = rp_jit_key(m.jit, 0, pid, time, pc);

	if (!key)
		return "-";
	rp_jit_get(m.jit, key, pc, &h);
	snprintf(dso, len, "%s", h.dso);
	return h.name;
}

int main(void)
{
	static const struct trec_jit_entry map[] = {
		{ 0x1000, 0x100, 0, 0, 0, "old", 0, 0 },
		{ 0x1000, 0x20, 0, 0, 0, "new", 0, 0 },
		{ 0x3000, 0x10, 0, 0, 0, "perfmap-only", 0, 0 },
	};
	static const char *const files[] = { "/a.js" };
	static const struct trec_jit_line rows[] = {
		{ 0x1000, 5, 0 }, { 0x1008, 6, 0 },
	};
	static const struct trec_jit_entry dump[] = {
		{ 0x1000, 0x10, 100, 500, 7, "jd", 0, 2 },
		{ 0x4000, 0x10, 1000, 0, 8, "loaded-later", 2, 0 },
	};
	char dso[4300];

	rp_model_init(&m);
	CHECK("jit report: no tables, no key", rp_jit_key(m.jit, 0, 10, 0, 0x1000) == 0);
	add(10, TREC_JIT_PERF_MAP, 2000, "/tmp/perf-10.map", map, 3, NULL, 0, NULL, 0);
	add(10, TREC_JIT_JITDUMP, 2000, "/d/jit-10.dump", dump, 2, rows, 2, files, 1);
	add(10, 99, 2000, "/x", map, 3, NULL, 0, NULL, 0); /* unknown source: ignored */

	CHECK("jit report: perf map, the last line covering the pc wins",
	      !strcmp(name_at(10, 50, 0x1010, dso, sizeof(dso)), "new") &&
	      !strcmp(dso, "/tmp/perf-10.map"));
	CHECK("jit report: perf map, an earlier line where the later does not cover",
	      !strcmp(name_at(10, 50, 0x1050, dso, sizeof(dso)), "old"));
	CHECK("jit report: no entry, no name", !strcmp(name_at(10, 50, 0x2000, dso, sizeof(dso)), "-"));
	CHECK("jit report: jitdump before the perf map, dso as perf inject writes it",
	      !strcmp(name_at(10, 200, 0x1008, dso, sizeof(dso)), "jd") &&
	      !strcmp(dso, "/d/jitted-10-7.so"));
	CHECK("jit report: a jitdump entry ended (moved, closed) no longer names the pc",
	      !strcmp(name_at(10, 600, 0x1008, dso, sizeof(dso)), "new"));
	CHECK("jit report: before any load in force, the load just after",
	      !strcmp(name_at(10, 900, 0x4004, dso, sizeof(dso)), "loaded-later"));
	CHECK("jit report: a table only the perf map has",
	      !strcmp(name_at(10, 200, 0x3004, dso, sizeof(dso)), "perfmap-only"));

	struct rp_jit_hit h;
	uint64_t key = rp_jit_key(m.jit, 0, 10, 200, 0x100a);
	rp_jit_get(m.jit, key, 0x100a, &h);
	CHECK("jit report: the line of the last row at or below the pc",
	      key && h.file && !strcmp(h.file, "/a.js") && h.line == 6 && h.start == 0x1000);
	key = rp_jit_key(m.jit, 0, 10, 200, 0x1004);
	rp_jit_get(m.jit, key, 0x1004, &h);
	CHECK("jit report: ... the first row", h.line == 5);
	CHECK("jit report: equal keys for one entry, others for others",
	      rp_jit_key(m.jit, 0, 10, 200, 0x1004) == rp_jit_key(m.jit, 0, 10, 300, 0x1000) &&
	      rp_jit_key(m.jit, 0, 10, 200, 0x1004) != rp_jit_key(m.jit, 0, 10, 600, 0x1004));

	/* pid 20: read at its exit (1000), a new process with its pid read at 5000 */
	static const struct trec_jit_entry first[] = { { 0x1000, 0x10, 0, 0, 0, "first", 0, 0 } };
	static const struct trec_jit_entry second[] = { { 0x1000, 0x10, 0, 0, 0, "second", 0, 0 } };
	add(20, TREC_JIT_PERF_MAP, 5000, "/tmp/perf-20.map", second, 1, NULL, 0, NULL, 0);
	add(20, TREC_JIT_PERF_MAP, 1000, "/tmp/perf-20.map", first, 1, NULL, 0, NULL, 0);
	CHECK("jit report: a sample uses the read after it",
	      !strcmp(name_at(20, 500, 0x1000, dso, sizeof(dso)), "first") &&
	      !strcmp(name_at(20, 1000, 0x1000, dso, sizeof(dso)), "first") &&
	      !strcmp(name_at(20, 3000, 0x1000, dso, sizeof(dso)), "second"));
	CHECK("jit report: after every read, the last one",
	      !strcmp(name_at(20, 9000, 0x1000, dso, sizeof(dso)), "second"));

	/* two records of one table: positions run on across them */
	static const struct trec_jit_entry part2[] = { { 0x1000, 0x10, 0, 0, 0, "part2", 0, 0 } };
	add(30, TREC_JIT_PERF_MAP, 7, "/tmp/perf-30.map", first, 1, NULL, 0, NULL, 0);
	add(30, TREC_JIT_PERF_MAP, 7, "/tmp/perf-30.map", part2, 1, NULL, 0, NULL, 0);
	uint64_t tables, entries;
	rp_jit_counts(m.jit, 0, &tables, &entries);
	CHECK("jit report: records with equal pid, source and time are one table",
	      !strcmp(name_at(30, 1, 0x1000, dso, sizeof(dso)), "part2") && tables == 5 &&
	      entries == 3 + 2 + 1 + 1 + 2);

	static const struct trec_jit_entry rel[] = { { 0x1000, 0x10, 1, 0, 3, "rel", 0, 0 } };
	add(40, TREC_JIT_JITDUMP, 7, "jit-40.dump", rel, 1, NULL, 0, NULL, 0);
	CHECK("jit report: a dump path without a directory", !strcmp(name_at(40, 5, 0x1000, dso, sizeof(dso)), "rel") &&
	      !strcmp(dso, "./jitted-40-3.so"));
	rp_model_free(&m);
	return failures ? 1 : 0;
}
