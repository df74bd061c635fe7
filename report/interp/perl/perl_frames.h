/* SPDX-License-Identifier: MIT */
/*
 * Perl frame symbolization for treport: a store of the recording's Perl
 * INTERP_CODE records (subtype 2), and the lookup that turns a
 * TREC_FRAME_PERL frame (statement address + sub handle + line guard) into
 * "Package::sub (file.pl:line)". FORMAT.md §12.1.
 */
#ifndef TREC_PERL_FRAMES_H
#define TREC_PERL_FRAMES_H

#include <stddef.h>
#include <stdint.h>
#include "trec_format.h"
#include "report/interp/interp.h"

struct trec_perlframes;

struct trec_perlframes *trec_perlframes_new(void);
void trec_perlframes_free(struct trec_perlframes *s);

/* Adds a Perl INTERP_CODE blob (copied). 0; -EBADMSG: malformed. */
int trec_perlframes_add(struct trec_perlframes *s, const struct trec_blob *b);

/* 0 with *out filled (strings live as long as s), or -ENOENT (s may be
 * NULL). The function is "Package::name", or "<main>" for the program's
 * top level. */
int trec_perlframes_lookup(const struct trec_perlframes *s, uint32_t pid,
			   const struct trec_rec_frame *f, struct rp_interp_sym *out);

/* "function (file basename:line)", or "[perl 0x...]" (the statement's
 * address) when no record describes the frame. */
int trec_perlframes_format(const struct trec_perlframes *s, uint32_t pid,
			   const struct trec_rec_frame *f, char *buf, size_t len);

/* Perl as a treport interpreter backend (report/interp/interp.h). */
extern const struct rp_interp_ops rp_perl_interp;

#endif /* TREC_PERL_FRAMES_H */
