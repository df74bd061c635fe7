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
	return failures != 0;
}
