#!/usr/bin/env bash
# A short run (FUZZ_SHORT_SECONDS, default 12) of the reader fuzz target on
# the seed corpus; `make fuzz` is the long run. Any crash, leak, sanitizer
# report or timeout fails.
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/../lib/fuzz.sh"
fuzzer=$TREC_ROOT/build/fuzz_reader
corpus=$TREC_ROOT/build/fuzz-corpus
secs=${FUZZ_SHORT_SECONDS:-12}

make -s -C "$TREC_ROOT" build/fuzz_reader build/fuzz-corpus/.stamp >/dev/null ||
	{ fail "build the fuzz target"; exit 1; }
# (not mktemp_dir: its EXIT trap fires when $(...) ends, removing the dir at once)
tmp=$(mktemp -d /tmp/trec-fuzz.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# Every seed must read without a sanitizer report first.
if "$fuzzer" -runs=0 "$corpus" >"$tmp/seeds.log" 2>&1; then
	pass "fuzz seeds ($(ls "$corpus" | wc -l) files) run clean"
else
	fail "fuzz seeds run clean"; tail -20 "$tmp/seeds.log"
fi

mkdir -p "$tmp/work"
# A fixed seed: the same inputs on every run, so CI does not turn red at
# random; `make fuzz` explores with fresh seeds.
"$fuzzer" -seed="${FUZZ_SEED:-1}" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
	-dict="$TREC_ROOT/tests/fuzz/trec.dict" -artifact_prefix="$tmp/" -print_final_stats=1 \
	"$tmp/work" "$corpus" >"$tmp/fuzz.log" 2>&1
rc=$?
fuzz_verdict "$rc" "$tmp" "reader fuzzing for ${secs}s"
