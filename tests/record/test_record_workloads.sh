#!/usr/bin/env bash
# Unwinding the harder workloads for real, in the kernel: a library that
# appears by dlopen (resync on an unknown pc), stacks through a signal
# frame, and threads.
. "$(dirname "$0")/lib.sh"

# record NAME ARGS...: records into $T/NAME.tr and dumps it.
record() {
	local name=$1; shift
	"$TRECORD" -q -F 499 -o "$T/$name.tr" -- "$@" >/dev/null 2>"$T/$name.err"
	check "$name: trecord exits 0" [ "$?" = 0 ]
	dump "$T/$name.tr" >"$T/$name.dump"
}
v() { stat_of "$1" <"$T/$2.stats"; }

# dlopen: libdlspin.so is mapped after the pid was first synced.
record dlopen "$WORKLOADS/dlmain" 3
$TRCHECK "$T/dlopen.dump" --warmup-ms 1000 $(func_arg "$WORKLOADS/libdlspin.so" dl_inner) \
	$(func_arg "$WORKLOADS/dlmain" main) >"$T/dlopen.stats"
check "dlopen: a FILE record for the library" grep -q '^F .* [^ ]*/libdlspin\.so ' "$T/dlopen.dump"
check "dlopen: a mapping snapshot with the library" grep -q '^M .*/libdlspin\.so' "$T/dlopen.dump"
check "dlopen: samples in the library's code" [ "$(v samples_reaching_dl_inner dlopen)" -gt 0 ]
check "dlopen: ... that unwind back into main ($(v samples_dl_inner_with_main dlopen) of $(v samples_reaching_dl_inner dlopen))" \
	[ "$(v samples_reaching_dl_inner dlopen)" -gt 0 -a "$(v samples_dl_inner_with_main dlopen)" = "$(v samples_reaching_dl_inner dlopen)" ]
check "dlopen: no unknown-pc samples after the first second" [ "$(v unknown_pc_late dlopen)" = 0 ]
check "dlopen: every native frame lies in a mapping snapshot" [ "$(v frames_outside_mappings dlopen)" = 0 ]

# Signal handler: handler -> rt_sigreturn trampoline -> interrupted loop.
record signal "$WORKLOADS/sighandler" 3
$TRCHECK "$T/signal.dump" --warmup-ms 1000 $(func_arg "$WORKLOADS/sighandler" handler_spin) \
	$(func_arg "$WORKLOADS/sighandler" main) >"$T/signal.stats"
h=$(v samples_reaching_handler_spin signal)
hm=$(v samples_handler_spin_with_main signal)
check "signal: samples in the handler" [ "$h" -gt 0 ]
check "signal: handler stacks unwind through the signal frame to main ($hm of $h)" \
	[ "$h" -gt 0 -a $((hm * 100)) -ge $((h * 95)) ]
check "signal: >= 99% of stacks end cleanly ($(v late_clean signal) of $(v late_samples signal))" \
	[ $(($(v late_clean signal) * 100)) -ge $(($(v late_samples signal) * 99)) ]

# Threads: every worker sampled under its tid, every stack complete.
record threads "$WORKLOADS/threads" 3
$TRCHECK "$T/threads.dump" --warmup-ms 1000 >"$T/threads.stats"
check "threads: three workers and main sampled ($(v tids threads) tids)" [ "$(v tids threads)" -ge 3 ]
check "threads: one pid" [ "$(v pids threads)" = 1 ]
check "threads: >= 99% of stacks end cleanly ($(v late_clean threads) of $(v late_samples threads))" \
	[ $(($(v late_clean threads) * 100)) -ge $(($(v late_samples threads) * 99)) ]

# Deeper than a trace holds: 255 frames, then the abort frame
# STACK_LENGTH_EXCEEDED (2); never the tail-call budget.
record deep "$WORKLOADS/deep" 2 400
$TRCHECK "$T/deep.dump" --warmup-ms 1000 >"$T/deep.stats"
full=$(awk '$1 == "S" && $8 == 256 && $NF == "0/1/0/2"' "$T/deep.dump" | wc -l)
check "deep: stacks stop at 256 frames with STACK_LENGTH_EXCEEDED ($full)" [ "$full" -gt 0 ]
check "deep: ... counted in the metrics" [ "$(v metric_STACK_LENGTH_EXCEEDED deep)" -gt 0 ]
check "deep: the tail-call budget is never hit" [ "$(v metric_MAX_TAIL_CALLS deep)" = 0 -a "$(v metric_TAIL_CALL_FAILED deep)" = 0 ]
