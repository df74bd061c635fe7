/* SPDX-License-Identifier: MIT */
/* Parser for /proc/PID/maps lines. Pure: no I/O besides the FILE given. */
#ifndef TREC_PROC_MAPS_H
#define TREC_PROC_MAPS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct trec_proc_map {
	uint64_t start, end;
	uint64_t offset;
	uint32_t dev_major, dev_minor;
	uint64_t inode;
	uint32_t prot;     /* PROT_READ | PROT_WRITE | PROT_EXEC */
	bool shared;
	char *path;        /* owned; "" for anonymous mappings */
};

struct trec_proc_maps {
	struct trec_proc_map *v;
	size_t n, cap;
};

/* Parses one line (without or with its newline). 0, or -EINVAL. On
 * success m->path is a new allocation. */
int trec_proc_map_parse_line(const char *line, struct trec_proc_map *m);
/* Reads every line of f. 0, or a negative errno (-EINVAL: bad line). */
int trec_proc_maps_read(FILE *f, struct trec_proc_maps *out);
/* Opens /proc/<pid>/maps. -ENOENT/-ESRCH if the process is gone. */
int trec_proc_maps_read_pid(uint32_t pid, struct trec_proc_maps *out);
void trec_proc_maps_free(struct trec_proc_maps *m);
/* The image identity the trie's marker holds (bpf/trec_types.h):
 * mm->start_stack and mm->start_brk, fields 28 and 47 of /proc/PID/stat.
 * _parse: from len bytes of that file's text (hostile: anything after the
 * comm's last ')'); -EINVAL if they are not there. */
int trec_proc_image_id_parse(const char *buf, size_t len, uint64_t id[2]);
int trec_proc_image_id(uint32_t pid, uint64_t id[2]);

/* "[vdso]" and friends: kernel-provided, not files. */
bool trec_proc_map_is_special(const struct trec_proc_map *m);

#endif /* TREC_PROC_MAPS_H */
