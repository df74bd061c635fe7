# Sourced by fuzz tests: the verdict of one libFuzzer run.
#   fuzz_verdict RC TMPDIR NAME   (the run's output in TMPDIR/fuzz.log,
#   artifacts as TMPDIR/crash-* etc.; kept in build/fuzz-artifacts/)
fuzz_verdict() {
	local rc=$1 tmp=$2 name=$3 a
	grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb|cov:' "$tmp/fuzz.log" | tail -3
	if [ "$rc" = 0 ]; then
		pass "$name finds nothing"
		return
	fi
	fail "$name finds nothing (exit $rc)"
	grep -A30 -E 'ERROR|runtime error|SUMMARY' "$tmp/fuzz.log" | head -40
	for a in "$tmp"/crash-* "$tmp"/leak-* "$tmp"/timeout-* "$tmp"/oom-*; do
		[ -f "$a" ] || continue
		mkdir -p "$TREC_ROOT/build/fuzz-artifacts"
		cp "$a" "$TREC_ROOT/build/fuzz-artifacts/" && echo "kept build/fuzz-artifacts/${a##*/}"
	done
}
