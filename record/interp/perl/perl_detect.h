/* SPDX-License-Identifier: MIT */
/*
 * Finds a Perl 5 interpreter in an ELF file (the perl binary, which links
 * the interpreter in on Debian, or a libperl.so an embedder maps) from its
 * own dynamic symbols: the run loop Perl_runops_standard (the BPF side
 * hands pcs in it to the Perl unwinder), PL_thr_key (the pthread key of
 * the thread's interpreter) and the version bytes PL_revision,
 * PL_version, PL_subversion, which pick the offsets table row.
 */
#ifndef TREC_PERL_DETECT_H
#define TREC_PERL_DETECT_H

#include <stddef.h>
#include <stdint.h>
#include "record/interp/perl/perl_offsets.h"
#include "record/interp/python/python_tsd.h"
#include "trec_types.h"

struct trec_perl_file {
	uint64_t runops_start, runops_end; /* ELF vaddrs */
	uint64_t thr_key;                  /* ELF vaddr of PL_thr_key */
	uint64_t pp_sort;                  /* ELF vaddr of Perl_pp_sort, 0 if none */
	unsigned revision, version, subversion;
	const struct trec_perl_offsets *off;
};

/* 0: a Perl we can unwind; -ENOENT: not Perl; -ENOTSUP: a Perl we
 * cannot unwind (err says why); other negative errno: unreadable. */
int trec_perl_detect(const char *path, struct trec_perl_file *out, char *err, size_t errlen);

/* interpreter_offsets value of the file. */
void trec_perl_offset_range(const struct trec_perl_file *f, struct trec_offset_range *r);

/* perl_procs value of a process mapping the file at bias, with its libc's
 * TSD layout. */
void trec_perl_proc_info_init(const struct trec_perl_file *f, uint64_t bias,
			      const struct trec_tsd_info *tsd, struct trec_perl_proc_info *info);

#endif /* TREC_PERL_DETECT_H */
