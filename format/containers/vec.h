/* SPDX-License-Identifier: MIT */
/*
 * A growable array of fixed-size elements: push returns room for one more
 * (NULL on -ENOMEM, the array unchanged). The caller owns v and frees it
 * with trec_vec_free, or takes it over and clears the vec.
 */
#ifndef TREC_VEC_H
#define TREC_VEC_H

#include <stddef.h>

struct trec_vec {
	void *v;
	size_t n, cap, elem;
};

#define TREC_VEC_INIT(type) { .elem = sizeof(type) }

void *trec_vec_push(struct trec_vec *x);
void trec_vec_free(struct trec_vec *x);

#endif /* TREC_VEC_H */
