#!/usr/bin/env bash
# The BPF CPU budget (--max-cpu, bpf/cpu_budget.h), functionally:
#   a budget too small for any walk   every sample is kept, cut to its leaf
#                                     (symbolized) with [error: THROTTLED],
#                                     counted, and the summary says so
#   the default budget at -F 999      no sample is cut
#   --off-cpu under a tiny budget     waits still recorded with their
#                                     duration, their stacks cut to the leaf
#   bad --max-cpu values              one message, non-zero exit
# The load side (-a -F 50000 over deep stacks) is tests/stress/test_cpu_budget.sh.
. "$(dirname "$0")/lib.sh"


# A 0.01% budget (1 us per 10 ms window): no walk fits.
"$TRECORD" --max-cpu 0.01 -F 2000 -o "$T/tiny.tr" -- "$WORKLOADS/busy" 1 >/dev/null 2>"$T/tiny.err"
check "budget: tiny budget records (exit $?)" reads_back "$T/tiny.tr"
thr=$(metric "$T/tiny.tr" THROTTLED); smp=$(metric "$T/tiny.tr" SAMPLES)
echo "tiny budget: THROTTLED=$thr SAMPLES=$smp"
check "budget: most samples are throttled ($thr of $smp)" [ "${thr:-0}" -gt $(( ${smp:-0} * 9 / 10 )) ]
check "budget: the summary says how many were throttled" \
	grep -Eq "$thr throttled to their leaf \(BPF CPU budget 0.01%" "$T/tiny.err"
"$TREPORT" --folded --no-kernel --no-inline "$T/tiny.tr" >"$T/tiny.folded" 2>/dev/null
in_file=$(awk '/\[error: THROTTLED\]/ { n += $NF } END { print n + 0 }' "$T/tiny.folded")
check "budget: every throttled sample is in the file ($in_file of $thr)" [ "$in_file" = "$thr" ]
# The leaf is kept and resolved through the trie: busy's own functions.
named=$(awk '/^busy;\[error: THROTTLED\];(spin|sort_work|cmp_ints|main)/ { n += $NF } END { print n + 0 }' \
	"$T/tiny.folded")
check "budget: throttled samples keep their leaf, symbolized ($named of $in_file in busy's functions)" \
	[ "$named" -gt $(( in_file / 2 )) ]
check "budget: a throttled stack is only the leaf" \
	bash -c "! grep -E '\[error: THROTTLED\];[^ ]*;' '$T/tiny.folded'"
sns=$(metric "$T/tiny.tr" SAMPLER_NS)
check "budget: BPF time is counted (SAMPLER_NS=$sns)" [ "${sns:-0}" -gt 0 ]

# The default budget never cuts an ordinary recording.
"$TRECORD" -F 999 -o "$T/dflt.tr" -- "$WORKLOADS/busy" 1 >/dev/null 2>"$T/dflt.err"
thr=$(metric "$T/dflt.tr" THROTTLED)
check "budget: nothing throttled at -F 999 with the default budget (THROTTLED=$thr)" [ "$thr" = 0 ]
check "budget: no throttle note in the summary" bash -c "! grep -q throttled '$T/dflt.err'"

# Off-CPU stacks draw on the same budget: cut, but every wait is kept
# with its duration. The offcpu workload measures its main thread's waits
# in four functions and its wall time: the main thread's recorded off-CPU
# time must lie between the two.
"$TRECORD" --off-cpu --max-cpu 0.01 -F 99 -q -o "$T/off.tr" -- "$WORKLOADS/offcpu" 5 \
	>"$T/off.measured" 2>"$T/off.err"
check "budget: --off-cpu with a tiny budget records (exit $?)" reads_back "$T/off.tr"
"$TREPORT" --event offcpu-time --folded --folded-tid "$T/off.tr" >"$T/off.folded" 2>/dev/null
cut_us=$(awk '/\[error: THROTTLED\]/ { n += $NF } END { print n + 0 }' "$T/off.folded")
check "budget: off-CPU stacks are cut to their leaf too ($cut_us us of waits)" [ "$cut_us" -gt 0 ]
pid=$(dump "$T/off.tr" | awk '$1 == "S" { print $3; exit }')
main_us=$(awk -v t="-$pid/$pid;" 'index($0, t) { n += $NF } END { print n + 0 }' "$T/off.folded")
low=$(awk '$1 ~ /^block_in_/ { n += $2 } END { printf "%d", n * 0.9 }' "$T/off.measured")
high=$(awk '$1 == "main_wall_us" { print $2 }' "$T/off.err")
check "budget: ... the waits keep their duration ($main_us us of the main thread's, in $low..$high)" \
	[ "$main_us" -ge "${low:-1}" -a "$main_us" -le "${high:-0}" ]

for v in 0 0.001 51 abc 10x ''; do
	"$TRECORD" --max-cpu "$v" -a >"$T/out" 2>"$T/err"
	rc=$?
	if [ "$rc" != 0 ] && [ "$(wc -l <"$T/err")" = 1 ] &&
		grep -q "^trecord: --max-cpu must be a percentage from 0.01 to 50, not '$v'" "$T/err"; then
		pass "budget: --max-cpu '$v' refused"
	else
		fail "budget: --max-cpu '$v' refused (exit $rc)"; cat "$T/err"
	fi
done
