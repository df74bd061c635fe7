#!/usr/bin/env bash
# trecord --off-cpu (issue 13): the offcpu workload (-O2, no frame pointers)
# measures its own blocked time per function; treport --event offcpu-time
# must agree within 10%, with stacks that reach main and kernel frames that
# show the wait. Also: threads, -p, the threshold, the other outputs.
. "$(dirname "$0")/lib.sh"

W=$WORKLOADS/offcpu
export TMPDIR=${TMPDIR:-/var/tmp} # the workload's fsync file: a real file system

# --- a command, 30 rounds of the four waits -----------------------------------
"$TRECORD" --off-cpu -q -o "$T/cmd.tr" -- "$W" 30 >"$T/measured" 2>"$T/err"
check "offcpu: trecord --off-cpu -- cmd exits 0" [ "$?" = 0 ]
pid=$(dump "$T/cmd.tr" | awk '$1 == "S" { print $3; exit }')
"$TREPORT" --event offcpu-time --folded --folded-tid "$T/cmd.tr" >"$T/folded"
check "offcpu: treport --event offcpu-time --folded exits 0" [ "$?" = 0 ]
python3 "$TREC_ROOT/tests/record/check_offcpu.py" "$T/folded" "$T/measured" "$pid"

# perf script: offcpu-time events with the period in ns; 30 nanosleep waits.
"$TREPORT" --event offcpu-time --perf-script "$T/cmd.tr" >"$T/script"
n=$(grep -c ' offcpu-time: $' "$T/script")
check "offcpu: --perf-script prints offcpu-time events ($n)" [ "$n" -ge 120 ]
check "offcpu: ... and no cpu-clock event" [ "$(grep -c ' cpu-clock: $' "$T/script")" = 0 ]
read -r nsleep ns_sleep < <(awk '/ offcpu-time: $/ { p = $(NF - 1); inside = 1; hit = 0; next }
	inside && /block_in_nanosleep/ { hit = 1 }
	inside && /^$/ { if (hit) { n++; s += p }; inside = 0 }
	END { if (inside && hit) { n++; s += p }; print n + 0, s + 0 }' "$T/script")
# All 30, also the ones whose switch-in no sched_switch showed (README,
# Off-CPU time, Limits: 29 now and then before they were ended at the
# thread's next switch-out).
check "offcpu: 30 waits in block_in_nanosleep ($nsleep)" [ "$nsleep" = 30 ]
us_sleep=$(awk '/block_in_nanosleep/ { s += $NF } END { print s + 0 }' "$T/folded")
check "offcpu: perf-script periods (ns) add up to the folded microseconds ($ns_sleep ns, $us_sleep us)" \
	python3 -c "import sys; sys.exit(abs($ns_sleep / 1000 - $us_sleep) > 1 + $nsleep)"

# The default event stays on-CPU: no off-CPU stacks in plain --folded.
"$TREPORT" --perf-script "$T/cmd.tr" >"$T/script_cpu"
check "offcpu: plain --perf-script is cpu-clock only" \
	[ "$(grep -c ' offcpu-time: $' "$T/script_cpu")" = 0 ]
"$TREPORT" --folded "$T/cmd.tr" >"$T/folded_cpu"
check "offcpu: plain --folded has no 20 ms of nanosleep per wait" \
	[ "$(awk '/do_nanosleep/ { s += $NF } END { print s + 0 }' "$T/folded_cpu")" -lt 30 ]

# The wall view: the main thread's samples (x period) and waits add up to
# its lifetime (main's own wall time; it is on the CPU very little, so
# preemption, which neither event counts, is small).
"$TREPORT" --event wall --folded --folded-tid "$T/cmd.tr" >"$T/folded_wall"
wall_us=$(awk -v who="offcpu-$pid/$pid" -F';' '$1 == who { n = split($0, a, " "); s += a[n] } END { print s + 0 }' "$T/folded_wall")
main_us=$(awk '$1 == "main_wall_us" { print $2 }' "$T/err")
check "offcpu: --event wall: the main thread adds up to main's wall time ($wall_us of ${main_us:-?} us)" \
	python3 -c "import sys; sys.exit(not abs($wall_us - ${main_us:-0}) <= 0.1 * ${main_us:-0})" ||
	{ echo "  main thread's roots:"; awk -F';' '{ n = split($0, a, " "); s[$1] += a[n] } END { for (k in s) print "  ", k, s[k] }' "$T/folded_wall"; }
"$TREPORT" --event wall "$T/cmd.tr" >"$T/summary_wall"
check "offcpu: --event wall summary" grep -q '^# wall: [0-9.]* s on and off the CPU' "$T/summary_wall"
"$TREPORT" --event wall --perf-script "$T/cmd.tr" >/dev/null 2>"$T/err_wall"
check "offcpu: --event wall refuses --perf-script" grep -q "goes with the summary" "$T/err_wall"

# Summary and --info name both events.
"$TREPORT" --event offcpu-time "$T/cmd.tr" >"$T/summary"
check "offcpu: summary of offcpu-time" grep -q '^# offcpu-time: [0-9.]* s blocked in [0-9]* waits' "$T/summary"
check "offcpu: ... top functions by time blocked" grep -q 'Top functions by total time blocked' "$T/summary"
"$TREPORT" "$T/cmd.tr" >"$T/summary_cpu"
check "offcpu: the cpu-clock summary also counts the waits" \
	grep -q 'offcpu-time: [0-9]* waits, [0-9.]* s blocked' "$T/summary_cpu"
"$TREPORT" --info "$T/cmd.tr" >"$T/info"
check "offcpu: --info shows the off-CPU waits" grep -q '^  off-CPU: *[1-9][0-9]* waits read' "$T/info"
check "offcpu: --info shows the cpu-clock samples" grep -q '^  samples: .*(cpu-clock)' "$T/info"
check "offcpu: metrics count the waits sent" grep -Eq '^ *OFFCPU_SENT +[1-9]' "$T/info"
check "offcpu: META names both events" grep -Eq 'event +cpu-clock,offcpu-time' "$T/info"
check "offcpu: no wait lost to a full map" grep -Eq '^ *OFFCPU_PENDING_FULL +0 ' "$T/info"
read -r switches sent short noswitch unseen unfinished lostring < <(awk '
	{ v[$1] = $2 }
	END { print v["OFFCPU_SWITCHES"] + 0, v["OFFCPU_SENT"] + 0, v["OFFCPU_SHORT"] + 0,
		v["OFFCPU_NO_SWITCH_IN"] + 0, v["OFFCPU_SWITCH_IN_UNSEEN"] + 0,
		v["OFFCPU_UNFINISHED"] + 0, v["TRACES_LOST_RINGBUF"] + 0 }' "$T/info")
# A wait whose switch-in was not seen is ended at the thread's next
# switch-out and written (counted in OFFCPU_SWITCH_IN_UNSEEN too): none is
# lost. The accounting: each wait taken ends in one of the counts.
check "offcpu: no wait lost for want of a switch-in ($noswitch of $switches; $unseen ended late)" \
	[ "$switches" -gt 0 -a "$noswitch" = 0 ]
check "offcpu: every wait taken is written, short or unfinished ($switches = $sent + $short + $unfinished)" \
	[ "$lostring" != 0 -o "$switches" = $((sent + short + unfinished)) ]
# Every thread of a command that ran to its end ran again after its last wait.
check "offcpu: no wait left unfinished" grep -Eq '^ *OFFCPU_UNFINISHED +0( |$)' "$T/info"

# pprof: an off-CPU sample type in nanoseconds.
"$TREPORT" --event offcpu-time --pprof -o "$T/off.pb.gz" "$T/cmd.tr"
check "offcpu: --pprof has the offcpu-time/nanoseconds sample type" \
	python3 -c "import gzip,sys; b=gzip.open('$T/off.pb.gz').read(); sys.exit(not (b'offcpu-time' in b and b'nanoseconds' in b and b'waits' in b))"

# --- -p on a running process ---------------------------------------------------
"$W" --loop 6 >/dev/null & target=$!
BG_PIDS+=("$target")
sleep 0.5
"$TRECORD" --off-cpu -o "$T/pid.tr" -p "$target" --duration 2 2>"$T/err_p"
check "offcpu: -p exits 0" [ "$?" = 0 ]
# trecord's last line tells samples and waits apart, as treport --info does
read -r ls lw < <(sed -n 's/^\[ trecord: \([0-9]*\) samples ([0-9]* lost), \([0-9]*\) off-CPU waits, .*/\1 \2/p' "$T/err_p")
"$TREPORT" --info "$T/pid.tr" >"$T/info_p"
is=$(awk '$1 == "samples:" { print $2 }' "$T/info_p")
iw=$(awk '$1 == "off-CPU:" { print $2 }' "$T/info_p")
check "offcpu: trecord's line: $ls samples and $lw waits, as --info's $is and $iw" \
	[ -n "$ls" -a "$ls" = "$is" -a "$lw" = "$iw" -a "${lw:-0}" -gt 0 ]
"$TREPORT" --event offcpu-time --folded --folded-tid "$T/pid.tr" >"$T/folded_p"
for f in block_in_nanosleep block_in_pipe_read block_in_mutex block_in_fsync; do
	check "offcpu: -p: $f -> main waits recorded" \
		grep -q "^offcpu-$target/$target;.*;main;$f;" "$T/folded_p"
done
check "offcpu: -p: the helper threads under their own tids" \
	[ "$(awk -F'[;/ ]' -v p="$target" '$1 ~ "-" p "$" && $2 != p { print $2 }' "$T/folded_p" | sort -u | wc -l)" -ge 2 ]
check "offcpu: -p: only the target" [ -z "$(grep -v "^offcpu[-a-z]*-$target/" "$T/folded_p")" ]
kill "$target" 2>/dev/null

# --- the threshold: 50 us waits below 5 ms, 20 ms waits above ----------------
count_waits() { # FILE FUNC: offcpu-time events whose stack has FUNC
	awk -v f="$2" '/ offcpu-time: $/ { inside = 1; hit = 0; next }
		inside && index($0, f) { hit = 1 }
		inside && /^$/ { n += hit; inside = 0 }
		END { print n + inside * hit }' "$1"
}
"$TRECORD" --off-cpu --off-cpu-min 5000 -q -o "$T/thr.tr" -- "$W" --short 40 5000 >"$T/thr_out"
check "offcpu: --off-cpu-min 5000 exits 0" [ "$?" = 0 ]
"$TREPORT" --event offcpu-time --perf-script "$T/thr.tr" >"$T/thr_script"
above=$(count_waits "$T/thr_script" short_above)
below=$(count_waits "$T/thr_script" short_below)
# A loaded machine stretches some 50 us sleeps past 5 ms: the workload
# counts the waits of each kind it measured at 5 ms or more (what the
# threshold keeps), so the bounds hold whatever the load. +-2: the first
# waits, before trecord's sync of the process, keep only their leaf frame
# (not named here), and a wait within microseconds of 5 ms may fall on
# either side (the workload's clock is not the scheduler's).
kept_above=$(awk '$1 == "short_above_kept" { print $2 }' "$T/thr_out")
kept_below=$(awk '$1 == "short_below_kept" { print $2 }' "$T/thr_out")
echo "short waits the workload measured at >= 5 ms: above ${kept_above:-?} of 40, below ${kept_below:-?} of 40"
check "offcpu: the workload counts its kept waits ($kept_above, $kept_below)" \
	[ -n "$kept_above" -a -n "$kept_below" ]
check "offcpu: 5 ms threshold: the 20 ms waits are kept ($above, the workload: ${kept_above:-?} of 40)" \
	[ "$above" -ge $((${kept_above:-40} - 2)) -a "$above" -le "${kept_above:-0}" ]
check "offcpu: ... the 50 us waits are not, but for those that took 5 ms ($below, the workload: ${kept_below:-?})" \
	[ "$below" -le $((${kept_below:-0} + 2)) ]
short=$(metric "$T/thr.tr" OFFCPU_SHORT)
check "offcpu: ... and counted in OFFCPU_SHORT ($short)" [ "${short:-0}" -ge $((36 - ${kept_below:-0})) ]
"$TREPORT" --info "$T/thr.tr" >"$T/thr_info"
check "offcpu: ... META gives the threshold" grep -Eq 'offcpu_min_ns +5000000$' "$T/thr_info"

"$TRECORD" --off-cpu --off-cpu-min 0 -q -o "$T/all.tr" -- "$W" --short 40
"$TREPORT" --event offcpu-time --perf-script "$T/all.tr" >"$T/all_script"
below=$(count_waits "$T/all_script" short_below)
check "offcpu: --off-cpu-min 0: the 50 us waits are kept ($below of 40)" [ "$below" -ge 38 ]

# --- Python: the off-CPU copy of the Python unwinder ---------------------------
# Debian's CPython (python3 on PATH may be a pyenv shim: a bash script).
py=/usr/bin/python3.11
[ -x "$py" ] || py=/usr/bin/python3
# The Python unwinder is verified when the first Python process shows up,
# which takes seconds on a loaded machine; the waits before it keep only
# native frames. So the script waits (up to 60 s) for a file the test makes
# once trecord -v says the unwinder is loaded, then 1 s more for
# python3.11's stack deltas; then 20 waits of 50 ms in waiter (line 9).
flag=$T/py.loaded
printf 'import os, sys, time\ndef warm_up():\n    end = time.time() + 60\n    while not os.path.exists(sys.argv[1]) and time.time() < end:\n        time.sleep(0.05)\n    time.sleep(1)\ndef waiter():\n    for i in range(20):\n        time.sleep(0.05)\nwarm_up()\nwaiter()\n' >"$T/wait.py"
"$TRECORD" -v --off-cpu -o "$T/py.tr" -- "$py" "$T/wait.py" "$flag" >/dev/null 2>"$T/py.err" &
rp=$!
flag_when_loaded "$rp" "$T/py.err" trec_unwind_python "$flag"
wait "$rp"
check "offcpu: python: trecord exits 0 (exit $?)" [ "$?" = 0 ]
check "offcpu: python: the unwinder is loaded" grep -q 'loaded trec_unwind_python on first need' "$T/py.err"
"$TREPORT" --event offcpu-time --folded "$T/py.tr" >"$T/py_folded"
us=$(awk '/;waiter \(wait.py:9\);.*do_nanosleep/ { s += $NF } END { print s + 0 }' "$T/py_folded")
check "offcpu: python: time.sleep waits under the Python frame waiter (wait.py:9) ($us us of 1000000)" \
	[ "$us" -ge 900000 ]

# --- user errors -----------------------------------------------------------------
"$TRECORD" --off-cpu --off-cpu-min 1ms -q -o "$T/bad.tr" -- true 2>"$T/err_min"
check "offcpu: a bad --off-cpu-min fails" [ "$?" != 0 ]
check "offcpu: ... saying so" grep -q "^trecord: --off-cpu-min must be microseconds" "$T/err_min"
"$TREPORT" --event cycles "$T/cmd.tr" >/dev/null 2>"$T/err_ev"
check "offcpu: treport --event with an unknown event fails" [ "$?" != 0 ]
check "offcpu: ... naming the events" grep -q "cpu-clock, offcpu-time and wall" "$T/err_ev"
"$TREPORT" --event offcpu-time --perf-data -o "$T/perf.data" "$T/cmd.tr" 2>"$T/err_pd"
check "offcpu: --perf-data refuses offcpu-time" [ "$?" != 0 ]
check "offcpu: ... saying so" grep -q "cpu-clock samples only" "$T/err_pd"
