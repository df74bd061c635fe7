#!/usr/bin/env bash
# Records the frame-pointer-less busy workload (qsort callback in libc,
# 150-deep recursion) and checks what the recording says about it.
. "$(dirname "$0")/lib.sh"

BUSY=$WORKLOADS/busy
out=$T/busy.tr
"$TRECORD" -F 499 -o "$out" -- "$BUSY" 3 >"$T/stdout" 2>"$T/stderr"
rc=$?
check "busy: trecord exits 0" [ "$rc" = 0 ]
check "busy: summary line names samples, lost and size" \
	grep -Eq '^\[ trecord: [0-9]+ samples \([0-9]+ lost\), .*\([0-9]+ bytes\) \]$' "$T/stderr"
dump "$out" >"$T/dump" || { fail "busy: recording reads back"; exit 1; }
pass "busy: recording reads back"

# main's ELF range, from the symbol table (the oracle for "reaches main").
read -r lo size < <(nm -S "$BUSY" | awk '$4 == "main" { print $1, $2 }')
hi=$(printf '%x' $((16#$lo + 16#$size)))
# "Late": after the first second, which may go to loading libc's deltas
# on a loaded machine (ASan build).
$TRCHECK "$T/dump" --warmup-ms 1000 --func "busy:main:$lo:$hi" >"$T/stats"
sed "s/^/  /" "$T/stats"
v() { stat_of "$1" <"$T/stats"; }

pid=$(awk '$1 == "E" && $3 == 2 { print $4; exit }' "$T/dump")
check "busy: exec event for the command" [ -n "$pid" ]
check "busy: samples recorded (>= 100)" [ "$(v samples)" -ge 100 ]
check "busy: every sample is the command's pid and thread" \
	[ -z "$(awk -v p="$pid" '$1 == "S" && ($3 != p || $4 != p)' "$T/dump")" ]
check "busy: comm is busy (also inside execve)" [ "$(v comms)" = busy ]
check "busy: every native frame lies in a mapping snapshot of its pid" \
	[ "$(v frames_outside_mappings)" = 0 ] 
check "busy: no unknown-pid samples after the first second" [ "$(v unknown_pid_late)" = 0 ]
check "busy: no unknown-pc samples after the first second" [ "$(v unknown_pc_late)" = 0 ]
# 150 recursion frames + spin + main + libc start: the whole stack.
check "busy: the 150-deep recursion unwinds completely (> 150 frames)" \
	[ "$(v max_user_frames)" -gt 150 ]
late=$(v late_samples)
reach=$(v samples_reaching_main)
check "busy: >= 99% of samples reach main ($reach of $late)" \
	[ "$late" -gt 0 -a $((reach * 100)) -ge $((late * 99)) ]
check "busy: a METRICS record" [ "$(v metrics_records)" -ge 1 ]
# (a deferred sample is sent as a stack copy, not a trace: DEFERRED_SENT)
check "busy: BPF and trecord counts agree ($(v metric_TRACES_SENT) + $(v metric_DEFERRED_SENT) = $(v samples))" \
	[ $(($(v metric_TRACES_SENT) + $(v metric_DEFERRED_SENT))) = "$(v samples)" ]
check "busy: SUMMARY counts the samples" [ "$(v summary_samples)" = "$(v samples)" ]
check "busy: META has the frequency and period" \
	grep -q '^Y .*freq_hz=499 sample_period_ns=2004008 ' "$T/dump"
check "busy: FILE records for the binary and libc" \
	[ "$(awk '$1 == "F" && ($5 ~ /busy$/ || $5 ~ /libc\.so/)' "$T/dump" | wc -l)" = 2 ]
check "busy: build-ids are recorded" \
	[ -z "$(awk '$1 == "F" && $5 ~ /busy$/ && $4 == 0' "$T/dump")" ]

# The same question asked of treport, symbolizing for real: after the
# first second, >= 99% of the stacks (by weight) go through main.
if [ -x "$TREPORT" ]; then
	"$TREPORT" --folded --time 1, "$out" >"$T/folded" 2>"$T/treport.err"
	check "busy: treport --folded reads the recording" [ "$?" = 0 ]
	read -r tot viamain < <(awk '{ n = $NF; t += n; if ($0 ~ /;main(;| )/) m += n } END { print t + 0, m + 0 }' "$T/folded")
	check "busy: treport: >= 99% of stacks reach main ($viamain of $tot)" \
		[ "$tot" -gt 0 -a $((viamain * 100)) -ge $((tot * 99)) ]
	check "busy: treport: the recursion is 150 deep under main" \
		grep -Eq ';main;(work_unit;)?(recurse;){150}' "$T/folded"
else
	echo "SKIP: treport not built"
fi

# Stack replay's quiet mode (bpf/stack_replay.h): qsort's msort recursion
# changes from one sample to the next, so replay tries fail, and most
# walks are logged little or not at all; the unwinding is the same (the
# checks above). 20% is well under the ~70% measured at 4000 Hz.
sent=$(metric "$out" TRACES_SENT)
quiet=$(metric "$out" REPLAY_QUIET)
check "busy: failed replay tries made walks quiet ($quiet of $sent >= 20%)" \
	[ "${sent:-0}" -gt 0 -a $((${quiet:-0} * 5)) -ge "${sent:-1}" ]
