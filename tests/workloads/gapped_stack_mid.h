/* The two functions of gapped_stack.h's gap; the including file is built
 * without unwind tables (and, for fpgap, with frame pointers). GAP_INNER
 * keeps locals on the stack so rsp moves. */
unsigned long cfi_leaf(unsigned long n);
extern volatile unsigned long GAP_SINK;

__attribute__((noinline)) GAP_INNER_LINKAGE unsigned long GAP_INNER(unsigned long n)
{
	volatile unsigned long buf[8];
	for (int i = 0; i < 8; i++)
		buf[i] = n + (unsigned long)i;
	unsigned long r = cfi_leaf(buf[3]);
	GAP_SINK += buf[5];
	return r;
}

__attribute__((noinline)) unsigned long GAP_MIDDLE(unsigned long n)
{
	volatile unsigned long pad[4] = { n, n, n, n };
	unsigned long r = GAP_INNER(pad[1]);
	GAP_SINK += pad[2];
	return r + 2;
}
