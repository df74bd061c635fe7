#!/usr/bin/env bash
# The sampler's perf events, as perf record opens them: -p, -t and a
# command watch their threads only (and what those start), so nothing
# else on the machine takes the timer interrupt; -a and -C watch CPUs.
# The sampler's run count (kernel.bpf_stats_enabled) tells who was
# interrupted: per CPU, a busy bystander is, through every event.
. "$(dirname "$0")/lib.sh"

old_stats=$(cat /proc/sys/kernel/bpf_stats_enabled)
echo 1 >/proc/sys/kernel/bpf_stats_enabled
trap 'echo "$old_stats" >/proc/sys/kernel/bpf_stats_enabled; cleanup' EXIT

# sampler_runs LOG: trec_sample's run count in a trecord -v log (0: none).
sampler_runs() {
	awk '/prog trec_sample / { for (i = 1; i < NF; i++) if ($(i + 1) == "runs,") n = $i }
	     END { print n + 0 }' "$1"
}

"$WORKLOADS/busy" 60 >/dev/null & bystander=$!
BG_PIDS+=("$bystander")
sleep 60 & sleeper=$!
BG_PIDS+=("$sleeper")
sleep 0.3

# A process that never runs: per thread, the sampler never runs either.
"$TRECORD" -v -F 999 -p "$sleeper" -d 1 -o "$T/sleeper.tr" 2>"$T/sleeper.log"
check "events: -p of a sleeping process exits 0" [ "$?" = 0 ]
runs=$(sampler_runs "$T/sleeper.log")
check "events: -p interrupts no other thread ($runs sampler runs)" [ "$runs" = 0 ]

# The same with -C: per CPU, the busy bystander is interrupted (and
# dropped by the sampler). This is what the check above tells apart.
"$TRECORD" -v -F 999 -p "$sleeper" -C 0-$(($(nproc) - 1)) -d 1 -o "$T/cpus.tr" \
	2>"$T/cpus.log"
runs=$(sampler_runs "$T/cpus.log")
check "events: -C samples per CPU, bystander included ($runs sampler runs)" [ "$runs" -ge 200 ]

# What a watched process starts after the attach inherits its event: a
# forked child, and the threads of the program it execs.
sh -c "sleep 0.7; \"$WORKLOADS/busy\" 1 >/dev/null & exec \"$WORKLOADS/threads\" 1 >/dev/null" &
parent=$!
BG_PIDS+=("$parent")
sleep 0.2
"$TRECORD" -q -p "$parent" -d 3 -o "$T/inherit.tr" 2>"$T/inherit.err"
check "events: -p of a shell that starts work later exits 0" [ "$?" = 0 ]
dump "$T/inherit.tr" >"$T/inherit.dump" || fail "events: inherit recording reads back"
check "events: its forked child is sampled" \
	[ -n "$(awk -v p="$parent" '$1 == "S" && $3 != p' "$T/inherit.dump")" ]
check "events: the threads of the program it exec'd are sampled" \
	[ "$(awk -v p="$parent" '$1 == "S" && $3 == p && $4 != p { print $4 }' "$T/inherit.dump" | sort -u | wc -l)" -ge 2 ]

# -t: that thread only, not the process's other threads.
"$WORKLOADS/threads" 30 >/dev/null & threaded=$!
BG_PIDS+=("$threaded")
sleep 0.5
worker=$(ls /proc/"$threaded"/task | grep -vx "$threaded" | head -1)
"$TRECORD" -v -t "$worker" -d 1 -o "$T/tid.tr" 2>"$T/tid.log"
check "events: -t exits 0" [ "$?" = 0 ]
dump "$T/tid.tr" >"$T/tid.dump"
check "events: -t samples its thread" [ -n "$(awk -v t="$worker" '$1 == "S" && $4 == t' "$T/tid.dump")" ]
check "events: ... and no other" [ -z "$(awk -v t="$worker" '$1 == "S" && $4 != t' "$T/tid.dump")" ]
kill "$threaded"

# many_threads N NAME: a process of N waiting threads and a spinning main
# thread; its pid in $many once they all run.
many_threads() {
	python3 -c '
import sys, threading, time
ev = threading.Event()
for _ in range(int(sys.argv[1])):
    threading.Thread(target=ev.wait, daemon=True).start()
open(sys.argv[2], "w").close()
end = time.time() + 30
while time.time() < end:
    pass
' "$1" "$T/$2.ready" &
	many=$!
	BG_PIDS+=("$many")
	for _ in $(seq 100); do [ -e "$T/$2.ready" ] && break; sleep 0.1; done
}

# 900 threads, one event each, beside trecord's own files: past the usual
# 1,024 fds, which trecord raises when the hard limit allows.
many_threads 900 fds
(ulimit -Sn 1024 && "$TRECORD" -v -p "$many" -d 1 -o "$T/fds.tr" 2>"$T/fds.log")
check "events: -p of a 901-thread process under ulimit -n 1024 exits 0" [ "$?" = 0 ]
check "events: ... one event per thread" grep -q "^trecord: 901 sampling event(s), one per thread$" "$T/fds.log"
kill "$many"

# More threads than per-thread events are kept for: per CPU instead, said
# with -v, and the process is still recorded.
many_threads 1100 many
"$TRECORD" -v -p "$many" -d 1 -o "$T/many.tr" 2>"$T/many.log"
check "events: -p of a 1,101-thread process exits 0" [ "$?" = 0 ]
check "events: ... sampled per CPU, said with -v" \
	grep -q "more than 1024 threads to watch: sampling on every CPU instead" "$T/many.log"
check "events: ... one event per CPU" grep -q "sampling event(s), one per CPU$" "$T/many.log"
dump "$T/many.tr" >"$T/many.dump"
check "events: ... and recorded" [ -n "$(awk -v p="$many" '$1 == "S" && $3 == p' "$T/many.dump")" ]
