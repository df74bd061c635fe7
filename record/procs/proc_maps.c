// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
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

/* Fields 28 and 47 are the 26th and 45th after the comm's ")". */
#define STAT_START_STACK 26
#define STAT_START_BRK 45

int trec_proc_image_id_parse(const char *buf, size_t len, uint64_t id[2])
{
	const char *p = memrchr(buf, ')', len), *end = buf + len;
	int field = 0;

	id[0] = id[1] = 0;
	if (!p)
		return -EINVAL;
	for (p++; p < end && field < STAT_START_BRK; ) {
		uint64_t v = 0;

		while (p < end && *p == ' ')
			p++;
		if (p == end)
			break;
		field++;
		/* Negative and other fields only need skipping. */
		for (; p < end && *p >= '0' && *p <= '9'; p++)
			v = v * 10 + (uint64_t)(*p - '0');
		while (p < end && *p != ' ')
			p++;
		if (field == STAT_START_STACK)
			id[0] = v;
		else if (field == STAT_START_BRK)
			id[1] = v;
	}
	if (field < STAT_START_BRK) {
		id[0] = id[1] = 0;
		return -EINVAL;
	}
	return 0;
}

int trec_proc_image_id(uint32_t pid, uint64_t id[2])
{
	char path[64], buf[2048]; /* 52 fields of at most 20 digits, a comm */
	ssize_t n;
	int fd;

	id[0] = id[1] = 0;
	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	return n <= 0 ? -EIO : trec_proc_image_id_parse(buf, (size_t)n, id);
}
