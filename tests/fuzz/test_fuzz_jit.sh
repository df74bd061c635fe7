#!/usr/bin/env bash
# A short run (JIT_FUZZ_SECONDS each, default 5) of the perf map and
# jitdump parser fuzz targets on their seed corpora; `make fuzz-jit` is
# the long run. Any crash, leak, sanitizer report, broken table rule or
# timeout fails.
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/../lib/fuzz.sh"
secs=${JIT_FUZZ_SECONDS:-5}

make -s -C "$TREC_ROOT" build/fuzz_perfmap build/fuzz_jitdump build/fuzz-jit-corpus/.stamp >/dev/null ||
	{ fail "build the JIT fuzz targets"; exit 1; }
# (not mktemp_dir: its EXIT trap fires when $(...) ends, removing the dir at once)
tmp=$(mktemp -d /tmp/trec-fuzzjit.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

for t in perfmap jitdump; do
	fuzzer=$TREC_ROOT/build/fuzz_$t
	corpus=$TREC_ROOT/build/fuzz-jit-corpus/$t
	if "$fuzzer" -runs=0 "$corpus" >"$tmp/seeds.log" 2>&1; then
		pass "$t fuzz seeds ($(ls "$corpus" | wc -l) files) run clean"
	else
		fail "$t fuzz seeds run clean"; tail -20 "$tmp/seeds.log"
	fi
	rm -rf "$tmp/work" "$tmp"/crash-* "$tmp"/leak-* "$tmp"/timeout-* "$tmp"/oom-*
	mkdir -p "$tmp/work"
	# A fixed seed: the same inputs on every run (see test_fuzz_short.sh).
	"$fuzzer" -seed="${FUZZ_SEED:-1}" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-max_len=65536 -artifact_prefix="$tmp/" -print_final_stats=1 \
		"$tmp/work" "$corpus" >"$tmp/fuzz.log" 2>&1
	fuzz_verdict "$?" "$tmp" "$t parser fuzzing for ${secs}s"
done
exit 0
