/* SPDX-License-Identifier: MIT */
/*
 * What a Perl frame names, read from a live process: for each (statement,
 * sub) pair a sample shows, trecord reads the statement's file and line
 * and the sub's package and name once, and writes an INTERP_CODE record
 * (format/trec_perlcode.h).
 */
#ifndef TREC_PERL_CODE_H
#define TREC_PERL_CODE_H

#include <stddef.h>
#include <stdint.h>
#include "record/interp/perl/perl_offsets.h"
#include "trec_format.h"
#include "trec_perlcode.h"

/* A description with owned strings. */
struct trec_perlcode_owned {
	struct trec_perlcode c; /* points at the buffers below */
	char *package, *name, *file;
};

/* Reads len bytes at addr of the process: 0, -ESRCH (gone), -EFAULT. */
typedef int (*trec_perl_read_fn)(void *ctx, uint64_t addr, void *buf, size_t len);

/*
 * Describes the Perl frame (file_id = cop, addr_or_line = key) of pid,
 * reading memory through read (process_vm_readv for trecord, a core dump
 * for the harness). 0; -ESTALE: the statement's line is not the one the
 * sample saw; -EINVAL: an object is not of the type it should be;
 * -EFAULT / -ESRCH; -ENOMEM.
 */
int trec_perl_read_code_from(trec_perl_read_fn read, void *ctx, uint32_t pid,
			     const struct trec_perl_offsets *off, uint64_t cop, uint64_t key,
			     struct trec_perlcode_owned *out);
/* The same from the live process pid. */
int trec_perl_read_code(uint32_t pid, const struct trec_perl_offsets *off, uint64_t cop,
			uint64_t key, struct trec_perlcode_owned *out);
void trec_perlcode_owned_free(struct trec_perlcode_owned *c);

#endif /* TREC_PERL_CODE_H */
