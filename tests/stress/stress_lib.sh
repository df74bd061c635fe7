# Sourced by tests/stress/test_*.sh after tests/lib/common.sh: helpers to
# watch a running trecord (its BPF maps, its RSS) and to judge exit codes.
#
# STRESS_SCALE (default 1) multiplies the work of every test; make stress
# (run-stress.sh) runs the same tests at a larger scale.
STRESS_SCALE=${STRESS_SCALE:-1}
: "${TREC_PLAIN_BUILD:=$TREC_ROOT/build}"

# Sets $dir to a fresh temporary directory removed when the test exits
# (common.sh's mktemp_dir cannot be used as $(...): its trap would fire
# when the subshell ends). Extra cleanup commands can go in $cleanup.
cleanup=:
make_test_dir() {
	dir=$(mktemp -d /tmp/trec-stress.XXXXXX)
	trap 'eval "$cleanup"; rm -rf "$dir"' EXIT
}

# Skips the test (exit 77) while a tool it needs is not built.
need_tools() {
	local t
	for t in "$@"; do
		[ -x "$t" ] || skip_all "needs $(basename "$t") ($t not built)"
	done
}

# 0 if status $1 is an ordinary exit: not a signal, not a sanitizer report
# (tests/run.sh sets ASan's exit code to 99 and UBSan's to 98), not a
# timeout(1) expiry.
is_clean_exit() {
	case "$1" in
	98 | 99 | 124 | 137) return 1 ;;
	esac
	[ "$1" -lt 128 ]
}

BPF_OWNED="python3 $TREC_ROOT/tests/lib/bpf_owned.py"

# Number of entries in process $1's BPF map named $2 (-1 if it has none).
map_entries() {
	$BPF_OWNED count "$1" "$2"
}

# wait_exit PID SECS: waits up to SECS for background child PID to end and
# sets $rc to its exit status; after SECS it is SIGKILLed and rc=124 (so a
# hung trecord fails the test instead of hanging the suite). Sets
# $waited to the seconds it took.
wait_exit() {
	local pid=$1 limit=$(( $2 * 10 )) i
	for ((i = 0; i < limit; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	waited=$((i / 10))
	if kill -0 "$pid" 2>/dev/null; then
		echo "pid $pid still running after $2 s: killing it" >&2
		kill -KILL "$pid"
		wait "$pid"
		rc=124
		return
	fi
	wait "$pid"
	rc=$?
}

rss_kib() {
	awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0
}

# Waits up to $2 seconds (default 20) for file $1 to appear.
wait_for_file() {
	local i limit=$(( ${2:-20} * 10 ))
	for ((i = 0; i < limit; i++)); do
		[ -e "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

# Waits up to $2 seconds for trecord $1 to have its BPF maps loaded.
wait_for_maps() {
	local i limit=$(( ${2:-20} * 10 ))
	for ((i = 0; i < limit; i++)); do
		$BPF_OWNED maps "$1" | grep -q ' pid_events$' && return 0
		kill -0 "$1" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# snapshot PID: "lpm reported events rss" of a running trecord: entries of
# its pid/page trie, its reported_pids and pid_events maps, and its RSS.
snapshot() {
	echo "$(map_entries "$1" pid_page_to_mapping_info) $(map_entries "$1" reported_pids)" \
		"$(map_entries "$1" pid_events) $(rss_kib "$1")"
}

# bounded NAME BEFORE AFTER1 AFTER2 SLACK: two identical waves of work ran
# between the three counts. PASS when the second wave grew the count by at
# most a quarter of the first wave's growth plus SLACK (a one-time warm-up
# is fine, growth per wave is a leak), or the count is back near BEFORE.
bounded() {
	local name=$1 c0=$2 c1=$3 c2=$4 slack=$5
	if [ "$c0" -lt 0 ] || [ "$c1" -lt 0 ] || [ "$c2" -lt 0 ]; then
		fail "$name: could not read the counts ($c0 $c1 $c2)"
		return
	fi
	local g1=$((c1 - c0)) g2=$((c2 - c1))
	if [ "$g2" -le $(( (g1 > 0 ? g1 : 0) / 4 + slack )) ] || [ "$c2" -le $((c0 + slack)) ]; then
		pass "$name bounded (before $c0, after wave 1 $c1, after wave 2 $c2)"
	else
		fail "$name grows per wave (before $c0, after wave 1 $c1, after wave 2 $c2)"
	fi
}

# settled_snapshot PID BASE: a snapshot once the pid/page entry count has
# settled: trecord drops the pids whose exit it missed in a periodic sweep
# (every 5 s, a batch at a time), so while the count is above BASE and
# still falling, look again after the next sweep (at most 4 times).
settled_snapshot() {
	local pid=$1 base=$2 snap next i
	sleep 1
	snap=$(snapshot "$pid")
	for ((i = 0; i < 4; i++)); do
		[ "${snap%% *}" -gt $((base + 64)) ] || break
		sleep 5.5
		next=$(snapshot "$pid")
		[ "${next%% *}" -lt "${snap%% *}" ] || break
		snap=$next
	done
	echo "$snap"
}

# watch_two_waves PID DIR: the recorded script touches DIR/m0 when it
# starts and DIR/m1, m2 after each wave, and waits for DIR/g1 (g2) before
# the next wave (before exiting). Prints one settled snapshot for each.
watch_two_waves() {
	local m snap base=0
	for m in 0 1 2; do
		wait_for_file "$2/m$m" 120 || { echo "missing marker m$m" >&2; return 1; }
		snap=$(settled_snapshot "$1" "$base")
		kill -0 "$1" 2>/dev/null || { echo "trecord exited before snapshot $m ended" >&2; return 1; }
		[ "$m" = 0 ] && base=${snap%% *}
		echo "$snap"
		touch "$2/g$m"
	done
}

# check_bounded_waves SNAPSHOTS: judges the three snapshot lines.
check_bounded_waves() {
	local -a s0 s1 s2
	read -r -a s0 <<<"$(sed -n 1p "$1")"
	read -r -a s1 <<<"$(sed -n 2p "$1")"
	read -r -a s2 <<<"$(sed -n 3p "$1")"
	echo "snapshots (lpm reported pid_events rss_kib):"; cat "$1"
	bounded "pid_page_to_mapping_info entries" "${s0[0]}" "${s1[0]}" "${s2[0]}" 64
	bounded "reported_pids entries" "${s0[1]}" "${s1[1]}" "${s2[1]}" 64
	bounded "pid_events entries" "${s0[2]}" "${s1[2]}" "${s2[2]}" 64
	bounded "trecord RSS (KiB)" "${s0[3]}" "${s1[3]}" "${s2[3]}" 8192
}

# two_waves NAME WAVE: records, with the plain build, a script that runs the
# shell command WAVE twice between markers, watches trecord's maps and RSS
# and judges them (check_bounded_waves). $dir must be the test's directory.
two_waves() {
	local name=$1 wave=$2 tpid watch_rc rc
	local w='while [ ! -e "$0" ]; do sleep 0.1; done'
	local script="touch $dir/m0; sh -c '$w' $dir/g0; $wave; touch $dir/m1; sh -c '$w' $dir/g1; $wave; touch $dir/m2; sh -c '$w' $dir/g2"
	"$TREC_PLAIN_BUILD/trecord" -F 999 -q -o "$dir/waves.tr" -- sh -c "$script" \
		>/dev/null 2>"$dir/waves.err" &
	tpid=$!
	watch_two_waves "$tpid" "$dir" >"$dir/snap"
	watch_rc=$?
	wait_exit "$tpid" 120
	check "trecord (plain) survives two $name waves (exit $rc)" test "$rc" = 0
	if [ "$watch_rc" = 0 ]; then
		check_bounded_waves "$dir/snap"
	else
		fail "could not watch trecord's maps through the $name waves"
		tail -5 "$dir/waves.err"
	fi
}
