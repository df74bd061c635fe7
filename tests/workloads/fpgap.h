/* fpgap's names for gapped_stack.h */
#define GAP_MIDDLE fp_middle
#define GAP_INNER fp_inner
#define GAP_INNER_LINKAGE
#define GAP_SINK fpgap_sink
