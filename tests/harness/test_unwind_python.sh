#!/usr/bin/env bash
# The offline harness on a Python stack: gdb stops tests/harness/pychain.py
# in libz's deflate (called by zlib.compress from a Python callback of the
# C json encoder, under a generator, a recursion and a method), dumps the
# whole process with gcore, and writes the case. The harness then runs the
# real BPF program (native -> Python -> native tail calls) over the core's
# registers and memory: once while gdb still holds the process (maps from
# trecord's pid sync, code objects read by trecord from the live process),
# once after it is gone (everything from the case and the core). Native
# frames must equal gdb's backtrace, Python frames the stack the script
# wrote from its own frame objects at the stop point (function, file,
# line), each run of Python frames right before the _PyEval_EvalFrameDefault
# frame that runs it. Mutated cases show the checks can fail.
. "$(dirname "$0")/../lib/common.sh"
HARNESS=${TREC_HARNESS:-$TREC_BUILD/harness/trec-harness}
CAPTURE=$TREC_ROOT/tests/harness/capture.py
SCRIPT=$TREC_ROOT/tests/harness/pychain.py
# Debian's interpreter first (the one this must work for).
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3) || skip_all "python3 not installed"
command -v gdb >/dev/null || skip_all "gdb not installed"
[ -x "$HARNESS" ] || { fail "harness built ($HARNESS)"; exit 1; }
d=$(mktemp_dir)

# capture_and_check LABEL PYTHON: the case of one interpreter, live and
# offline; sets case_file.
capture_and_check() {
	local label=$1 py=$2 dir=$d/$1 ref pid rc
	mkdir -p "$dir"
	TREC_CASE_OUT=$dir/py TREC_CASE_BREAK=deflate TREC_CASE_CORE=1 \
		TREC_CASE_PYREF=$dir/ref.txt TREC_CASE_RUN="$HARNESS" \
		timeout 60 gdb -batch -nx -x "$CAPTURE" --args "$py" -I "$SCRIPT" "$dir/ref.txt" \
		>"$dir/gdb.log" 2>&1
	case_file=$(compgen -G "$dir/py.t*.case" | head -1)
	if [ -n "$case_file" ] && [ -s "$dir/py.core" ]; then
		pass "$label capture: case and core dump ($(($(stat -c %s "$dir/py.core") / 1024)) KiB)"
	else
		fail "$label capture"; tail -5 "$dir/gdb.log"; return 1
	fi

	# The reference is the chain the script was written to have, innermost
	# first (an early stop or a short reference cannot pass unnoticed);
	# 3.12 inlines list comprehensions (PEP 709).
	ref=$(awk -F'\t' '$1 == "pyframe" { printf "%s ", $2 }' "$case_file")
	local want="on_object JSONEncoder.iterencode JSONEncoder.encode dumps gen "
	[[ $ref == *listcomp* ]] && want+="recurse.<locals>.<listcomp> "
	want+="recurse recurse recurse recurse Walker.run main <module> "
	# before 3.11: co_name, no qualified names
	[[ $label == python3.[89]* || $label == python3.10* ]] &&
		want="on_object iterencode encode dumps gen <listcomp> recurse recurse recurse recurse run main <module> "
	if [ "$ref" = "$want" ]; then pass "$label reference: the script's stack is the designed chain"
	else fail "$label reference: the script's stack is the designed chain (got: $ref)"; fi

	# While gdb held the process: trecord's pid sync and live code objects.
	sed "s/^\(PASS\|FAIL\): harness /\1: harness $label live /" "$dir/py.out"
	if grep -q 'Sanitizer\|runtime error' "$dir/py.out"; then
		fail "$label harness (live) sanitizer-clean"; fi

	# Offline: the process is gone.
	pid=$(awk '$1 == "pid" { print $2 }' "$case_file")
	if kill -0 "$pid" 2>/dev/null; then fail "$label workload gone before the offline run"; fi
	"$HARNESS" "$case_file" >"$dir/offline.out" 2>&1
	rc=$?
	sed "s/^\(PASS\|FAIL\): harness /\1: harness $label offline /" "$dir/offline.out"
	[ $rc -eq 0 ] || fail "$label harness offline exits 0 (exit $rc)"
}

# pyenv builds where there are (libpython3.X.so; 3.8-3.10's PyFrameObject
# chain, 3.12's and 3.13's frame layout), quietly absent elsewhere.
for py in /root/.pyenv/versions/3.{8,9,10,12,13}.*/bin/python3; do
	[ -x "$py" ] && capture_and_check "python$(basename "$(dirname "$(dirname "$py")")")" "$py"
done
capture_and_check python "$PY" || exit 1

# Mutations of the reference the harness must reject (its FAIL lines are
# expected here, so they are not passed through).
mutant() {
	local what=$1 expr=$2 out
	sed "$expr" "$case_file" >"$d/mutant.case"
	out=$("$HARNESS" "$d/mutant.case" 2>&1)
	if cmp -s "$case_file" "$d/mutant.case"; then
		fail "python harness rejects $what (mutation did not apply)"
	elif echo "$out" | grep -q '^FAIL: harness mutant.case python'; then
		pass "python harness rejects $what"
	else
		fail "python harness rejects $what"; echo "$out" | sed 's/^\(PASS\|FAIL\)/  \1/'
	fi
}
mutant "a wrong line number" '/^pyframe\tWalker\.run\t/s/\t\([0-9]*\)\t0$/\t1\1\t0/'
mutant "a wrong function" '/^pyframe\tdumps\t/s/^pyframe\tdumps/pyframe\tloads/'
mutant "a wrong C-level split" '/^pyframe\tgen\t/s/\t1$/\t0/; /^pyframe\tdumps\t/s/\t0$/\t1/'
mutant "a frame it does not show" '/^pyframe\tWalker\.run\t/p'
