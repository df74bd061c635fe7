// SPDX-License-Identifier: MIT
/*
 * Builds tests/python/python_unwind_check.bpf.c (the Python unwinder in a
 * perf_event program) with clang and loads it: the running kernel's
 * verifier must accept bpf/python_unwind.h. Maps are shrunk before load;
 * their sizes do not matter to the verifier.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

static char log_buf[1 << 20];

static int print_fn(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_DEBUG ? 0 : vfprintf(stdout, fmt, ap);
}

int main(void)
{
	const char *root = getenv("TREC_ROOT") ? getenv("TREC_ROOT") : ".";
	char obj_path[] = "/tmp/trec-pybpf.XXXXXX", cmd[8192];
	LIBBPF_OPTS(bpf_object_open_opts, opts, .kernel_log_buf = log_buf,
		    .kernel_log_size = sizeof(log_buf), .kernel_log_level = 1);
	struct bpf_object *obj;
	struct bpf_program *prog;
	struct bpf_map *map;
	int fd, err, ok;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (access("/sys/kernel/btf/vmlinux", R_OK) || geteuid() != 0) {
		printf("SKIP: needs root and kernel BTF\n");
		return 77;
	}
	fd = mkstemp(obj_path);
	if (fd < 0)
		return 1;
	close(fd);
	snprintf(cmd, sizeof(cmd),
		 "clang -g -O2 -target bpf -D__TARGET_ARCH_x86 -Wall -Werror -I%s/build -I%s/bpf "
		 "-c %s/tests/python/python_unwind_check.bpf.c -o %s",
		 root, root, root, obj_path);
	if (system(cmd)) {
		printf("FAIL: python unwinder compiles for BPF\n");
		unlink(obj_path);
		return 1;
	}
	printf("PASS: python unwinder compiles for BPF\n");

	libbpf_set_print(print_fn);
	obj = bpf_object__open_file(obj_path, &opts);
	err = libbpf_get_error(obj);
	if (err) {
		printf("FAIL: open BPF object: %s\n", strerror(-err));
		unlink(obj_path);
		return 1;
	}
	bpf_object__for_each_map(map, obj) {
		if (bpf_map__type(map) == BPF_MAP_TYPE_RINGBUF)
			bpf_map__set_max_entries(map, 64 * 1024);
		else if (bpf_map__type(map) != BPF_MAP_TYPE_PROG_ARRAY &&
			 bpf_map__type(map) != BPF_MAP_TYPE_PERF_EVENT_ARRAY &&
			 bpf_map__max_entries(map) > 64)
			bpf_map__set_max_entries(map, 64);
	}
	err = bpf_object__load(obj);
	ok = !err;
	prog = bpf_object__find_program_by_name(obj, "unwind_python");
	if (!ok)
		printf("verifier log:\n%s\n", log_buf);
	printf("%s: the kernel verifier accepts the python unwinder (%s)\n", ok ? "PASS" : "FAIL",
	       ok ? "loaded" : strerror(-err));
	if (ok && prog) {
		struct bpf_prog_info info = { 0 };
		__u32 len = sizeof(info);

		if (!bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len))
			printf("note: %u translated instructions\n", info.xlated_prog_len / 8);
	}
	bpf_object__close(obj);
	unlink(obj_path);
	return ok ? 0 : 1;
}
