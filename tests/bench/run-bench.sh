#!/usr/bin/env bash
# make bench: trec against perf, side by side in one run (about 30 minutes; bench_costs.py's 15 slowdown rounds take 5 of them, bench_gaps.py's 11 rounds 4).
# Prints Markdown tables of ratios and per-sample figures; the raw numbers
# go to build/bench/results.json. BENCH_README=1 also writes the tables
# into README.md's Benchmarks section.
#   BENCH_RUNS (5)  BENCH_SECS (1.0)  BENCH_FREQS (99,999,4000)
#   BENCH_RUNTIME_SECS (2.5; 0: no Node/Java/Go/Python rows, tests/runtimes)
#   BENCH_ONLY: a regex of the rows to run (bench.py --only), e.g.
#     BENCH_ONLY='node|java|go' for the runtime table alone (about 2
#     minutes; no off-CPU or flight-recorder comparison then)
set -eu
cd "$(dirname "$0")/../.."
ROOT=$PWD
for tool in perf bpftool /usr/bin/time python3 offcputime; do
	command -v "$tool" >/dev/null || { echo "bench: $tool is missing (make deps)" >&2; exit 1; }
done
make -s -C tests/workloads OUT="$ROOT/build/workloads"
out=$ROOT/build/bench
rm -rf "$out"; mkdir -p "$out"
readme=() only=()
[ "${BENCH_README:-0}" = 1 ] && readme=(--readme "$ROOT/README.md")
[ -n "${BENCH_ONLY:-}" ] && only=(--only "$BENCH_ONLY")
# bench.py restores kernel.bpf_stats_enabled itself; this covers a kill.
old_stats=$(cat /proc/sys/kernel/bpf_stats_enabled)
trap 'echo "$old_stats" > /proc/sys/kernel/bpf_stats_enabled' EXIT
python3 tests/bench/bench.py \
	--trecord "${TRECORD:-$ROOT/build/trecord}" --treport "${TREPORT:-$ROOT/build/treport}" \
	--workloads "$ROOT/build/workloads" --out-dir "$out" \
	--runs "${BENCH_RUNS:-5}" --secs "${BENCH_SECS:-1.0}" --freqs "${BENCH_FREQS:-99,999,4000}" \
	--runtime-secs "${BENCH_RUNTIME_SECS:-2.5}" \
	"${readme[@]}" "${only[@]}"
[ -z "${BENCH_ONLY:-}" ] || exit 0
# Off-CPU (issue 13): trecord --off-cpu against offcputime on a pipe ping-pong.
python3 tests/bench/bench_offcpu.py --trecord "${TRECORD:-$ROOT/build/trecord}" \
	--treport "${TREPORT:-$ROOT/build/treport}" --runs "${BENCH_RUNS:-5}" --out "$out/offcpu.json" "${readme[@]}"
# The flight recorder against perf --overwrite (README "Catching the moment").
python3 tests/bench/bench_flight.py \
	--trecord "${TRECORD:-$ROOT/build/trecord}" --treport "${TREPORT:-$ROOT/build/treport}" \
	--workloads "$ROOT/build/workloads" --out-dir "$out" --runs "${BENCH_FLIGHT_RUNS:-3}"
