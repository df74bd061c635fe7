#!/usr/bin/env bash
# The offline harness on a Ruby stack: gdb stops tests/ruby/busy.rb in
# zlib's deflate (called by Zlib::Deflate.deflate from the leaf's
# dump_stack, under a 24-deep recursion, a block that Array#sort_by (C)
# yields to, a method and the main script), dumps the whole process with
# gcore, and writes the case. The harness then runs the real BPF program
# (native -> Ruby -> native tail calls) over the core's registers and
# memory: once while gdb still holds the process (maps from trecord's pid
# sync, iseqs read by trecord from the live process), once after it is
# gone (everything from the case and the core). Native frames must equal
# gdb's backtrace, Ruby frames the stack the script wrote from its own
# caller_locations at the stop point (label, file, line; C methods left
# out: trec names them by their native frames), each run of Ruby frames
# right before the rb_vm_exec frame that runs it. Mutated cases show the
# checks can fail.
. "$(dirname "$0")/../lib/common.sh"
HARNESS=${TREC_HARNESS:-$TREC_BUILD/harness/trec-harness}
CAPTURE=$TREC_ROOT/tests/harness/capture.py
SCRIPT=$TREC_ROOT/tests/ruby/busy.rb
RUBY=$(command -v ruby) || { fail "ruby installed (make deps)"; exit 1; }
command -v gdb >/dev/null || skip_all "gdb not installed"
[ -x "$HARNESS" ] || { fail "harness built ($HARNESS)"; exit 1; }
d=$(mktemp_dir)

TREC_CASE_OUT=$d/rb TREC_CASE_BREAK=deflate TREC_CASE_CORE=1 \
	TREC_CASE_PYREF=$d/ref.txt TREC_CASE_RUN="$HARNESS" \
	timeout 120 gdb -batch -nx -x "$CAPTURE" --args "$RUBY" "$SCRIPT" 60 "$d/ref.txt" \
	>"$d/gdb.log" 2>&1
case_file=$(compgen -G "$d/rb.t*.case" | head -1)
if [ -n "$case_file" ] && [ -s "$d/rb.core" ]; then
	pass "ruby capture: case and core dump ($(($(stat -c %s "$d/rb.core") / 1024)) KiB)"
else
	fail "ruby capture"; tail -5 "$d/gdb.log"; exit 1
fi

# The reference is the chain the script was written to have, innermost
# first (an early stop or a short reference cannot pass unnoticed).
ref=$(awk -F'\t' '$1 == "pyframe" { printf "%s|", $2 }' "$case_file")
want="dump_stack|leaf|"
for _ in $(seq 25); do want+="recurse|"; done
want+="block in run|run|main|<main>|"
if [ "$ref" = "$want" ]; then pass "ruby reference: the script's stack is the designed chain"
else fail "ruby reference: the script's stack is the designed chain (got: $ref)"; fi

# While gdb held the process: trecord's pid sync and live iseqs.
sed "s/^\(PASS\|FAIL\): harness /\1: harness ruby live /" "$d/rb.out"
if grep -q 'Sanitizer\|runtime error' "$d/rb.out"; then fail "ruby harness (live) sanitizer-clean"; fi

# Offline: the process is gone.
pid=$(awk '$1 == "pid" { print $2 }' "$case_file")
if kill -0 "$pid" 2>/dev/null; then fail "ruby workload gone before the offline run"; fi
"$HARNESS" "$case_file" >"$d/offline.out" 2>&1
rc=$?
sed "s/^\(PASS\|FAIL\): harness /\1: harness ruby offline /" "$d/offline.out"
[ $rc -eq 0 ] || fail "ruby harness offline exits 0 (exit $rc)"

# Mutations of the reference the harness must reject.
mutant() {
	local what=$1 expr=$2 out
	sed "$expr" "$case_file" >"$d/mutant.case"
	out=$("$HARNESS" "$d/mutant.case" 2>&1)
	if cmp -s "$case_file" "$d/mutant.case"; then
		fail "ruby harness rejects $what (mutation did not apply)"
	elif echo "$out" | grep -q '^FAIL: harness mutant.case ruby'; then
		pass "ruby harness rejects $what"
	else
		fail "ruby harness rejects $what"; echo "$out" | sed 's/^\(PASS\|FAIL\)/  \1/'
	fi
}
mutant "a wrong line number" '/^pyframe\tleaf\t/s/\t\([0-9]*\)\t0$/\t1\1\t0/'
mutant "a wrong label" '/^pyframe\tmain\t/s/^pyframe\tmain/pyframe\tmane/'
mutant "a wrong C-level split" '/^pyframe\tblock in run\t/s/\t1$/\t0/; /^pyframe\trun\t/s/\t0$/\t1/'
mutant "a frame it does not show" '/^pyframe\tleaf\t/p'
