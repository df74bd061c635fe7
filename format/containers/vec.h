/* SPDX-License-Identifier: MIT */
/*
 * Growable arrays, the one growth rule every module uses:
 * - trec_grow / TREC_GROW: a typed array (T *arr, size_t cap) grown so
 *   that `need` elements fit, capacity doubling from `first`;
 * - struct trec_vec: an untyped array of fixed-size elements whose push
 *   returns room for one more. The caller owns v and frees it with
 *   trec_vec_free, or takes it over and clears the vec.
 * Both leave the array unchanged and return -ENOMEM / NULL when memory (or
 * size_t) runs out.
 */
#ifndef TREC_VEC_H
#define TREC_VEC_H

#include <stddef.h>

int trec_grow(void **arr, size_t *cap, size_t need, size_t esz, size_t first);
#define TREC_GROW(arr, cap, need, first) \
	trec_grow((void **)&(arr), &(cap), (need), sizeof(*(arr)), (first))

struct trec_vec {
	void *v;
	size_t n, cap, elem;
};

#define TREC_VEC_INIT(type) { .elem = sizeof(type) }

void *trec_vec_push(struct trec_vec *x);
void trec_vec_free(struct trec_vec *x);

#endif /* TREC_VEC_H */
