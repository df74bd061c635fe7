/* Workload where some frames have no CFI: partcfi-nocfi.c is compiled
 * without unwind tables (no .eh_frame, no .debug_frame), and sits in the
 * middle of the stack: main -> cfi_outer -> nocfi_middle -> nocfi_inner
 * -> cfi_leaf. An unwinder must stop with an error at nocfi_inner/middle,
 * never invent a caller. usage: partcfi [seconds]   (default 1) */
#include "partcfi.h"
#include "gapped_stack.h"
