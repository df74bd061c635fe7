// SPDX-License-Identifier: MIT
/*
 * trec_find_debuginfo against a binary whose directory a process chose: a
 * FIFO where its .gnu_debuglink points must not block the lookup (libdwfl
 * opens its candidates with open()); a regular debug file there is still
 * found. The binary: build/workloads/sepcfi, whose debug link names
 * sepcfi.debug.
 */
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/elf/debuginfod.h"

static int failures;

static void check(int ok, const char *name)
{
	printf("%s: debuglink: %s\n", ok ? "PASS" : "FAIL", name);
	failures += !ok;
}

static int copy(const char *from, const char *to)
{
	char buf[65536];
	ssize_t n;
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755), rc = 0;

	if (in < 0 || out < 0)
		rc = -1;
	while (!rc && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			rc = -1;
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return rc;
}

/* Whether libdwfl found DWARF for path (its debug file's): the lookup. */
static int has_dwarf(const char *path)
{
	static char *debuginfo_path;
	Dwfl_Callbacks cb = {
		.find_elf = dwfl_build_id_find_elf,
		.find_debuginfo = trec_find_debuginfo,
		.section_address = dwfl_offline_section_address,
		.debuginfo_path = &debuginfo_path,
	};
	Dwfl *dwfl = dwfl_begin(&cb);
	Dwarf_Addr bias;
	int found = 0;

	if (!dwfl)
		return -1;
	Dwfl_Module *mod = dwfl_report_offline(dwfl, "sepcfi", path, -1);
	dwfl_report_end(dwfl, NULL, NULL);
	if (mod)
		found = dwfl_module_getdwarf(mod, &bias) != NULL;
	dwfl_end(dwfl);
	return found;
}

int main(void)
{
	const char *root = getenv("TREC_ROOT") ? getenv("TREC_ROOT") : ".";
	char dir[] = "/tmp/trec-debuglink.XXXXXX", src[4096], bin[4096], dbg[4096], srcdbg[4096];

	trec_debuginfod_set_prog("test");
	snprintf(src, sizeof(src), "%s/build/workloads/sepcfi", root);
	snprintf(srcdbg, sizeof(srcdbg), "%s/build/workloads/sepcfi.debug", root);
	if (!mkdtemp(dir)) {
		check(0, "a temporary directory");
		return 1;
	}
	snprintf(bin, sizeof(bin), "%s/sepcfi", dir);
	snprintf(dbg, sizeof(dbg), "%s/sepcfi.debug", dir);
	check(!copy(src, bin), "the binary copied");

	/* The old lookup opened the FIFO and waited for a writer for good. */
	alarm(60);
	check(!mkfifo(dbg, 0600), "a FIFO where the debug link points");
	check(has_dwarf(bin) == 0, "a FIFO as its debug file: no DWARF, and no hang");
	unlink(dbg);
	check(!copy(srcdbg, dbg), "the debug file copied there");
	check(has_dwarf(bin) == 1, "a regular debug file there is still found");
	alarm(0);

	unlink(dbg);
	unlink(bin);
	rmdir(dir);
	printf("%d failed\n", failures);
	return failures != 0;
}
