#!/usr/bin/env bash
# The BPF side built for arm64 (clang -target bpf -D__TARGET_ARCH_arm64)
# against a minimal CO-RE header (tests/arm64/vmlinux/vmlinux.h): it
# compiles with -Wall -Werror, the perf_event context is arm64's
# (struct user_pt_regs), and bpftool accepts the object (skeleton). Not
# loaded: that needs an arm64 kernel (README "arm64").
. "$(dirname "$0")/../lib/common.sh"
UAPI=/usr/aarch64-linux-gnu/include
command -v clang >/dev/null || skip_all "clang not installed"
command -v bpftool >/dev/null || skip_all "bpftool not installed"
[ -f "$UAPI/asm/bpf_perf_event.h" ] || skip_all "arm64 uapi headers not installed (make test-arm64)"
d=$(mktemp_dir)
obj=$d/trec.arm64.bpf.o

# The arm64 uapi headers come after the project's, for asm/ only.
if clang -g -O2 -target bpf -D__TARGET_ARCH_arm64 -Wall -Werror \
	-I"$TREC_ROOT/tests/arm64/vmlinux" -I"$TREC_ROOT/bpf" -idirafter "$UAPI" \
	-c "$TREC_ROOT/bpf/trec.bpf.c" -o "$obj" 2>"$d/clang.err"; then
	pass "bpf arm64: trec.bpf.c compiles for __TARGET_ARCH_arm64"
else
	fail "bpf arm64: trec.bpf.c compiles for __TARGET_ARCH_arm64"; head -20 "$d/clang.err"; exit 1
fi
bpftool btf dump file "$obj" >"$d/btf.txt"
# type_of ID: the BTF line "[ID] KIND 'NAME' ..."
type_of() { grep "^\[$1\] " "$d/btf.txt"; }
# The type of ctx->regs, through its typedef.
regs_id=$(grep -A1 "STRUCT 'bpf_perf_event_data'" "$d/btf.txt" | sed -n "s/.*'regs' type_id=\([0-9]*\).*/\1/p")
regs_struct=$(type_of "$(type_of "$regs_id" | sed -n 's/.*type_id=\([0-9]*\).*/\1/p')")
check "bpf arm64: perf_event regs are struct user_pt_regs" \
	[ "$(echo "$regs_struct" | grep -c "STRUCT 'user_pt_regs' size=272")" = 1 ]
check "bpf arm64: the unwind state carries lr" \
	sh -c "grep -A20 \"STRUCT 'trec_unwind_state'\" '$d/btf.txt' | grep -q \"'lr'\""
check "bpf arm64: bpftool generates a skeleton" \
	sh -c "bpftool gen skeleton '$obj' >'$d/skel.h' && grep -q 'trec_sample' '$d/skel.h'"
