#!/usr/bin/env bash
# -p on running processes: only they (and children they start) are
# sampled, --duration bounds the run, a missing pid is an error.
. "$(dirname "$0")/lib.sh"

"$WORKLOADS/busy" 30 >/dev/null & target=$!
BG_PIDS+=("$target")
"$WORKLOADS/threads" 30 >/dev/null & other=$!
BG_PIDS+=("$other")
sleep 0.3

out=$T/pid.tr
"$TRECORD" -q -o "$out" -p "$target" --duration 2 2>"$T/stderr"
rc=$?
check "pid: trecord exits 0" [ "$rc" = 0 ]
check "pid: the target keeps running" kill -0 "$target"
dump "$out" >"$T/dump" || { fail "pid: recording reads back"; exit 1; }
# Sampling time from the SUMMARY. Not a timing test: the lower bound says
# --duration was honoured, the upper one only that the run ended (a loaded
# CI machine stretches the drain at the end by seconds).
ms=$(awk '$1 == "Z" { print int(($3 - $2) / 1000000) }' "$T/dump")
check "pid: --duration 2 samples for at least 2 s and stops (${ms} ms)" [ "$ms" -ge 1950 -a "$ms" -lt 15000 ]
$TRCHECK "$T/dump" >"$T/stats"
# Few on a loaded machine: the target only gets its share of a CPU.
check "pid: samples recorded" [ "$(stat_of samples <"$T/stats")" -ge 5 ]
check "pid: only the target is sampled" \
	[ -z "$(awk -v p="$target" '$1 == "S" && $3 != p' "$T/dump")" ]
check "pid: a mapping snapshot of the target" grep -q "^M [0-9]* $target " "$T/dump"
# Synced at start, so nothing waits for a first sample to report the pid.
check "pid: no unknown-pid samples" [ "$(stat_of unknown_pid <"$T/stats")" = 0 ]
check "pid: META says pid mode" grep -q "^Y .*mode=pid .*pids=$target " "$T/dump"

# Two pids, one of them multi-threaded: both sampled, threads by tid.
"$TRECORD" -q -o "$T/two.tr" -p "$target,$other" --duration 1 2>"$T/stderr2"
check "pid: -p PID,PID exits 0" [ "$?" = 0 ]
dump "$T/two.tr" >"$T/dump2"
check "pid: both processes sampled" \
	[ "$(awk '$1 == "S" { print $3 }' "$T/dump2" | sort -u | wc -l)" = 2 ]
check "pid: worker threads sampled under their own tid" \
	[ "$(awk -v p="$other" '$1 == "S" && $3 == p && $4 != p { print $4 }' "$T/dump2" | sort -u | wc -l)" -ge 2 ]

# -p of a thread id (top -H shows them) records its process, as perf does.
tid=$(ls "/proc/$other/task" | grep -vx "$other" | head -1)
"$TRECORD" -o "$T/tid.tr" -p "$tid" --duration 1 2>"$T/err_tid"
check "pid: -p TID exits 0" [ "$?" = 0 ]
check "pid: ... saying it records the process" \
	grep -q "^trecord: $tid is a thread of process $other: recording the process" "$T/err_tid"
dump "$T/tid.tr" >"$T/dump_tid"
check "pid: ... whose threads are sampled ($(grep -c '^S ' "$T/dump_tid"))" \
	[ "$(awk -v p="$other" '$1 == "S" && $3 == p && $4 != p { print $4 }' "$T/dump_tid" | sort -u | wc -l)" -ge 2 ]

# A process that exits but is not reaped (a zombie) has ended: the
# recording ends too (kill -0 would say it lives), and -p of one is refused.
python3 -c 'import subprocess, sys, time
p = subprocess.Popen([sys.argv[1], "1"], stdout=subprocess.DEVNULL)
print(p.pid, flush=True)
time.sleep(20)' "$WORKLOADS/busy" >"$T/zpid" & parent=$!
BG_PIDS+=("$parent")
for _ in $(seq 50); do [ -s "$T/zpid" ] && break; sleep 0.1; done
zpid=$(cat "$T/zpid")
"$TRECORD" -q -o "$T/zombie.tr" -p "$zpid" 2>"$T/err_z" & rec=$!
BG_PIDS+=("$rec")
for _ in $(seq 100); do kill -0 "$rec" 2>/dev/null || break; sleep 0.1; done
check "pid: ends when the process exits unreaped" bash -c "! kill -0 $rec 2>/dev/null"
check "pid: ... which is a zombie now" grep -q '^State:.*Z' "/proc/$zpid/status"
wait "$rec"
check "pid: ... with status 0" [ "$?" = 0 ]
"$TRECORD" -q -o "$T/zombie2.tr" -p "$zpid" --duration 1 2>"$T/err_z2"
check "pid: -p of a zombie fails" [ "$?" != 0 ]
check "pid: ... saying so" grep -q "^trecord: process $zpid has exited (a zombie" "$T/err_z2"
kill "$parent" 2>/dev/null

# The recording ends by itself when every -p process is gone.
kill "$target"
"$TRECORD" -q -o "$T/gone.tr" -p "$other" 2>/dev/null & rec=$!
sleep 1
kill "$other"
for _ in $(seq 50); do kill -0 "$rec" 2>/dev/null || break; sleep 0.1; done
check "pid: ends when the process exits" bash -c "! kill -0 $rec 2>/dev/null"
wait "$rec"
check "pid: ... with status 0" [ "$?" = 0 ]

# A pid that does not exist.
dead=$(sh -c 'echo $$')
"$TRECORD" -q -o "$T/none.tr" -p "$dead" --duration 1 2>"$T/err3"
rc=$?
check "pid: missing pid fails" [ "$rc" != 0 ]
check "pid: ... saying so" grep -q "^trecord: no such process: $dead$" "$T/err3"
check "pid: ... and writes nothing" [ ! -e "$T/none.tr" ]
