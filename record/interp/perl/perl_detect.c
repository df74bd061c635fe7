// SPDX-License-Identifier: MIT
/* Perl interpreter detection; see perl_detect.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "record/interp/perl/perl_detect.h"
#include "record/interp/python/python_elf.h"

/* The BPF walker reads a context entry's first TREC_PERL_CX_READ bytes
 * and SV heads of TREC_PERL_SV_READ bytes with fixed field places. */
static int row_fits_bpf(const struct trec_perl_proc_info *b)
{
	const uint16_t words[] = { b->cx_oldcop, b->cx_sub_cv, b->cx_sub_retop };

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (words[i] % 8 || words[i] + 8 > TREC_PERL_CX_READ)
			return 0;
	return b->cx_type < TREC_PERL_CX_READ && b->sv_any == 0 && b->sv_flags == 12 &&
	       b->sv_u == 16 && b->cx_size >= TREC_PERL_CX_READ;
}

int trec_perl_detect(const char *path, struct trec_perl_file *out, char *err, size_t errlen)
{
	struct trec_pyelf e;
	uint64_t size, rev, ver, sub;
	uint8_t v[3];
	int ret;

	memset(out, 0, sizeof(*out));
	ret = trec_pyelf_open(&e, path);
	if (ret)
		return ret == -ENOEXEC ? -ENOENT : ret;
	if (trec_pyelf_symbol(&e, "Perl_runops_standard", &out->runops_start, &size) ||
	    trec_pyelf_symbol(&e, "PL_revision", &rev, NULL) ||
	    trec_pyelf_symbol(&e, "PL_version", &ver, NULL) ||
	    trec_pyelf_symbol(&e, "PL_subversion", &sub, NULL)) {
		ret = -ENOENT;
		goto out;
	}
	ret = -ENOTSUP;
	if (trec_pyelf_read(&e, rev, &v[0], 1) || trec_pyelf_read(&e, ver, &v[1], 1) ||
	    trec_pyelf_read(&e, sub, &v[2], 1)) {
		snprintf(err, errlen, "%s: version bytes not readable", path);
		goto out;
	}
	out->revision = v[0];
	out->version = v[1];
	out->subversion = v[2];
	out->runops_end = out->runops_start + size;
	if (!size || !trec_pyelf_is_text(&e, out->runops_start)) {
		snprintf(err, errlen, "%s: Perl_runops_standard is not code", path);
		goto out;
	}
	if (trec_pyelf_symbol(&e, "PL_thr_key", &out->thr_key, NULL)) {
		snprintf(err, errlen, "%s: perl %u.%u.%u without ithreads (no PL_thr_key)", path,
			 v[0], v[1], v[2]);
		goto out;
	}
	if (trec_pyelf_symbol(&e, "Perl_pp_sort", &out->pp_sort, NULL))
		out->pp_sort = 0;
	out->off = trec_perl_offsets_for(v[0], v[1]);
	if (!out->off || !row_fits_bpf(&out->off->bpf)) {
		snprintf(err, errlen, "%s: perl %u.%u.%u is not in the offsets table", path, v[0],
			 v[1], v[2]);
		goto out;
	}
	ret = 0;
out:
	trec_pyelf_close(&e);
	return ret;
}

void trec_perl_offset_range(const struct trec_perl_file *f, struct trec_offset_range *r)
{
	memset(r, 0, sizeof(*r));
	r->lower1 = f->runops_start;
	r->upper1 = f->runops_end;
	r->program_index = TREC_PROG_UNWIND_PERL;
}

void trec_perl_proc_info_init(const struct trec_perl_file *f, uint64_t bias,
			      const struct trec_tsd_info *tsd, struct trec_perl_proc_info *info)
{
	*info = f->off->bpf;
	info->thr_key_addr = f->thr_key + bias;
	info->pp_sort_addr = f->pp_sort ? f->pp_sort + bias : 0;
	info->tsd_offset = tsd->offset;
	info->tsd_multiplier = tsd->multiplier;
	info->tsd_indirect = tsd->indirect;
}
