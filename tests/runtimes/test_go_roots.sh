#!/usr/bin/env bash
# Go stacks end at their roots: every thread of a Go process (goroutines,
# GC workers on the g0 stack, the scheduler, sysmon, a signal handler) is
# recorded for a few seconds (tests/workloads/go/roots.go, stripped: names
# from .gopclntab), with perf record -g around trecord so both see the same
# run. go_roots.py checks that >= 99.9% of trec's samples end, without an
# error frame, at a root (runtime.goexit; runtime.clone or rt0_go, the
# threads' first frames; runtime.mstart, a top frame for Go's own
# traceback too, where m0's start-up stacks end: rt0_go calls it with no
# frame record; runtime.sigtramp; systemstack, mcall or morestack for g0
# stacks; record/unwind/go_roots.c) and shows perf -g's share.
# With cgo (gocgo), samples in C end at runtime.asmcgocall (SPWRITE) and
# the runtime's threads, started from cgo's crosscall_amd64, at
# runtime.mstart (TOPFRAME), as Go's own traceback ends them.
#   GO_ROOTS_SECS (4): workload seconds; GO_ROOTS_MIN (99.9): the bar.
. "$(dirname "$0")/../lib/common.sh"
# The plain build, as test_runtimes.sh: ASan makes trecord's start slow.
TRECORD=${TREC_PLAIN_BUILD:-$TREC_ROOT/build}/trecord
[ -x "$TREPORT" ] || TREPORT=${TREC_PLAIN_BUILD:-$TREC_ROOT/build}/treport

[ "$(id -u)" = 0 ] || skip_all "recording needs root"
[ -x "$TRECORD" ] && [ -x "$TREPORT" ] || skip_all "trecord/treport not built"
command -v go >/dev/null || skip_all "go is not installed (apt-get install golang-go)"
command -v perf >/dev/null || skip_all "perf (the side-by-side anchor) is not installed"
build_workloads || { fail "workloads build"; exit 1; }
W=$WORKLOADS
[ -x "$W/goroots-stripped" ] && [ -x "$W/goroots" ] || { fail "goroots built"; exit 1; }
d=$(mktemp_dir)

# Root ranges from the unstripped build: the same code at the same
# addresses (non-PIE).
roots=$(nm -S "$W/goroots" | while read -r lo size _ name; do
	case $name in
	runtime.goexit.abi0 | runtime.rt0_go.abi0 | runtime.clone.abi0 | runtime.sigtramp.abi0 | \
		runtime.systemstack.abi0 | runtime.mcall | runtime.morestack.abi0 | runtime.mstart.abi0)
		printf '%x-%x=%s ' $((16#$lo)) $((16#$lo + 16#$size)) "${name%.abi0}" ;;
	esac
done)
check "the root functions are in the binary's symbols" test "$(echo "$roots" | wc -w)" = 8

perf record -q -g -F 999 -o "$d/perf.data" -- \
	"$TRECORD" -q -F 999 -o "$d/go.tr" -- "$W/goroots-stripped" "${GO_ROOTS_SECS:-4}" \
	>"$d/out" 2>"$d/err"
check "perf + trecord record the Go workload" grep -q '^goroots:' "$d/out" ||
	sed 's/^/  | /' "$d/err" | tail -5
perf script -i "$d/perf.data" >"$d/perf.txt" 2>/dev/null
"$TREPORT" --perf-script "$d/go.tr" >"$d/trec.txt" 2>"$d/rerr"
check "treport --perf-script reads it" test -s "$d/trec.txt"
# perf names an unknown frame by its offset in the file: text vaddr - offset.
add=$(readelf -lW "$W/goroots-stripped" | awk '$1 == "LOAD" && / R E / { print $2, $3; exit }' |
	{ read -r off va; printf '%x' $((va - off)); })
python3 "$TREC_ROOT/tests/runtimes/go_roots.py" "$d/trec.txt" "$d/perf.txt" "$roots" \
	"${GO_ROOTS_MIN:-99.9}" "$add"
"$TREPORT" --info "$d/go.tr" 2>/dev/null | grep -E '^ +(GO_[A-Z_]+|FP_BELOW_SP|FP_OUTSIDE_STACK) ' |
	sed 's/^ */NOTE: /'

# cgo (tests/workloads/go/cgo.go): a sample in C called through cgo ends
# at runtime.asmcgocall, which moved to the g0 stack (SPWRITE: Go's own
# traceback stops there too), not at a made-up frame from what lies at its
# sp + 8 (runtime.m0 in .bss, a heap pointer: NATIVE_LOOKUP_TEXT_SECTION);
# the runtime's threads, started from cgo's crosscall_amd64 (C without an
# unwind table), end at runtime.mstart (TOPFRAME), not in FP_BELOW_SP.
if [ -x "$W/gocgo" ]; then
	"$TRECORD" -q -F 999 -o "$d/cgo.tr" -- "$W/gocgo" "${GO_ROOTS_SECS:-4}" >"$d/cout" 2>"$d/cerr"
	check "trecord records the cgo workload" grep -q '^gocgo:' "$d/cout" ||
		sed 's/^/  | /' "$d/cerr" | tail -5
	"$TREPORT" --folded "$d/cgo.tr" >"$d/cgo.folded" 2>/dev/null
	# "comm;root;...;leaf n": samples in cSpin, and those whose first
	# frame is asmcgocall with no error or unknown frame; the same for
	# the samples through mstart.
	read -r c_all c_clean m_all m_clean < <(awk '{
		n = $NF; split($0, f, ";"); bad = /\[error|\[unknown\]/
		if (/;cSpin(;|[ ]|$)/) { ca += n; if (f[2] ~ /^runtime\.asmcgocall(\.abi0)?$/ && !bad) cc += n }
		if (/;runtime\.mstart(\.abi0)?;/) { ma += n; if (f[2] ~ /^runtime\.mstart(\.abi0)?$/ && !bad) mc += n }
	} END { print ca + 0, cc + 0, ma + 0, mc + 0 }' "$d/cgo.folded")
	echo "NOTE: cgo: $c_clean of $c_all samples in C end at asmcgocall; $m_clean of $m_all through mstart end there"
	check "cgo: samples in C (>= 100)" test "$c_all" -ge 100
	check "cgo: >= 99% of them end cleanly at runtime.asmcgocall" test $((c_clean * 100)) -ge $((c_all * 99))
	check "cgo: runtime threads sampled (>= 3 through mstart)" test "$m_all" -ge 3
	check "cgo: >= 90% of those end cleanly at runtime.mstart" test $((m_clean * 10)) -ge $((m_all * 9))
	[ $((c_clean * 100)) -ge $((c_all * 99)) ] && [ $((m_clean * 10)) -ge $((m_all * 9)) ] ||
		grep -v "^gocgo;runtime\.\(asmcgocall\|mstart\)" "$d/cgo.folded" | sort -t' ' -k2 -nr | head -5 | sed 's/^/  | /'
else
	echo "NOTE: cgo workload not built (gocgo: go build needs gcc for cgo)"
fi
exit 0
