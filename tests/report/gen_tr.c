// SPDX-License-Identifier: MIT
/*
 * Writes a synthetic .tr recording from a line-based spec on stdin, with
 * the real format writer. The report tests use it to build recordings whose
 * frames point at real addresses of the test workloads.
 *
 *   gen_tr OUT.tr < spec
 *
 * Spec lines (numbers in C syntax: 0x.. hex or decimal):
 *   meta KEY VALUE...
 *   file FILE_ID PATH BUILD_ID_HEX|- [SIZE]   ("%20" in PATH is a space)
 *   map TIME PID START END OFFSET FILE_ID BIAS PROT PATH   (one mapping)
 *   maps                                  ends a snapshot of the maps above
 *   ksym ADDR TYPE NAME [MODULE]
 *   ksyms TIME                            ends a KSYMS snapshot
 *   metric ID NAME VALUE
 *   metrics TIME                          ends a METRICS record
 *   sample TIME PID TID CPU WEIGHT COMM FRAME...
 *   wait TIME PID TID CPU NS COMM FRAME...   an off-CPU wait of NS ns
 *     FRAME: k:ADDR[:FLAGS] kernel, u:FILE_ID:ADDR[:FLAGS] native,
 *            a:ADDR absolute pc, e:CODE error, p:CODE_ADDR:VALUE python;
 *            leaf first, kernel frames before user frames
 *   repeat N                              writes the last sample N more times
 *                                         (time += 1 ms each; for benchmarks)
 *   summary START END SAMPLES LOST EXIT
 *   pev TIME KIND PID TID PPID EXIT_CODE COMM [FILENAME]   a PID_EVENT
 *                                         (KIND: fork, exec, exit, comm)
 *   jit TIME PID START SIZE NAME          JITSYMS of /tmp/perf-PID.map, one entry
 *   flush                                 ends the current chunk
 */
#include <linux/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trec_format.h"
#include "trec_types.h"

#define MAXF 4096

static struct trec_writer *w;
static int lineno;

static void die(const char *msg)
{
	fprintf(stderr, "gen_tr: line %d: %s\n", lineno, msg);
	exit(1);
}

static uint64_t num(const char *s)
{
	char *end;
	if (!s)
		die("missing number");
	uint64_t v = strtoull(s, &end, 0);
	if (*end)
		die("bad number");
	return v;
}

static void check(int rc, const char *what)
{
	if (rc < 0) {
		fprintf(stderr, "gen_tr: line %d: %s failed: %d\n", lineno, what, rc);
		exit(1);
	}
}

static int parse_hex(const char *h, uint8_t *out, size_t max)
{
	size_t n = strlen(h) / 2;
	if (!strcmp(h, "-"))
		return 0;
	if (n > max)
		die("build-id too long");
	for (size_t i = 0; i < n; i++) {
		unsigned v;
		if (sscanf(h + 2 * i, "%2x", &v) != 1)
			die("bad hex");
		out[i] = (uint8_t)v;
	}
	return (int)n;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: gen_tr OUT.tr < spec\n");
		return 2;
	}
	struct trec_header h;
	trec_header_init_host(&h);
	w = trec_writer_open(argv[1], &h, NULL, 1);
	if (!w) {
		perror(argv[1]);
		return 1;
	}
	static struct trec_mapping maps[1024];
	static char map_paths[1024][256];
	size_t nmaps = 0;
	uint32_t maps_pid = 0;
	uint64_t maps_time = 0;
	static struct trec_ksym ksyms[65536];
	static char ksym_names[65536][64], ksym_mods[65536][32];
	size_t nksyms = 0;
	static struct trec_metric_value metrics[256];
	static char metric_names[256][64];
	size_t nmetrics = 0;
	static struct trec_rec_frame kf[MAXF], uf[MAXF];
	struct trec_sample last;
	int have_last = 0;

	static char line[1 << 20];
	while (fgets(line, sizeof(line), stdin)) {
		lineno++;
		line[strcspn(line, "\n")] = 0;
		char *save = NULL;
		char *cmd = strtok_r(line, " \t", &save);
		if (!cmd || cmd[0] == '#')
			continue;
		if (!strcmp(cmd, "meta")) {
			char *k = strtok_r(NULL, " \t", &save);
			char *v = save ? save : "";
			struct trec_meta_entry e = { k ? k : "", v };
			struct trec_meta m = { 1, &e };
			check(trec_write_meta(w, &m), "meta");
		} else if (!strcmp(cmd, "file")) {
			struct trec_file_info f = { 0 };
			uint8_t bid[64];
			f.file_id = num(strtok_r(NULL, " \t", &save));
			f.path = strtok_r(NULL, " \t", &save);
			char *hex = strtok_r(NULL, " \t", &save);
			if (!f.path || !hex)
				die("file ID PATH BUILD_ID");
			for (char *p; (p = strstr(f.path, "%20"));) {
				*p = ' ';
				memmove(p + 1, p + 3, strlen(p + 3) + 1);
			}
			f.build_id_len = (uint32_t)parse_hex(hex, bid, sizeof(bid));
			f.build_id = bid;
			char *sz = strtok_r(NULL, " \t", &save);
			f.size = sz ? num(sz) : 0;
			f.debuglink = "";
			check(trec_write_file(w, &f), "file");
		} else if (!strcmp(cmd, "map")) {
			if (nmaps >= 1024)
				die("too many maps");
			struct trec_mapping *m = &maps[nmaps];
			memset(m, 0, sizeof(*m));
			maps_time = num(strtok_r(NULL, " \t", &save));
			maps_pid = (uint32_t)num(strtok_r(NULL, " \t", &save));
			m->start = num(strtok_r(NULL, " \t", &save));
			m->end = num(strtok_r(NULL, " \t", &save));
			m->file_offset = num(strtok_r(NULL, " \t", &save));
			m->file_id = num(strtok_r(NULL, " \t", &save));
			m->bias = num(strtok_r(NULL, " \t", &save));
			m->prot = (uint32_t)num(strtok_r(NULL, " \t", &save));
			char *p = strtok_r(NULL, " \t", &save);
			snprintf(map_paths[nmaps], sizeof(map_paths[0]), "%s", p ? p : "");
			m->path = map_paths[nmaps];
			nmaps++;
		} else if (!strcmp(cmd, "maps")) {
			struct trec_mapping_snapshot s = { maps_time, maps_pid, (uint32_t)nmaps, maps };
			check(trec_write_mappings(w, &s), "mappings");
			nmaps = 0;
		} else if (!strcmp(cmd, "ksym")) {
			if (nksyms >= 65536)
				die("too many ksyms");
			struct trec_ksym *k = &ksyms[nksyms];
			k->addr = num(strtok_r(NULL, " \t", &save));
			char *t = strtok_r(NULL, " \t", &save);
			char *n = strtok_r(NULL, " \t", &save);
			char *mod = strtok_r(NULL, " \t", &save);
			if (!t || !n)
				die("ksym ADDR TYPE NAME");
			k->type = t[0];
			snprintf(ksym_names[nksyms], 64, "%s", n);
			snprintf(ksym_mods[nksyms], 32, "%s", mod ? mod : "");
			k->name = ksym_names[nksyms];
			k->module = ksym_mods[nksyms];
			nksyms++;
		} else if (!strcmp(cmd, "ksyms")) {
			struct trec_ksyms k = { num(strtok_r(NULL, " \t", &save)), (uint32_t)nksyms, ksyms };
			check(trec_write_ksyms(w, &k), "ksyms");
			nksyms = 0;
		} else if (!strcmp(cmd, "metric")) {
			if (nmetrics >= 256)
				die("too many metrics");
			metrics[nmetrics].id = (uint32_t)num(strtok_r(NULL, " \t", &save));
			char *n = strtok_r(NULL, " \t", &save);
			snprintf(metric_names[nmetrics], 64, "%s", n ? n : "");
			metrics[nmetrics].name = metric_names[nmetrics];
			metrics[nmetrics].value = num(strtok_r(NULL, " \t", &save));
			nmetrics++;
		} else if (!strcmp(cmd, "metrics")) {
			struct trec_metrics m = { num(strtok_r(NULL, " \t", &save)), (uint32_t)nmetrics,
						  metrics };
			check(trec_write_metrics(w, &m), "metrics");
			nmetrics = 0;
		} else if (!strcmp(cmd, "sample") || !strcmp(cmd, "wait")) {
			struct trec_sample s = { 0 };
			s.time_ns = num(strtok_r(NULL, " \t", &save));
			s.pid = (uint32_t)num(strtok_r(NULL, " \t", &save));
			s.tid = (uint32_t)num(strtok_r(NULL, " \t", &save));
			s.cpu = (uint32_t)num(strtok_r(NULL, " \t", &save));
			s.weight = num(strtok_r(NULL, " \t", &save));
			if (!strcmp(cmd, "wait")) {
				s.flags = TREC_SAMPLE_F_OFFCPU;
				s.offcpu_ns = s.weight;
				s.weight = 1;
			}
			char *comm = strtok_r(NULL, " \t", &save);
			if (!comm)
				die("sample needs a comm");
			snprintf(s.comm, sizeof(s.comm), "%s", strcmp(comm, "-") ? comm : "");
			char *f;
			while ((f = strtok_r(NULL, " \t", &save))) {
				char *fsave = NULL;
				char *kind = strtok_r(f, ":", &fsave);
				char *a1 = strtok_r(NULL, ":", &fsave);
				char *a2 = strtok_r(NULL, ":", &fsave);
				char *a3 = strtok_r(NULL, ":", &fsave);
				struct trec_rec_frame fr = { 0 };
				if (!strcmp(kind, "k")) {
					fr.kind = TREC_FRAME_KERNEL;
					fr.addr = num(a1);
					fr.flags = a2 ? (uint8_t)num(a2) : 0;
					if (s.num_kernel_frames >= MAXF)
						die("too many frames");
					kf[s.num_kernel_frames++] = fr;
					continue;
				}
				if (!strcmp(kind, "u")) {
					fr.kind = TREC_FRAME_NATIVE;
					fr.file_id = num(a1);
					fr.addr = num(a2);
					fr.flags = a3 ? (uint8_t)num(a3) : 0;
				} else if (!strcmp(kind, "a")) {
					fr.kind = TREC_FRAME_NATIVE;
					fr.addr = num(a1);
					fr.flags = TREC_FRAME_F_ABSOLUTE;
				} else if (!strcmp(kind, "e")) {
					fr.kind = TREC_FRAME_UNKNOWN;
					fr.flags = TREC_FRAME_F_ERROR;
					fr.addr = num(a1);
				} else if (!strcmp(kind, "p")) {
					fr.kind = TREC_FRAME_PYTHON;
					fr.flags = TREC_FRAME_F_PID_SPECIFIC;
					fr.file_id = num(a1);
					fr.addr = num(a2);
				} else {
					die("bad frame kind");
				}
				if (s.num_user_frames >= MAXF)
					die("too many frames");
				uf[s.num_user_frames++] = fr;
			}
			s.kernel_frames = kf;
			s.user_frames = uf;
			check(trec_write_sample(w, &s), "sample");
			last = s;
			have_last = 1;
		} else if (!strcmp(cmd, "repeat")) {
			uint64_t n = num(strtok_r(NULL, " \t", &save));
			if (!have_last)
				die("repeat without a sample");
			for (uint64_t i = 0; i < n; i++) {
				last.time_ns += 1000000;
				check(trec_write_sample(w, &last), "sample");
			}
		} else if (!strcmp(cmd, "summary")) {
			struct trec_summary s = { 0 };
			s.start_ns = num(strtok_r(NULL, " \t", &save));
			s.end_ns = num(strtok_r(NULL, " \t", &save));
			s.samples = num(strtok_r(NULL, " \t", &save));
			s.lost = num(strtok_r(NULL, " \t", &save));
			s.exit_status = (int32_t)num(strtok_r(NULL, " \t", &save));
			check(trec_write_summary(w, &s), "summary");
		} else if (!strcmp(cmd, "pev")) {
			struct trec_pid_event e = { 0 };
			e.time_ns = num(strtok_r(NULL, " \t", &save));
			const char *k = strtok_r(NULL, " \t", &save);
			e.kind = !k ? 0 : !strcmp(k, "fork") ? TREC_PEV_FORK : !strcmp(k, "exec") ? TREC_PEV_EXEC :
				 !strcmp(k, "exit") ? TREC_PEV_EXIT : !strcmp(k, "comm") ? TREC_PEV_COMM : 0;
			if (!e.kind)
				die("pev: kind is fork, exec, exit or comm");
			e.pid = (uint32_t)num(strtok_r(NULL, " \t", &save));
			e.tid = (uint32_t)num(strtok_r(NULL, " \t", &save));
			e.parent_pid = (uint32_t)num(strtok_r(NULL, " \t", &save));
			e.exit_code = (int32_t)num(strtok_r(NULL, " \t", &save));
			const char *c = strtok_r(NULL, " \t", &save), *f = strtok_r(NULL, " \t", &save);
			snprintf(e.comm, sizeof(e.comm), "%s", c && strcmp(c, "-") ? c : "");
			e.filename = f ? f : "";
			check(trec_write_pid_event(w, &e), "pid event");
		} else if (!strcmp(cmd, "jit")) {
			struct trec_jitsyms j = { .source = TREC_JIT_PERF_MAP };
			struct trec_jit_entry e = { 0 };
			char path[64];
			j.time_ns = num(strtok_r(NULL, " \t", &save));
			j.pid = (uint32_t)num(strtok_r(NULL, " \t", &save));
			e.start = num(strtok_r(NULL, " \t", &save));
			e.size = num(strtok_r(NULL, " \t", &save));
			e.name = strtok_r(NULL, " \t", &save);
			if (!e.name)
				die("jit: TIME PID START SIZE NAME");
			snprintf(path, sizeof(path), "/tmp/perf-%u.map", j.pid);
			j.path = path;
			j.num_entries = 1;
			j.entries = &e;
			check(trec_write_jitsyms(w, &j), "jitsyms");
		} else if (!strcmp(cmd, "flush")) {
			check(trec_writer_flush(w), "flush");
		} else {
			die("unknown command");
		}
	}
	check(trec_writer_close(w), "close");
	return 0;
}
