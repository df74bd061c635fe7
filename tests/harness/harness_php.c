// SPDX-License-Identifier: MIT
/* The PHP part of a harness case; see harness_php.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "record/interp/interp_read.h"
#include "harness_php.h"
#include "harness_verdict.h"
#include "record/interp/php/php_code.h"
#include "record/interp/php/php_detect.h"
#include "report/interp/php/php_frames.h"

struct harness_php {
	struct harness_env *env;
	const struct trec_php_layout *layout;
	struct trec_php_engine engine;
	uint64_t bias;
	void *store; /* INTERP_CODE records, as treport holds them */
};

struct harness_php *harness_php_new(struct harness_env *env)
{
	struct harness_php *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->env = env;
	p->store = rp_php_interp.new_store();
	return p;
}

void harness_php_free(struct harness_php *p)
{
	if (!p)
		return;
	rp_php_interp.free_store(p->store);
	free(p);
}

int harness_php_mapping(struct harness_php *p, uint32_t pid, uint64_t file_id, const char *path,
			uint64_t bias)
{
	struct harness_env *e = p->env;
	struct trec_php_engine engine;
	int err;

	if (e->num_php_procs)
		return 0; /* one engine per process */
	err = trec_php_detect(path, &engine, NULL, 0);
	if (err)
		return err == -ENOENT ? 0 : err;
	if (e->num_py_ranges == HARNESS_MAX_PY)
		return -ENOSPC;
	e->py_ranges[e->num_py_ranges].file_id = file_id;
	trec_php_offset_range(&engine, &e->py_ranges[e->num_py_ranges++].r);
	e->php_procs[0].pid = pid;
	trec_php_proc_info_init(&engine, bias, &e->php_procs[0].info);
	e->num_php_procs = 1;
	p->layout = engine.layout;
	p->engine = engine;
	p->bias = bias;
	return 0;
}

bool harness_php_found(const struct harness_php *p)
{
	return p->env->num_php_procs > 0;
}

static int read_captured(void *ctx, uint64_t addr, void *buf, size_t len)
{
	return harness_read(ctx, addr, buf, len);
}

/* trecord's INTERP_CODE record for one frame's function, into the store. */
static int describe(struct harness_php *p, uint32_t pid, const struct trec_frame *f, bool live)
{
	struct trec_blob blob = { .file_id = f->file_id, .subtype = TREC_PHPCODE_SUBTYPE };
	struct trec_phpcode_owned fn;
	int ipid = (int)pid, err;
	uint8_t *buf;
	size_t len;

	err = live ? trec_php_read_function(trec_interp_read_pid, &ipid, pid, p->layout, f->file_id, &fn)
		   : trec_php_read_function(read_captured, p->env, pid, p->layout, f->file_id, &fn);
	if (err)
		return err;
	if (fn.c.object_id != (uint32_t)f->addr_or_line)
		err = -ESTALE; /* not the function BPF saw */
	if (!err)
		err = trec_phpcode_encode(&fn.c, &buf, &len);
	trec_phpcode_owned_free(&fn);
	if (err)
		return err;
	blob.len = (uint32_t)len;
	blob.data = buf;
	err = rp_php_interp.add(p->store, &blob);
	free(buf);
	return err;
}

static int lookup(const void *ctx, uint32_t pid, const struct trec_frame *f,
		  struct rp_interp_sym *sym)
{
	const struct harness_php *p = ctx;
	struct trec_rec_frame rf = { f->file_id, f->addr_or_line, f->kind, f->flags };

	return rp_php_interp.lookup(p->store, pid, &rf, sym);
}

/* gdb's frame i is the VM loop: execute_ex, or its .cold part, which a
 * stripped binary has no name for (gdb says "??"). */
static bool is_loop_frame(const void *ctx, const struct harness_case *c, size_t i)
{
	const struct harness_php *p = ctx;
	uint64_t vaddr = c->frames[i].pc - (i ? 1 : 0) - p->bias;

	return strcmp(c->frames[i].name, "execute_ex") == 0 ||
	       (strcmp(c->frames[i].name, "??") == 0 && vaddr >= p->engine.cold_start &&
		vaddr < p->engine.cold_end);
}

bool harness_php_verdict(struct harness_php *p, const struct harness_case *c, const char *name,
			 const struct harness_iframe *php, size_t nphp, size_t ng, bool live)
{
	const struct harness_lang l = { "php", "PHP", "execute_ex", lookup, is_loop_frame, p };
	const char *why = NULL;
	size_t runs = 0;

	if (!harness_php_found(p))
		why = "no Zend engine found in the maps";
	for (size_t i = 0; i < nphp && !why; i++)
		if (describe(p, c->pid, php[i].f, live))
			why = "a PHP function could not be read";
	if (!why)
		why = harness_runs_verdict(&l, c, php, nphp, ng, &runs);
	harness_say_verdict(&l, name, why, nphp, runs, "functions read", live);
	harness_print_iframes(&l, c, php, nphp, ng);
	if (why)
		harness_print_script_stack(c);
	return !why;
}
