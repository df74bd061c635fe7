#!/usr/bin/env bash
# The CPU budget under the load that used to stall the machine: trecord -a
# -F 50000 while every CPU runs a 155-deep stack without frame pointers.
# Before the budget a 5 s recording took 171 s, lost 98% of its samples
# and the kernel logged soft lockups. Now:
#   - trecord ends soon after its --duration (the watchdog catches a stall;
#     the bound is ten seconds of slack, a stall was minutes);
#   - samples were throttled, and counted;
#   - the BPF time per CPU stays near the 10% budget (at most 2x: the
#     budget is charged after a sample, so a window can overshoot by one);
#   - the kernel logged no soft lockup meanwhile.
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/stress_lib.sh"
[ "$(id -u)" = 0 ] || skip_all "recording needs root (CAP_BPF, CAP_PERFMON)"
need_tools "$TREC_PLAIN_BUILD/trecord" "$TREC_PLAIN_BUILD/workloads/deep"
make_test_dir
max_rate=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
[ "$max_rate" -ge 50000 ] ||
	skip_all "kernel.perf_event_max_sample_rate is $max_rate: -F 50000 is refused"

DUR=$((2 + STRESS_SCALE))
ncpu=$(nproc)
lockups() { dmesg 2>/dev/null | grep -c 'soft lockup'; }
before=$(lockups)

pids=()
for ((i = 0; i < ncpu; i++)); do
	"$TREC_PLAIN_BUILD/workloads/deep" $((DUR + 20)) 155 >/dev/null &
	pids+=($!)
done
cleanup='kill ${pids[*]} 2>/dev/null'
sleep 0.3

t0=$EPOCHREALTIME
"$TREC_PLAIN_BUILD/trecord" -a -F 50000 --duration "$DUR" -o "$dir/a.tr" 2>"$dir/a.err" &
wait_exit $! $((DUR + 60))
ms=$(( (${EPOCHREALTIME/./} - ${t0/./}) / 1000 ))
kill "${pids[@]}" 2>/dev/null
wait "${pids[@]}" 2>/dev/null
cat "$dir/a.err"
echo "-a -F 50000 --duration $DUR on $ncpu deep stacks: trecord took $ms ms (exit $rc)"

check "trecord -a -F 50000 exits cleanly (exit $rc)" is_clean_exit "$rc"
check "it ends within 10 s of its --duration $DUR s (took $ms ms)" [ "$ms" -le $(( (DUR + 10) * 1000 )) ]
thr=$(metric "$dir/a.tr" THROTTLED); smp=$(metric "$dir/a.tr" SAMPLES); sns=$(metric "$dir/a.tr" SAMPLER_NS)
echo "SAMPLES=$smp THROTTLED=$thr SAMPLER_NS=$sns"
check "samples were throttled and counted (THROTTLED=$thr of $smp)" [ "${thr:-0}" -gt 0 ]
check "the summary tells the user" grep -q "throttled to their leaf (BPF CPU budget 10%" "$dir/a.err"
# Per CPU, BPF time / recording time; the budget is 10%.
pct=$(awk -v ns="${sns:-0}" -v d="$DUR" -v n="$ncpu" 'BEGIN { printf "%.1f", ns / 1e9 / d / n * 100 }')
check "BPF used $pct% of each CPU (budget 10%, at most 20%)" awk -v p="$pct" 'BEGIN { exit !(p > 0 && p <= 20) }'
after=$(lockups)
check "no soft lockup in the kernel log ($before before, $after after)" [ "$after" = "$before" ]
