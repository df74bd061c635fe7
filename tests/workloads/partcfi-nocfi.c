/* Compiled without unwind tables (see Makefile): no CFI covers these. */
#include "partcfi.h"
#include "gapped_stack_mid.h"
