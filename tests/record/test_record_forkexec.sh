#!/usr/bin/env bash
# A fork/exec-heavy shell loop: every process must appear in the pid
# events (fork, exec with its filename, exit), none may be lost.
. "$(dirname "$0")/lib.sh"

out=$T/fe.tr
"$TRECORD" -q -o "$out" -- /bin/sh -c 'for i in $(seq 200); do /bin/true; done' 2>"$T/stderr"
rc=$?
check "forkexec: trecord exits 0" [ "$rc" = 0 ]
dump "$out" >"$T/dump" || { fail "forkexec: recording reads back"; exit 1; }

sh_pid=$(awk '$1 == "E" && $3 == 2 && $9 == "/bin/sh" { print $4; exit }' "$T/dump")
check "forkexec: the shell's exec is recorded" [ -n "$sh_pid" ]
# E time kind pid tid parent exit comm filename
awk '$1 == "E" && $3 == 2 && $9 == "/bin/true" { print $4 }' "$T/dump" | sort -u >"$T/true_pids"
n=$(wc -l <"$T/true_pids")
check "forkexec: 200 distinct /bin/true execs (got $n)" [ "$n" = 200 ]
forks=$(awk -v p="$sh_pid" '$1 == "E" && $3 == 1 && $6 == p { print $4 }' "$T/dump" | sort -u)
check "forkexec: every /bin/true pid was forked by the shell" \
	[ -z "$(comm -23 "$T/true_pids" <(echo "$forks"))" ]
exits=$(awk '$1 == "E" && $3 == 3 && $7 == 0 { print $4 }' "$T/dump" | sort -u)
check "forkexec: every /bin/true pid exited with status 0" \
	[ -z "$(comm -23 "$T/true_pids" <(echo "$exits"))" ]
check "forkexec: the shell's exit is recorded" \
	grep -q "^E [0-9]* 3 $sh_pid " "$T/dump"
$TRCHECK "$T/dump" >"$T/stats"
lost=$(stat_of metric_PID_EVENTS_LOST <"$T/stats")
check "forkexec: no pid events lost ($lost)" [ "$lost" = 0 ]
check "forkexec: every pid event was written" \
	[ "$(stat_of metric_PID_EVENTS_SENT <"$T/stats")" = "$(stat_of metric_PID_EVENTS_WRITTEN <"$T/stats")" ]
# Exits removed every process from the LPM trie: no unbounded growth.
check "forkexec: no process left in the LPM trie at the end" \
	[ "$(stat_of metric_PIDS_TRACKED <"$T/stats")" = 0 -a "$(stat_of metric_LPM_ENTRIES <"$T/stats")" = 0 ]
check "forkexec: processes were synced meanwhile" [ "$(stat_of metric_PID_SYNCS <"$T/stats")" -gt 0 ]
# Processes trecord never had to follow stay out: only the shell's tree.
others=$(awk '$1 == "E" && $3 == 2 && $9 != "/bin/true" && $9 != "/bin/sh" && $9 !~ /seq$/' "$T/dump")
check "forkexec: only the command's process tree is recorded" [ -z "$others" ]
