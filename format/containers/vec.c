// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "format/containers/vec.h"

int trec_grow(void **arr, size_t *cap, size_t need, size_t esz, size_t first)
{
	size_t ncap = *cap ? *cap : (first ? first : 16);
	void *p;

	if (need <= *cap)
		return 0;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			return -ENOMEM;
		ncap *= 2;
	}
	if (ncap > SIZE_MAX / esz)
		return -ENOMEM;
	p = realloc(*arr, ncap * esz);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

void *trec_vec_push(struct trec_vec *x)
{
	if (trec_grow(&x->v, &x->cap, x->n + 1, x->elem, 32))
		return NULL;
	return (char *)x->v + x->elem * x->n++;
}

void trec_vec_free(struct trec_vec *x)
{
	free(x->v);
	x->v = NULL;
	x->n = x->cap = 0;
}
