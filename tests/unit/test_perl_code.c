// SPDX-License-Identifier: MIT
/*
 * Perl frame descriptions end to end without a process: the reader
 * (record/interp/perl/perl_code.c) over a fake address space laid out as
 * Perl 5.36 lays out a COP, GVs, CVs, HEKs and stashes; the INTERP_CODE
 * payload (format/trec_perlcode.c), every truncation and bit flip handled;
 * treport's store (report/interp/perl/perl_frames.c): matching by pid,
 * statement and key, naming, the fork fallback.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "record/interp/interp_seen.h"
#include "record/interp/perl/perl_code.h"
#include "report/interp/perl/perl_frames.h"
#include "trec_perlcode.h"
#include "trec_types.h"
#include "python_check.h"

/* ---- a fake address space ------------------------------------------------ */

#define BASE 0x7f0000010000ull
static uint8_t mem[8192];

static int fake_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	(void)ctx;
	if (addr < BASE || addr - BASE > sizeof(mem) || len > sizeof(mem) - (addr - BASE))
		return -EFAULT;
	memcpy(buf, mem + (addr - BASE), len);
	return 0;
}

static void put64(uint64_t at, uint64_t v) { memcpy(mem + (at - BASE), &v, 8); }
static void put32(uint64_t at, uint32_t v) { memcpy(mem + (at - BASE), &v, 4); }

static void put_hek(uint64_t at, const char *s)
{
	put32(at + 4, (uint32_t)strlen(s));
	memcpy(mem + (at + 8 - BASE), s, strlen(s) + 1);
}

/* Addresses in the fake space. */
enum {
	COP = 0x100, FILE_STR = 0x200, GV = 0x300, XPVGV = 0x340, NAME_HEK = 0x400,
	STASH = 0x500, XPVHV = 0x540, STASH_HEK = 0x600, CV = 0x700, XPVCV = 0x740,
	CV_HEK = 0x800, MAIN_STASH = 0x900, MAIN_XPVHV = 0x940, MAIN_HEK = 0xa00,
};
#define A(x) (BASE + (x))

static const struct trec_perl_offsets *off;

static void build_space(void)
{
	memset(mem, 0, sizeof(mem));
	put32(A(COP) + off->bpf.cop_line, 70123); /* > 65535: the guard keeps 16 bits */
	put64(A(COP) + off->cop_file, A(FILE_STR));
	strcpy((char *)mem + FILE_STR, "/srv/app/lib/Worker.pm");
	/* GV Worker::run */
	put64(A(GV), A(XPVGV));
	put32(A(GV) + 12, TREC_PERL_SVt_PVGV | TREC_PERL_SVpgv_GP);
	put64(A(XPVGV) + off->xgv_namehek, A(NAME_HEK));
	put64(A(XPVGV) + off->xgv_stash, A(STASH));
	put_hek(A(NAME_HEK), "run");
	put64(A(STASH), A(XPVHV));
	put32(A(STASH) + 12, TREC_PERL_SVt_PVHV | TREC_PERL_SVf_OOK);
	put64(A(XPVHV) + off->xhv_aux + off->aux_name, A(STASH_HEK));
	put_hek(A(STASH_HEK), "Worker");
	/* a CvNAMED sub main::descend */
	put64(A(CV), A(XPVCV));
	put32(A(CV) + 12, TREC_PERL_SVt_PVCV);
	put32(A(XPVCV) + off->bpf.xcv_flags, TREC_PERL_CVf_NAMED);
	put64(A(XPVCV) + off->bpf.xcv_gv, A(CV_HEK));
	put64(A(XPVCV) + off->xcv_stash, A(MAIN_STASH));
	put_hek(A(CV_HEK), "descend");
	put64(A(MAIN_STASH), A(MAIN_XPVHV));
	put32(A(MAIN_STASH) + 12, TREC_PERL_SVt_PVHV | TREC_PERL_SVf_OOK);
	put64(A(MAIN_XPVHV) + off->xhv_aux + off->aux_name, A(MAIN_HEK));
	put_hek(A(MAIN_HEK), "main");
}

static uint64_t key(uint64_t handle, uint32_t line)
{
	return (uint64_t)(line & 0xffff) << TREC_PERL_LINE_SHIFT | handle;
}

static int read_code(uint64_t handle, uint32_t line, struct trec_perlcode_owned *o)
{
	return trec_perl_read_code_from(fake_read, NULL, 42, off, A(COP), key(handle, line), o);
}

static void reader(void)
{
	struct trec_perlcode_owned o;
	int err;

	build_space();
	err = read_code(A(GV), 70123, &o);
	CHECK(!err && !strcmp(o.c.package, "Worker") && !strcmp(o.c.name, "run") &&
		      !strcmp(o.c.file, "/srv/app/lib/Worker.pm") && o.c.line == 70123 &&
		      o.c.cop_addr == A(COP) && o.c.pid == 42,
	      "a GV handle reads as package Worker, sub run, the COP's file and line (%d)", err);
	trec_perlcode_owned_free(&o);
	err = read_code(A(CV) | TREC_PERL_HANDLE_CV, 70123, &o);
	CHECK(!err && !strcmp(o.c.package, "main") && !strcmp(o.c.name, "descend"),
	      "a CvNAMED handle reads its name HEK and CvSTASH (%d)", err);
	trec_perlcode_owned_free(&o);
	err = read_code(0, 70123, &o);
	CHECK(!err && !o.c.package_len && !o.c.name_len, "handle 0 is the main program (%d)", err);
	trec_perlcode_owned_free(&o);
	CHECK(read_code(A(GV), 70124, &o) == -ESTALE, "a line guard that differs is -ESTALE");
	CHECK(read_code(A(CV), 70123, &o) == -EINVAL, "a CV read as a GV is refused");
	put32(A(NAME_HEK) + 4, 1u << 30);
	CHECK(read_code(A(GV), 70123, &o) == -EINVAL, "a HEK longer than the format allows is refused");
	build_space();
	put64(A(COP) + off->cop_file, BASE + sizeof(mem) - 3);
	memset(mem + sizeof(mem) - 3, 'x', 3);
	CHECK(read_code(A(GV), 70123, &o) == -EFAULT, "a file name running off readable memory fails");
	CHECK(trec_perl_read_code_from(fake_read, NULL, 42, off, 0x10, key(A(GV), 1), &o) == -EFAULT,
	      "an unreadable COP fails");
}

/* ---- payload and store ---------------------------------------------------- */

static struct trec_perlcode sample(uint32_t pid, uint64_t cop, uint64_t k, const char *pkg,
				   const char *name)
{
	struct trec_perlcode c = { .pid = pid, .cop_addr = cop, .key = k, .line = 70123,
				   .package = pkg, .name = name, .file = "/srv/app/x.pl" };

	c.package_len = (uint32_t)strlen(pkg);
	c.name_len = (uint32_t)strlen(name);
	c.file_len = (uint32_t)strlen(c.file);
	return c;
}

static int add(struct trec_perlframes *s, const struct trec_perlcode *c)
{
	struct trec_blob b = { c->cop_addr, TREC_PERLCODE_SUBTYPE, 0, NULL };
	uint8_t *buf;
	size_t len;
	int err = trec_perlcode_encode(c, &buf, &len);

	if (err)
		return err;
	b.len = (uint32_t)len;
	b.data = buf;
	err = trec_perlframes_add(s, &b);
	free(buf);
	return err;
}

static void payload(void)
{
	struct trec_perlcode c = sample(7, 0x1000, key(0x2000, 70123), "Worker", "run"), d;
	uint8_t *buf, *mut;
	size_t len;
	int ok = 1;

	CHECK(!trec_perlcode_encode(&c, &buf, &len) && !trec_perlcode_decode(buf, len, &d) &&
		      d.pid == 7 && d.cop_addr == 0x1000 && d.key == c.key && d.line == 70123 &&
		      !strcmp(d.package, "Worker") && !strcmp(d.name, "run") &&
		      !strcmp(d.file, "/srv/app/x.pl"),
	      "payload round trip");
	for (size_t n = 0; n < len; n++)
		ok &= trec_perlcode_decode(buf, n, &d) == -EBADMSG;
	CHECK(ok, "every truncation of a payload is rejected");
	mut = malloc(len);
	ok = 1;
	for (size_t i = 0; i < len * 8; i++) {
		memcpy(mut, buf, len);
		mut[i / 8] ^= (uint8_t)(1u << (i % 8));
		if (trec_perlcode_decode(mut, len, &d) == 0)
			ok &= d.package[d.package_len] == 0 && d.name[d.name_len] == 0 &&
			      d.file[d.file_len] == 0 && d.file_len <= TREC_PERLCODE_MAX_STR;
	}
	CHECK(ok, "bit-flipped payloads decode to terminated fields or are rejected");
	free(mut);
	free(buf);
	c.name = "a\0b";
	c.name_len = 3;
	CHECK(trec_perlcode_encode(&c, &buf, &len) == -EINVAL, "a NUL inside a name is refused");
}

static void store(void)
{
	struct trec_perlframes *s = trec_perlframes_new();
	struct trec_perlcode c1 = sample(7, 0x1000, key(0x2000, 70123), "Worker", "run");
	struct trec_perlcode c2 = sample(7, 0x1000, key(0x3001, 70123), "", "");
	struct trec_perlcode bad = sample(7, 0x1000, key(0x2000, 5), "Worker", "run");
	struct trec_rec_frame f = { 0x1000, key(0x2000, 70123), TREC_FRAME_PERL, 4 };
	struct rp_interp_sym sym;
	char buf[128];

	CHECK(!add(s, &c1) && !add(s, &c2), "descriptions added");
	CHECK(add(s, &bad) == -EBADMSG, "a description whose line does not match its guard is malformed");
	CHECK(!trec_perlframes_lookup(s, 7, &f, &sym) && !strcmp(sym.function, "Worker::run") &&
		      sym.line == 70123,
	      "frame -> Worker::run at line 70123");
	trec_perlframes_format(s, 7, &f, buf, sizeof(buf));
	CHECK(!strcmp(buf, "Worker::run (x.pl:70123)"), "formatted as 'Worker::run (x.pl:70123)' (%s)",
	      buf);
	f.addr = key(0x3001, 70123);
	trec_perlframes_format(s, 7, &f, buf, sizeof(buf));
	CHECK(!strcmp(buf, "<main> (x.pl:70123)"), "the main program is <main> (%s)", buf);
	CHECK(!trec_perlframes_lookup(s, 8, &f, &sym), "a forked child finds its parent's description");
	f.addr = key(0x2000, 70124);
	CHECK(trec_perlframes_lookup(s, 7, &f, &sym) == -ENOENT, "another line guard does not match");
	trec_perlframes_format(s, 7, &f, buf, sizeof(buf));
	CHECK(!strcmp(buf, "[perl 0x1000]"), "an unknown frame is '[perl 0x...]' (%s)", buf);
	CHECK(trec_perlframes_lookup(NULL, 7, &f, &sym) == -ENOENT, "no store: -ENOENT");
	trec_perlframes_free(s);
}

static void seen(void)
{
	struct trec_interp_seen s = { 0 };
	int ok = 1;

	for (uint64_t i = 1; i <= 5000; i++)
		ok &= trec_interp_seen_note(&s, i * 16, i) == 0;
	for (uint64_t i = 1; i <= 5000; i++)
		ok &= trec_interp_seen_note(&s, i * 16, i) == 1 &&
		      trec_interp_seen_note(&s, i * 16, i + 1) == 0;
	CHECK(ok, "the seen set tells new (statement, key) pairs from known ones");
	CHECK(trec_interp_seen_note(&s, 0, 1) == 1, "no statement: nothing to describe");
	trec_interp_seen_clear(&s);
	CHECK(trec_interp_seen_note(&s, 16, 1) == 0, "cleared (exec): pairs are new again");
	trec_interp_seen_clear(&s);
}

int main(void)
{
	off = trec_perl_offsets_for(5, 36);
	CHECK(off != NULL, "perl 5.36 is in the offsets table");
	if (!off)
		return 1;
	reader();
	payload();
	store();
	seen();
	return failures ? 1 : 0;
}
