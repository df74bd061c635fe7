#!/usr/bin/env bash
# Frame-pointer unwinding for real, in the kernel:
#  jitlike: frame-pointer code run from a copy in anonymous executable
#    memory (JIT code), called from and calling into CFI'd code and libc:
#    whole stacks reach main through every transition;
#  fpgap: code without CFI that keeps frame pointers, inside a CFI'd
#    binary (as V8's builtins in node): stacks go through it to main;
#  gostack-stripped: a Go binary without any CFI: stacks reach
#    runtime.goexit and end there without an error (fp 0).
. "$(dirname "$0")/lib.sh"

# record NAME ARGS...: records into $T/NAME.tr and dumps it.
record() {
	local name=$1; shift
	"$TRECORD" -q -F 499 -o "$T/$name.tr" -- "$@" >/dev/null 2>"$T/$name.err"
	check "$name: trecord exits 0" [ "$?" = 0 ]
	dump "$T/$name.tr" >"$T/$name.dump"
}
v() { stat_of "$1" <"$T/$2.stats"; }
# pct A B: A * 100 / B (0 if B is 0)
pct() { [ "$2" -gt 0 ] && echo $(($1 * 100 / $2)) || echo 0; }

record jit "$WORKLOADS/jitlike" 3
$TRCHECK "$T/jit.dump" --warmup-ms 500 $(func_arg "$WORKLOADS/jitlike" main) \
	$(func_arg "$WORKLOADS/jitlike" rt_helper) >"$T/jit.stats"
late=$(v late_samples jit) main=$(v samples_reaching_main jit) jit=$(v jit_samples jit)
check "jit: samples in the JIT code ($jit of $late)" [ "$jit" -gt $((late / 2)) ]
check "jit: >= 97% of them reach main ($(v jit_samples_with_main jit) of $jit)" \
	[ "$(pct "$(v jit_samples_with_main jit)" "$jit")" -ge 97 ]
check "jit: ... through the C helper between two JIT frames ($(v jit_samples_with_rt_helper jit))" \
	[ "$(pct "$(v jit_samples_with_rt_helper jit)" "$jit")" -ge 97 ]
check "jit: >= 97% of all stacks reach main ($main of $late)" [ "$(pct "$main" "$late")" -ge 97 ]
check "jit: >= 99% end without an error frame ($(v late_clean jit) of $late)" \
	[ "$(pct "$(v late_clean jit)" "$late")" -ge 99 ]
check "jit: frames unwound by frame pointer are counted ($(v metric_FP_FRAMES jit))" \
	[ "$(v metric_FP_FRAMES jit)" -gt 0 ]

record fpgap "$WORKLOADS/fpgap" 2
$TRCHECK "$T/fpgap.dump" --warmup-ms 500 $(func_arg "$WORKLOADS/fpgap" fp_inner) \
	$(func_arg "$WORKLOADS/fpgap" main) >"$T/fpgap.stats"
inner=$(v samples_reaching_fp_inner fpgap)
check "fpgap: samples through the frame-pointer gap ($inner)" [ "$inner" -gt 0 ]
check "fpgap: >= 97% of them reach main ($(v samples_fp_inner_with_main fpgap) of $inner)" \
	[ "$(pct "$(v samples_fp_inner_with_main fpgap)" "$inner")" -ge 97 ]

if [ -x "$WORKLOADS/gostack-stripped" ]; then
	# Function ranges from the unstripped build: the same code.
	record go "$WORKLOADS/gostack-stripped" 3
	$TRCHECK "$T/go.dump" --warmup-ms 500 \
		$(func_arg "$WORKLOADS/gostack" main.work gostack-stripped) \
		$(func_arg "$WORKLOADS/gostack" runtime.main gostack-stripped) \
		$(func_arg "$WORKLOADS/gostack" runtime.goexit gostack-stripped) >"$T/go.stats"
	work=$(v samples_reaching_main.work go) late=$(v late_samples go)
	check "go: samples in main.work ($work of $late)" [ "$work" -gt $((late / 2)) ]
	check "go: >= 97% of them reach runtime.main ($(v samples_main.work_with_runtime.main go))" \
		[ "$(pct "$(v samples_main.work_with_runtime.main go)" "$work")" -ge 97 ]
	check "go: ... and runtime.goexit ($(v samples_main.work_with_runtime.goexit go))" \
		[ "$(pct "$(v samples_main.work_with_runtime.goexit go)" "$work")" -ge 97 ]
	check "go: >= 97% of all stacks end without an error frame ($(v late_clean go) of $late)" \
		[ "$(pct "$(v late_clean go)" "$late")" -ge 97 ]
	check "go: stacks end at fp 0 ($(v metric_FP_STOPPED go) times)" \
		[ "$(v metric_FP_STOPPED go)" -gt 0 ]
fi
exit 0
