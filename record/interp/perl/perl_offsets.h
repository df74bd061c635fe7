/* SPDX-License-Identifier: MIT */
/*
 * Where Perl 5 keeps what the unwinder and the code reader follow: field
 * offsets of its structs, per version, for threaded (ithreads) builds on
 * 64-bit Linux. Perl has no introspection data and Debian ships no debug
 * symbols for it, so this is a table; each row is checked against the
 * interpreter's own headers by tests/perl/test_perl_offsets.sh (a probe
 * compiled with offsetof() on perl.h).
 */
#ifndef TREC_PERL_OFFSETS_H
#define TREC_PERL_OFFSETS_H

#include <stdint.h>
#include <linux/types.h>
#include "perl_types.h"

struct trec_perl_offsets {
	uint8_t revision, version; /* 5, 36 */
	/* What BPF needs; thr_key_addr and the TSD fields are per process. */
	struct trec_perl_proc_info bpf;
	/* What trecord's code reader needs besides. */
	uint16_t cop_file;                 /* char * (threaded builds) */
	uint16_t xcv_stash;                /* XPVCV: the sub's package */
	uint16_t xgv_namehek, xgv_stash;   /* XPVGV */
	uint16_t hek_len, hek_key;         /* HEK */
	uint16_t xhv_aux;                  /* struct xpvhv_with_aux */
	uint16_t aux_name, aux_name_count; /* struct xpvhv_aux */
};

/* The row of perl revision.version, or NULL. */
const struct trec_perl_offsets *trec_perl_offsets_for(unsigned revision, unsigned version);

/* Every row, for the offsets test: *n gets the count. */
const struct trec_perl_offsets *trec_perl_offsets_all(unsigned *n);

#endif /* TREC_PERL_OFFSETS_H */
