#!/usr/bin/env bash
# Hostile recordings for treport (the ASan/UBSan build): truncated,
# oversize lengths, zero lengths, wrong version, bit flips and damaged
# records, all made from one real recording. Each must get a clear message
# (or a truncation warning), never a crash or a hang. See hostile.py.
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/stress_lib.sh"
need_tools "$TRECORD" "$TREPORT"
command -v zstd >/dev/null || skip_all "needs the zstd command (package zstd)"
build_workloads
make_test_dir
"$TRECORD" -F 999 -q -o "$dir/real.tr" -- "$WORKLOADS/busy" 0.5 >/dev/null 2>"$dir/err" ||
	{ fail "could not make the base recording"; cat "$dir/err"; exit 1; }
python3 "$(dirname "$0")/hostile.py" "$TREPORT" "$dir/real.tr" "$dir" \
	--flips $((20 * STRESS_SCALE)) --records $((20 * STRESS_SCALE)) --seed "${HOSTILE_SEED:-1}"
