#!/usr/bin/env bash
# End to end: trecord records tests/ruby/busy.rb under Debian's Ruby,
# treport names its frames; in the steady part of the run >= 95% of
# samples must carry the whole Ruby chain under <main>, in order, with the
# script's lines, interleaved with the native rb_vm_exec frames and
# Array#sort_by's C frames (tests/ruby/check_stacks.py).
#
# trecord is the plain build here, as in test_python_record.sh: with the
# sanitizer build, loading libruby's stack deltas takes seconds during
# which native unwinding fails; the Ruby code runs under ASan in the
# harness case (tests/harness/test_unwind_ruby.sh) and the unit tests.
source "$(dirname "$0")/../lib/common.sh"
TRECORD=${TREC_PLAIN_BUILD:-$TREC_ROOT/build}/trecord

[ "$(id -u)" = 0 ] || skip_all "needs root"
[ -x "$TRECORD" ] && [ -x "$TREPORT" ] || skip_all "trecord/treport not built"
RUBY=$(command -v ruby) || { fail "ruby installed (make deps)"; exit 1; }
dir=$(mktemp -d /tmp/trec-rbrec.XXXXXX)
trap 'rm -rf "$dir"' EXIT
script=$TREC_ROOT/tests/ruby/busy.rb
ver=$("$RUBY" -e 'print RUBY_VERSION')
out=$dir/busy.tr

if ! "$TRECORD" -q -F 499 -o "$out" -- "$RUBY" "$script" 3 >"$dir/rec.log" 2>&1; then
	fail "ruby $ver: trecord runs busy.rb"
	sed 's/^/  | /' "$dir/rec.log"
	exit 1
fi
pass "ruby $ver: trecord runs busy.rb"
"$TREPORT" "$out" --perf-script >"$dir/busy.txt" 2>"$dir/rep.log"
check "ruby $ver: treport --perf-script" test -s "$dir/busy.txt"
python3 "$TREC_ROOT/tests/ruby/check_stacks.py" "$script" "$dir/busy.txt" 0.95 "ruby $ver"
"$TREPORT" "$out" --folded >"$dir/busy.folded" 2>>"$dir/rep.log"
check "ruby $ver: folded stacks name ruby frames 'label (file.rb:line)'" \
	grep -q ';block in run (busy.rb:[0-9]*);recurse (busy.rb:[0-9]*);' "$dir/busy.folded"
"$TREPORT" "$out" --info >"$dir/info" 2>&1
written=$(awk '$1 == "RB_CODE_WRITTEN" {print $2}' "$dir/info")
errors=$(awk '$1 == "RUBY_ERRORS" {print $2}' "$dir/info")
frames=$(awk '$1 == "RUBY_FRAMES" {print $2}' "$dir/info")
samples=$(awk '$1 == "SAMPLES" {print $2}' "$dir/info")
if [ "${written:-0}" -gt 0 ] && [ "${frames:-0}" -gt 0 ] &&
	[ "${errors:-1}" -le $(( ${samples:-0} / 100 + 2 )) ]; then
	pass "ruby $ver: iseq descriptions written ($written), $frames ruby frames, unwinder errors $errors"
else
	fail "ruby $ver: iseq descriptions written (${written:-none}), ruby frames ${frames:-none}, unwinder errors ${errors:-?}"
	grep -E 'samples in .* stack group' "$dir/info" | sed 's/^/  /'
fi
