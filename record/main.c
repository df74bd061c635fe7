// SPDX-License-Identifier: MIT
/* trecord: records CPU stacks with eBPF. See cli.c for the options. */
#include "cli.h"
#include "session.h"

int main(int argc, char **argv)
{
	struct trec_options o;
	int rc = trec_parse_options(argc, argv, &o, stdout, stderr);

	if (rc == TREC_CLI_RUN)
		rc = trec_record(&o);
	else
		rc = rc == TREC_CLI_EXIT_OK ? 0 : 2;
	trec_options_free(&o);
	return rc;
}
