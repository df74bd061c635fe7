// SPDX-License-Identifier: MIT
/* JIT code names from JITSYMS records (jitsyms.h). */
#include "report/jit/jitsyms.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/util.h"

/* Covering candidates looked at per lookup: a hostile table of nested
 * ranges cannot make lookups quadratic. Past SCAN_BUDGET candidates in
 * all (about a second; real maps look at a few per lookup), lookups look
 * at SCAN_SHORT: time stays bounded whatever the file holds. */
#define MAX_SCAN 4096
#define SCAN_SHORT 64
#define SCAN_BUDGET (1ull << 28)

struct jit_entry {
	uint64_t start, end;  /* [start, end) */
	uint64_t load, stop;  /* stop 0: never */
	uint64_t code_index;
	uint32_t name;        /* model string id */
	uint32_t first_row, nrows;
};

struct jit_row {
	uint64_t addr;
	uint32_t file, line;  /* file: model string id, 0 none */
};

struct jit_table {
	uint32_t rec, pid, source, path;
	uint64_t time_ns;
	struct jit_entry *e;
	size_t n, cap;
	struct jit_row *rows;
	size_t nrows, caprows;
	uint32_t *order;      /* entries by start, then position */
	uint64_t *maxend;     /* the largest end among order[0..i] */
	size_t indexed;       /* entries the index covers */
};

struct rp_jit {
	struct rp_strtab *strs; /* the model's: names are interned there */
	struct jit_table *t;
	size_t n, cap;
	struct trec_itab index; /* (rec, pid, source, time) -> table */
	uint32_t *by_pid;     /* tables by rec, pid, time, jitdump first */
	size_t sorted;        /* tables by_pid covers */
	uint64_t scanned;     /* candidates looked at in all (SCAN_BUDGET) */
};

struct table_key {
	const struct rp_jit *j;
	uint32_t rec, pid, source;
	uint64_t time_ns;
};

static bool table_eq(const void *ctx, uint32_t idx)
{
	const struct table_key *k = ctx;
	const struct jit_table *t = &k->j->t[idx];

	return t->rec == k->rec && t->pid == k->pid && t->source == k->source &&
	       t->time_ns == k->time_ns;
}

static struct jit_table *get_table(struct rp_jit *jt, uint32_t rec, const struct trec_jitsyms *j)
{
	struct table_key k = { jt, rec, j->pid, j->source, j->time_ns };
	uint64_t h = rp_hash_u64(((uint64_t)rec << 32 | j->pid) ^ rp_hash_u64(j->time_ns ^ j->source));
	uint32_t i = trec_itab_find(&jt->index, h, table_eq, &k);

	if (i != TREC_ITAB_NONE)
		return &jt->t[i];
	RP_GROW(jt->t, jt->cap, jt->n + 1);
	struct jit_table *t = &jt->t[jt->n];
	memset(t, 0, sizeof(*t));
	t->rec = rec;
	t->pid = j->pid;
	t->source = j->source;
	t->time_ns = j->time_ns;
	t->path = rp_strtab_intern(jt->strs, j->path ? j->path : "");
	rp_itab_insert(&jt->index, h, (uint32_t)jt->n);
	return &jt->t[jt->n++];
}

static int cmp_row(const void *a, const void *b)
{
	const struct jit_row *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

void rp_jit_add(struct rp_jit **jp, struct rp_strtab *strs, uint32_t rec,
		const struct trec_jitsyms *j)
{
	/* a source this reader does not know names nothing it can place */
	if (j->source != TREC_JIT_PERF_MAP && j->source != TREC_JIT_JITDUMP)
		return;
	if (!*jp) {
		*jp = xcalloc(1, sizeof(**jp));
		(*jp)->strs = strs;
	}
	struct jit_table *t = get_table(*jp, rec, j);
	/* files once per record, not once per row */
	uint32_t *files = xcalloc(j->num_files ? j->num_files : 1, sizeof(*files));

	for (uint32_t i = 0; i < j->num_files; i++)
		files[i] = rp_strtab_intern(strs, j->files[i]);
	RP_GROW(t->e, t->cap, t->n + j->num_entries);
	RP_GROW(t->rows, t->caprows, t->nrows + j->num_lines);
	for (uint32_t i = 0; i < j->num_entries; i++) {
		const struct trec_jit_entry *in = &j->entries[i];
		struct jit_entry *e = &t->e[t->n++];

		/* the decoder checked the ranges and the rows' indices */
		*e = (struct jit_entry){
			.start = in->start, .end = in->start + in->size,
			.load = in->load_ns, .stop = in->end_ns, .code_index = in->code_index,
			.name = rp_strtab_intern(strs, in->name),
			.first_row = (uint32_t)t->nrows, .nrows = in->num_lines,
		};
		for (uint32_t k = 0; k < in->num_lines; k++) {
			const struct trec_jit_line *l = &j->lines[in->first_line + k];

			t->rows[t->nrows++] = (struct jit_row){ l->addr, files[l->file], l->line };
		}
		if (e->nrows > 1)
			qsort(t->rows + e->first_row, e->nrows, sizeof(*t->rows), cmp_row);
	}
	free(files);
}

void rp_jit_free(struct rp_jit *j)
{
	if (!j)
		return;
	for (size_t i = 0; i < j->n; i++) {
		free(j->t[i].e);
		free(j->t[i].rows);
		free(j->t[i].order);
		free(j->t[i].maxend);
	}
	free(j->t);
	free(j->by_pid);
	trec_itab_free(&j->index);
	free(j);
}

/* ---- lookup -------------------------------------------------------------- */

static int cmp_order(const void *a, const void *b, void *ctx)
{
	const struct jit_table *t = ctx;
	uint32_t i = *(const uint32_t *)a, k = *(const uint32_t *)b;

	if (t->e[i].start != t->e[k].start)
		return t->e[i].start < t->e[k].start ? -1 : 1;
	return (i > k) - (i < k);
}

static void index_table(struct jit_table *t)
{
	uint64_t max = 0;

	free(t->order);
	free(t->maxend);
	t->order = xmalloc((t->n ? t->n : 1) * sizeof(*t->order));
	t->maxend = xmalloc((t->n ? t->n : 1) * sizeof(*t->maxend));
	for (size_t i = 0; i < t->n; i++)
		t->order[i] = (uint32_t)i;
	qsort_r(t->order, t->n, sizeof(*t->order), cmp_order, t);
	for (size_t i = 0; i < t->n; i++) {
		if (t->e[t->order[i]].end > max)
			max = t->e[t->order[i]].end;
		t->maxend[i] = max;
	}
	t->indexed = t->n;
}

/* The entry naming addr at time: in force then, the latest load winning
 * (ties: the later position); else the first loaded after it; or -1. */
static int64_t table_lookup(struct jit_table *t, uint64_t time, uint64_t addr,
			    uint64_t *total)
{
	size_t lo = 0, hi, scanned = 0, limit = MAX_SCAN;

	if (*total >= SCAN_BUDGET) {
		if (*total != UINT64_MAX)
			fprintf(stderr, "treport: warning: JIT symbol tables with heavily "
				"overlapping entries: lookups look at %u candidates from here on\n",
				SCAN_SHORT);
		*total = UINT64_MAX;
		limit = SCAN_SHORT;
	}
	int64_t best = -1, later = -1;

	if (t->indexed != t->n)
		index_table(t);
	for (hi = t->n; lo < hi;) { /* the first entry starting after addr */
		size_t mid = lo + (hi - lo) / 2;

		if (t->e[t->order[mid]].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0 && t->maxend[i] > addr && scanned < limit; scanned++) {
		uint32_t p = t->order[i];
		const struct jit_entry *e = &t->e[p];

		if (addr >= e->end)
			continue;
		if ((!e->load || e->load <= time) && (!e->stop || time < e->stop)) {
			if (best < 0 || e->load > t->e[best].load ||
			    (e->load == t->e[best].load && p > best))
				best = p;
		} else if (e->load > time) {
			if (later < 0 || e->load < t->e[later].load ||
			    (e->load == t->e[later].load && p > later))
				later = p;
		}
	}
	if (*total != UINT64_MAX)
		*total += scanned;
	return best >= 0 ? best : later;
}

static int cmp_tables(const void *a, const void *b, void *ctx)
{
	const struct jit_table *x = &((const struct jit_table *)ctx)[*(const uint32_t *)a];
	const struct jit_table *y = &((const struct jit_table *)ctx)[*(const uint32_t *)b];

	if (x->rec != y->rec)
		return x->rec < y->rec ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	return (x->source < y->source) - (x->source > y->source); /* jitdump first */
}

/* The first of by_pid's tables whose (rec, pid, time) is >= the key's (or
 * > it, upper): by_pid is sorted that way (cmp_tables). */
static size_t bound(const struct rp_jit *j, uint32_t rec, uint32_t pid, uint64_t time_ns,
		    bool upper)
{
	size_t lo = 0, hi = j->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct jit_table *t = &j->t[j->by_pid[mid]];
		bool before = t->rec != rec ? t->rec < rec : t->pid != pid ? t->pid < pid
				: upper ? t->time_ns <= time_ns : t->time_ns < time_ns;

		if (before)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

uint64_t rp_jit_key(struct rp_jit *j, uint32_t rec, uint32_t pid, uint64_t time_ns,
		    uint64_t addr)
{
	size_t lo, end, group;

	if (!j || !j->n)
		return 0;
	if (j->sorted != j->n) {
		free(j->by_pid);
		j->by_pid = xmalloc(j->n * sizeof(*j->by_pid));
		for (size_t i = 0; i < j->n; i++)
			j->by_pid[i] = (uint32_t)i;
		qsort_r(j->by_pid, j->n, sizeof(*j->by_pid), cmp_tables, j->t);
		j->sorted = j->n;
	}
	/* the pid's tables, [lo, end): binary searches all (a process may
	 * have many reads) */
	lo = bound(j, rec, pid, 0, false);
	end = bound(j, rec, pid, UINT64_MAX, true);
	if (lo == end)
		return 0;
	/* the read that followed the sample, else the last one */
	group = bound(j, rec, pid, time_ns, false);
	if (group == end)
		group = end - 1;
	uint64_t read_at = j->t[j->by_pid[group]].time_ns;

	while (group > lo && j->t[j->by_pid[group - 1]].time_ns == read_at)
		group--;
	for (; group < end && j->t[j->by_pid[group]].time_ns == read_at; group++) {
		uint32_t ti = j->by_pid[group];
		int64_t e = table_lookup(&j->t[ti], time_ns, addr, &j->scanned);

		if (e >= 0)
			return (uint64_t)(ti + 1) << 32 | (uint64_t)e;
	}
	return 0;
}

/* perf inject --jit names the code of a load DIR/jitted-PID-INDEX.so, DIR
 * and PID those of the dump file. */
static void jitted_name(char *out, size_t len, const char *dump, uint32_t pid, uint64_t index)
{
	const char *slash = strrchr(dump, '/');
	const char *base = slash ? slash + 1 : dump;
	unsigned long n;
	char tail;

	if (sscanf(base, "jit-%lu.dum%c", &n, &tail) == 2 && tail == 'p' && n <= UINT32_MAX)
		pid = (uint32_t)n;
	if (!slash)
		snprintf(out, len, "./jitted-%u-%" PRIu64 ".so", pid, index);
	else
		snprintf(out, len, "%.*s/jitted-%u-%" PRIu64 ".so",
			 slash == dump ? 0 : (int)(slash - dump), dump, pid, index);
}

void rp_jit_get(const struct rp_jit *j, uint64_t key, uint64_t addr, struct rp_jit_hit *h)
{
	const struct jit_table *t = &j->t[(key >> 32) - 1];
	const struct jit_entry *e = &t->e[(uint32_t)key];
	const struct jit_row *rows = t->rows + e->first_row;
	size_t lo = 0, hi = e->nrows;

	h->name = rp_str(j->strs, e->name);
	h->start = e->start;
	while (lo < hi) { /* the last row at or below addr */
		size_t mid = lo + (hi - lo) / 2;

		if (rows[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	h->file = lo ? rp_str(j->strs, rows[lo - 1].file) : NULL;
	h->line = lo ? rows[lo - 1].line : 0;
	if (h->file && !h->file[0])
		h->file = NULL;
	if (t->source == TREC_JIT_JITDUMP)
		jitted_name(h->dso, sizeof(h->dso), rp_str(j->strs, t->path), t->pid, e->code_index);
	else
		snprintf(h->dso, sizeof(h->dso), "%s", rp_str(j->strs, t->path));
}

void rp_jit_counts(const struct rp_jit *j, uint32_t rec, uint64_t *tables, uint64_t *entries)
{
	*tables = *entries = 0;
	for (size_t i = 0; j && i < j->n; i++) {
		if (j->t[i].rec != rec)
			continue;
		(*tables)++;
		*entries += j->t[i].n;
	}
}
