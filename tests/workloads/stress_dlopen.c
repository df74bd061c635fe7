/* dlopen/dlclose loop for the reliability tests: loads each library given
 * on the command line in turn, calls its dl_spin() (libdlspin.so) for a
 * short spin and unloads it again, for ROUNDS rounds. Copies of one
 * library under different paths give the profiler new files and new
 * mappings each time.
 * usage: stress_dlopen ROUNDS LIB.so... */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

typedef unsigned long (*work_fn)(unsigned long);

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 100;
	unsigned long sum = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: stress_dlopen ROUNDS LIB.so...\n");
		return 2;
	}
	for (long r = 0; r < rounds; r++) {
		for (int i = 2; i < argc; i++) {
			void *h = dlopen(argv[i], RTLD_NOW | RTLD_LOCAL);
			if (!h) {
				fprintf(stderr, "stress_dlopen: %s\n", dlerror());
				return 1;
			}
			work_fn fn = (work_fn)dlsym(h, "dl_spin");
			if (!fn) {
				fprintf(stderr, "stress_dlopen: %s\n", dlerror());
				return 1;
			}
			sum += fn(1);
			dlclose(h);
		}
	}
	printf("%lu\n", sum & 1);
	return 0;
}
