/* A small shared library that stress_dlopen loads and unloads in a loop. */
static volatile unsigned long sink;

__attribute__((noinline)) unsigned long stress_dl_work(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * i ^ (sink >> 3);
	return sink;
}
