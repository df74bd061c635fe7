// SPDX-License-Identifier: MIT
/* The archive builder's and the units' frees, alone in their file: the
 * symbol cache's codec needs them, and its fuzz target links this file
 * rather than the encoder (libdw, libelf). */
#include <stdlib.h>
#include <string.h>

#include "record/archive/archive_build.h"

void arc_builder_free(struct arc_builder *b)
{
	for (size_t i = 0; i < b->t.num_strings; i++)
		free(b->strs[i]);
	free(b->strs);
	free(b->t.strings);
	free(b->slots);
	free(b->t.syms);
	free(b->t.lines);
	for (size_t d = 0; d < b->t.num_depths; d++)
		free(b->t.depths[d].v);
	free(b->t.depths);
	free(b->cap_depth);
	free(b->t.sections);
	free(b->t.segments);
	memset(b, 0, sizeof(*b));
}

void arc_units_free(struct arc_units *u)
{
	arc_builder_free(&u->b);
	free(u->inls);
	free(u->units);
	free(u->runs);
	memset(u, 0, sizeof(*u));
}
