#!/usr/bin/env bash
# The symbol cache (record/archive/symbol_cache.h) end to end. One
# recording of every process (-a, while busy and threads run: libc with
# its debug file, busy's own DWARF) is rearchived (tests/archive/
# rearchive.c) at level sampled directly, then through the cache twice
# (cold: entries collected; warm: reused): treport's --folded,
# --perf-script and pprof of the three must be byte-identical. Then
# trecord itself: its recording writes entries, the next reuses them
# (unchanged), a damaged entry gets one warning and is rewritten, and
# --no-symbol-cache writes none.
source "$(dirname "$0")/../lib/common.sh"
build_workloads
B=${TREC_PLAIN_BUILD:-$TREC_ROOT/build}
[ -f "$B/librecord.a" ] || make -s -C "$TREC_ROOT" all >/dev/null
d=$(mktemp_dir)
inc="-I$TREC_ROOT -I$TREC_ROOT/format -I$TREC_ROOT/bpf -D_GNU_SOURCE"
cc -O1 -g -std=gnu11 -Wall -Wextra $inc -o "$d/rearchive" "$TREC_ROOT/tests/archive/rearchive.c" \
	"$B/librecord.a" "$B/libtrecformat.a" -lbpf -ldw -lelf -lzstd -lz -lpthread ||
	{ fail "build rearchive"; exit 1; }
export TREC_CACHE_DIR=$d/cache

"$WORKLOADS/busy" 3 >/dev/null &
busy=$!
"$WORKLOADS/threads" 2 >/dev/null &
thr=$!
if ! "$TRECORD" -a -F 499 -d 2 --archive=none -f -o "$d/all.tr" >/dev/null 2>"$d/all.err"; then
	kill $busy $thr 2>/dev/null
	cat "$d/all.err"
	grep -qiE 'bpf|permission|operation not permitted' "$d/all.err" &&
		skip_all "trecord cannot sample on this machine"
	fail "record -a"
	exit 1
fi
wait $busy $thr 2>/dev/null

outputs() { # NAME.tr -> NAME.folded NAME.perf-script NAME.pprof
	local n=${1%.tr}
	"$TREPORT" --symbol-source=embedded --folded "$1" >"$n.folded" 2>/dev/null &&
		"$TREPORT" --symbol-source=embedded --perf-script "$1" >"$n.perf-script" 2>/dev/null &&
		"$TREPORT" --symbol-source=embedded --pprof -o "$n.pb.gz" "$1" 2>/dev/null &&
		gzip -dc "$n.pb.gz" >"$n.pprof"
}

rm -rf "$TREC_CACHE_DIR"
"$d/rearchive" "$d/all.tr" "$d/direct.tr" sampled 2>"$d/direct.err" && outputs "$d/direct.tr" ||
	{ fail "rearchive directly"; cat "$d/direct.err"; }
for run in cold warm; do
	REARCHIVE_SYMBOL_CACHE=1 "$d/rearchive" "$d/all.tr" "$d/$run.tr" sampled 2>"$d/$run.err" &&
		outputs "$d/$run.tr" || { fail "rearchive through the cache ($run)"; cat "$d/$run.err"; }
	[ $run = cold ] && ls -l --time-style=+%s.%N "$TREC_CACHE_DIR"/symbols-x*/ >"$d/cold.ls" 2>&1
	for o in folded perf-script pprof; do
		cmp -s "$d/direct.$o" "$d/$run.$o" || diff "$d/direct.$o" "$d/$run.$o" | head -n 6
		check "$run cache: $o is byte-identical to the direct build's" cmp "$d/direct.$o" "$d/$run.$o"
	done
done
entries=$(ls "$TREC_CACHE_DIR"/symbols-x*/ 2>/dev/null | wc -l)
check "the cold run wrote entries ($entries)" test "$entries" -ge 3
check "the warm run reused them (none rewritten)" \
	cmp "$d/cold.ls" <(ls -l --time-style=+%s.%N "$TREC_CACHE_DIR"/symbols-x*/ 2>&1)
# (-a records other jobs' files too: one may be gone, warned alike both ways)
check "no symbol cache warnings" bash -c "! grep -q 'symbol cache' '$d/warm.err'"
# Not vacuous: the recording has busy's source lines and libc's symbols.
check "busy.c lines are in the output" grep -aq 'busy\.c' "$d/warm.pprof"
check "many processes were symbolized ($(wc -l <"$d/warm.folded") stacks)" \
	test "$(wc -l <"$d/warm.folded")" -gt 20

# trecord: write, reuse, heal, off.
rec() { "$TRECORD" -F 499 "${@:2}" -f -o "$d/$1.tr" -- "$WORKLOADS/busy" 1 >/dev/null 2>"$d/$1.err"; }
rm -rf "$TREC_CACHE_DIR"
rec first
bid=$(readelf -n "$WORKLOADS/busy" | awk '/Build ID/ { print $3 }')
entry=$(ls -d "$TREC_CACHE_DIR"/symbols-x*/"$bid"-* 2>/dev/null | head -n 1)
check "trecord writes busy's entry, named by its build-id" test -s "$entry"
before=$(stat -c %Y.%s "$entry")
sleep 1.1
rec second
check "the next recording reuses it (unchanged)" test "$(stat -c %Y.%s "$entry")" = "$before"
"$TREPORT" --symbol-source=embedded --folded "$d/second.tr" >"$d/second.folded" 2>/dev/null
check "... and names busy's functions from it" grep -q '^busy;.*main' "$d/second.folded"
size=$(stat -c %s "$entry")
printf '\377\377\377\377' | dd of="$entry" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
rec damaged
check "a damaged entry: one warning" \
	test "$(grep -c "warning: ignoring the damaged symbol cache entry $entry: checksum mismatch" "$d/damaged.err")" = 1
"$TREPORT" --symbol-source=embedded --folded "$d/damaged.tr" >"$d/damaged.folded" 2>/dev/null
check "... the recording still names busy's functions" grep -q '^busy;.*main' "$d/damaged.folded"
rec healed
check "... and the entry was rewritten (no warning)" bash -c "! grep -q warning '$d/healed.err'"
rm -rf "$TREC_CACHE_DIR"
rec off --no-symbol-cache --no-delta-cache
check "--no-symbol-cache writes no entry" test ! -e "$TREC_CACHE_DIR"
