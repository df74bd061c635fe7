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

if ! "$TRECORD" -q -F 499 -o "$out" -- "$PHP" "$script" 3 >"$dir/rec.log" 2>&1; then
	fail "php $ver: trecord runs chain.php"
	sed 's/^/  | /' "$dir/rec.log"
	exit 1
fi
pass "php $ver: trecord runs chain.php"
"$TREPORT" "$out" --perf-script >"$dir/chain.txt" 2>"$dir/rep.log"
check "php $ver: treport --perf-script" test -s "$dir/chain.txt"
python3 "$check" "$script" "$dir/chain.txt" 0.95 "php $ver"

# The checker itself: leaf frames at a line outside the loop must fail it.
sed 's/leaf (chain.php:[0-9]*)/leaf (chain.php:1)/' "$dir/chain.txt" >"$dir/off.txt"
check "php $ver: the checker rejects leaf frames at the wrong line" \
	grep -q '^FAIL:' <(python3 "$check" "$script" "$dir/off.txt" 0.95 "x")

"$TREPORT" "$out" --folded >"$dir/chain.folded" 2>>"$dir/rep.log"
check "php $ver: folded stacks name php frames 'function (file.php:line)'" \
	grep -q ';execute_ex;Walker::{closure} (chain.php:[0-9]*);recurse (chain.php:[0-9]*);' \
	"$dir/chain.folded"
"$TREPORT" "$out" --info >"$dir/info" 2>&1
written=$(awk '$1 == "PHP_CODE_WRITTEN" {print $2}' "$dir/info")
errors=$(awk '$1 == "PHP_ERRORS" {print $2}' "$dir/info")
samples=$(awk '$1 == "SAMPLES" {print $2}' "$dir/info")
# chain.php's functions: {main}, top, Walker::run, usort, the closure,
# recurse, leaf.
if [ "${written:-0}" -ge 7 ] && [ "${errors:-1}" -le $(( ${samples:-0} / 100 + 2 )) ]; then
	pass "php $ver: INTERP_CODE records written ($written), unwinder errors $errors"
else
	fail "php $ver: INTERP_CODE records written (${written:-none}), unwinder errors ${errors:-?}"
	grep -E 'samples in .* stack group' "$dir/info" | sed 's/^/  /'
fi

# A 150-deep recursion: 150 PHP frames in one run of execute_ex, 32 per
# program run, within the 29 tail calls (and the 256-frame trace).
deep=$dir/chain_deep.php
sed 's/^const DEPTH = 24;$/const DEPTH = 150;/' "$script" >"$deep"
grep -q '^const DEPTH = 150;$' "$deep" || fail "php $ver: chain_deep.php made"
if "$TRECORD" -q -F 499 -o "$dir/deep.tr" -- "$PHP" "$deep" 2 >"$dir/rec.log" 2>&1; then
	"$TREPORT" "$dir/deep.tr" --perf-script >"$dir/deep.txt" 2>>"$dir/rep.log"
	python3 "$check" "$deep" "$dir/deep.txt" 0.95 "php $ver, depth 150"
else
	fail "php $ver: trecord runs chain_deep.php"
	sed 's/^/  | /' "$dir/rec.log"
fi
