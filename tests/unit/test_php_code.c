// SPDX-License-Identifier: MIT
/*
 * PHP function descriptions end to end without a PHP process: a
 * zend_function laid out as PHP 8.2 has it (record/interp/php/php_layouts.c)
 * in this process's memory is read by record/interp/php/php_code.c
 * (through process_vm_readv on ourselves), written as an INTERP_CODE
 * payload (format/trec_phpcode.c) and named by treport's store
 * (report/interp/php/php_frames.c). Also: hostile payloads, the object
 * id guard, and the once-per-function rule.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "record/interp/interp_read.h"
#include "record/interp/php/php_code.h"
#include "report/interp/php/php_frames.h"
#include "python_check.h"

/* A zend_string: gc, h, len, val. */
struct zstr {
	uint64_t gc, h, len;
	char val[64];
};

static struct zstr zs(const char *s)
{
	struct zstr z = { 1, 0, strlen(s), "" };

	memcpy(z.val, s, z.len + 1);
	return z;
}

static struct zstr fn_name, file_name, class_name;
static uint8_t class_entry[64];
static uint8_t op_array[248], internal_fn[136];

static void put64(uint8_t *b, size_t off, uint64_t v)
{
	memcpy(b + off, &v, 8);
}

static void put32(uint8_t *b, size_t off, uint32_t v)
{
	memcpy(b + off, &v, 4);
}

/* Walker::run in /srv/app/chain.php, lines 35-45, 40 opcodes. */
static void build(const struct trec_php_layout *l)
{
	fn_name = zs("run");
	file_name = zs("/srv/app/chain.php");
	class_name = zs("Walker");
	put64(class_entry, l->class_name, (uint64_t)(uintptr_t)&class_name);
	op_array[0] = TREC_PHPCODE_USER;
	put64(op_array, l->fn_name, (uint64_t)(uintptr_t)&fn_name);
	put64(op_array, l->fn_scope, (uint64_t)(uintptr_t)class_entry);
	put32(op_array, l->op_last, 40);
	put64(op_array, l->op_opcodes, 0x123450);
	put64(op_array, l->op_filename, (uint64_t)(uintptr_t)&file_name);
	put32(op_array, l->op_line_start, 35);
	put32(op_array, l->op_line_end, 45);
	internal_fn[0] = TREC_PHPCODE_INTERNAL;
	put64(internal_fn, l->fn_name, (uint64_t)(uintptr_t)&fn_name);
}

struct sink {
	int n;
	struct trec_blob last;
	uint8_t buf[1024];
};

static int write_sink(void *ctx, enum trec_record_type type, const struct trec_blob *b)
{
	struct sink *s = ctx;

	if (type != TREC_REC_INTERP_CODE || b->len > sizeof(s->buf))
		return -EINVAL;
	memcpy(s->buf, b->data, b->len);
	s->last = *b;
	s->last.data = s->buf;
	s->n++;
	return 0;
}

static struct trec_rec_frame frame(uint64_t addr, uint32_t line, uint32_t id)
{
	return (struct trec_rec_frame){ addr, (uint64_t)line << 32 | id, TREC_FRAME_PHP, 4 };
}

static void hostile(const struct trec_blob *b)
{
	struct trec_phpcode d;
	uint8_t *p = malloc(b->len);
	int ok = 1;

	memcpy(p, b->data, b->len);
	for (size_t n = 0; n < b->len; n++)
		ok &= trec_phpcode_decode(p, n, &d) == -EBADMSG;
	CHECK(ok, "every truncation of a payload is rejected");
	for (size_t i = 0; i < b->len; i++)
		for (int bit = 0; bit < 8; bit++) {
			p[i] ^= (uint8_t)(1 << bit);
			if (!trec_phpcode_decode(p, b->len, &d))
				ok &= d.function[d.function_len] == 0 && d.class_name[d.class_len] == 0 &&
				      d.file[d.file_len] == 0 && d.file + d.file_len + 1 == (char *)p + b->len;
			p[i] ^= (uint8_t)(1 << bit);
		}
	CHECK(ok, "bit-flipped payloads decode to in-bounds, terminated fields or are rejected");
	free(p);
}

int main(void)
{
	const struct trec_php_layout *l = trec_php_layout_of(20220829);
	struct trec_interp_seen seen = { 0 };
	struct trec_phpcode_owned fn;
	struct sink sink = { 0 };
	uint64_t addr = (uint64_t)(uintptr_t)op_array;
	uint32_t pid = (uint32_t)getpid(), id;
	int self = (int)pid;
	struct rp_interp_sym sym;
	struct trec_rec_frame f;
	char label[256];
	void *store;

	setvbuf(stdout, NULL, _IOLBF, 0);
	CHECK(l && l->major == 8 && l->minor == 2, "PHP 8.2's module API is in the layout table");
	CHECK(!trec_php_layout_of(20200930), "an API not in the table has no layout");
	if (!l)
		return 1;
	build(l);

	CHECK(!trec_php_read_function(trec_interp_read_pid, &self, pid, l, addr, &fn) &&
	      fn.c.type == TREC_PHPCODE_USER && !strcmp(fn.c.function, "run") &&
	      !strcmp(fn.c.class_name, "Walker") && !strcmp(fn.c.file, "/srv/app/chain.php") &&
	      fn.c.line_start == 35 && fn.c.line_end == 45,
	      "a user function is read: name, class, file, lines");
	id = fn.c.object_id;
	CHECK(id == trec_php_object_id(TREC_PHPCODE_USER, 35, 45, (uintptr_t)&fn_name,
				       (uintptr_t)class_entry, (uintptr_t)&file_name, 0x123450),
	      "its object id is BPF's (php_types.h)");
	trec_phpcode_owned_free(&fn);

	CHECK(trec_phpcode_note(&seen, write_sink, &sink, pid, l, addr, id) == 1 &&
	      sink.n == 1 && sink.last.file_id == addr && sink.last.subtype == TREC_PHPCODE_SUBTYPE,
	      "one INTERP_CODE record is written for a new function");
	CHECK(trec_phpcode_note(&seen, write_sink, &sink, pid, l, addr, id) == 0 && sink.n == 1,
	      "and none the second time");
	CHECK(trec_phpcode_note(&seen, write_sink, &sink, pid, l, addr, id ^ 1) == -ESTALE,
	      "a function replaced since the sample is not described (stale)");
	trec_interp_seen_clear(&seen);
	CHECK(trec_phpcode_note(&seen, write_sink, &sink, pid, l, addr, id) == 1 && sink.n == 2,
	      "after the pid is forgotten (exec) it is described again");
	hostile(&sink.last);

	store = rp_php_interp.new_store();
	CHECK(!rp_php_interp.add(store, &sink.last), "treport's store takes the record");
	f = frame(addr, 41, id);
	CHECK(!rp_php_interp.lookup(store, pid, &f, &sym) && !strcmp(sym.function, "Walker::run") &&
	      !strcmp(sym.file, "/srv/app/chain.php") && sym.line == 41,
	      "a frame is named Class::method with the frame's own line");
	rp_php_interp.format(store, pid, &f, label, sizeof(label));
	CHECK(!strcmp(label, "Walker::run (chain.php:41)"), "formatted: %s", label);
	f = frame(addr, 41, id ^ 1);
	CHECK(rp_php_interp.lookup(store, pid, &f, &sym) == -ENOENT, "another object id: unknown");
	rp_php_interp.format(store, pid, &f, label, sizeof(label));
	CHECK(!strncmp(label, "[php 0x", 7), "unknown function formatted as %s", label);
	f = frame(addr, 41, id);
	CHECK(!rp_php_interp.lookup(store, pid + 1, &f, &sym), "same function in a forked pid");

	/* An internal function (usort) and the script's top level. */
	addr = (uint64_t)(uintptr_t)internal_fn;
	CHECK(trec_phpcode_note(&seen, write_sink, &sink, pid, l, addr, 0) == 1 &&
	      !rp_php_interp.add(store, &sink.last), "an internal function is described");
	f = frame(addr, 0, 0);
	rp_php_interp.format(store, pid, &f, label, sizeof(label));
	CHECK(!strcmp(label, "run ([internal])"), "internal: no file, no line (%s)", label);
	put64(op_array, l->fn_name, 0);
	put64(op_array, l->fn_scope, 0);
	addr = (uint64_t)(uintptr_t)op_array;
	trec_interp_seen_clear(&seen);
	CHECK(trec_phpcode_note(&seen, write_sink, &sink, pid, l, addr, 0) == 1 &&
	      !rp_php_interp.add(store, &sink.last), "the top-level code is described");
	f = frame(addr, 64, 0);
	rp_php_interp.format(store, pid, &f, label, sizeof(label));
	CHECK(!strcmp(label, "{main} (chain.php:64)"), "top level named as PHP does (%s)", label);

	op_array[0] = 9;
	trec_interp_seen_clear(&seen);
	CHECK(trec_phpcode_note(&seen, write_sink, &sink, pid, l, addr, 0) == -EINVAL,
	      "a function type PHP does not have is refused");
	CHECK(trec_phpcode_note(&seen, write_sink, &sink, pid, l, 8, 0) == -EFAULT,
	      "an unreadable address is refused");

	struct trec_blob junk = { 1, TREC_PHPCODE_SUBTYPE, 3, (const uint8_t *)"abc" };
	CHECK(rp_php_interp.add(store, &junk) == -EBADMSG, "the store rejects a malformed payload");
	struct trec_phpcode big = { .type = TREC_PHPCODE_USER, .function = "", .class_name = "",
				    .file = "", .function_len = TREC_PHPCODE_MAX_STR + 1 };
	uint8_t *buf;
	size_t len;
	CHECK(trec_phpcode_encode(&big, &buf, &len) == -EINVAL, "encoder refuses oversized strings");

	rp_php_interp.free_store(store);
	trec_interp_seen_clear(&seen);
	return failures ? 1 : 0;
}
