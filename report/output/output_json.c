// SPDX-License-Identifier: MIT
/*
 * --json: JSON Lines, one sample record per line in time order (README,
 * "JSON output", documents it as a stable interface):
 *
 *   {"time":0.012345678,"pid":42,"tid":43,"cpu":1,"comm":"busy",
 *    "event":"cpu-clock","weight":1,"frames":[{"name":"cmp_ints",
 *    "dso":"/usr/bin/busy","file":"busy.c","line":20,"kind":"native"},...]}
 *
 * time is in seconds from the recording's start (the origin of --time);
 * frames are leaf first, named as in --folded (frame_names.h), so that
 * comm;frames reversed is the folded stack. Strings are escaped for any
 * bytes a binary may hold (text_escape.h).
 */
#include "report/output/output.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/output/frame_names.h"
#include "report/output/text_escape.h"

static void str_or_null(struct rp_buf *b, const struct rp_strtab *st, uint32_t id)
{
	if (id)
		rp_json_str(b, rp_str(st, id));
	else
		rp_buf_adds(b, "null");
}

/* The "frames" array of an aggregate, formatted once for all its samples. */
static uint32_t frames_json(const struct rp_report *r, struct rp_namer *nm, struct rp_strtab *texts,
			    struct rp_buf *b, const struct rp_agg *a)
{
	const struct rp_strtab *st = &r->m->strs;
	const struct rp_nframe *f;
	uint32_t n = rp_namer_stack(nm, a, &f);
	rp_buf_reset(b);
	rp_buf_adds(b, "[");
	for (uint32_t k = n; k-- > 1;) { /* leaf first, the process root left out */
		rp_buf_adds(b, "{\"name\":");
		rp_json_str(b, rp_str(st, f[k].name));
		rp_buf_adds(b, ",\"dso\":");
		str_or_null(b, st, f[k].dso);
		rp_buf_adds(b, ",\"file\":");
		str_or_null(b, st, f[k].file);
		if (f[k].line)
			rp_buf_printf(b, ",\"line\":%u,\"kind\":", f[k].line);
		else
			rp_buf_adds(b, ",\"line\":null,\"kind\":");
		rp_json_str(b, rp_nframe_kind_name(&f[k]));
		rp_buf_adds(b, k > 1 ? "}," : "}");
	}
	rp_buf_adds(b, "]");
	return rp_strtab_intern_n(texts, b->p, b->len);
}

int rp_output_json(const struct rp_report *r, FILE *out)
{
	struct rp_model *m = r->m;
	struct rp_namer *nm = rp_namer_new(r);
	struct rp_strtab texts;
	struct rp_buf b = { 0 }, line = { 0 };
	rp_strtab_init(&texts);
	size_t nagg = m->naggs ? m->naggs : 1;
	uint32_t *of_agg = xcalloc(nagg, sizeof(*of_agg)); /* 0: not formatted yet */
	uint32_t *order = rp_model_events_by_time(m);

	for (size_t i = 0; i < m->nevents; i++) {
		const struct rp_event *e = &m->events[order[i]];
		const struct rp_agg *a = &m->aggs[e->agg];
		if (!a->count)
			continue;
		if (!of_agg[e->agg])
			of_agg[e->agg] = frames_json(r, nm, &texts, &b, a);
		uint64_t start = rp_recording_start(&m->recs[a->rec]);
		uint64_t rel = e->time_ns >= start ? e->time_ns - start : start - e->time_ns;
		char comm[32];
		rp_comm_name(m, a, comm, sizeof(comm));

		rp_buf_reset(&line);
		rp_buf_printf(&line, "{\"time\":%s%" PRIu64 ".%09" PRIu64 ",\"pid\":%u,\"tid\":%u,"
				     "\"cpu\":%u,\"comm\":",
			      e->time_ns >= start ? "" : "-", rel / 1000000000u, rel % 1000000000u,
			      a->pid, a->tid, e->cpu);
		rp_json_str(&line, comm);
		rp_buf_adds(&line, ",\"event\":");
		rp_json_str(&line, rp_event_name(r->o));
		rp_buf_printf(&line, ",\"weight\":%" PRIu64 ",\"frames\":", e->weight);
		rp_buf_adds(&line, rp_str(&texts, of_agg[e->agg]));
		rp_buf_adds(&line, "}\n");
		fwrite(line.p, 1, line.len, out);
	}
	free(order);
	free(of_agg);
	rp_buf_free(&b);
	rp_buf_free(&line);
	rp_strtab_free(&texts);
	rp_namer_free(nm);
	return 0;
}
