#!/usr/bin/env bash
# CPython's perf trampolines (record/interp/python/python_tramp.c) in every
# arena, not just the first: tests/python/late_arenas.py calls 6000
# functions once, so that late_leaf's trampoline lands in a later arena,
# under each CPython 3.12+ on the machine with -X perf, and 3.13+ also
# with -X perf_jit (later arenas there repeat the template every 272 bytes,
# the first every 16, and a mapping may hold both). Of the samples in
# late_leaf, >= 95% must carry the whole chain late_caller, late_main,
# <module> down to Py_RunMain with no unwinding error (the old probe,
# reading 192 bytes, found no period in 272-byte arenas: every sample
# ended in FP_BELOW_SP under perf_jit).
#
# trecord is the plain build, as in test_python_record.sh.
source "$(dirname "$0")/../lib/common.sh"
TRECORD=${TREC_PLAIN_BUILD:-$TREC_ROOT/build}/trecord

[ "$(id -u)" = 0 ] || skip_all "needs root"
[ -x "$TRECORD" ] && [ -x "$TREPORT" ] || skip_all "trecord/treport not built"
dir=$(mktemp -d /tmp/trec-pytramp.XXXXXX)
trap 'rm -rf "$dir"' EXIT
script=$TREC_ROOT/tests/python/late_arenas.py

pythons=()
for p in "${PYENV_ROOT:-/root/.pyenv}"/versions/3.1[2-9]*/bin/python3.1[2-9]; do
	[ -x "$p" ] && pythons+=("$p")
done
[ ${#pythons[@]} -gt 0 ] || skip_all "no CPython 3.12+ in ${PYENV_ROOT:-/root/.pyenv}/versions"

for py in "${pythons[@]}"; do
	ver=$("$py" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])')
	modes=(perf)
	"$py" -c 'import sys; sys.exit(sys.version_info < (3, 13))' && modes+=(perf_jit)
	for mode in "${modes[@]}"; do
		label="python $ver -X $mode"
		out=$dir/late-$ver-$mode.tr
		if ! (cd "$dir" && "$TRECORD" -v -F 499 -o "$out" -- "$py" -X "$mode" "$script" 6000 2) \
			>"$dir/rec.log" 2>&1; then
			fail "$label: trecord runs late_arenas.py"
			tail -n 5 "$dir/rec.log" | sed 's/^/  | /'
			continue
		fi
		check "$label: trecord -v names the trampoline arenas" \
			grep -q "python perf trampolines" "$dir/rec.log"
		"$TREPORT" --folded "$out" >"$dir/late.folded" 2>"$dir/rep.log"
		# Samples in late_leaf (or in native code it calls): whole
		# chain, no error frame.
		read -r all whole errs < <(awk '
			$0 ~ /;late_leaf \(late_arenas\.py:[0-9]+\)[; ]/ {
				n = $NF; all += n
				if ($0 ~ /\[error/) errs += n
				else if ($0 ~ /;Py_RunMain;/ && $0 ~ /;<module> \(late_arenas\.py:[0-9]+\);.*;late_main \(late_arenas\.py:[0-9]+\);.*;late_caller \(late_arenas\.py:[0-9]+\);/)
					whole += n
			}
			END { print all + 0, whole + 0, errs + 0 }' "$dir/late.folded")
		if [ "$all" -ge 100 ] && [ $((whole * 100)) -ge $((all * 95)) ]; then
			pass "$label: $whole of $all late_leaf samples carry the whole chain ($errs with errors)"
		else
			fail "$label: $whole of $all late_leaf samples carry the whole chain ($errs with errors)"
			grep 'late_leaf' "$dir/late.folded" | sort -t' ' -k2 -rn | head -n 2 | cut -c 1-400 |
				sed 's/^/  | /'
			[ -n "${TREC_KEEP:-}" ] && cp "$out" "$TREC_KEEP/"
		fi
	done
done
exit 0
