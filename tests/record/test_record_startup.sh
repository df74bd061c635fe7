#!/usr/bin/env bash
# Start-up does only what the recording needs (record/bpf_optional.c,
# record/consumer.c's need_ksyms):
#   trecord -- /bin/true        the Python unwinder is not loaded (nor
#                               verified): -v lists no trec_unwind_python
#   trecord -- python3 script   it is loaded on the first interpreter, and
#                               the script's Python frames are in the stacks
#   native stacks               walked in one program call (bpf_loop): a
#                               200-deep recursion is complete, no tail call
#                               fails or runs out
# The CPU time of trecord -- /bin/true against perf record -g is measured
# in make bench (tests/bench/startup.py).
. "$(dirname "$0")/lib.sh"

"$TRECORD" -v -o "$T/true.tr" -- /bin/true >/dev/null 2>"$T/true.err"
check "startup: trecord -- /bin/true records (exit $?)" reads_back "$T/true.tr"
check "startup: the native unwinder is loaded" grep -q 'prog trec_unwind_native ' "$T/true.err"
check "startup: the Python unwinder is not loaded without a Python process" \
	bash -c "! grep -q 'trec_unwind_python' '$T/true.err'"

py=
for p in /usr/bin/python3.11 /root/.pyenv/versions/3.1[123]*/bin/python3.1[123]; do
	[ -x "$p" ] && { py=$p; break; }
done
if [ -n "$py" ]; then
	# The unwinder's verification takes seconds on a loaded machine: the
	# probe spins once trecord -v says it is loaded (a flag file the test
	# makes; up to 60 s), after 0.5 s more for the interpreter's deltas.
	cat >"$T/probe.py" <<'EOF'
import os, sys, time
end = time.time() + 60
while not os.path.exists(sys.argv[1]) and time.time() < end:
    time.sleep(0.05)
time.sleep(0.5)
def startup_probe_leaf():
    end = time.time() + 1.5
    n = 0
    while time.time() < end:
        n += sum(i * i for i in range(1000))
    return n
def startup_probe_caller():
    return startup_probe_leaf()
startup_probe_caller()
EOF
	# The plain build: the sanitizer build extracts the interpreter's
	# deltas too slowly for its first second (tests/python/test_python_record.sh).
	"$TREC_PLAIN_BUILD/trecord" -v -F 499 -o "$T/py.tr" -- "$py" "$T/probe.py" "$T/py.loaded" \
		>/dev/null 2>"$T/py.err" &
	rp=$!
	flag_when_loaded "$rp" "$T/py.err" trec_unwind_python "$T/py.loaded"
	wait "$rp"
	check "startup: $py recorded (exit $?)" reads_back "$T/py.tr"
	check "startup: the Python unwinder is loaded on first need" \
		grep -q 'loaded trec_unwind_python on first need' "$T/py.err"
	check "startup: ... and listed with the programs" grep -q 'prog trec_unwind_python ' "$T/py.err"
	"$TREPORT" --folded --no-kernel "$T/py.tr" >"$T/py.folded" 2>/dev/null
	read -r n all < <(awk '/startup_probe_leaf \(/ { all += $NF
		if ($0 ~ /startup_probe_caller \(.*probe.py:[0-9]+\);.*startup_probe_leaf \(/) n += $NF }
		END { print n + 0, all + 0 }' "$T/py.folded")
	check "startup: Python frames in the stacks ($n of $all leaf samples through caller -> leaf)" \
		[ "$all" -ge 20 -a $((n * 10)) -ge $((all * 9)) ]
else
	echo "SKIP: no CPython 3.11+ for the lazy-load check"
fi

"$TRECORD" -F 999 -o "$T/deep.tr" -- "$WORKLOADS/deep" 1 200 >/dev/null 2>&1
check "startup: deep recorded" reads_back "$T/deep.tr"
frames=$(metric "$T/deep.tr" NATIVE_FRAMES); smp=$(metric "$T/deep.tr" TRACES_SENT)
check "startup: deep stacks unwound ($frames native frames in $smp traces)" \
	[ "${frames:-0}" -gt $(( ${smp:-0} * 150 )) ]
check "startup: no tail call budget exhausted or failed" \
	[ "$(metric "$T/deep.tr" MAX_TAIL_CALLS)" = 0 -a "$(metric "$T/deep.tr" TAIL_CALL_FAILED)" = 0 ]
