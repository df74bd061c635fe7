#!/usr/bin/env bash
# -a (system-wide): a process already running when the recording starts is
# synced when BPF first reports it (pid_events, drained when BPF's latch is
# set), one started during the recording at its exec; both unwind to main.
# The reports are all drained, and every trace BPF sent is written or
# counted as malformed (the writer reads each from the ring buffer).
. "$(dirname "$0")/lib.sh"

"$WORKLOADS/busy" 12 >/dev/null & before=$!
BG_PIDS+=("$before")
out=$T/a.tr
"$TRECORD" -q -a -F 499 -d 8 -o "$out" 2>"$T/stderr" & rec=$!
# Sampling is on once the first chunk is out (100 ms after the start).
for _ in $(seq 300); do
	[ "$(stat -c %s "$out" 2>/dev/null || echo 0)" -gt 4096 ] && break
	sleep 0.1
done
# ... and the earlier process synced: its file's stack deltas (the same
# binary) are loaded, what is checked is the sync of the new pid.
sleep 1.5
"$WORKLOADS/busy" 4 >/dev/null & during=$!
wait "$during"
wait "$rec"
check "syswide: trecord -a exits 0" [ "$?" = 0 ]
dump "$out" >"$T/dump" || { fail "syswide: recording reads back"; exit 1; }
check "syswide: the later process's exec is in the recording" \
	grep -q "^E [0-9]* 2 $during " "$T/dump"

main=$(func_arg "$WORKLOADS/busy" main busy) || { fail "syswide: main of busy"; exit 1; }
# Not a latency test: at the start of -a the sync thread has every running
# process to sync, and on a loaded machine that takes a while.
warm=1500
for who in before during; do
	pid=${!who}
	$TRCHECK "$T/dump" --pid "$pid" --warmup-ms $warm >"$T/$who.stats"
	check "syswide: the $who process is synced: no unknown-pid samples after $warm ms" \
		[ "$(stat_of unknown_pid_late <"$T/$who.stats")" = 0 ]
	# Unwinding, once its file's stack deltas are in (NO_PAGE_INFO until
	# then: at the start of -a the loader has every sampled process's
	# files to read, on a busy machine for seconds), and not THROTTLED
	# (-a unwinds every process, and on a busy machine they spend the
	# CPU's BPF budget: those samples keep only their leaf, by design).
	awk '$1 != "S" || ($NF != "0/1/0/fa1" && $NF != "0/1/0/6")' "$T/dump" >"$T/unwound"
	$TRCHECK "$T/unwound" --pid "$pid" --warmup-ms $warm $main >"$T/$who.stats"
	late=$(stat_of late_samples <"$T/$who.stats")
	reach=$(stat_of samples_reaching_main <"$T/$who.stats")
	check "syswide: the $who process is unwound (${late:-0} samples after its first $warm ms)" \
		[ "${late:-0}" -ge 10 ]
	check "syswide: >= 98% of them reach main ($reach of $late)" \
		[ "${late:-0}" -gt 0 -a $((reach * 100)) -ge $((late * 98)) ]
done

awk '$1 == "X"' "$T/dump" >"$T/metrics.dump"
$TRCHECK "$T/metrics.dump" >"$T/stats"
m() { stat_of "metric_$1" <"$T/stats"; }
check "syswide: BPF reported pids ($(m PID_REPORTED)), none failed ($(m PID_REPORT_FAILED))" \
	[ "$(m PID_REPORTED)" -gt 0 -a "$(m PID_REPORT_FAILED)" = 0 ]
# (a deferred sample is sent as a stack copy, not a trace: DEFERRED_SENT)
check "syswide: every trace sent is written or counted ($(m TRACES_SENT) + $(m DEFERRED_SENT) = $(m SAMPLES_WRITTEN) + $(m BAD_MESSAGES))" \
	[ $(($(m TRACES_SENT) + $(m DEFERRED_SENT))) = $(($(m SAMPLES_WRITTEN) + $(m BAD_MESSAGES))) ]
