#!/usr/bin/env bash
# The offline harness against gdb: capture thread states of the workloads
# with gdb (breakpoints at chosen points, and attaching at random points),
# unwind each offline with the real BPF unwinder over maps the real delta
# store filled, and compare frame by frame with gdb's backtrace.
. "$(dirname "$0")/../lib/common.sh"
HARNESS=${TREC_HARNESS:-$TREC_BUILD/harness/trec-harness}
CAPTURE=$TREC_ROOT/tests/harness/capture.py
[ -x "$HARNESS" ] || skip_all "harness not built (needs bpf/trec.bpf.c)"
command -v gdb >/dev/null || skip_all "gdb not installed"
build_workloads || { fail "workloads build"; exit 1; }
# (not mktemp_dir: its trap would fire when the $(...) subshell exits)
d=$(mktemp -d /tmp/trec-harness.XXXXXX)
trap 'rm -rf "$d"' EXIT

# capture NAME BREAK SKIP STEPS THREADS BINARY [ARGS...]
capture() {
	local name=$1 brk=$2 skip=$3 steps=$4 threads=$5; shift 5
	TREC_CASE_OUT=$d/$name TREC_CASE_BREAK=$brk TREC_CASE_SKIP=$skip \
		TREC_CASE_STEPS=$steps TREC_CASE_THREADS=$threads \
		timeout 60 gdb -batch -nx -x "$CAPTURE" --args "$@" >"$d/$name.log" 2>&1
	if compgen -G "$d/$name.t*.case" >/dev/null; then pass "capture $name"; else
		fail "capture $name"; tail -5 "$d/$name.log"; fi
}

# attach NAME DELAY BINARY [ARGS...]: all threads wherever they are.
attach() {
	local name=$1 delay=$2; shift 2
	"$@" >/dev/null 2>&1 &
	local pid=$!
	sleep "$delay"
	TREC_CASE_OUT=$d/$name TREC_CASE_THREADS=all \
		timeout 60 gdb -batch -nx -p "$pid" -x "$CAPTURE" >"$d/$name.log" 2>&1
	kill "$pid" 2>/dev/null; { wait "$pid"; } 2>/dev/null
	if compgen -G "$d/$name.t*.case" >/dev/null; then pass "capture $name"; else
		fail "capture $name"; tail -5 "$d/$name.log"; fi
}

W=$WORKLOADS
capture busy-recursion spin 0 5 current "$W/busy" 5
capture busy-qsort cmp_ints 40 3 current "$W/busy" 5
capture cxx-inlined work::inlined_work 0 12 current "$W/cxxexcept" 5
capture cxx-personality __gxx_personality_v0 0 0 current "$W/cxxexcept" 5
capture cxx-unwinding-dtor 'work::Guard::~Guard' 1 4 current "$W/cxxexcept" 5
capture threads spin_beta 2 3 all "$W/threads" 5
capture dlopen dl_inner 0 4 current "$W/dlmain" 5
capture signal handler_spin 0 3 current "$W/sighandler" 5
capture partcfi cfi_leaf 0 3 current "$W/partcfi" 5
capture realign leaf_spin 0 3 current "$W/realign" 5
attach busy-attached 0.5 "$W/busy" 5
attach threads-attached 0.5 "$W/threads" 5
attach sighandler-attached 0.5 "$W/sighandler" 5
# System binaries as they are installed (stripped, their own CFI).
attach sleep-attached 0.3 sleep 5
if command -v python3 >/dev/null; then
	attach python-attached 0.5 python3 -c '
def f(n):
    if n == 0:
        while True:
            pass
    return f(n - 1)
f(50)'
fi

# partcfi's middle frames have no CFI: the unwinder must stop there with
# an error (never guess their callers).
for c in "$d"/partcfi.t*.case; do
	printf 'expect-stop-in nocfi_inner\nexpect-stop-in nocfi_middle\n' >>"$c"
done

"$HARNESS" ${TREC_HARNESS_VERBOSE:+-v} "$d"/*.case
