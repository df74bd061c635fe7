#!/usr/bin/env bash
# End to end: trecord records tests/php/chain.php under Debian's PHP 8.2
# CLI, treport names its frames; in the steady part of the run >= 95% of
# the leaf samples must carry the whole chain {main} -> top -> Walker::run
# -> usort -> the closure usort calls -> a 25-deep recursion -> leaf, in
# order, with the script's lines, interleaved with the native execute_ex
# frames and usort's C code (tests/php/check_stacks.py); then the same
# with a 150-deep recursion.
#
# trecord is the plain build, as in tests/python/test_python_record.sh:
# with the sanitizer build, loading php8.2's stack deltas takes seconds of
# the run; the PHP code runs under ASan in the unit tests.
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/../lib/interp_record.sh"
TRECORD=${TREC_PLAIN_BUILD:-$TREC_ROOT/build}/trecord
PHP=${TREC_PHP:-/usr/bin/php8.2}

[ "$(id -u)" = 0 ] || skip_all "needs root"
[ -x "$TRECORD" ] && [ -x "$TREPORT" ] || skip_all "trecord/treport not built"
[ -x "$PHP" ] || skip_all "no $PHP (make deps installs php-cli)"
dir=$(mktemp -d /tmp/trec-phprec.XXXXXX)
trap 'rm -rf "$dir"' EXIT
script=$TREC_ROOT/tests/php/chain.php
check=$TREC_ROOT/tests/php/check_stacks.py
ver=$("$PHP" -r 'echo PHP_VERSION;')
out=$dir/chain.tr

interp_record "php $ver" "$out" chain.php "$PHP" "$script" 3 || exit 1
interp_perf_script "php $ver" "$out" "$dir/chain.txt"
python3 "$check" "$script" "$dir/chain.txt" 0.95 "php $ver"

# The checker itself: leaf frames at a line outside the loop must fail it.
sed 's/leaf (chain.php:[0-9]*)/leaf (chain.php:1)/' "$dir/chain.txt" >"$dir/off.txt"
check "php $ver: the checker rejects leaf frames at the wrong line" \
	grep -q '^FAIL:' <(python3 "$check" "$script" "$dir/off.txt" 0.95 "x")

"$TREPORT" "$out" --folded >"$dir/chain.folded" 2>>"$dir/rep.log"
check "php $ver: folded stacks name php frames 'function (file.php:line)'" \
	grep -q ';execute_ex;Walker::{closure} (chain.php:[0-9]*);recurse (chain.php:[0-9]*);' \
	"$dir/chain.folded"
interp_readme_example "php $ver" chain.php "$dir/chain.folded"
interp_info "$out"
# chain.php's functions: {main}, top, Walker::run, usort, the closure,
# recurse, leaf.
interp_code_check "php $ver" "INTERP_CODE records" PHP_CODE_WRITTEN PHP_ERRORS 7

# A 150-deep recursion: 150 PHP frames in one run of execute_ex, 32 per
# program run, within the 29 tail calls (and the 256-frame trace).
deep=$dir/chain_deep.php
sed 's/^const DEPTH = 24;$/const DEPTH = 150;/' "$script" >"$deep"
grep -q '^const DEPTH = 150;$' "$deep" || fail "php $ver: chain_deep.php made"
if interp_record "php $ver, depth 150" "$dir/deep.tr" chain_deep.php "$PHP" "$deep" 2; then
	"$TREPORT" "$dir/deep.tr" --perf-script >"$dir/deep.txt" 2>>"$dir/rep.log"
	python3 "$check" "$deep" "$dir/deep.txt" 0.95 "php $ver, depth 150"
fi
