// SPDX-License-Identifier: MIT
/*
 * The Python unwinder against live interpreters, without BPF: runs
 * tests/python/chain.py under each CPython 3.11+ found on the machine,
 * stops it with ptrace at random moments, and walks every thread with the
 * BPF walker itself (bpf/python_unwind.h compiled through a shim), the
 * offsets from record/interp/python/python_detect.c, code objects read by
 * record/interp/python/python_codeobj.c, a PYCODE round trip and report/interp/python/python_frames.c.
 * Each walk must equal the stack CPython itself reported from inside the
 * thread (frame objects: qualname, file, line), leaf line excepted, which
 * must be one of the script's "@leaf" lines.
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <time.h>
#include <unistd.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>

/* The walker as userspace C (bpf/testing_shim.h); its helpers below. */
#define TREC_TESTING_OFFLINE 1
#include "testing_shim.h"
#include "trec_maps.h"
#include "python_types.h"

/* The "current task": whose memory reads go to, and its fs base. */
static struct {
	int pid;
	uint64_t fsbase;
	struct trec_py_proc_info info;
	uint64_t metrics[TREC_METRIC_COUNT];
} shim;

#define TREC_PY_FSBASE() (shim.fsbase)
#include "python_unwind.h"

static void *bpf_map_lookup_elem(void *map, const void *key)
{
	uint32_t k = *(const uint32_t *)key;

	if (map == (void *)&py_procs)
		return k == (uint32_t)shim.pid ? &shim.info : NULL;
	if (map == (void *)&metrics)
		return k < TREC_METRIC_COUNT ? &shim.metrics[k] : NULL;
	return NULL;
}

static long bpf_probe_read_user(void *dst, __u32 size, const void *ptr)
{
	struct iovec l = { dst, size }, r = { (void *)ptr, size };

	if (process_vm_readv(shim.pid, &l, 1, &r, 1, 0) == (ssize_t)size)
		return 0;
	memset(dst, 0, size);
	return -EFAULT;
}

#include "shim_stubs.h" /* the helpers the walker never calls */

#include "record/interp/python/python_codeobj.h"
#include "record/interp/python/python_detect.h"
#include "record/interp/python/python_elf.h"
#include "report/interp/python/python_frames.h"
#include "record/interp/python/python_procmaps.h"
#include "record/interp/python/python_sync.h"
#include "python_check.h"

#define ROUNDS 15
#define MAX_FRAMES 64
#define MAX_THREADS 8

struct pyframe {
	char func[128], file[512];
	int line;
};

struct stack {
	int n, handoffs, errors;
	struct pyframe f[MAX_FRAMES];
};

static int read_oracle(const char *path, struct stack *s)
{
	char line[1200];
	FILE *f = fopen(path, "r");

	memset(s, 0, sizeof(*s));
	if (!f)
		return -1;
	while (s->n < MAX_FRAMES && fgets(line, sizeof(line), f)) {
		struct pyframe *p = &s->f[s->n];

		if (sscanf(line, "%127[^\t]\t%511[^\t]\t%d", p->func, p->file, &p->line) == 3)
			s->n++;
	}
	fclose(f);
	return s->n ? 0 : -1;
}

/* Lines of the script marked "@leaf". */
static int leaf_lines(const char *script, int *lines, int max)
{
	char buf[512];
	int n = 0, no = 0;
	FILE *f = fopen(script, "r");

	if (!f)
		return 0;
	while (fgets(buf, sizeof(buf), f)) {
		no++;
		if (strstr(buf, "# @leaf") && n < max)
			lines[n++] = no;
	}
	fclose(f);
	return n;
}

/* Starts interp script dir with stdout on a pipe (*out_fd, kept open so
 * the script never sees EPIPE) and waits for both threads' "ready". */
static pid_t spawn(const char *interp, const char *script, const char *dir, int *out_fd)
{
	int fds[2], ready = 0;
	char buf[256];
	size_t have = 0;
	pid_t pid;

	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		execl(interp, interp, script, dir, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	while (pid > 0 && ready < 2) {
		struct pollfd p = { fds[0], POLLIN, 0 };
		ssize_t n;

		if (poll(&p, 1, 10000) <= 0)
			break;
		n = read(fds[0], buf + have, sizeof(buf) - 1 - have);
		if (n <= 0)
			break;
		have += (size_t)n;
		buf[have] = 0;
		ready = 0;
		for (char *q = buf; (q = strstr(q, "ready ")); q++)
			ready++;
	}
	if (ready < 2 && pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		pid = -1;
	}
	if (pid < 0) {
		close(fds[0]);
		return -1;
	}
	*out_fd = fds[0];
	/* Let both threads leave write_stack() and enter their loops. */
	usleep(100 * 1000);
	return pid;
}

/* The glue's tail-call loop, minus native unwinding: on NATIVE it pretends
 * the native unwinder found the next _PyEval_EvalFrameDefault frame. */
static void walk(struct trec_per_cpu_record *rec, int pid, struct stack *s)
{
	memset(rec, 0, sizeof(*rec));
	rec->trace.pid = (__u32)pid;
	rec->state.error_metric = -1;
	s->handoffs = 0;
	for (int calls = 0; calls < 64; calls++) {
		int next = trec_python_walk(rec);

		if (next == TREC_PROG_UNWIND_STOP)
			break;
		if (next == TREC_PROG_UNWIND_NATIVE) {
			if (rec->unwinders_done & (1u << TREC_PROG_UNWIND_PYTHON))
				break;
			s->handoffs++;
		}
	}
}

/* ---- trecord's side, through record/interp/python/python_sync.c ---------------------- */

struct fake_maps {
	struct trec_offset_range range;
	uint64_t range_file_id;
	struct trec_py_proc_info info;
	int ranges, procs, dels, blob_errors;
	struct trec_pyframes *store; /* where PYCODE records go: treport's store */
};

static int fake_set_range(void *ctx, uint64_t file_id, const struct trec_offset_range *r)
{
	struct fake_maps *m = ctx;

	m->range = *r;
	m->range_file_id = file_id;
	m->ranges++;
	return 0;
}

static int fake_set_proc(void *ctx, uint32_t pid, const void *info)
{
	struct fake_maps *m = ctx;

	m->info = *(const struct trec_py_proc_info *)info;
	m->procs++;
	return 0;
}

static void fake_del_proc(void *ctx, uint32_t pid)
{
	((struct fake_maps *)ctx)->dels++;
}

static int fake_write_blob(void *ctx, enum trec_record_type type, const struct trec_blob *b)
{
	struct fake_maps *m = ctx;

	if (type != TREC_REC_PYCODE || trec_pyframes_add(m->store, b))
		m->blob_errors++;
	return 0;
}

struct sync_walk {
	struct trec_py_sync *sync;
	int pid;
};

/* What pid sync does: every executable file mapping, with its bias. */
static int sync_mapping(void *ctx, const struct trec_py_mapping *m)
{
	struct sync_walk *w = ctx;
	struct trec_pyelf e;
	uint64_t vaddr;
	char path[4200];

	if (!m->exec)
		return 0;
	trec_py_proc_path(w->pid, m->path, path, sizeof(path));
	if (trec_pyelf_open(&e, path))
		return 0;
	if (!trec_pyelf_vaddr_of_offset(&e, m->pgoff, &vaddr))
		/* Any id that is stable per mapped file will do here. */
		trec_interp_table_mapping(trec_py_sync_table(w->sync), (uint32_t)w->pid,
					  (uint64_t)m->start >> 21 ^ vaddr, path, m->start - vaddr);
	trec_pyelf_close(&e);
	return 0;
}

/* Distinct code objects the walks saw: what trecord must describe. */
static uint64_t seen_code[256];
static size_t num_seen;

static void see(uint64_t addr)
{
	for (size_t i = 0; i < num_seen; i++)
		if (seen_code[i] == addr)
			return;
	if (num_seen < 256)
		seen_code[num_seen++] = addr;
}

/* The trace, named: trecord writes PYCODE records, treport looks them up. */
static void symbolize(const struct trec_per_cpu_record *rec, int pid, struct trec_py_sync *sync,
		      struct trec_pyframes *store, struct stack *s)
{
	trec_interp_table_trace(trec_py_sync_table(sync), (uint32_t)pid, rec->trace.frames,
				rec->trace.num_frames, NULL);
	s->n = 0;
	s->errors = 0;
	for (unsigned i = 0; i < rec->trace.num_frames && s->n < MAX_FRAMES; i++) {
		const struct trec_frame *f = &rec->trace.frames[i];
		struct trec_rec_frame rf = { f->file_id, f->addr_or_line, f->kind, f->flags };
		struct pyframe *p = &s->f[s->n++];
		struct trec_pyframe_sym sym;

		memset(p, 0, sizeof(*p));
		if (f->kind != TREC_FRAME_PYTHON) {
			snprintf(p->func, sizeof(p->func), "<error %llu>",
				 (unsigned long long)f->addr_or_line);
			s->errors++;
			continue;
		}
		see(f->file_id);
		if (trec_pyframes_lookup(store, (uint32_t)pid, &rf, &sym)) {
			snprintf(p->func, sizeof(p->func), "<unknown code>");
			s->errors++;
			continue;
		}
		snprintf(p->func, sizeof(p->func), "%s", sym.function);
		snprintf(p->file, sizeof(p->file), "%s", sym.file);
		p->line = sym.line;
	}
}

static int same_frame(const struct pyframe *a, const struct pyframe *b)
{
	return !strcmp(a->func, b->func) && !strcmp(a->file, b->file) && a->line == b->line;
}

static int matches(const struct stack *got, const struct stack *want, const int *leaf, int nleaf)
{
	int leaf_ok = 0;

	if (got->n != want->n || got->errors || !got->n)
		return 0;
	for (int i = 0; i < nleaf; i++)
		leaf_ok |= got->f[0].line == leaf[i];
	if (!leaf_ok || strcmp(got->f[0].func, want->f[0].func) ||
	    strcmp(got->f[0].file, want->f[0].file))
		return 0;
	for (int i = 1; i < got->n; i++)
		if (!same_frame(&got->f[i], &want->f[i]))
			return 0;
	return 1;
}

static void dump(const char *what, const struct stack *s)
{
	printf("  %s (%d frames):\n", what, s->n);
	for (int i = 0; i < s->n; i++)
		printf("    %s (%s:%d)\n", s->f[i].func, s->f[i].file, s->f[i].line);
}

static int list_tids(int pid, int *tids, int max)
{
	char path[64];
	struct dirent *d;
	DIR *dir;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return 0;
	while ((d = readdir(dir)) && n < max)
		if (d->d_name[0] != '.')
			tids[n++] = atoi(d->d_name);
	closedir(dir);
	return n;
}

/* One interpreter: returns 0 if it ran, 1 if it was skipped. */
static int run_one(const char *interp, const char *script)
{
	static struct trec_per_cpu_record rec;
	char dir[] = "/tmp/trec-pywalk.XXXXXX", path[600], err[512] = "";
	struct stack want_main, want_worker, got;
	struct trec_py_process *proc = calloc(1, sizeof(*proc));
	struct trec_pyframes *store = trec_pyframes_new();
	struct fake_maps maps = { .store = store };
	const struct trec_interp_sink sink = { fake_set_range, fake_set_proc, fake_del_proc,
					       fake_write_blob, &maps };
	struct trec_py_sync *sync = trec_py_sync_new(&sink, false);
	struct trec_interp_stats st;
	int leaf[16], nleaf = leaf_lines(script, leaf, 16);
	int good_main = 0, good_worker = 0, walks_main = 0, walks_worker = 0, handoffs = 0;
	int ret = 0, out_fd = -1;
	pid_t pid;

	if (!proc || !store || !sync || !mkdtemp(dir)) {
		CHECK(0, "%s: test setup", interp);
		goto out_free;
	}
	pid = spawn(interp, script, dir, &out_fd);
	if (pid < 0) {
		CHECK(0, "%s: chain.py starts and reports ready", interp);
		goto out_dir;
	}
	if (trec_py_probe_pid(pid, proc, err, sizeof(err))) {
		CHECK(0, "%s: detect CPython in pid %d: %s", interp, pid, err);
		goto out_kill;
	}
	CHECK(1, "%s: detect CPython %u.%u.%u in %s (bias %#llx, tsd %+d*%u)", interp,
	      proc->offsets.major, proc->offsets.minor, proc->offsets.micro, proc->path,
	      (unsigned long long)proc->bias, proc->tsd.offset, proc->tsd.multiplier);
	{
		struct sync_walk w = { sync, pid };

		trec_py_for_each_mapping(pid, sync_mapping, &w);
	}
	CHECK(maps.ranges == 1 && maps.procs == 1 && !memcmp(&maps.info, &proc->info, sizeof(maps.info)) &&
	      maps.range.lower1 == proc->offsets.eval_start && maps.range.upper1 == proc->offsets.eval_end &&
	      maps.range.program_index == TREC_PROG_UNWIND_PYTHON,
	      "%s: pid sync sets interpreter_offsets and py_procs once, as the probe computes them", interp);
	snprintf(path, sizeof(path), "%s/main.txt", dir);
	if (read_oracle(path, &want_main)) {
		CHECK(0, "%s: read main thread reference", interp);
		goto out_kill;
	}
	snprintf(path, sizeof(path), "%s/worker.txt", dir);
	if (read_oracle(path, &want_worker)) {
		CHECK(0, "%s: read worker thread reference", interp);
		goto out_kill;
	}

	shim.pid = pid;
	shim.info = maps.info;
	num_seen = 0;
	srand((unsigned)pid);
	for (int round = 0; round < ROUNDS; round++) {
		int tids[MAX_THREADS], ntids, stopped = 0;
		struct timespec ts = { 0, (3 + rand() % 20) * 1000000L };

		nanosleep(&ts, NULL);
		ntids = list_tids(pid, tids, MAX_THREADS);
		for (int i = 0; i < ntids; i++) {
			if (ptrace(PTRACE_SEIZE, tids[i], 0, 0) || ptrace(PTRACE_INTERRUPT, tids[i], 0, 0)) {
				if (errno == EPERM) {
					printf("SKIP: ptrace not permitted\n");
					ret = 1;
					goto out_kill;
				}
				continue;
			}
			waitpid(tids[i], NULL, __WALL);
			stopped++;
		}
		for (int i = 0; i < ntids; i++) {
			struct user_regs_struct regs;
			const struct stack *want = tids[i] == pid ? &want_main : &want_worker;

			if (ptrace(PTRACE_GETREGS, tids[i], 0, &regs))
				continue;
			shim.fsbase = regs.fs_base;
			walk(&rec, pid, &got);
			if (tids[i] == pid)
				handoffs = got.handoffs;
			symbolize(&rec, pid, sync, store, &got);
			if (tids[i] == pid)
				walks_main++, good_main += matches(&got, want, leaf, nleaf);
			else
				walks_worker++, good_worker += matches(&got, want, leaf, nleaf);
			if (!matches(&got, want, leaf, nleaf)) {
				printf("round %d tid %d: mismatch\n", round, tids[i]);
				dump("walked", &got);
				dump("reference", want);
			} else if (round == 0 && tids[i] == pid) {
				dump("walked (main thread, round 0)", &got);
			}
		}
		for (int i = 0; i < ntids; i++)
			ptrace(PTRACE_DETACH, tids[i], 0, 0);
		if (stopped != ntids)
			printf("round %d: stopped %d of %d threads\n", round, stopped, ntids);
	}
	CHECK(walks_main == ROUNDS && good_main == ROUNDS,
	      "%s: main thread walks equal CPython's own stack (%d/%d, %d frames, %d C-level entries)",
	      interp, good_main, walks_main, want_main.n, handoffs);
	CHECK(walks_worker == ROUNDS && good_worker == ROUNDS,
	      "%s: worker thread walks equal CPython's own stack (%d/%d, %d frames)", interp,
	      good_worker, walks_worker, want_worker.n);
	CHECK(shim.metrics[TREC_METRIC_PYTHON_ERRORS] == 0, "%s: no python unwinder errors (%llu)",
	      interp, (unsigned long long)shim.metrics[TREC_METRIC_PYTHON_ERRORS]);
	memset(shim.metrics, 0, sizeof(shim.metrics));
	trec_interp_table_get_stats(trec_py_sync_table(sync), &st);
	CHECK(st.code_written == num_seen && !st.code_unreadable && !st.code_stale &&
	      !maps.blob_errors,
	      "%s: one PYCODE record per code object (%llu written, %zu seen)", interp,
	      (unsigned long long)st.code_written, num_seen);
	trec_interp_table_exit(trec_py_sync_table(sync), (uint32_t)pid);
	CHECK(maps.dels == 1, "%s: exit removes the pid's py_procs entry", interp);
out_kill:
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(out_fd);
out_dir:
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	if (system(path))
		printf("warning: could not remove %s\n", dir);
out_free:
	trec_py_sync_free(sync);
	trec_pyframes_free(store);
	free(proc);
	return ret;
}

int main(void)
{
	const char *root = getenv("TREC_ROOT");
	char script[4096];
	glob_t g = { 0 };
	int ran = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	snprintf(script, sizeof(script), "%s/tests/python/chain.py", root ? root : ".");
	if (access(script, R_OK)) {
		printf("FAIL: %s not found (set TREC_ROOT)\n", script);
		return 1;
	}
	/* Debian's interpreter, and pyenv builds of the supported versions. */
	if (!access("/usr/bin/python3.11", X_OK) && !run_one("/usr/bin/python3.11", script))
		ran++;
	glob("/root/.pyenv/versions/3.1[123]*/bin/python3.1[123]", 0, NULL, &g);
	for (size_t i = 0; i < g.gl_pathc; i++)
		if (!run_one(g.gl_pathv[i], script))
			ran++;
	globfree(&g);
	if (!ran) {
		printf("SKIP: no CPython 3.11+ found\n");
		return 77;
	}
	return failures ? 1 : 0;
}
