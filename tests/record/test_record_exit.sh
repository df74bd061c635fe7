#!/usr/bin/env bash
# trecord -- cmd returns the command's status; signals to trecord end the
# recording cleanly with a valid file.
. "$(dirname "$0")/lib.sh"

run() { "$TRECORD" -q -o "$T/e.tr" -f -- "$@" 2>"$T/err"; }

# info TEXT [FILE]: treport --info's summary line of FILE ($T/e.tr) says
# TEXT (in words, not a raw wait status).
info() { "$TREPORT" --info "${2:-$T/e.tr}" 2>/dev/null | grep '^  summary:' | grep -qF -- "$1"; }

run /bin/sh -c 'exit 3'
check "exit: status of the command (3)" [ "$?" = 3 ]
check "exit: --info says the command exited with 3" info "; the command exited with 3"
run /bin/true
check "exit: status 0" [ "$?" = 0 ]
run /bin/sh -c 'kill -9 $$'
check "exit: killed command gives 128+9" [ "$?" = 137 ]
check "exit: SUMMARY has the wait status" bash -c "'$TRDUMP' '$T/e.tr' | grep -q '^Z .* 9$'"
check "exit: --info says the command was killed by SIGKILL" info "; the command was killed by SIGKILL"
run /nonexistent/cmd
rc=$?
check "exit: missing command gives 127" [ "$rc" = 127 ]
check "exit: ... with a message" grep -q "^trecord: cannot run /nonexistent/cmd: No such file or directory$" "$T/err"
# ... a start that failed: the recording at the path stays (not moved to
# .old for an empty one), as for any failed start (README).
rm -f "$T/keep.tr" "$T/keep.tr.old"
"$TRECORD" -q -o "$T/keep.tr" -- /bin/true 2>/dev/null
sum=$(md5sum <"$T/keep.tr")
"$TRECORD" -q -o "$T/keep.tr" -- /nonexistent/cmd 2>/dev/null
check "exit: a command that cannot run leaves the recording at the path as it was" \
	[ "$(md5sum <"$T/keep.tr")" = "$sum" -a ! -e "$T/keep.tr.old" ]

# The command inherits what trecord inherited, as without trecord (and as
# under perf record): open fds (make's jobserver pipe) and ignored signals
# (nohup's SIGHUP); nothing trecord opened itself.
# (no pipeline in that shell: its pipe's fds would show while ls runs)
fds='ls /proc/$$/fd; grep SigIgn /proc/$$/status'
exec 7>"$T/fd7"
"$TRECORD" -q -o "$T/i.tr" -f -- sh -c "echo via7 >&7; $fds" 2>"$T/err" | sort | tr '\n' ' ' >"$T/inh_rec"
sh -c "$fds" | sort | tr '\n' ' ' >"$T/inh_plain"
exec 7>&-
check "exit: the command writes to an inherited fd 7" grep -qx via7 "$T/fd7"
check "exit: ... and has the fds and ignored signals it has without trecord ($(head -1 "$T/inh_rec"))" \
	cmp -s "$T/inh_rec" "$T/inh_plain" || echo "  without trecord: $(cat "$T/inh_plain")"
sh -c "trap '' HUP; exec '$TRECORD' -q -o '$T/i.tr' -f -- grep SigIgn /proc/self/status" >"$T/inh_hup"
check "exit: under nohup the command still ignores SIGHUP ($(cat "$T/inh_hup"))" \
	python3 -c "import sys; sys.exit(not int(open('$T/inh_hup').read().split()[1], 16) & 1)"
# ... and trecord too: a hangup leaves the recording be, as perf's.
sh -c "trap '' HUP; exec '$TRECORD' -q -o '$T/hup.tr' -f -- sleep 2" & rec=$!
BG_PIDS+=("$rec")
for _ in $(seq 100); do [ -s "$T/hup.tr" ] && break; sleep 0.1; done
kill -HUP "$rec"
sleep 0.3
check "exit: nohup: SIGHUP does not stop trecord" kill -0 "$rec"
wait "$rec"
check "exit: ... which ends with its command (0)" [ "$?" = 0 ]

# SIGUSR2 (it writes a flight recording) to a plain recording: ignored, as
# perf record does; the recording goes on and ends as usual.
"$TRECORD" -q -o "$T/u2.tr" -f -- "$WORKLOADS/busy" 1 >/dev/null 2>"$T/err" & rec=$!
BG_PIDS+=("$rec")
for _ in $(seq 100); do [ -s "$T/u2.tr" ] && break; sleep 0.1; done
kill -USR2 "$rec"
wait "$rec"
check "exit: SIGUSR2 without --overwrite/--switch-output is ignored (exit 0)" [ "$?" = 0 ]
check "exit: ... and the recording is complete" info "the command exited with 0" "$T/u2.tr"

# --duration ends a command that runs longer: as asked, so 0 (the table
# in README), though trecord ended it by SIGTERM.
"$TRECORD" -q -o "$T/d.tr" -f -d 0.5 -- sleep 30 2>"$T/err"
check "exit: --duration ending the command: 0" [ "$?" = 0 ]
check "exit: ... --info says stopped by --duration" info "stopped by --duration" "$T/d.tr"

# SIGINT and SIGTERM to trecord: stop, summary, valid file; the command
# (not in the signal's path here) is ended too.
for sig in INT TERM; do
	"$TRECORD" -o "$T/s.tr" -f -- "$WORKLOADS/busy" 60 >/dev/null 2>"$T/err" & rec=$!
	BG_PIDS+=("$rec")
	# Wait until the recording is under way.
	for _ in $(seq 100); do [ -s "$T/s.tr" ] && break; sleep 0.1; done
	sleep 1
	kill -"$sig" "$rec"
	for _ in $(seq 100); do kill -0 "$rec" 2>/dev/null || break; sleep 0.1; done
	wait "$rec"
	rc=$?
	check "exit: SIG$sig stops trecord" bash -c "! kill -0 $rec 2>/dev/null"
	check "exit: SIG$sig: command ended by SIGTERM (143)" [ "$rc" = 143 ]
	check "exit: SIG$sig: summary printed" grep -q '^\[ trecord: [0-9]* samples' "$T/err"
	if dump "$T/s.tr" >"$T/dump"; then pass "exit: SIG$sig: file reads back"; else fail "exit: SIG$sig: file reads back"; fi
	check "exit: SIG$sig: SUMMARY record at the end" [ "$(tail -n1 "$T/dump" | cut -c1)" = Z ]
	check "exit: SIG$sig: --info says stopped by SIG$sig, the command killed by SIGTERM" \
		info "; stopped by SIG$sig; the command was killed by SIGTERM" "$T/s.tr"
	check "exit: SIG$sig: samples recorded" grep -q '^S ' "$T/dump"
	child=$(awk '$1 == "E" && $3 == 2 { print $4; exit }' "$T/dump")
	check "exit: SIG$sig: the command is gone" bash -c "[ -n '$child' ] && ! kill -0 '$child' 2>/dev/null"
done

# -a ends on SIGINT, dying by it like perf record (130).
"$TRECORD" -q -o "$T/a.tr" -f -a 2>"$T/err" & rec=$!
BG_PIDS+=("$rec")
for _ in $(seq 100); do [ -s "$T/a.tr" ] && break; sleep 0.1; done
sleep 1
kill -INT "$rec"
wait "$rec"
check "exit: -a stops on SIGINT with status 130" [ "$?" = 130 ]
check "exit: -a file reads back" bash -c "'$TRDUMP' '$T/a.tr' | grep -q '^Z '"
check "exit: -a: --info says stopped by SIGINT, no command" info "; stopped by SIGINT; no command (all)" "$T/a.tr"

# A command that ignores SIGTERM: SIGKILLed after the 2 s grace, and
# trecord dies by that SIGKILL, the command's end (README's exit table;
# perf record would wait for the command).
"$TRECORD" -q -o "$T/g.tr" -f -- sh -c "trap '' TERM; exec sleep 60" 2>"$T/err" & rec=$!
BG_PIDS+=("$rec")
# Until the trap is set: the command has become sleep.
for _ in $(seq 300); do pgrep -P "$rec" -x sleep >/dev/null && break; sleep 0.1; done
kill -INT "$rec"
wait "$rec"
check "exit: command ignoring SIGTERM, SIGINT to trecord: 137" [ "$?" = 137 ]
check "exit: ... --info says stopped by SIGINT, the command killed by SIGKILL" \
	info "; stopped by SIGINT; the command was killed by SIGKILL" "$T/g.tr"

# SIGKILL: no summary, but the chunks flushed every second read back.
"$TRECORD" -q -o "$T/k.tr" -f -- "$WORKLOADS/busy" 60 >/dev/null 2>/dev/null & rec=$!
BG_PIDS+=("$rec")
for _ in $(seq 100); do [ -s "$T/k.tr" ] && break; sleep 0.1; done
sleep 2.5
kill -KILL "$rec"
wait "$rec" 2>/dev/null
"$TRDUMP" "$T/k.tr" >"$T/kdump" 2>"$T/kerr"
child=$(awk '$1 == "E" && $3 == 2 { print $4; exit }' "$T/kdump")
[ -n "$child" ] && kill -9 "$child" 2>/dev/null
check "exit: SIGKILL: flushed chunks hold samples" grep -q '^S ' "$T/kdump"
