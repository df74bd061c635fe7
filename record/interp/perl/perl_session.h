/* SPDX-License-Identifier: MIT */
/*
 * Perl 5 as a trecord interpreter backend (record/interp/interp.h):
 * perl_sync.c bound to the BPF maps (perl_procs, interpreter_offsets),
 * the output and the counters.
 */
#ifndef TREC_PERL_SESSION_H
#define TREC_PERL_SESSION_H

#include "record/interp/interp.h"

extern const struct trec_interp_ops trec_perl_interp;

#endif /* TREC_PERL_SESSION_H */
