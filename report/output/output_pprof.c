// SPDX-License-Identifier: MIT
/*
 * pprof output: a gzipped profile.proto (report/profile.proto) built with
 * protobuf-c. Sample types samples/count and cpu/nanoseconds (count times
 * the sample period from META freq_hz), or with --event offcpu-time
 * waits/count and offcpu-time/nanoseconds; labels comm, pid, tid; one Mapping
 * per file with its build-id, in ELF address space (memory_start = runtime
 * start - bias) so Location addresses are the ELF addresses the frames
 * carry; inlined functions are extra Lines of one Location, innermost
 * first. Unresolved addresses keep their Location without Lines so pprof
 * can still symbolize them from the binary.
 */
#include "report/output/output.h"

#include <inttypes.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <zlib.h>

#include "profile.pb-c.h"

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__ValueType ValueType;
typedef Perftools__Profiles__Sample Sample;
typedef Perftools__Profiles__Label Label;
typedef Perftools__Profiles__Mapping Mapping;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Line Line;
typedef Perftools__Profiles__Function Function;

#define KERNEL_MAPPING_START 0xffff800000000000ULL

struct pp {
	const struct rp_report *r;
	struct rp_strtab *strs; /* the model's: pprof strings are interned there */
	int64_t *str_index;     /* model string id -> pprof index, 0 = none */
	size_t cap_str_index;
	char **table;           /* pprof string_table */
	size_t ntable, captable;

	Function *funcs;
	size_t nfuncs, capfuncs;
	struct trec_itab func_index;

	Location *locs;
	size_t nlocs, caplocs;
	uint64_t *loc_of_sym; /* sym id -> location id, 0 = none */
	size_t cap_loc_of_sym;

	Mapping *maps;
	size_t nmaps, capmaps;
	uint64_t *map_file_ids; /* parallel to maps; 0 = kernel */
	bool *map_unresolved;
	size_t cap_map_file_ids, cap_map_unresolved;
};

static int64_t pstr(struct pp *p, uint32_t id)
{
	if (!id)
		return 0;
	if (id >= p->cap_str_index) {
		size_t old = p->cap_str_index;
		RP_GROW(p->str_index, p->cap_str_index, (size_t)id + 1);
		memset(p->str_index + old, 0, (p->cap_str_index - old) * sizeof(*p->str_index));
	}
	if (!p->str_index[id]) {
		RP_GROW(p->table, p->captable, p->ntable + 1);
		p->table[p->ntable] = (char *)rp_str(p->strs, id);
		p->str_index[id] = (int64_t)p->ntable++;
	}
	return p->str_index[id];
}

static int64_t pstrs(struct pp *p, const char *s)
{
	return pstr(p, rp_strtab_intern(p->strs, s));
}

struct func_key {
	const struct pp *p;
	int64_t name, file;
};

static bool func_eq(const void *ctx, uint32_t idx)
{
	const struct func_key *k = ctx;
	return k->p->funcs[idx].name == k->name && k->p->funcs[idx].filename == k->file;
}

static uint64_t func_id(struct pp *p, uint32_t name, uint32_t file)
{
	struct func_key k = { p, pstr(p, name), pstr(p, file) };
	uint64_t h = rp_hash_u64((uint64_t)k.name << 32 ^ (uint64_t)k.file);
	uint32_t i = trec_itab_find(&p->func_index, h, func_eq, &k);
	if (i != TREC_ITAB_NONE)
		return p->funcs[i].id;
	RP_GROW(p->funcs, p->capfuncs, p->nfuncs + 1);
	Function *f = &p->funcs[p->nfuncs];
	perftools__profiles__function__init(f);
	f->id = p->nfuncs + 1;
	f->name = k.name;
	f->system_name = k.name;
	f->filename = k.file;
	rp_itab_insert(&p->func_index, h, (uint32_t)p->nfuncs++);
	return f->id;
}

static void hex(char *out, const uint8_t *b, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
	out[2 * n] = 0;
}

/* The mapping id for a native file or the kernel (file_id 0). */
static uint64_t mapping_id(struct pp *p, uint64_t file_id, bool kernel)
{
	for (size_t i = 0; i < p->nmaps; i++) /* few mappings: a scan is fine */
		if (p->map_file_ids[i] == file_id && (kernel == !file_id))
			return p->maps[i].id;
	const struct rp_model *m = p->r->m;
	RP_GROW(p->maps, p->capmaps, p->nmaps + 1);
	RP_GROW(p->map_file_ids, p->cap_map_file_ids, p->nmaps + 1);
	RP_GROW(p->map_unresolved, p->cap_map_unresolved, p->nmaps + 1);
	Mapping *mp = &p->maps[p->nmaps];
	perftools__profiles__mapping__init(mp);
	mp->id = p->nmaps + 1;
	p->map_file_ids[p->nmaps] = file_id;
	p->map_unresolved[p->nmaps] = false;
	p->nmaps++;
	if (kernel) {
		mp->memory_start = KERNEL_MAPPING_START;
		mp->memory_limit = UINT64_MAX;
		mp->filename = pstrs(p, "[kernel.kallsyms]");
	} else {
		const struct rp_file *f = rp_model_file(m, file_id);
		const struct rp_mapping *rm = rp_model_file_mapping(m, file_id);
		if (rm && rm->start >= rm->bias) {
			mp->memory_start = rm->start - rm->bias;
			mp->memory_limit = rm->end - rm->bias;
			mp->file_offset = rm->file_offset;
		} else {
			mp->memory_limit = UINT64_MAX;
		}
		mp->filename = f ? pstr(p, f->path) : 0;
		if (f && f->build_id_len) {
			char b[129];
			hex(b, f->build_id, f->build_id_len);
			mp->build_id = pstrs(p, b);
		}
	}
	mp->has_functions = mp->has_filenames = mp->has_line_numbers = mp->has_inline_frames = true;
	return mp->id;
}

/* pprof takes the first mapping for the main binary (-top's "File:"): the
 * executable of the process with the most samples, its lowest-addressed
 * file mapping (the order of /proc/PID/maps), is made mapping 1. */
static void main_binary_first(struct pp *p, struct rp_model *m)
{
	uint64_t *count = xcalloc(m->nprocs + 1, sizeof(*count));
	size_t best = m->nprocs;
	for (size_t i = 0; i < m->naggs; i++) {
		struct rp_process *pr = rp_model_process(m, m->aggs[i].rec, m->aggs[i].pid, false);
		size_t k = pr ? (size_t)(pr - m->procs) : m->nprocs;
		count[k] = rp_sat_add(count[k], m->aggs[i].count);
		if (k < m->nprocs && (best == m->nprocs || count[k] > count[best]))
			best = k;
	}
	free(count);
	const struct rp_process *pr = best < m->nprocs ? &m->procs[best] : NULL;
	if (!pr || !pr->nsnaps)
		return;
	const struct rp_snapshot *sn = &pr->snaps[pr->nsnaps - 1]; /* after any exec */
	for (uint32_t i = 0; i < sn->num; i++) {
		const struct rp_mapping *mp = &m->maps[sn->first + i];
		if (mp->file_id && rp_model_file(m, mp->file_id)) {
			mapping_id(p, mp->file_id, false);
			return;
		}
	}
}

static uint64_t location_id(struct pp *p, uint32_t symid)
{
	if (symid >= p->cap_loc_of_sym) {
		size_t old = p->cap_loc_of_sym;
		RP_GROW(p->loc_of_sym, p->cap_loc_of_sym, (size_t)symid + 1);
		memset(p->loc_of_sym + old, 0, (p->cap_loc_of_sym - old) * sizeof(*p->loc_of_sym));
	}
	if (p->loc_of_sym[symid])
		return p->loc_of_sym[symid];
	const struct rp_sym *sym = rp_sym_get(p->r->s, symid);
	RP_GROW(p->locs, p->caplocs, p->nlocs + 1);
	Location *l = &p->locs[p->nlocs];
	perftools__profiles__location__init(l);
	l->id = p->nlocs + 1;
	p->nlocs++;
	bool has_mapping = (sym->kind == RP_SYM_NATIVE && sym->file_id &&
			    rp_model_file(p->r->m, sym->file_id)) ||
			   sym->kind == RP_SYM_KERNEL;
	if (has_mapping) {
		l->mapping_id = mapping_id(p, sym->file_id, sym->kind == RP_SYM_KERNEL);
		l->address = sym->addr;
	} else if (sym->kind == RP_SYM_NATIVE) {
		l->address = sym->addr; /* a raw pc outside any known file */
	}
	if (sym->resolved || !has_mapping) {
		const struct rp_line *ln = rp_sym_lines(p->r->s, sym);
		l->n_line = sym->nlines;
		l->line = xcalloc(sym->nlines, sizeof(*l->line));
		for (uint32_t i = 0; i < sym->nlines; i++) {
			Line *pl = xmalloc(sizeof(*pl));
			perftools__profiles__line__init(pl);
			pl->function_id = func_id(p, ln[i].func, ln[i].file);
			pl->line = ln[i].line;
			l->line[i] = pl;
		}
	} else {
		p->map_unresolved[l->mapping_id - 1] = true;
	}
	p->loc_of_sym[symid] = l->id;
	return l->id;
}

static int write_gzip(FILE *out, const uint8_t *buf, size_t len)
{
	z_stream z;
	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -1;
	uint8_t chunk[65536];
	z.next_in = (Bytef *)buf;
	int rc = 0, zr;
	size_t left = len;
	do {
		/* avail_in is 32-bit: feed huge profiles in slices */
		if (!z.avail_in && left) {
			z.avail_in = left > (1u << 30) ? (1u << 30) : (uInt)left;
			left -= z.avail_in;
		}
		z.next_out = chunk;
		z.avail_out = sizeof(chunk);
		zr = deflate(&z, left ? Z_NO_FLUSH : Z_FINISH);
		if (zr == Z_STREAM_ERROR) {
			rc = -1;
			break;
		}
		size_t have = sizeof(chunk) - z.avail_out;
		if (fwrite(chunk, 1, have, out) != have) {
			rc = -1;
			break;
		}
	} while (zr != Z_STREAM_END);
	deflateEnd(&z);
	return rc;
}

static int64_t clamp64(uint64_t v)
{
	return v > INT64_MAX ? INT64_MAX : (int64_t)v;
}

int rp_output_pprof(const struct rp_report *r, FILE *out)
{
	struct rp_model *m = r->m;
	struct pp p = { .r = r, .strs = &m->strs };
	RP_GROW(p.table, p.captable, 1);
	p.table[p.ntable++] = (char *)"";

	Profile prof = PERFTOOLS__PROFILES__PROFILE__INIT;
	ValueType vt[2], period_type;
	ValueType *vtp[2] = { &vt[0], &vt[1] };
	for (int i = 0; i < 2; i++)
		perftools__profiles__value_type__init(&vt[i]);
	perftools__profiles__value_type__init(&period_type);
	/* Off-CPU: waits and the time blocked, offcpu-time/nanoseconds. */
	bool offcpu = RP_EVENT_IN_NS(r->o), wall = r->o->event == RP_EVENT_WALL;
	vt[0].type = pstrs(&p, wall ? "records" : offcpu ? "waits" : "samples");
	vt[0].unit = pstrs(&p, "count");
	vt[1].type = pstrs(&p, wall ? "wall" : offcpu ? "offcpu-time" : "cpu");
	vt[1].unit = pstrs(&p, "nanoseconds");
	period_type.type = vt[1].type;
	period_type.unit = vt[1].unit;
	int64_t k_comm = pstrs(&p, "comm"), k_pid = pstrs(&p, "pid"), k_tid = pstrs(&p, "tid");

	size_t nsamples = 0;
	for (size_t i = 0; i < m->naggs; i++)
		nsamples += m->aggs[i].count > 0;
	Sample *samples = xcalloc(nsamples ? nsamples : 1, sizeof(*samples));
	Sample **sample_ptrs = xcalloc(nsamples ? nsamples : 1, sizeof(*sample_ptrs));
	uint32_t *syms = NULL;
	size_t capsyms = 0, ns = 0;
	uint64_t first_time = 0, duration = 0;

	main_binary_first(&p, m);
	for (size_t i = 0; i < m->naggs; i++) {
		const struct rp_agg *a = &m->aggs[i];
		if (!a->count)
			continue;
		Sample *s = &samples[ns];
		sample_ptrs[ns++] = s;
		perftools__profiles__sample__init(s);
		uint32_t n = rp_agg_syms(r, a, &syms, &capsyms);
		s->n_location_id = n;
		s->location_id = xcalloc(n ? n : 1, sizeof(*s->location_id));
		for (uint32_t k = 0; k < n; k++) /* leaf first */
			s->location_id[k] = location_id(&p, syms[n - 1 - k]);
		s->n_value = 2;
		s->value = xcalloc(2, sizeof(*s->value));
		uint64_t period = rp_period_ns(m, a->rec);
		s->value[0] = clamp64(offcpu ? a->hits : a->count);
		if (offcpu)
			s->value[1] = clamp64(a->count);
		else
			s->value[1] = period && a->count > UINT64_MAX / period ? INT64_MAX
									       : clamp64(a->count * period);
		s->n_label = 3;
		s->label = xcalloc(3, sizeof(*s->label));
		Label *lab = xcalloc(3, sizeof(*lab));
		for (int k = 0; k < 3; k++) {
			perftools__profiles__label__init(&lab[k]);
			s->label[k] = &lab[k];
		}
		char comm[32];
		rp_comm_name(m, a, comm, sizeof(comm));
		lab[0].key = k_comm;
		lab[0].str = pstrs(&p, comm);
		lab[1].key = k_pid;
		lab[1].num = a->pid;
		lab[2].key = k_tid;
		lab[2].num = a->tid;
	}
	for (size_t i = 0; i < m->nrecs; i++) {
		const struct rp_recording *rr = &m->recs[i];
		if (!first_time || (rr->hdr.creation_time_ns && rr->hdr.creation_time_ns < first_time))
			first_time = rr->hdr.creation_time_ns;
		uint64_t d = rr->have_summary && rr->summary.end_ns > rr->summary.start_ns
				     ? rr->summary.end_ns - rr->summary.start_ns
				     : (rr->max_ns > rr->min_ns ? rr->max_ns - rr->min_ns : 0);
		duration = d > duration ? d : duration;
	}
	for (size_t i = 0; i < p.nmaps; i++)
		if (p.map_unresolved[i])
			p.maps[i].has_functions = p.maps[i].has_filenames = p.maps[i].has_line_numbers =
				p.maps[i].has_inline_frames = false;

	Mapping **mp = xcalloc(p.nmaps ? p.nmaps : 1, sizeof(*mp));
	Location **lp = xcalloc(p.nlocs ? p.nlocs : 1, sizeof(*lp));
	Function **fp = xcalloc(p.nfuncs ? p.nfuncs : 1, sizeof(*fp));
	for (size_t i = 0; i < p.nmaps; i++)
		mp[i] = &p.maps[i];
	for (size_t i = 0; i < p.nlocs; i++)
		lp[i] = &p.locs[i];
	for (size_t i = 0; i < p.nfuncs; i++)
		fp[i] = &p.funcs[i];

	prof.n_sample_type = 2;
	prof.sample_type = vtp;
	prof.n_sample = ns;
	prof.sample = sample_ptrs;
	prof.n_mapping = p.nmaps;
	prof.mapping = mp;
	prof.n_location = p.nlocs;
	prof.location = lp;
	prof.n_function = p.nfuncs;
	prof.function = fp;
	prof.n_string_table = p.ntable;
	prof.string_table = p.table;
	prof.time_nanos = clamp64(first_time);
	prof.duration_nanos = clamp64(duration);
	prof.period_type = &period_type;
	prof.period = m->nrecs && !offcpu ? clamp64(rp_period_ns(m, 0)) : 0;

	size_t len = perftools__profiles__profile__get_packed_size(&prof);
	uint8_t *buf = xmalloc(len ? len : 1);
	perftools__profiles__profile__pack(&prof, buf);
	int rc = write_gzip(out, buf, len);
	if (rc < 0)
		fprintf(stderr, "treport: writing %s failed: %s\n",
			r->o->out_path ? r->o->out_path : "stdout", strerror(errno));
	free(buf);

	for (size_t i = 0; i < ns; i++) {
		free(samples[i].location_id);
		free(samples[i].value);
		free(samples[i].label[0]);
		free(samples[i].label);
	}
	for (size_t i = 0; i < p.nlocs; i++) {
		for (size_t k = 0; k < p.locs[i].n_line; k++)
			free(p.locs[i].line[k]);
		free(p.locs[i].line);
	}
	free(samples);
	free(sample_ptrs);
	free(mp);
	free(lp);
	free(fp);
	free(syms);
	free(p.str_index);
	free(p.table);
	free(p.funcs);
	trec_itab_free(&p.func_index);
	free(p.locs);
	free(p.loc_of_sym);
	free(p.maps);
	free(p.map_file_ids);
	free(p.map_unresolved);
	return rc;
}
