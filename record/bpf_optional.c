// SPDX-License-Identifier: MIT
/* Optional unwinder programs, loaded on first need; see bpf_optional.h. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "record/bpf_loader.h"
#include "record/bpf_optional.h"
#include "record/clock.h"
#include "record/unwind/map_sinks.h"
#include "trec.skel.h"
#include "trec_types.h"

/* The programs trec_bpf_load() leaves out, by slot. Each is a
 * TREC_UNWINDER (bpf/tracemgmt.h): `prog` for unwinder_progs and
 * `prog`_offcpu for offcpu_progs, both loaded together with --off-cpu. */
static const struct {
	int slot;
	const char *prog;
} optional_progs[] = {
	{ TREC_PROG_UNWIND_PYTHON, "trec_unwind_python" },
	{ TREC_PROG_UNWIND_PHP, "trec_unwind_php" },
	{ TREC_PROG_UNWIND_PERL, "trec_unwind_perl" },
	{ TREC_PROG_UNWIND_RUBY, "trec_unwind_ruby" },
};

#define NUM_OPTIONAL (sizeof(optional_progs) / sizeof(optional_progs[0]))
#define OFFCPU_SUFFIX "_offcpu"

/* A map write that routes frames to a slot, waiting for its load. */
struct pending_route {
	int map_fd;
	uint64_t key;
	uint8_t value[64]; /* the map's value size of it */
};

#define MAX_PENDING_ROUTES 64
#define LOADING 2

struct trec_bpf_optional {
	pthread_mutex_t lock;
	bool off_cpu;                         /* load the _offcpu twins too */
	struct bpf_object *objs[NUM_OPTIONAL]; /* the instance each was loaded from */
	int status[NUM_OPTIONAL];             /* 0 not tried, LOADING, 1 loaded, < 0 failed */
	char why[NUM_OPTIONAL][160];          /* the failure, for later callers */
	pthread_t thread[NUM_OPTIONAL];       /* a background load, joined at free */
	bool threaded[NUM_OPTIONAL];
	struct pending_route routes[NUM_OPTIONAL][MAX_PENDING_ROUTES];
	size_t num_routes[NUM_OPTIONAL];
};

/* The off-CPU twin's name of an optional program. */
static void twin_name(char *buf, size_t len, const char *prog)
{
	snprintf(buf, len, "%s" OFFCPU_SUFFIX, prog);
}

struct trec_bpf_optional *trec_bpf_optional_defer(struct bpf_object *obj, bool off_cpu)
{
	struct trec_bpf_optional *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	pthread_mutex_init(&o->lock, NULL);
	o->off_cpu = off_cpu;
	for (size_t i = 0; i < NUM_OPTIONAL; i++) {
		char twin[64];
		struct bpf_program *p = bpf_object__find_program_by_name(obj, optional_progs[i].prog);

		if (p)
			bpf_program__set_autoload(p, false);
		twin_name(twin, sizeof(twin), optional_progs[i].prog);
		p = bpf_object__find_program_by_name(obj, twin);
		if (p)
			bpf_program__set_autoload(p, false);
	}
	return o;
}

/* Every map of obj becomes the main object's map of the same position:
 * both are opened from the same ELF, so their maps come in one order. */
static int share_maps(struct bpf_object *obj, struct bpf_object *main_obj)
{
	struct bpf_map *m, *mm = NULL;

	bpf_object__for_each_map(m, obj) {
		mm = bpf_object__next_map(main_obj, mm);
		if (!mm || strcmp(bpf_map__name(m), bpf_map__name(mm)))
			return -EINVAL;
		if (bpf_map__reuse_fd(m, bpf_map__fd(mm)))
			return -errno;
	}
	return 0;
}

/* A second instance of the object with only program `name` (and, with
 * off_cpu, its twin), on the main object's maps (its .rodata included:
 * the same knobs). prog_fd[0] gets the program, prog_fd[1] the twin. */
static int load_instance(struct trec_bpf_loader *l, const char *name, bool off_cpu,
			 struct bpf_object **out, int prog_fd[2])
{
	LIBBPF_OPTS(bpf_object_open_opts, opts, .object_name = "trec_bpf");
	struct bpf_program *p, *want[2] = { NULL, NULL };
	struct bpf_object *obj;
	size_t sz;
	const void *elf = trec_bpf__elf_bytes(&sz);
	char twin[64];
	int e;

	twin_name(twin, sizeof(twin), name);
	obj = bpf_object__open_mem(elf, sz, &opts);
	if (!obj)
		return -errno;
	bpf_object__for_each_program(p, obj) {
		const char *n = bpf_program__name(p);
		int k = !strcmp(n, name) ? 0 : off_cpu && !strcmp(n, twin) ? 1 : -1;

		bpf_program__set_autoload(p, k >= 0);
		if (k >= 0)
			want[k] = p;
	}
	e = want[0] && (!off_cpu || want[1]) ? share_maps(obj, l->skel->obj) : -ENOENT;
	if (!e)
		e = bpf_object__load(obj);
	if (e) {
		bpf_object__close(obj);
		return e < 0 ? e : -EINVAL;
	}
	*out = obj;
	prog_fd[0] = bpf_program__fd(want[0]);
	prog_fd[1] = off_cpu ? bpf_program__fd(want[1]) : -1;
	return 0;
}

/* Both programs into their prog arrays' slot. 0 or a negative errno. */
static int fill_slot(struct trec_bpf_loader *l, int slot, const int prog_fd[2])
{
	if (bpf_map_update_elem(bpf_map__fd(l->skel->maps.unwinder_progs), &slot, &prog_fd[0], 0))
		return -errno;
	if (prog_fd[1] >= 0 &&
	    bpf_map_update_elem(bpf_map__fd(l->skel->maps.offcpu_progs), &slot, &prog_fd[1], 0))
		return -errno;
	return 0;
}

static int slot_index(int slot)
{
	for (size_t i = 0; i < NUM_OPTIONAL; i++)
		if (optional_progs[i].slot == slot)
			return (int)i;
	return -1;
}

/* The route's map write; the stack replay then asks the maps again
 * (trec_maps_changed). 0 or a negative errno. */
static int write_route(struct trec_bpf_loader *l, int map_fd, uint64_t key, const void *value)
{
	int e = bpf_map_update_elem(map_fd, &key, value, BPF_ANY) ? -errno : 0;

	trec_maps_changed(trec_bpf_maps_gen(l));
	return e;
}

/* Loads row i (without the lock: the verifier takes long), then, with
 * it, records the outcome and does the routes that waited for it. */
static void load_row(struct trec_bpf_loader *l, size_t i)
{
	struct trec_bpf_optional *o = l->optional;
	struct bpf_object *obj = NULL;
	uint64_t t0 = trec_now_ns();
	int fd[2], e = load_instance(l, optional_progs[i].prog, o->off_cpu, &obj, fd);

	if (!e)
		e = fill_slot(l, optional_progs[i].slot, fd);
	pthread_mutex_lock(&o->lock);
	o->objs[i] = obj;
	o->status[i] = e ? e : 1;
	if (e) {
		snprintf(o->why[i], sizeof(o->why[i]), "cannot load %s: %s%s", optional_progs[i].prog,
			 strerror(-e), l->verbose ? "" : " (run with -v for the verifier log)");
		if (o->num_routes[i])
			fprintf(stderr, "trecord: warning: no stacks of its interpreter: %s\n",
				o->why[i]);
	} else if (l->verbose) {
		fprintf(stderr, "trecord: loaded %s on first need (%.1f ms)\n",
			optional_progs[i].prog, (trec_now_ns() - t0) / 1e6);
	}
	for (size_t k = 0; !e && k < o->num_routes[i]; k++) {
		const struct pending_route *r = &o->routes[i][k];

		write_route(l, r->map_fd, r->key, r->value);
	}
	o->num_routes[i] = 0;
	pthread_mutex_unlock(&o->lock);
}

struct load_job {
	struct trec_bpf_loader *l;
	size_t i;
};

static void *load_thread(void *arg)
{
	struct load_job *j = arg;

	load_row(j->l, j->i);
	free(j);
	return NULL;
}

/* With the lock held: starts row i's load in a thread (inline, lock
 * dropped meanwhile, if no thread can be made). */
static void start_load(struct trec_bpf_loader *l, size_t i)
{
	struct trec_bpf_optional *o = l->optional;
	struct load_job *j = malloc(sizeof(*j));

	o->status[i] = LOADING;
	if (j) {
		*j = (struct load_job){ l, i };
		if (!pthread_create(&o->thread[i], NULL, load_thread, j)) {
			pthread_setname_np(o->thread[i], "trecord-bpfload");
			o->threaded[i] = true;
			return;
		}
		free(j);
	}
	pthread_mutex_unlock(&o->lock);
	load_row(l, i);
	pthread_mutex_lock(&o->lock);
}

/* With the lock held: 0, or the row's failure in err. */
static int row_outcome(struct trec_bpf_optional *o, size_t i, char *err, size_t errlen)
{
	if (o->status[i] >= 0)
		return 0;
	snprintf(err, errlen, "%s", o->why[i]);
	return o->status[i];
}

int trec_bpf_route_when_loaded(struct trec_bpf_loader *l, int slot, int map_fd, uint64_t key,
			       const void *value, size_t size, char *err, size_t errlen)
{
	struct trec_bpf_optional *o = l->optional;
	int i = slot_index(slot), e = 0;
	bool now;

	if (size > sizeof(o->routes[0][0].value))
		return -EINVAL;
	if (i < 0 || !o)
		return write_route(l, map_fd, key, value);
	pthread_mutex_lock(&o->lock);
	now = o->status[i] == 1;
	if (o->status[i] < 0) {
		e = row_outcome(o, i, err, errlen);
	} else if (!now && o->num_routes[i] == MAX_PENDING_ROUTES) {
		e = -ENOSPC;
		snprintf(err, errlen, "too many files wait for %s to load", optional_progs[i].prog);
	} else if (!now) {
		struct pending_route *r = &o->routes[i][o->num_routes[i]++];

		*r = (struct pending_route){ .map_fd = map_fd, .key = key };
		memcpy(r->value, value, size);
		if (!o->status[i])
			start_load(l, i);
	}
	pthread_mutex_unlock(&o->lock);
	if (now)
		e = write_route(l, map_fd, key, value);
	return e;
}

/* Waits for the background loads still running. */
static void join_loads(struct trec_bpf_optional *o)
{
	for (size_t i = 0; i < NUM_OPTIONAL; i++)
		if (o->threaded[i]) {
			pthread_join(o->thread[i], NULL);
			o->threaded[i] = false;
		}
}

void trec_bpf_optional_print_stats(struct trec_bpf_optional *o, FILE *out)
{
	if (o)
		join_loads(o);
	for (size_t i = 0; o && i < NUM_OPTIONAL; i++)
		if (o->objs[i])
			trec_bpf_print_obj_stats(o->objs[i], out);
}

void trec_bpf_optional_free(struct trec_bpf_optional *o)
{
	if (!o)
		return;
	join_loads(o);
	for (size_t i = 0; i < NUM_OPTIONAL; i++)
		bpf_object__close(o->objs[i]);
	pthread_mutex_destroy(&o->lock);
	free(o);
}
