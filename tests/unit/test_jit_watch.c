// SPDX-License-Identifier: MIT
/*
 * The watch of JIT-like processes with no JIT file yet (record/jit/watch.c)
 * on real processes: this test's own (a jitdump it maps, a perf map it
 * writes), children that are gone or sleep; the round's timer, its batch
 * bound and the watch's cap. Also the jitdump marker name.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record/jit/jitdump.h"
#include "record/jit/watch.h"
#include "unit_check.h"

#define SEC 1000000000ULL
#define NCHILD 10

static uint64_t now = SEC;

/* The next round, a tick later. */
static bool round_(struct trec_jit_watch *w, struct trec_jit_watch_round *r)
{
	now += TREC_JIT_WATCH_TICK_NS;
	return trec_jit_watch_tick(w, now, r);
}

static void test_marker(void)
{
	CHECK("marker: /d/jit-42.dump is pid 42", trec_jitdump_marker_pid("/d/jit-42.dump") == 42);
	CHECK("marker: a bare name has no directory: not taken",
	      trec_jitdump_marker_pid("jit-42.dump") == -1);
	CHECK("marker: other names are not", trec_jitdump_marker_pid("/d/jit-42.dumpx") == -1 &&
	      trec_jitdump_marker_pid("/d/jit-.dump") == -1 &&
	      trec_jitdump_marker_pid("/d/jit-4x.dump") == -1 &&
	      trec_jitdump_marker_pid("/d/xjit-42.dump") == -1 && trec_jitdump_marker_pid("") == -1);
	CHECK("marker: over 32 bits is not a pid",
	      trec_jitdump_marker_pid("/d/jit-4294967296.dump") == -1);
}

static void test_self(void)
{
	struct trec_jit_watch *w = trec_jit_watch_new();
	struct trec_jit_watch_round r;
	uint32_t me = (uint32_t)getpid();
	char dir[] = "/tmp/trec-watch.XXXXXX", path[128];
	void *map = MAP_FAILED;
	int fd = -1;

	CHECK("self: watched", w && trec_jit_watch_add(w, me, me));
	CHECK("self: a round re-reads its maps, nothing found",
	      round_(w, &r) && r.rechecked == 1 && r.found == 0 && r.ndump == 0);
	CHECK("self: no round again before the tick is over",
	      !trec_jit_watch_tick(w, now + TREC_JIT_WATCH_TICK_NS - 1, &r) && !r.rechecked);
	CHECK("self: still watched the next round", round_(w, &r) && r.rechecked == 1);
	/* the dump, mapped executable as perf wants it */
	if (mkdtemp(dir)) {
		snprintf(path, sizeof(path), "%s/jit-%u.dump", dir, me);
		fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0600);
	}
	if (fd >= 0 && !ftruncate(fd, 4096))
		map = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	CHECK("self: the dump is mapped", map != MAP_FAILED);
	CHECK("self: its maps show the dump: handed back",
	      round_(w, &r) && r.found == 1 && r.ndump == 1 && r.dump_pids[0] == me);
	CHECK("self: ... and no longer watched", !round_(w, &r));
	if (map != MAP_FAILED)
		munmap(map, 4096);
	/* unmapped, the dump is no longer this process's */
	trec_jit_watch_add(w, me, me);
	CHECK("self: the dump unmapped: not found", round_(w, &r) && r.rechecked == 1 && !r.found);
	trec_jit_watch_del(w, me);
	CHECK("self: deleted: no round", !round_(w, &r));
	if (fd >= 0) {
		close(fd);
		unlink(path);
		rmdir(dir);
	}
	/* a perf map: found, not handed back for a resync (it is read by name) */
	snprintf(path, sizeof(path), "/tmp/perf-%u.map", me);
	fd = open(path, O_CREAT | O_WRONLY | O_EXCL, 0600);
	CHECK("self: perf map written", fd >= 0);
	trec_jit_watch_add(w, me, me);
	CHECK("self: the perf map is found, nothing to resync",
	      round_(w, &r) && r.found == 1 && r.ndump == 0);
	CHECK("self: ... and no longer watched", !round_(w, &r));
	if (fd >= 0) {
		close(fd);
		unlink(path);
	}
	trec_jit_watch_free(w);
}

static void test_children(void)
{
	struct trec_jit_watch *w = trec_jit_watch_new();
	struct trec_jit_watch_round r;
	pid_t kid[NCHILD], gone = fork();
	char path[64];
	int made = 0;

	if (!gone)
		_exit(0);
	waitpid(gone, NULL, 0);
	trec_jit_watch_add(w, (uint32_t)gone, (uint32_t)gone);
	CHECK("gone: a process that exited is dropped",
	      round_(w, &r) && r.rechecked == 0 && !r.found && !round_(w, &r));

	for (int i = 0; i < NCHILD; i++) {
		if (!(kid[i] = fork())) {
			pause();
			_exit(0);
		}
		trec_jit_watch_add(w, (uint32_t)kid[i], (uint32_t)kid[i]);
	}
	CHECK("batch: a round re-reads at most TREC_JIT_WATCH_BATCH",
	      round_(w, &r) && r.rechecked == TREC_JIT_WATCH_BATCH && !r.found);
	for (int i = 0; i < NCHILD; i++) {
		snprintf(path, sizeof(path), "/tmp/perf-%d.map", kid[i]);
		int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);

		made += fd >= 0;
		if (fd >= 0)
			close(fd);
	}
	CHECK("batch: every child has a perf map", made == NCHILD);
	CHECK("batch: found a batch at a time",
	      round_(w, &r) && r.found == TREC_JIT_WATCH_BATCH && round_(w, &r) &&
	      r.found == NCHILD - TREC_JIT_WATCH_BATCH && !round_(w, &r));
	for (int i = 0; i < NCHILD; i++) {
		snprintf(path, sizeof(path), "/tmp/perf-%d.map", kid[i]);
		unlink(path);
		kill(kid[i], SIGKILL);
		waitpid(kid[i], NULL, 0);
	}
	trec_jit_watch_free(w);
}

static void test_cap(void)
{
	struct trec_jit_watch *w = trec_jit_watch_new();
	bool ok = true;

	for (uint32_t pid = 1; pid <= TREC_JIT_WATCH_MAX; pid++)
		ok &= trec_jit_watch_add(w, pid, pid);
	CHECK("cap: TREC_JIT_WATCH_MAX pids watched", ok);
	CHECK("cap: one more is refused", !trec_jit_watch_add(w, TREC_JIT_WATCH_MAX + 1, 1));
	CHECK("cap: one already watched is still taken", trec_jit_watch_add(w, 7, 7));
	CHECK("cap: pid 0 is never watched", !trec_jit_watch_add(w, 0, 0));
	trec_jit_watch_free(w);
}

int main(void)
{
	test_marker();
	test_self();
	test_children();
	test_cap();
	return failures ? 1 : 0;
}
