// SPDX-License-Identifier: MIT
#include <stdlib.h>

#include "format/containers/vec.h"

void *trec_vec_push(struct trec_vec *x)
{
	if (x->n == x->cap) {
		size_t nc = x->cap ? 2 * x->cap : 32;
		void *nv;

		if (nc > (size_t)-1 / x->elem)
			return NULL;
		nv = realloc(x->v, nc * x->elem);
		if (!nv)
			return NULL;
		x->v = nv;
		x->cap = nc;
	}
	return (char *)x->v + x->elem * x->n++;
}

void trec_vec_free(struct trec_vec *x)
{
	free(x->v);
	x->v = NULL;
	x->n = x->cap = 0;
}
