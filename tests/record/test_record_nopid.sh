#!/usr/bin/env bash
# Samples taken before trecord has synced a process (NO_PID_INFO: no trie
# entries yet, and a leaf whose file no VMA lookup knows) are deferred
# from their leaf (bpf/deferred.h's defer_no_pid) and walked once the
# process is synced (record/unwind/deferred/deferred_queue.c).
# The workload: 40 copies of shortlived, statically linked (so no file of
# theirs is known before their own sync: every sample before it is
# NO_PID_INFO), started at once so the syncer is busy with the others; each
# burns 10 ms in main -> short_mid -> short_leaf. Checked on each process's
# first samples, in `-- sh -c` and `-a` recordings:
#   default               they reach _start; NO_PID_INFO is rare (what
#                         remains: samples inside exec, whose user
#                         registers are the old image's); every deferral
#                         is accounted for
#   --no-deferred-unwind  some of the same samples end in NO_PID_INFO (so
#                         the check above can fail: the window before a
#                         sync exists), more than with deferral; nothing
#                         deferred
# How many samples fall before their process's sync depends on how soon
# the sync thread runs, so only their existence is checked without
# deferral, never a margin over it.
. "$(dirname "$0")/lib.sh"

N=40
gcc -O2 -g -fomit-frame-pointer -static -o "$T/sl" "$TREC_ROOT/tests/workloads/shortlived.c" ||
	{ fail "nopid: gcc -static builds shortlived"; exit 1; }
# Copies: a new inode each, so exec_files knows none of them.
for i in $(seq $N); do cp "$T/sl" "$T/s$i"; done
LOOP="for i in \$(seq $N); do $T/s\$i 10 & done; wait"
# -a: after the first sync of every running process (2 s), and each lingers
# 300 ms after its busy start: on a machine whose other processes keep the
# syncer busy, a process that exits before its sync cannot be resumed
# (DEFERRED_NO_PID_GONE), which is not what this checks.
ALL_LOOP="sleep 2; for i in \$(seq $N); do $T/s\$i 10 linger 300 & done; wait"
early() { "$TREPORT" --json "$1" | python3 "$TREC_ROOT/tests/record/check_nopid.py" 's[0-9]+'; }

# rec NAME [ARGS]: the loop under trecord ARGS.
rec() {
	local loop=$LOOP
	[ "${2:-}" = -a ] && loop=$ALL_LOOP
	"$TRECORD" -F 999 -q "${@:2}" -o "$T/$1.tr" -- sh -c "$loop" >/dev/null 2>"$T/$1.err"
	check "nopid: trecord $* exits 0" [ $? = 0 ]
}

for form in cmd all; do
	a=; [ $form = all ] && a=-a
	rec $form $a
	read -r procs n root nopid leaf chain < <(early "$T/$form.tr")
	echo "$form: processes=$procs early=$n root=$root no_pid=$nopid short_leaf=$leaf chain=$chain" \
		"gone=$(metric "$T/$form.tr" DEFERRED_NO_PID_GONE) stale=$(metric "$T/$form.tr" DEFERRED_NO_PID_STALE)" \
		"lost=$(metric "$T/$form.tr" DEFERRED_LOST)"
	sent=$(metric "$T/$form.tr" DEFERRED_NO_PID)
	check "nopid $form: samples of unsynced processes were deferred ($sent)" [ "${sent:-0}" -gt 0 ]
	check "nopid $form: enough early samples ($n of $procs processes)" [ "$n" -ge $((N / 2)) ]
	check "nopid $form: at least 70% of the early samples reach _start ($root of $n)" \
		[ $((root * 100)) -ge $((n * 70)) ]
	check "nopid $form: at most 20% end in NO_PID_INFO ($nopid of $n)" \
		[ $((nopid * 100)) -le $((n * 20)) ]
	check "nopid $form: early short_leaf samples reach main through short_mid ($chain of $leaf)" \
		[ "$leaf" -gt 0 -a $((chain * 100)) -ge $((leaf * 70)) ]
	all_sent=$(metric "$T/$form.tr" DEFERRED_SENT)
	done_=0
	for m in RESUMED EXPIRED DROPPED NO_PID_GONE NO_PID_STALE; do
		done_=$((done_ + $(metric "$T/$form.tr" DEFERRED_$m)))
	done
	check "nopid $form: every deferral was written ($done_ of $all_sent)" [ "$done_" = "$all_sent" ]

	on_nopid=$nopid
	rec $form-off $a --no-deferred-unwind
	read -r procs n root nopid leaf chain < <(early "$T/$form-off.tr")
	echo "$form --no-deferred-unwind: processes=$procs early=$n root=$root no_pid=$nopid short_leaf=$leaf chain=$chain"
	check "nopid $form --no-deferred-unwind: nothing deferred" \
		[ "$(metric "$T/$form-off.tr" DEFERRED_SENT)" = 0 ]
	check "nopid $form --no-deferred-unwind: some early samples end in NO_PID_INFO ($nopid of $n, >= 5%, more than $on_nopid)" \
		[ $((nopid * 100)) -ge $((n * 5)) -a "$nopid" -gt "$on_nopid" ]
done
