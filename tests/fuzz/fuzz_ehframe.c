// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for stack-delta extraction (record/unwind/ehframe_*.c):
 * trecord reads the ELF files of every process it observes (their
 * .eh_frame, .debug_frame, PLT, dynamic symbols and code bytes through
 * libelf/libdw), so any file must give deltas or an error, never a crash,
 * a hang or a leak.
 *
 * The input is written to a file in a private directory (extraction takes
 * a path, as trecord's does). Rule checked on success: the entries are
 * sorted by strictly increasing address and every command is a known one.
 * With TREC_FUZZ_REQUIRE_DELTAS set (the test's seed pass), an input that
 * gives no deltas aborts: the seeds must reach past the ELF checks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "record/unwind/unwind_tables.h"

static char dir[] = "/tmp/trec-fuzzelf.XXXXXX", path[64];

static void remove_input(void)
{
	unlink(path);
	rmdir(dir);
}

static void write_input(const uint8_t *data, size_t size)
{
	FILE *f;

	if (!path[0]) {
		if (!mkdtemp(dir))
			abort();
		snprintf(path, sizeof(path), "%s/input", dir);
		atexit(remove_input);
	}
	f = fopen(path, "wb");
	if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trec_file_deltas d;

	write_input(data, size);
	if (trec_deltas_extract(path, &d) || !d.num) {
		if (getenv("TREC_FUZZ_REQUIRE_DELTAS"))
			abort();
		return 0;
	}
	for (size_t i = 0; i < d.num; i++) {
		uint16_t c = d.entries[i].command;

		if (i && d.entries[i].addr <= d.entries[i - 1].addr)
			abort();
		if (c && (!(c & TREC_UNWIND_COMMAND) ||
			  (c & ~TREC_UNWIND_COMMAND) > TREC_CMD_UNSUPPORTED))
			abort();
	}
	trec_file_deltas_free(&d);
	return 0;
}
