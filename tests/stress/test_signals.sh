#!/usr/bin/env bash
# trecord killed mid-recording. SIGKILL: the file must read back up to its
# last complete chunk, with a warning that the recording is incomplete.
# SIGINT and SIGTERM: trecord stops cleanly, dies by that signal like perf
# record (130, 143), and the file is complete (it ends with a SUMMARY
# record, no warning when read).
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/stress_lib.sh"
need_tools "$TRECORD" "$TREPORT"
build_workloads
make_test_dir

# start_trecord OUT ARGS...: starts trecord in the background, sets $tpid
# and waits until its BPF programs are loaded.
start_trecord() {
	local out=$1; shift
	"$TRECORD" -F 999 -q -o "$out" "$@" 2>"$out.err" &
	tpid=$!
	wait_for_maps "$tpid" 30
}

# SIGKILL while recording a busy command.
start_trecord "$dir/kill.tr" -- "$WORKLOADS/busy" 30 ||
	fail "trecord did not start"
sleep $((3 * STRESS_SCALE))
child=$(cat /proc/"$tpid"/task/*/children 2>/dev/null)
kill -KILL "$tpid"
wait_exit "$tpid" 10
for c in $child; do kill -KILL "$c" 2>/dev/null; done
check "SIGKILL ends trecord (exit $rc)" test "$rc" = 137
"$TREPORT" --info "$dir/kill.tr" >"$dir/kill.info" 2>"$dir/kill.info.err"
rc=$?
echo "treport --info on a SIGKILLed recording: exit $rc, stderr: $(head -3 "$dir/kill.info.err")"
check "treport --info on a SIGKILLed recording does not crash (exit $rc)" is_clean_exit "$rc"
check "treport warns that the SIGKILLed recording is incomplete" \
	grep -qiE 'truncat|incomplete|no summary|not closed' "$dir/kill.info.err"
"$TREPORT" --folded "$dir/kill.tr" >"$dir/kill.folded" 2>"$dir/kill.folded.err"
rc=$?
check "treport --folded on a SIGKILLed recording does not crash (exit $rc)" is_clean_exit "$rc"
check "the chunks written before SIGKILL read back (stacks of busy)" \
	grep -q '^busy;.*recurse' "$dir/kill.folded"

# SIGINT and SIGTERM while recording the whole system. busy starts first:
# this checks that the file is complete, not how fast new pids are synced.
for sig in INT TERM; do
	f=$dir/$sig.tr
	"$WORKLOADS/busy" 30 >/dev/null &
	bpid=$!
	start_trecord "$f" -a || fail "trecord -a did not start"
	# On a loaded machine syncing busy can take a while: wait for its
	# mappings to be in (up to 30 s), then record it for 2 s.
	for ((i = 0; i < 60; i++)); do
		[ "$($BPF_OWNED synced "$tpid" "$bpid")" = 1 ] && break
		sleep 0.5
	done
	sleep 2
	kill -"$sig" "$tpid"
	wait_exit "$tpid" 30
	kill -KILL "$bpid"; wait "$bpid" 2>/dev/null
	check "SIG$sig: trecord dies by SIG$sig within 30 s (exit $rc after ${waited} s)" \
		test "$rc" = $((128 + $(kill -l "$sig")))
	"$TREPORT" --info "$f" >"$f.info" 2>"$f.info.err"
	rc=$?
	check "SIG$sig: treport --info reads the recording (exit $rc)" test "$rc" = 0
	check "SIG$sig: the recording ends with a SUMMARY" grep -q '^  summary: .* samples written' "$f.info"
	check "SIG$sig: no warning when reading it" test ! -s "$f.info.err"
	"$TREPORT" --folded "$f" >"$f.folded" 2>/dev/null
	check "SIG$sig: the busy workload was recorded with its stacks" grep -q '^busy;.*recurse' "$f.folded"
done
exit 0
