#!/usr/bin/env bash
# trecord --overwrite for a long time: memory must stay flat. The window
# (5 s) fills in the first seconds; after that segments leave memory as
# new ones come, the state keeps only live processes, and SIGUSR2 every
# 10 s writes a file (--switch-max-files 2 keeps the disk flat too).
# Watched: trecord's RSS plus its in-memory segments (memfds, which RSS
# does not count while they are not mapped), every 2 s, through a fork
# storm that keeps making and ending processes.
#
# FLIGHT_SECS (default 40 s in make test, 60 x STRESS_SCALE = 10 min in
# make stress). After a warm-up (3 windows), the median of the second half of
# the run may exceed the first half's by at most 16 MiB.
# (make stress only: 10 min there; 40 s in make test was the second
# longest test of the suite.)
# trec-test: stress-only
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/stress_lib.sh"
need_tools "$TREC_PLAIN_BUILD/trecord" "$TREPORT"
[ "$(id -u)" = 0 ] || skip_all "recording needs root"
build_workloads
make_test_dir
TRECORD_PLAIN=${TRECORD_UNDER_TEST:-$TREC_PLAIN_BUILD/trecord}
secs=${FLIGHT_SECS:-$((STRESS_SCALE > 1 ? 60 * STRESS_SCALE : 40))}
step=2

# mem_kib PID: RSS + the sizes of its memfds.
mem_kib() {
	local rss m=0 f s
	rss=$(rss_kib "$1")
	for f in /proc/"$1"/fd/*; do
		case "$(readlink "$f" 2>/dev/null)" in
		/memfd:trec*) s=$(stat -Lc %s "$f" 2>/dev/null) && m=$((m + s)) ;;
		esac
	done
	echo $((rss + m / 1024))
}

# The command is the storm itself (its children are followed): what the
# rest of the machine runs does not blur the measure, as it would with -a.
"$TRECORD_PLAIN" -F 999 --overwrite --window 5 --switch-output=signal --switch-max-files 2 \
	-o "$dir/fl.tr" -- bash -c "end=\$((SECONDS + $secs)); while [ \$SECONDS -lt \$end ]; do
		'$WORKLOADS/stress_forks' 500 exec; '$WORKLOADS/busy' 0.5; done >/dev/null 2>&1" \
	>/dev/null 2>"$dir/fl.err" &
tpid=$!
cleanup="kill -INT $tpid 2>/dev/null"
wait_for_maps "$tpid" 30 || { fail "trecord --overwrite started"; exit 1; }
t0=$SECONDS
: >"$dir/mem"
while kill -0 "$tpid" 2>/dev/null; do
	echo "$((SECONDS - t0)) $(mem_kib "$tpid")" >>"$dir/mem"
	[ $(( (SECONDS - t0) % 10 )) -lt $step ] && kill -USR2 "$tpid" 2>/dev/null
	sleep "$step"
done
wait_exit "$tpid" 120
check "trecord --overwrite survives ${secs}s of fork storm (exit $rc)" test "$rc" = 0
files=$(ls "$dir" | grep -cE '^fl\.tr\.[0-9]{16}')
check "--switch-max-files 2: two files stay ($files)" test "$files" = 2
ok=1
for f in "$dir"/fl.tr.*; do "$TREPORT" --info "$f" >/dev/null 2>&1 || ok=0; done
check "the files read back" test "$ok" = 1
check "the summary counts what left the window" grep -Eq '[1-9][0-9]* older than the 5s window dropped' "$dir/fl.err"

python3 - "$dir/mem" <<'PY'
import statistics, sys
rows = [tuple(map(int, l.split())) for l in open(sys.argv[1])
        if len(l.split()) == 2 and int(l.split()[1]) > 0]
rows = [r for r in rows if r[0] >= 15]          # warm-up: three windows
if len(rows) < 6:
    print("FAIL: too few memory samples (%d)" % len(rows)); sys.exit(0)
half = len(rows) // 2
a = statistics.median(r[1] for r in rows[:half])
b = statistics.median(r[1] for r in rows[half:])
print("memory (RSS + segments, KiB): first half median %d, second half median %d, max %d"
      % (a, b, max(r[1] for r in rows)))
print(("PASS" if b - a <= 16 * 1024 else "FAIL") +
      ": memory stays flat over the run (grew %d KiB)" % (b - a))
PY
