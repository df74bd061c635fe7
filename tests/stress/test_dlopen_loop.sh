#!/usr/bin/env bash
# A dlopen/dlclose loop while recording: libraries come and go at new
# mappings all the time. trecord must not crash, must attribute samples to
# the loaded library's code, and must not grow its maps or memory with
# every wave of loads.
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/stress_lib.sh"
need_tools "$TRECORD" "$TREPORT" "$TREC_PLAIN_BUILD/trecord"
build_workloads
make_test_dir
# Eight copies: eight files, each mapped and unmapped again every round.
libs=()
for i in 1 2 3 4 5 6 7 8; do
	cp "$WORKLOADS/libdlspin.so" "$dir/libdlspin$i.so"
	libs+=("$dir/libdlspin$i.so")
done
rounds=$((400 * STRESS_SCALE))
loop="$WORKLOADS/stress_dlopen $rounds ${libs[*]}"

timeout 120 "$TRECORD" -F 999 -q -o "$dir/a.tr" -- $loop >/dev/null 2>"$dir/a.err"
rc=$?
check "trecord (ASan/UBSan) survives $((rounds * 8)) dlopen/dlclose cycles (exit $rc)" \
	test "$rc" = 0
"$TREPORT" --folded "$dir/a.tr" >"$dir/a.folded" 2>"$dir/a.report.err"
check "treport reads the dlopen recording" test $? = 0
check "samples in the dlopen'ed library are symbolized (dl_inner)" \
	grep -q 'dl_inner' "$dir/a.folded"

two_waves dlopen "$loop"
exit 0
