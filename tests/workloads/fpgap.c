/* Frame pointers in a CFI gap: fpgap-fpnocfi.c has no CFI but keeps frame
 * pointers (as V8's embedded builtins in node do), and sits in the middle
 * of the stack: main -> cfi_outer -> fp_middle -> fp_inner -> cfi_leaf.
 * Its functions start with push %rbp; mov %rsp,%rbp, so trecord walks
 * them by frame pointer (record/unwind/ehframe_gaps.c) where partcfi's
 * must stop. usage: fpgap [seconds]   (default 1) */
#include "fpgap.h"
#include "gapped_stack.h"
