// SPDX-License-Identifier: MIT
/*
 * The Firefox Profiler export written as JSON (see output_firefox.c for
 * the format and version): meta with the categories and marker schemas,
 * libs, the shared tables (columns of parallel arrays), and the threads
 * with their samples and markers.
 */
#include "report/output/firefox/firefox_profile.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "trec_format.h"

static const char *const cat_name[NCAT] = { "Other", "User", "Kernel", "Python", "JIT",
					     "Error", "Perl", "Ruby", "PHP" };
/* "grey" marks the default category, which must exist */
static const char *const cat_color[NCAT] = { "grey", "yellow", "orange", "blue", "green",
					     "red", "lightblue", "magenta", "purple" };

static const char *base_name(const char *p)
{
	const char *b = strrchr(p, '/');
	return b ? b + 1 : p;
}

static void key_str(struct rp_jw *j, const char *k, const char *v)
{
	rp_jw_key(j, k);
	rp_jw_str(j, v);
}

static void key_u64(struct rp_jw *j, const char *k, uint64_t v)
{
	rp_jw_key(j, k);
	rp_jw_u64(j, v);
}

/* "key":[null,null,...] (n of them) */
static void nulls(struct rp_jw *j, const char *k, size_t n)
{
	rp_jw_key(j, k);
	rp_jw_arr(j);
	for (size_t i = 0; i < n; i++)
		rp_jw_null(j);
	rp_jw_end(j);
}

/* An empty table: its columns as empty arrays and length 0. */
static void empty_table(struct rp_jw *j, const char *name, const char *const *cols)
{
	rp_jw_key(j, name);
	rp_jw_obj(j);
	for (; *cols; cols++) {
		rp_jw_key(j, *cols);
		rp_jw_arr(j);
		rp_jw_end(j);
	}
	key_u64(j, "length", 0);
	rp_jw_end(j);
}

static void schema(struct rp_jw *j, const char *name, const char *label, const char *desc,
		   const char *const *fields)
{
	rp_jw_obj(j);
	key_str(j, "name", name);
	key_str(j, "tooltipLabel", label);
	key_str(j, "tableLabel", label);
	key_str(j, "chartLabel", label);
	key_str(j, "description", desc);
	rp_jw_key(j, "display");
	rp_jw_arr(j);
	rp_jw_str(j, "marker-chart");
	rp_jw_str(j, "marker-table");
	rp_jw_str(j, "timeline-overview");
	rp_jw_end(j);
	rp_jw_key(j, "fields");
	rp_jw_arr(j);
	for (; *fields; fields += 3) { /* key, label, format */
		rp_jw_obj(j);
		key_str(j, "key", fields[0]);
		key_str(j, "label", fields[1]);
		key_str(j, "format", fields[2]);
		rp_jw_end(j);
	}
	rp_jw_end(j);
	rp_jw_end(j);
}

static void write_meta(struct ff *f, struct rp_jw *j, uint64_t end_ns)
{
	const struct rp_recording *r0 = &f->m->recs[0];
	const char *cmd = rp_model_meta(f->m, 0, "command");
	const char *cpus = rp_model_meta(f->m, 0, "nr_cpus");
	char product[512], oscpu[200];
	snprintf(product, sizeof(product), "trec%s%s", cmd && cmd[0] ? ": " : "", cmd ? cmd : "");
	snprintf(oscpu, sizeof(oscpu), "Linux %s %s", r0->hdr.kernel_release, r0->hdr.machine);
	uint64_t period = rp_period_ns(f->m, 0) ? rp_period_ns(f->m, 0) : 1000000;
	rp_jw_key(j, "meta");
	rp_jw_obj(j);
	rp_jw_key(j, "interval");
	rp_jw_frac(j, period, 6);
	rp_jw_key(j, "startTime");
	rp_jw_frac(j, f->zero_ns, 6);
	key_u64(j, "profilingStartTime", 0);
	rp_jw_key(j, "profilingEndTime");
	rp_jw_frac(j, end_ns, 6);
	key_u64(j, "processType", 0);
	key_str(j, "product", product);
	key_str(j, "importedFrom", "trec");
	key_u64(j, "stackwalk", 1);
	key_u64(j, "version", GECKO_VERSION);
	key_u64(j, "preprocessedProfileVersion", PROCESSED_VERSION);
	rp_jw_key(j, "symbolicated");
	rp_jw_bool(j, true);
	rp_jw_key(j, "usesOnlyOneStackType");
	rp_jw_bool(j, true);
	rp_jw_key(j, "sourceCodeIsNotOnSearchfox");
	rp_jw_bool(j, true);
	key_str(j, "platform", "Linux");
	key_str(j, "oscpu", oscpu);
	if (cmd)
		key_str(j, "arguments", cmd);
	if (cpus && strtoul(cpus, NULL, 10))
		key_u64(j, "logicalCPUs", strtoul(cpus, NULL, 10));
	rp_jw_key(j, "categories");
	rp_jw_arr(j);
	for (int c = 0; c < NCAT; c++) {
		rp_jw_obj(j);
		key_str(j, "name", cat_name[c]);
		key_str(j, "color", cat_color[c]);
		rp_jw_key(j, "subcategories");
		rp_jw_arr(j);
		rp_jw_str(j, "Other");
		rp_jw_end(j);
		rp_jw_end(j);
	}
	rp_jw_end(j);
	static const char *const fork_f[] = { "pid", "Process", "pid", "parentPid", "Parent", "pid",
					      NULL };
	static const char *const exec_f[] = { "pid", "Process", "pid", "filename", "File",
					      "file-path", "comm", "Command", "string", NULL };
	static const char *const exit_f[] = { "pid", "Process", "pid", "status", "Exit code",
					      "integer", NULL };
	rp_jw_key(j, "markerSchema");
	rp_jw_arr(j);
	schema(j, "fork", "fork", "The process was forked from its parent.", fork_f);
	schema(j, "exec", "exec {marker.data.filename}", "The process ran a new program.", exec_f);
	schema(j, "exit", "exit {marker.data.status}", "The process exited (its exit code).",
	       exit_f);
	rp_jw_end(j);
	rp_jw_end(j);
}

static void write_libs(struct ff *f, struct rp_jw *j)
{
	const char *arch = f->m->recs[0].hdr.machine;
	rp_jw_key(j, "libs");
	rp_jw_arr(j);
	for (size_t i = 0; i < f->libs.n; i++) {
		const struct rp_file *file = rp_model_file(f->m, f->libs.k[3 * i]);
		const char *path = file ? rp_str(&f->m->strs, file->path) : "";
		char code[129] = "", breakpad[34] = "";
		uint32_t n = file ? file->build_id_len : 0;
		for (uint32_t k = 0; k < n && k < 64; k++)
			snprintf(code + 2 * k, 3, "%02x", file->build_id[k]);
		if (n >= 16) { /* Breakpad's ELF id: the first 16 bytes as a little-endian GUID, age 0 */
			static const int order[16] = { 3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15 };
			for (int k = 0; k < 16; k++)
				snprintf(breakpad + 2 * k, 3, "%02X", file->build_id[order[k]]);
			strcat(breakpad, "0");
		}
		rp_jw_obj(j);
		key_str(j, "arch", arch);
		key_str(j, "name", base_name(path));
		key_str(j, "path", path);
		key_str(j, "debugName", base_name(path));
		key_str(j, "debugPath", path);
		key_str(j, "breakpadId", breakpad);
		rp_jw_key(j, "codeId");
		if (code[0])
			rp_jw_str(j, code);
		else
			rp_jw_null(j);
		rp_jw_end(j);
	}
	rp_jw_end(j);
}

/* "key":[...] of a column: get(i) for i < n, or null when absent (-1). */
#define COLUMN(j, key, n, val)                                                                 \
	do {                                                                                  \
		rp_jw_key(j, key);                                                            \
		rp_jw_arr(j);                                                                 \
		for (size_t i = 0; i < (n); i++) {                                            \
			int64_t v_ = (val);                                                   \
			if (v_ < 0)                                                           \
				rp_jw_null(j);                                                \
			else                                                                  \
				rp_jw_i64(j, v_);                                             \
		}                                                                             \
		rp_jw_end(j);                                                                 \
	} while (0)
/* the same with -1 written as -1 */
#define COLUMN_M1(j, key, n, val)                                                              \
	do {                                                                                  \
		rp_jw_key(j, key);                                                            \
		rp_jw_arr(j);                                                                 \
		for (size_t i = 0; i < (n); i++)                                              \
			rp_jw_i64(j, (val));                                                  \
		rp_jw_end(j);                                                                 \
	} while (0)

static void write_shared(struct ff *f, struct rp_jw *j)
{
	rp_jw_key(j, "shared");
	rp_jw_obj(j);
	size_t ns = f->stacks.n, nf = f->frames.n, nfn = f->funcs.n, nr = f->resources.n;
	rp_jw_key(j, "stackTable");
	rp_jw_obj(j);
	COLUMN(j, "frame", ns, (int64_t)f->stacks.k[3 * i + 1]);
	/* parents come first: prefixOffset i - parent, 0 for a root */
	COLUMN(j, "prefixOffset", ns,
	       f->stacks.k[3 * i] ? (int64_t)(i - (f->stacks.k[3 * i] - 1)) : 0);
	key_u64(j, "length", ns);
	rp_jw_end(j);

	rp_jw_key(j, "frameTable");
	rp_jw_obj(j);
	COLUMN_M1(j, "address", nf, f->fr[i].address);
	COLUMN_M1(j, "lib", nf, f->fr[i].lib);
	COLUMN(j, "inlineDepth", nf, f->fr[i].depth);
	COLUMN(j, "category", nf, f->fr[i].cat);
	COLUMN(j, "subcategory", nf, 0);
	COLUMN(j, "func", nf, f->fr[i].func);
	nulls(j, "nativeSymbol", nf);
	nulls(j, "innerWindowID", nf);
	COLUMN(j, "line", nf, f->fr[i].line ? (int64_t)f->fr[i].line : -1);
	nulls(j, "column", nf);
	nulls(j, "originalLocation", nf);
	key_u64(j, "length", nf);
	rp_jw_end(j);

	rp_jw_key(j, "funcTable");
	rp_jw_obj(j);
	COLUMN(j, "name", nfn, (int64_t)f->funcs.k[3 * i]);
	rp_jw_key(j, "isJS");
	rp_jw_arr(j);
	for (size_t i = 0; i < nfn; i++)
		rp_jw_bool(j, false);
	rp_jw_end(j);
	rp_jw_key(j, "relevantForJS");
	rp_jw_arr(j);
	for (size_t i = 0; i < nfn; i++)
		rp_jw_bool(j, false);
	rp_jw_end(j);
	COLUMN_M1(j, "resource", nfn, (int64_t)f->funcs.k[3 * i + 1] - 1);
	COLUMN(j, "source", nfn, (int64_t)f->funcs.k[3 * i + 2] - 1);
	nulls(j, "lineNumber", nfn);
	nulls(j, "columnNumber", nfn);
	nulls(j, "originalLocation", nfn);
	key_u64(j, "length", nfn);
	rp_jw_end(j);

	rp_jw_key(j, "resourceTable");
	rp_jw_obj(j);
	COLUMN(j, "name", nr, f->res_name[i]);
	nulls(j, "host", nr);
	COLUMN(j, "type", nr, f->res_type[i]);
	key_u64(j, "length", nr);
	rp_jw_end(j);

	static const char *const native_cols[] = { "libIndex", "address", "name", "functionSize",
						   NULL };
	static const char *const loc_cols[] = { "source", "line", "column", NULL };
	empty_table(j, "nativeSymbols", native_cols);
	size_t nsrc = f->sources.n;
	rp_jw_key(j, "sources");
	rp_jw_obj(j);
	nulls(j, "id", nsrc);
	COLUMN(j, "filename", nsrc, (int64_t)f->sources.k[3 * i]);
	COLUMN(j, "startLine", nsrc, 1);
	COLUMN(j, "startColumn", nsrc, 1);
	nulls(j, "sourceMapURL", nsrc);
	nulls(j, "content", nsrc);
	key_u64(j, "length", nsrc);
	rp_jw_end(j);
	empty_table(j, "sourceLocationTable", loc_cols);

	/* last: every table above interned its strings */
	rp_jw_key(j, "stringArray");
	rp_jw_arr(j);
	for (size_t i = 0; i < f->strs.n; i++)
		rp_jw_str(j, rp_str(&f->m->strs, (uint32_t)f->strs.k[3 * i]));
	rp_jw_end(j);
	rp_jw_end(j);
}

static void pid_str(const struct ff *f, uint32_t rec, uint32_t pid, char *buf, size_t len)
{
	/* pids of several recordings are different processes */
	if (f->m->nrecs > 1)
		snprintf(buf, len, "%u.%u", pid, rec + 1);
	else
		snprintf(buf, len, "%u", pid);
}

static void write_markers(struct ff *f, struct rp_jw *j, const struct ff_th *t)
{
	const struct rp_pid_event *ev = f->m->pid_events;
	static const char *const kind[] = { [TREC_PEV_FORK] = "fork", [TREC_PEV_EXEC] = "exec",
					    [TREC_PEV_EXIT] = "exit" };
	char pid[32], ppid[32];
	size_t n = t->nmarkers;
	rp_jw_key(j, "markers");
	rp_jw_obj(j);
	rp_jw_key(j, "data");
	rp_jw_arr(j);
	for (size_t i = 0; i < n; i++) {
		const struct rp_pid_event *e = &ev[t->markers[i]];
		pid_str(f, e->rec, e->pid, pid, sizeof(pid));
		rp_jw_obj(j);
		key_str(j, "type", kind[e->kind]);
		key_str(j, "pid", pid);
		if (e->kind == TREC_PEV_FORK) {
			pid_str(f, e->rec, e->ppid, ppid, sizeof(ppid));
			key_str(j, "parentPid", ppid);
		} else if (e->kind == TREC_PEV_EXEC) {
			key_str(j, "filename", rp_str(&f->m->strs, e->filename));
			key_str(j, "comm", rp_str(&f->m->strs, e->comm));
		} else {
			rp_jw_key(j, "status");
			rp_jw_i64(j, e->exit_code);
		}
		rp_jw_end(j);
	}
	rp_jw_end(j);
	COLUMN(j, "name", n, ff_cstr(f, kind[ev[t->markers[i]].kind]));
	rp_jw_key(j, "startTime");
	rp_jw_arr(j);
	for (size_t i = 0; i < n; i++)
		rp_jw_frac(j, ff_rel_ns(f, t->rec, ev[t->markers[i]].time_ns), 6);
	rp_jw_end(j);
	nulls(j, "endTime", n);
	COLUMN(j, "phase", n, 0); /* instant */
	COLUMN(j, "category", n, CAT_OTHER);
	key_u64(j, "length", n);
	rp_jw_end(j);
}

/* When the process started and ended: its first sample or fork, its exit.
 * Its threads are th[order[0..n)] (order sorts threads by process). */
static void process_times(struct ff *f, const uint32_t *order, size_t n, uint64_t *start,
			  int64_t *end)
{
	*start = UINT64_MAX;
	*end = -1;
	for (size_t k = 0; k < n; k++) {
		const struct ff_th *o = &f->th[order[k]];
		if (o->n && o->time[0] < *start)
			*start = o->time[0];
		for (size_t i = 0; i < o->nmarkers; i++) {
			const struct rp_pid_event *e = &f->m->pid_events[o->markers[i]];
			uint64_t at = ff_rel_ns(f, e->rec, e->time_ns);
			if (e->kind == TREC_PEV_FORK && at < *start)
				*start = at;
			if (e->kind == TREC_PEV_EXIT && (int64_t)at > *end)
				*end = (int64_t)at;
		}
	}
	if (*start == UINT64_MAX)
		*start = 0;
}

static void write_thread(struct ff *f, struct rp_jw *j, const struct ff_th *t, uint64_t start,
			 int64_t end)
{
	char pid[32];
	const struct ff_th *main_thread = ff_thread(f, t->rec, t->pid, t->pid, false);
	pid_str(f, t->rec, t->pid, pid, sizeof(pid));
	rp_jw_obj(j);
	key_str(j, "processType", "default");
	rp_jw_key(j, "processStartupTime");
	rp_jw_frac(j, start, 6);
	rp_jw_key(j, "processShutdownTime");
	if (end >= 0 && (!t->n || (uint64_t)end >= t->time[t->n - 1]))
		rp_jw_frac(j, (uint64_t)end, 6);
	else
		rp_jw_null(j);
	rp_jw_key(j, "registerTime");
	rp_jw_frac(j, t->n ? t->time[0] : start, 6);
	rp_jw_key(j, "unregisterTime");
	rp_jw_null(j);
	rp_jw_key(j, "pausedRanges");
	rp_jw_arr(j);
	rp_jw_end(j);
	key_str(j, "name", rp_str(&f->m->strs, t->name));
	key_str(j, "processName", rp_str(&f->m->strs, (main_thread ? main_thread : t)->name));
	rp_jw_key(j, "isMainThread");
	rp_jw_bool(j, t->tid == t->pid);
	key_str(j, "pid", pid);
	key_u64(j, "tid", t->tid);
	rp_jw_key(j, "samples");
	rp_jw_obj(j);
	COLUMN(j, "stack", t->n, t->stack[i] == UINT32_MAX ? -1 : (int64_t)t->stack[i]);
	rp_jw_key(j, "time");
	rp_jw_arr(j);
	for (size_t i = 0; i < t->n; i++)
		rp_jw_frac(j, t->time[i], 6);
	rp_jw_end(j);
	rp_jw_key(j, "weight");
	rp_jw_arr(j);
	for (size_t i = 0; i < t->n; i++)
		rp_jw_u64(j, t->weight[i]);
	rp_jw_end(j);
	key_str(j, "weightType", "samples");
	key_u64(j, "length", t->n);
	rp_jw_end(j);
	write_markers(f, j, t);
	rp_jw_end(j);
}

void ff_write(struct ff *f, struct rp_jw *j, const uint32_t *order, uint64_t end_ns)
{
	rp_jw_obj(j);
	write_meta(f, j, end_ns);
	write_libs(f, j);
	rp_jw_key(j, "pages");
	rp_jw_arr(j);
	rp_jw_end(j);
	write_shared(f, j);
	rp_jw_key(j, "threads");
	rp_jw_arr(j);
	for (size_t i = 0, k; i < f->threads.n; i = k) {
		const struct ff_th *first = &f->th[order[i]];
		uint64_t start;
		int64_t end;
		for (k = i + 1; k < f->threads.n && f->th[order[k]].rec == first->rec &&
				f->th[order[k]].pid == first->pid; k++)
			;
		process_times(f, order + i, k - i, &start, &end);
		for (size_t t = i; t < k; t++)
			write_thread(f, j, &f->th[order[t]], start, end);
	}
	rp_jw_end(j);
	rp_jw_end(j);
}
