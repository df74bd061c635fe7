#!/usr/bin/env bash
# The BPF side's get_stack_delta() (bpf/native_unwind.h, run offline) over
# maps written by the delta store must give, at every address of a file's
# delta pages, the rule the extraction produced: libc, libstdc++, ld.so and
# the workloads, all loaded into one store.
. "$(dirname "$0")/../lib/common.sh"
HARNESS=${TREC_HARNESS:-$TREC_BUILD/harness/trec-harness}
[ -x "$HARNESS" ] || skip_all "harness not built (needs bpf/trec.bpf.c)"
build_workloads || { fail "workloads build"; exit 1; }
libs=(/lib/x86_64-linux-gnu/libc.so.6 /lib64/ld-linux-x86-64.so.2)
[ -e /usr/lib/x86_64-linux-gnu/libstdc++.so.6 ] && libs+=(/usr/lib/x86_64-linux-gnu/libstdc++.so.6)
"$HARNESS" --lookup "${libs[@]}" "$WORKLOADS"/busy "$WORKLOADS"/chain "$WORKLOADS"/cxxexcept "$WORKLOADS"/libdlspin.so
