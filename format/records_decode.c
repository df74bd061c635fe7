// SPDX-License-Identifier: MIT
/*
 * Record payload decoders (FORMAT.md §6). Every input byte is hostile:
 * all reads go through the bounds-checked cursor, every count is checked
 * against the bytes left before anything is allocated, and strings are
 * copied (NUL-terminated) into scratch memory sized from the payload.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "records.h"

void trec_scratch_free(struct trec_scratch *s)
{
	trec_buf_free(&s->arr);
	trec_buf_free(&s->strs);
	free(s->frames);
	memset(s, 0, sizeof(*s));
}

/*
 * A string consumes at least n + 1 input bytes (length varint + bytes) and
 * n + 1 output bytes (bytes + NUL), so strs reserved at the payload length
 * always has room; no reallocation can move earlier strings.
 */
static const char *get_str(struct trec_cur *c, struct trec_scratch *s, uint32_t max)
{
	uint32_t n;
	const uint8_t *p = trec_cur_bytes(c, max, &n);
	char *d;

	if (!p)
		return "";
	if (memchr(p, 0, n) || s->strs.cap - s->strs.len < (size_t)n + 1) {
		c->bad = 1;
		return "";
	}
	d = (char *)s->strs.data + s->strs.len;
	memcpy(d, p, n);
	d[n] = 0;
	s->strs.len += (size_t)n + 1;
	return d;
}

static void get_comm(struct trec_cur *c, char comm[16])
{
	uint32_t n;
	const uint8_t *p = trec_cur_bytes(c, TREC_MAX_COMM, &n);

	memset(comm, 0, 16);
	if (!p)
		return;
	if (memchr(p, 0, n))
		c->bad = 1;
	else
		memcpy(comm, p, n);
}

static const uint8_t *get_build_id(struct trec_cur *c, uint32_t *len)
{
	const uint8_t *p = trec_cur_bytes(c, TREC_MAX_BUILD_ID, len);

	return p && *len ? p : NULL;
}

/* Room for count elements of size bytes in s->arr (count already bounded). */
static void *get_array(struct trec_cur *c, struct trec_scratch *s, uint32_t count, size_t size)
{
	s->arr.len = 0;
	if (c->bad || !count)
		return NULL;
	if (trec_buf_reserve(&s->arr, (size_t)count * size)) {
		c->bad = -ENOMEM;
		return NULL;
	}
	memset(s->arr.data, 0, (size_t)count * size);
	return s->arr.data;
}

static void dec_meta(struct trec_cur *c, struct trec_scratch *s, struct trec_meta *m)
{
	m->num_entries = trec_cur_count(c, 2);
	struct trec_meta_entry *e = get_array(c, s, m->num_entries, sizeof(*e));

	m->entries = e;
	for (uint32_t i = 0; i < m->num_entries && !c->bad; i++) {
		e[i].key = get_str(c, s, TREC_MAX_STRING);
		e[i].value = get_str(c, s, TREC_MAX_STRING);
	}
}

static void dec_mappings(struct trec_cur *c, struct trec_scratch *s,
			 struct trec_mapping_snapshot *m)
{
	m->time_ns = trec_cur_varint(c);
	m->pid = trec_cur_varint32(c);
	m->num_mappings = trec_cur_count(c, 12);
	struct trec_mapping *mp = get_array(c, s, m->num_mappings, sizeof(*mp));

	m->mappings = mp;
	for (uint32_t i = 0; i < m->num_mappings && !c->bad; i++, mp++) {
		uint64_t size;

		mp->start = trec_cur_varint(c);
		size = trec_cur_varint(c);
		if (size > UINT64_MAX - mp->start)
			c->bad = 1;
		mp->end = mp->start + size;
		mp->file_offset = trec_cur_varint(c);
		mp->file_id = trec_cur_varint(c);
		mp->bias = trec_cur_varint(c);
		mp->inode = trec_cur_varint(c);
		mp->mtime_ns = trec_cur_varint(c);
		mp->dev_major = trec_cur_varint32(c);
		mp->dev_minor = trec_cur_varint32(c);
		mp->prot = trec_cur_varint32(c);
		mp->path = get_str(c, s, TREC_MAX_STRING);
		mp->build_id = get_build_id(c, &mp->build_id_len);
	}
}

static void dec_pid_event(struct trec_cur *c, struct trec_scratch *s, struct trec_pid_event *e)
{
	int64_t code;

	e->time_ns = trec_cur_varint(c);
	e->kind = trec_cur_varint32(c);
	e->pid = trec_cur_varint32(c);
	e->tid = trec_cur_varint32(c);
	e->parent_pid = trec_cur_varint32(c);
	code = trec_cur_zigzag(c);
	if (code < INT32_MIN || code > INT32_MAX)
		c->bad = 1;
	e->exit_code = (int32_t)code;
	get_comm(c, e->comm);
	e->filename = get_str(c, s, TREC_MAX_STRING);
}

static void dec_file(struct trec_cur *c, struct trec_scratch *s, struct trec_file_info *f)
{
	f->file_id = trec_cur_varint(c);
	f->size = trec_cur_varint(c);
	f->inode = trec_cur_varint(c);
	f->mtime_ns = trec_cur_varint(c);
	f->dev_major = trec_cur_varint32(c);
	f->dev_minor = trec_cur_varint32(c);
	f->path = get_str(c, s, TREC_MAX_STRING);
	f->build_id = get_build_id(c, &f->build_id_len);
	f->debuglink = get_str(c, s, TREC_MAX_STRING);
}

static void dec_ksyms(struct trec_cur *c, struct trec_scratch *s, struct trec_ksyms *k)
{
	uint64_t addr = 0;

	k->time_ns = trec_cur_varint(c);
	k->num_syms = trec_cur_count(c, 4);
	struct trec_ksym *sym = get_array(c, s, k->num_syms, sizeof(*sym));

	k->syms = sym;
	for (uint32_t i = 0; i < k->num_syms && !c->bad; i++, sym++) {
		addr += (uint64_t)trec_cur_zigzag(c); /* modulo 2^64 by definition */
		sym->addr = addr;
		sym->type = (char)trec_cur_u8(c);
		sym->name = get_str(c, s, TREC_MAX_STRING);
		sym->module = get_str(c, s, TREC_MAX_STRING);
	}
}

static void dec_metrics(struct trec_cur *c, struct trec_scratch *s, struct trec_metrics *m)
{
	m->time_ns = trec_cur_varint(c);
	m->num_values = trec_cur_count(c, 3);
	struct trec_metric_value *v = get_array(c, s, m->num_values, sizeof(*v));

	m->values = v;
	for (uint32_t i = 0; i < m->num_values && !c->bad; i++, v++) {
		v->id = trec_cur_varint32(c);
		v->name = get_str(c, s, TREC_MAX_STRING);
		v->value = trec_cur_varint(c);
	}
}

static void dec_summary(struct trec_cur *c, struct trec_summary *s)
{
	int64_t st;

	s->start_ns = trec_cur_varint(c);
	s->end_ns = trec_cur_varint(c);
	s->samples = trec_cur_varint(c);
	s->lost = trec_cur_varint(c);
	st = trec_cur_zigzag(c);
	if (st < INT32_MIN || st > INT32_MAX)
		c->bad = 1;
	s->exit_status = (int32_t)st;
	s->flags = trec_cur_varint32(c);
}

static void dec_blob(struct trec_cur *c, struct trec_blob *b)
{
	b->file_id = trec_cur_varint(c);
	b->subtype = trec_cur_varint32(c);
	b->data = trec_cur_bytes(c, TREC_MAX_CHUNK_ULEN, &b->len);
}

/* Minimum encoded sizes (FORMAT.md §7): file string 1, entry 7, row 3. */
#define JIT_MIN_ENTRY 7u
#define JIT_MIN_ROW 3u

static void dec_jit_entry(struct trec_cur *c, struct trec_scratch *s, struct trec_jitsyms *j,
			  struct trec_jit_entry *e, struct trec_jit_line *rows, uint32_t *nrows,
			  uint64_t *prev_start, uint64_t *prev_load)
{
	uint64_t life, addr;

	e->start = *prev_start += (uint64_t)trec_cur_zigzag(c);
	e->size = trec_cur_varint(c);
	if (e->size > UINT64_MAX - e->start)
		c->bad = 1;
	e->load_ns = *prev_load += (uint64_t)trec_cur_zigzag(c);
	life = trec_cur_varint(c);
	if (life && life - 1 > UINT64_MAX - e->load_ns)
		c->bad = 1;
	e->end_ns = life ? e->load_ns + (life - 1) : 0;
	e->code_index = trec_cur_varint(c);
	e->name = get_str(c, s, TREC_MAX_STRING);
	e->num_lines = trec_cur_varint32(c);
	e->first_line = *nrows;
	if (e->num_lines > j->num_lines - *nrows) {
		c->bad = 1;
		return;
	}
	addr = e->start;
	for (uint32_t k = 0; k < e->num_lines && !c->bad; k++) {
		struct trec_jit_line *l = &rows[(*nrows)++];

		l->addr = addr += (uint64_t)trec_cur_zigzag(c);
		l->line = trec_cur_varint32(c);
		l->file = trec_cur_varint32(c);
		if (l->file >= j->num_files)
			c->bad = 1;
	}
}

static void dec_jitsyms(struct trec_cur *c, struct trec_scratch *s, struct trec_jitsyms *j)
{
	uint64_t prev_start = 0, prev_load = 0;
	uint32_t nrows = 0;

	j->time_ns = trec_cur_varint(c);
	j->pid = trec_cur_varint32(c);
	j->source = trec_cur_varint32(c);
	j->flags = trec_cur_varint32(c);
	j->bad = trec_cur_varint32(c);
	j->path = get_str(c, s, TREC_MAX_STRING);
	j->num_files = trec_cur_count(c, 1);
	j->num_entries = trec_cur_count(c, JIT_MIN_ENTRY);
	j->num_lines = trec_cur_count(c, JIT_MIN_ROW);
	/* together, too: the one allocation below is bounded by the payload */
	if ((uint64_t)j->num_files + (uint64_t)j->num_entries * JIT_MIN_ENTRY +
	    (uint64_t)j->num_lines * JIT_MIN_ROW > trec_cur_left(c))
		c->bad = 1;
	size_t fsz = (size_t)j->num_files * sizeof(char *);
	size_t esz = (size_t)j->num_entries * sizeof(struct trec_jit_entry);
	size_t total = fsz + esz + (size_t)j->num_lines * sizeof(struct trec_jit_line);
	uint8_t *block = total ? get_array(c, s, 1, total) : NULL;

	if (!block)
		return; /* bad, or nothing to decode */
	const char **files = (const char **)block;
	struct trec_jit_entry *e = (struct trec_jit_entry *)(block + fsz);
	struct trec_jit_line *rows = (struct trec_jit_line *)(block + fsz + esz);

	j->files = j->num_files ? files : NULL;
	j->entries = j->num_entries ? e : NULL;
	j->lines = j->num_lines ? rows : NULL;
	for (uint32_t i = 0; i < j->num_files && !c->bad; i++)
		files[i] = get_str(c, s, TREC_MAX_STRING);
	for (uint32_t i = 0; i < j->num_entries && !c->bad; i++)
		dec_jit_entry(c, s, j, &e[i], rows, &nrows, &prev_start, &prev_load);
	if (nrows != j->num_lines)
		c->bad = 1;
}

/* Frames of one list; out may be NULL to only validate. */
static void dec_frames(struct trec_cur *c, uint32_t n, struct trec_rec_frame *out)
{
	uint64_t file_id = 0, addr = 0;

	for (uint32_t i = 0; i < n && !c->bad; i++) {
		struct trec_rec_frame f;

		f.kind = trec_cur_u8(c);
		f.flags = trec_cur_u8(c);
		file_id += (uint64_t)trec_cur_zigzag(c);
		f.file_id = file_id;
		addr += (uint64_t)trec_cur_zigzag(c);
		f.addr = addr;
		if (out)
			out[i] = f;
	}
}

static void dec_stack_counts(struct trec_cur *c, uint32_t *nk, uint32_t *nu)
{
	*nk = trec_cur_varint32(c);
	*nu = trec_cur_varint32(c);
	if (*nk > TREC_MAX_STACK_FRAMES || *nu > TREC_MAX_STACK_FRAMES)
		c->bad = 1;
}

/* Remembers where a table entry's payload is, for later SAMPLEs. */
static void table_add(struct trec_cur *c, struct trec_buf *tab, uint32_t *n,
		      uint32_t off, uint32_t len)
{
	uint32_t ent[2] = { off, len };

	trec_buf_put(tab, ent, sizeof(ent));
	if (tab->oom)
		c->bad = -ENOMEM;
	else
		(*n)++;
}

static const uint32_t *table_get(const struct trec_buf *tab, uint32_t n, uint32_t idx)
{
	return idx < n ? (const uint32_t *)tab->data + 2 * (size_t)idx : NULL;
}

static void dec_sample(struct trec_cur *c, const uint8_t *body, struct trec_chunk_tables *t,
		       struct trec_scratch *s, struct trec_sample *out)
{
	t->prev_time += (uint64_t)trec_cur_zigzag(c);
	out->time_ns = t->prev_time;
	uint32_t ti = trec_cur_varint32(c);
	uint32_t si = trec_cur_varint32(c);
	out->cpu = trec_cur_varint32(c);
	out->flags = trec_cur_varint32(c);
	out->weight = trec_cur_varint(c);
	/* 1.2 appended offcpu_ns; a 1.0/1.1 payload ends before it. */
	out->offcpu_ns = c->p < c->end ? trec_cur_varint(c) : 0;
	if (c->bad)
		return;

	const uint32_t *th = table_get(&t->threads, t->nthreads, ti);
	const uint32_t *st = table_get(&t->stacks, t->nstacks, si);
	if (!th || !st) {
		c->bad = 1;
		return;
	}
	/* Entries were validated when defined; decode them again for this sample. */
	struct trec_cur tc = { body + th[0], body + th[0] + th[1], 0 };
	out->pid = trec_cur_varint32(&tc);
	out->tid = trec_cur_varint32(&tc);
	get_comm(&tc, out->comm);

	struct trec_cur sc = { body + st[0], body + st[0] + st[1], 0 };
	uint32_t nk, nu;
	dec_stack_counts(&sc, &nk, &nu);
	if (s->frames_cap < (size_t)nk + nu) {
		struct trec_rec_frame *f = realloc(s->frames, ((size_t)nk + nu) * sizeof(*f));

		if (!f) {
			c->bad = -ENOMEM;
			return;
		}
		s->frames = f;
		s->frames_cap = (size_t)nk + nu;
	}
	dec_frames(&sc, nk, s->frames);
	dec_frames(&sc, nu, nu ? s->frames + nk : NULL); /* frames is NULL until used */
	out->num_kernel_frames = nk;
	out->kernel_frames = nk ? s->frames : NULL;
	out->num_user_frames = nu;
	out->user_frames = nu ? s->frames + nk : NULL;
	if (tc.bad || sc.bad)
		c->bad = 1;
}

int trec_dec_record(uint32_t type, const uint8_t *body, const uint8_t *payload, uint32_t len,
		    struct trec_chunk_tables *t, struct trec_scratch *s, struct trec_record *rec)
{
	struct trec_cur c = { payload, payload + len, 0 };
	uint32_t off = (uint32_t)(payload - body);
	uint32_t nk, nu;

	memset(rec, 0, sizeof(*rec));
	rec->type = (enum trec_record_type)type;
	s->strs.len = 0;
	if (trec_buf_reserve(&s->strs, (size_t)len + 1))
		return -ENOMEM;

	switch (type) {
	case TREC_REC_STACK:
		dec_stack_counts(&c, &nk, &nu);
		dec_frames(&c, nk, NULL);
		dec_frames(&c, nu, NULL);
		if (!c.bad)
			table_add(&c, &t->stacks, &t->nstacks, off, len);
		break;
	case TREC_REC_THREAD: {
		char comm[16];

		trec_cur_varint32(&c);
		trec_cur_varint32(&c);
		get_comm(&c, comm);
		if (!c.bad)
			table_add(&c, &t->threads, &t->nthreads, off, len);
		break;
	}
	case TREC_REC_META: dec_meta(&c, s, &rec->u.meta); break;
	case TREC_REC_SAMPLE: dec_sample(&c, body, t, s, &rec->u.sample); break;
	case TREC_REC_MAPPINGS: dec_mappings(&c, s, &rec->u.mappings); break;
	case TREC_REC_PID_EVENT: dec_pid_event(&c, s, &rec->u.pid_event); break;
	case TREC_REC_FILE: dec_file(&c, s, &rec->u.file); break;
	case TREC_REC_KSYMS: dec_ksyms(&c, s, &rec->u.ksyms); break;
	case TREC_REC_METRICS: dec_metrics(&c, s, &rec->u.metrics); break;
	case TREC_REC_SUMMARY: dec_summary(&c, &rec->u.summary); break;
	case TREC_REC_SYMTAB:
	case TREC_REC_PYCODE:
	case TREC_REC_INTERP_CODE:
	case TREC_REC_BLOB: dec_blob(&c, &rec->u.blob); break;
	case TREC_REC_JITSYMS: dec_jitsyms(&c, s, &rec->u.jitsyms); break;
	default:
		return 0; /* unknown type: skipped by its length (FORMAT.md §4) */
	}
	if (c.bad)
		return c.bad < 0 ? c.bad : -EBADMSG;
	/* Bytes after the known fields belong to later minor versions. */
	return type == TREC_REC_STACK || type == TREC_REC_THREAD ? 0 : 1;
}

const char *trec_record_type_name(enum trec_record_type t)
{
	static const char *const names[] = {
		[TREC_REC_META] = "META",         [TREC_REC_SAMPLE] = "SAMPLE",
		[TREC_REC_MAPPINGS] = "MAPPINGS", [TREC_REC_PID_EVENT] = "PID_EVENT",
		[TREC_REC_FILE] = "FILE",         [TREC_REC_KSYMS] = "KSYMS",
		[TREC_REC_METRICS] = "METRICS",   [TREC_REC_SUMMARY] = "SUMMARY",
		[TREC_REC_SYMTAB] = "SYMTAB",     [TREC_REC_PYCODE] = "PYCODE",
		[TREC_REC_BLOB] = "BLOB",         [TREC_REC_JITSYMS] = "JITSYMS",
		[TREC_REC_INTERP_CODE] = "INTERP_CODE",
	};

	if ((unsigned)t < sizeof(names) / sizeof(names[0]) && names[t])
		return names[t];
	return "UNKNOWN";
}
