// SPDX-License-Identifier: MIT
/* /proc/PID/maps iteration; see python_procmaps.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "record/interp/python/python_procmaps.h"

int trec_py_for_each_mapping(int pid, int (*cb)(void *ctx, const struct trec_py_mapping *m),
			     void *ctx)
{
	char fn[64], *line = NULL;
	size_t cap = 0;
	int ret = 0;
	FILE *f;

	snprintf(fn, sizeof(fn), "/proc/%d/maps", pid);
	f = fopen(fn, "re");
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		struct trec_py_mapping m;
		char perms[8];
		int path_at = 0;

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*u %n",
			   &m.start, &m.end, perms, &m.pgoff, &path_at) < 4 || !path_at)
			continue;
		m.path = line + path_at;
		if (m.path[0] != '/')
			continue;
		line[strcspn(line, "\n")] = 0;
		m.exec = perms[2] == 'x';
		ret = cb(ctx, &m);
		if (ret)
			break;
	}
	free(line);
	fclose(f);
	return ret;
}

void trec_py_proc_path(int pid, const char *path, char *buf, unsigned long len)
{
	snprintf(buf, len, "/proc/%d/root%s", pid, path);
}
