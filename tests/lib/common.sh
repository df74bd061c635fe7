# Sourced by tests/*/test_*.sh. Gives pass/fail helpers and workload builds.
# Every check prints one "PASS: name" or "FAIL: name" line (see tests/run.sh).
set -u
: "${TREC_ROOT:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
: "${TREC_BUILD:=$TREC_ROOT/build-san}"
: "${TRECORD:=$TREC_BUILD/trecord}"
: "${TREPORT:=$TREC_BUILD/treport}"
WORKLOADS=$TREC_ROOT/build/workloads

pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; }
# check NAME CMD...: PASS if CMD succeeds; returns 1 after a FAIL, so
# `check ... || show-why` prints its diagnostics when the check fails.
# One CMD per check: in `check N [ a ] && [ b ]` only [ a ] is checked.
check() { local n=$1; shift; if "$@"; then pass "$n"; else fail "$n"; return 1; fi; }
# metric FILE NAME: the number treport --info gives NAME in recording FILE
# (empty when it lists none).
metric() { "$TREPORT" --info "$1" 2>/dev/null | awk -v m="$2" '$1 == m && $2 ~ /^[0-9]+$/ { print $2; exit }'; }
skip_all() { echo "SKIP: $*"; exit 77; }

# A fresh temporary directory under one per-test root that is removed when
# the test exits. Safe inside $(...): the trap belongs to the test's shell.
# A test that sets its own EXIT trap replaces this one; tests/run.sh still
# removes the test's whole TMPDIR afterwards.
TREC_TEST_TMP=$(mktemp -d "${TMPDIR:-/tmp}/trec-test.XXXXXX")
trap 'rm -rf "$TREC_TEST_TMP"' EXIT
mktemp_dir() { mktemp -d "$TREC_TEST_TMP/d.XXXXXX"; }

# Builds tests/workloads/* into build/workloads (idempotent, make-driven).
build_workloads() {
	make -s -C "$TREC_ROOT/tests/workloads" OUT="$WORKLOADS" >/dev/null
}
