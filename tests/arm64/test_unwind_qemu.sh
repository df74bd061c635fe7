#!/usr/bin/env bash
# The arm64 unwinder against gdb, by simulation: the workloads cross-built
# for aarch64 run under qemu-user; gdb-multiarch stops each through qemu's
# gdbstub and captures a thread state (tests/arm64/capture_qemu.py); the
# offline harness runs the BPF unwinder's arm64 half on it (over deltas
# trecord's extraction took from the aarch64 ELF files) and compares with
# gdb's backtrace pc by pc, as tests/harness/test_unwind_gdb.sh does on
# x86-64. Run by make test-arm64, which installs the tools.
. "$(dirname "$0")/../lib/common.sh"
HARNESS=${TREC_HARNESS_ARM64:-$TREC_BUILD/harness-arm64/trec-harness}
CAPTURE=$TREC_ROOT/tests/arm64/capture_qemu.py
SYSROOT=/usr/aarch64-linux-gnu
QEMU=$(command -v qemu-aarch64-static || command -v qemu-aarch64)
[ -x "$HARNESS" ] || skip_all "arm64 harness not built (make harness-arm64)"
[ -n "$QEMU" ] || skip_all "qemu-user not installed (make test-arm64 installs it)"
command -v gdb-multiarch >/dev/null || skip_all "gdb-multiarch not installed"
command -v aarch64-linux-gnu-gcc >/dev/null || skip_all "aarch64 cross compiler not installed"

W=$TREC_ROOT/build/workloads-arm64
cross="CC=aarch64-linux-gnu-gcc CXX=aarch64-linux-gnu-g++ OBJCOPY=aarch64-linux-gnu-objcopy GO="
# shellcheck disable=SC2086
if make -s -C "$TREC_ROOT/tests/workloads" OUT="$W" $cross \
	"$W"/busy "$W"/deep "$W"/cxxexcept "$W"/threads "$W"/dlmain "$W"/libdlspin.so \
	"$W"/pltloop "$W"/sighandler "$W"/partcfi "$W"/sepcfi "$W"/jitlike >/dev/null &&
	# pac-ret: every saved return address signed (qemu's -cpu max has PAuth).
	make -s -C "$TREC_ROOT/tests/workloads" OUT="$W/pac" $cross \
		CFLAGS="-O2 -g -fomit-frame-pointer -mbranch-protection=pac-ret" "$W"/pac/busy >/dev/null &&
	# clang's aarch64 CFI (its prologues differ from GCC's)
	make -s -C "$TREC_ROOT/tests/workloads" OUT="$W/clang" $cross CC="clang --target=aarch64-linux-gnu" \
		CXX="clang++ --target=aarch64-linux-gnu" "$W"/clang/busy "$W"/clang/cxxexcept >/dev/null
then pass "arm64 workloads cross-built"; else fail "arm64 workloads cross-built"; exit 1; fi
d=$(mktemp_dir)

# capture1 NAME BREAK SKIP STEPS BINARY [ARGS...]: one thread state under
# qemu-user. The gdbstub's port is random; a port in use makes qemu exit.
# The CPU: qemu's max with PAuth; without SVE, whose signal frame record
# gdb 13 misreads under qemu ("Invalid vector length in signal frame").
# CASE_INTERRUPT=SECONDS, BREAK "": stopped at a random moment instead,
# by a SIGINT to qemu, which gdb sees before the guest does.
capture1() {
	local name=$1 brk=$2 skip=$3 steps=$4 port qpid tries=0; shift 4
	while :; do
		port=$((20000 + RANDOM % 20000))
		QEMU_CPU=${CASE_CPU:-max,sve=off} "$QEMU" -L "$SYSROOT" -g "$port" "$@" >/dev/null 2>&1 </dev/null &
		qpid=$!
		for _ in $(seq 50); do
			ss -ltn "sport = :$port" 2>/dev/null | grep -q LISTEN && break
			kill -0 "$qpid" 2>/dev/null || break
			sleep 0.1
		done
		kill -0 "$qpid" 2>/dev/null && break
		tries=$((tries + 1))
		[ "$tries" -lt 5 ] || { echo "qemu did not start" >"$d/$name.log"; return 1; }
	done
	[ -n "${CASE_INTERRUPT:-}" ] && { sleep "$CASE_INTERRUPT"; kill -INT "$qpid"; } 2>/dev/null &
	TREC_QEMU_PORT=$port TREC_QEMU_PID=$qpid TREC_QEMU_PROGRAM=$1 TREC_QEMU_SYSROOT=$SYSROOT \
		TREC_CASE_OUT=$d/$name TREC_CASE_BREAK=$brk TREC_CASE_SKIP=$skip TREC_CASE_STEPS=$steps \
		TREC_CASE_STOP_IN=${TREC_CASE_STOP_IN:-} TREC_CASE_GDB_STOPPED=${CASE_GDB_STOPPED:-} \
		TREC_QEMU_ANON_CODE=${CASE_ANON_CODE:-} timeout 120 gdb-multiarch -batch -nx -x "$CAPTURE" >"$d/$name.log" 2>&1
	kill "$qpid" 2>/dev/null
	wait 2>/dev/null # qemu, and the interrupting sleep
	compgen -G "$d/$name.t*.case" >/dev/null
}

# capture ARGS...: capture1, tried twice: qemu's gdbstub now and then
# misses a breakpoint another thread hits while gdb handles a stop.
capture() {
	if capture1 "$@" || capture1 "$@"; then pass "capture $1"; else
		fail "capture $1"; tail -5 "$d/$1.log"; fi
}

# Captures mostly wait on gdb and qemu: two at once (2 cores, shared).
bg() {
	while [ "$(jobs -rp | wc -l)" -ge 2 ]; do wait -n; done
	"$@" &
}

# Leaf frames with the return address still in LR (at the first
# instruction, and in a leaf that never saves it), deep recursion, a libc
# callback (qsort), C++ exceptions in flight, threads, dlopen, PLT stubs.
bg capture busy-recursion spin 0 5 "$W/busy" 5
bg capture busy-leaf-entry '*recurse' 3 0 "$W/busy" 5
bg capture busy-qsort cmp_ints 40 3 "$W/busy" 5
bg capture busy-qsort-entry '*cmp_ints' 7 0 "$W/busy" 5
bg capture deep-200 dive 200 2 "$W/deep" 5 200
bg capture cxx-inlined work::inlined_work 0 12 "$W/cxxexcept" 5
bg capture cxx-personality __gxx_personality_v0 0 0 "$W/cxxexcept" 5
bg capture cxx-unwinding-dtor 'work::Guard::~Guard' 1 4 "$W/cxxexcept" 5
bg capture threads spin_beta 0 3 "$W/threads" 5
bg capture dlopen dl_inner 0 4 "$W/dlmain" 5
bg capture plt-stub 'strtol@plt' 5 1 "$W/pltloop" 5
bg capture signal handler_spin 0 3 "$W/sighandler" 5
# Every instruction of recurse's prologue and epilogue (the CFA and the
# return address's place change at each), and libc's msort at each step
# after the callback returns into it.
for s in 0 1 2 3 4 5; do bg capture "recurse-entry-$s" '*recurse' 100 "$s" "$W/busy" 5; done
for s in 0 1 2 3 4 5 6 7; do bg capture "recurse-exit-$s" '*recurse+24' 3 "$s" "$W/busy" 5; done
for s in 1 2 3 4 5 6 7 8 9 10 11 12; do
	bg capture "msort-step-$s" '*cmp_ints+60' 40 "$s" "$W/busy" 5
done
# Frame pointers: jitlike's copy in anonymous memory, walked by frame
# pointer between CFI'd code; gdb unwinds the copy with the binary's CFI
# added at the copy's address. arm64's frame records are at the bottom of
# their frames: after a frame-pointer step the caller's sp is unknown, so
# rt_helper (CFI, sp-based) must end the stack with NATIVE_SP_UNKNOWN.
jit() {
	CASE_GDB_STOPPED="add-symbol-file $W/jitlike -o jit_gdb_offset" TREC_CASE_STOP_IN=rt_helper \
		CASE_ANON_CODE='(long)jit_offset + (long)__start_jitcode;(long)jit_offset + (long)__stop_jitcode' \
		capture "$@"
}
bg jit jit-qsort cmp_cb 100 0 "$W/jitlike" 5
bg jit jit-leaf rt_tick 0 2 "$W/jitlike" 5
# Random moments (pac-ret's are left out: gdb cannot strip their PAC).
for w in "busy 5" "sighandler 5" "cxxexcept 5" "threads 5" "pltloop 5" "deep 5 200"; do
	for i in 1 2; do
		# shellcheck disable=SC2086
		CASE_INTERRUPT=$((1 + RANDOM % 3)).$((RANDOM % 10)) \
			bg capture "random-${w%% *}-$i" "" 0 0 "$W"/$w
	done
done
bg capture clang-recursion spin 0 5 "$W/clang/busy" 5
bg capture clang-qsort cmp_ints 40 3 "$W/clang/busy" 5
bg capture clang-cxx-personality __gxx_personality_v0 0 0 "$W/clang/cxxexcept" 5
# .debug_frame only, in a separate debug file (found by .gnu_debuglink).
bg capture sepcfi sep_leaf 0 3 "$W/sepcfi" 5
# partcfi's middle frames have no CFI: stop there with an error, never guess.
TREC_CASE_STOP_IN="nocfi_inner nocfi_middle" bg capture partcfi cfi_leaf 0 3 "$W/partcfi" 5
# Signed return addresses (pac-ret): stripped before they are resolved.
# gdb cannot strip them here (qemu 7.2's gdbstub has no PAuth registers),
# so its frames come from the same stop on a CPU without PAuth, where
# paciasp is a nop: same program, same code addresses, unsigned stack
# (its sp differs a little: the auxiliary vector describes the CPU).
CASE_CPU=cortex-a57 bg capture pac-recursion-ref spin 0 5 "$W/pac/busy" 5
CASE_CPU=cortex-a57 bg capture pac-qsort-ref cmp_ints 40 3 "$W/pac/busy" 5
bg capture pac-recursion-signed spin 0 5 "$W/pac/busy" 5
bg capture pac-qsort-signed cmp_ints 40 3 "$W/pac/busy" 5
wait

# pac_case NAME: NAME-signed's registers and stack with NAME-ref's frames.
pac_case() {
	local name=$1 signed ref
	signed=$(compgen -G "$d/$1-signed.t*.case") && ref=$(compgen -G "$d/$1-ref.t*.case") || return
	mv "$ref" "$d/$1.ref"
	# The signed stack must hold signed return addresses (gdb's frames
	# end at one, above 2^48) and be the same stop as the reference.
	check "pac $name: gdb sees a signed return address" \
		grep -q '^frame [0-9a-f]\{11,\}[0-9a-f] ' "$signed"
	check "pac $name: same pc, x30 and code mappings as the reference" \
		[ "$(grep '^reg \(pc\|x30\) \|^map ' "$signed")" = "$(grep '^reg \(pc\|x30\) \|^map ' "$d/$1.ref")" ]
	grep -v '^\(frame\|gdb-stop\|end\)' "$signed" >"$d/$1.case.tmp"
	grep '^\(frame\|gdb-stop\|end\)' "$d/$1.ref" >>"$d/$1.case.tmp"
	mv "$d/$1.case.tmp" "$signed"
}
pac_case pac-recursion
pac_case pac-qsort

# Unwind every case offline; the pid in a case is qemu's, not the guest's
# (its /proc maps are the host's view): maps come from the case files.
TREC_HARNESS_CASE_MAPS=1 "$HARNESS" ${TREC_HARNESS_VERBOSE:+-v} "$d"/*.case \
	>"$d/harness.out" 2>"$d/harness.err"
rc=$?
sed -n 's/^\(PASS\|FAIL\): harness /\1: harness arm64 /p' "$d/harness.out"
grep -v '^\(PASS\|FAIL\): ' "$d/harness.out"
check "harness arm64: exits 0 (no sanitizer report)" [ "$rc" = 0 ]
[ "$rc" = 0 ] || tail -20 "$d/harness.err"
n=$(grep -c '^PASS: harness ' "$d/harness.out")
# The BPF delta lookup against the extraction at every address of aarch64
# files (GCC's, clang's, glibc's, libstdc++'s).
"$HARNESS" --lookup "$W/busy" "$W/clang/busy" "$W/cxxexcept" "$SYSROOT/lib/libc.so.6" \
	"$SYSROOT/lib/libstdc++.so.6" "$SYSROOT/lib/ld-linux-aarch64.so.1" 2>&1 |
	sed -n 's/^\(PASS\|FAIL\): lookup /\1: lookup arm64 /p'

check "harness arm64: at least 50 stacks agree with gdb ($n)" [ "$n" -ge 50 ]
