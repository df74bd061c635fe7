/* SPDX-License-Identifier: MIT */
/* The META record: what was recorded, how, and on which host. */
#ifndef TREC_META_H
#define TREC_META_H

struct trec_options;
struct trec_output;

/* Writes the one META record of a recording. 0 or negative errno. */
int trec_meta_write(struct trec_output *out, const struct trec_options *o);

#endif /* TREC_META_H */
