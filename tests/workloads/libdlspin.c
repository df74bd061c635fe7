/* The shared library dlmain loads with dlopen at run time: its functions
 * only exist in the process after startup. */
static volatile unsigned long sink;

__attribute__((noinline)) static unsigned long dl_inner(unsigned long n)
{
	unsigned long s = 3;
	for (unsigned long i = 0; i < n; i++)
		s += (s >> 5) ^ (i * 2654435761UL);
	return s;
}

__attribute__((noinline)) unsigned long dl_spin(unsigned long rounds)
{
	for (unsigned long r = 0; r < rounds; r++)
		sink += dl_inner(100000);
	return sink;
}
