#!/usr/bin/env bash
# A fork storm while recording: thousands of short processes (fork+exit and
# fork+exec /bin/true). trecord must not crash, must count the samples of
# pids it did not know yet, and must not grow its pid maps or its memory
# with every wave of processes.
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/stress_lib.sh"
need_tools "$TRECORD" "$TREPORT" "$TREC_PLAIN_BUILD/trecord"
build_workloads
make_test_dir
n=$((800 * STRESS_SCALE))
# Exec'ing children, very short ones, and ones that live ~2 ms (sampled,
# reported and synced while they exit: the race that leaks pid entries).
storm="$WORKLOADS/stress_forks $n exec && $WORKLOADS/stress_forks $n spin && $WORKLOADS/stress_forks $((n / 2)) spin 2000000"

# 1. The sanitizer build through a storm: clean exit, readable recording.
timeout 120 "$TRECORD" -F 999 -q -o "$dir/a.tr" -- sh -c "$storm" 2>"$dir/a.err"
rc=$?
check "trecord (ASan/UBSan) survives a fork storm of $((5 * n / 2)) processes (exit $rc)" \
	test "$rc" = 0
"$TREPORT" --info "$dir/a.tr" >"$dir/a.info" 2>"$dir/a.info.err"
check "treport --info reads the fork-storm recording" test $? = 0
unknown=$(metric "$dir/a.tr" PID_UNKNOWN)
samples=$(metric "$dir/a.tr" SAMPLES)
lost=$(sed -n 's/^  summary: .* samples written, \([0-9]*\) lost.*/\1/p' "$dir/a.info")
kept=$(awk '$1 == "NO_PID_INFO" && $3 == "samples" { print $2 }' "$dir/a.info")
echo "PID_UNKNOWN=${unknown:-?} SAMPLES=${samples:-?} lost=${lost:-?} NO_PID_INFO samples in the file=${kept:-0}"
check "samples of not-yet-known pids are counted (PID_UNKNOWN metric present)" \
	test -n "$unknown" -a -n "$samples"
# Each such sample is kept with a NO_PID_INFO error frame: those BPF ended
# at once (PID_UNKNOWN) and those it deferred that trecord could not resume
# (process gone or exec'd before its sync). trecord counts every one it
# handles (SAMPLES_UNKNOWN_PID): the file holds exactly those, and BPF's
# are among them, unless samples were lost.
handled=$(metric "$dir/a.tr" SAMPLES_UNKNOWN_PID)
check "every not-yet-known-pid sample is in the file (PID_UNKNOWN=${unknown:-?}, handled ${handled:-?}, NO_PID_INFO samples ${kept:-0}, lost ${lost:-?})" \
	test "${lost:-1}" != 0 -o \( "${kept:-0}" = "${handled:-x}" -a "${unknown:-x}" -le "${handled:-0}" \)
"$TREPORT" --folded "$dir/a.tr" >"$dir/a.folded" 2>>"$dir/a.info.err"
check "the storm's processes appear in the profile" grep -q '^stress_forks' "$dir/a.folded"

# 2. The plain build through two identical waves: map entries and RSS must
# not grow with each wave (ASan's quarantine would blur the RSS).
two_waves fork-storm "$storm"
exit 0
