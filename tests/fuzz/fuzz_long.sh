#!/usr/bin/env bash
# make fuzz-long: the reader and the symbol-archive decoder fuzz targets,
# FUZZ_LONG_RUNS executions each (default 5000000: 10^7 in all), fresh
# random seeds, inputs kept in build/fuzz-work and build/fuzz-archive-work
# between runs; then every other target for FUZZ_LONG_SECS (below). Prints each run's count and the total; any crash, leak,
# sanitizer report or timeout stops it with a non-zero exit.
set -u
cd "$(dirname "$0")/../.."
runs=${FUZZ_LONG_RUNS:-5000000}
mkdir -p build/fuzz-work build/fuzz-archive-work
total=0
run() {
	local name=$1 log=build/fuzz-long-$1.log; shift
	echo "fuzz-long: $name, $runs executions (log: $log)"
	"$@" -runs="$runs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
		>"$log" 2>&1
	local rc=$? n
	n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	echo "fuzz-long: $name: ${n:-?} executions, exit $rc"
	total=$((total + ${n:-0}))
	if [ "$rc" != 0 ]; then
		grep -A30 -E 'ERROR|runtime error|SUMMARY' "$log" | head -40
		echo "fuzz-long: $name found a problem (artifacts in build/)"
		exit 1
	fi
}
run reader build/fuzz_reader -dict=tests/fuzz/trec.dict -artifact_prefix=build/ \
	build/fuzz-work build/fuzz-corpus
run archive build/fuzz_archive -artifact_prefix=build/archive- \
	build/fuzz-archive-work build/fuzz-archive-corpus
echo "fuzz-long: $total executions of the reader and archive, nothing found"
# Every other parser's target through its own test (which builds its
# seeds from this machine), FUZZ_LONG_SECS each (default 300; make test
# gives them 5-12 s).
secs=${FUZZ_LONG_SECS:-300}
for v in DCACHE EHFRAME GOPCLN JIT PERLCODE PROC PYCODE SCACHE; do export "${v}_FUZZ_SECONDS=$secs"; done
export FUZZ_SHORT_SECONDS=$secs ARCHIVE_FUZZ_SECONDS=$secs
for pat in tests/fuzz/test_fuzz_ tests/php/test_php_fuzz; do
	bash tests/run.sh "$pat" || exit 1
done
