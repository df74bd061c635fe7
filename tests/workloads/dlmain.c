/* Workload that dlopens libdlspin.so (next to this binary) after startup
 * and spins in it, so the library's mapping appears while running.
 * usage: dlmain [seconds]   (default 1) */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static unsigned long run_plugin(unsigned long (*fn)(unsigned long))
{
	return fn(10);
}

int main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 1.0);
	char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 32);
	if (n <= 0) {
		perror("readlink /proc/self/exe");
		return 1;
	}
	path[n] = '\0';
	strcpy(strrchr(path, '/') + 1, "libdlspin.so");
	void *h = dlopen(path, RTLD_NOW);
	if (!h) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 1;
	}
	unsigned long (*fn)(unsigned long) = (unsigned long (*)(unsigned long))dlsym(h, "dl_spin");
	if (!fn) {
		fprintf(stderr, "dlsym: %s\n", dlerror());
		return 1;
	}
	unsigned long s = 0;
	while (now() < end)
		s += run_plugin(fn);
	printf("%lu\n", s & 1);
	dlclose(h);
	return 0;
}
