#!/usr/bin/env bash
# The workloads must really lack frame pointers (so unwinding them proves
# the .eh_frame path), and partcfi's no-CFI functions must really lack CFI.
# Except the frame-pointer unwinder's own: jitlike's JIT-like code (jit_*), fpgap's fp_*
# and the Go programs (go*: gc always keeps frame pointers).
. "$(dirname "$0")/../lib/common.sh"
build_workloads || { fail "workloads build"; exit 1; }
pass "workloads build"

for b in "$WORKLOADS"/*; do
	[ -f "$b" ] && [ -x "$b" ] || [[ "$b" == *.so ]] || continue
	name=$(basename "$b")
	[[ "$name" == go* ]] && continue
	# Functions that set up rbp as a frame pointer; crtstuff's
	# __do_global_dtors_aux comes precompiled with the toolchain, and
	# realign's aligned_frame needs rbp for its stack realignment.
	fp_funcs=$(objdump -d --no-show-raw-insn "$b" | awk '
		/^[0-9a-f]+ <.*>:$/ { fn = $2 }
		/mov +%rsp,%rbp/ { print fn }' | sort -u |
		grep -v -e '<__do_global_dtors_aux>' -e '^<aligned_frame' -e '^<jit_' -e '^<fp_' || true)
	if [ -z "$fp_funcs" ]; then pass "no frame pointers: $name"; else
		fail "no frame pointers: $name"; echo "$fp_funcs"; fi
done

# realign: its CFA really is a dereference (breg6; deref) somewhere.
check "realign: aligned_frame has a dereferenced CFA" \
	bash -c "readelf -wf '$WORKLOADS/realign' | grep -q 'def_cfa_expression (DW_OP_breg6 (rbp): -[0-9]*; DW_OP_deref)'"

# partcfi: nocfi_middle/nocfi_inner exist and no FDE covers them.
b=$WORKLOADS/partcfi
covered=0
for fn in nocfi_middle nocfi_inner; do
	addr=$(nm "$b" | awk -v f="$fn" '$3 == f { print $1 }')
	[ -n "$addr" ] || { fail "partcfi has $fn"; continue; }
	a=$((16#$addr))
	while read -r lo hi; do
		if [ "$a" -ge "$((16#$lo))" ] && [ "$a" -lt "$((16#$hi))" ]; then covered=1; fi
	done < <(readelf -wf "$b" 2>/dev/null | sed -n 's/.*FDE cie=[0-9a-f]* pc=\([0-9a-f]*\)\.\.\([0-9a-f]*\).*/\1 \2/p')
done
check "partcfi: no FDE covers the -nocfi functions" [ "$covered" = 0 ]
check "partcfi: no .debug_frame" bash -c "! readelf -S '$b' | grep -q debug_frame"
