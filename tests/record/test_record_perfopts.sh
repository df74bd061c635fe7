#!/usr/bin/env bash
# perf record's spellings: honoured where trecord can (-t, -C, -u, -G, -c,
# -e cpu-clock/task-clock, -z), accepted as no-ops (-g, --call-graph, -B,
# -N), refused with the reason (hardware events, tracepoints).
. "$(dirname "$0")/lib.sh"

# bad NAME EXPECTED-MESSAGE-REGEX ARGS...: one line on stderr, exit 2.
bad() {
	local name=$1 re=$2; shift 2
	"$TRECORD" "$@" >"$T/out" 2>"$T/err"
	local rc=$?
	if [ "$rc" = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -Eq "$re" "$T/err"; then
		pass "perf options: $name"
	else
		fail "perf options: $name (exit $rc)"; cat "$T/err"
	fi
}
# field N FILE: the distinct values of SAMPLE field N (3 pid, 4 tid, 5 cpu).
field() { dump "$2" | awk -v n="$1" '$1 == "S" { print $n }' | sort -u | tr '\n' ' '; }
meta() { "$TREPORT" --info "$2" | awk -v k="$1" '$1 == k { print $2 }'; }

# ---- the issue's command line ----------------------------------------------------
# Two busy processes, one pinned to each of CPUs 0 and 1: -C 0 keeps the first's.
pinned() { echo "taskset -c 0 $WORKLOADS/busy $1 & taskset -c 1 $WORKLOADS/busy $1; wait"; }
"$TRECORD" -g -e cpu-clock -c 1000000 -C 0 -o "$T/x.tr" -- sh -c "$(pinned "-n 300")" >/dev/null 2>"$T/err"
check "perf options: -g -e cpu-clock -c 1000000 -C 0 records" [ $? = 0 ]
check "perf options: ... and reads back" reads_back "$T/x.tr"
n=$(dump "$T/x.tr" | grep -c '^S ')
check "perf options: -C 0: every sample on CPU 0 ($(field 5 "$T/x.tr"), $n samples)" \
	[ "$(field 5 "$T/x.tr")" = "0 " ]
check "perf options: -c 1000000 ns is 1000 Hz in META" [ "$(meta freq_hz "$T/x.tr")" = 1000 ]
# -c is the cpu-clock period: 1 ms of CPU each, ~10 times -F 99's samples
# (a fixed amount of work: the count does not depend on the load).
"$TRECORD" -C 0 -o "$T/f99.tr" -- sh -c "$(pinned "-n 300")" >/dev/null 2>&1
n99=$(dump "$T/f99.tr" | grep -c '^S ')
check "perf options: -F 99 samples too ($n99)" [ "$n99" -gt 0 ]
check "perf options: -c 1000000 samples several times more than -F 99 ($n vs $n99)" \
	[ "$n" -gt $((n99 * 4)) ]

"$TRECORD" -e task-clock -z --call-graph=dwarf,8192 -B -N --no-buildid --no-buildid-cache \
	--compression-level=3 -o "$T/t.tr" -- "$WORKLOADS/busy" 0.5 >/dev/null 2>&1
check "perf options: -e task-clock, -z, --call-graph=dwarf,8192, -B, -N record" [ $? = 0 ]
check "perf options: ... with whole stacks" \
	test "$("$TREPORT" --folded "$T/t.tr" 2>/dev/null | grep -c ';main;')" -gt 0
# -N is perf's --no-buildid-cache, not trec's --no-archive: symbols stay in.
check "perf options: -N keeps the embedded symbols" \
	test "$("$TREPORT" --info "$T/t.tr" | awk '$1 == "SYMTAB" { print $2 }')" -gt 0
"$TRECORD" --call-graph fp -g -o "$T/fp.tr" -- /bin/true >/dev/null 2>&1
check "perf options: --call-graph fp" [ $? = 0 ]
# -z N: the chunks' zstd level (test_record_output_level.c checks it is
# the one compressed at); the recording reads back the same.
"$TRECORD" -z19 -o "$T/z19.tr" -- "$WORKLOADS/busy" 0.3 >/dev/null 2>&1
check "perf options: -z19 records" [ $? = 0 ]
check "perf options: ... and reads back with whole stacks" \
	test "$("$TREPORT" --folded "$T/z19.tr" 2>/dev/null | grep -c ';main;')" -gt 0

# ---- -t: one thread of a multi-threaded process ------------------------------------
"$WORKLOADS/threads" 30 >/dev/null &
wp=$!
BG_PIDS+=("$wp")
for _ in $(seq 50); do [ "$(ls /proc/$wp/task 2>/dev/null | wc -l)" -ge 4 ] && break; sleep 0.1; done
tid=$(ls /proc/$wp/task | sort -n | sed -n 2p)
"$TRECORD" -t "$tid" -d 1.5 -o "$T/tid.tr" >/dev/null 2>&1
check "perf options: -t TID records" [ $? = 0 ]
check "perf options: -t $tid: only that thread ($(field 4 "$T/tid.tr"))" [ "$(field 4 "$T/tid.tr")" = "$tid " ]
kill "$wp" 2>/dev/null; wait "$wp" 2>/dev/null

# ---- -u: one user's processes, system-wide ----------------------------------------
if id nobody >/dev/null 2>&1 && command -v setpriv >/dev/null; then
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$WORKLOADS/busy" 30 >/dev/null &
	up=$!
	BG_PIDS+=("$up")
	sleep 0.3
	"$TRECORD" -u nobody -d 1.5 -o "$T/uid.tr" >/dev/null 2>&1
	check "perf options: -u nobody records" [ $? = 0 ]
	pids=$(field 3 "$T/uid.tr") ok=1
	for p in $pids; do [ "$(stat -c %u /proc/$p 2>/dev/null)" = 65534 ] || ok=0; done
	check "perf options: -u nobody: some samples ($(echo $pids | wc -w) processes)" [ -n "$pids" ]
	check "perf options: -u nobody: only nobody's processes (pids $pids)" [ "$ok" = 1 ]
	kill "$up" 2>/dev/null; wait "$up" 2>/dev/null
else
	echo "SKIP: -u (no user nobody or no setpriv)"
fi

# ---- -G: a cgroup v2 --------------------------------------------------------------
# (the v2 hierarchy: /sys/fs/cgroup, or /sys/fs/cgroup/unified in the hybrid layout)
cgroot=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
cg=$cgroot/trec-test-$$
if [ -n "$cgroot" ] && mkdir "$cg" 2>/dev/null; then
	"$WORKLOADS/busy" 30 >/dev/null &
	gp=$!
	BG_PIDS+=("$gp")
	if echo "$gp" >"$cg/cgroup.procs" 2>/dev/null; then
		"$TRECORD" -G "trec-test-$$" -d 1.5 -o "$T/cg.tr" >/dev/null 2>&1
		check "perf options: -G records" [ $? = 0 ]
		check "perf options: -G: only the cgroup's process ($(field 3 "$T/cg.tr"))" \
			[ "$(field 3 "$T/cg.tr")" = "$gp " ]
	else
		echo "SKIP: -G (cannot move a process into $cg)"
	fi
	kill "$gp" 2>/dev/null; wait "$gp" 2>/dev/null
	rmdir "$cg"
else
	echo "SKIP: -G (no writable cgroup v2 hierarchy)"
fi

# ---- refusals ------------------------------------------------------------------------
bad "-e cycles: hardware" "^trecord: -e cycles: hardware events are not supported" -e cycles -a
bad "-e cpu/instructions/: hardware" "hardware events are not supported" -e cpu/instructions/ -a
bad "-e r01c2: raw hardware" "hardware events are not supported" -e r01c2 -a
bad "-e sched:sched_switch: tracepoint" "^trecord: -e sched:sched_switch: tracepoints are not supported yet" \
	-e sched:sched_switch -a
bad "-e cpu-clock:u: modifier" "^trecord: -e cpu-clock:u: event modifiers are not supported" -e cpu-clock:u -a
bad "-t with a command" "^trecord: -t records threads that run already: not with a command" -t 1 -- /bin/true
bad "-e bogus" "^trecord: -e: unknown event 'bogus'" -e bogus -a
bad "-c too small" "^trecord: -c must be a cpu-clock period" -c 5 -a
bad "-F and -c" "^trecord: give -F or -c, not both" -F 999 -c 1000000 -a
# (-F 99 is the default, but given it is still both)
bad "-F 99 and -c" "^trecord: give -F or -c, not both" -c 1000000 -F 99 -a
bad "--call-graph=foo" "^trecord: --call-graph must be fp, dwarf" --call-graph=foo -a
bad "-z0" "^trecord: -z/--compression-level must be a zstd level from 1 to 22, not '0'" -z0 -a
bad "--compression-level=23" "^trecord: -z/--compression-level must be a zstd level from 1 to 22" \
	--compression-level=23 -a
bad "-zx" "^trecord: -z/--compression-level must be a zstd level" -zx -a
bad "-C out of range" "^trecord: -C: not a list of CPUs from 0-" -C 9999 -a
bad "-C garbage" "^trecord: -C: not a list of CPUs" -C 1-x -a
bad "-t 0" "^trecord: -t: at most 16 threads, and no 0" -t 0
bad "-t no such thread" "^trecord: -t: no such thread: 2147483646" -t 2147483646
bad "-u no such user" "^trecord: -u: no such user: 'no-such-user-x'" -u no-such-user-x
bad "-G no such cgroup" "^trecord: -G: no cgroup .no/such/cg. under" -G no/such/cg
bad "--switch-output=5x" "^trecord: --switch-output must be signal, a size" --switch-output=5x -a
bad "--switch-output=0s" "^trecord: --switch-output must be signal" --switch-output=0s -a
bad "--switch-max-files alone" "^trecord: --switch-max-files needs --switch-output" --switch-max-files 3 -a
bad "--overwrite with a size" "^trecord: --overwrite keeps a time window" --overwrite --switch-output=10M -a
bad "--overwrite -o -" "^trecord: --overwrite and --switch-output write files" --overwrite -o - -a
bad "--window 0" "^trecord: --window must be from 0.1 to 86400 seconds" --overwrite --window 0 -a

# ---- README's table of perf record's options, row by row ----------------------------
# Every spelling the table names: "unknown option" rows must be refused as
# unknown, every other row's option must be one trecord knows (it then
# stops at a later check: a missing argument, nothing to record).
"$TRECORD" --bogus-option >/dev/null 2>"$T/err"
check "perf options: an unknown option says so" grep -q "^trecord: unknown option '--bogus-option'" "$T/err"
python3 "$TREC_ROOT/tests/record/perfopts_table.py" "$TREC_ROOT/README.md" >"$T/table" \
	|| fail "perf options: README's table reads"
nk=0 nu=0 wrong=""
while read -r opt kind; do
	timeout 10 "$TRECORD" "$opt" >/dev/null 2>"$T/err"
	if grep -q "unknown option" "$T/err"; then got=unknown; else got=known; fi
	[ "$got" = "$kind" ] || wrong="$wrong $opt($kind, trecord: $got)"
	if [ "$kind" = known ]; then nk=$((nk + 1)); else nu=$((nu + 1)); fi
done <"$T/table"
check "perf options: README's table ($nk known, $nu unknown) matches trecord:${wrong:- all}" \
	[ -z "$wrong" -a "$nk" -gt 20 -a "$nu" -gt 20 ]
