# Sourced after common.sh by the interpreters' end-to-end tests
# (tests/{python,perl,php,ruby}/test_*_record.sh, test_python_old.sh): the
# steps each takes, recording a script with trecord and checking what
# treport makes of it. They write into $dir (the test's directory) and
# print PASS/FAIL lines; LABEL starts each line ("perl 5.36.0").

# interp_record LABEL OUT NAME CMD...: records CMD into OUT (trecord is the
# test's $TRECORD); on failure shows trecord's output and returns 1.
interp_record() {
	local label=$1 out=$2 name=$3
	shift 3
	if ! "$TRECORD" -q -F 499 -o "$out" -- "$@" >"$dir/rec.log" 2>&1; then
		fail "$label: trecord runs $name"
		sed 's/^/  | /' "$dir/rec.log"
		return 1
	fi
	pass "$label: trecord runs $name"
}

# interp_perf_script LABEL OUT TXT: treport --perf-script of OUT into TXT,
# which must not be empty.
interp_perf_script() {
	"$TREPORT" "$2" --perf-script >"$3" 2>"$dir/rep.log"
	check "$1: treport --perf-script" test -s "$3"
}

# interp_info OUT: treport --info of OUT into $dir/info.
interp_info() {
	"$TREPORT" "$1" --info >"$dir/info" 2>&1
}

# interp_metric NAME: NAME's value in $dir/info (empty when absent).
interp_metric() {
	awk -v m="$1" '$1 == m {print $2}' "$dir/info"
}

# interp_code_check LABEL WHAT WRITTEN ERRORS MIN: from $dir/info, at
# least MIN descriptions (metric WRITTEN, called WHAT) were written and
# the interpreter's unwinder errors (metric ERRORS) are at most 1% of the
# samples, plus 2 (a few right after exec, before the pid is set up).
interp_code_check() {
	local label=$1 what=$2 written errors samples
	written=$(interp_metric "$3")
	errors=$(interp_metric "$4")
	samples=$(interp_metric SAMPLES)
	if [ "${written:-0}" -ge "$5" ] && [ "${errors:-1}" -le $(( ${samples:-0} / 100 + 2 )) ]; then
		pass "$label: $what written ($written), unwinder errors $errors"
	else
		fail "$label: $what written (${written:-none}), unwinder errors ${errors:-?}"
		grep -E 'samples in .* stack group' "$dir/info" | sed 's/^/  /'
		return 1
	fi
}

# interp_readme_example LABEL SCRIPT FOLDED: every script frame of
# README's example stack for SCRIPT (`name (SCRIPT:LINE)`, tests/lib/
# readme_example.py) is a frame of this recording's FOLDED output, so the
# example cannot drift from the script it names.
interp_readme_example() {
	local label=$1 script=$2 folded=$3 missing="" f
	if ! python3 "$TREC_ROOT/tests/lib/readme_example.py" "$TREC_ROOT/README.md" "$script" \
		>"$dir/readme-frames" 2>"$dir/readme.err"; then
		fail "$label: README's example"; cat "$dir/readme.err"
		return
	fi
	while IFS= read -r f; do
		# (a frame between ';', or at the leaf before the count)
		grep -qF -e ";$f;" -e ";$f " "$folded" || missing="$missing [$f]"
	done <"$dir/readme-frames"
	check "$label: README's example frames ($(wc -l <"$dir/readme-frames")) are in the recording:${missing:- all}" \
		test -z "$missing"
}
