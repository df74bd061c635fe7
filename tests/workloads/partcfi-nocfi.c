/* Compiled without unwind tables (see Makefile): no CFI covers these. */
unsigned long cfi_leaf(unsigned long n);
extern volatile unsigned long partcfi_sink;

__attribute__((noinline)) static unsigned long nocfi_inner(unsigned long n)
{
	/* Keep a frame: locals on the stack so rsp moves. */
	volatile unsigned long buf[8];
	for (int i = 0; i < 8; i++)
		buf[i] = n + (unsigned long)i;
	unsigned long r = cfi_leaf(buf[3]);
	partcfi_sink += buf[5];
	return r;
}

__attribute__((noinline)) unsigned long nocfi_middle(unsigned long n)
{
	volatile unsigned long pad[4] = { n, n, n, n };
	unsigned long r = nocfi_inner(pad[1]);
	partcfi_sink += pad[2];
	return r + 2;
}
