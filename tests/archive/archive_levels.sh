#!/usr/bin/env bash
# A measurement, not a test (run by hand: bash tests/archive/archive_levels.sh):
# what --archive=sampled costs and loses against --archive=full. Each
# workload is recorded at both levels (file size, archive build time in
# trecord's summary line); then the full recording is rearchived
# (tests/archive/rearchive.c) at full and at sampled, so the two levels are
# compared on exactly the same samples, with treport reading only the
# embedded symbols (--symbol-source=embedded: as if the binaries were gone).
source "$(dirname "$0")/../lib/common.sh"
build_workloads
make -s -C "$TREC_ROOT" all >/dev/null || exit 1
B=$TREC_ROOT/build
d=$(mktemp_dir)
inc="-I$TREC_ROOT -I$TREC_ROOT/format -I$TREC_ROOT/record -I$TREC_ROOT/report -I$TREC_ROOT/bpf -D_GNU_SOURCE"
cc -O1 -g -std=gnu11 -Wall -Wextra $inc -o "$d/rearchive" "$TREC_ROOT/tests/archive/rearchive.c" \
	"$B/librecord.a" "$B/libtrecformat.a" -ldw -lelf -lzstd -lz -lpthread || exit 1

embedded() { sed -n 's/.*embedded symbols of \([^)]*)\).*/\1/p' "$1"; }

measure() { # name command...
	local n=$1; shift
	for lvl in full sampled; do
		"$B/trecord" -F 999 --archive=$lvl -f -o "$d/$n.$lvl.tr" -- "$@" >/dev/null 2>"$d/$n.$lvl.err"
	done
	"$d/rearchive" "$d/$n.full.tr" "$d/$n.rf.tr" full &&
		"$d/rearchive" "$d/$n.full.tr" "$d/$n.rs.tr" sampled || { echo "$n: rearchive failed"; return; }
	for v in full rf rs; do
		for o in folded perf-script; do
			"$B/treport" --symbol-source=embedded --$o "$d/$n.$v.tr" > "$d/$n.$v.$o" 2>/dev/null
		done
		"$B/treport" --symbol-source=embedded --pprof -o "$d/$n.$v.pb.gz" "$d/$n.$v.tr" 2>/dev/null
		go tool pprof -raw "$d/$n.$v.pb.gz" 2>/dev/null | sed -n '/^Locations/,/^Mappings/p' |
			sort > "$d/$n.$v.pprof"
	done
	printf '%s: full %d B (%s), sampled %d B (%s)\n' "$n" "$(stat -c %s "$d/$n.full.tr")" \
		"$(embedded "$d/$n.full.err")" "$(stat -c %s "$d/$n.sampled.tr")" "$(embedded "$d/$n.sampled.err")"
	for o in folded perf-script pprof; do
		local a=same b=same
		cmp -s "$d/$n.full.$o" "$d/$n.rf.$o" || a=DIFFERENT
		cmp -s "$d/$n.rf.$o" "$d/$n.rs.$o" || b=DIFFERENT
		printf '  %-11s rearchived full as recorded: %s; sampled as full: %s\n' "$o" $a $b
		[ $b = same ] || diff "$d/$n.rf.$o" "$d/$n.rs.$o" | head -4 | sed 's/^/    /'
	done
}

measure busy "$WORKLOADS/busy" 2
measure inlines "$WORKLOADS/inlines" 2
measure cxxexcept "$WORKLOADS/cxxexcept" 2
measure threads "$WORKLOADS/threads" 2
[ -x /usr/bin/python3 ] && measure python /usr/bin/python3 "$TREC_ROOT/tests/python/busy.py" 2
exit 0
