// SPDX-License-Identifier: MIT
/*
 * Frame symbolization: a cache in front of the symbol sources, kernel
 * symbols and error-frame names (see symbolize.h).
 */
#include "report/symbols/symbolize.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/symbols/demangle.h"
#include "report/interp/interp.h"
#include "report/symbols/ksyms.h"
#include "report/jit/jitsyms.h"
#include "trec_types.h"
#include "symbolize_rule.h"

static const struct rp_symsrc *const by_kind[RP_MAX_SYMSRC] = {
	[RP_SOURCE_EMBEDDED] = &rp_symsrc_embedded,
	[RP_SOURCE_LOCAL] = &rp_symsrc_elf_file,
	[RP_SOURCE_DEBUG] = &rp_symsrc_elf_debug,
};

struct file_state {
	const struct rp_symsrc *src; /* NULL: nothing could be opened */
	void *handle;
	bool tried;
};

struct sym_key {
	uint64_t a, b; /* meaning depends on kind */
	uint32_t rec, pid; /* pid-specific (Python) frames only, else 0 */
	uint8_t kind, flags;
};

struct rp_symbolizer {
	struct rp_model *m;
	struct rp_symopts o;
	struct rp_sym *syms;
	struct sym_key *keys;
	size_t nsyms, capsyms, capkeys;
	struct rp_line *lines;
	size_t nlines, caplines;
	struct trec_itab index;
	struct file_state *files; /* parallel to m->files */
	size_t nfiles;
	uint32_t s_unknown, s_kernel;
};

struct rp_symbolizer *rp_symbolizer_new(struct rp_model *m, const struct rp_symopts *o)
{
	struct rp_symbolizer *s = xcalloc(1, sizeof(*s));
	s->m = m;
	s->o = *o;
	if (!s->o.nsources) {
		/* Tried in kind order for each file id. */
		for (size_t i = 0; i < RP_MAX_SYMSRC; i++)
			s->o.sources[i] = (enum rp_source)i;
		s->o.nsources = RP_MAX_SYMSRC;
	}
	s->s_unknown = rp_strtab_intern(&m->strs, "[unknown]");
	s->s_kernel = rp_strtab_intern(&m->strs, "[kernel.kallsyms]");
	return s;
}

void rp_symbolizer_free(struct rp_symbolizer *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nfiles; i++)
		if (s->files[i].src)
			s->files[i].src->close(s->files[i].handle);
	free(s->files);
	free(s->syms);
	free(s->keys);
	free(s->lines);
	trec_itab_free(&s->index);
	free(s);
}

const struct rp_sym *rp_sym_get(const struct rp_symbolizer *s, uint32_t id)
{
	return &s->syms[id];
}

const struct rp_line *rp_sym_lines(const struct rp_symbolizer *s, const struct rp_sym *sym)
{
	return s->lines + sym->first_line;
}

size_t rp_symbolizer_count(const struct rp_symbolizer *s)
{
	return s->nsyms;
}

const char *rp_error_name(uint64_t code)
{
	switch (code) {
#define TREC_X(name, c, desc) case c: return #name;
	TREC_ERROR_LIST(TREC_X)
#undef TREC_X
	}
	return NULL;
}

/* ---- building syms ---------------------------------------------------------- */

static uint32_t intern_clean(struct rp_symbolizer *s, const char *str)
{
	char buf[1024];
	rp_sanitize(buf, sizeof(buf), str);
	return rp_strtab_intern(&s->m->strs, buf);
}

/* Names as perf prints them: a symbol version (cfree@GLIBC_2.2.5, from
 * .symtab) and @plt stay; a mangled name is demangled before its '@'. */
static uint32_t intern_func(struct rp_symbolizer *s, const char *raw)
{
	char buf[1024], base[1024];
	const char *at = strchr(raw, '@');
	if (!s->o.demangle) {
		snprintf(buf, sizeof(buf), "%s", raw);
	} else if (at && at != raw) {
		snprintf(base, sizeof(base), "%.*s", (int)(at - raw), raw);
		rp_demangle(base, buf, sizeof(buf));
		size_t n = strlen(buf);
		snprintf(buf + n, sizeof(buf) - n, "%s", at);
	} else {
		rp_demangle(raw, buf, sizeof(buf));
	}
	return intern_clean(s, buf);
}

static void add_line(struct rp_symbolizer *s, uint32_t func, uint32_t file, uint32_t line)
{
	RP_GROW(s->lines, s->caplines, s->nlines + 1);
	s->lines[s->nlines++] = (struct rp_line){ func, file, line };
}

static const char *basename_of(const char *p)
{
	const char *b = strrchr(p, '/');
	return b ? b + 1 : p;
}

/* "dso+0xaddr" names an unresolved address the way perf's srcline does. */
static uint32_t unresolved_label(struct rp_symbolizer *s, uint32_t dso, uint64_t addr)
{
	char buf[512];
	if (dso == s->s_unknown)
		snprintf(buf, sizeof(buf), "0x%" PRIx64, addr);
	else
		snprintf(buf, sizeof(buf), "%s+0x%" PRIx64, basename_of(rp_str(&s->m->strs, dso)),
			 addr);
	return intern_clean(s, buf);
}

static void finish_unresolved(struct rp_symbolizer *s, struct rp_sym *sym)
{
	sym->resolved = false;
	sym->name = s->s_unknown;
	sym->label = unresolved_label(s, sym->dso, sym->addr);
	sym->first_line = (uint32_t)s->nlines;
	sym->nlines = 1;
	add_line(s, sym->name, 0, 0);
}

static struct file_state *file_state(struct rp_symbolizer *s, const struct rp_file *f)
{
	size_t idx = (size_t)(f - s->m->files);
	if (idx >= s->nfiles) {
		size_t n = s->m->nfiles;
		s->files = xrealloc(s->files, n * sizeof(*s->files));
		memset(s->files + s->nfiles, 0, (n - s->nfiles) * sizeof(*s->files));
		s->nfiles = n;
	}
	struct file_state *fs = &s->files[idx];
	if (fs->tried)
		return fs;
	fs->tried = true;

	struct rp_symsrc_file sf = {
		.file_id = f->file_id,
		.path = rp_str(&s->m->strs, f->path),
		.debuglink = rp_str(&s->m->strs, f->debuglink),
		.build_id = f->build_id_len ? f->build_id : NULL,
		.build_id_len = f->build_id_len,
		.size = f->size,
		.mtime_ns = f->mtime_ns,
		.symfs = s->o.symfs,
		.debug_dirs = s->o.debug_dirs,
		.archives = s->m->archives,
	};
	char why[RP_MAX_SYMSRC][512];
	int mismatch = -1;
	for (size_t i = 0; i < s->o.nsources; i++) {
		why[i][0] = 0;
		int r = by_kind[s->o.sources[i]]->open(&sf, &fs->handle, why[i], sizeof(why[i]));
		if (r == RP_SYMSRC_OK) {
			fs->src = by_kind[s->o.sources[i]];
			break;
		}
		if (r == RP_SYMSRC_MISMATCH && mismatch < 0)
			mismatch = (int)i;
	}
	/* Once per file: a differing binary is never used, and the user should
	 * know why its frames stay unresolved or come from a debug file. */
	if (mismatch >= 0 && !s->o.quiet)
		fprintf(stderr, "treport: warning: not using %s%s\n", why[mismatch],
			fs->src ? "" : "; its frames stay unresolved");
	return fs;
}

static void symbolize_native(struct rp_symbolizer *s, struct rp_sym *sym, const struct rp_file *f,
			     uint64_t lookup_addr)
{
	sym->dso = f ? intern_clean(s, rp_str(&s->m->strs, f->path)) : s->s_unknown;
	if (f && !rp_str(&s->m->strs, f->path)[0])
		sym->dso = s->s_unknown;
	struct file_state *fs = f ? file_state(s, f) : NULL;
	struct rp_symres res;
	if (!fs || !fs->src || fs->src->lookup(fs->handle, lookup_addr, &res) < 0) {
		finish_unresolved(s, sym);
		return;
	}
	/* Function of the address: the ELF symbol (perf's naming, clones keep
	 * their .constprop suffix), else the DWARF subprogram. */
	const char *outer = res.symname;
	if (!outer && res.nlines && res.lines[res.nlines - 1].func)
		outer = res.lines[res.nlines - 1].func;
	if (!outer) {
		finish_unresolved(s, sym);
		return;
	}
	sym->resolved = true;
	sym->name = intern_func(s, outer);
	sym->label = sym->name;
	sym->sym_off = res.symname ? sym->addr - res.sym_start : 0;
	sym->first_line = (uint32_t)s->nlines;
	uint32_t n = res.nlines ? res.nlines : 1;
	if (!s->o.inline_frames && n > 1) {
		/* only the function itself, at the call site of the outermost inline */
		res.lines[0] = res.lines[n - 1];
		n = res.nlines = 1;
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t func, file = 0, line = 0;
		if (i == n - 1)
			func = sym->name;
		else
			func = res.lines[i].func ? intern_func(s, res.lines[i].func) : s->s_unknown;
		if (res.nlines) {
			file = res.lines[i].file ? intern_clean(s, res.lines[i].file) : 0;
			line = res.lines[i].line;
		}
		add_line(s, func, file, line);
	}
	sym->nlines = n;
}

static void symbolize_kernel(struct rp_symbolizer *s, struct rp_sym *sym, uint32_t rec,
			     uint64_t lookup_addr)
{
	const struct rp_ksym *k = rp_ksyms_lookup(&s->m->recs[rec], lookup_addr);
	sym->dso = k && k->module ? k->module : s->s_kernel;
	if (!k) {
		finish_unresolved(s, sym);
		return;
	}
	sym->resolved = true;
	sym->name = k->name;
	sym->label = k->name;
	sym->sym_off = sym->addr - k->addr;
	sym->first_line = (uint32_t)s->nlines;
	sym->nlines = 1;
	add_line(s, sym->name, 0, 0);
}

static void symbolize_error(struct rp_symbolizer *s, struct rp_sym *sym)
{
	char buf[128];
	const char *n = rp_error_name(sym->addr);
	if (n)
		snprintf(buf, sizeof(buf), "[error: %s]", n);
	else
		snprintf(buf, sizeof(buf), "[error: %" PRIu64 "]", sym->addr);
	sym->kind = RP_SYM_ERROR;
	sym->resolved = true;
	sym->dso = s->s_unknown;
	sym->name = sym->label = rp_strtab_intern(&s->m->strs, buf);
	sym->first_line = (uint32_t)s->nlines;
	sym->nlines = 1;
	add_line(s, sym->name, 0, 0);
}

/* JIT code: the runtime's name verbatim (as perf shows it), the dso perf
 * shows, and the line of a jitdump's rows. */
static void symbolize_jit(struct rp_symbolizer *s, struct rp_sym *sym, uint64_t key,
			  uint64_t lookup_addr)
{
	struct rp_jit_hit h;

	rp_jit_get(s->m->jit, key, lookup_addr, &h);
	sym->resolved = true;
	sym->dso = intern_clean(s, h.dso);
	sym->name = sym->label = intern_clean(s, h.name);
	sym->sym_off = sym->addr - h.start;
	sym->first_line = (uint32_t)s->nlines;
	sym->nlines = 1;
	add_line(s, sym->name, h.file ? intern_clean(s, h.file) : 0, h.line);
}

/* Interpreter frames are named from the recording's code records
 * (report/interp/interp.h): the label "function (file:line)", one line
 * {function, file, line}. */
static void symbolize_interp(struct rp_symbolizer *s, struct rp_sym *sym, uint32_t rec,
			     uint32_t pid, const struct rp_frame *f,
			     const struct rp_interp_ops *ops, size_t idx)
{
	const void *store = s->m->recs[rec].interp.store[idx];
	struct trec_rec_frame rf = { f->file_id, f->addr, f->kind, f->flags };
	struct rp_interp_sym ps;
	char buf[1024];

	sym->kind = RP_SYM_INTERP;
	sym->lang = ops->frame_kind;
	sym->first_line = (uint32_t)s->nlines;
	sym->nlines = 1;
	ops->format(store, pid, &rf, buf, sizeof(buf));
	sym->name = sym->label = intern_clean(s, buf);
	if (store && !ops->lookup(store, pid, &rf, &ps)) {
		sym->resolved = true;
		sym->dso = intern_clean(s, ps.file);
		add_line(s, intern_clean(s, ps.function), sym->dso, ps.line > 0 ? (uint32_t)ps.line : 0);
	} else {
		sym->resolved = false;
		sym->dso = s->s_unknown;
		add_line(s, sym->name, 0, 0);
	}
}

/* ---- cache ------------------------------------------------------------------ */

struct key_ctx {
	const struct rp_symbolizer *s;
	const struct sym_key *k;
};

static bool key_eq(const void *ctx, uint32_t idx)
{
	const struct key_ctx *c = ctx;
	const struct sym_key *a = &c->s->keys[idx], *b = c->k;
	return a->a == b->a && a->b == b->b && a->rec == b->rec && a->pid == b->pid &&
	       a->kind == b->kind && a->flags == b->flags;
}

uint32_t rp_symbolize(struct rp_symbolizer *s, uint32_t rec, uint32_t pid, uint64_t time_ns,
		      const struct rp_frame *f)
{
	struct sym_key k = { .kind = f->kind, .flags = f->flags };
	bool is_error = f->flags & TREC_FRAME_F_ERROR;
	bool absolute = trec_frame_is_absolute(f->kind, f->flags, f->file_id);
	const struct rp_mapping *mp = NULL;
	const struct rp_file *file = NULL;
	/* The key says exactly what the result depends on. */
	if (is_error) {
		k.a = f->addr;
		k.flags = TREC_FRAME_F_ERROR;
		k.kind = 0;
	} else if (f->kind == TREC_FRAME_KERNEL) {
		k.a = rec;
		k.b = f->addr;
	} else if (absolute) {
		k.a = ((uint64_t)rec << 32) | pid;
		k.b = f->addr;
		/* What is mapped at this pc changes with time: the mapping in
		 * force (a file's), else the JIT entry that names it */
		mp = rp_model_find_mapping(s->m, rec, pid, time_ns, f->addr);
		file = mp && mp->file_id ? rp_model_file(s->m, mp->file_id) : NULL;
		if (file) {
			k.rec = UINT32_MAX;
			k.pid = (uint32_t)(mp - s->m->maps);
		} else {
			uint64_t jit = rp_jit_key(s->m->jit, rec, pid, time_ns,
						  trec_frame_lookup_addr(f->addr, f->flags));
			k.rec = (uint32_t)(jit >> 32);
			k.pid = (uint32_t)jit;
		}
	} else if (rp_interp_for_kind(f->kind, NULL)) {
		/* a code object address means something in one process only */
		k.a = f->file_id;
		k.b = f->addr;
		k.rec = rec;
		k.pid = pid;
	} else {
		k.a = f->file_id;
		k.b = f->addr;
	}
	uint64_t h = rp_hash_u64(k.a ^ rp_hash_u64(k.b ^ ((uint64_t)k.kind << 8 | k.flags) ^
						  ((uint64_t)k.rec << 32 | k.pid) << 16));
	struct key_ctx c = { s, &k };
	uint32_t id = trec_itab_find(&s->index, h, key_eq, &c);
	if (id != TREC_ITAB_NONE)
		return id;

	RP_GROW(s->syms, s->capsyms, s->nsyms + 1);
	RP_GROW(s->keys, s->capkeys, s->nsyms + 1);
	id = (uint32_t)s->nsyms++;
	s->keys[id] = k;
	struct rp_sym sym = { .addr = f->addr, .flags = f->flags, .file_id = f->file_id };
	uint64_t lookup = trec_frame_lookup_addr(f->addr, f->flags);
	const struct rp_interp_ops *interp;
	size_t interp_idx;

	if (is_error) {
		symbolize_error(s, &sym);
	} else if (f->kind == TREC_FRAME_KERNEL) {
		sym.kind = RP_SYM_KERNEL;
		sym.file_id = 0;
		symbolize_kernel(s, &sym, rec, lookup);
	} else if ((interp = rp_interp_for_kind(f->kind, &interp_idx))) {
		symbolize_interp(s, &sym, rec, pid, f, interp, interp_idx);
	} else if (absolute) {
		sym.kind = RP_SYM_NATIVE;
		if (file) {
			/* a pc in a known file: symbolize at its ELF address */
			sym.addr = f->addr - mp->bias;
			sym.file_id = file->file_id;
			symbolize_native(s, &sym, file, lookup - mp->bias);
		} else if (k.rec) {
			sym.file_id = 0;
			symbolize_jit(s, &sym, ((uint64_t)k.rec << 32) | k.pid, lookup);
		} else {
			sym.file_id = 0;
			sym.dso = mp && rp_str(&s->m->strs, mp->path)[0] ? intern_clean(s, rp_str(&s->m->strs, mp->path))
								      : s->s_unknown;
			finish_unresolved(s, &sym);
		}
	} else {
		sym.kind = RP_SYM_NATIVE;
		symbolize_native(s, &sym, rp_model_file(s->m, f->file_id), lookup);
	}
	s->syms[id] = sym;
	rp_itab_insert(&s->index, h, id);
	return id;
}

uint32_t rp_symbolize_stack(struct rp_symbolizer *s, const struct rp_agg *a, uint32_t *out)
{
	const struct rp_stack *st = &s->m->stacks[a->stack];
	const struct rp_frame *f = rp_stack_frames(s->m, a->stack);
	uint32_t n = 0;
	for (uint32_t i = st->nuser; i-- > 0;)
		out[n++] = rp_symbolize(s, a->rec, a->pid, a->first_ns, &f[st->nkernel + i]);
	for (uint32_t i = st->nkernel; i-- > 0;)
		out[n++] = rp_symbolize(s, a->rec, a->pid, a->first_ns, &f[i]);
	return n;
}
