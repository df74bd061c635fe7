/* Compiled with frame pointers and without unwind tables (see Makefile):
 * no CFI covers these, but every one sets up rbp. */
unsigned long cfi_leaf(unsigned long n);
extern volatile unsigned long fpgap_sink;

__attribute__((noinline)) unsigned long fp_inner(unsigned long n)
{
	volatile unsigned long buf[8];
	for (int i = 0; i < 8; i++)
		buf[i] = n + (unsigned long)i;
	unsigned long r = cfi_leaf(buf[3]);
	fpgap_sink += buf[5];
	return r;
}

__attribute__((noinline)) unsigned long fp_middle(unsigned long n)
{
	volatile unsigned long pad[4] = { n, n, n, n };
	unsigned long r = fp_inner(pad[1]);
	fpgap_sink += pad[2];
	return r + 2;
}
