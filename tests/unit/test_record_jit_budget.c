// SPDX-License-Identifier: MIT
/* record/jit/jit_budget.c: what JIT files read in one second may hold. */
#include "record/jit/jit_budget.h"
#include "unit_check.h"

int main(void)
{
	struct trec_jit_budget b;
	const uint64_t s = 1000000000ull, max = 1ull << 30;

	trec_jit_budget_init(&b);
	CHECK("jit budget: a file alone may look at its own limit",
	      trec_jit_budget_take(&b, 5 * s, max) == max);
	trec_jit_budget_used(&b, max - 100);
	CHECK("jit budget: past the second's budget, a file looks at 16 MiB",
	      trec_jit_budget_take(&b, 5 * s + 1, max) == TREC_JIT_FILE_MIN_BYTES);
	CHECK("jit budget: ... never more than its own limit",
	      trec_jit_budget_take(&b, 5 * s + 2, 4096) == 4096);
	CHECK("jit budget: the next second has it all again",
	      trec_jit_budget_take(&b, 6 * s, max) == max);
	trec_jit_budget_used(&b, max / 2);
	CHECK("jit budget: what is left of the second",
	      trec_jit_budget_take(&b, 6 * s + 1, max) == max / 2);
	return failures != 0;
}
