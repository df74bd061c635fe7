// SPDX-License-Identifier: MIT
/* trecord: records CPU stacks with eBPF. See cli.c for the options. */
#include "format/elf/debuginfod.h"
#include <signal.h>
#include "record/cli.h"
#include "record/inherit.h"
#include "record/session.h"
#include "record/stop_signals.h"

int main(int argc, char **argv)
{
	struct trec_options o;
	int rc, die_sig = 0;

	/* First, what the command is to inherit as trecord did; then from
	 * here on a stop signal is never lost (SIGINT and SIGTERM whatever
	 * disposition we inherited, SIGHUP unless nohup ignores it). */
	trec_inherit_note();
	if (trec_stop_signals_init())
		perror("trecord: warning: cannot catch SIGINT/SIGTERM/SIGHUP");
	trec_debuginfod_set_prog("trecord");
	/* A closed pipe (-o - into a reader that quit, -v into head) is a
	 * write error to report and finish on, not a death mid-setup that
	 * would leave the command behind. The command gets SIG_DFL back. */
	signal(SIGPIPE, SIG_IGN);
	rc = trec_parse_options(argc, argv, &o, stdout, stderr);
	if (rc == TREC_CLI_RUN)
		rc = trec_record(&o, &die_sig);
	else
		rc = rc == TREC_CLI_EXIT_OK ? 0 : 2;
	trec_options_free(&o);
	if (die_sig)
		trec_die_by_signal(die_sig);
	return rc;
}
