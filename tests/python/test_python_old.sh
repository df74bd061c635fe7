#!/usr/bin/env bash
# End to end for CPython 3.8, 3.9 and 3.10 (pyenv builds, libpython shared
# objects): trecord records tests/python/busy.py with a 20-deep recursion
# (<module> -> Worker.run -> recurse x 21 -> sum() (C) -> gen -> leaf),
# treport names its frames; in the steady part of the run >= 95% of samples
# must carry the whole Python chain under <module>, in order, with the
# script's lines, each Python frame right after the native
# _PyEval_EvalFrameDefault frame that runs it (tests/python/check_stacks.py
# in co_name mode: these versions have no qualified names on code objects).
#
# trecord is the plain build, as in test_python_record.sh (why: there).
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/../lib/interp_record.sh"
TRECORD=${TREC_PLAIN_BUILD:-$TREC_ROOT/build}/trecord
DEPTH=20

[ "$(id -u)" = 0 ] || skip_all "needs root"
[ -x "$TRECORD" ] && [ -x "$TREPORT" ] || skip_all "trecord/treport not built"
dir=$(mktemp -d /tmp/trec-pyold.XXXXXX)
trap 'rm -rf "$dir"' EXIT
script=$TREC_ROOT/tests/python/busy.py

pythons=()
for p in /root/.pyenv/versions/3.{8,9,10}.*/bin/python3.{8,9,10}; do
	[ -x "$p" ] && pythons+=("$p")
done
[ ${#pythons[@]} -gt 0 ] || skip_all "no pyenv CPython 3.8-3.10"

for py in "${pythons[@]}"; do
	ver=$("$py" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])')
	out=$dir/busy-$ver.tr
	interp_record "python $ver" "$out" busy.py "$py" "$script" 2.5 $DEPTH || continue
	interp_perf_script "python $ver" "$out" "$dir/busy.txt"
	python3 "$TREC_ROOT/tests/python/check_stacks.py" "$script" "$dir/busy.txt" 0.95 \
		"python $ver, depth $DEPTH" $DEPTH co_name
	"$TREPORT" "$out" --folded >"$dir/busy.folded" 2>>"$dir/rep.log"
	check "python $ver: folded stacks name python frames 'function (file.py:line)'" \
		grep -qE ';_PyEval_EvalFrameDefault;([^;]*;)*run \(busy\.py:[0-9]+\);([^;]*;)*recurse \(busy\.py:[0-9]+\);' "$dir/busy.folded"
	interp_info "$out"
	tails=$(interp_metric MAX_TAIL_CALLS)
	check "python $ver: tail-call budget never exhausted (MAX_TAIL_CALLS ${tails:-?})" \
		[ "${tails:-1}" -eq 0 ]
	interp_code_check "python $ver" "PYCODE records" PY_CODE_WRITTEN PYTHON_ERRORS 1 ||
		{ [ -n "${TREC_KEEP:-}" ] && cp "$out" "$TREC_KEEP/"; }
done
