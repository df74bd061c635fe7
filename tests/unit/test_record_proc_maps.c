// SPDX-License-Identifier: MIT
/* /proc/PID/maps parsing, on fixed lines and on our own maps. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "record/procs/proc_maps.h"
#include "unit_check.h"

int main(void)
{
	struct trec_proc_map m;
	struct trec_proc_maps all;
	int err;

	err = trec_proc_map_parse_line(
		"7f2c1a200000-7f2c1a228000 r-xp 00028000 fd:01 1835102                    /usr/lib/x86_64-linux-gnu/libc.so.6\n", &m);
	CHECK("maps: a library line parses", !err);
	CHECK("maps: addresses, offset, device, inode",
	      m.start == 0x7f2c1a200000 && m.end == 0x7f2c1a228000 && m.offset == 0x28000 &&
	      m.dev_major == 0xfd && m.dev_minor == 1 && m.inode == 1835102);
	CHECK("maps: permissions", m.prot == (PROT_READ | PROT_EXEC) && !m.shared);
	CHECK("maps: path without newline", !strcmp(m.path, "/usr/lib/x86_64-linux-gnu/libc.so.6"));
	free(m.path);

	err = trec_proc_map_parse_line("55d4e0a00000-55d4e0a21000 rw-p 00000000 00:00 0                          [heap]", &m);
	CHECK("maps: [heap] is special", !err && !strcmp(m.path, "[heap]") && trec_proc_map_is_special(&m) &&
	      m.prot == (PROT_READ | PROT_WRITE));
	free(m.path);
	err = trec_proc_map_parse_line("7f0000000000-7f0000001000 ---p 00000000 00:00 0", &m);
	CHECK("maps: anonymous mapping has an empty path", !err && m.path[0] == 0 && m.prot == 0);
	free(m.path);
	err = trec_proc_map_parse_line("7f0000000000-7f0000001000 r-xs 00000000 08:02 42   /tmp/a b (deleted)\n", &m);
	CHECK("maps: spaces and (deleted) stay in the path", !err && !strcmp(m.path, "/tmp/a b (deleted)") && m.shared);
	free(m.path);
	CHECK("maps: garbage is rejected", trec_proc_map_parse_line("hello world", &m) == -EINVAL);
	CHECK("maps: end below start is rejected",
	      trec_proc_map_parse_line("2000-1000 r-xp 00000000 00:00 0", &m) == -EINVAL);
	CHECK("maps: bad permissions are rejected",
	      trec_proc_map_parse_line("1000-2000 rx 00000000 00:00 0", &m) == -EINVAL);

	err = trec_proc_maps_read_pid(getpid(), &all);
	int found = 0;
	for (size_t i = 0; !err && i < all.n; i++)
		if (all.v[i].start <= (uintptr_t)&main && (uintptr_t)&main < all.v[i].end &&
		    (all.v[i].prot & PROT_EXEC))
			found = 1;
	CHECK("maps: our own maps contain main in an executable mapping", !err && found);
	trec_proc_maps_free(&all);
	CHECK("maps: a missing pid is ENOENT", trec_proc_maps_read_pid(0x7ffffff0, &all) == -ENOENT);

	/* The image identity: start_stack inside [stack], start_brk where
	 * [heap] begins (malloc'd memory makes one, unless the allocator
	 * does not use brk, as ASan's: then the break is still there). */
	uint64_t id[2];
	void *volatile heap = malloc(100);
	int in_stack = 0, at_heap = -1;

	err = trec_proc_image_id(getpid(), id) || trec_proc_maps_read_pid(getpid(), &all);
	for (size_t i = 0; !err && i < all.n; i++) {
		if (!strcmp(all.v[i].path, "[stack]"))
			in_stack = all.v[i].start <= id[0] && id[0] < all.v[i].end;
		if (!strcmp(all.v[i].path, "[heap]"))
			at_heap = all.v[i].start == id[1];
	}
	if (at_heap < 0)
		at_heap = (uintptr_t)sbrk(0) == id[1];
	CHECK("stat: start_stack lies in [stack], start_brk is where [heap] begins",
	      !err && in_stack && at_heap);
	trec_proc_maps_free(&all);
	free(heap);
	/* After the last ")": state, then fields 4, 5, ... (here numbered
	 * 1, 2, ...: field 28 is "25", field 47 is "44"). */
	static const char comm[] = "42 (a) 1 2 (b) R 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 "
				   "20 21 22 23 24 777 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 "
				   "42 43 888 45 46\n";
	CHECK("stat: a comm with \") \" and digits is skipped to its last \")\"",
	      !trec_proc_image_id_parse(comm, sizeof(comm) - 1, id) && id[0] == 777 && id[1] == 888);
	CHECK("stat: too few fields is -EINVAL and {0, 0}",
	      trec_proc_image_id_parse(comm, 60, id) == -EINVAL && !id[0] && !id[1]);
	CHECK("stat: no \")\" is -EINVAL", trec_proc_image_id_parse("1 2 3", 5, id) == -EINVAL);
	CHECK("stat: a missing pid fails", trec_proc_image_id(0x7ffffff0, id) == -ENOENT);
	return failures != 0;
}
