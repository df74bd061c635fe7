#!/usr/bin/env bash
# Unwinding quality through trecord + treport on two more workloads:
#  cxxexcept: C++ -O2 with inlining and exceptions thrown while spinning:
#    >= 99% of the samples taken after the process was synced reach main.
#  partcfi:   functions without any CFI in the middle of the stack
#    (main -> cfi_outer -> nocfi_middle -> nocfi_inner -> cfi_leaf): the
#    stack must end in an error frame there, never in an invented caller.
. "$(dirname "$0")/lib.sh"
[ -x "$TREPORT" ] || { fail "treport is built ($TREPORT)"; exit 1; }

# folded NAME: records the workload for 2 s and writes $T/NAME.folded,
# leaving out stacks from before the pid was synced (the first moments).
folded() {
	"$TRECORD" -q -F 499 -o "$T/$1.tr" -- "$WORKLOADS/$1" 2 >/dev/null 2>"$T/$1.err" ||
		{ fail "$1: trecord exits 0 ($(head -c 300 "$T/$1.err"))"; return 1; }
	"$TREPORT" --folded --no-kernel "$T/$1.tr" 2>"$T/$1.rerr" | grep -v 'NO_PID_INFO' >"$T/$1.folded"
}

if folded cxxexcept; then
	read -r total main < <(awk '{ t += $NF; if ($0 ~ /;main;/) m += $NF } END { print t + 0, m + 0 }' "$T/cxxexcept.folded")
	check "cxxexcept: samples recorded ($total)" [ "$total" -ge 50 ]
	check "cxxexcept: >= 99% of stacks reach main ($main of $total)" [ $((main * 100)) -ge $((total * 99)) ]
	check "cxxexcept: samples inside the destructor run by exception unwinding reach main" \
		grep -q ';main;work::round;work::middle;work::Guard::~Guard;' "$T/cxxexcept.folded"
	check "cxxexcept: inlined frames are shown (work::inlined_work)" \
		grep -q ';work::thrower;work::inlined_work;' "$T/cxxexcept.folded"
fi

if folded partcfi; then
	nocfi=$(grep -E 'nocfi_(inner|middle)' "$T/partcfi.folded")
	check "partcfi: samples pass through the no-CFI functions" [ -n "$nocfi" ]
	# Root first: whatever is rootward of the first no-CFI frame must be
	# the error frame alone (no cfi_outer, no main: they would be guesses).
	bad=$(echo "$nocfi" | awk '{ sub(/ [0-9]+$/, ""); n = split($0, f, ";");
		for (i = 1; i <= n; i++) if (f[i] ~ /^nocfi_/) break;
		if (i != 3 || f[2] !~ /^\[error: NATIVE_/) print }')
	check "partcfi: every such stack ends in a native error frame right above them" [ -z "$bad" ]
	[ -z "$bad" ] || echo "$bad" | head -5
	check "partcfi: and never names a caller of the no-CFI code" \
		[ -z "$(echo "$nocfi" | grep -E ';(main|cfi_outer);.*nocfi_')" ]
fi
exit 0
