#!/usr/bin/env bash
# Short-lived processes unwind fully: a shell loop of fork+exec (/bin/true,
# a 2 ms program) and 300 forked children that run ~1 ms each without
# exec'ing. Their samples come before trecord has read their /proc maps,
# so they rely on the BPF fallbacks: a forked child resolves through its
# parent's trie entries, a fresh image through its VMA's file.
# Measured (ASan build, 2 cores): NO_PID_INFO 3% of these samples (main
# before the fallbacks: 48-52%); shortlived samples unwound from _start to
# short_leaf 77-80% (before: 34-39%). The limits leave room for load.
. "$(dirname "$0")/lib.sh"

W=$WORKLOADS
out=$T/sl.tr
"$TRECORD" -F 999 -q -o "$out" -- sh -c \
	"for i in \$(seq 100); do /bin/true; $W/shortlived 2; done; $W/shortlived 1 fork 300" \
	>/dev/null 2>"$T/stderr"
rc=$?
check "shortlived: trecord exits 0 ($rc)" [ "$rc" = 0 ]
"$TREPORT" --folded "$out" >"$T/folded" 2>"$T/report.err"
check "shortlived: treport --folded reads the recording" [ $? = 0 ]

# total, NO_PID_INFO, shortlived samples, shortlived samples with the whole
# chain _start ... main;short_mid;short_leaf
read -r total nopid sl full < <(awk '
	{ n = $NF; split($1, a, ";"); c = a[1] }
	c != "shortlived" && c != "true" { next }
	{ total += n; if ($0 ~ /\[error: NO_PID_INFO\]/) nopid += n }
	c == "shortlived" { sl += n
		if ($1 ~ /^shortlived;_start;__libc_start_main(@@?GLIBC_[0-9.]+)?;__libc_start_call_main;main;short_mid;short_leaf/) full += n }
	END { print total + 0, nopid + 0, sl + 0, full + 0 }' "$T/folded")
echo "samples=$total no_pid_info=$nopid shortlived=$sl full=$full"
check "shortlived: enough samples of the short processes ($total)" [ "$total" -ge 200 ]
check "shortlived: at most 20% of their samples are NO_PID_INFO ($nopid of $total)" \
	[ $((nopid * 100)) -le $((total * 20)) ]
check "shortlived: at least 50% of shortlived's samples unwind from _start to short_leaf ($full of $sl)" \
	[ "$sl" -gt 0 -a $((full * 100)) -ge $((sl * 50)) ]
$TRCHECK <(dump "$out") >"$T/stats"
check "shortlived: forked children were synced from their parent ($(stat_of metric_PID_FORK_COPIES <"$T/stats"))" \
	[ "$(stat_of metric_PID_FORK_COPIES <"$T/stats")" -gt 0 ]
check "shortlived: no process left in the LPM trie at the end" \
	[ "$(stat_of metric_PIDS_TRACKED <"$T/stats")" = 0 -a "$(stat_of metric_LPM_ENTRIES <"$T/stats")" = 0 ]
