// SPDX-License-Identifier: MIT
/*
 * record/io/output.c's compression level: auto (no -z) is level 3, level
 * 1 once records come faster than 1 MiB/s between two flush ticks, and 3
 * again below 512 KiB/s (between the two, the level stays); -z N holds N
 * whatever the rate, for writers swapped in too; a level out of range is
 * refused. And the level set is the one chunks are compressed at.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "record/io/output.h"
#include "trec_format.h"
#include "unit_check.h"

#define SEC 1000000000ULL

static uint64_t seed = 7;

static uint64_t rnd(void)
{
	seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return seed >> 33;
}

/* Samples with stacks of 30 random frames until w has taken `bytes`
 * more record bytes. */
static int write_bytes(struct trec_writer *w, uint64_t bytes)
{
	static struct trec_rec_frame f[30];
	uint64_t until = trec_writer_record_bytes(w) + bytes;
	int err = 0;

	for (unsigned i = 0; !err && trec_writer_record_bytes(w) < until; i++) {
		struct trec_sample s = { .time_ns = i, .pid = 1, .tid = 1, .weight = 1,
					 .num_user_frames = 30, .user_frames = f };

		for (unsigned j = 0; j < 30; j++)
			f[j] = (struct trec_rec_frame){ 1 + j % 3, 0x400000 + rnd() % 0x100000, 3,
							j ? 2 : 0 };
		err = trec_write_sample(w, &s);
	}
	return err;
}

static struct trec_writer *new_writer(int *fd)
{
	struct trec_header h;

	trec_header_init_host(&h);
	*fd = memfd_create("level", 0);
	return *fd < 0 ? NULL : trec_writer_open_fd(dup(*fd), &h, NULL);
}

static void test_auto_and_fixed(void)
{
	struct trec_output o;
	struct trec_writer *w, *w2;
	int fd, fd2;

	w = new_writer(&fd);
	if (!w) {
		CHECK("a writer", false);
		return;
	}
	trec_output_open_writer(&o, "mem", w);
	CHECK("auto: level 3 at first", trec_output_set_level(&o, 0) == 0 &&
						trec_writer_level(w) == 3);
	trec_output_flush_tick(&o, 1 * SEC);
	/* Each step: records written, then the tick at `at`, then the level. */
	static const struct {
		uint64_t bytes, at;
		int level;
		const char *what;
	} steps[] = {
		{ 1536 << 10, 2 * SEC, 1, "auto: 1.5 MiB in a second: level 1" },
		{ 700 << 10, 3 * SEC, 1, "auto: 700 KiB in a second: level 1 still" },
		{ 100 << 10, 4 * SEC, 3, "auto: 100 KiB in a second: level 3 again" },
		{ 1536 << 10, 14 * SEC, 3, "auto: 1.5 MiB over ten seconds: level 3" },
	};
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		write_bytes(w, steps[i].bytes);
		trec_output_flush_tick(&o, steps[i].at);
		CHECK(steps[i].what, trec_writer_level(w) == steps[i].level);
	}

	CHECK("-z 7", trec_output_set_level(&o, 7) == 0 && trec_writer_level(w) == 7);
	write_bytes(w, 1536 << 10);
	trec_output_flush_tick(&o, 15 * SEC);
	CHECK("-z 7 holds at 1.5 MiB/s", trec_writer_level(w) == 7);
	CHECK("-z 23 refused, 7 kept",
	      trec_output_set_level(&o, 23) == -EINVAL && trec_writer_level(w) == 7);
	CHECK("-z -1 refused", trec_output_set_level(&o, -1) == -EINVAL);

	w2 = new_writer(&fd2);
	CHECK("a writer swapped in takes -z's level",
	      w2 && trec_output_swap(&o, w2) == w && trec_writer_level(w2) == 7);
	trec_writer_close(w);
	trec_output_close(&o);
	close(fd);
	if (fd2 >= 0)
		close(fd2);
}

/* A record the format cannot hold is left out and the recording goes
 * on; any other error ends it (trec_output_error, which the session
 * loop stops on). */
static void test_refused_records(void)
{
	struct trec_output o;
	struct trec_writer *w;
	int fd;

	w = new_writer(&fd);
	if (!w) {
		CHECK("a writer", false);
		return;
	}
	trec_output_open_writer(&o, "mem", w);
	trec_output_lock(&o);
	trec_output_unlock(&o, -E2BIG);
	trec_output_lock(&o);
	trec_output_unlock(&o, -EINVAL);
	CHECK("records past the format's limits: left out, not an error",
	      trec_output_error(&o) == 0 && o.refused == 2);
	CHECK("... and the output still takes records", trec_output_lock(&o) == w);
	trec_output_unlock(&o, -EIO);
	CHECK("an I/O error ends it", trec_output_error(&o) == -EIO && !trec_output_lock(&o));
	trec_output_close(&o);
	close(fd);
}

/* The same records at level 1 and 19: the level is the one compressed at. */
static void test_level_applies(void)
{
	uint64_t size[2] = { 0, 0 };
	const int levels[2] = { 1, 19 };

	for (int i = 0; i < 2; i++) {
		struct trec_writer *w;
		int fd;

		seed = 7;
		w = new_writer(&fd);
		if (!w || trec_writer_set_level(w, levels[i]) || write_bytes(w, 2 << 20) ||
		    trec_writer_flush(w))
			size[i] = 0;
		else
			size[i] = trec_writer_bytes(w);
		if (w)
			trec_writer_close(w);
		if (fd >= 0)
			close(fd);
	}
	printf("2 MiB of records: %llu bytes at level 1, %llu at level 19\n",
	       (unsigned long long)size[0], (unsigned long long)size[1]);
	CHECK("level 19 compresses the same records smaller than level 1",
	      size[0] && size[1] && size[1] < size[0]);
}

int main(void)
{
	test_auto_and_fixed();
	test_level_applies();
	test_refused_records();
	return failures != 0;
}
