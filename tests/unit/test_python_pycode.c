// SPDX-License-Identifier: MIT
/*
 * PYCODE payloads (format/trec_pycode.c) and the treport-side store
 * (report/interp/python/python_frames.c): round trip, every truncation and bit flip of a
 * payload handled without a crash, object-id matching rules, naming.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report/interp/python/python_frames.h"
#include "trec_pycode.h"
#include "python_check.h"

/* def f(): at line 10, one 3-unit entry on line 11 then 2 units on 12
 * (code 13 entries: svarint line deltas +1, +1). */
static const uint8_t linetable[] = { 0x80 | 13 << 3 | 2, 2, 0x80 | 13 << 3 | 1, 2 };

static struct trec_pycode sample(uint32_t pid, uint64_t addr, uint32_t id, const char *qual)
{
	struct trec_pycode c = {
		.pid = pid, .code_addr = addr, .object_id = id, .firstlineno = 10,
		.py_major = 3, .py_minor = 11,
		.filename = "/srv/app/mod.py", .name = "f", .qualname = qual,
		.linetable = linetable, .linetable_len = sizeof(linetable),
	};

	c.filename_len = (uint32_t)strlen(c.filename);
	c.name_len = 1;
	c.qualname_len = (uint32_t)strlen(qual);
	return c;
}

static int add(struct trec_pyframes *s, const struct trec_pycode *c)
{
	struct trec_blob b = { c->code_addr, TREC_PYCODE_SUBTYPE_V1, 0, NULL };
	uint8_t *buf;
	size_t len;
	int err = trec_pycode_encode(c, &buf, &len);

	if (err)
		return err;
	b.len = (uint32_t)len;
	b.data = buf;
	err = trec_pyframes_add(s, &b);
	free(buf);
	return err;
}

static struct trec_rec_frame pyframe(uint64_t addr, int32_t lasti, uint32_t id)
{
	struct trec_rec_frame f = { addr, (uint64_t)(uint32_t)lasti << 32 | id, 1, 4 };

	return f;
}

static void round_trip(void)
{
	struct trec_pycode c = sample(42, 0x7f0000001230, 0xabcdef, "C.f"), d;
	uint8_t *buf;
	size_t len;
	int ok;

	ok = !trec_pycode_encode(&c, &buf, &len) && !trec_pycode_decode(buf, len, &d) &&
	     d.pid == 42 && d.code_addr == c.code_addr && d.object_id == c.object_id &&
	     d.firstlineno == 10 && d.py_major == 3 && d.py_minor == 11 &&
	     !strcmp(d.filename, c.filename) && !strcmp(d.name, "f") && !strcmp(d.qualname, "C.f") &&
	     d.linetable_len == sizeof(linetable) && !memcmp(d.linetable, linetable, sizeof(linetable));
	CHECK(ok, "payload round trip");

	ok = 1;
	for (size_t n = 0; n < len; n++)
		ok &= trec_pycode_decode(buf, n, &d) == -EBADMSG;
	CHECK(ok, "every truncation of a payload is rejected");

	for (size_t i = 0; i < len; i++)
		for (int bit = 0; bit < 8; bit++) {
			buf[i] ^= (uint8_t)(1 << bit);
			if (!trec_pycode_decode(buf, len, &d))
				ok &= d.filename[d.filename_len] == 0 && d.name[d.name_len] == 0 &&
				      d.qualname[d.qualname_len] == 0 &&
				      d.linetable + d.linetable_len == buf + len;
			buf[i] ^= (uint8_t)(1 << bit);
		}
	CHECK(ok, "bit-flipped payloads decode to in-bounds, terminated fields or are rejected");
	free(buf);

	c.qualname_len = TREC_PYCODE_MAX_STR + 1;
	CHECK(trec_pycode_encode(&c, &buf, &len) == -EINVAL, "encoder refuses oversized strings");
}

static void store(void)
{
	struct trec_pyframes *s = trec_pyframes_new();
	struct trec_pycode a = sample(100, 0x1000, 7, "Walker.run");
	struct trec_pycode b = sample(100, 0x2000, 9, "");
	struct trec_pyframe_sym sym;
	struct trec_rec_frame f;
	struct trec_blob junk = { 0x3000, TREC_PYCODE_SUBTYPE_V1, 3, (const uint8_t *)"abc" };
	struct trec_blob wrong_sub = { 0x3000, 99, 0, NULL };
	char name[128];

	CHECK(s && !add(s, &a) && !add(s, &b), "store accepts payloads");
	CHECK(trec_pyframes_add(s, &junk) == -EBADMSG && trec_pyframes_add(s, &wrong_sub) == -EBADMSG,
	      "store rejects malformed payloads and unknown subtypes");

	f = pyframe(0x1000, 0, 7);
	CHECK(!trec_pyframes_lookup(s, 100, &f, &sym) && !strcmp(sym.function, "Walker.run") &&
	      sym.line == 11, "exact match, first entry's line");
	f = pyframe(0x1000, 4, 7);
	CHECK(!trec_pyframes_lookup(s, 100, &f, &sym) && sym.line == 12, "second entry's line");
	f = pyframe(0x1000, -1, 7);
	CHECK(!trec_pyframes_lookup(s, 100, &f, &sym) && sym.line == 10, "lasti -1: first line");
	f = pyframe(0x1000, 9, 7);
	trec_pyframes_format(s, 100, &f, name, sizeof(name));
	CHECK(!strcmp(name, "Walker.run (mod.py:?)"), "past the table: unknown line (%s)", name);
	f = pyframe(0x1000, 0, 8);
	CHECK(trec_pyframes_lookup(s, 100, &f, &sym) == -ENOENT, "other object id at the address: unknown");
	f = pyframe(0x1000, 0, 0);
	CHECK(!trec_pyframes_lookup(s, 100, &f, &sym), "object id 0 (unread in BPF) matches by address");
	f = pyframe(0x1000, 0, 7);
	CHECK(!trec_pyframes_lookup(s, 101, &f, &sym), "same object in another pid (fork) matches");
	f = pyframe(0x1000, 0, 0);
	CHECK(trec_pyframes_lookup(s, 101, &f, &sym) == -ENOENT, "id 0 never matches across pids");
	f = pyframe(0x2000, 0, 9);
	trec_pyframes_format(s, 100, &f, name, sizeof(name));
	CHECK(!strcmp(name, "f (mod.py:11)"), "empty qualname falls back to name (%s)", name);
	f = pyframe(0x5000, 0, 1);
	trec_pyframes_format(s, 100, &f, name, sizeof(name));
	CHECK(!strcmp(name, "[python 0x5000]"), "unknown code object (%s)", name);

	/* Enough entries to grow the table; all still found. */
	int all = 1;
	for (uint64_t i = 0; i < 5000; i++) {
		struct trec_pycode c = sample(7, 0x100000 + i * 0x40, (uint32_t)i + 1, "g");

		all &= !add(s, &c);
	}
	for (uint64_t i = 0; i < 5000; i++) {
		f = pyframe(0x100000 + i * 0x40, 0, (uint32_t)i + 1);
		all &= !trec_pyframes_lookup(s, 7, &f, &sym);
	}
	CHECK(all, "5000 code objects stored and found");
	trec_pyframes_free(s);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	round_trip();
	store();
	return failures ? 1 : 0;
}
