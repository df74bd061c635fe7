#!/usr/bin/env bash
# Every way a recording ends must end the process, with perf record's exit
# status and a complete file. trecord runs with SIGINT and SIGTERM
# inherited as ignored (what a non-interactive shell gives its background
# jobs, SIGINT at least; here made explicit with trap ''), in both builds
# (plain, ASan); SIGHUP ignored is nohup's, which trecord honours (README):
#   -a + SIGINT / SIGTERM / SIGHUP        dies by that signal (130/143/129)
#   SIGINT before BPF is attached         dies by SIGINT, empty complete file
#   two SIGINTs at once (-a)              dies by SIGINT, complete file
#   second SIGINT while a command that ignores SIGTERM keeps trecord in
#   its grace period                      command SIGKILLed at once, no
#                                         archive, 137, complete file
#   -- cmd that exits 3                   exit 3 (also with SIGCHLD ignored)
#   --duration 1                          exit 0
# Each run has a watchdog (WATCHDOG s): it catches hangs, it is not a
# timing assertion. The shutdown times are printed.
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/stress_lib.sh"
[ "$(id -u)" = 0 ] || skip_all "recording needs root (CAP_BPF, CAP_PERFMON)"
need_tools "$TREC_PLAIN_BUILD/trecord" "$TREC_BUILD/trecord"
make_test_dir
WATCHDOG=30

TRDUMP=$dir/trdump
cc -O1 -I"$TREC_ROOT/format" -o "$TRDUMP" "$TREC_ROOT/tests/record/trdump.c" \
	"$TREC_PLAIN_BUILD/libtrecformat.a" -lzstd -lz || { fail "trdump builds"; exit 1; }

# The premise: a process started this way has the three signals ignored.
ign=$( (trap '' INT TERM; exec awk '/^SigIgn:/ { print $2 }' /proc/self/status) )
check "setup: trap '' gives the recorder SIGINT and SIGTERM ignored (SigIgn $ign)" \
	test $((16#$ign & 0x4002)) = $((0x4002))

# start NAME ARGS...: starts trecord (of $build) in the background with the
# stop signals ignored; sets $tpid and $out.
start() {
	out=$dir/$build-$1.tr; shift
	# (SIGHUP as the default whatever this shell inherited: ignored, it
	# would be nohup's, which leaves trecord be)
	(trap '' INT TERM; exec env --default-signal=HUP "$build_dir/trecord" -F 499 -o "$out" "$@" \
		2>"$out.err") &
	tpid=$!
}

# catches_sigint: trecord (not the subshell before its exec) has installed
# its handlers (SigCgt has SIGINT).
catches_sigint() {
	local cgt
	[ "$(cat "/proc/$tpid/comm" 2>/dev/null)" = trecord ] || return 1
	cgt=$(awk '/^SigCgt:/ { print $2 }' "/proc/$tpid/status" 2>/dev/null) || return 1
	[ -n "$cgt" ] && [ $((16#$cgt & 2)) != 0 ]
}

# under_way: the recording has started (its file exists), then 1 s more.
under_way() {
	local i
	for ((i = 0; i < WATCHDOG * 10; i++)); do
		[ -s "$out" ] && { sleep 1; return 0; }
		kill -0 "$tpid" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# finish NAME WANT_RC: waits (watchdog) for trecord to end from now; checks
# its status and that the file reads back and ends with the SUMMARY.
finish() {
	local name="$build: $1" want=$2 t0=$EPOCHREALTIME i ms
	for ((i = 0; i < WATCHDOG * 20; i++)); do
		kill -0 "$tpid" 2>/dev/null || break
		sleep 0.05
	done
	if kill -0 "$tpid" 2>/dev/null; then
		fail "$name: trecord still running after $WATCHDOG s (hang): $(grep -h State /proc/"$tpid"/task/*/status | sort | uniq -c | tr -s '\n\t ' ' ')"
		kill -KILL "$tpid"
		wait "$tpid" 2>/dev/null
		return
	fi
	wait "$tpid" 2>/dev/null
	rc=$?
	ms=$(( (${EPOCHREALTIME/./} - ${t0/./}) / 1000 ))
	echo "$name: exited $rc, $ms ms after the stop (or the start)" >&2
	echo "time $build $ms $1" >>"$dir/times"
	check "$name: exit status $want (got $rc)" test "$rc" = "$want"
	if "$TRDUMP" "$out" >"$out.dump" 2>"$out.dump.err"; then
		pass "$name: the file reads back"
	else
		fail "$name: the file reads back ($(head -c 200 "$out.dump.err"))"
	fi
	check "$name: the file ends with the SUMMARY" test "$(tail -n1 "$out.dump" | cut -c1)" = Z
}

for build in plain san; do
	case $build in
	plain) build_dir=$TREC_PLAIN_BUILD ;;
	san) build_dir=$TREC_BUILD ;;
	esac

	# One run embeds the symbol archive (the slow part of a shutdown).
	for sig in INT TERM HUP; do
		opt=--no-archive
		[ $sig = INT ] && opt=
		start "$sig" -a -q $opt
		under_way || fail "$build: -a SIG$sig: the recording did not start"
		kill -"$sig" "$tpid"
		finish "-a, SIG$sig" $((128 + $(kill -l "$sig")))
	done

	# As soon as the handlers are in: before the BPF programs are loaded.
	start early -a -q --no-archive
	for ((i = 0; i < 2000; i++)); do catches_sigint && break; sleep 0.005; done
	[ -s "$out" ] && early=after || early=before
	# (A signal before main() meets the inherited SIG_IGN: nothing can
	# catch it, so the test waits until the handlers are in.)
	check "$build: trecord catches SIGINT although it was ignored" catches_sigint
	kill -INT "$tpid"
	echo "$build: early SIGINT sent $early the file was created" >&2
	finish "SIGINT right after the start" 130

	start twice -a -q
	under_way || fail "$build: two SIGINTs: the recording did not start"
	kill -INT "$tpid"; kill -INT "$tpid"
	finish "two SIGINTs at once" 130

	# The command ignores SIGTERM, so trecord waits its 2 s grace period;
	# the second SIGINT (while the command still lives) ends it at once.
	start grace -- sh -c "trap '' TERM; exec sleep 60"
	under_way || fail "$build: grace: the recording did not start"
	child=$(awk '{ print $1; exit }' /proc/"$tpid"/task/*/children 2>/dev/null)
	kill -INT "$tpid"
	sleep 0.2
	if [ -n "$child" ] && kill -0 "$child" 2>/dev/null; then
		kill -INT "$tpid"
		finish "second SIGINT in the command's grace period" 137
		check "$build: second SIGINT: trecord says it skips the archive" \
			grep -q '^trecord: second signal: not embedding symbols' "$out.err"
		check "$build: second SIGINT: the command is gone" bash -c "! kill -0 $child 2>/dev/null"
	else
		fail "$build: grace: the command was not running ($child)"
		finish "grace" 137
	fi

	start cmd -q -- sh -c 'exit 3'
	finish "-- cmd that exits 3" 3
	# SIGCHLD ignored would make the kernel reap the command unseen.
	out=$dir/$build-nochld.tr
	python3 -c 'import os, signal, sys
signal.signal(signal.SIGCHLD, signal.SIG_IGN)
os.execv(sys.argv[1], sys.argv[1:])' "$build_dir/trecord" -q -o "$out" -- sh -c 'exit 3' 2>"$out.err" &
	tpid=$!
	finish "-- cmd that exits 3, SIGCHLD inherited ignored" 3

	start duration -a -q --no-archive -d 1
	finish "--duration 1" 0
done
awk '{ printf "shutdown %-5s %6d ms  %s\n", $2, $3, substr($0, index($0, $4)) }' "$dir/times"
exit 0
