#!/usr/bin/env bash
# The test runner: runs every built unit test and every tests/*/test_*.sh.
#
# A test reports one result per "PASS: name" / "FAIL: name" line it prints.
# A test that prints neither counts once, by exit status (0 pass, 77 skip,
# anything else fail); a non-zero exit without a FAIL line is one failure.
# Ends with "N passed, N failed[, N skipped]"; exits non-zero on failure.
#
#   bash tests/run.sh [PATTERN]   run only tests whose path matches PATTERN
#
# A test with the line "# trec-test: stress-only" (a long run whose scale
# only make stress gives it: memory over minutes, say) runs only when
# PATTERN names it or its directory (make stress: tests/stress/).
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
export TREC_ROOT=$ROOT
# Tests use the sanitizer build unless told otherwise.
export TREC_BUILD=${TREC_BUILD:-$ROOT/build-san}
export TREC_PLAIN_BUILD=${TREC_PLAIN_BUILD:-$ROOT/build}
export TRECORD=${TRECORD:-$TREC_BUILD/trecord}
export TREPORT=${TREPORT:-$TREC_BUILD/treport}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:exitcode=99}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:exitcode=98}
pattern=${1:-}

logdir=$ROOT/build/test-logs
rm -rf "$logdir"; mkdir -p "$logdir"
passed=0 failed=0 skipped=0
failures=()

tests=()
for t in "$TREC_BUILD"/tests/test_*; do [ -x "$t" ] && tests+=("$t"); done
for t in tests/*/test_*.sh; do [ -f "$t" ] && tests+=("$t"); done

for t in "${tests[@]}"; do
	[ -n "$pattern" ] && [[ "$t" != *$pattern* ]] && continue
	# The arm64 simulation (qemu, about a minute) only when named: make test-arm64.
	[[ "$t" == tests/arm64/* && "$pattern" != *arm64* ]] && continue
	[[ "$t" == *.sh && -z "$pattern" ]] && grep -qx '# trec-test: stress-only' "$t" && continue
	name=${t#"$ROOT"/}
	log=$logdir/$(echo "$name" | tr '/' '_').log
	start=$(date +%s)
	# Each test gets its own TMPDIR, removed afterwards whatever it left.
	tmp=$(mktemp -d /tmp/trec-run.XXXXXX)
	# ... and an empty stack-delta cache: each test extracts deltas as on
	# a first run (the cache's own tests set their own).
	case "$t" in
	*.sh) TMPDIR=$tmp TREC_CACHE_DIR=$tmp/delta-cache timeout 600 bash "$t" >"$log" 2>&1 ;;
	*) TMPDIR=$tmp TREC_CACHE_DIR=$tmp/delta-cache timeout 600 "$t" >"$log" 2>&1 ;;
	esac
	rc=$?
	rm -rf "$tmp"
	secs=$(( $(date +%s) - start ))
	p=$(grep -c '^PASS: ' "$log")
	f=$(grep -c '^FAIL: ' "$log")
	if [ "$rc" = 77 ] && [ "$f" = 0 ]; then
		skipped=$((skipped + 1)); echo "SKIP $name (${secs}s)"; sed -n 's/^SKIP: /  /p' "$log"
		continue
	fi
	if [ "$p" = 0 ] && [ "$f" = 0 ]; then
		if [ "$rc" = 0 ]; then p=1; else f=1; fi
	elif [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		f=1
	fi
	passed=$((passed + p)); failed=$((failed + f))
	if [ "$f" -gt 0 ]; then
		echo "FAIL $name ($p passed, $f failed, exit $rc, ${secs}s)"
		grep '^FAIL: ' "$log" | sed 's/^/  /'
		echo "  --- last lines of $log:"; tail -n 25 "$log" | sed 's/^/  | /'
		failures+=("$name")
	else
		echo "ok   $name ($p passed, ${secs}s)"
	fi
done

echo
if [ "$skipped" -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ "$failed" = 0 ]
