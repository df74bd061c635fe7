// SPDX-License-Identifier: MIT
/*
 * pid sync against plain tables: sync our own process and check the LPM
 * prefixes with an independent oracle, dl_iterate_phdr (the dynamic
 * loader's own view of every loaded object and its load bias).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "record/procs/file_id.h"
#include "record/procs/pid_sync.h"
#include "unit_check.h"

#define MAX_ENTS 8192

struct fake {
	struct trec_pid_page_key k[MAX_ENTS];
	struct trec_pid_page_value v[MAX_ENTS];
	int live[MAX_ENTS];
	int updates, deletes, files, snapshots, blobs, deltas, resets;
	uint64_t now;
};

static int same_key(const struct trec_pid_page_key *a, const struct trec_pid_page_key *b)
{
	return a->prefix_len == b->prefix_len && a->pid_be == b->pid_be && a->page_be == b->page_be;
}

static int f_update(void *ctx, const struct trec_pid_page_key *k, const struct trec_pid_page_value *v)
{
	struct fake *f = ctx;
	int freeslot = -1;

	f->updates++;
	for (int i = 0; i < MAX_ENTS; i++) {
		if (f->live[i] && same_key(&f->k[i], k)) {
			f->v[i] = *v;
			return 0;
		}
		if (!f->live[i] && freeslot < 0)
			freeslot = i;
	}
	if (freeslot < 0)
		return -E2BIG;
	f->k[freeslot] = *k;
	f->v[freeslot] = *v;
	f->live[freeslot] = 1;
	return 0;
}

static int f_delete(void *ctx, const struct trec_pid_page_key *k)
{
	struct fake *f = ctx;

	f->deletes++;
	for (int i = 0; i < MAX_ENTS; i++)
		if (f->live[i] && same_key(&f->k[i], k)) {
			f->live[i] = 0;
			return 0;
		}
	return -ENOENT;
}

static int f_file(void *ctx, const struct trec_file_info *fi) { ((struct fake *)ctx)->files++; return 0; }
static int f_maps(void *ctx, const struct trec_mapping_snapshot *m) { ((struct fake *)ctx)->snapshots++; return 0; }
static int f_blob(void *ctx, enum trec_record_type t, const struct trec_blob *b) { ((struct fake *)ctx)->blobs++; return 0; }
static void f_reset(void *ctx, uint32_t pid) { ((struct fake *)ctx)->resets++; }
static uint64_t f_now(void *ctx) { return ((struct fake *)ctx)->now; }
static void f_deltas(void *ctx, uint64_t id, int fd, uint64_t size, const char *name)
{
	((struct fake *)ctx)->deltas++;
	close(fd);
}

/* The trie's answer: the longest live prefix matching (pid, addr). */
static int lookup(const struct fake *f, uint32_t pid, uint64_t addr)
{
	int best = -1;
	uint32_t best_len = 0;

	for (int i = 0; i < MAX_ENTS; i++) {
		uint32_t bits;
		uint64_t page;

		if (!f->live[i] || f->k[i].pid_be != __builtin_bswap32(pid))
			continue;
		bits = f->k[i].prefix_len - 32;
		page = __builtin_bswap64(f->k[i].page_be);
		if (bits && ((page ^ addr) >> (64 - bits)))
			continue;
		if (f->k[i].prefix_len > best_len) {
			best_len = f->k[i].prefix_len;
			best = i;
		}
	}
	return best;
}

static int live_count(const struct fake *f)
{
	int n = 0;

	for (int i = 0; i < MAX_ENTS; i++)
		n += f->live[i];
	return n;
}

struct oracle_ctx {
	struct fake *f;
	int objects, good, vdso_ok;
};

static uint64_t expected_id(const char *name)
{
	struct trec_file tf;
	uint64_t id = 0;
	int fd = open(name[0] ? name : "/proc/self/exe", O_RDONLY);

	if (fd >= 0 && !trec_file_describe(fd, name, &tf)) {
		id = tf.file_id;
		trec_file_release(&tf);
	}
	if (fd >= 0)
		close(fd);
	return id;
}

static int per_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct oracle_ctx *o = arg;
	int is_vdso = info->dlpi_addr == getauxval(AT_SYSINFO_EHDR);

	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uint64_t mid = info->dlpi_addr + ph->p_vaddr + ph->p_memsz / 2;
		int e;

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		o->objects++;
		e = lookup(o->f, getpid(), mid);
		if (e < 0)
			continue;
		uint64_t bias = o->f->v[e].bias_and_unwinder & TREC_BIAS_MASK;
		uint64_t prog = o->f->v[e].bias_and_unwinder >> TREC_UNWINDER_SHIFT;

		if (is_vdso) {
			o->vdso_ok = bias == info->dlpi_addr && o->f->v[e].file_id != 0;
			o->good += o->vdso_ok;
			continue;
		}
		if (bias == info->dlpi_addr && prog == TREC_PROG_UNWIND_NATIVE &&
		    o->f->v[e].file_id == expected_id(info->dlpi_name))
			o->good++;
		else
			printf("  mismatch for %s: bias %llx want %llx\n", info->dlpi_name,
			       (unsigned long long)bias, (unsigned long long)info->dlpi_addr);
	}
	return 0;
}

/* A child that waits until *release is closed; -1 if none. */
static pid_t waiting_child(int *release)
{
	int pipefd[2];
	char c;
	pid_t kid;

	if (pipe(pipefd))
		return -1;
	kid = fork();
	if (kid == 0) {
		close(pipefd[1]);
		_exit(read(pipefd[0], &c, 1) < 0);
	}
	close(pipefd[0]);
	*release = pipefd[1];
	return kid;
}

static const struct trec_pid_sync_ops ops = {
	.lpm_update = f_update, .lpm_delete = f_delete, .report_reset = f_reset,
	.load_deltas = f_deltas, .write_file = f_file, .write_mappings = f_maps,
	.write_blob = f_blob, .now_ns = f_now,
};

int main(void)
{
	static struct fake f;
	struct oracle_ctx o = { .f = &f };
	struct trec_pid_sync *s = trec_pid_sync_new(&ops, &f, false);
	struct trec_pid_page_key marker;
	int e, before;

	CHECK("pid_sync: created", s != NULL);
	CHECK("pid_sync: syncing ourselves succeeds", trec_pid_sync_pid(s, getpid()) == 0);
	trec_lpm_key(&marker, getpid(), 0, 64);
	e = -1;
	for (int i = 0; i < MAX_ENTS; i++)
		if (f.live[i] && same_key(&f.k[i], &marker))
			e = i;
	CHECK("pid_sync: the synced marker {96, pid, 0} is there", e >= 0 && marker.prefix_len == 96);

	dl_iterate_phdr(per_object, &o);
	CHECK("pid_sync: every executable segment the loader knows resolves to its file id and load bias",
	      o.objects >= 3 && o.good == o.objects);
	CHECK("pid_sync: the vdso has a file id and its bias", o.vdso_ok);
	CHECK("pid_sync: a pc outside every mapping resolves to nothing",
	      lookup(&f, getpid(), 0x1000) < 0);
	CHECK("pid_sync: another pid's lookups miss", lookup(&f, getpid() + 1, (uintptr_t)&main) < 0);
	CHECK("pid_sync: FILE records written", f.files >= 3);
	CHECK("pid_sync: one mapping snapshot", f.snapshots == 1);
	CHECK("pid_sync: the vdso image embedded as a blob", f.blobs == 1);
	CHECK("pid_sync: deltas requested for each ELF file", f.deltas >= 3);
	CHECK("pid_sync: known", trec_pid_sync_known(s, getpid()));

	/* An unchanged resync writes nothing new but the marker. */
	before = f.updates;
	int files = f.files, deltas = f.deltas;
	CHECK("pid_sync: resync succeeds", trec_pid_sync_pid(s, getpid()) == 0);
	CHECK("pid_sync: unchanged resync: only the marker is rewritten", f.updates == before + 1);
	CHECK("pid_sync: unchanged resync: no snapshot, no FILE, no deltas",
	      f.snapshots == 1 && f.files == files && f.deltas == deltas);

	/* A new executable mapping (like dlopen) shows up on resync. */
	void *p = mmap(NULL, 3 * 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int n0 = live_count(&f);
	CHECK("pid_sync: resync after a new mapping", trec_pid_sync_pid(s, getpid()) == 0);
	e = lookup(&f, getpid(), (uintptr_t)p + 4096);
	CHECK("pid_sync: the anonymous executable mapping is covered, with file id 0, by frame pointer",
	      e >= 0 && f.v[e].file_id == 0 &&
	      f.v[e].bias_and_unwinder >> TREC_UNWINDER_SHIFT == TREC_UNWIND_FRAME_POINTER);
	CHECK("pid_sync: a new snapshot, and the rate limit is reset", f.snapshots == 2 && f.resets == 2);
	munmap(p, 3 * 4096);
	CHECK("pid_sync: resync after unmapping", trec_pid_sync_pid(s, getpid()) == 0);
	CHECK("pid_sync: the unmapped range is gone", lookup(&f, getpid(), (uintptr_t)p + 4096) < 0 &&
	      live_count(&f) == n0);

	/* An exit keeps the entries for the grace period, then removes them. */
	f.now = 1000 * TREC_EXIT_GRACE_NS;
	n0 = live_count(&f);
	trec_pid_sync_exited(s, getpid());
	trec_pid_sync_reap(s, false);
	CHECK("pid_sync: exited: the entries stay during the grace period",
	      live_count(&f) == n0 && trec_pid_sync_known(s, getpid()));
	f.now += TREC_EXIT_GRACE_NS + 1;
	trec_pid_sync_reap(s, false);
	CHECK("pid_sync: exited: removed after the grace period",
	      live_count(&f) == 0 && !trec_pid_sync_known(s, getpid()));
	/* A sync after the exit is a new process under the pid: it stays. */
	CHECK("pid_sync: sync again", trec_pid_sync_pid(s, getpid()) == 0);
	trec_pid_sync_exited(s, getpid());
	f.now += 1;
	CHECK("pid_sync: ... and after an exit, once more", trec_pid_sync_pid(s, getpid()) == 0);
	f.now += 2 * TREC_EXIT_GRACE_NS;
	trec_pid_sync_reap(s, false);
	CHECK("pid_sync: a pid synced after its exit outlives the grace period",
	      trec_pid_sync_known(s, getpid()) && live_count(&f) == n0);
	trec_pid_sync_exited(s, getpid());
	trec_pid_sync_reap(s, true);
	CHECK("pid_sync: reap(all) removes an exited pid at once", live_count(&f) == 0);
	CHECK("pid_sync: sync once more", trec_pid_sync_pid(s, getpid()) == 0);

	/* A forked child gets our entries under its pid, and its own read of
	 * /proc agrees with them (an unchanged resync: no new snapshot). */
	int release;
	pid_t kid = waiting_child(&release);
	CHECK("pid_sync: a child", kid > 0);
	n0 = live_count(&f);
	int snaps = f.snapshots, e_self = lookup(&f, getpid(), (uintptr_t)&main);
	CHECK("pid_sync: fork copy from an unknown parent is ENOENT",
	      trec_pid_sync_fork(s, kid, 0x7ffffff0) == -ENOENT && live_count(&f) == n0);
	CHECK("pid_sync: fork copy succeeds", trec_pid_sync_fork(s, kid, getpid()) == 0);
	e = lookup(&f, kid, (uintptr_t)&main);
	CHECK("pid_sync: fork copy: the child resolves our pcs like we do",
	      e >= 0 && e_self >= 0 && f.v[e].file_id == f.v[e_self].file_id &&
	      f.v[e].bias_and_unwinder == f.v[e_self].bias_and_unwinder);
	CHECK("pid_sync: fork copy: as many entries as ours, a marker and a snapshot",
	      live_count(&f) == 2 * n0 && f.snapshots == snaps + 1 && trec_pid_sync_known(s, kid));
	CHECK("pid_sync: fork copy: the child's own sync finds nothing new",
	      trec_pid_sync_pid(s, kid) == 0 && f.snapshots == snaps + 1 && live_count(&f) == 2 * n0);
	close(release);
	waitpid(kid, NULL, 0);
	/* Its exit event never came: the sweep finds it gone, and it gets
	 * the grace period an exit event gives (deferred samples need it). */
	trec_pid_sync_sweep(s);
	CHECK("pid_sync: sweep: a gone pid whose exit was not seen stays for the grace period",
	      trec_pid_sync_known(s, kid) && live_count(&f) == 2 * n0);
	trec_pid_sync_sweep(s);
	CHECK("pid_sync: sweep: ... also at the next sweep within it", trec_pid_sync_known(s, kid));
	CHECK("pid_sync: sweep: a live pid is left alone", trec_pid_sync_known(s, getpid()));
	f.now += TREC_EXIT_GRACE_NS + 1;
	trec_pid_sync_reap(s, false);
	CHECK("pid_sync: sweep: ... and is removed after it, leaving ours",
	      !trec_pid_sync_known(s, kid) && live_count(&f) == n0);

	/* A sync that raced the exit (the maps of the process tearing down)
	 * keeps the pid past its reap; the end of the recording removes it
	 * once it is gone, and leaves a live pid alone. */
	kid = waiting_child(&release);
	CHECK("pid_sync: raced exit: sync", trec_pid_sync_pid(s, kid) == 0);
	trec_pid_sync_exited(s, kid);
	f.now += 1;
	CHECK("pid_sync: raced exit: a sync after the exit event", trec_pid_sync_pid(s, kid) == 0);
	f.now += TREC_EXIT_GRACE_NS + 1;
	trec_pid_sync_reap(s, false);
	CHECK("pid_sync: raced exit: kept past its reap", trec_pid_sync_known(s, kid));
	close(release);
	waitpid(kid, NULL, 0);
	trec_pid_sync_reap(s, true);
	CHECK("pid_sync: raced exit: reap(all) removes it once gone, and keeps a live pid",
	      !trec_pid_sync_known(s, kid) && trec_pid_sync_known(s, getpid()) &&
	      live_count(&f) == n0);

	trec_pid_sync_remove(s, getpid());
	CHECK("pid_sync: remove deletes every entry and the marker", live_count(&f) == 0);
	CHECK("pid_sync: no longer known", !trec_pid_sync_known(s, getpid()));
	CHECK("pid_sync: a missing pid is ESRCH", trec_pid_sync_pid(s, 0x7ffffff0) == -ESRCH);

	/* A zombie has no mappings: gone, and no marker left behind. */
	pid_t z = fork();
	if (z == 0)
		_exit(0);
	usleep(100000);
	CHECK("pid_sync: a zombie is ESRCH", trec_pid_sync_pid(s, z) == -ESRCH);
	CHECK("pid_sync: ... and leaves nothing in the trie", live_count(&f) == 0 && !trec_pid_sync_known(s, z));
	waitpid(z, NULL, 0);
	trec_pid_sync_free(s);
	return failures != 0;
}
