// SPDX-License-Identifier: MIT
/* Perl frame descriptions; see perl_code.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include "record/interp/interp_read.h"
#include "record/interp/perl/perl_code.h"

struct mem {
	trec_perl_read_fn read;
	void *ctx;
};

static int rd(const struct mem *m, uint64_t addr, void *buf, size_t len)
{
	if (!addr)
		return -EFAULT;
	return m->read(m->ctx, addr, buf, len);
}

static int rd_ptr(const struct mem *m, uint64_t addr, uint64_t *v)
{
	return rd(m, addr, v, sizeof(*v));
}

/* The bytes as a string of their own: NULs inside become '?'. */
static char *own(const char *b, uint32_t n)
{
	char *s = malloc((size_t)n + 1);

	if (!s)
		return NULL;
	for (uint32_t i = 0; i < n; i++)
		s[i] = b[i] ? b[i] : '?';
	s[n] = 0;
	return s;
}

/* A C string at addr, cut at TREC_PERLCODE_MAX_STR bytes. Read page by
 * page: the string may end just before unmapped memory. */
static int read_cstr(const struct mem *m, uint64_t addr, char **out)
{
	char buf[TREC_PERLCODE_MAX_STR];
	size_t n = 0;

	while (n < sizeof(buf)) {
		size_t chunk = 4096 - ((addr + n) & 4095);
		char *nul;
		int err;

		if (chunk > sizeof(buf) - n)
			chunk = sizeof(buf) - n;
		if ((err = rd(m, addr + n, buf + n, chunk)))
			return err;
		nul = memchr(buf + n, 0, chunk);
		if (nul) {
			n = (size_t)(nul - buf);
			break;
		}
		n += chunk;
	}
	*out = own(buf, (uint32_t)n);
	return *out ? 0 : -ENOMEM;
}

/* A shared-string HEK: i32 length, then the bytes. */
static int read_hek(const struct mem *m, const struct trec_perl_offsets *o, uint64_t hek,
		    char **out)
{
	char buf[TREC_PERLCODE_MAX_STR];
	int32_t len;
	int err;

	if ((err = rd(m, hek + o->hek_len, &len, sizeof(len))))
		return err;
	if (len < 0 || len > TREC_PERLCODE_MAX_STR)
		return -EINVAL;
	if (len && (err = rd(m, hek + o->hek_key, buf, (size_t)len)))
		return err;
	*out = own(buf, (uint32_t)len);
	return *out ? 0 : -ENOMEM;
}

/* sv_any and sv_flags of an SV whose type must be `type`. */
static int read_sv(const struct mem *m, const struct trec_perl_offsets *o, uint64_t sv,
		   unsigned type, uint64_t *any, uint32_t *flags)
{
	int err;

	if ((err = rd_ptr(m, sv + o->bpf.sv_any, any)) ||
	    (err = rd(m, sv + o->bpf.sv_flags, flags, sizeof(*flags))))
		return err;
	return (*flags & TREC_PERL_SVt_MASK) == type && *any ? 0 : -EINVAL;
}

/* A package's name (HvNAME): the first of its names. */
static int read_stash_name(const struct mem *m, const struct trec_perl_offsets *o, uint64_t hv,
			   char **out)
{
	uint64_t any, aux, name;
	uint32_t flags;
	int32_t count;
	int err;

	if ((err = read_sv(m, o, hv, TREC_PERL_SVt_PVHV, &any, &flags)))
		return err;
	if (!(flags & TREC_PERL_SVf_OOK))
		return -EINVAL; /* a hash without a name */
	aux = any + o->xhv_aux;
	if ((err = rd(m, aux + o->aux_name_count, &count, sizeof(count))) ||
	    (err = rd_ptr(m, aux + o->aux_name, &name)))
		return err;
	if (count && (err = rd_ptr(m, name, &name)))
		return err; /* a HEK * array: the name first */
	return read_hek(m, o, name, out);
}

/* Package and name of the sub behind a handle (bpf/perl_types.h). */
static int read_sub(const struct mem *m, const struct trec_perl_offsets *o, uint64_t handle,
		    char **package, char **name)
{
	uint64_t any, hek, stash;
	uint32_t flags;
	int err;

	if (handle & TREC_PERL_HANDLE_CV) {
		uint32_t cvflags;

		if ((err = read_sv(m, o, handle & ~TREC_PERL_HANDLE_CV, TREC_PERL_SVt_PVCV, &any,
				   &flags)) ||
		    (err = rd(m, any + o->bpf.xcv_flags, &cvflags, sizeof(cvflags))))
			return err;
		if (!(cvflags & TREC_PERL_CVf_NAMED))
			return -EINVAL;
		if ((err = rd_ptr(m, any + o->bpf.xcv_gv, &hek)) ||
		    (err = rd_ptr(m, any + o->xcv_stash, &stash)))
			return err;
	} else {
		if ((err = read_sv(m, o, handle, TREC_PERL_SVt_PVGV, &any, &flags)) ||
		    (err = rd_ptr(m, any + o->xgv_namehek, &hek)) ||
		    (err = rd_ptr(m, any + o->xgv_stash, &stash)))
			return err;
	}
	if ((err = read_hek(m, o, hek, name)))
		return err;
	/* A sub of a package that is gone keeps its name. */
	if (!stash || read_stash_name(m, o, stash, package))
		*package = own("", 0);
	return *package ? 0 : -ENOMEM;
}

static void fill_lens(struct trec_perlcode_owned *out)
{
	out->c.package = out->package;
	out->c.name = out->name;
	out->c.file = out->file;
	out->c.package_len = (uint32_t)strlen(out->package);
	out->c.name_len = (uint32_t)strlen(out->name);
	out->c.file_len = (uint32_t)strlen(out->file);
}

int trec_perl_read_code_from(trec_perl_read_fn read, void *ctx, uint32_t pid,
			     const struct trec_perl_offsets *off, uint64_t cop, uint64_t key,
			     struct trec_perlcode_owned *out)
{
	const struct mem m = { read, ctx };
	uint64_t handle = key & TREC_PERL_HANDLE_MASK, file;
	uint32_t line;
	int err;

	memset(out, 0, sizeof(*out));
	if ((err = rd(&m, cop + off->bpf.cop_line, &line, sizeof(line))) ||
	    (err = rd_ptr(&m, cop + off->cop_file, &file)))
		return err;
	if ((line & 0xffff) != key >> TREC_PERL_LINE_SHIFT)
		return -ESTALE;
	if ((err = read_cstr(&m, file, &out->file)))
		goto fail;
	if (handle)
		err = read_sub(&m, off, handle, &out->package, &out->name);
	else if (!(out->package = own("", 0)) || !(out->name = own("", 0)))
		err = -ENOMEM;
	if (err)
		goto fail;
	out->c.pid = pid;
	out->c.cop_addr = cop;
	out->c.key = key;
	out->c.line = line;
	fill_lens(out);
	return 0;
fail:
	trec_perlcode_owned_free(out);
	return err;
}

int trec_perl_read_code(uint32_t pid, const struct trec_perl_offsets *off, uint64_t cop,
			uint64_t key, struct trec_perlcode_owned *out)
{
	return trec_perl_read_code_from(trec_interp_read_pid, &pid, pid, off, cop, key, out);
}

void trec_perlcode_owned_free(struct trec_perlcode_owned *c)
{
	free(c->package);
	free(c->name);
	free(c->file);
	memset(c, 0, sizeof(*c));
}
