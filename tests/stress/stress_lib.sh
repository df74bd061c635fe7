# Sourced by tests/stress/test_*.sh after tests/lib/common.sh: helpers to
# watch a running trecord (its BPF maps, its RSS) and to judge exit codes.
#
# STRESS_SCALE (default 1) multiplies the work of every test; make stress
# (run-stress.sh) runs the same tests at a larger scale.
STRESS_SCALE=${STRESS_SCALE:-1}
: "${TREC_PLAIN_BUILD:=$TREC_ROOT/build}"

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

# Map ids of one BPF map name, owned by process $1.
trecord_map_ids() {
	local pid=$1 name=$2
	bpftool map show -j 2>/dev/null | python3 -c '
import json, sys
pid, name = int(sys.argv[1]), sys.argv[2]
for m in json.load(sys.stdin):
    if m.get("name") == name[:15] and any(p.get("pid") == pid for p in m.get("pids", [])):
        print(m["id"])' "$pid" "$name"
}

# Number of entries in trecord $1's map named $2 (-1 if the map is absent).
map_entries() {
	local ids id n total=0 found=0
	ids=$(trecord_map_ids "$1" "$2")
	for id in $ids; do
		n=$(bpftool map dump id "$id" -j 2>/dev/null | python3 -c '
import json, sys
try:
    print(len(json.load(sys.stdin)))
except ValueError:
    print(-1)')
		[ "$n" -ge 0 ] || return 1
		total=$((total + n)); found=1
	done
	[ "$found" = 1 ] && echo "$total" || echo -1
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
		[ -n "$(trecord_map_ids "$1" pid_events)" ] && return 0
		kill -0 "$1" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# Prints "name value" for each metric treport --info lists in file $1.
info_metric() {
	"$TREPORT" --info "$1" 2>/dev/null | awk -v m="$2" '
		{ for (i = 1; i < NF; i++) if ($i == m || $i == m ":") { v = $(i + 1); gsub(/[^0-9]/, "", v); print v; exit } }'
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

# watch_two_waves PID DIR: waits for the markers DIR/m0, m1, m2 the recorded
# script touches before, between and after its two waves, and prints one
# snapshot for each, a second after the marker (time for exit handling).
watch_two_waves() {
	local m
	for m in m0 m1 m2; do
		wait_for_file "$2/$m" 120 || { echo "missing marker $m" >&2; return 1; }
		sleep 1
		kill -0 "$1" 2>/dev/null || { echo "trecord exited before $m" >&2; return 1; }
		snapshot "$1"
	done
}

# check_bounded_waves SNAPSHOTS: judges the three snapshot lines.
check_bounded_waves() {
	local -a s0 s1 s2
	read -r -a s0 <<<"$(sed -n 1p "$1")"
	read -r -a s1 <<<"$(sed -n 2p "$1")"
	read -r -a s2 <<<"$(sed -n 3p "$1")"
	echo "snapshots (lpm reported pid_events rss_kib):"; cat "$1"
	bounded "pid_page_to_mapping_info entries" "${s0[0]}" "${s1[0]}" "${s2[0]}" 256
	bounded "reported_pids entries" "${s0[1]}" "${s1[1]}" "${s2[1]}" 64
	bounded "pid_events entries" "${s0[2]}" "${s1[2]}" "${s2[2]}" 64
	bounded "trecord RSS (KiB)" "${s0[3]}" "${s1[3]}" "${s2[3]}" 8192
}

# two_waves NAME WAVE: records, with the plain build, a script that runs the
# shell command WAVE twice between markers, watches trecord's maps and RSS
# and judges them (check_bounded_waves). $dir must be the test's directory.
two_waves() {
	local name=$1 wave=$2 tpid watch_rc rc
	local script="touch $dir/m0; sleep 1.5; $wave; touch $dir/m1; sleep 1.5; $wave; touch $dir/m2; sleep 1.5"
	"$TREC_PLAIN_BUILD/trecord" -F 999 -q -o "$dir/waves.tr" -- sh -c "$script" \
		>/dev/null 2>"$dir/waves.err" &
	tpid=$!
	watch_two_waves "$tpid" "$dir" >"$dir/snap"
	watch_rc=$?
	wait "$tpid"
	rc=$?
	check "trecord (plain) survives two $name waves (exit $rc)" test "$rc" = 0
	if [ "$watch_rc" = 0 ]; then
		check_bounded_waves "$dir/snap"
	else
		fail "could not watch trecord's maps through the $name waves"
		tail -5 "$dir/waves.err"
	fi
}
