/* Compiled with frame pointers and without unwind tables (see Makefile):
 * no CFI covers these, but every one sets up rbp. */
#include "fpgap.h"
#include "gapped_stack_mid.h"
