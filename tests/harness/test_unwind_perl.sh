#!/usr/bin/env bash
# The offline harness on a Perl stack: gdb stops tests/harness/plchain.pl
# in libcrypt's crypt_r (called by Perl's crypt from a leaf sub under a
# recursion, entered from sort's C code through a comparator block, under
# a method and the main program), dumps the whole process with gcore, and
# writes the case. The harness then runs the real BPF program (native ->
# Perl -> native -> Perl -> native tail calls) over the core's registers
# and memory: once while gdb still holds the process (maps from trecord's
# pid sync, descriptions read by trecord from the live process), once
# after it is gone (everything from the case and the core). Native frames
# must equal gdb's backtrace, Perl frames the stack the script wrote with
# caller() at the stop point (function, file, line), each run of Perl
# frames right before the Perl_runops_standard frame that runs it.
# Mutated cases show the checks can fail.
. "$(dirname "$0")/../lib/common.sh"
HARNESS=${TREC_HARNESS:-$TREC_BUILD/harness/trec-harness}
CAPTURE=$TREC_ROOT/tests/harness/capture.py
SCRIPT=$TREC_ROOT/tests/harness/plchain.pl
PERL=/usr/bin/perl
[ -x "$PERL" ] || skip_all "no $PERL"
command -v gdb >/dev/null || skip_all "gdb not installed"
[ -x "$HARNESS" ] || { fail "harness built ($HARNESS)"; exit 1; }
d=$(mktemp_dir)

TREC_CASE_OUT=$d/pl TREC_CASE_BREAK=crypt_r TREC_CASE_CORE=1 \
	TREC_CASE_PYREF=$d/ref.txt TREC_CASE_RUN="$HARNESS" \
	timeout 60 gdb -batch -nx -x "$CAPTURE" --args "$PERL" "$SCRIPT" "$d/ref.txt" \
	>"$d/gdb.log" 2>&1
case_file=$(compgen -G "$d/pl.t*.case" | head -1)
if [ -n "$case_file" ] && [ -s "$d/pl.core" ]; then
	pass "perl capture: case and core dump ($(($(stat -c %s "$d/pl.core") / 1024)) KiB)"
else
	fail "perl capture"; tail -5 "$d/gdb.log"; exit 1
fi

# The reference is the chain the script was written to have, innermost
# first (an early stop or a short reference cannot pass unnoticed).
ref=$(awk -F'\t' '$1 == "pyframe" { printf "%s:%s:%s ", $2, $4, $5 }' "$case_file")
want="main::leaf:36:0 main::recurse:41:0 main::recurse:42:0 main::recurse:42:0 main::recurse:42:1 "
want+="Walker::run:50:0 main::main:57:0 <main>:60:1 "
if [ "$ref" = "$want" ]; then pass "perl reference: the script's stack is the designed chain"
else fail "perl reference: the script's stack is the designed chain (got: $ref)"; fi

# While gdb held the process: trecord's pid sync and live descriptions.
sed "s/^\(PASS\|FAIL\): harness /\1: harness perl live /" "$d/pl.out"
grep -q '^PASS: harness .* perl: ' "$d/pl.out" || fail "perl harness (live) ran the Perl verdict"
if grep -q 'Sanitizer\|runtime error' "$d/pl.out"; then fail "perl harness (live) sanitizer-clean"; fi

# Offline: the process is gone.
pid=$(awk '$1 == "pid" { print $2 }' "$case_file")
if kill -0 "$pid" 2>/dev/null; then fail "perl workload gone before the offline run"; fi
"$HARNESS" "$case_file" >"$d/offline.out" 2>&1
rc=$?
sed "s/^\(PASS\|FAIL\): harness /\1: harness perl offline /" "$d/offline.out"
[ $rc -eq 0 ] || fail "perl harness offline exits 0 (exit $rc)"

# Mutations of the reference the harness must reject (its FAIL lines are
# expected here, so they are not passed through).
mutant() {
	local what=$1 expr=$2 out
	sed "$expr" "$case_file" >"$d/mutant.case"
	out=$("$HARNESS" "$d/mutant.case" 2>&1)
	if cmp -s "$case_file" "$d/mutant.case"; then
		fail "perl harness rejects $what (mutation did not apply)"
	elif echo "$out" | grep -q '^FAIL: harness mutant.case perl'; then
		pass "perl harness rejects $what"
	else
		fail "perl harness rejects $what"; echo "$out" | sed 's/^\(PASS\|FAIL\)/  \1/'
	fi
}
mutant "a wrong line number" '/^pyframe\tWalker::run\t/s/\t\([0-9]*\)\t0$/\t1\1\t0/'
mutant "a wrong function" '/^pyframe\tmain::main\t/s/^pyframe\tmain::main/pyframe\tmain::other/'
mutant "a wrong C-level split" '/^pyframe\tmain::recurse\t.*\t1$/s/\t1$/\t0/; /^pyframe\tWalker::run\t/s/\t0$/\t1/'
mutant "a frame it does not show" '/^pyframe\tWalker::run\t/p'
