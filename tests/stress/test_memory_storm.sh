#!/usr/bin/env bash
# trecord -a through a sustained exec storm: its memory must level off.
# Every process leaves per-pid state (mapping snapshots kept for the
# embedded symbols, the pids seen, the sync state); all of it must go once
# the process has, or RSS climbs with every exec for as long as trecord runs.
#
# STORM_SECS (default 60 x STRESS_SCALE: 60 s in make test, 10 min in make
# stress) of `stress_forks 2000 exec` rounds; RSS every 5 s. After a
# warm-up (the first 40%: caches fill) the growth is the difference of the
# medians of the window's two halves over the time between them: robust
# to the saw-tooth of trecord trimming its heap every 10 s and to spikes
# (-a records everything: another process mapping a big new file costs
# its deltas while they load). Judged per hour: at most 20 MB/h over 5
# minutes or more, 200 MB/h for a shorter run, whose few samples are
# noisier (the leak this catches was 500-1100 MB/h, 280-470 bytes per
# process).
# (make stress only: 10 min there; the minute make test gave it was the
# longest test of the suite, and ASan reports leaks at exit in every test.)
# trec-test: stress-only
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/stress_lib.sh"
need_tools "$TREC_PLAIN_BUILD/trecord" "$TREPORT"
[ "$(id -u)" = 0 ] || skip_all "recording needs root"
build_workloads
make_test_dir
TRECORD_PLAIN=${TRECORD_UNDER_TEST:-$TREC_PLAIN_BUILD/trecord}
secs=${STORM_SECS:-$((60 * STRESS_SCALE))}
limit=${STORM_LIMIT_MB_PER_HOUR:-$([ "$secs" -ge 300 ] && echo 20 || echo 200)}
step=5

"$TRECORD_PLAIN" -a -F 999 -q -o "$dir/storm.tr" >/dev/null 2>"$dir/storm.err" &
tpid=$!
cleanup="kill -INT $tpid 2>/dev/null"
wait_for_maps "$tpid" 30 || { fail "trecord -a started"; exit 1; }
sleep 2
: >"$dir/rounds"
(
	end=$((SECONDS + secs))
	while [ $SECONDS -lt $end ]; do
		"$WORKLOADS/stress_forks" 2000 exec >/dev/null 2>&1
		echo x
	done
) >>"$dir/rounds" &
spid=$!
t0=$SECONDS
: >"$dir/rss"
while kill -0 "$spid" 2>/dev/null; do
	echo "$((SECONDS - t0)) $(rss_kib "$tpid") $(wc -l <"$dir/rounds")" >>"$dir/rss"
	sleep "$step"
done
wait "$spid"
kill -INT "$tpid"
wait_exit "$tpid" 120
check "trecord -a survives ${secs}s of exec storm (exit $rc: SIGINT)" test "$rc" = 130
"$TREPORT" --info "$dir/storm.tr" >"$dir/info" 2>"$dir/info.err"
check "the storm recording reads back" test $? = 0

# time rss_kib rounds -> verdict
python3 - "$dir/rss" "$limit" <<'EOF'
import statistics, sys
rows = [tuple(map(int, l.split())) for l in open(sys.argv[1]) if len(l.split()) == 3]
limit = float(sys.argv[2])
if len(rows) < 8:
    print("FAIL: too few RSS samples (%d)" % len(rows)); sys.exit()
print("RSS (s:KiB):", " ".join("%d:%d" % r[:2] for r in rows))
warm = max(2, int(len(rows) * 0.4))
win = rows[warm:]
# Medians of the window's two halves: RSS is a saw-tooth (trecord trims
# its heap every 10 s) with spikes (-a records everything: another process
# mapping a big new file costs its deltas while they load).
h = len(win) // 2
t1 = statistics.median(r[0] for r in win[:h])
t2 = statistics.median(r[0] for r in win[h:])
kib_s = (statistics.median(r[1] for r in win[h:]) -
         statistics.median(r[1] for r in win[:h])) / max(1, t2 - t1)
mb_h = kib_s * 3600 / 1024
procs = (win[-1][2] - win[0][2]) * 2000
secs = win[-1][0] - win[0][0]
print("window %d-%d s (%d processes, %.0f/s)" %
      (win[0][0], win[-1][0], procs, procs / max(1, secs)))
print("growth %.2f KiB/s = %.1f MB/h extrapolated = %.1f bytes per process" %
      (kib_s, mb_h, kib_s * 1024 * secs / procs if procs else float("nan")))
print(("PASS" if mb_h <= limit else "FAIL") +
      ": trecord -a memory levels off under an exec storm (%.1f MB/h, limit %g)" % (mb_h, limit))
EOF
exit 0
