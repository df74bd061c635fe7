/* partcfi's names for gapped_stack.h */
#define GAP_MIDDLE nocfi_middle
#define GAP_INNER nocfi_inner
#define GAP_INNER_LINKAGE static
#define GAP_SINK partcfi_sink
