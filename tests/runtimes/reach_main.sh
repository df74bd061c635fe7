#!/usr/bin/env bash
# Whole stacks through frame-pointer code, by a measure that needs no JIT
# names: the share of samples whose stack reaches the runtime's main
# (node::Start, JavaMain, runtime.main or runtime.goexit, the last two by
# address: the Go binary is stripped). trec and perf -g are attached to the
# same process at once, after 2 s of JIT warm-up. Not part of make test.
#   bash tests/runtimes/reach_main.sh [SECS (5)] [FREQ (499)]
# TRECORD/TREPORT: other builds (e.g. one from before a change).
set -u
cd "$(dirname "$0")/../.."
ROOT=$PWD
HERE=$ROOT/tests/runtimes
TRECORD=${TRECORD:-$ROOT/build/trecord}
TREPORT=${TREPORT:-$ROOT/build/treport}
SECS=${1:-5} FREQ=${2:-499}
T=$(mktemp -d /tmp/trec-reach.XXXXXX)
trap 'rm -rf "$T"' EXIT

# both NAME PID: trecord and perf record -g on PID for SECS, then reports.
both() {
	local name=$1 pid=$2
	"$TRECORD" -q -F "$FREQ" -p "$pid" -d "$SECS" -o "$T/$name.tr" >/dev/null 2>&1 &
	local tp=$!
	perf record -q -g -F "$FREQ" -p "$pid" -o "$T/$name.perf" -- sleep "$SECS" >/dev/null 2>&1
	wait "$tp"
	kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
	rm -f "/tmp/perf-$pid.map"
	"$TREPORT" --perf-script "$T/$name.tr" >"$T/$name.trec.txt" 2>/dev/null
	perf script -i "$T/$name.perf" >"$T/$name.perf.txt" 2>/dev/null
}
# start CMD...: the workload (in $T: node writes V8 logs into its cwd), for
# longer than the recording, then warm-up.
start() { cd "$T" && { "$@" $((SECS + 10)) >/dev/null 2>&1 & PID=$!; cd "$ROOT"; sleep 2; }; }
row() { python3 "$HERE/reach_main.py" "$@"; }

echo "| workload | profiler | samples | reach main | busiest thread | reach main | top errors |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
if command -v node >/dev/null; then
	start node --perf-basic-prof "$HERE/hot.js"
	both node "$PID"
	row "node --perf-basic-prof" "$T/node.trec.txt" "$T/node.perf.txt" node::Start
fi
if command -v javac >/dev/null && javac -d "$T" "$HERE/Hot.java"; then
	start java -XX:+PreserveFramePointer -cp "$T" Hot
	both java "$PID"
	row "java -XX:+PreserveFramePointer" "$T/java.trec.txt" "$T/java.perf.txt" JavaMain
fi
[ -n "${HOME:-}" ] || export GOCACHE=$T/gocache
if command -v go >/dev/null && CGO_ENABLED=0 go build -o "$T/hot" "$HERE/hot.go" &&
	CGO_ENABLED=0 go build -ldflags='-s -w' -o "$T/hot-stripped" "$HERE/hot.go"; then
	# Root ranges from the unstripped build: the same code (non-PIE).
	roots=$(nm -S "$T/hot" | while read -r lo size _ name; do
		case $name in runtime.main | runtime.goexit.abi0)
			printf '%s-%x ' "$lo" $((16#$lo + 16#$size)) ;;
		esac
	done)
	# perf names an unknown frame by its offset in the file: text vaddr - offset.
	add=$(readelf -lW "$T/hot-stripped" | awk '$1 == "LOAD" && / R E / { print $2, $3; exit }' |
		{ read -r off va; printf '%x' $((va - off)); })
	start "$T/hot-stripped"
	both go "$PID"
	# shellcheck disable=SC2086
	row "Go, -ldflags='-s -w'" "$T/go.trec.txt" "$T/go.perf.txt" --perf-add "$add" $roots
fi
