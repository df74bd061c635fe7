#!/usr/bin/env bash
# Issue 12's acceptance test: JIT and Go stacks, end to end. Each runtime
# runs a workload with a known hot leaf and caller chain (tests/runtimes/
# hot.js, Hot.java, hot.go, hot_perf.py) under perf record -g and, inside
# it, trecord, so both see the very same run (the same JIT code, the same
# perf map). chain_share.py then checks that in trec's stacks, of the
# samples in hotLeaf after the first 0.5 s (JIT warm-up, when callers are
# still interpreter frames that no perf map names), >= 98% hold the whole
# chain hotMiddle, hotOuter, hotMain down to the runtime's main, and that
# the share is not below perf -g's.
#
# Run by tests/run.sh (~40 s; runtimes not installed are skipped), or by
# hand: bash tests/runtimes/test_runtimes.sh [CASE-PATTERN]
# On a heavily loaded machine JIT warm-up outlasts the 0.5 s skipped, and
# both trec and perf -g fall below 98%: where perf -g walks the stacks (at
# least half whole) but stays under 98%, its share is the bar, with a NOTE
# line saying so; where it cannot (no frame pointers, no names), 98% stays.
# RUNTIMES_SECS (2): workload seconds; RUNTIMES_SHOW (3): trec stacks shown.
. "$(dirname "$0")/../lib/common.sh"
# The plain build, as in tests/python: ASan makes trecord's start slow.
TRECORD=${TREC_PLAIN_BUILD:-$TREC_ROOT/build}/trecord
[ -x "$TREPORT" ] || TREPORT=${TREC_PLAIN_BUILD:-$TREC_ROOT/build}/treport

[ "$(id -u)" = 0 ] || skip_all "recording needs root"
[ -x "$TRECORD" ] && [ -x "$TREPORT" ] || skip_all "trecord/treport not built"
command -v perf >/dev/null || skip_all "perf (the oracle) is not installed"
HERE=$TREC_ROOT/tests/runtimes
OUT=$TREC_ROOT/build/runtimes
mkdir -p "$OUT"
SECS=${RUNTIMES_SECS:-2}
SHOW=${RUNTIMES_SHOW:-3}
only=${1:-}
T=$(mktemp -d /tmp/trec-runtimes.XXXXXX)
trap 'rm -rf "$T"' EXIT
ran=0

# record NAME CMD...: perf -g around trecord around CMD; writes
# $T/NAME.{perf,trec,folded}; sets PID (the workload's, from its "pid N").
record() {
	local name=$1; shift
	# In $T: node --perf-basic-prof leaves V8 logs (isolate-*-v8.log) in its cwd.
	(cd "$T" && perf record -q -g -F 999 -o "$T/$name.data" -- \
		"$TRECORD" -q -F 999 -f -o "$T/$name.tr" -- "$@" >"$T/$name.out" 2>"$T/$name.err")
	local rc=$?
	PID=$(sed -n 's/^.*: pid \([0-9][0-9]*\)$/\1/p' "$T/$name.out" | head -n 1)
	[ "$rc" = 0 ] || { fail "$name: perf + trecord run it (exit $rc)"; sed 's/^/  | /' "$T/$name.err" | tail -n 5; return 1; }
	perf script -i "$T/$name.data" >"$T/$name.perf" 2>/dev/null
	"$TREPORT" --perf-script "$T/$name.tr" >"$T/$name.trec" 2>"$T/$name.rerr"
	"$TREPORT" --folded "$T/$name.tr" >"$T/$name.folded" 2>>"$T/$name.rerr"
}

# judge NAME PRESET: the checks, then trec's commonest stacks.
judge() {
	local name=$1 preset=$2
	python3 "$HERE/chain_share.py" --preset "$preset" --label "$name" \
		--comm '(?!trecord |perf )' --skip-secs 0.5 \
		--oracle "$T/$name.perf" "$T/$name.trec" | grep -v '^{'
	echo "  trec's commonest stacks ($name):"
	awk '{ print $NF "\t" $0 }' "$T/$name.folded" | sort -rn | head -n "$SHOW" |
		cut -f 2 | cut -c 1-400 | sed 's/^/    /'
}

# maps_gone PID: removes what the runtime wrote for perf.
maps_gone() {
	[ -n "$1" ] && rm -f "/tmp/perf-$1.map" "/tmp/jit-$1.dump"
}

want() { [ -z "$only" ] || [[ "$1" == *$only* ]]; }

# ---- Node: three ways to name JIT frames --------------------------------
if command -v node >/dev/null; then
	for spec in node-basic:--perf-basic-prof node-onlyfn:--perf-basic-prof-only-functions \
		"node-interp:--perf-basic-prof --interpreted-frames-native-stack"; do
		name=${spec%%:*} flags=${spec#*:}
		want "$name" || continue
		ran=$((ran + 1))
		# shellcheck disable=SC2086
		record "$name" node $flags "$HERE/hot.js" "$SECS" && judge "$name" node
		maps_gone "$PID"
	done
else
	echo "SKIP: node: not installed"
fi

# ---- Java: the perf map written at exit, or on demand by jcmd -----------
if command -v java >/dev/null && command -v javac >/dev/null; then
	if [ ! "$OUT/Hot.class" -nt "$HERE/Hot.java" ]; then
		javac -d "$OUT" "$HERE/Hot.java" || fail "javac Hot.java"
	fi
	JAVA=(java -XX:+PreserveFramePointer -XX:CompileCommand=quiet
		"-XX:CompileCommand=dontinline,Hot::hot*" -cp "$OUT")
	if want java-atexit; then
		ran=$((ran + 1))
		record java-atexit "${JAVA[@]}" -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit \
			Hot "$SECS" && judge java-atexit java
		maps_gone "$PID"
	fi
	if want java-jcmd && command -v jcmd >/dev/null; then
		ran=$((ran + 1))
		# jcmd near the end of the run, so the map has the steady-state code.
		# (jcmd is a JVM too: on a loaded machine both start slowly, so the
		# run leaves it 3 s.)
		record java-jcmd "${JAVA[@]}" Hot "$((SECS + 3))" &
		rec=$!
		for _ in $(seq 300); do
			jpid=$(sed -n 's/^.*: pid \([0-9][0-9]*\)$/\1/p' "$T/java-jcmd.out" 2>/dev/null | head -n 1)
			[ -n "$jpid" ] && break
			sleep 0.1
		done
		sleep "$SECS"
		[ -n "$jpid" ] && timeout 20 jcmd "$jpid" Compiler.perfmap >"$T/jcmd.out" 2>&1
		check "java-jcmd: jcmd Compiler.perfmap wrote /tmp/perf-$jpid.map" test -s "/tmp/perf-$jpid.map"
		wait "$rec" && judge java-jcmd java
		maps_gone "$jpid"
	fi
else
	echo "SKIP: java: no java/javac (OpenJDK 17)"
fi

# ---- CPython 3.12+ with -X perf -----------------------------------------
pythons=()
for p in "${PYENV_ROOT:-/root/.pyenv}"/versions/3.1[2-9]*/bin/python3.1[2-9]; do
	[ -x "$p" ] && pythons+=("$p")
done
[ ${#pythons[@]} -gt 0 ] || echo "SKIP: python: no CPython 3.12+ in ${PYENV_ROOT:-/root/.pyenv}/versions"
for py in "${pythons[@]}"; do
	name=python$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')-Xperf
	want "$name" || continue
	ran=$((ran + 1))
	record "$name" "$py" -X perf "$HERE/hot_perf.py" "$SECS" && judge "$name" python
	maps_gone "$PID"
done

# ---- Go, with and without its symbol table ------------------------------
if command -v go >/dev/null; then
	[ -n "${HOME:-}" ] || export GOCACHE=$OUT/gocache
	for variant in plain stripped; do
		name=go-$variant
		want "$name" || continue
		flags=()
		[ "$variant" = stripped ] && flags=(-ldflags=-s\ -w)
		if ! CGO_ENABLED=0 go build "${flags[@]}" -o "$OUT/hot-$name" "$HERE/hot.go" 2>"$T/go.err"; then
			fail "$name: go build"; sed 's/^/  | /' "$T/go.err"; continue
		fi
		ran=$((ran + 1))
		record "$name" "$OUT/hot-$name" "$SECS" && judge "$name" go
	done
else
	echo "SKIP: go: not installed (apt-get install golang-go)"
fi

[ "$ran" -gt 0 ] || skip_all "no runtime to test"
exit 0
