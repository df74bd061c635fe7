// SPDX-License-Identifier: MIT
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "format/containers/vec.h"
#include "record/procs/proc_maps.h"

/* "start-end perms offset major:minor inode   path" */
int trec_proc_map_parse_line(const char *line, struct trec_proc_map *m)
{
	char perms[5];
	int pos = 0;
	size_t len;
	const char *path;

	memset(m, 0, sizeof(*m));
	if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %4s %" SCNx64 " %x:%x %" SCNu64 "%n",
		   &m->start, &m->end, perms, &m->offset, &m->dev_major, &m->dev_minor,
		   &m->inode, &pos) != 7 || m->end <= m->start || strlen(perms) != 4)
		return -EINVAL;
	if (perms[0] == 'r')
		m->prot |= PROT_READ;
	if (perms[1] == 'w')
		m->prot |= PROT_WRITE;
	if (perms[2] == 'x')
		m->prot |= PROT_EXEC;
	m->shared = perms[3] == 's';

	path = line + pos;
	while (*path == ' ' || *path == '\t')
		path++;
	len = strcspn(path, "\n");
	m->path = strndup(path, len);
	return m->path ? 0 : -ENOMEM;
}

int trec_proc_maps_read(FILE *f, struct trec_proc_maps *out)
{
	char *line = NULL;
	size_t cap = 0;
	int err = 0;

	memset(out, 0, sizeof(*out));
	while (getline(&line, &cap, f) > 0) {
		if (TREC_GROW(out->v, out->cap, out->n + 1, 64)) {
			err = -ENOMEM;
			break;
		}
		err = trec_proc_map_parse_line(line, &out->v[out->n]);
		if (err)
			break;
		out->n++;
	}
	free(line);
	if (!err && ferror(f))
		err = -EIO;
	if (err)
		trec_proc_maps_free(out);
	return err;
}

int trec_proc_maps_read_pid(uint32_t pid, struct trec_proc_maps *out)
{
	char path[64];
	FILE *f;
	int err;

	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	f = fopen(path, "re");
	if (!f) {
		memset(out, 0, sizeof(*out));
		return -errno;
	}
	err = trec_proc_maps_read(f, out);
	fclose(f);
	return err;
}

void trec_proc_maps_free(struct trec_proc_maps *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->v[i].path);
	free(m->v);
	memset(m, 0, sizeof(*m));
}

bool trec_proc_map_is_special(const struct trec_proc_map *m)
{
	return m->path[0] == '[';
}
