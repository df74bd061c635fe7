#!/usr/bin/env bash
# Trace deltas (bpf/trace_delta.h, record/io/trace_delta.c), for real: a
# replayed deep stack is sent as its first frames and a reference to the
# CPU's previous trace, and trecord rebuilds it. On 250-deep stacks (the
# `deep` recursion, `chain` of 250 distinct functions, `threads` whose
# threads share CPUs) at 4000 Hz:
#   - most traces go as deltas, none without its base, none malformed;
#   - the file's stacks are those of a run with deltas off
#     (TREC_NO_TRACE_DELTA=1, which sends none and still replays);
#   - BPF's and trecord's counts add up.
. "$(dirname "$0")/lib.sh"

# folded_main NAME: the complete stacks with at least 2% of NAME's
# samples, without their counts (start-up's few stacks differ from run to
# run; so do the leaf-only error stacks of samples before the process's
# sync, and DELTA_NO_BASE is checked on its own).
folded_main() {
	"$TREPORT" --folded --no-kernel --no-inline "$T/$1.tr" 2>/dev/null |
		awk '{ c = $NF; sub(/ [0-9]+$/, ""); all += c; if (!/\[error: /) n[$0] += c }
		     END { for (s in n) if (n[s] * 50 >= all) print s }' |
		sort
}

# record NAME ENV... -- CMD...: one recording of CMD into $T/NAME.tr.
record() {
	local name=$1; shift
	local envs=()
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	env "${envs[@]}" "$TRECORD" -q --max-cpu 50 -F 4000 -o "$T/$name.tr" -- "$@" \
		>/dev/null 2>"$T/$name.err"
}

# run NAME ENV... -- CMD...: records CMD at 4000 Hz (budget raised so no
# sample is cut) into $T/NAME.tr. Once in a few dozen runs on a loaded
# machine, and with or without deltas, the workload's own deltas are
# missing for most of a run (most samples end in NATIVE_NO_PAGE_INFO after
# its pre-exec sync): such a run says nothing about deltas and is redone.
run() {
	local name=$1
	record "$@"
	check "$name: trecord exits 0 ($?)" reads_back "$T/$name.tr"
	if [ $(( $(metric "$T/$name.tr" NATIVE_NO_PAGE_INFO) * 10 )) -gt "$(metric "$T/$name.tr" SAMPLES)" ]; then
		echo "note: $name: $(metric "$T/$name.tr" NATIVE_NO_PAGE_INFO) of $(metric "$T/$name.tr" SAMPLES) samples without page info: recorded again"
		record "$@"
	fi
}

for w in "deep 2 250" "chain 2" "threads 2"; do
	set -- $w
	name=$1
	# Deltas from the cache from the first sample on (the SAN build under
	# load can take the whole run to extract them, deferring every sample).
	record "$name-warm" -- "$WORKLOADS/$1" 1 ${3:+$3}
	run "$name-on" X=1 -- "$WORKLOADS/$@"
	run "$name-off" TREC_NO_TRACE_DELTA=1 -- "$WORKLOADS/$@"
	m() { metric "$T/$name-$1.tr" "$2"; }

	sent=$(m on TRACES_SENT); deltas=$(m on TRACES_SENT_DELTA); replayed=$(m on STACK_REPLAYED)
	echo "$name: TRACES_SENT=$sent TRACES_SENT_DELTA=$deltas STACK_REPLAYED=$replayed"
	# A replayed trace goes as a delta unless the send before it failed,
	# or it is its CPU's 64th (sent whole). Samples deferred while deltas
	# load are not replayed.
	check "$name: replayed traces are sent as deltas ($deltas of $replayed)" \
		[ "${replayed:-0}" -gt 0 -a "$((${deltas:-0} * 10))" -ge "$((${replayed:-0} * 9))" ]
	check "$name: deltas are replayed traces ($deltas <= $replayed <= $sent)" \
		[ "${deltas:-1}" -le "${replayed:-0}" -a "${replayed:-1}" -le "${sent:-0}" ]
	check "$name: TREC_NO_TRACE_DELTA=1 sends none ($(m off TRACES_SENT_DELTA)), still replays ($(m off STACK_REPLAYED))" \
		[ "$(m off TRACES_SENT_DELTA)" = 0 -a "$(m off STACK_REPLAYED)" -gt 0 ]
	for r in on off; do
		check "$name-$r: no delta without its base, no bad message ($(m $r TRACES_DELTA_NO_BASE), $(m $r BAD_MESSAGES))" \
			[ "$(m $r TRACES_DELTA_NO_BASE)" = 0 -a "$(m $r BAD_MESSAGES)" = 0 ]
		# A deferred sample goes as a stack copy, not a trace.
		bpf=$(( $(m $r TRACES_SENT) + $(m $r DEFERRED_SENT) ))
		check "$name-$r: BPF's samples are sent or counted lost ($bpf + $(m $r TRACES_LOST_RINGBUF) = $(m $r SAMPLES))" \
			[ $((bpf + $(m $r TRACES_LOST_RINGBUF))) = "$(m $r SAMPLES)" ]
		in_file=$(dump "$T/$name-$r.tr" | awk '$1 == "S"' | wc -l)
		check "$name-$r: every trace sent is in the file ($bpf = $in_file = SAMPLES_WRITTEN $(m $r SAMPLES_WRITTEN))" \
			[ "$bpf" = "$in_file" -a "$in_file" = "$(m $r SAMPLES_WRITTEN)" ]
		folded_main "$name-$r" >"$T/$name-$r.main"
	done
	check "$name: the same main stacks with deltas on and off ($(wc -l <"$T/$name-on.main") and $(wc -l <"$T/$name-off.main"))" \
		cmp -s "$T/$name-on.main" "$T/$name-off.main"
	cmp -s "$T/$name-on.main" "$T/$name-off.main" ||
		diff "$T/$name-on.main" "$T/$name-off.main" | awk '{ print substr($0, 1, 120) " ... " substr($0, length($0) - 120) }'
	[ "$name" = threads ] ||
		check "$name: ... 250 frames deep or more" \
			awk -F';' 'NF >= 250 { deep = 1 } END { exit !deep }' "$T/$name-on.main"
	# Replays succeed here: the quiet mode of failed tries (bpf/stack_replay.h)
	# never holds for long.
	[ "$name" = threads ] ||
		check "$name: walks quiet for at most 1% of traces ($(m on REPLAY_QUIET) of $sent)" \
			[ $(($(m on REPLAY_QUIET) * 100)) -le "${sent:-0}" ]
	check "$name: no DELTA_NO_BASE frame in the file" \
		bash -c "! '$TREPORT' --folded '$T/$name-on.tr' 2>/dev/null | grep -q DELTA_NO_BASE"
done
