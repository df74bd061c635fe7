#!/usr/bin/env bash
# The offline harness on a PHP stack: tests/php/chain.php, given a
# reference file, writes its own stack (debug_backtrace: {main} -> top ->
# Walker::run -> usort -> a closure -> 25-deep recursion -> leaf) and
# spins in the leaf; gdb attaches, dumps the whole process with gcore and
# writes the case. The harness then runs the real BPF program (native ->
# PHP -> native tail calls, twice) over the core's registers and memory:
# once while gdb still holds the process (maps from trecord's pid sync,
# functions read from the live process), once after it is gone (all from
# the case and the core). Native frames must equal gdb's backtrace, PHP
# frames the script's own stack (function, file, line), each run of PHP
# frames right before the execute_ex frame that runs it. Mutated cases
# show the checks can fail.
. "$(dirname "$0")/../lib/common.sh"
HARNESS=${TREC_HARNESS:-$TREC_BUILD/harness/trec-harness}
CAPTURE=$TREC_ROOT/tests/harness/capture.py
SCRIPT=$TREC_ROOT/tests/php/chain.php
PHP=${TREC_PHP:-/usr/bin/php8.2}
[ -x "$PHP" ] || skip_all "no $PHP (make deps installs php-cli)"
command -v gdb >/dev/null || skip_all "gdb not installed"
[ -x "$HARNESS" ] || { fail "harness built ($HARNESS)"; exit 1; }
d=$(mktemp_dir)
label="php $("$PHP" -r 'echo PHP_VERSION;')"

# capture N: run chain.php until it spins, attach, dump, run the harness
# live; sets case_file. 1 when the stop was not in the spin loop itself.
capture() {
	local dir=$d/try$1 pid
	mkdir -p "$dir"
	"$PHP" "$SCRIPT" 0 "$dir/ref.txt" >/dev/null 2>&1 &
	pid=$!
	for _ in $(seq 100); do [ -s "$dir/ref.txt" ] && break; sleep 0.1; done
	[ -s "$dir/ref.txt" ] || { kill "$pid"; fail "$label: chain.php wrote its stack"; exit 1; }
	sleep "0.$((4 + $1))" # from the dump into the spin loop (longer each try: load)
	TREC_CASE_OUT=$dir/php TREC_CASE_CORE=1 TREC_CASE_PYREF=$dir/ref.txt TREC_CASE_RUN="$HARNESS" \
		timeout 60 gdb -batch -nx -x "$CAPTURE" -p "$pid" >"$dir/gdb.log" 2>&1
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	case_file=$(compgen -G "$dir/php.t*.case" | head -1)
	out=$dir/php.out
	[ -n "$case_file" ] && [ -s "$dir/php.core" ] || { fail "$label capture"; tail -5 "$dir/gdb.log"; exit 1; }
	# The script's line for its innermost frame is the spin loop's: true
	# when gdb stopped it in the VM loop itself, which zend_call_function
	# (usort's callback) called. A stop in a helper the loop calls (rare)
	# leaves PHP's stored opline behind, a case for another try; so does a
	# stop in the loop's cold part, which gdb names ?? (no symbol covers it).
	grep '^frame' "$case_file" | sed -n 2p | grep -q ' zend_call_function$' &&
		! grep '^frame' "$case_file" | sed -n 1p | grep -q ' ??$'
}
for try in 1 2 3 4 5; do
	capture "$try" && break
	echo "note: try $try stopped outside the spin loop's own frame: $(grep '^frame' "$case_file" | head -2 | tr '\n' ' ')"
done
pass "$label capture: case and core dump ($(($(stat -c %s "${case_file%.t*.case}.core") / 1024)) KiB)"

# The reference is the chain the script was written to have, innermost
# first (an early stop or a short reference cannot pass unnoticed).
ref=$(awk -F'\t' '$1 == "pyframe" { printf "%s ", $2 }' "$case_file")
want="leaf $(printf 'recurse %.0s' $(seq 25))Walker::{closure} usort Walker::run top {main} "
if [ "$ref" = "$want" ]; then pass "$label reference: the script's stack is the designed chain"
else fail "$label reference: the script's stack is the designed chain (got: $ref)"; fi

# While gdb held the process: trecord's pid sync and live functions.
sed "s/^\(PASS\|FAIL\): harness /\1: harness $label live /" "$out"
grep -q '^PASS: harness .* php: ' "$out" || fail "$label harness (live) gave a PHP verdict"
if grep -q 'Sanitizer\|runtime error' "$out"; then
	fail "$label harness (live) sanitizer-clean"; fi

# Offline: the process is gone.
pid=$(awk '$1 == "pid" { print $2 }' "$case_file")
if kill -0 "$pid" 2>/dev/null; then fail "$label workload gone before the offline run"; fi
"$HARNESS" "$case_file" >"$d/offline.out" 2>&1
rc=$?
sed "s/^\(PASS\|FAIL\): harness /\1: harness $label offline /" "$d/offline.out"
[ $rc -eq 0 ] || fail "$label harness offline exits 0 (exit $rc)"

# Mutations of the reference the harness must reject (its FAIL lines are
# expected here, so they are not passed through).
mutant() {
	local what=$1 expr=$2 out
	sed "$expr" "$case_file" >"$d/mutant.case"
	out=$("$HARNESS" "$d/mutant.case" 2>&1)
	if cmp -s "$case_file" "$d/mutant.case"; then
		fail "php harness rejects $what (mutation did not apply)"
	elif echo "$out" | grep -q '^FAIL: harness mutant.case php'; then
		pass "php harness rejects $what"
	else
		fail "php harness rejects $what"; echo "$out" | sed 's/^\(PASS\|FAIL\)/  \1/'
	fi
}
mutant "a wrong line number" '/^pyframe\tWalker::run\t/s/\t\([0-9]*\)\t0$/\t1\1\t0/'
mutant "a wrong leaf line" '/^pyframe\tleaf\t/s/\t\([0-9]*\)\t0$/\t1\1\t0/'
mutant "a wrong function" '/^pyframe\ttop\t/s/^pyframe\ttop/pyframe\tbottom/'
mutant "a wrong C-level split" '/^pyframe\tWalker::{closure}\t/s/\t1$/\t0/; /^pyframe\tusort\t/s/\t0$/\t1/'
mutant "a frame it does not show" '/^pyframe\tWalker::run\t/p'
