// SPDX-License-Identifier: MIT
/* Perl INTERP_CODE store and frame lookup; see perl_frames.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report/interp/interp_codes.h"
#include "report/interp/perl/perl_frames.h"
#include "report/util.h"
#include "trec_perlcode.h"
#include "trec_types.h"
#include "perl_types.h"

struct entry {
	uint8_t *payload; /* owned copy; code's strings point into it */
	char *function;
	struct trec_perlcode code;
};

struct trec_perlframes {
	struct rp_codes *by_cop; /* statement address -> descriptions */
};

static void free_entry(void *desc)
{
	struct entry *e = desc;

	free(e->payload);
	free(e->function);
	free(e);
}

struct trec_perlframes *trec_perlframes_new(void)
{
	struct trec_perlframes *s = xcalloc(1, sizeof(*s));

	s->by_cop = rp_codes_new(free_entry);
	return s;
}

void trec_perlframes_free(struct trec_perlframes *s)
{
	if (!s)
		return;
	rp_codes_free(s->by_cop);
	free(s);
}

/* The name caller() would give: Package::sub, or <main>. */
static char *function_of(const struct trec_perlcode *c)
{
	size_t n = (size_t)c->package_len + c->name_len + 8;
	char *f = xmalloc(n);

	if (!c->name_len)
		snprintf(f, n, "<main>");
	else if (!c->package_len)
		snprintf(f, n, "%s", c->name);
	else
		snprintf(f, n, "%s::%s", c->package, c->name);
	return f;
}

int trec_perlframes_add(struct trec_perlframes *s, const struct trec_blob *b)
{
	struct entry *e;

	if (b->subtype != TREC_PERLCODE_SUBTYPE || (b->len && !b->data))
		return -EBADMSG;
	e = xcalloc(1, sizeof(*e));
	e->payload = rp_codes_copy_payload(b);
	if (trec_perlcode_decode(e->payload, b->len, &e->code) || e->code.cop_addr != b->file_id ||
	    (e->code.line & 0xffff) != e->code.key >> TREC_PERL_LINE_SHIFT) {
		free_entry(e);
		return -EBADMSG;
	}
	e->function = function_of(&e->code);
	rp_codes_add(s->by_cop, e->code.cop_addr, e->code.pid, e->code.key, e);
	return 0;
}

int trec_perlframes_lookup(const struct trec_perlframes *s, uint32_t pid,
			   const struct trec_rec_frame *f, struct rp_interp_sym *out)
{
	/* Same pid, statement and key; else from another pid (a fork shares
	 * its parent's code). */
	const struct entry *e = s ? rp_codes_find(s->by_cop, pid, f->file_id, f->addr, false) : NULL;

	if (!e)
		return -ENOENT;
	out->function = e->function;
	out->file = e->code.file;
	out->line = e->code.line > 0x7fffffff ? -1 : (int)e->code.line;
	return 0;
}

int trec_perlframes_format(const struct trec_perlframes *s, uint32_t pid,
			   const struct trec_rec_frame *f, char *buf, size_t len)
{
	struct rp_interp_sym sym;
	int err = trec_perlframes_lookup(s, pid, f, &sym);

	return rp_interp_label(buf, len, "perl", f->file_id, err ? NULL : &sym, NULL);
}

/* ---- the interpreter backend ---------------------------------------------- */

static void *pl_new_store(void)
{
	return trec_perlframes_new();
}

static void pl_free_store(void *store)
{
	trec_perlframes_free(store);
}

static int pl_add(void *store, const struct trec_blob *b)
{
	return trec_perlframes_add(store, b);
}

static int pl_lookup(const void *store, uint32_t pid, const struct trec_rec_frame *f,
		     struct rp_interp_sym *out)
{
	return trec_perlframes_lookup(store, pid, f, out);
}

static int pl_format(const void *store, uint32_t pid, const struct trec_rec_frame *f, char *buf,
		     size_t len)
{
	return trec_perlframes_format(store, pid, f, buf, len);
}

const struct rp_interp_ops rp_perl_interp = {
	.name = "perl",
	.frame_kind = TREC_FRAME_PERL,
	.record_type = TREC_REC_INTERP_CODE,
	.subtype = TREC_PERLCODE_SUBTYPE,
	.new_store = pl_new_store,
	.free_store = pl_free_store,
	.add = pl_add,
	.lookup = pl_lookup,
	.format = pl_format,
};
