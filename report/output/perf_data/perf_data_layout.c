// SPDX-License-Identifier: MIT
/* The address layout of a perf.data export (see perf_data_layout.h). */
#include "report/output/perf_data/perf_data_layout.h"

#include <stdlib.h>
#include <string.h>

#include "report/interp/interp.h"
#include "report/output/keytab.h"
#include "report/output/perf_data/perf_data_write.h"
#include "symbolize_rule.h"

#define PAGE 0x1000ull
#define SYNTH_LOW 0x600000000000ull  /* where the synthetic area is first tried */
#define SYNTH_HIGH 0x7f0000000000ull /* and the last place it may end */
#define SYNTH_STEP 0x10000000000ull  /* 1 TiB */
#define SLOT_GAP 0x100000ull         /* between synthetic slots */

struct proc {
	uint32_t pid;
	struct pd_map *maps;
	uint32_t nmaps;
	size_t capmaps;
};

/* A real file used by a process: the ELF addresses its frames look up. */
struct use {
	uint32_t proc, dso;
	uint64_t lo, hi; /* [lo, hi] */
};

enum frame_class { FC_KERNEL, FC_FILE, FC_SYNTH };

struct pd_layout {
	const struct rp_report *r;
	struct pd_dso *dsos;
	size_t ndsos, capdsos;
	struct rp_keytab dso_index; /* (1, file id) or (2, name) -> dso */
	struct rp_keytab sym_index; /* (dso, name) -> entry; sym_k: its slot in the dso */
	uint32_t *sym_k;
	size_t capsym_k;
	struct proc *procs;
	size_t nprocs, capprocs;
	struct rp_keytab proc_index; /* (pid, 0) */
	struct use *uses;
	size_t nuses, capuses;
	struct rp_keytab use_index; /* (proc, dso) -> use */
	uint64_t *slot;           /* per dso: start of its synthetic slot, 0 = none */
	uint64_t *slot_lo, *slot_hi; /* per dso: the ELF range its slot maps */
	uint64_t *bias;           /* per use: runtime address - ELF address */
	bool *placed;             /* per use: at a recorded mapping */
	uint64_t kernel_start, synth_base;
	/* chains, built on demand per aggregate */
	uint32_t *chain_first, *chain_n;
	uint64_t *chain_ip;
	uint8_t *chain_mode, *chain_cut;
	uint64_t *pool, *scratch;
	size_t npool, cappool, capscratch;
	uint32_t *syms;
	size_t capsyms;
};

static const char *str(const struct pd_layout *l, uint32_t id)
{
	return rp_str(&l->r->m->strs, id);
}

static uint32_t proc_of(struct pd_layout *l, uint32_t pid)
{
	bool added;
	uint32_t i = rp_keytab_get(&l->proc_index, pid, 0, 0, &added);
	if (added) {
		RP_GROW(l->procs, l->capprocs, l->nprocs + 1);
		l->procs[l->nprocs++] = (struct proc){ .pid = pid };
	}
	return i;
}

static uint32_t dso_of(struct pd_layout *l, uint64_t kind, uint64_t key, uint32_t name)
{
	bool added;
	uint32_t i = rp_keytab_get(&l->dso_index, kind, key, 0, &added);
	if (added) {
		RP_GROW(l->dsos, l->capdsos, l->ndsos + 1);
		l->dsos[l->ndsos++] = (struct pd_dso){ .name = name, .file_id = kind == 1 ? key : 0 };
	}
	return i;
}

/* Which DSO names a frame for perf, and how. */
static enum frame_class classify(struct pd_layout *l, const struct rp_sym *sym,
				 const struct rp_file **file)
{
	const struct rp_model *m = l->r->m;
	*file = NULL;
	if (sym->kind == RP_SYM_KERNEL)
		return FC_KERNEL;
	if (sym->kind == RP_SYM_NATIVE && sym->file_id) {
		*file = rp_model_file(m, sym->file_id);
		if (*file && str(l, (*file)->path)[0])
			return FC_FILE;
	}
	return FC_SYNTH;
}

/* "[trec-python]", "[trec-perl]", ...: the DSO of an interpreter's frames. */
static const char *interp_dso(uint8_t lang, char *buf, size_t len)
{
	const struct rp_interp_ops *ops = rp_interp_for_kind(lang, NULL);

	snprintf(buf, len, "[trec-%s]", ops ? ops->name : "interpreted");
	return buf;
}

/* The synthetic DSO and name of a frame (name 0: none, the unnamed slot). */
static void synth_key(struct pd_layout *l, const struct rp_sym *sym, uint32_t *dso,
		      uint32_t *name)
{
	struct rp_strtab *st = &l->r->m->strs;
	const char *d = rp_str(st, sym->dso);
	char ibuf[48];
	if (!d[0] || !strcmp(d, "[unknown]"))
		d = sym->kind == RP_SYM_ERROR ? "[trec-errors]" :
		    sym->kind == RP_SYM_INTERP ? interp_dso(sym->lang, ibuf, sizeof(ibuf)) : "[unknown]";
	/* A name perf takes for something else would not read the cache: a
	 * perf map (/tmp/perf-PID.map, read at report time), anonymous or
	 * no-file memory. Such a name gets a prefix (its basename, which
	 * --folded shows for an unnamed frame, stays). */
	static const char *const special[] = { "/tmp/perf-", "//anon", "/dev/zero", "/anon_hugepage",
					       "[stack", "/SYSV", "[heap]", "[vdso" };
	char buf[4200];
	for (size_t i = 0; i < sizeof(special) / sizeof(special[0]); i++)
		if (!strncmp(d, special[i], strlen(special[i]))) {
			snprintf(buf, sizeof(buf), "[trec]%s", d);
			d = buf;
			break;
		}
	uint32_t dname = rp_strtab_intern(st, d);
	*dso = dso_of(l, 2, dname, dname);
	*name = sym->kind == RP_SYM_INTERP ? sym->label : sym->resolved ? sym->name : 0;
}

/* The symbol slot of (dso, name) in its DSO, added when new. */
static uint32_t synth_sym(struct pd_layout *l, uint32_t dso, uint32_t name)
{
	struct pd_dso *d = &l->dsos[dso];
	if (!name)
		return UINT32_MAX;
	bool added;
	uint32_t i = rp_keytab_get(&l->sym_index, dso, name, 0, &added);
	if (added) {
		RP_GROW(l->sym_k, l->capsym_k, (size_t)i + 1);
		RP_GROW(d->syms, d->capsyms, (size_t)d->nsyms + 1);
		l->sym_k[i] = d->nsyms;
		d->syms[d->nsyms++] = name;
	}
	return l->sym_k[i];
}

static uint64_t synth_size(const struct pd_dso *d)
{
	uint64_t end = PD_SYNTH_FIRST + ((uint64_t)d->nsyms + 1) * PD_SYNTH_SYM_SIZE;
	return (end + PAGE - 1) & ~(PAGE - 1);
}

static uint32_t use_of(struct pd_layout *l, uint32_t proc, uint32_t dso)
{
	bool added;
	uint32_t i = rp_keytab_get(&l->use_index, proc, dso, 0, &added);
	if (added) {
		RP_GROW(l->uses, l->capuses, l->nuses + 1);
		l->uses[l->nuses++] = (struct use){ proc, dso, UINT64_MAX, 0 };
	}
	return i;
}

static void add_map(struct proc *p, uint64_t start, uint64_t end, uint64_t pgoff, uint32_t dso)
{
	RP_GROW(p->maps, p->capmaps, (size_t)p->nmaps + 1);
	p->maps[p->nmaps++] = (struct pd_map){ start, end, pgoff, dso };
}

static bool overlaps(const struct proc *p, uint64_t start, uint64_t end)
{
	for (uint32_t i = 0; i < p->nmaps; i++)
		if (start < p->maps[i].end && p->maps[i].start < end)
			return true;
	return false;
}

/* Pass 1: which DSOs and symbols the frames of every process use. */
static void collect(struct pd_layout *l)
{
	const struct rp_model *m = l->r->m;
	for (size_t a = 0; a < m->naggs; a++) {
		if (!m->aggs[a].count)
			continue;
		uint32_t p = proc_of(l, m->aggs[a].pid);
		uint32_t n = rp_agg_syms(l->r, &m->aggs[a], &l->syms, &l->capsyms);
		for (uint32_t k = 0; k < n; k++) {
			const struct rp_sym *sym = rp_sym_get(l->r->s, l->syms[k]);
			const struct rp_file *f;
			uint64_t addr = trec_frame_lookup_addr(sym->addr, sym->flags);
			uint32_t d, name;
			switch (classify(l, sym, &f)) {
			case FC_KERNEL:
				if (addr < l->kernel_start)
					l->kernel_start = addr;
				break;
			case FC_FILE: {
				uint32_t ui = use_of(l, p, dso_of(l, 1, f->file_id, f->path));
				struct use *u = &l->uses[ui]; /* after use_of grew the array */
				u->lo = addr < u->lo ? addr : u->lo;
				u->hi = addr > u->hi ? addr : u->hi;
				break;
			}
			case FC_SYNTH:
				synth_key(l, sym, &d, &name);
				synth_sym(l, d, name);
				use_of(l, p, d);
				break;
			}
		}
	}
}

/* Pass 2: a file at one of the process's recorded mappings of it, widened
 * to its frames, unless that overlaps a map already placed. */
static bool place_recorded(struct pd_layout *l, uint32_t ui)
{
	struct use *u = &l->uses[ui];
	struct proc *p = &l->procs[u->proc];
	const struct pd_dso *d = &l->dsos[u->dso];
	const struct rp_model *m = l->r->m;
	const struct rp_process *rp = rp_model_process((struct rp_model *)m, 0, p->pid, false);
	for (size_t s = 0; rp && s < rp->nsnaps; s++) {
		const struct rp_snapshot *sn = &rp->snaps[s];
		for (uint32_t k = 0; k < sn->num && sn->first + k < m->nmaps; k++) {
			const struct rp_mapping *mp = &m->maps[sn->first + k];
			if (mp->file_id != d->file_id || u->lo + mp->bias < u->lo ||
			    u->hi + mp->bias >= UINT64_MAX - PAGE)
				continue;
			uint64_t lo = (u->lo + mp->bias) & ~(PAGE - 1);
			uint64_t hi = (u->hi + mp->bias + PAGE) & ~(PAGE - 1);
			uint64_t start = mp->start < lo ? mp->start : lo;
			uint64_t end = mp->end > hi ? mp->end : hi;
			if (overlaps(p, start, end) || start < mp->bias)
				continue;
			/* pgoff: the file offset at start, as perf record writes it;
			 * perf turns symbol addresses into file offsets too. */
			uint64_t at = start - mp->bias;
			add_map(p, start, end, at >= d->delta ? at - d->delta : 0, u->dso);
			l->bias[ui] = mp->bias;
			return true;
		}
	}
	return false;
}

static bool area_free(const struct pd_layout *l, uint64_t base, uint64_t size)
{
	const struct rp_model *m = l->r->m;
	for (size_t i = 0; i < m->nmaps; i++)
		if (m->maps[i].start < base + size && base < m->maps[i].end)
			return false;
	for (size_t i = 0; i < l->nprocs; i++)
		if (overlaps(&l->procs[i], base, base + size))
			return false;
	return true;
}

/* Pass 3: slots in one synthetic area for synthetic DSOs and for files no
 * recorded mapping could hold. */
static void place_slots(struct pd_layout *l)
{
	uint64_t total = 0;
	for (size_t i = 0; i < l->ndsos; i++) {
		if (!l->dsos[i].used)
			continue;
		uint64_t size = l->dsos[i].file_id ? l->slot_hi[i] - l->slot_lo[i]
						   : synth_size(&l->dsos[i]);
		l->slot[i] = total; /* an offset until the base is known */
		total += size + SLOT_GAP;
	}
	if (!total)
		return;
	l->synth_base = SYNTH_LOW;
	for (uint64_t b = SYNTH_LOW; b + total <= SYNTH_HIGH; b += SYNTH_STEP)
		if (area_free(l, b, total)) {
			l->synth_base = b;
			break;
		}
	for (size_t i = 0; i < l->ndsos; i++)
		if (l->dsos[i].used)
			l->slot[i] += l->synth_base;
}

static int cmp_map(const void *a, const void *b)
{
	const struct pd_map *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* A synthetic DSO's build-id: a hash of its name and symbols, so the
 * same frames give the same file. */
static void synth_build_id(const struct pd_layout *l, struct pd_dso *d)
{
	uint64_t h[3] = { 1, 2, 3 };
	for (int k = 0; k < 3; k++) {
		h[k] = rp_hash_bytes(str(l, d->name), strlen(str(l, d->name)) + 1, h[k]);
		for (uint32_t i = 0; i < d->nsyms; i++)
			h[k] = rp_hash_bytes(str(l, d->syms[i]), strlen(str(l, d->syms[i])) + 1,
					     rp_hash_u64(h[k] + (uint64_t)k));
	}
	memcpy(d->build_id, h, 20);
	d->build_id_len = 20;
}

static void set_build_ids(struct pd_layout *l)
{
	struct rp_model *m = l->r->m;
	for (size_t i = 0; i < l->ndsos; i++) {
		struct pd_dso *d = &l->dsos[i];
		if (!d->file_id) {
			synth_build_id(l, d);
			continue;
		}
		const struct rp_file *f = rp_model_file(m, d->file_id);
		if (f && f->build_id_len && f->build_id_len <= PD_BUILD_ID_MAX) {
			memcpy(d->build_id, f->build_id, f->build_id_len);
			d->build_id_len = f->build_id_len;
		}
		const struct rp_mapping *mp = rp_model_file_mapping(m, d->file_id);
		if (mp && mp->start >= mp->bias && mp->start - mp->bias >= mp->file_offset)
			d->delta = mp->start - mp->bias - mp->file_offset;
	}
}

struct pd_layout *pd_layout_new(const struct rp_report *r)
{
	struct pd_layout *l = xcalloc(1, sizeof(*l));
	l->r = r;
	l->kernel_start = UINT64_MAX;
	collect(l);
	set_build_ids(l);
	l->slot = xcalloc(l->ndsos + 2, sizeof(*l->slot));
	l->slot_lo = xcalloc(l->ndsos + 2, sizeof(*l->slot_lo));
	l->slot_hi = xcalloc(l->ndsos + 2, sizeof(*l->slot_hi));
	l->bias = xcalloc(l->nuses + 1, sizeof(*l->bias));
	l->placed = xcalloc(l->nuses + 1, sizeof(*l->placed));
	for (size_t i = 0; i < l->nuses; i++) {
		struct use *u = &l->uses[i];
		if (!l->dsos[u->dso].file_id) {
			l->dsos[u->dso].used = true;
			continue;
		}
		if ((l->placed[i] = place_recorded(l, (uint32_t)i)))
			continue;
		/* a slot spanning the frames of every process that needs one */
		uint64_t lo = u->lo & ~(PAGE - 1), hi = ((u->hi | (PAGE - 1)) + 1);
		if (!l->dsos[u->dso].used || lo < l->slot_lo[u->dso])
			l->slot_lo[u->dso] = lo;
		if (!l->dsos[u->dso].used || hi > l->slot_hi[u->dso])
			l->slot_hi[u->dso] = hi;
		l->dsos[u->dso].used = true;
	}
	place_slots(l);
	for (size_t i = 0; i < l->nuses; i++) {
		struct use *u = &l->uses[i];
		if (l->placed[i])
			continue;
		const struct pd_dso *d = &l->dsos[u->dso];
		uint64_t start = l->slot[u->dso];
		if (d->file_id) {
			uint64_t size = l->slot_hi[u->dso] - l->slot_lo[u->dso];
			l->bias[i] = start - l->slot_lo[u->dso];
			uint64_t lo = l->slot_lo[u->dso];
			add_map(&l->procs[u->proc], start, start + size,
				lo >= d->delta ? lo - d->delta : 0, u->dso);
		} else {
			l->bias[i] = start;
			add_map(&l->procs[u->proc], start, start + synth_size(d), 0, u->dso);
		}
	}
	for (size_t i = 0; i < l->nprocs; i++)
		if (l->procs[i].nmaps) /* only kernel frames: no maps */
			qsort(l->procs[i].maps, l->procs[i].nmaps, sizeof(struct pd_map), cmp_map);
	size_t na = r->m->naggs ? r->m->naggs : 1;
	l->chain_first = xmalloc(na * sizeof(*l->chain_first));
	memset(l->chain_first, 0xff, na * sizeof(*l->chain_first));
	l->chain_n = xcalloc(na, sizeof(*l->chain_n));
	l->chain_ip = xcalloc(na, sizeof(*l->chain_ip));
	l->chain_mode = xcalloc(na, 1);
	l->chain_cut = xcalloc(na, 1);
	return l;
}

void pd_layout_free(struct pd_layout *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->ndsos; i++)
		free(l->dsos[i].syms);
	for (size_t i = 0; i < l->nprocs; i++)
		free(l->procs[i].maps);
	free(l->dsos);
	free(l->procs);
	free(l->uses);
	free(l->slot);
	free(l->slot_lo);
	free(l->slot_hi);
	free(l->bias);
	free(l->placed);
	free(l->sym_k);
	free(l->chain_first);
	free(l->chain_n);
	free(l->chain_ip);
	free(l->chain_mode);
	free(l->chain_cut);
	free(l->pool);
	free(l->scratch);
	free(l->syms);
	rp_keytab_free(&l->dso_index);
	rp_keytab_free(&l->sym_index);
	rp_keytab_free(&l->proc_index);
	rp_keytab_free(&l->use_index);
	free(l);
}

const struct pd_dso *pd_layout_dsos(const struct pd_layout *l, uint32_t *n)
{
	*n = (uint32_t)l->ndsos;
	return l->dsos;
}

const struct pd_map *pd_layout_maps(const struct pd_layout *l, uint32_t pid, uint32_t *n)
{
	uint32_t i = rp_keytab_find(&l->proc_index, pid, 0, 0);
	if (i == TREC_ITAB_NONE) {
		*n = 0;
		return NULL;
	}
	*n = l->procs[i].nmaps;
	return l->procs[i].maps;
}

uint64_t pd_layout_kernel_start(const struct pd_layout *l)
{
	return l->kernel_start;
}

/* The callchain address of one frame of process p, and its context. */
static uint64_t frame_ip(struct pd_layout *l, uint32_t p, const struct rp_sym *sym, bool *kernel)
{
	const struct rp_file *f;
	uint64_t addr = trec_frame_lookup_addr(sym->addr, sym->flags);
	uint32_t d, name, u;
	*kernel = false;
	switch (classify(l, sym, &f)) {
	case FC_KERNEL:
		*kernel = true;
		return addr;
	case FC_FILE:
		u = rp_keytab_find(&l->use_index, p, rp_keytab_find(&l->dso_index, 1, f->file_id, 0), 0);
		return u == TREC_ITAB_NONE ? addr : addr + l->bias[u];
	case FC_SYNTH:
		synth_key(l, sym, &d, &name);
		break;
	}
	uint32_t k = name ? synth_sym(l, d, name) : l->dsos[d].nsyms;
	return l->slot[d] + PD_SYNTH_FIRST + (uint64_t)k * PD_SYNTH_SYM_SIZE +
	       PD_SYNTH_SYM_SIZE / 2;
}

#define POOL_MAX (64u << 20) /* cached chain entries; beyond, chains are rebuilt */

const uint64_t *pd_layout_chain(struct pd_layout *l, uint32_t agg, uint32_t *n, uint64_t *ip,
				uint8_t *cpumode, bool *cut)
{
	if (l->chain_first[agg] != UINT32_MAX) {
		*n = l->chain_n[agg];
		*ip = l->chain_ip[agg];
		*cpumode = l->chain_mode[agg];
		*cut = l->chain_cut[agg];
		return l->pool + l->chain_first[agg];
	}
	const struct rp_agg *a = &l->r->m->aggs[agg];
	uint32_t p = rp_keytab_find(&l->proc_index, a->pid, 0, 0);
	uint32_t ns = rp_agg_syms(l->r, a, &l->syms, &l->capsyms), k = 0;
	int ctx = -1;
	RP_GROW(l->scratch, l->capscratch, 2 * (size_t)ns + 1);
	uint64_t *c = l->scratch;
	*cpumode = PD_CPUMODE_USER;
	*ip = 0;
	*cut = false;
	for (uint32_t i = ns; i-- > 0;) { /* leaf first */
		bool kernel;
		uint64_t v = frame_ip(l, p, rp_sym_get(l->r->s, l->syms[i]), &kernel);
		if (k + 2 > PD_MAX_CALLCHAIN) {
			*cut = true;
			break;
		}
		if (ctx != kernel) {
			c[k++] = kernel ? PD_CONTEXT_KERNEL : PD_CONTEXT_USER;
			ctx = kernel;
		}
		if (i == ns - 1) {
			*ip = v;
			*cpumode = kernel ? PD_CPUMODE_KERNEL : PD_CPUMODE_USER;
		}
		c[k++] = v;
	}
	*n = k;
	if (!k || l->npool + k > POOL_MAX)
		return c;
	RP_GROW(l->pool, l->cappool, l->npool + k + 1);
	memcpy(l->pool + l->npool, c, k * sizeof(*c));
	l->chain_first[agg] = (uint32_t)l->npool;
	l->chain_n[agg] = k;
	l->chain_ip[agg] = *ip;
	l->chain_mode[agg] = *cpumode;
	l->chain_cut[agg] = *cut;
	l->npool += k;
	return l->pool + l->chain_first[agg];
}
