// SPDX-License-Identifier: MIT
/* The interpreter verdict the harness languages share; see harness_verdict.h. */
#include <stdio.h>
#include <string.h>
#include "harness_verdict.h"

const char *harness_runs_verdict(const struct harness_lang *l, const struct harness_case *c,
				 const struct harness_iframe *fr, size_t n, size_t ng,
				 size_t *runs)
{
	static char why[256];
	size_t loops = 0;

	*runs = 0;
	for (size_t i = 0; i < ng; i++)
		loops += l->is_loop(l->ctx, c, i);
	if (n != c->num_pyframes)
		return snprintf(why, sizeof(why), "not as many %s frames as the script's own stack",
				l->noun), why;
	for (size_t i = 0; i < n; i++) {
		const struct harness_pyframe *want = &c->pyframes[i];
		bool last_of_run = i + 1 == n || fr[i + 1].next_native != fr[i].next_native;
		struct rp_interp_sym sym;

		if (l->lookup(l->ctx, c->pid, fr[i].f, &sym))
			return snprintf(why, sizeof(why), "a %s frame has no description", l->noun),
			       why;
		if (strcmp(sym.function, want->qualname) || strcmp(sym.file, want->file) ||
		    sym.line != want->line)
			return snprintf(why, sizeof(why), "a %s frame differs from the script's own stack",
					l->noun), why;
		if (last_of_run != want->entry)
			return snprintf(why, sizeof(why),
					"a run of %s frames does not end where C code entered", l->noun),
			       why;
		if (!last_of_run)
			continue;
		(*runs)++;
		if (fr[i].next_native >= ng || !l->is_loop(l->ctx, c, fr[i].next_native))
			return snprintf(why, sizeof(why), "a run of %s frames is not right before %s",
					l->noun, l->loop), why;
	}
	if (*runs != loops)
		return snprintf(why, sizeof(why), "not one run of %s frames per %s frame", l->noun,
				l->loop), why;
	return NULL;
}

bool harness_say_verdict(const struct harness_lang *l, const char *name, const char *why,
			 size_t n, size_t runs, const char *how, bool live)
{
	if (why) {
		printf("FAIL: harness %s %s: %s\n", name, l->lang, why);
		return false;
	}
	printf("PASS: harness %s %s: %zu %s frames equal the script's own stack, in %zu runs "
	       "between native frames (%s %s)\n",
	       name, l->lang, n, l->noun, runs, how,
	       live ? "from the live process" : "from the core dump");
	return true;
}

void harness_print_iframes(const struct harness_lang *l, const struct harness_case *c,
			   const struct harness_iframe *fr, size_t n, size_t ng)
{
	printf("  %s frames (innermost first), each before native frame #:\n", l->lang);
	for (size_t i = 0; i < n; i++) {
		struct rp_interp_sym sym;
		size_t next = fr[i].next_native;

		if (!l->lookup(l->ctx, c->pid, fr[i].f, &sym))
			printf("  %3zu %s (%s:%d) before #%zu %s\n", i, sym.function, sym.file,
			       sym.line, next, next < ng ? c->frames[next].name : "-");
		else
			printf("  %3zu [%s %#llx] before #%zu\n", i, l->lang,
			       (unsigned long long)fr[i].f->file_id, next);
	}
}

void harness_print_script_stack(const struct harness_case *c)
{
	printf("  the script's own stack:\n");
	for (size_t i = 0; i < c->num_pyframes; i++)
		printf("      %s (%s:%d)%s\n", c->pyframes[i].qualname, c->pyframes[i].file,
		       c->pyframes[i].line, c->pyframes[i].entry ? " [entered from C]" : "");
}
