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
d=$(mktemp_dir)
# The harness runs while gdb still holds the process stopped, so it fills
# its maps with trecord's own pid sync from the live /proc/PID/maps.
export TREC_CASE_RUN="$HARNESS ${TREC_HARNESS_VERBOSE:+-v}"

# capture NAME BREAK SKIP STEPS THREADS BINARY [ARGS...]
capture() {
	local name=$1 brk=$2 skip=$3 steps=$4 threads=$5; shift 5
	TREC_CASE_OUT=$d/$name TREC_CASE_BREAK=$brk TREC_CASE_SKIP=$skip \
		TREC_CASE_STEPS=$steps TREC_CASE_THREADS=$threads \
		TREC_CASE_STOP_IN=${TREC_CASE_STOP_IN:-} \
		TREC_CASE_GDB_INIT=${TREC_CASE_GDB_INIT:-} \
		TREC_CASE_GDB_STOPPED=${TREC_CASE_GDB_STOPPED:-} \
		timeout 60 gdb -batch -nx -x "$CAPTURE" --args "$@" >"$d/$name.log" 2>&1
	if compgen -G "$d/$name.t*.case" >/dev/null; then pass "capture $name"; else
		fail "capture $name"; tail -5 "$d/$name.log"; fi
}

# env_capture STOP_IN ARGS...: capture with expect-stop-in functions.
env_capture() {
	local stop_in=$1; shift
	TREC_CASE_STOP_IN=$stop_in capture "$@"
}

# gdb_capture INIT STOPPED ARGS...: capture with gdb commands run before
# the start and at the stop.
gdb_capture() {
	local init=$1 stopped=$2; shift 2
	TREC_CASE_GDB_INIT=$init TREC_CASE_GDB_STOPPED=$stopped capture "$@"
}

# attach NAME DELAY BINARY [ARGS...]: all threads wherever they are.
attach() {
	local name=$1 delay=$2; shift 2
	# (runs in its own subshell, from bg: keeps bash's "Killed" notice for
	# the process gdb kills out of the log)
	exec 2>/dev/null
	"$@" >/dev/null 2>&1 </dev/null &
	local pid=$!
	sleep "$delay"
	TREC_CASE_OUT=$d/$name TREC_CASE_THREADS=all \
		timeout 60 gdb -batch -nx -p "$pid" -x "$CAPTURE" >"$d/$name.log" 2>&1
	{ wait "$pid"; } 2>/dev/null # gdb killed it
	if compgen -G "$d/$name.t*.case" >/dev/null; then pass "capture $name"; else
		fail "capture $name"; tail -5 "$d/$name.log"; fi
}

# Captures mostly wait on gdb and ptrace: run a few at once.
bg() {
	while [ "$(jobs -rp | wc -l)" -ge 4 ]; do wait -n; done
	"$@" &
}

W=$WORKLOADS
bg capture busy-recursion spin 0 5 current "$W/busy" 5
bg capture busy-qsort cmp_ints 40 3 current "$W/busy" 5
# 250 distinct functions, frames of 8 to 400 bytes: no per-trace memo hits.
bg capture chain spin 0 2 current "$W/chain" 5
bg capture cxx-inlined work::inlined_work 0 12 current "$W/cxxexcept" 5
bg capture cxx-personality __gxx_personality_v0 0 0 current "$W/cxxexcept" 5
bg capture cxx-unwinding-dtor 'work::Guard::~Guard' 1 4 current "$W/cxxexcept" 5
bg capture threads spin_beta 2 3 all "$W/threads" 5
bg capture dlopen dl_inner 0 4 current "$W/dlmain" 5
bg capture signal handler_spin 0 3 current "$W/sighandler" 5
# partcfi's middle frames have no CFI: the unwinder must stop there with
# an error (never guess their callers).
bg env_capture "nocfi_inner nocfi_middle" partcfi cfi_leaf 0 3 current "$W/partcfi" 5
bg capture realign leaf_spin 0 3 current "$W/realign" 5
# Frame pointers, against gdb's CFI. jitlike runs frame-pointer code from
# a copy in anonymous memory, between CFI'd code (rbp a general register
# there) and libc; gdb unwinds the copy with the binary's own CFI added at
# the copy's address. The stripped Go binary has no CFI at all; gdb reads
# the unstripped build's .debug_frame (the same code).
# fpgap's middle frames have no CFI but keep frame pointers (gdb: its
# prologue analysis): walked by frame pointer, exactly in their prologue.
bg capture fpgap cfi_leaf 0 3 current "$W/fpgap" 5
bg capture fpgap-prologue '*fp_inner' 0 1 current "$W/fpgap" 5
jitsyms="add-symbol-file $W/jitlike -o jit_gdb_offset"
bg gdb_capture "" "$jitsyms" jit-qsort cmp_cb 100 0 current "$W/jitlike" 5
bg gdb_capture "" "$jitsyms" jit-leaf rt_tick 0 2 current "$W/jitlike" 5
gocases=
if [ -x "$W/gostack-stripped" ]; then
	bg gdb_capture "symbol-file $W/gostack" "" go-stripped stack.go:26 3 0 current \
		"$W/gostack-stripped" 5
	gocases="$d/go-stripped.*.case"
fi
if [ -x "$W/goroots-stripped" ]; then
	# Every thread of a Go process: goroutines end at goexit, threads at
	# mstart (flagged TOPFRAME: Go's own traceback ends there; gdb goes on
	# to clone, or with cgo into C without CFI), waits in futex keep their
	# caller; g0 stacks end cleanly at systemstack, mcall or morestack,
	# where gdb goes on with Go's CFI into whatever lies above the g0
	# stack, and a signal handler's at sigtramp (gdb goes on into the
	# interrupted code).
	roots="root:runtime.systemstack root:runtime.mcall root:runtime.morestack root:runtime.sigtramp root:runtime.mstart"
	TREC_CASE_STOP_IN=$roots bg gdb_capture "symbol-file $W/goroots" "" go-roots \
		main.allocList 20 0 all "$W/goroots-stripped" 5
	# On the g0 stack, called through systemstack (its stack check reads
	# stackguard1): its prologue's rules keep its caller.
	TREC_CASE_STOP_IN=$roots bg gdb_capture "symbol-file $W/goroots" "" go-systemstack \
		"'runtime.(*mheap).allocSpan'" 30 0 current "$W/goroots-stripped" 5
	# NOSPLIT $0 assembly (pcsp 0 throughout): its entry and a few steps
	# in keep mallocgc, the caller a frame-pointer step would skip.
	TREC_CASE_STOP_IN=$roots bg gdb_capture "symbol-file $W/goroots" "" go-frameless \
		runtime.memclrNoHeapPointers 40 4 current "$W/goroots-stripped" 5
	gocases="$gocases $d/go-roots.*.case $d/go-systemstack.*.case $d/go-frameless.*.case"
fi
bg attach busy-attached 0.5 "$W/busy" 5
bg attach threads-attached 0.5 "$W/threads" 5
bg attach sighandler-attached 0.5 "$W/sighandler" 5
# System binaries as they are installed (stripped, their own CFI).
bg attach sleep-attached 0.3 sleep 5
if command -v python3 >/dev/null; then
	bg attach python-attached 0.5 python3 -c '
def f(n):
    if n == 0:
        while True:
            pass
    return f(n - 1)
f(50)'
fi

wait
cat "$d"/*.out
# Again, offline, for a few: the processes are gone, the maps come from
# the case files (the path for re-running saved cases).
"$HARNESS" ${TREC_HARNESS_VERBOSE:+-v} "$d"/busy-recursion.*.case "$d"/signal.*.case \
	"$d"/threads-attached.*.case "$d"/partcfi.*.case "$d"/jit-qsort.*.case "$d"/fpgap.*.case \
	$gocases \
	>"$d/offline.out" 2>"$d/offline.err"
rc=$?
sed "s/^\(PASS\|FAIL\): harness /\1: harness offline /" "$d/offline.out"
check "harness offline: exits 0 (no sanitizer report)" [ "$rc" = 0 ]
[ "$rc" = 0 ] || tail -20 "$d/offline.err"
# The replay's trust in the maps' generation (bpf/stack_replay_log.h) was
# put to the test: a trie page changed under a replayable log.
pages=$(cat "$d"/*.out | sed -n 's/.*; \([0-9]*\) with a trie page changed$/\1/p' |
	awk '{ n += $1 } END { print n + 0 }')
check "harness: a changed trie page refused a replay in some cases ($pages)" [ "$pages" -ge 1 ]
# Every word of a replayable walk's stack, logged or not (a saved rbp no
# rule reads is not: bpf/native_unwind.h), changed one at a time: the
# next sample was what a fresh walk gives, and some were still replayed.
anyw=$(cat "$d"/*.out | sed -n 's/.*stack replay: \([0-9]*\) stack words changed.*/\1/p' |
	awk '{ n += $1 } END { print n + 0 }')
anyr=$(cat "$d"/*.out | sed -n 's/.*trace; \([0-9]*\) of them still replayed$/\1/p' |
	awk '{ n += $1 } END { print n + 0 }')
check "harness: stack words changed one at a time gave fresh walks' traces ($anyw, $anyr replayed)" \
	[ "$anyw" -ge 200 -a "$anyr" -ge 1 ]
# Quiet mode (bpf/stack_replay.h): failed tries in a row made walks log
# little, and an unchanging stack brought the replay back.
quiet=$(cat "$d"/*.out | sed -n 's/.*stack replay: \([0-9]*\) cases went quiet and came back$/\1/p' |
	awk '{ n += $1 } END { print n + 0 }')
check "harness: replay tries that fail went quiet, and came back, in some cases ($quiet)" [ "$quiet" -ge 1 ]
