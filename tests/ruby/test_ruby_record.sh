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
source "$(dirname "$0")/../lib/interp_record.sh"
TRECORD=${TREC_PLAIN_BUILD:-$TREC_ROOT/build}/trecord

[ "$(id -u)" = 0 ] || skip_all "needs root"
[ -x "$TRECORD" ] && [ -x "$TREPORT" ] || skip_all "trecord/treport not built"
RUBY=$(command -v ruby) || { fail "ruby installed (make deps)"; exit 1; }
dir=$(mktemp -d /tmp/trec-rbrec.XXXXXX)
trap 'rm -rf "$dir"' EXIT
script=$TREC_ROOT/tests/ruby/busy.rb
ver=$("$RUBY" -e 'print RUBY_VERSION')
out=$dir/busy.tr

interp_record "ruby $ver" "$out" busy.rb "$RUBY" "$script" 3 || exit 1
interp_perf_script "ruby $ver" "$out" "$dir/busy.txt"
python3 "$TREC_ROOT/tests/ruby/check_stacks.py" "$script" "$dir/busy.txt" 0.95 "ruby $ver"
"$TREPORT" "$out" --folded >"$dir/busy.folded" 2>>"$dir/rep.log"
check "ruby $ver: folded stacks name ruby frames 'label (file.rb:line)'" \
	grep -q ';block in run (busy.rb:[0-9]*);recurse (busy.rb:[0-9]*);' "$dir/busy.folded"
interp_readme_example "ruby $ver" busy.rb "$dir/busy.folded"
interp_info "$out"
interp_code_check "ruby $ver" "iseq descriptions" RB_CODE_WRITTEN RUBY_ERRORS 1
frames=$(interp_metric RUBY_FRAMES)
check "ruby $ver: ruby frames unwound (${frames:-none})" [ "${frames:-0}" -gt 0 ]
