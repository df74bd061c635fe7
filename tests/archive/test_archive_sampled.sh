#!/usr/bin/env bash
# Level sampled must symbolize exactly as level full. One recording of the
# busy workload is rearchived (tests/archive/rearchive.c) at both levels,
# so they are compared on the same samples, with treport reading only the
# embedded symbols: --folded, --perf-script and the pprof profile (its
# decompressed protobuf) must be byte-identical. Then the same with each
# sample's leaf turned into the runtime pc BPF writes before trecord knows
# a process (rearchive --absolute; a real recording has only a few):
# treport maps those through the pid's mapping snapshots, and sampled must
# keep the lines that mapping reaches.
source "$(dirname "$0")/../lib/common.sh"
build_workloads
B=${TREC_PLAIN_BUILD:-$TREC_ROOT/build}
[ -f "$B/librecord.a" ] || make -s -C "$TREC_ROOT" all >/dev/null
d=$(mktemp_dir)
inc="-I$TREC_ROOT -I$TREC_ROOT/format -I$TREC_ROOT/bpf -D_GNU_SOURCE"
cc -O1 -g -std=gnu11 -Wall -Wextra $inc -o "$d/rearchive" "$TREC_ROOT/tests/archive/rearchive.c" \
	"$B/librecord.a" "$B/libtrecformat.a" -ldw -lelf -lzstd -lz -lpthread ||
	{ fail "build rearchive"; exit 1; }

if ! "$TRECORD" -F 499 --archive=full -f -o "$d/rec.tr" -- "$WORKLOADS/busy" -n 500 \
	>/dev/null 2>"$d/rec.err"; then
	cat "$d/rec.err"
	grep -qiE 'bpf|permission|operation not permitted' "$d/rec.err" &&
		skip_all "trecord cannot sample on this machine"
	fail "record the busy workload"
	exit 1
fi

outputs() { # NAME.tr -> NAME.folded NAME.perf-script NAME.pprof
	local n=${1%.tr}
	"$TREPORT" --symbol-source=embedded --folded "$1" >"$n.folded" 2>/dev/null &&
		"$TREPORT" --symbol-source=embedded --perf-script "$1" >"$n.perf-script" 2>/dev/null &&
		"$TREPORT" --symbol-source=embedded --pprof -o "$n.pb.gz" "$1" 2>/dev/null &&
		gzip -dc "$n.pb.gz" >"$n.pprof"
}

compare() { # LABEL A B: the three outputs of A.tr and B.tr
	for o in folded perf-script pprof; do
		check "$1: $o of level sampled is byte-identical to full" cmp "$2.$o" "$3.$o"
	done
	local fs ss
	fs=$(stat -c %s "$2.tr") ss=$(stat -c %s "$3.tr")
	check "$1: level sampled is smaller than full ($ss < $fs bytes)" test "$ss" -lt "$fs"
}

for mode in "" --absolute; do
	p=$d/r${mode#--}
	"$d/rearchive" $mode "$d/rec.tr" "$p.full.tr" full 2>"$p.full.err" &&
		"$d/rearchive" $mode "$d/rec.tr" "$p.sampled.tr" sampled 2>"$p.sampled.err" &&
		outputs "$p.full.tr" && outputs "$p.sampled.tr" ||
		{ fail "rearchive${mode:+ $mode} and report"; cat "$p".*.err; continue; }
	sed -n 's/^rearchive: /'"${mode:-as recorded}"': /p' "$p.sampled.err"
	compare "${mode:-as recorded}" "$p.full" "$p.sampled"
done

# Merged recordings of the same binaries: each recording's sampled libc
# archive has lines of other functions (threads' first, busy's qsort after);
# treport must take every function's lines from the archive that has them.
if "$TRECORD" -F 499 --archive=full -f -o "$d/thr.tr" -- "$WORKLOADS/threads" 1 \
	>/dev/null 2>"$d/thr.err" &&
	"$d/rearchive" "$d/thr.tr" "$d/thr.full.tr" full 2>/dev/null &&
	"$d/rearchive" "$d/thr.tr" "$d/thr.sampled.tr" sampled 2>/dev/null; then
	for v in full sampled; do
		"$TREPORT" --symbol-source=embedded --pprof -o "$d/merged.$v.pb.gz" \
			"$d/thr.$v.tr" "$d/r.$v.tr" 2>/dev/null && gzip -dc "$d/merged.$v.pb.gz" >"$d/merged.$v.pprof"
	done
	check "merged recordings: pprof of level sampled is byte-identical to full" \
		cmp "$d/merged.full.pprof" "$d/merged.sampled.pprof"
else
	cat "$d/thr.err"
	fail "record and rearchive the threads workload"
fi

# Not vacuous: the runtime pcs were made, and they resolve to source lines.
pa=$d/rabsolute
made=$(sed -n 's/.*(\([0-9]*\) made so)/\1/p' "$pa.sampled.err")
check "--absolute turned leaf frames into runtime pcs ($made)" test "${made:-0}" -gt 100
# (a profile names a source file only from line rows: none at level symbols)
check "runtime pcs get busy.c lines from level sampled" grep -aq 'busy\.c' "$pa.sampled.pprof"
exit 0
