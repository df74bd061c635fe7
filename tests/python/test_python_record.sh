#!/usr/bin/env bash
# End to end: trecord records tests/python/busy.py under each CPython 3.11+
# on the machine, treport names its frames; in the steady part of
# the run >= 95% of samples must carry the whole Python chain under
# <module>, in order, with the script's lines, interleaved with the native
# _PyEval_EvalFrameDefault frames (tests/python/check_stacks.py).
#
# trecord is the plain build here: with the sanitizer build, extracting the
# interpreter's stack deltas takes a second or more, during which native
# unwinding fails (NATIVE_NO_PAGE_INFO) — that start-up is not what this
# test measures, and the Python code runs under ASan in test_python_walk.
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/../lib/interp_record.sh"
TRECORD=${TREC_PLAIN_BUILD:-$TREC_ROOT/build}/trecord

[ "$(id -u)" = 0 ] || skip_all "needs root"
[ -x "$TRECORD" ] && [ -x "$TREPORT" ] || skip_all "trecord/treport not built"
# (not mktemp_dir: its EXIT trap fires when $(...) ends, removing the dir at once)
dir=$(mktemp -d /tmp/trec-pyrec.XXXXXX)
trap 'rm -rf "$dir"' EXIT
script=$TREC_ROOT/tests/python/busy.py

pythons=()
[ -x /usr/bin/python3.11 ] && pythons+=(/usr/bin/python3.11)
for p in /root/.pyenv/versions/3.1[123]*/bin/python3.1[123]; do
	[ -x "$p" ] && pythons+=("$p")
done
[ ${#pythons[@]} -gt 0 ] || skip_all "no CPython 3.11+"

for py in "${pythons[@]}"; do
	ver=$("$py" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])')
	out=$dir/busy-$ver.tr
	interp_record "python $ver" "$out" busy.py "$py" "$script" 2.5 || continue
	interp_perf_script "python $ver" "$out" "$dir/busy.txt"
	python3 "$TREC_ROOT/tests/python/check_stacks.py" "$script" "$dir/busy.txt" 0.95 "python $ver"
	"$TREPORT" "$out" --folded >"$dir/busy.folded" 2>>"$dir/rep.log"
	check "python $ver: folded stacks name python frames 'function (file.py:line)'" \
		grep -q ';Worker.run (busy.py:[0-9]*);recurse (busy.py:[0-9]*);' "$dir/busy.folded"
	interp_readme_example "python $ver" busy.py "$dir/busy.folded"
	# f(*args): the loop's pc is in a function inlined into it (3.11:
	# do_call_core), which runs for the Python frame that made the call:
	# it goes above that frame, not below the loop's Python frames.
	if interp_record "python $ver" "$dir/callex.tr" callex.py "$py" \
		"$TREC_ROOT/tests/python/callex.py" 1; then
		read -r bad all < <("$TREPORT" --folded "$dir/callex.tr" 2>/dev/null |
			awk -f "$TREC_ROOT/tests/python/interp_order.awk")
		check "python $ver: interpreter frames sit on their loop, inlined frames above them ($bad of $all samples not)" \
			[ "${all:-0}" -gt 50 -a $((bad * 100)) -le "${all:-0}" ]
		read -r bad all < <("$TREPORT" --perf-script "$dir/callex.tr" 2>/dev/null |
			awk -f "$TREC_ROOT/tests/python/perf_script_folded.awk" |
			awk -f "$TREC_ROOT/tests/python/interp_order.awk")
		check "python $ver: ... and in perf script ($bad of $all samples not)" \
			[ "${all:-0}" -gt 50 -a $((bad * 100)) -le "${all:-0}" ]
		# the summary's functions: spin once, whatever its lines
		"$TREPORT" --top 1000 "$dir/callex.tr" >"$dir/callex.sum" 2>/dev/null
		rows=$(sed -n '/by total/,$p' "$dir/callex.sum" | grep -c ' callex.py  *spin$')
		check "python $ver: the summary has one row for spin ($rows), none per line" \
			[ "$rows" = 1 -a "$(grep -c '(callex.py:' "$dir/callex.sum")" = 0 ]
	fi
	interp_info "$out"
	interp_code_check "python $ver" "PYCODE records" PY_CODE_WRITTEN PYTHON_ERRORS 1 ||
		{ [ -n "${TREC_KEEP:-}" ] && cp "$out" "$TREC_KEEP/"; }

done
