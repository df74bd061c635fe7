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

# fuzz_prepare TARGET NAME: builds build/TARGET (and any further make goals
# in FUZZ_MAKE_EXTRA), makes $tmp with seeds/ and work/ (removed on exit)
# and sets $fuzzer. Exits the test if the build fails.
fuzz_prepare() {
	local target=$1 name=$2
	make -s -C "$TREC_ROOT" "build/$target" ${FUZZ_MAKE_EXTRA:-} >/dev/null ||
		{ fail "build the $name fuzz target"; exit 1; }
	fuzzer=$TREC_ROOT/build/$target
	# (not mktemp_dir: its EXIT trap fires when $(...) ends, removing the dir at once)
	tmp=$(mktemp -d "/tmp/trec-$target.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	mkdir -p "$tmp/seeds" "$tmp/work"
}

# fuzz_seeds_then_run NAME SECS MAXLEN: every seed in $tmp/seeds runs clean
# (FUZZ_SEED_ENV, e.g. "VAR=1", is set for that pass), then a fixed-seed
# run of SECS seconds from them; one verdict each.
fuzz_seeds_then_run() {
	local name=$1 secs=$2 maxlen=$3
	if env ${FUZZ_SEED_ENV:-} "$fuzzer" -max_len="$maxlen" "$tmp"/seeds/* >"$tmp/seeds.log" 2>&1; then
		pass "$name fuzz seeds run clean ($(ls "$tmp/seeds" | wc -l) seeds)"
	else
		fail "$name fuzz seeds run clean"; tail -20 "$tmp/seeds.log"
	fi
	# A fixed seed: the same inputs on every run (see test_fuzz_short.sh).
	"$fuzzer" -seed="${FUZZ_SEED:-1}" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-max_len="$maxlen" -artifact_prefix="$tmp/" -print_final_stats=1 \
		"$tmp/work" "$tmp/seeds" >"$tmp/fuzz.log" 2>&1
	fuzz_verdict "$?" "$tmp" "$name fuzzing for ${secs}s"
}
